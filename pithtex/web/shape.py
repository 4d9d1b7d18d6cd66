"""The one drawing of the pith badge, for `badge.svg` and the `<pith-badge>` element alike.

`shape()` returns the badge as a table of SVG nodes `[tag, {attribute: value}, children]`.
Python serialises it to text (`to_svg`); pith-badge.js receives the same table as JSON
and builds it with `createElementNS`. Neither draws anything of its own.

Only the message segment (the number's 8 characters) changes width from badge to badge,
so every coordinate that depends on it is a linear form `Lin(a, b)` = a + b * mw, with
mw the message width in px. Other values in the table:
- `"@key"`: a colour from the theme table (`theme_table`), e.g. `"@labelBg"`;
- `{"join": [...]}`: parts (strings and `Lin`s) concatenated, e.g. a path's `d`;
- the tokens `{uid}` (ids unique within the document) and `{message}` (the text shown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import brand, safetext
from .metrics import text_width

HEIGHT = 20
PAD = 5  # text padding left and right of each segment (shields: 5 px)
LOGO_PX = 14  # the logo's drawn size; its 16-unit box is scaled to this
LOGO_GAP = 3
CHECK_PX = 8  # a status mark's width
FONT_FAMILY = "DejaVu Sans,Verdana,Geneva,sans-serif"
SVG_NS = "http://www.w3.org/2000/svg"
# The status marks as polylines in badge px, relative to the mark's left edge; one table
# for the SVG, the PNG and the web element. "unchecked" has no mark: it claims nothing.
MARKS: dict[str, tuple[tuple[tuple[float, float], ...], ...]] = {
    brand.VERIFIED: (((0.0, 10.2), (2.6, 13.0), (8.0, 7.0)),),
    brand.INVALID: (((1.0, 6.5), (7.0, 12.5)), ((7.0, 6.5), (1.0, 12.5))),
}
MARK_STROKE = 1.8


@dataclass(frozen=True)
class Lin:
    """a + b * mw, where mw is the message segment's width in px."""

    a: float
    b: float = 0.0

    def at(self, mw: float) -> float:
        return self.a + self.b * mw

    def as_json(self) -> list[float]:
        return [self.a, self.b]


Node = list[Any]  # [tag, attributes, children (list of Node) or text]


def label_width() -> int:
    return PAD + LOGO_PX + LOGO_GAP + round(text_width(brand.LABEL)) + PAD


def message_width(message: str) -> int:
    return PAD + round(text_width(message)) + PAD


def status_width(word: str, mark: bool) -> int:
    return PAD + (CHECK_PX + LOGO_GAP if mark else 0) + round(text_width(word)) + PAD


def _texts(x10: Lin, length10: Lin, content: str, fg: str) -> list[Node]:
    """A shields-style text: a faint shadow one px below, then the text (drawn at 10x)."""
    common = {"transform": "scale(.1)", "textLength": length10}
    return [
        ["text", {"aria-hidden": "true", "x": x10, "y": 150, "fill": f"@{fg}Shadow", "fill-opacity": ".3", **common},
         content],
        ["text", {"x": x10, "y": 140, "fill": f"@{fg}", **common}, content],
    ]


@lru_cache(maxsize=1)
def _logo() -> tuple[Node, ...]:
    """brand.LOGO as circles, scaled from its 16-unit box into LOGO_PX at (PAD, 3)."""
    k = LOGO_PX / brand.LOGO_SIZE
    nodes = []
    for c in brand.LOGO:
        cx, cy = PAD + c.cx * k, 3 + (brand.LOGO_SIZE - c.cy) * k  # SVG's y grows downwards
        attrs: dict[str, Any] = {"cx": f"{cx:.3g}", "cy": f"{cy:.3g}", "r": f"{c.r * k:.3g}"}
        if c.stroke:
            attrs.update({"fill": "none", "stroke": "@labelFg", "stroke-width": f"{c.stroke * k:.3g}"})
        else:
            attrs["fill"] = "@labelFg"
        nodes.append(["circle", attrs, []])
    return tuple(nodes)


def _mark(word: str, x: float) -> list[Node]:
    """The state's mark (MARKS) as one path, its left edge at x + mw."""
    lines = MARKS.get(word, ())
    if not lines:
        return []
    parts: list[Any] = []
    for line in lines:
        for i, (px, py) in enumerate(line):
            parts += ["M" if i == 0 else "L", Lin(round(x + px, 4), 1), f" {py:g}"]
    return [["path", {"d": {"join": parts}, "fill": "none", "stroke": "@messageFg", "stroke-width": f"{MARK_STROKE:g}",
                      "stroke-linecap": "round", "stroke-linejoin": "round"}, []]]


def shape(status: str | None = None, width: int = 0, word: str | None = None,
          mark: str | None = None) -> dict[str, Any]:
    """The badge: label, message and (when `status` is a state word) a status segment
    `width` px wide with the state's mark, if MARKS has one. Returns {"width": Lin, "nodes": [...]}.
    `word` and `mark` draw another word or mark in `status`'s colour (the element's "page key")."""
    lw, sw = label_width(), (width if status else 0)
    total = Lin(lw + sw, 1)
    rects: list[Node] = [
        ["rect", {"width": lw, "height": HEIGHT, "fill": "@labelBg"}, []],
        ["rect", {"x": lw, "width": Lin(0, 1), "height": HEIGHT, "fill": "@messageBg"}, []],
    ]
    label_x = PAD + LOGO_PX + LOGO_GAP + (lw - PAD - LOGO_PX - LOGO_GAP - PAD) / 2
    texts = (_texts(Lin(round(label_x * 10)), Lin(round(text_width(brand.LABEL) * 10)), brand.LABEL, "labelFg")
             + _texts(Lin(10 * lw, 5), Lin(-20 * PAD, 10), "{message}", "messageFg"))
    marks: list[Node] = []
    if status:
        mark, word = mark or status, word or status
        rects.append(["rect", {"x": Lin(lw, 1), "width": sw, "height": HEIGHT, "fill": f"@{status}Bg"}, []])
        start = PAD + CHECK_PX + LOGO_GAP if mark in MARKS else PAD  # where the word's room begins
        room = sw - start - PAD
        texts += _texts(Lin(round((lw + start + room / 2) * 10), 10), Lin(round(text_width(word) * 10)),
                        word, "messageFg")
        marks = _mark(mark, lw + PAD)
    rects.append(["rect", {"width": total, "height": HEIGHT, "fill": "url(#s{uid})"}, []])
    nodes: list[Node] = [
        ["linearGradient", {"id": "s{uid}", "x2": "0", "y2": "100%"}, [
            ["stop", {"offset": "0", "stop-color": "#bbb", "stop-opacity": ".1"}, []],
            ["stop", {"offset": "1", "stop-opacity": ".1"}, []]]],
        ["clipPath", {"id": "r{uid}"}, [["rect", {"width": total, "height": HEIGHT, "rx": "3", "fill": "#fff"}, []]]],
        ["g", {"clip-path": "url(#r{uid})"}, rects],
        *_logo(),
        *marks,
        ["g", {"text-anchor": "middle", "font-family": FONT_FAMILY, "text-rendering": "geometricPrecision",
               "font-size": "110"}, texts],
    ]
    return {"width": total, "nodes": nodes}


def _shadow(fg: str) -> str:
    # shields draws a dark shadow under light text, a light one under dark text
    return "#010101" if fg.lower() in ("#fff", "#ffffff") else "#ccc"


def theme_table(theme: brand.Theme) -> dict[str, str]:
    """The colours a shape's "@key" values name."""
    colours = {
        "labelBg": theme.label_bg.hex, "labelFg": theme.label_fg.hex,
        "messageBg": theme.message_bg.hex, "messageFg": theme.message_fg.hex,
        **{f"{word}Bg": theme.state_bg(word).hex for word in brand.STATES},
        f"{brand.CHECKING}Bg": theme.unchecked_bg.hex,
    }
    colours["labelFgShadow"] = _shadow(colours["labelFg"])
    colours["messageFgShadow"] = _shadow(colours["messageFg"])
    return colours


def to_json(value: Any) -> Any:
    """The table as plain JSON (a Lin becomes [a, b])."""
    if isinstance(value, Lin):
        return value.as_json()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


# -- serialising to SVG text (pith-badge.js does the same with DOM calls) -------------------
def _number(x: float) -> str:
    """The same text as JavaScript's String(Math.round(x * 1e4) / 1e4)."""
    x = round(x, 4)
    return str(int(x)) if x == int(x) else repr(x)


# A compiled drawing is a list of pieces: text already escaped, a Lin (a number that depends on
# the message width) or a token ("{uid}", "{message}") whose text is escaped once per badge.
# Escaping is per character, so escaping the pieces apart is escaping the whole.
Piece = str | Lin


def _value_pieces(v: Any, colours: dict[str, str]) -> list[Piece]:
    if isinstance(v, Lin):
        return [v] if v.b else [_number(v.a)]
    if isinstance(v, (int, float)):
        return [_number(v)]
    if isinstance(v, dict):
        return [piece for part in v["join"] for piece in _value_pieces(part, colours)]
    shown: str = v  # the shape tables' only other kind of value
    if shown.startswith("@"):
        return [safetext.xml(colours[shown[1:]])]
    pieces: list[Piece] = []
    for i, part in enumerate(_TOKEN.split(shown)):
        if part:
            pieces.append(part if i % 2 else safetext.xml(part))  # odd parts are the tokens themselves
    return pieces


_TOKEN = re.compile(r"(\{uid\}|\{message\})")


def _node_pieces(node: Node, colours: dict[str, str]) -> list[Piece]:
    tag, attrs, children = node
    out: list[Piece] = [f"<{tag}"]
    for k, v in attrs.items():
        out += [f' {k}="', *_value_pieces(v, colours), '"']
    if isinstance(children, str):
        inner = _value_pieces(children, colours)
    else:
        inner = [piece for child in children for piece in _node_pieces(child, colours)]
    return out + ([">", *inner, f"</{tag}>"] if inner else ["/>"])


@dataclass(frozen=True)
class Compiled:
    """A drawing in one theme, serialised once into a format string: constant text joined and
    escaped, a numbered field for each distinct number that depends on the message width, and
    the named fields each badge fills in ({uid}, {message}, escaped once a badge)."""

    width: Lin
    fields: tuple[Lin, ...]  # field i of `text`
    text: str

    def render(self, message: str, uid: str, aria_label: str, title: str) -> str:
        mw = message_width(message)
        w = _number(self.width.at(mw))
        body = self.text.format(*[_number(lin.at(mw)) for lin in self.fields],
                                uid=safetext.xml(uid), message=safetext.xml(message))
        return (f'<svg xmlns="{SVG_NS}" width="{w}" height="{HEIGHT}" viewBox="0 0 {w} {HEIGHT}" role="img" '
                f'aria-label="{safetext.xml(aria_label)}"><title>{safetext.xml(title)}</title>{body}</svg>')


def compile_svg(drawing: dict[str, Any], theme: brand.Theme) -> Compiled:
    """`drawing` (a `shape()`) serialised in `theme`, but for what each badge fills in."""
    colours = theme_table(theme)
    fields: dict[Lin, int] = {}
    text: list[str] = []
    for piece in (p for n in drawing["nodes"] for p in _node_pieces(n, colours)):
        if isinstance(piece, Lin):
            text.append("{" + str(fields.setdefault(piece, len(fields))) + "}")
        elif piece in _TOKENS:
            text.append(piece)
        else:
            text.append(piece.replace("{", "{{").replace("}", "}}"))
    return Compiled(drawing["width"], tuple(fields), "".join(text))


_TOKENS = frozenset({"{uid}", "{message}"})


def to_svg(drawing: dict[str, Any], message: str, theme: brand.Theme, uid: str,
           aria_label: str, title: str) -> str:
    """A standalone SVG document of `drawing` showing `message`."""
    return compile_svg(drawing, theme).render(message, uid, aria_label, title)


@lru_cache(maxsize=64)
def compiled_badge(status: str | None, width: int, theme: str) -> Compiled:
    """`shape(status, width)` compiled in the theme named `theme` of brand.THEMES: made once per
    state, status width and theme, so a badge costs its few numbers and escapes, not a drawing."""
    return compile_svg(shape(status, width), brand.THEMES[theme])
