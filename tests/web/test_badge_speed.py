"""The SVG badge's cost, counted: the drawing is built and serialised once per state, status
width and theme, and each badge escapes only its own four values (bench/badge.py times it)."""

from __future__ import annotations

import base64
import hashlib

from pithtex import brand, safetext
from pithtex.number import PithNumber
from pithtex.web import badge, shape


def _numbers(count: int) -> list[PithNumber]:
    return [PithNumber(base64.b32encode(hashlib.sha256(str(i).encode()).digest())[:26].decode())
            for i in range(count)]


def test_a_badge_escapes_its_own_values_once_and_builds_no_drawing(monkeypatch):
    state = badge.BadgeState(brand.VERIFIED, "checked", "pith-v1-2026-05")
    items = _numbers(50)
    badge.svg(items[0], state)  # the drawing for this state, made once
    escaped: list[str] = []
    real = safetext.xml

    def counting(text: str) -> str:
        escaped.append(text)
        return real(text)

    monkeypatch.setattr(safetext, "xml", counting)
    built = shape.compiled_badge.cache_info().misses
    drawn = []
    for n in items[1:]:
        drawn.append(badge.svg(n, state))
    assert shape.compiled_badge.cache_info().misses == built  # no drawing built again
    assert len(escaped) == 4 * len(items[1:])  # uid, message, aria-label, title: each once
    monkeypatch.setattr(safetext, "xml", real)
    for n, text in zip(items[1:], drawn, strict=True):  # the same text as a drawing built afresh
        lay = badge.layout(n, state.word)
        assert text == shape.to_svg(shape.shape(state.word, lay.status), badge.message_text(n),
                                    brand.THEMES["light"], f"{n.body[:8]}vl", badge.aria_label(n, state.word),
                                    badge.svg_title(n, state))


def test_values_that_need_escaping_are_escaped_in_every_place():
    state = badge.BadgeState(brand.INVALID, 'a reason with <tags> & "quotes"', "k")
    text = badge.svg(_numbers(1)[0], state, "dark")
    assert "<tags>" not in text and "&lt;tags&gt;" in text and "&quot;quotes&quot;" in text
    assert "{" not in text and "}" not in text  # every field of the compiled drawing filled in
