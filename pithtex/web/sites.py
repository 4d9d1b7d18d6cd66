"""Site generators' own files for a publication list: the index where the generator reads data,
and the include (Jekyll) or shortcode (Hugo) that turns one line of a template into a badge.

The include and the shortcode are package data (pithtex/data/site-*.html), so an installed
pithtex writes the same files the repository's tests build real sites with.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath

from ..errors import InputError, OutputError


@dataclass(frozen=True)
class Site:
    name: str
    configs: tuple[str, ...]  # a file that makes a folder this generator's site
    data: str  # where the generator reads pith.json
    template: str  # where its include or shortcode goes
    shipped: str  # the package data file written there
    static: str = ""  # the folder the generator serves as the site's root, when it has one


SITES = {
    "jekyll": Site("Jekyll", ("_config.yml", "_config.yaml", "_config.toml"), "_data/pith.json",
                   "_includes/pith-badge.html", "site-jekyll-pith-badge.html"),
    "hugo": Site("Hugo", ("hugo.toml", "hugo.yaml", "hugo.json", "config.toml", "config.yaml", "config.json"),
                 "data/pith.json", "layouts/shortcodes/pith.html", "site-hugo-pith.html", static="static"),
}


def shipped(site: Site) -> str:
    """The include or shortcode as the package ships it."""
    return resources.files("pithtex").joinpath("data").joinpath(site.shipped).read_text("utf-8")


def site_files(kind: str, root: Path) -> SiteFiles:
    """The files for the `kind` (jekyll, hugo) site at `root`; InputError when it is not one."""
    site = SITES[kind]
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    if not any((root / name).is_file() for name in site.configs):
        raise InputError(f"{root} has no {' or '.join(site.configs)}, so it is no {site.name} site")
    return SiteFiles(site, root)


@dataclass(frozen=True)
class SiteFiles:
    site: Site
    root: Path

    def assets_url(self, output: Path) -> str:
        """The URL path -o DIR is served at, when DIR is inside the site (under static/ for Hugo):
        the default --assets-url (a site served under a path prefix gives its own)."""
        try:
            relative = PurePosixPath(output.resolve().relative_to(self.root.resolve()).as_posix())
        except ValueError:
            raise InputError(f"{output} is outside the site at {self.root}; give --assets-url, the URL it is "
                             "served at") from None
        if self.site.static:
            if relative.parts[:1] != (self.site.static,):
                raise InputError(f"{output} is not under {self.root / self.site.static}, which Hugo serves; "
                                 "give --assets-url, the URL it is served at")
            relative = PurePosixPath(*relative.parts[1:])
        return "/" + (f"{relative}/" if relative.parts else "")

    def write(self, index: str) -> None:
        """pith.json where the generator reads data, and the include or shortcode."""
        from ..files import write_atomic

        for path, text in ((self.site.data, index), (self.site.template, shipped(self.site))):
            target = self.root / path
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputError(f"{target.parent}: cannot make it ({exc.strerror or exc})") from None
            write_atomic(target, text)
