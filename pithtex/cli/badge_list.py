"""`pithtex badge --list FILE -o DIR`: a verified badge for every paper of a list or BibTeX file."""

from __future__ import annotations

import sys
from pathlib import Path

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from argparse import Namespace

    from ..web.publist import Checked, Skipped
    from ..web.sites import SiteFiles

def run_list(args: Namespace) -> int:
    from ..client import Client
    from ..errors import PithError
    from ..resolver import base_url
    from ..web import publist, publist_check
    from . import warn_refused

    if not args.output or args.output == "-":
        raise PithError("--list writes a folder of files: give -o DIR")
    if args.number or args.arxiv or args.record:
        raise PithError("--list names the papers itself: give no ID, --arxiv or --record with it")
    # bad input first: nothing is fetched for it. Links go to --base-url's pages when given.
    site = _site(args) if args.site else None
    try:
        assets_url = args.assets_url or (site.assets_url(Path(args.output)) if site else None)
        place = publist.assets_base(assets_url, base_url(args.base_url) if args.base_url else None)
    except PithError as exc:
        raise type(exc)(f"--assets-url: {exc}") from None  # the library names no flags; the command line does
    papers, skipped = publist_check.load_list(Path(args.list))
    keys = warn_refused(args.keys)
    folder = _folder(Path(args.output))  # made only once the list and the keys are known good
    progress = _Progress(len(papers))
    kept = publist_check.Kept(folder, Client(keys, base_url=args.base_url, offline=True))
    checked = publist_check.check_all(papers, Client(keys, base_url=args.base_url, offline=args.offline),
                                      done=progress.step, kept=kept)
    progress.end()
    files = publist.list_files(checked, place, publist.page_keys(keys))
    _write(folder, files, args.base_url)
    if site is not None:
        site.write(files[publist.INDEX])
    _summary(checked, skipped, folder, len(files) + 1)
    return publist_check.exit_code(checked)


def _site(args: Namespace) -> SiteFiles:
    from ..errors import InputError
    from ..web.sites import SITES, SiteFiles

    root = Path(args.site_root)
    kind = SITES[args.site]
    if not root.is_dir():
        raise InputError(f"--site-root {root}: no such folder (give the {kind.name} site's folder)")
    if not any((root / name).is_file() for name in kind.configs):
        raise InputError(f"--site {args.site}: {root} has no {' or '.join(kind.configs)}, so it is no {kind.name} "
                         "site; run in the site's folder or give --site-root")
    return SiteFiles(kind, root)


def _folder(folder: Path) -> Path:
    """DIR, made when missing (its parent must exist); anything else there is refused."""
    from ..errors import OutputError
    from ..web.publist import BADGES, RECORDS, SNIPPETS

    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: not a folder; -o names the folder --list writes into")
    if not folder.parent.is_dir():
        raise OutputError(f"{folder.parent}: no such folder (-o DIR is made inside an existing folder)")
    try:
        for sub in ("", RECORDS, BADGES, SNIPPETS):
            (folder / sub).mkdir(exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{folder}: cannot make it ({exc.strerror or exc})") from None
    for sub in (RECORDS, BADGES, SNIPPETS):
        if not (folder / sub).is_dir():
            raise OutputError(f"{folder / sub}: not a folder")
    return folder


def _write(folder: Path, files: dict[str, str], base_url: str | None) -> None:
    """Every file through the one writer (atomic; a full disk names the file it stopped at)."""
    from ..files import write_atomic
    from ..web import assets

    write_atomic(folder / assets.SCRIPT_NAME, assets.render_script(base_url=base_url))
    for name, text in files.items():
        write_atomic(folder / name, text)


def _summary(checked: list[Checked], skipped: list[Skipped], folder: Path, written: int) -> None:
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
        line += f"; skipped {len(skipped)} BibTeX entries that name no arXiv id, arXiv DOI or Pith Number"
    print(line, file=sys.stderr)
    for entry in skipped:
        print(f"pithtex: skipped {shown(entry.key)} (line {entry.line}): {entry.reason}", file=sys.stderr)
    added = sum(p.verified and p.added_key for p in checked)
    if added:
        print(f"pithtex: note: {added} signed by a --keys key: each badge carries it as a page key (its keys "
              "attribute), and the reader's browser says 'page key', never the registry's verified", file=sys.stderr)
    kept = [p for p in checked if p.kept]
    if kept:
        oldest = min((p.verified_at or "" for p in kept), default="")
        print(f"pithtex: note: {len(kept)} verified from copies that verified before (the resolver could not be "
              f"reached){f'; the oldest verified {oldest}' if oldest else ''}", file=sys.stderr)
    if bad:
        words = ", ".join(sorted({p.word for p in bad}))
        print(f"pithtex: {len(bad)} listed without a badge ({words}): "
              + "; ".join(p.wanted.label for p in bad), file=sys.stderr)


class _Progress:
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
