"""Run LaTeXML as arXiv runs it on a paper and read the HTML back: the helpers behind
tests/latex/test_sty_latexml.py.

arXiv makes its HTML with latexmlc, preloading latexml.sty with `localrawstyles` so that a
.sty uploaded beside the paper is read as TeX source. PITH_TEXLIVE_ROOT (as for the TeX
routes, tests/texrun.py) runs latexmlc inside a Debian chroot on the same folder, which must
then be bind-mounted at the same path there (tools/texlive-matrix.sh does so).
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from .texrun import in_texlive

ARXIV_PRELOAD = "--preload=[ids,localrawstyles,nobibtex]latexml.sty"


@dataclass
class Conversion:
    """What one latexmlc run left behind."""

    html: str
    log: str          # latexmlc's own output (stdout and stderr), as arXiv's log shows it
    status: int


def convert(folder: Path, name: str = "paper", timeout: float = 240, arxiv: bool = True) -> Conversion:
    """folder/name.tex -> folder/name.html, as arXiv does it (arxiv=False: latexml.sty not
    preloaded, local .sty files read raw all the same)."""
    how = ARXIV_PRELOAD if arxiv else "--includestyles"
    proc = subprocess.run(in_texlive(folder, "latexmlc", how, f"--timeout={int(timeout)}",
                                   f"--dest={name}.html", f"{name}.tex"),
                          cwd=folder, capture_output=True, text=True, errors="replace",
                          timeout=timeout + 60, stdin=subprocess.DEVNULL)
    out = folder / f"{name}.html"
    return Conversion(out.read_text(errors="replace") if out.exists() else "", proc.stdout + proc.stderr,
                      proc.returncode)


@functools.cache
def version() -> str:
    """The LaTeXML that runs (`0.8.7`), in PITH_TEXLIVE_ROOT's chroot when one is named."""
    proc = subprocess.run(in_texlive(Path("/"), "latexmlc", "--VERSION"), capture_output=True, text=True,
                          errors="replace", timeout=120, stdin=subprocess.DEVNULL)
    found = re.search(r"LaTeXML version (\S+?)\)", proc.stdout + proc.stderr)
    assert found, proc.stdout + proc.stderr
    return found[1]


def complaints(log: str) -> list[str]:
    """LaTeXML's error, warning and fatal lines (`Error:category:object message`)."""
    return [line for line in log.splitlines() if re.match(r"(Error|Warning|Fatal):", line)]


def files_read(log: str) -> list[str]:
    """The files LaTeXML loaded (bindings) or interpreted (raw TeX), from its progress lines."""
    return re.findall(r"\((?:Loading|Processing (?:definitions|content)) (\S+?)(?:\.\.\.|\s)", log)


@dataclass
class Link:
    href: str
    text: str        # the text inside the <a>, tags removed
    svg: bool        # an inline SVG (the logo) inside the link
    offset: int      # where the <a> starts in the HTML


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[Link] = []
        self._open: list[Link] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            line, col = self.getpos()
            self._open.append(Link(dict(attrs).get("href") or "", "", False, self._offset(line, col)))
        elif tag == "svg" and self._open:
            self._open[-1].svg = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open:
            self.links.append(self._open.pop())

    def handle_data(self, data: str) -> None:
        for link in self._open:
            link.text += data

    def _offset(self, line: int, col: int) -> int:
        return self._starts[line - 1] + col

    def feed_all(self, html: str) -> list[Link]:
        self._starts = [0]
        for text_line in html.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(text_line))
        self.feed(html)
        self.close()
        return self.links


def links(html: str) -> list[Link]:
    """Every <a> of the paper, in order (the page's footer, LaTeXML's own logo link, left out)."""
    return _Links().feed_all(html.split("</article>")[0])


def text_of(html: str) -> str:
    """The page's text, tags removed and white space folded."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())
