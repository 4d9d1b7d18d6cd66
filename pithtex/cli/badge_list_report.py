"""What `badge --list` says: a line a paper, the run's summary, and progress on a terminal."""

from __future__ import annotations

import sys
from pathlib import Path

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from ..web.publist import Checked, Skipped


def summary(checked: list[Checked], skipped: list[Skipped], folder: Path, written: int) -> None:
    from ..safetext import shown
    from ..web.publist import paper_label

    for paper in checked:
        number = f"  {paper.number.prefixed}" if paper.number else ""
        print(f"{paper.word:<9} {paper_label(paper)}{number}")
        if not paper.verified:
            print(f"          {shown(paper.reason)}")
        elif paper.added_key:
            print(f"          {shown(paper.signer or '')}")
        if paper.kept:
            print(f"          {shown(paper.kept)}")
    good = sum(p.verified for p in checked)
    bad = [p for p in checked if not p.verified]
    line = f"pithtex: {good} of {len(checked)} papers verified; wrote {written} files into {folder}"
    if skipped:
        entries = "entry that names" if len(skipped) == 1 else "entries that name"
        line += f"; skipped {len(skipped)} BibTeX {entries} no arXiv id, arXiv DOI or Pith Number"
    print(line, file=sys.stderr)
    for entry in skipped:
        print(f"pithtex: skipped {shown(entry.key)} (line {entry.line}): {entry.reason}", file=sys.stderr)
    added = sum(p.verified and p.added_key for p in checked)
    if added:
        print(f"pithtex: note: {added} signed by a --keys key: each badge carries it as a page key (its keys "
              "attribute), and the reader's browser says 'page key', never the registry's verified", file=sys.stderr)
    kept = [p for p in checked if p.kept]
    if kept:
        oldest = min((p.verified_at for p in kept if p.verified_at), default="")
        unknown = sum(not p.verified_at for p in kept)
        print(f"pithtex: note: {len(kept)} verified from copies that verified before (the resolver could not be "
              f"reached){f'; the oldest verified {oldest}' if oldest else ''}"
              f"{f'; {unknown} verified at an unknown time' if unknown else ''}", file=sys.stderr)
    if bad:
        words = ", ".join(sorted({p.word for p in bad}))
        print(f"pithtex: {len(bad)} listed without a badge ({words}): "
              + "; ".join(p.wanted.label for p in bad), file=sys.stderr)


class Progress:
    """`checked 12/30` on stderr, rewritten in place, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        from ..safetext import unfiltered

        self.total, self.count = total, 0
        self.stream = unfiltered(sys.stderr)
        self.shown = self.stream.isatty()

    def step(self, paper: Checked) -> None:
        self.count += 1
        if self.shown:
            self.stream.write(f"\rpithtex: checked {self.count}/{self.total}")
            self.stream.flush()

    def end(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
