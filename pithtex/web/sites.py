"""Site generators' own files for a publication list: the index where the generator reads data,
and the include (Jekyll) or shortcode (Hugo) that turns one line of a template into a badge.

The include and the shortcode are package data (pithtex/data/site-*.html), so an installed
pithtex writes the same files the repository's tests build real sites with.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ..errors import InputError


@dataclass(frozen=True)
class Site:
    name: str
    configs: tuple[str, ...]  # a file that makes a folder this generator's site
    data: str  # where the generator reads pith.json
    template: str  # where its include or shortcode goes
    shipped: str  # the package data file written there
    base_key: str  # the config key naming the URL the site is served at (its path is every URL's prefix)
    static: str = ""  # the folder the generator serves as the site's root, when it has one


_HUGO_NAMES = tuple(f"{stem}.{ext}" for stem in ("hugo", "config") for ext in ("toml", "yaml", "yml", "json"))
SITES = {
    "jekyll": Site("Jekyll", ("_config.yml", "_config.yaml", "_config.toml"), "_data/pith.json",
                   "_includes/pith-badge.html", "site-jekyll-pith-badge.html", "baseurl"),
    # Hugo reads hugo.* or config.* at the root, or a config folder (Hugo Blox: config/_default/)
    "hugo": Site("Hugo", (*_HUGO_NAMES, *(f"config/_default/{name}" for name in _HUGO_NAMES)),
                 "data/pith.json", "layouts/shortcodes/pith.html", "site-hugo-pith.html", "baseURL", static="static"),
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


def config_value(path: Path, key: str) -> str | None:
    """A top-level string setting of a generator's config file, or None: JSON's, or the line
    `key = "value"` of TOML's top table, `key: value` of YAML (Hugo's keys are case-insensitive,
    Jekyll's are not). Lines, not a TOML or YAML parser: the one key pithtex needs is a plain
    string at the top, and Python 3.10 has no tomllib."""
    from ..files import read_input

    try:
        text = read_input(path, 1024 * 1024, "a site's config").decode("utf-8-sig")
    except (OSError, InputError, UnicodeDecodeError):
        return None
    fold = key != "baseurl"  # Hugo's baseURL is any case; Jekyll's baseurl only this one
    if path.suffix == ".json":
        try:
            table = json.loads(text)
        except (ValueError, RecursionError):
            return None
        found = next((v for k, v in table.items() if k == key or (fold and k.lower() == key.lower())),
                     None) if isinstance(table, dict) else None
        return found if isinstance(found, str) else None
    if path.suffix == ".toml":
        text = re.split(r"^[ \t]*\[", text, maxsplit=1, flags=re.M)[0]  # the top table ends at the first [table]
        value = r"\"(?P<q>[^\"\\\n]*)\"|'(?P<s>[^'\n]*)'"
        sep = "="
    else:
        value = r"\"(?P<q>[^\"\\\n]*)\"|'(?P<s>[^'\n]*)'|(?P<p>[^#\s'\"][^#\n]*?)?"
        sep = ":"
    line = re.search(rf"^{re.escape(key)}[ \t]*{sep}[ \t]*(?:{value})[ \t]*(?:#.*)?$", text,
                     re.M | (re.I if fold else 0))
    if line is None:
        return None
    return next((v for v in line.groupdict().values() if v is not None), "")


@dataclass(frozen=True)
class SiteFiles:
    site: Site
    root: Path

    def base_path(self) -> str:
        """The path the site is served under ("/jekyll" of `baseurl: /jekyll`, "/~me" of Hugo's
        `baseURL = "https://example.org/~me/"`), "" at a host's root; from the first config file."""
        for name in self.site.configs:
            if (self.root / name).is_file():
                value = config_value(self.root / name, self.site.base_key) or ""
                path = urlsplit(value).path if "://" in value else value
                return "/" + path.strip("/") if path.strip("/") else ""
        return ""

    def assets_url(self, output: Path) -> str:
        """The URL path -o DIR is served at, when DIR is inside the site (under static/ for Hugo),
        after the site's own path (`base_path`): the default --assets-url."""
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
        return self.base_path() + "/" + (f"{relative}/" if relative.parts else "")

    def write(self, index: str) -> None:
        """pith.json where the generator reads data, and the include or shortcode."""
        from ..files import make_folder, write_atomic

        for path, text in ((self.site.data, index), (self.site.template, shipped(self.site))):
            target = self.root / path
            make_folder(target.parent)
            write_atomic(target, text)
