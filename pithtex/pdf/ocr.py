"""Page 1's title read from its pixels, where its text layer cannot be taken at its word
(issue 32, "glyphs are what they look like, whatever the text layer says").

A font whose glyphs cannot be told from its text layer by their names (pdf/glyphs.py's
`untold`: composite Type 0 fonts, as XeLaTeX, LuaLaTeX and Word write them; Type 3 fonts;
fonts with an encoding of their own that pithtex does not read) draws whatever its program
says while its ToUnicode map says anything else. When page 1's title is set in one, pdfium.py
renders the title band as a viewer draws it and `read_image` reads it with Tesseract (the
`tesseract` program, Debian's tesseract-ocr and tesseract-ocr-eng), run under `prlimit` (CPU
seconds, address space), a wall deadline and a bound on what it may write. `verify.check_paper`
then takes the title only when `reads` finds it in what the pixels say as well: OCR's slips
(a letter misread, two run together) are forgiven, another title is not.

Without Tesseract such a title is not read at all ("unchecked", one line saying so). A PDF
whose title is set in told fonts (pdfLaTeX's Type 1 fonts) never starts it.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import IO, Any

# The title band is rendered at this many pixels per point of the title's size (a 17 pt title:
# capitals ~33 px high, where Tesseract reads best), with MARGIN times its size around it.
PIXELS_PER_SIZE = 48.0
MARGIN = 0.5
# What one Tesseract run may take: CPU seconds and address space (prlimit), wall seconds, and
# bytes written (a title band's text is a few hundred).
CPU_SECONDS = 20
ADDRESS_SPACE = 1024 * 1024 * 1024
DEADLINE = 20.0  # inside a bounded reader's own 30 s (pithtex/workers, issue 32), with room to spare
MAX_OUTPUT = 64 * 1024
# Characters of what Tesseract read that `reads` looks through (the band holds the title lines).
MAX_READ = 2_000
# Letters of a title compared with it, at most (arXiv's longest titles have some 300).
MAX_TITLE = 1_000
NEEDED = "tesseract is needed to read its title from the rendered page (Debian: tesseract-ocr tesseract-ocr-eng)"


def read_image(image: Any) -> tuple[str | None, str | None]:
    """(what Tesseract reads in `image`, a PIL image of the title band; None) or (None, why it
    could not be read: no Tesseract, or it failed or went past its bounds)."""
    program = shutil.which("tesseract")
    if program is None:
        return None, NEEDED
    limiter = shutil.which("prlimit")
    if limiter is None:
        return None, "prlimit (util-linux) is needed to run tesseract within bounds"
    import io

    png = io.BytesIO()
    image.save(png, "PNG")
    import resource

    cpu, space = (_within(CPU_SECONDS, resource.RLIMIT_CPU), _within(ADDRESS_SPACE, resource.RLIMIT_AS))
    command = [limiter, f"--cpu={cpu}", f"--as={space}", "--",
               program, "stdin", "stdout", "--psm", "6", "-l", "eng"]
    orphan_guard = shutil.which("setpriv")  # util-linux, as prlimit
    if orphan_guard is not None:  # a bounded reader killed mid-read takes its Tesseract with it
        command = [orphan_guard, "--pdeathsig", "KILL", "--", *command]
    env = {"PATH": os.environ.get("PATH", ""), "OMP_THREAD_LIMIT": "1", "LC_ALL": "C"}
    if "TESSDATA_PREFIX" in os.environ:
        env["TESSDATA_PREFIX"] = os.environ["TESSDATA_PREFIX"]
    out, problem = _run(command, png.getvalue(), env)
    if out is None:
        return None, problem
    return out.decode("utf-8", "replace"), None


def _within(wanted: int, which: int) -> int:
    """`wanted`, or less where this process's own hard limit is lower (a bounded worker reading
    the page: a child cannot be given more than its parent may have)."""
    import resource

    hard = resource.getrlimit(which)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def _run(command: list[str], data: bytes, env: dict[str, str]) -> tuple[bytes | None, str | None]:
    """The program's standard output, read within DEADLINE and MAX_OUTPUT; it is killed past either."""
    import selectors
    import threading
    import time

    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env)
    except OSError as exc:
        return None, f"tesseract could not be started ({exc.strerror or exc})"
    assert proc.stdin is not None and proc.stdout is not None
    writer = threading.Thread(target=_feed, args=(proc.stdin, data), daemon=True)
    writer.start()
    out = bytearray()
    deadline = time.monotonic() + DEADLINE
    try:
        with selectors.DefaultSelector() as waiting:
            waiting.register(proc.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, f"tesseract took over {DEADLINE:g} s to read the title"
                if not waiting.select(left):
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
                if len(out) > MAX_OUTPUT:
                    return None, f"tesseract wrote over {MAX_OUTPUT // 1024} KiB for the title"
        code = proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        return None, f"tesseract took over {DEADLINE:g} s to read the title"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        writer.join()
    if code != 0:
        how = f"was stopped by signal {-code}" if code < 0 else f"failed (exit {code})"
        return None, f"tesseract {how} reading the title"
    return bytes(out), None


def _feed(pipe: IO[bytes], data: bytes) -> None:
    import contextlib

    with contextlib.suppress(OSError):  # it died or was killed: _run says why
        try:
            pipe.write(data)
        finally:
            pipe.close()


# -- is the title what the pixels read? ------------------------------------------------------
# Letters Tesseract takes for one another, made one on both sides before comparing.
_ALIKE = str.maketrans("01i5", "olls")


def reads(title: str, text: str) -> bool:
    """True when `text` (what Tesseract read) shows `title` (a record's, TeX and all): its letters
    and digits in order, TeX math and unknown commands as bounded gaps (pdf/titles.py's
    pieces), with at most 2 + 1 a 20 letters misread, lost or added, and never three in a row
    (a word added or changed is another title, not OCR's slip)."""
    from .titles import key, pieces

    tokens: list[str | int] = []
    for literal, gap in pieces(title):
        tokens.extend(key(literal).translate(_ALIKE))
        if gap:
            tokens.append(gap)
    letters = sum(isinstance(token, str) for token in tokens)
    if not 4 <= letters <= MAX_TITLE:
        return False  # too short to tell titles apart; too long to be a title (and to compare)
    cost, run = _align(tokens, key(text).translate(_ALIKE)[:MAX_READ])
    return cost <= 2 + letters // 20 and run <= 2


def _align(tokens: list[str | int], text: str) -> tuple[int, int]:
    """The cheapest alignment of `tokens` (letters, and gaps: up to that many characters of
    `text` skipped free) with any part of `text`: (its edits, its longest run of edits)."""
    m = len(text)
    cost = [[0] * (m + 1)]  # row i: the cheapest alignment of tokens[:i] ending at text[:j]
    back: list[list[tuple[int, int]]] = [[(0, 0)] * (m + 1)]  # (previous row's column or -1: this row's, edit)
    for i, token in enumerate(tokens, 1):
        above, row, how = cost[i - 1], [0] * (m + 1), [(0, 0)] * (m + 1)
        for j in range(m + 1):
            if isinstance(token, int):
                k = min(range(max(j - token, 0), j + 1), key=lambda col: above[col])
                row[j], how[j] = above[k], (k, 0)
                continue
            best, step = above[j] + 1, (j, 1)  # the title's letter not read
            if j:
                if row[j - 1] + 1 < best:
                    best, step = row[j - 1] + 1, (-1, 1)  # a letter read that the title lacks
                same = 0 if text[j - 1] == token else 1
                if above[j - 1] + same <= best:
                    best, step = above[j - 1] + same, (j - 1, same)
            row[j], how[j] = best, step
        cost.append(row)
        back.append(how)
    end = min(range(m + 1), key=lambda col: cost[-1][col])
    return cost[-1][end], _longest_run(back, len(tokens), end)


def _longest_run(back: list[list[tuple[int, int]]], i: int, j: int) -> int:
    longest = run = 0
    while i > 0:
        column, edit = back[i][j]
        run = run + 1 if edit else 0
        longest = max(longest, run)
        if column < 0:
            j -= 1
        else:
            i, j = i - 1, column
    return longest
