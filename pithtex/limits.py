"""Size limits that more than one module enforces, each written once.

Every limit bounds what one untrusted input may make pithtex hold in memory; where two
readers meet the same input (a record as a file and as a PDF attachment, the XMP packet in
the facts reader and in the stamper, a resolver's answer in pithtex and in <pith-badge>),
they refuse it at the same size. A limit only one module knows stays in that module.
"""

from __future__ import annotations

# A Pith record: a file, stdin, or the record attached to a PDF; larger is not a record.
MAX_RECORD_BYTES = 16 * 1024 * 1024
# Characters all @string expansions of one .bib file may make together (a file of @strings
# that double each other grows without bound otherwise).
MAX_BIB_EXPANDED = 16 * 1024 * 1024
# A PDF's XMP packet, decoded; larger is not metadata, and is refused before parsing.
MAX_XMP_PACKET = 8 * 1024 * 1024
# A resolver's answer, read by `pithtex verify`/`badge` and by pith-badge.js alike.
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
# One network deadline, in seconds, for one whole fetch (connect, headers, body): the command
# line's default (PITH_TIMEOUT overrides it there) and pith-badge.js's, rendered in, so a slow
# server cannot make the page say "unchecked" where `pithtex verify` says "verified".
NETWORK_SECONDS = 20.0
# One TeX run's time limit in `check` and `bundle`, in seconds: the sandbox's default and
# both commands' --timeout default.
TEX_RUN_SECONDS = 120.0


def usable_seconds(value: float, shown: str, *, zero: bool = False) -> float:
    """`value` when it is a usable time limit: positive (or 0 when `zero`) and finite (`inf` or
    `1e309` would be no limit at all, and `nan` compares false with every deadline); else
    PithError (exit 2), naming the setting as `shown` (`--timeout inf`, `PITH_TIMEOUT='abc'`)."""
    import math

    from .errors import PithError

    if not (math.isfinite(value) and (value > 0 or (zero and value == 0))):
        raise PithError(f"{shown}: give a {'non-negative' if zero else 'positive'}, finite number of seconds")
    return value


def env_seconds(name: str, *, most: float, zero: bool = False) -> float | None:
    """The environment variable `name` as seconds (at most `most`), None when unset or empty: the
    one reader of such settings (PITH_TIMEOUT, PITHTEX_LOCK_WAIT). A value that is no usable
    limit (`abc`, `-1`, `nan`, `inf`, `0` unless `zero`) is refused, never replaced by a default."""
    import math
    import os

    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    return min(usable_seconds(value, f"{name}={text!r}", zero=zero), most)


# -- page 1 as a reader sees it (pithtex/pdf/page.py, pdfium.py, glyphs.py) ------------------------
# Device pixels of page 1 rendered to check what its top part shows (twice: with and without
# its text); a title band at 144 dpi is well under this.
MAX_RENDER_PIXELS = 2_000_000
# Form XObjects inside form XObjects on page 1: deeper is refused before PDFium parses it (a
# real page nests a few; each level of a fan-out doubles what PDFium would hold).
MAX_FORM_DEPTH = 12
# Fonts whose text layer is checked against their glyph names, and ToUnicode map bytes read each.
MAX_FONTS_CHECKED = 500
MAX_TOUNICODE_BYTES = 256 * 1024

# -- one PDF read in a worker process (pithtex/workers/bounded.py) -----------------------------------
# Whatever a PDF makes its readers do (pithtex's, then PDFium's), the worker that reads it may
# take this much address space beyond what it started with, this much CPU and this much time,
# and hand back this much; past any of them the file's verdict is "unchecked: reading it
# stopped", and the run goes on. The counts above refuse every known bomb long before these.
READ_MEMORY = 1024 * 1024 * 1024
READ_CPU_SECONDS = 10
READ_WALL_SECONDS = 30.0  # a busy machine shares its cores; CPU time is the real bound
MAX_READ_ANSWER = 64 * 1024 * 1024
# Files one worker reads before a fresh one takes over (a fork of its own): what a file leaves
# in a worker (PDFium's caches, a fragmented heap) stays with a hundred files at most.
READS_PER_WORKER = 100
# Files read at once: `--jobs` from 1 to this many a usable CPU (more only queue for the cores
# and hold memory); anything else is refused in one line.
JOBS_PER_CPU = 4


def usable_jobs(asked: int | None, shown: str = "--jobs") -> int:
    """The worker processes to run: None is one a usable CPU, at most 4; 1 to `JOBS_PER_CPU` x
    the usable CPUs as asked; anything else, PithError (exit 2)."""
    import os

    from .errors import PithError

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if asked is None:
        return min(4, cpus)
    most = cpus * JOBS_PER_CPU
    if not 1 <= asked <= most:
        raise PithError(f"{shown} {asked}: give a number of processes from 1 to {most} "
                        f"({JOBS_PER_CPU} for each of the {cpus} usable CPUs)")
    return asked
