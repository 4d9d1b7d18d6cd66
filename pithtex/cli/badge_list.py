"""`pithtex badge --list FILE -o DIR`: a verified badge for every paper of a list or BibTeX file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from argparse import Namespace

    from ..web.sites import SiteFiles

def run_list(args: Namespace) -> int:
    from ..client import Client
    from ..errors import PithError
    from ..resolver import base_url
    from ..web import publist, publist_check
    from . import warn_refused
    from .badge_list_report import Progress, summary

    if not args.output or args.output == "-":
        raise PithError("--list writes a folder of files: give -o DIR")
    if args.number or args.arxiv or args.record:
        raise PithError("--list names the papers itself: give no ID, --arxiv or --record with it")
    # bad input first: nothing is fetched for it. Links go to --base-url's pages when given.
    site, assets_url, site_path = _site(args) if args.site else (None, args.assets_url, None)
    try:
        place = publist.assets_base(assets_url, base_url(args.base_url) if args.base_url else None)
    except PithError as exc:
        raise type(exc)(f"--assets-url: {exc}") from None  # the library names no flags; the command line does
    place = replace(place, site_path=site_path)
    papers, skipped = publist_check.load_list(Path(args.list))
    keys = warn_refused(args.keys)
    folder = _folder(Path(args.output))  # made only once the list and the keys are known good
    progress = Progress(len(papers))
    kept = publist_check.Kept(folder, Client(keys, base_url=args.base_url, offline=True))
    checked = publist_check.check_all(papers, Client(keys, base_url=args.base_url, offline=args.offline),
                                      done=progress.step, kept=kept)
    progress.end()
    files = publist.list_files(checked, place, publist.page_keys(keys))
    _write(folder, files, args.base_url)
    if site is not None:
        site.write(files[publist.INDEX])
    summary(checked, skipped, folder, len(files) + 1)
    return publist_check.exit_code(checked)


def _site(args: Namespace) -> tuple[SiteFiles, str, str | None]:
    """--site's files, the assets URL (--assets-url, or -o DIR's path in the site) and, when
    the site gave it, the site's own path in it (its baseurl)."""
    from ..errors import PithError
    from ..web.sites import site_files

    try:
        site = site_files(args.site, Path(args.site_root))
        if args.assets_url:
            return site, args.assets_url, None
        return site, site.assets_url(Path(args.output)), site.base_path()
    except PithError as exc:
        raise type(exc)(f"--site {args.site}: {exc}") from None


def _folder(folder: Path) -> Path:
    """DIR, made when missing, with its missing parents (`-o static/pith` in a fresh site);
    a file anywhere on the way is refused."""
    from ..errors import OutputError
    from ..files import make_folder
    from ..web.publist import BADGES, RECORDS, SNIPPETS

    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: not a folder; -o names the folder --list writes into")
    for sub in (RECORDS, BADGES, SNIPPETS):
        make_folder(folder / sub, "-o")
    return folder


def _write(folder: Path, files: dict[str, str], base_url: str | None) -> None:
    """Every file through the one writer (atomic; a full disk names the file it stopped at)."""
    from ..files import write_atomic
    from ..web import assets

    write_atomic(folder / assets.SCRIPT_NAME, assets.render_script(base_url=base_url))
    for name, text in files.items():
        write_atomic(folder / name, text)
