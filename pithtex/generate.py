"""The project's generated files, rendered from one source of truth each: latex/pith.sty and
its manual (pithtex/latex/render.py), docs/arxiv-rules.md (pithtex/arxiv/catalogue.py) and the
npm package of <pith-badge> in web/ (pithtex/web/assets.py). `make render` (`pithtex
render`, a developer's command that `pithtex --help` does not list) writes them into a checkout; its `--check` (a
test) says which committed copy is stale.
"""

from __future__ import annotations

from pathlib import Path

from .errors import PithError
from .files import write_atomic
from .latex.render import DOC_PATH, STY_PATH, render_doc, render_sty

# What marks a folder as a pithtex checkout, the only place `render` writes into.
CHECKOUT_MARK = Path("pithtex") / "templates" / "pith.sty.j2"
RULES_PATH = Path("docs") / "arxiv-rules.md"  # `pithtex check`'s rule ids, from arxiv/catalogue.py




def outputs(root: Path) -> dict[Path, str]:
    """Each generated path (relative to root) and the text it must hold."""
    if not (root / CHECKOUT_MARK).is_file():
        raise PithError(f"{root}: not a pithtex checkout (no {CHECKOUT_MARK.as_posix()}); render regenerates the "
                        "project's latex/pith.sty. To put pith.sty next to a paper, run `pithtex sty`")
    files = {STY_PATH: render_sty(), DOC_PATH: render_doc()}
    if (root / "docs").is_dir():  # the project's documents (a copy of latex/ alone has none)
        files[RULES_PATH] = _rules_page()
    if (root / "web").is_dir():  # the npm package of <pith-badge> (a copy of latex/ alone has none)
        files.update(_web_package())
        if (root / "LICENSE").is_file():  # the package carries the project's MIT licence
            files[Path("web") / "LICENSE"] = (root / "LICENSE").read_text(encoding="utf-8")
    return files


def _web_package() -> dict[Path, str]:
    """The npm package under web/ (the <pith-badge> element), rendered like pith.sty."""
    from .web.assets import package_files

    return package_files()


def render_all(root: Path | str = ".") -> list[Path]:
    """Write latex/pith.sty, latex/pith-doc.tex and the rest of `outputs`; return the paths written."""
    root = Path(root)
    written = []
    for rel, text in outputs(root).items():
        # render owns the generated tree of a checkout (latex/, web/dist/): it makes those folders
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(root / rel, text)
        written.append(root / rel)
    return written


def check(root: Path | str = ".") -> list[str]:
    """The generated files (relative paths) that are missing or differ from a fresh render."""
    root = Path(root)
    stale = []
    for rel, text in outputs(root).items():
        path = root / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(rel.as_posix())
    return stale


def _rules_page() -> str:
    from .arxiv.catalogue import rules_page  # only render needs it: `pithtex stamp` never loads it

    return rules_page()
