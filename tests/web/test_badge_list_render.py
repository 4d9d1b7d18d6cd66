"""The list fragments through real renderers: markdown-it (CommonMark) and docutils, raw HTML
kept, and raw HTML stripped as a README sanitizer or Hugo's default does."""

from __future__ import annotations

import html.parser
import re

import pytest

from pithtex import brand
from pithtex.web import publist

from ..recordkit import TestKey, canonical, full_record

KEY = TestKey("lab-key-3")
ALLOWED = {"a", "img", "ul", "ol", "li", "p", "em", "strong", "code"}  # what a sanitizer keeps


class Sanitizer(html.parser.HTMLParser):
    """Keep the allowed tags (href, src, alt only), drop the others; script and style with their text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skipping += 1
        elif tag in ALLOWED and not self.skipping:
            kept = "".join(f' {k}="{v}"' for k, v in attrs if k in ("href", "src", "alt") and v is not None)
            self.out.append(f"<{tag}{kept}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skipping -= 1
        elif tag in ALLOWED and tag != "img" and not self.skipping:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(data)


def sanitized(page: str) -> str:
    s = Sanitizer()
    s.feed(page)
    return "".join(s.out)


def checked_papers() -> list[publist.Checked]:
    from pithtex.number import PithNumber

    papers = []
    for i, title in ((1, "Fine *title* [x](javascript:alert(1)) <b>"), (2, "Second")):
        record = full_record(canonical(title=title, arxiv_id=f"2401.0000{i}"), KEY)
        wanted = publist.paper_of(f"2401.0000{i}", i)
        papers.append(publist.Checked(wanted, brand.VERIFIED, "", PithNumber.parse(record["pith_number"]), record,
                                      title))
    papers.append(publist.Checked(publist.paper_of("2401.00003", 3), brand.INVALID, "hash: differs"))
    return papers


@pytest.fixture
def files() -> dict[str, str]:
    return publist.list_files(checked_papers(), publist.Place(), None)


def badges_in(page: str) -> list[tuple[str, str, str]]:
    return re.findall(r'<a href="(https://pith\.science/pith/[A-Z2-7]{26})"><img src="([^"]+)" alt="([^"]+)"', page)


def test_markdown_with_raw_html_kept_gives_two_elements_each_around_a_linked_image(files):
    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark", {"html": True}).render(files["publications.md"])
    assert page.count("<script src=\"pith-badge.js\" defer></script>") == 1
    assert len(re.findall(r"<pith-badge [^>]*><a href=[^>]*><img [^>]*></a></pith-badge>", page)) == 2, page
    assert "2401.00003" in page and page.count("<pith-badge") == 2
    assert "<b>" not in page and "href=\"javascript" not in page and "<em>" not in page


def test_markdown_with_raw_html_stripped_leaves_linked_static_badges_not_prose(files):
    from markdown_it import MarkdownIt

    page = sanitized(MarkdownIt("commonmark", {"html": True}).render(files["publications.md"]))
    found = badges_in(page)
    assert [alt for _url, _src, alt in found] == [f"pith: {src[12:20]}" for _url, src, _alt in found]
    assert len(found) == 2 and all(src.startswith("badges/pith-") for _url, src, _alt in found)
    text = re.sub(r"<[^>]+>", "", page)
    assert "unchecked" not in text and "pithpith" not in text and "pith-badge" not in text, text
    assert "(no Pith badge: its record did not verify)" in text


def test_html_fragment_stripped_keeps_the_linked_images(files):
    page = sanitized(files["publications.html"])
    assert len(badges_in(page)) == 2
    assert "pithpith" not in page and "unchecked" not in page


def test_rest_fragment_through_docutils(files):
    from docutils.core import publish_parts

    body = publish_parts(files["publications.rst"], writer="html5",
                         settings_overrides={"report_level": 5, "raw_enabled": True})["body"]
    assert body.count("<pith-badge ") == 2 and body.count("<script") == 1
    assert len(badges_in(body)) == 2
