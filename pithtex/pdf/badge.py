"""The visible badge for `stamp --badge`: the pith.sty design drawn as vector graphics.

The logo rings come from `brand.LOGO`, the ink from `brand.PRINT_COLOUR`, the text is
`pith:XXXXXXXX` in the standard Helvetica font. The badge sits in a Form XObject placed in
free space on page 1 (the top margin, else the bottom margin, judged from an estimate of
the page content's extent), always right-aligned, so never in the left 40 pt band where
arXiv stamps; a Link annotation over it points at the number's page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import brand
from ..number import PithNumber
from .errors import PdfSyntaxError
from .objects import Keyword, Name, Parser, Ref, Stream, format_number
from .reader import PdfFile, decode_stream

HEIGHT = 9.0  # pt: the logo's size; the text is set at 8 pt beside it
FONT_SIZE = 8.0
GAP = 2.5
MARGIN = 36.0  # from the page's right edge
EDGE = 18.0  # from the top (or bottom) edge
# Helvetica advance widths (per 1000 em) for the characters a short form can hold.
_WIDTHS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556,
                                                833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
                                                667, 611), strict=True))
_WIDTHS.update({d: 556 for d in "0123456789"}, p=556, i=222, t=278, h=556, **{":": 278})
# Content streams larger than this are not measured: assume a classic one-inch margin.
MAX_CONTENT = 4 * 1024 * 1024


def text_width(text: str, size: float = FONT_SIZE) -> float:
    return sum(_WIDTHS.get(c, 667) for c in text) * size / 1000


def badge_size(number: PithNumber) -> tuple[float, float]:
    return HEIGHT + GAP + text_width(number.short), HEIGHT


def _circle(circle: brand.Circle, scale: float) -> str:
    """A logo circle as path operators: its start and four Bezier quarters (brand.Circle.path)."""
    start, quarters = circle.path(scale)
    return " ".join([*map(format_number, start), "m"]
                    + [" ".join([*map(format_number, q), "c"]) for q in quarters])


def drawing(number: PithNumber) -> bytes:
    """The badge's content stream, in a box from (0, 0) to badge_size()."""
    r, g, b = (format_number(c) for c in brand.PRINT_COLOUR.rgb01)
    scale = HEIGHT / brand.LOGO_SIZE
    ops = [f"{r} {g} {b} rg {r} {g} {b} RG"]
    for circle in brand.LOGO:
        path = _circle(circle, scale)
        if circle.stroke:
            ops.append(f"{format_number(circle.stroke * scale)} w {path} S")
        else:
            ops.append(f"{path} f")
    baseline = (HEIGHT - FONT_SIZE * 0.72) / 2  # centre Helvetica's cap height on the logo
    ops.append(f"BT /PithHelv {format_number(FONT_SIZE)} Tf {format_number(HEIGHT + GAP)} "
               f"{format_number(baseline)} Td ({number.short}) Tj ET")
    return ("\n".join(ops) + "\n").encode("ascii")


# -- placement ----------------------------------------------------------------------------
def page_box(pdf: PdfFile, inherited: dict[str, Any]) -> tuple[float, float, float, float]:
    box = None
    for key in ("CropBox", "MediaBox"):
        value = pdf.resolve(inherited.get(key))
        if isinstance(value, list) and len(value) == 4 and all(isinstance(pdf.resolve(v), (int, float))
                                                               for v in value):
            nums = [float(pdf.resolve(v)) for v in value]
            box = (min(nums[0], nums[2]), min(nums[1], nums[3]), max(nums[0], nums[2]), max(nums[1], nums[3]))
            break
    return box or (0.0, 0.0, 612.0, 792.0)


Box = tuple[float, float, float, float]
Matrix = tuple[float, float, float, float, float, float]


Spot = tuple[Matrix, Box]  # (the badge's cm matrix, its rectangle in user space)


def _display_matrix(box: Box, rotate: int, X: float, Y: float) -> Matrix:
    """The cm that draws the badge upright at (X, Y) of the page as a viewer shows it (/Rotate)."""
    x0, y0, x1, y1 = box
    return {0: (1, 0, 0, 1, x0 + X, y0 + Y), 90: (0, 1, -1, 0, x1 - Y, y0 + X),
            180: (-1, 0, 0, -1, x1 - X, y1 - Y), 270: (0, -1, 1, 0, x0 + Y, y1 - X)}[rotate]


def candidates(box: Box, size: tuple[float, float], rotate: int = 0) -> list[Spot]:
    """Spots to try, as the page is shown: top right, bottom right, top left, bottom left.

    Spots reaching into the left 40 pt of the page itself (where arXiv stamps) are dropped.
    """
    w, h = size
    width, height = box[2] - box[0], box[3] - box[1]
    if rotate in (90, 270):
        width, height = height, width
    right, left = max(width - MARGIN - w, brand.ARXIV_BAND + 1), brand.ARXIV_BAND + MARGIN
    top, bottom = height - EDGE - h, EDGE
    spots: list[Spot] = []
    for X, Y in ((right, top), (right, bottom), (left, top), (left, bottom)):
        m = _display_matrix(box, rotate, X, Y)
        rect = _bbox(m, [(0, 0), (w, h), (0, h), (w, 0)])
        if rect[0] >= box[0] + brand.ARXIV_BAND:
            spots.append((m, rect))
    return spots or [(_display_matrix(box, 0, right, top),
                      (box[0] + right, box[1] + top, box[0] + right + w, box[1] + top + h))]


def place(box: Box, boxes: list[Box] | None, size: tuple[float, float], rotate: int = 0) -> tuple[Spot, bool]:
    """(spot, free): the first candidate spot that no content box touches, else the first anyway."""
    spots = candidates(box, size, rotate)
    if boxes is None:
        return spots[0], False
    for spot in spots:
        x0, y0, x1, y1 = spot[1]
        if not any(bx0 < x1 + 3 and x0 - 3 < bx1 and by0 < y1 + 3 and y0 - 3 < by1
                   for bx0, by0, bx1, by1 in boxes):
            return spot, True
    return spots[0], False


def content_boxes(pdf: PdfFile, page: dict[str, Any], inherited: dict[str, Any], box: Box) -> list[Box] | None:
    """Rough boxes of what the page draws (text, paths, images); None when it cannot be told."""
    contents = pdf.resolve(page.get("Contents"))
    streams = contents if isinstance(contents, list) else [contents]
    data = b""
    try:
        for item in streams:
            stream = pdf.resolve(item)
            if isinstance(stream, Stream):
                data += decode_stream(stream, limit=MAX_CONTENT) + b"\n"
            if len(data) > MAX_CONTENT:
                return None
    except (PdfSyntaxError, ValueError):
        return None
    resources = pdf.resolve(inherited.get("Resources"))
    xobjects = pdf.resolve(resources.get("XObject")) if isinstance(resources, dict) else None
    try:
        return _scan(data, lambda name: pdf.resolve(xobjects.get(name)) if isinstance(xobjects, dict) else None,
                     box)
    except (PdfSyntaxError, ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError):
        return None


_ID: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_PAINT = frozenset(("S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "sh"))


def _matrix(six: list[float]) -> Matrix:
    """Six numbers (a `cm`, `Tm` or /Matrix, its length checked) as a matrix."""
    a, b, c, d, e, f = six
    return a, b, c, d, e, f


def _mul(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def _bbox(m: Matrix, points: list[tuple[float, float]]) -> Box:
    xs = [m[0] * x + m[2] * y + m[4] for x, y in points]
    ys = [m[1] * x + m[3] * y + m[5] for x, y in points]
    return min(xs), min(ys), max(xs), max(ys)


def _text_length(args: list[Any]) -> int:
    return sum(len(a) for a in args if isinstance(a, bytes)) + sum(
        len(x) for a in args if isinstance(a, list) for x in a if isinstance(x, bytes))


def _scan(data: bytes, xobject: Callable[[Name], Any], box: Box) -> list[Box]:
    """Boxes, in default user space, of text runs, painted paths, images and forms."""
    p = Parser(data)
    ctm, stack, boxes, operands, path = _ID, [], [], [], []
    tm = tlm = _ID
    leading, size = 0.0, 0.0
    while not p.at_end():
        obj = p.parse()
        if not isinstance(obj, Keyword):
            operands.append(obj)
            continue
        args, operands = operands, []
        op, nums = str(obj), [float(v) for v in args if isinstance(v, (int, float))]
        if op == "BI":  # inline image: skip its binary data
            end = data.find(b"EI", data.find(b"ID", p.pos))
            p.pos = end + 2 if end >= 0 else len(data)
            boxes.append(_bbox(ctm, [(0, 0), (1, 1), (0, 1), (1, 0)]))
        elif op == "q":
            stack.append(ctm)
        elif op == "Q":
            ctm = stack.pop() if stack else ctm
        elif op == "cm" and len(nums) == 6:
            ctm = _mul(_matrix(nums), ctm)
        elif op == "BT":
            tm = tlm = _ID
        elif op == "Tf" and nums:
            size = nums[-1]
        elif op == "TL" and nums:
            leading = nums[0]
        elif op in ("Td", "TD") and len(nums) == 2:
            leading = -nums[1] if op == "TD" else leading
            tm = tlm = _mul((1, 0, 0, 1, nums[0], nums[1]), tlm)
        elif op == "Tm" and len(nums) == 6:
            tm = tlm = _matrix(nums)
        elif op in ("T*", "'", '"'):
            tm = tlm = _mul((1, 0, 0, 1, 0, -leading), tlm)
        if op in ("Tj", "TJ", "'", '"'):
            width = max(1, _text_length(args)) * 0.6 * size  # a generous average glyph width
            boxes.append(_bbox(_mul(tm, ctm), [(0, -0.25 * size), (width, size), (0, size), (width, -0.25 * size)]))
        elif op == "re" and len(nums) == 4:
            x, y, w, h = nums
            rect = _bbox(ctm, [(x, y), (x + w, y + h), (x, y + h), (x + w, y)])
            if not _is_background(rect, box):
                path.append(rect)
        elif op in ("m", "l", "c", "v", "y") and len(nums) >= 2:
            pts = [(nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2)]
            path.append(_bbox(ctm, pts))
        elif op in _PAINT or op == "n":
            if path and op != "n":  # "n" ends a clipping path: nothing is drawn
                boxes.append((min(b[0] for b in path), min(b[1] for b in path),
                              max(b[2] for b in path), max(b[3] for b in path)))
            path = []
        elif op == "Do" and args and isinstance(args[0], Name):
            boxes.append(_xobject_box(ctm, xobject(args[0])))
    return boxes  # (a page-sized image is content: a scan has no free margin)


def _is_background(rect: Box, box: Box) -> bool:
    """A rectangle as large as the page is a background or a clip, not content."""
    return rect[2] - rect[0] >= 0.9 * (box[2] - box[0]) and rect[3] - rect[1] >= 0.9 * (box[3] - box[1])


def _xobject_box(ctm: Matrix, xobj: Any) -> Box:
    """An image fills the unit square; a form its /BBox under its /Matrix."""
    corners = [(0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0)]
    if isinstance(xobj, Stream) and xobj.dict.get("Subtype") == "Form":
        bbox, matrix = xobj.dict.get("BBox"), xobj.dict.get("Matrix")
        if isinstance(bbox, list) and len(bbox) == 4 and all(isinstance(v, (int, float)) for v in bbox):
            corners = [(bbox[0], bbox[1]), (bbox[2], bbox[3]), (bbox[0], bbox[3]), (bbox[2], bbox[1])]
        if isinstance(matrix, list) and len(matrix) == 6 and all(isinstance(v, (int, float)) for v in matrix):
            ctm = _mul(_matrix([float(v) for v in matrix]), ctm)
    return _bbox(ctm, corners)


# -- the objects --------------------------------------------------------------------------
def add_badge(pdf: PdfFile, number: PithNumber, objects: dict[Ref, Any], alloc: Callable[[], Ref]) -> list[str]:
    """Add the badge and its link to page 1; returns warnings (e.g. no free margin found)."""
    warnings: list[str] = []
    first = next(pdf.pages(limit=1), None)
    if first is None:
        raise PdfSyntaxError("the page tree has no page to put a badge on")
    page_ref, page, inherited = first
    if not isinstance(page_ref, Ref):
        raise PdfSyntaxError("page 1 is not an indirect object")
    box = page_box(pdf, inherited)
    size = badge_size(number)
    rotate = pdf.resolve(inherited.get("Rotate"))
    rotate = rotate % 360 if isinstance(rotate, int) and rotate % 90 == 0 else 0
    (matrix, rect), free = place(box, content_boxes(pdf, page, inherited, box), size, rotate)
    if not free:
        warnings.append("no free margin found on page 1: the badge may overlap content")
    form_ref, pre_ref, post_ref, annot_ref = alloc(), alloc(), alloc(), alloc()
    w, h = size
    objects[form_ref] = Stream({
        Name("Type"): Name("XObject"), Name("Subtype"): Name("Form"), Name("BBox"): [0, 0, w, h],
        Name("Resources"): {Name("Font"): {Name("PithHelv"): {
            Name("Type"): Name("Font"), Name("Subtype"): Name("Type1"), Name("BaseFont"): Name("Helvetica"),
            Name("Encoding"): Name("WinAnsiEncoding")}}},
    }, drawing(number))
    resources = dict(pdf.resolve(inherited.get("Resources")) or {})
    xobjects = dict(pdf.resolve(resources.get("XObject")) or {})
    name = "PithBadge"
    while name in xobjects:
        name += "X"
    xobjects[Name(name)] = form_ref
    resources[Name("XObject")] = xobjects
    # Wrap the old content in q … Q so whatever state it leaves cannot move the badge.
    objects[pre_ref] = Stream({}, b"q\n")
    cm = " ".join(format_number(v) for v in matrix)
    objects[post_ref] = Stream({}, f"Q\nq {cm} cm /{name} Do Q\n".encode("ascii"))
    contents = pdf.resolve(page.get("Contents"))
    old = contents if isinstance(contents, list) else ([page["Contents"]] if page.get("Contents") else [])
    annots = pdf.resolve(page.get("Annots"))
    objects[annot_ref] = {
        Name("Type"): Name("Annot"), Name("Subtype"): Name("Link"),
        Name("Rect"): [round(v, 3) for v in rect], Name("Border"): [0, 0, 0], Name("F"): 4, Name("P"): page_ref,
        Name("A"): {Name("S"): Name("URI"), Name("URI"): number.url.encode("ascii")},
    }
    new_page = dict(page)
    new_page[Name("Resources")] = resources
    new_page[Name("Contents")] = [pre_ref, *old, post_ref]
    new_page[Name("Annots")] = [*(annots if isinstance(annots, list) else []), annot_ref]
    objects[page_ref] = new_page
    return warnings
