"""A publication list: which papers a list or BibTeX file names, and the files a site needs.

Pure functions: text in, `Wanted` papers out (`read_list`), and checked papers in, files out
(`list_files`). The checking itself (network) is `pithtex.web.publist_check`, the writing
`pithtex.cli.badge_list`. A paper that did not verify is never drawn as a `<pith-badge>`
(which could turn green in a browser): it is listed as plain text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from .. import brand, safetext
from ..arxiv.ids import ArxivId, looks_like
from ..errors import InputError, InvalidNumber
from ..number import PithNumber
from ..pdf import titles
from . import badge, bibtex
from .assets import SCRIPT_NAME
from .shape import HEIGHT

INDEX = "pith.json"  # the index a site's template reads: one entry per BibTeX key, arXiv id, DOI or number
RECORDS = "records"
BADGES = "badges"
SNIPPETS = "snippets"
FRAGMENT = "publications"
KINDS = ("html", "md", "rst")
MAX_PAPERS = 2000  # a researcher's list; a file naming more is refused rather than fetched
_DOI = re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:)?10\.48550/arxiv\.(?P<id>.+)", re.I)
# An arXiv page's URL: DBLP's .bib gives a CoRR paper's id only there (`url`, `ee`).
_ARXIV_URL = re.compile(r"https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>[^\s?#]+?)(?:\.pdf)?/?", re.I)


@dataclass(frozen=True)
class Wanted:
    """One paper of the list: where it was named, and as what (an arXiv id or a Pith Number)."""

    line: int
    given: str  # the text as written (for messages)
    arxiv: ArxivId | None = None
    number: PithNumber | None = None
    title: str | None = None  # the BibTeX title (LaTeX decoded), when the list is one
    key: str | None = None  # the BibTeX key
    author: str | None = None  # the BibTeX entry's first author's family name (LaTeX decoded)
    source: str = ""  # the list file's name, for messages
    twins: tuple[Wanted, ...] = ()  # later BibTeX entries naming the same paper: checked with it, each listed

    @property
    def entry(self) -> str:
        """The entry as a message names it: `papers.bib's wrong2023id`, or the line it is on."""
        return f"{self.source}'s {self.key}" if self.key else f"{self.source}, line {self.line}"

    @property
    def label(self) -> str:
        return self.arxiv.prefixed if self.arxiv else (self.number.prefixed if self.number else self.given)


@dataclass(frozen=True)
class Checked:
    """A paper after its check: `word` is brand.VERIFIED only for a record that verified as it."""

    wanted: Wanted
    word: str  # verified, invalid or unchecked
    reason: str = ""
    number: PithNumber | None = None
    document: dict[str, Any] | None = None  # only when verified
    title: str | None = None  # the record's title, when it hashes to the signed title_canon_sha256
    signer: str | None = None
    added_key: bool = False  # verified under a key --keys added (the page's key), not the registry's
    verified_at: str | None = None  # when it verified (UTC, ISO 8601): now, or an earlier run's time when kept
    kept: str = ""  # when the resolver could not be reached: which earlier verified copy stood in, and how old

    @property
    def verified(self) -> bool:
        return self.word == brand.VERIFIED and self.number is not None and self.document is not None


# -- reading the list ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Skipped:
    """A BibTeX entry the list leaves out, and why."""

    key: str
    line: int
    reason: str


def paper_of(text: str, line: int, title: str | None = None, key: str | None = None, source: str = "") -> Wanted:
    """One line's paper: an arXiv id, an arXiv DOI or a Pith Number; InvalidNumber otherwise."""
    doi = _DOI.fullmatch(text)
    if doi:
        return Wanted(line, text, arxiv=ArxivId.parse(doi.group("id")), title=title, key=key, source=source)
    try:
        return Wanted(line, text, arxiv=ArxivId.parse(text), title=title, key=key, source=source)
    except InvalidNumber:
        pass
    try:
        return Wanted(line, text, number=PithNumber.parse(text), title=title, key=key, source=source)
    except InvalidNumber:
        raise InvalidNumber(f"{safetext.shown(text[:80], quote=True)} is not an arXiv id, an arXiv DOI "
                            "(10.48550/arXiv.…) or a Pith Number") from None


def entry_mismatch(wanted: Wanted, record_title: str | None, record_authors: str | None = None) -> str | None:
    """Why a BibTeX entry is not the paper its id names, or None when its title is the record's
    (and its first author is among the record's authors, when both name authors).
    The titles are compared as `pithtex verify` binds a PDF to its record (pdf.titles: whole
    words, accents, case and TeX markup set aside, symbols kept), either side read as the
    pattern. An entry without a title, or a list line, names no title to compare. The record's
    `paper.authors_text` is not signed (and not in author order), so it can only take a badge
    away: a family name it lacks marks two papers of one title apart."""
    if wanted.title is None:
        return None
    if record_title is None:
        return (f"{wanted.entry} says {safetext.shown(wanted.title, quote=True)}, and the record's title "
                "cannot be authenticated to compare it with")
    if _same_title(wanted.title, record_title):
        author = wanted.author or ""
        names = {titles.key(part) for part in re.split(r"[-–—]", author)} - {""}
        if names and record_authors and names.isdisjoint(titles.words(record_authors)):
            return (f"{wanted.entry}'s first author is {safetext.shown(author, quote=True)}, the record's "
                    f"authors (unsigned) are {safetext.shown(titles.shorten(record_authors), quote=True)}")
        return None
    return (f"{wanted.entry} says {safetext.shown(titles.shorten(wanted.title), quote=True)}, the record is of "
            f"{safetext.shown(titles.shorten(record_title), quote=True)}")


def _same_title(entry: str, record: str) -> bool:
    if titles.pattern(record) is None or titles.pattern(entry) is None:  # too short to match as words
        return titles.key(entry) == titles.key(record)
    return titles.same(record, entry) or titles.same(entry, record)


def is_bib(name: str, text: str) -> bool:
    """Whether a list file is BibTeX: named .bib, or its text starts with an entry."""
    return name.lower().endswith(".bib") or text.lstrip().startswith("@")


def read_list(text: str, name: str, bib: bool,
              parse: Callable[[str, str], list[bibtex.Entry]] = bibtex.entries) -> tuple[list[Wanted], list[Skipped]]:
    """The papers `text` names, in order, once each, and the BibTeX entries that name none.
    Raises InputError naming the file and line of anything unreadable, or for an empty list.
    `parse` splits a .bib (publist_check runs bibtex.entries in a worker under limits)."""
    papers, skipped = (_from_bib(text, name, parse) if bib else (_from_lines(text, name), []))
    unique = _first_named(papers, twins=bib)
    if not unique:
        raise InputError(f"{name}: names no paper (give arXiv ids, arXiv DOIs or Pith Numbers, one a line, "
                         "or a .bib file with eprint/arxiv/doi fields)")
    if len(unique) > MAX_PAPERS:
        raise InputError(f"{name}: names {len(unique):,} papers, more than the {MAX_PAPERS:,} a list may have")
    return unique, skipped


def _identity(paper: Wanted) -> str:
    return paper.arxiv.paper if paper.arxiv else paper.number.body if paper.number else paper.given


def _first_named(papers: list[Wanted], twins: bool = False) -> list[Wanted]:
    """A paper named twice is checked once, where first named. In a plain list the later lines
    are dropped; with `twins` (BibTeX entries, each with its own key and title) they ride along
    as the first's `twins`, so each entry is compared, indexed and listed as itself."""
    first: dict[str, Wanted] = {}
    later: dict[str, list[Wanted]] = {}
    for paper in papers:
        if _identity(paper) not in first:
            first[_identity(paper)] = paper
        elif twins:
            later.setdefault(_identity(paper), []).append(paper)
    return [replace(p, twins=tuple(later[i])) if i in later else p for i, p in first.items()]


def _from_lines(text: str, name: str) -> list[Wanted]:
    papers = []
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.split("#", 1)[0].strip()
        if not content:
            continue
        try:
            papers.append(paper_of(content, number, source=PurePath(name).name))
        except InvalidNumber as exc:
            raise InputError(f"{name}, line {number}: {exc}") from None
    return papers


def _from_bib(text: str, name: str, parse: Callable[[str, str], list[bibtex.Entry]]
              ) -> tuple[list[Wanted], list[Skipped]]:
    papers: list[Wanted] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for entry in parse(text, name):
        named = _bib_id(entry.fields)
        if named is None:
            skipped.append(Skipped(entry.key, entry.line, _why_skipped(entry.fields)))
            continue
        where = f"{name}, line {entry.line} (entry {safetext.shown(entry.key)})"
        try:
            wanted = paper_of(named, entry.line, None, entry.key, PurePath(name).name)
        except InvalidNumber as exc:
            raise InputError(f"{where}: {exc}") from None
        if len(seen) > MAX_PAPERS or (_identity(wanted) in seen and len(papers) >= MAX_PAPERS):
            continue  # read_list refuses a list of too many; past that many entries a twin is dropped
        seen.add(_identity(wanted))
        title = bibtex.decoded(entry.fields["title"], where) if entry.fields.get("title") else None
        papers.append(replace(wanted, title=title or None, author=_first_family(entry.fields.get("author"), where)))
    return papers, skipped


def _bib_id(fields: dict[str, str]) -> str | None:
    """The paper an entry names: `eprint` (an arXiv one), `arxiv`, or an arXiv `doi`."""
    eprint = bibtex.plain(fields.get("eprint", ""))
    prefix = bibtex.plain(fields.get("archiveprefix", fields.get("eprinttype", ""))).lower()
    if eprint and (prefix == "arxiv" or (not prefix and looks_like(eprint))):
        return eprint
    for key in ("arxiv", "arxivid"):
        if fields.get(key):
            return bibtex.plain(fields[key])
    doi = bibtex.plain(fields.get("doi", ""))
    if _DOI.fullmatch(doi):
        return doi
    return _dblp_id(fields)


def _dblp_id(fields: dict[str, str]) -> str | None:
    """A CoRR entry as DBLP exports it: the arXiv id only in the `url` or `ee` link to arxiv.org
    (or `volume = {abs/ID}` of `journal = {CoRR}`); None when that is not an arXiv id."""
    found = [m.group("id") for key in ("url", "ee") if (m := _ARXIV_URL.fullmatch(bibtex.plain(fields.get(key, ""))))]
    volume = bibtex.plain(fields.get("volume", ""))
    if bibtex.plain(fields.get("journal", "")).lower() == "corr" and volume.lower().startswith("abs/"):
        found.append(volume[4:])
    return next((text for text in found if looks_like(text)), None)


def _first_family(authors: str | None, where: str) -> str | None:
    """The first author's family name of a BibTeX `author` field ("Müller, J. and ..." or
    "Jan van Müller and ..."): its last word, decoded; None without one."""
    if not authors:
        return None
    first = re.split(r"\s+and\s+", authors.strip(), maxsplit=1)[0]
    family = first.split(",", 1)[0] if "," in first else first
    words = bibtex.decoded(family, where).split()
    return words[-1] if words and titles.key(words[-1]) else None


def _why_skipped(fields: dict[str, str]) -> str:
    """Why an entry names no paper a list can check (see `_bib_id`)."""
    eprint = bibtex.plain(fields.get("eprint", ""))
    prefix = bibtex.plain(fields.get("archiveprefix", fields.get("eprinttype", "")))
    if eprint:
        shown = safetext.shown(eprint[:60], quote=True)
        return f"its eprint {shown} is not arXiv's (archivePrefix {prefix or 'not given'})"
    doi = bibtex.plain(fields.get("doi", ""))
    if doi:
        return f"its DOI {safetext.shown(doi[:80])} is not an arXiv DOI, and it has no eprint"
    return "no eprint, arxiv or arXiv DOI field"


# -- the files ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Place:
    """Where the page finds DIR's files: relative to DIR (`base` empty), or under an absolute URL;
    and the resolver whose number pages the fallback badges link to."""

    base: str = ""
    resolver: str = brand.BASE_URL
    site_path: str | None = None  # the site's own path in `base` (Jekyll's baseurl), when --site chose `base`

    def url(self, path: str) -> str:
        return safetext.url(self.base + path)


def assets_base(given: str | None, resolver: str | None = None) -> Place:
    """--assets-url: an http(s) URL or an absolute path; InputError for a relative one (it would
    break on every page at another depth, which is what the option is for)."""
    links = resolver or brand.BASE_URL
    if not given:
        return Place(resolver=links)
    text = given.strip()
    if not (re.match(r"https?://[^/\s]+", text) or (text.startswith("/") and not text.startswith("//"))):
        raise InputError(f"the assets URL {safetext.shown(text, quote=True)}: give an https:// URL or a path "
                         "starting with /, so pages at any depth find the files")
    if re.search(r"[\s\x00-\x1f\x7f\"'<>]", text) or "?" in text or "#" in text:
        raise InputError(f"the assets URL {safetext.shown(text, quote=True)}: holds spaces, quotes, a query or "
                         "a fragment; give the folder's URL only")
    return Place(text if text.endswith("/") else text + "/", links)


def record_path(number: PithNumber) -> str:
    return f"{RECORDS}/{number.body}.json"


def image_path(number: PithNumber) -> str:
    return f"{BADGES}/{badge.image_name(number)}"


def saved_record(document: dict[str, Any]) -> str:
    """A verified record as `pithtex verify --save` writes it, for the element to fetch."""
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def page_keys(keys: Any) -> str | None:
    """The keys --keys added, as the element's `keys` attribute takes them (JSON), or None."""
    added = [{"key_id": k.key_id, "public_key_hex": k.raw.hex(), "fingerprint": k.fingerprint}
             for k in keys if not k.registry]
    return json.dumps({"keys": added}, separators=(",", ":")) if added else None


def paper_label(checked: Checked) -> str:
    """The paper as a reader sees it: the arXiv id (or number) first, then the title quoted with
    its own quote marks escaped, so a title cannot name another id after its closing quote."""
    title = checked.title or checked.wanted.title
    return checked.wanted.label + (f" {safetext.shown(title, quote=True)}" if title else "")


def not_shown_reason(checked: Checked) -> str:
    return ("its record did not verify" if checked.word == brand.INVALID
            else "its record could not be checked")


def list_files(papers: list[Checked], place: Place, keys_json: str | None) -> dict[str, str]:
    """Every text file of DIR, by its path in DIR (records, badges, fragments, snippets)."""
    files: dict[str, str] = {}
    for checked in papers:
        if checked.verified:
            assert checked.number is not None and checked.document is not None
            files[record_path(checked.number)] = saved_record(checked.document)
            files[image_path(checked.number)] = badge.svg(checked.number)
            for kind in KINDS:
                files[f"{SNIPPETS}/{checked.number.body}.{kind}"] = _item(kind, checked, place, keys_json) + "\n"
    script = f'<script src="{safetext.xml(place.url(SCRIPT_NAME))}" defer></script>'
    html_items = "\n".join(f"<li>{_item('html', c, place, keys_json, labelled=True)}</li>" for c in papers)
    html = f'{script}\n<ul class="pith-list">\n{html_items}\n</ul>\n'
    files[f"{FRAGMENT}.html"] = html
    files[f"{FRAGMENT}.md"] = script + "\n\n" + "".join(f"- {_item('md', c, place, keys_json, labelled=True)}\n"
                                                        for c in papers)
    files[f"{FRAGMENT}.rst"] = ".. raw:: html\n\n" + "".join(f"   {line}\n" for line in html.splitlines())
    files[INDEX] = index_json(papers, place, keys_json)
    return files


def index_names(wanted: Wanted) -> list[str]:
    """The names a template may look a paper up by: its BibTeX key, its arXiv id (without a
    version), the DOI or number as written, and its Pith Number."""
    names = [wanted.key] if wanted.key else []
    if wanted.arxiv is not None:
        names.append(wanted.arxiv.paper)
    if wanted.number is not None:
        names.append(wanted.number.body)
    names.append(wanted.given)
    return list(dict.fromkeys(names))


def index_json(papers: list[Checked], place: Place, keys_json: str | None) -> str:
    """pith.json: every paper of the list by each of its names (`index_names`), with its state,
    number, record path and the HTML snippet to put on a page (null unless it verified)."""
    entries: dict[str, dict[str, Any]] = {}
    for checked in papers:
        entry = {
            "state": checked.word, "number": checked.number.body if checked.number else None,
            "arxiv": checked.wanted.arxiv.paper if checked.wanted.arxiv else None,
            "title": checked.title or checked.wanted.title, "verified_at": checked.verified_at,
            "record": record_path(checked.number) if checked.verified and checked.number else None,
            "snippet": _item("html", checked, place, keys_json) if checked.verified else None,
            "reason": "" if checked.verified else checked.reason,
        }
        for name in index_names(checked.wanted):
            # a name two entries share (the arXiv id of twins) stays the first one's, unless only a
            # later one verified: an entry whose title is another paper's hides no badge of the paper
            if name not in entries or (checked.verified and entries[name]["snippet"] is None):
                entries[name] = entry
    document: dict[str, Any] = {"format": 1, "script": place.url(SCRIPT_NAME), "base": place.base}
    if place.site_path is not None:  # a generator built under another path puts its own in front of `base`
        document["site_path"] = place.site_path
    document["papers"] = entries
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def _item(kind: str, checked: Checked, place: Place, keys_json: str | None, labelled: bool = False) -> str:
    """One paper in `kind` (html, md, rst): its label (with `labelled`) and its badge, or why none."""
    label = paper_label(checked)
    if not checked.verified:
        note = f"(no Pith badge: {not_shown_reason(checked)})"
        if kind == "md":
            return f"{markdown_text(label)} {markdown_text(note)}"
        return f'<span class="pith-paper">{safetext.xml(label)}</span> <span class="pith-unverified">{note}</span>'
    element = _element(kind, checked, place, keys_json)
    if kind == "rst":
        return ".. raw:: html\n\n   " + element
    if not labelled:
        return element
    if kind == "md":
        return f"{markdown_text(label)} {element}"
    return f'<span class="pith-paper">{safetext.xml(label)}</span> {element}'


def _element(kind: str, checked: Checked, place: Place, keys_json: str | None) -> str:
    """A <pith-badge> whose light DOM is a linked static badge with alt text (Markdown's own
    image link in Markdown, so a renderer that strips raw HTML leaves a badge, not prose)."""
    number = checked.number
    assert number is not None
    attributes = {"number": number.body, "src": place.url(record_path(number))}
    if checked.wanted.arxiv is not None:
        attributes["arxiv"] = checked.wanted.arxiv.paper
    if keys_json:
        attributes["keys"] = keys_json
    opening = "<pith-badge" + "".join(f' {k}="{safetext.xml(v)}"' for k, v in attributes.items()) + ">"
    image, alt, link = place.url(image_path(number)), badge.alt_text(number), number.url_at(place.resolver)
    if kind == "md":
        fallback = f"[![{markdown_text(alt)}]({image})]({safetext.url(link)})"
    else:
        fallback = (f'<a href="{safetext.xml(link)}"><img src="{safetext.xml(image)}" alt="{safetext.xml(alt)}" '
                    f'width="{badge.layout(number).width}" height="{HEIGHT}"></a>')
    return f"{opening}{fallback}</pith-badge>"


# Characters Markdown may read as markup: written as character references, which CommonMark,
# Python-Markdown and markdown-it all decode to the character itself.
_MARKDOWN = frozenset("\\`*_{}[]()#!<>&|~^")


def markdown_text(text: str) -> str:
    """`text` for a Markdown page, read as nothing but text."""
    return "".join(f"&#{ord(c)};" if c in _MARKDOWN else c for c in text)
