"""PDFium's reading of page 1 (pypdfium2's raw API): which text objects a reader can see, and
the characters they draw, as pithtex/pdf/page.py's PageOne.

Two passes. The objects, in paint order (forms entered; PDFium gives every object, inside a
form too, in page space): each text object's render mode, fill and stroke colour and alpha,
size as set on the page, clip box and optional-content marks;
each opaque filled path and image's box (what lies beneath later text, and what covers
earlier text). Then PDFium's text page: each character with its box, size and the text
object that drew it; a character counts when its object is visible and its centre lies in
the crop box and the clip box, on a background of another colour, and under no later opaque
shape. Imported by page.py only, on first use.
"""

from __future__ import annotations

import ctypes
import math
from itertools import groupby, repeat

from ..limits import MAX_FORM_DEPTH, MAX_RENDER_PIXELS
from ..value import TYPE_CHECKING, NamedTuple
from . import seen as pg
from .glyphs import font_key

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any

# Two colours this close in each channel (0-255) are one colour to a reader.
SAME_COLOUR = 24
# A fill this transparent (alpha 0-255) shows nothing.
MIN_ALPHA = 26
WHITE = (255, 255, 255)
Colour = tuple[int, int, int]
# An affine matrix (a, b, c, d, e, f) as PDF writes it: x' = a x + c y + e, y' = b x + d y + f.
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_INVISIBLE_MODES = (3, 7)
# White space as the text page has it. Not str.isspace(): that takes 0x1C-0x1F too, which a TeX
# font without a ToUnicode map uses for ligatures (T1's "fi" is 0x1C).
_BLANK = frozenset(" \t\r\n\x0b\x0c\xa0\u2002\u2003\u2009\u200a\u200b\u3000")

_STROKE_ONLY = (1, 5)
_FILL_AND_STROKE = (2, 6)


class _Text(NamedTuple):
    """A text object as painted: visible at all, its colour, its clip box, its paint order."""

    visible: bool
    colour: Colour | None  # what the reader sees of its glyphs; None: not known (a pattern)
    clip: pg.Box | None
    order: int
    bbox: pg.Box
    size: float  # its font size times its matrix's vertical scale: the size a reader sees


class _Fill(NamedTuple):
    """An opaque filled path or image: its box, colour (None for an image) and paint order."""

    bbox: pg.Box
    colour: Colour | None
    order: int


class _Scene:
    def __init__(self) -> None:
        self.texts: dict[int, _Text] = {}
        self.fills: list[_Fill] = []
        self.count = 0
        self.handles: dict[int, Any] = {}  # each text object's PDFium handle, by address: hidden to render without it


def preload() -> None:
    """Import PDFium now: a process about to fork workers that read PDFs shares one import."""
    _library()


def _library() -> Any:
    """PDFium, started once a process: the functions the reader calls, declared by
    pdf/pdfium_c.py on the library pypdfium2 ships (its generated bindings of all 469 cost a fifth
    of a reading worker; its helper layer above them as much again), or pypdfium2's raw bindings
    where that library is not found. PDFium starts once however often it is asked (pypdfium2 may
    too)."""
    global _started, _lib
    if _lib is None:
        from . import pdfium_c

        _lib = pdfium_c.load()
        if _lib is None:
            import pypdfium2_raw

            _lib = pypdfium2_raw
    if not _started:
        _lib.FPDF_InitLibraryWithConfig(_lib.FPDF_LIBRARY_CONFIG(version=2, m_pUserFontPaths=None, m_pIsolate=None,
                                                                m_v8EmbedderSlot=0))
        _started = True
    return _lib


_lib: Any = None
_started = False

# PDFium's reasons a document does not load (FPDF_GetLastError), in pypdfium2's words
_LOAD_ERRORS = {0: "Success", 1: "Unknown error", 2: "File access error", 3: "Data format error",
                4: "Incorrect password error", 5: "Unsupported security scheme error",
                6: "Page not found or content error"}


class _Opened:
    """A document (`raw`) and, when it has forms, its form environment (`formenv`, with its own
    `raw`, and the settings it was made with, kept alive as long as it)."""

    def __init__(self, raw: Any, formenv: Any) -> None:
        self.raw, self.formenv = raw, formenv


class _Page:
    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def get_bbox(self) -> tuple[float, float, float, float]:
        """The MediaBox within the CropBox, as PDFium draws the page (its page tree's included)."""
        raw = _library()
        rect = raw.FS_RECTF()
        if not raw.FPDF_GetPageBoundingBox(self.raw, rect):
            raise _Failed("Failed to get page bounding box.")
        return (rect.left, rect.bottom, rect.right, rect.top)


class _Failed(Exception):
    pass


def _open(path: str | Path, password: bytes | None) -> _Opened:
    """The PDF open in PDFium, its forms ready to be drawn as a viewer draws them (set up before
    any page is loaded); _Failed in pypdfium2's words when it does not load."""
    import os
    import sys

    raw = _library()
    name = os.path.realpath(os.path.expanduser(os.fspath(path)))
    coded = "strict" if sys.platform.startswith("win32") else "surrogateescape"
    doc = raw.FPDF_LoadDocument((name + "\x00").encode("utf-8", errors=coded),
                                (password.decode("utf-8") + "\x00").encode("utf-8") if password else None)
    if raw.FPDF_GetPageCount(doc) < 1:
        code = raw.FPDF_GetLastError()
        if doc:
            raw.FPDF_CloseDocument(doc)
        raise _Failed(f"Failed to load document (PDFium: {_LOAD_ERRORS.get(code)}).")
    formenv = None
    if raw.FPDF_GetFormType(doc) != raw.FORMTYPE_NONE:
        settings = raw.FPDF_FORMFILLINFO(version=2)
        handle = raw.FPDFDOC_InitFormFillEnvironment(doc, settings)
        if not handle:
            raw.FPDF_CloseDocument(doc)
            raise _Failed("Initializing form env failed.")
        formenv = _Form(handle, settings)
    return _Opened(doc, formenv)


class _Form(NamedTuple):
    raw: Any
    settings: Any  # PDFium holds a pointer to it while the environment lives


def _close(doc: _Opened) -> None:
    raw = _library()
    if doc.formenv:
        raw.FPDFDOC_ExitFormFillEnvironment(doc.formenv.raw)
    raw.FPDF_CloseDocument(doc.raw)


def read_visible(path: str | Path, password: bytes | None, hidden: pg.Hidden, index: int = 0) -> pg.PageOne:
    """Page `index` (0: page 1) as a reader sees it."""
    raw = _library()
    try:
        # PDFium takes the password as UTF-8 bytes: the same bytes, for a UTF-8 password
        doc = _open(path, password)
    except UnicodeDecodeError:
        return pg.PageOne(problem="PDFium takes only a UTF-8 password: page 1 was not read")
    except _Failed as exc:
        return pg.PageOne(problem=f"PDFium cannot open the PDF ({exc})"[:200])
    try:
        if raw.FPDF_GetPageCount(doc.raw) <= index:
            return pg.PageOne(problem="the PDF has no pages" if index == 0 else f"the PDF has no page {index + 1}")
        handle = raw.FPDF_LoadPage(doc.raw, index)
        if not handle:
            return pg.PageOne(problem=f"PDFium cannot load page {index + 1} (Failed to load page.)"[:200])
        if doc.formenv:
            raw.FORM_OnAfterLoadPage(handle, doc.formenv.raw)
        try:
            return _read(doc, _Page(handle), hidden)
        finally:
            if doc.formenv:
                raw.FORM_OnBeforeClosePage(handle, doc.formenv.raw)
            raw.FPDF_ClosePage(handle)
    finally:
        _close(doc)


def _read(doc: Any, page: Any, hidden: pg.Hidden) -> pg.PageOne:
    raw = _library()

    # The visible box as PDFium draws it (the CropBox within the MediaBox, each inherited from
    # the page tree: dvipdfmx writes an A4 MediaBox there once). page.get_cropbox() reads the
    # page's own keys only and falls back to US Letter, which cut an A4 page's top 50 pt away.
    left, bottom, right, top = (float(v) for v in page.get_bbox())
    box = (left, bottom, right, top)
    scene = _Scene()
    if raw.FPDFPage_CountObjects(page.raw) > pg.MAX_OBJECTS:
        return pg.PageOne(problem=f"page 1 draws over {pg.MAX_OBJECTS:,} objects, too many to read for what it "
                          "shows", box=box)
    _walk(raw, [raw.FPDFPage_GetObject(page.raw, i) for i in range(raw.FPDFPage_CountObjects(page.raw))],
          None, False, hidden, scene)
    if scene.count > pg.MAX_OBJECTS:
        return pg.PageOne(problem=f"page 1 draws over {pg.MAX_OBJECTS:,} objects, too many to read for what it "
                          "shows", box=box)
    textpage = raw.FPDFText_LoadPage(page.raw)
    try:
        # all or nothing: a page 1 read in part could lose its real title to what comes first
        if raw.FPDFText_CountChars(textpage) > pg.MAX_CHARS:
            return pg.PageOne(problem=f"page 1 has over {pg.MAX_CHARS:,} characters, too many to read for what it "
                              "shows", box=box)
        pieces, stamp, unseen = _chars(raw, textpage, scene, box)
    except TooTangled as exc:
        return pg.PageOne(problem=str(exc), box=box)
    finally:
        raw.FPDFText_ClosePage(textpage)
    body = _body_size(pieces, box)
    floor = max(pg.MIN_SIZE, body * pg.SMALL_SHARE)
    small = sum(piece.ink for piece in pieces if piece.ink and piece.size < floor)
    pieces = [piece for piece in pieces if not piece.ink or piece.size >= floor]
    pieces, covered = _rendered(raw, doc, page, scene, pieces, body)
    lines = _lines(pieces)
    return _as_pixels_read(raw, doc, page, scene, hidden,
                           pg.PageOne(tuple(lines), body, stamp, _uris(raw, doc, page), None, box,
                                      unseen + small + covered))


def _as_pixels_read(raw: Any, doc: Any, page: Any, scene: _Scene, hidden: pg.Hidden, seen: pg.PageOne) -> pg.PageOne:
    """`seen`, and where its title is set in a font whose glyphs cannot be told from its text
    layer (pdf/glyphs.py's `untold`), what the rendered title band reads (pdf/ocr.py)."""
    lines = pg.title_lines(seen)
    if not lines:
        return seen
    band = _union([line.bbox for line in lines])
    why = _untold_in(raw, scene, hidden, band)
    if why is None:
        return seen
    from . import ocr

    size = max(line.size for line in lines)
    margin = size * ocr.MARGIN
    region = (band[0] - margin, band[1] - margin, band[2] + margin, band[3] + margin)
    area = max((region[2] - region[0]) * (region[3] - region[1]), 1.0)
    view = _Device(raw, page, min(ocr.PIXELS_PER_SIZE / max(size, 1.0), math.sqrt(MAX_RENDER_PIXELS / area)),
                   region)
    if view.width <= 0 or view.height <= 0:
        return seen._replace(untold=why, pixels_problem="its title lies outside the page")
    text, problem = ocr.read_image(view.render(doc))
    return seen._replace(untold=why, pixels=text, pixels_problem=problem)


def _untold_in(raw: Any, scene: _Scene, hidden: pg.Hidden, band: pg.Box) -> str | None:
    """Why a visible text object in `band` (page 1's title lines) cannot be taken at its word:
    its font is not one whose glyphs can be told from its text layer; None when none is."""
    why = dict(hidden.untold_why)
    for address, text in scene.texts.items():
        if not text.visible or _overlap(text.bbox, band) == 0:
            continue
        name = font_key(_font_name(raw, scene.handles[address]))
        if name not in hidden.told_fonts:
            return f"{name or 'a font without a name'}, {why.get(name, 'a font page 1 does not name')}"
    return None


# A character of page 1's top part (where its title is) counts only where the page, rendered
# as a viewer draws it (annotations' and form fields' appearances on top, optional content as
# shown on screen, clip paths, soft masks), changes when that character is taken away: so
# nothing drawn later covers it, no clip or hidden layer removes it, and it stands out from
# what lies beneath. INK_LEVEL: the grey levels (of 255) a pixel must change by to be ink a
# reader sees; INK_SHARE: the share of the character's box that must change.
INK_LEVEL = 40
INK_SHARE = 0.03


def _rendered(raw: Any, doc: Any, page: Any, scene: _Scene, pieces: list[_Piece],
              body: float) -> tuple[list[_Piece], int]:
    """The pieces with the top part's characters that the rendered page does not show taken
    out, and how many were taken out. Only what can be the title is checked: the display text
    (at least TITLE_OVER_BODY times the body size); and where none of it is seen, the block of
    body-size lines at the top, which is then the title (seen.title_lines)."""
    display = [i for i, piece in enumerate(pieces)
               if piece.ink and piece.obj and piece.size >= body * pg.TITLE_OVER_BODY]
    unseen = _unseen(raw, doc, page, scene, pieces, display)
    if len(unseen) == len(display):
        body_size = [i for i, piece in enumerate(pieces) if piece.ink and piece.obj and i not in unseen
                     and piece.size >= body * 0.95]
        highest = max((pieces[i].bbox[3] for i in body_size), default=0.0)
        # the top block: at most TOP_BLOCK lines, each with its gap (page.py), and then some
        reach = highest - body * (pg.TOP_BLOCK + 1) * 2.5
        unseen |= _unseen(raw, doc, page, scene, pieces, [i for i in body_size if pieces[i].bbox[3] >= reach])
    return [piece for i, piece in enumerate(pieces) if i not in unseen], len(unseen)


def _unseen(raw: Any, doc: Any, page: Any, scene: _Scene, pieces: list[_Piece], checked: list[int]) -> set[int]:
    """Which of the `checked` pieces (one character each) the rendered page does not show."""
    if not checked:
        return set()
    region = _union([pieces[i].bbox for i in checked])
    area = max((region[2] - region[0]) * (region[3] - region[1]), 1.0)
    scale = min(RENDER_SCALE, math.sqrt(MAX_RENDER_PIXELS / area))
    view = _Device(raw, page, scale, region)
    if view.width <= 0 or view.height <= 0:
        return set(checked)
    before = view.render(doc)
    from PIL import ImageChops

    ink: dict[int, Any] = {}  # each object's pixels that changed when it (and its group) was taken away
    boxes = {i: view.box(pieces[i].bbox) for i in checked}
    for group in _apart(boxes, pieces):
        after = _without(raw, doc, view, [scene.handles[address] for address in group])
        ink.update(dict.fromkeys(group, ImageChops.difference(before, after).point(_INK_TABLE)))
    return {i for i in checked if not _inked(ink[pieces[i].obj], boxes[i])}


_INK_TABLE = [255 if level > INK_LEVEL else 0 for level in range(256)]  # a grey level's change: ink or not


# Renderings of page 1 without some of its text, at most: objects whose characters touch are
# taken away in different renderings (an author line's ascenders would else count as the ink of
# a hidden title's descenders above it); beyond this many, the rest share the last one.
MAX_RENDER_PASSES = 6


def _apart(chars: dict[int, tuple[int, int, int, int]], pieces: list[_Piece]) -> list[list[int]]:
    """The checked characters' text objects (`chars`: each character's pixel box, by its
    piece) in groups whose characters' boxes do not touch."""
    boxes: dict[int, tuple[int, int, int, int]] = {}
    for i, (left, top, right, bottom) in chars.items():
        had = boxes.get(pieces[i].obj, (left, top, right, bottom))
        boxes[pieces[i].obj] = (min(had[0], left), min(had[1], top), max(had[2], right), max(had[3], bottom))
    groups: list[list[int]] = []
    for address, box in boxes.items():
        for group in groups:
            if not any(_touch(box, boxes[other]) for other in group):
                group.append(address)
                break
        else:
            if len(groups) < MAX_RENDER_PASSES:
                groups.append([address])
            else:
                groups[-1].append(address)
    return groups


def _touch(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] - 2 <= b[2] and b[0] - 2 <= a[2] and a[1] - 2 <= b[3] and b[1] - 2 <= a[3]


def _without(raw: Any, doc: Any, view: _Device, handles: list[Any]) -> Any:
    """The region rendered with these text objects made invisible (each keeps a clipping mode's
    clip, so what it clips is drawn as before), then shown again."""
    modes = []
    try:
        for handle in handles:
            mode = raw.FPDFTextObj_GetTextRenderMode(handle)
            modes.append((handle, mode))
            raw.FPDFTextObj_SetTextRenderMode(handle, 7 if mode >= 4 else 3)
        return view.render(doc)
    finally:
        for handle, mode in modes:
            raw.FPDFTextObj_SetTextRenderMode(handle, mode)


# The rendered region: at most RENDER_SCALE device pixels a point, and MAX_RENDER_PIXELS in all.
RENDER_SCALE = 2.0


class _Device:
    """Page 1 rendered as a viewer draws it, at `scale`, cut to `region` (page points)."""

    def __init__(self, raw: Any, page: Any, scale: float, region: pg.Box) -> None:
        self.raw, self.page = raw, page
        self.size = (max(int(raw.FPDF_GetPageWidthF(page.raw) * scale), 1),
                     max(int(raw.FPDF_GetPageHeightF(page.raw) * scale), 1))
        self.to_device = self._mapping()
        self.x0, self.y0 = 0, 0
        left, top, right, bottom = self.box(region)
        self.x0, self.y0 = max(left - 2, 0), max(top - 2, 0)
        self.width = min(right + 2, self.size[0]) - self.x0
        self.height = min(bottom + 2, self.size[1]) - self.y0

    def _mapping(self) -> Matrix:
        """The page-to-pixel matrix PDFium renders with (its page rotation and crop box
        included), asked once at 1,024 times the size so its whole pixels are exact enough."""
        fine = 1024
        x, y = ctypes.c_int(), ctypes.c_int()
        points = []
        for px, py in ((0.0, 0.0), (100.0, 0.0), (0.0, 100.0)):
            self.raw.FPDF_PageToDevice(self.page.raw, 0, 0, self.size[0] * fine, self.size[1] * fine, 0, px, py, x, y)
            points.append((x.value / fine, y.value / fine))
        (ox, oy), (ax, ay), (bx, by) = points
        return ((ax - ox) / 100, (ay - oy) / 100, (bx - ox) / 100, (by - oy) / 100, ox, oy)

    def box(self, box: pg.Box) -> tuple[int, int, int, int]:
        """`box` (page points) in the rendered region's whole pixels."""
        left, top, right, bottom = _mapped_box(self.to_device, box)
        return (math.floor(left) - self.x0, math.floor(top) - self.y0, math.ceil(right) - self.x0,
                math.ceil(bottom) - self.y0)

    def render(self, doc: Any) -> Any:
        """The region in grey levels (a PIL image): the page, its annotations, its form fields."""
        from PIL import Image

        raw = self.raw
        bitmap = raw.FPDFBitmap_Create(self.width, self.height, 0)
        if not bitmap:
            raise MemoryError("PDFium could not make a bitmap to render page 1 in")
        try:
            raw.FPDFBitmap_FillRect(bitmap, 0, 0, self.width, self.height, 0xFFFFFFFF)
            flags = raw.FPDF_ANNOT | raw.FPDF_GRAYSCALE
            args = (-self.x0, -self.y0, self.size[0], self.size[1], 0, flags)
            raw.FPDF_RenderPageBitmap(bitmap, self.page.raw, *args)
            if doc.formenv:
                raw.FPDF_FFLDraw(doc.formenv.raw, bitmap, self.page.raw, *args)
            stride = raw.FPDFBitmap_GetStride(bitmap)
            pixels = (ctypes.c_ubyte * (stride * self.height)).from_address(raw.FPDFBitmap_GetBuffer(bitmap))
            # grey: one channel (the first byte of each BGRx pixel) says it; read by PIL in C from
            # PDFium's own buffer, and copied out (getchannel) before the bitmap is destroyed
            return Image.frombuffer("RGBA", (self.width, self.height), pixels, "raw", "RGBA", stride, 1).getchannel(0)
        finally:
            raw.FPDFBitmap_Destroy(bitmap)


def _inked(ink: Any, box: tuple[int, int, int, int]) -> bool:
    """Enough of the pixels in `box` changed (`ink`: a PIL image of the changed pixels, 255 each)."""
    left, top, right, bottom = box
    area = max(right - left, 1) * max(bottom - top, 1)
    # a pixel more on each side: a rule or a hyphen's box may be thinner than one pixel
    left, top, right, bottom = max(left - 1, 0), max(top - 1, 0), min(right + 1, ink.width), min(bottom + 1, ink.height)
    # counted in C (the box cut out, its histogram's top bin), not a row at a time
    changed = ink.crop((left, top, right, bottom)).histogram()[255] if right > left and bottom > top else 0
    return changed >= max(1.0, INK_SHARE * area)


def _union(boxes: list[pg.Box]) -> pg.Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _walk(raw: Any, objects: list[Any], clip: pg.Box | None, in_hidden: bool,
          hidden: pg.Hidden, scene: _Scene, outer: Matrix = IDENTITY, depth: int = 0) -> None:
    """The objects in paint order. PDFium gives an object inside a form XObject its bounds,
    matrix and clip in the form's own space: `outer` (the forms' matrices so far) takes them
    to the page, so a title drawn through a form scaled to 0.02 is the 0.5 pt a reader sees."""
    for obj in objects:
        scene.count += 1
        if scene.count > pg.MAX_OBJECTS:
            return
        kind = raw.FPDFPageObj_GetType(obj)
        here = _intersect(clip, _mapped(outer, _clip_box(raw, obj)))
        off = in_hidden or _marked_off(raw, obj, hidden)
        if kind == raw.FPDF_PAGEOBJ_FORM:
            if depth > MAX_FORM_DEPTH:
                scene.count = pg.MAX_OBJECTS + 1  # refused whole, like a page of too many objects
                return
            children = [raw.FPDFFormObj_GetObject(obj, i) for i in range(raw.FPDFFormObj_CountObjects(obj))]
            _walk(raw, children, here, off or hidden.forms_off, hidden, scene,
                  _compose(_matrix(raw, obj), outer), depth + 1)
        elif kind == raw.FPDF_PAGEOBJ_TEXT:
            mode = raw.FPDFTextObj_GetTextRenderMode(obj)
            colour, transparent = _colour(raw, obj, stroke=mode in _STROKE_ONLY)
            if transparent and mode in _FILL_AND_STROKE:
                colour, transparent = _colour(raw, obj, stroke=True)  # its outline still shows
            size, squeezed = _size(raw, obj, outer)
            untrue = bool(hidden.untrue_fonts) and font_key(_font_name(raw, obj)) in hidden.untrue_fonts
            visible = not (off or mode in _INVISIBLE_MODES or transparent or squeezed or untrue)
            address = _address(obj)
            scene.texts[address] = _Text(visible, colour, here, scene.count, _mapped_box(outer, _bounds(raw, obj)),
                                         size)
            scene.handles[address] = obj
        elif not off and kind in (raw.FPDF_PAGEOBJ_PATH, raw.FPDF_PAGEOBJ_IMAGE):
            fill, covers = _opaque_fill(raw, obj, kind == raw.FPDF_PAGEOBJ_IMAGE)
            if covers:
                box = _mapped_box(outer, _bounds(raw, obj))
                scene.fills.append(_Fill(_intersect(here, box) or box, fill, scene.count))


# What a text object's characters are, decided once for the object where its box decides it:
# all hidden, all shown, or to be checked one character at a time (partly clipped, partly
# off the page, partly under another shape).
HIDDEN, SHOWN, CHECK = 0, 1, 2
_GRID = 16  # the page cut into _GRID x _GRID cells, to find the shapes near a box quickly


def _states(scene: _Scene, cells: _Cells, box: pg.Box) -> dict[int, int]:
    return {address: _state(text, box, cells) for address, text in scene.texts.items()}


def _state(text: _Text, page: pg.Box, cells: _Cells) -> int:
    if not text.visible:
        return HIDDEN
    state = SHOWN
    for area in (page, text.clip):
        if area is not None:
            overlap = _overlap(text.bbox, area)
            if overlap == 0:
                return HIDDEN
            if overlap == 1:
                state = CHECK
    beneath: Colour | None = WHITE
    for fill in cells.near(text.bbox):
        overlap = _overlap(text.bbox, fill.bbox)
        if overlap == 0:
            continue
        if overlap == 1 or fill.order > text.order:
            return CHECK  # partly over another colour, or under a later shape: character by character
        beneath = fill.colour
    if state == SHOWN and text.colour is not None and beneath is not None and _same(text.colour, beneath):
        return HIDDEN
    return state


class TooTangled(Exception):
    """A page 1 whose visibility would take more than MAX_WORK comparisons to decide."""


class _Cells:
    """The opaque shapes, by the cells of a grid over the page their boxes touch."""

    def __init__(self, page: pg.Box, fills: list[_Fill]) -> None:
        self.left, self.bottom = page[0], page[1]
        self.width = max(page[2] - page[0], 1.0) / _GRID
        self.height = max(page[3] - page[1], 1.0) / _GRID
        self.cells: dict[tuple[int, int], list[_Fill]] = {}
        self.work = 0  # shapes looked at so far: a page whose text and shapes overlap too much is refused
        for fill in fills:
            for cell in self._cells(fill.bbox):
                self.cells.setdefault(cell, []).append(fill)

    def _cells(self, box: pg.Box) -> list[tuple[int, int]]:
        def span(low: float, high: float, origin: float, size: float) -> range:
            first = min(max(int((low - origin) // size), 0), _GRID - 1)
            return range(first, min(max(int((high - origin) // size), 0), _GRID - 1) + 1)

        return [(x, y) for x in span(box[0], box[2], self.left, self.width)
                for y in span(box[1], box[3], self.bottom, self.height)]

    def near(self, box: pg.Box) -> list[_Fill]:
        found: dict[int, _Fill] = {}
        if self.cells:  # else no opaque shape on the page (most pages): no cells to look in
            found = {fill.order: fill for cell in self._cells(box) for fill in self.cells.get(cell, ())}
        self.work += len(found) + 1
        if self.work > pg.MAX_WORK:
            raise TooTangled(f"page 1's text and shapes overlap too much to tell what it shows (over "
                             f"{pg.MAX_WORK:,} comparisons)")
        return [found[order] for order in sorted(found)]


class _Piece(NamedTuple):
    """Visible characters of one text object in a row (or a line break: text "\\n"), with the
    object's size and box (a character's own box where it was checked alone)."""

    text: str
    size: float
    bbox: pg.Box
    ink: int  # how many of its characters are not white space
    obj: int = 0  # the address of the text object that drew it, when it is one character to render-check


def _piece(values: tuple[str, float, pg.Box, int, int]) -> _Piece:
    """A _Piece of all five fields, made as the tuple it is (a thousand a page: NamedTuple's
    own constructor, written in Python, cost more than the rest of making one)."""
    return tuple.__new__(_Piece, values)


# What page 1's reading asked of PDFium's text page, by function, in this process so far: the
# per-character calls are the reading's cost (tests/pdf/test_page_speed.py guards them).
text_calls: dict[str, int] = {"FPDFText_GetText": 0, "FPDFText_GetUnicode": 0, "FPDFText_GetTextObject": 0,
                              "FPDFText_GetCharBox": 0}


def _chars(raw: Any, textpage: Any, scene: _Scene, box: pg.Box) -> tuple[list[_Piece], str | None, int]:
    """The visible characters in the text page's order, as pieces; the stamp band's visible
    text; how many characters were not visible.

    PDFium is asked in bulk: the page's text in one call, each character's text object and the
    boxes of the characters read one by one each in a loop that runs in C (map over ctypes
    functions of our own prototypes); the rest goes a run of one object's characters at a time,
    character by character only where each character is a piece of its own."""
    count = max(raw.FPDFText_CountChars(textpage), 0)
    cells = _Cells(box, scene.fills)
    states = _states(scene, cells, box)
    chars = _unicode(raw, textpage, count)
    calls = _Calls(raw, textpage)
    band_edge = box[0] + pg.STAMP_BAND
    # each object's text, state, whether it lies in arXiv's stamp band, and whether it reaches
    # into the top part (where the title is: its characters are read one by one, each to be
    # checked on the rendered page)
    middle = box[1] + (box[3] - box[1]) * (1 - pg.TOP_PART)
    table = {address: (text, states.get(address, HIDDEN), text.bbox[2] <= band_edge, text.bbox[3] >= middle)
             for address, text in scene.texts.items()}
    runs = []  # (its object's entry in `table`, address, first character, past its last)
    alone_at: list[int] = []  # the characters read one by one, whose boxes PDFium is asked for
    start = 0
    for address, same in groupby(calls.objects(count)):
        end = start + len(list(same))
        entry = table.get(address or 0, _NOTHING)
        if entry[0] is not None and entry[1] != HIDDEN and (entry[1] == CHECK or (entry[3] and not entry[2])):
            alone_at.extend(range(start, end))
        runs.append((entry, address or 0, start, end))
        start = end
    boxes = iter(calls.boxes(alone_at))
    out = _Out()
    for (text, state, in_band, on_top), address, start, end in runs:
        segment = chars[start:end]
        if text is None or state == HIDDEN:
            out.blanks_only(segment, in_band)
        elif state == CHECK or (on_top and not in_band):
            out.alone(segment, text, state, in_band, on_top, address, boxes, box, cells)
        elif in_band:
            out.band.append(segment.translate(_SPACED))
        else:
            out.shown(segment, text)
    out.flush()
    stamp = " ".join(part for part in "".join(out.band).split(" ") if part)
    # the stamp from where it starts: what the band holds before it (a figure's margin text,
    # line numbers) is no part of it
    found = stamp.casefold().find("arxiv")
    return out.pieces, stamp[found:] if found >= 0 else None, out.unseen


_NOTHING: tuple[_Text | None, int, bool, bool] = (None, HIDDEN, False, False)
_BLANKS = "".join(sorted(_BLANK))
_SPACED = str.maketrans(dict.fromkeys(_BLANKS, " "))  # white space as the band and a run keep it
_INKED = str.maketrans(dict.fromkeys(_BLANKS))  # only the characters that are not white space
_NEWLINES = str.maketrans("\r", "\n")


class _Calls:
    """The two text-page functions asked once a character, called through ctypes prototypes of
    our own on plain addresses (pypdfium2's typed pointers would cost a cast a call), in loops
    that run in C, each counted in `text_calls`."""

    def __init__(self, raw: Any, textpage: Any) -> None:
        self.handle = ctypes.cast(textpage, ctypes.c_void_p).value
        self.object_of = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
            ctypes.cast(raw.FPDFText_GetTextObject, ctypes.c_void_p).value or 0)
        self.box_of = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.cast(raw.FPDFText_GetCharBox, ctypes.c_void_p).value or 0)

    def objects(self, count: int) -> list[int | None]:
        """Each character's text object, as an address (None: a character PDFium made up)."""
        text_calls["FPDFText_GetTextObject"] += count
        return list(map(self.object_of, repeat(self.handle, count), range(count)))

    def boxes(self, at: list[int]) -> list[pg.Box]:
        """The boxes (left, bottom, right, top) of the characters `at`, as FPDFText_GetCharBox
        gives them; one it fails for keeps the box before it, as one c_double each would."""
        n = len(at)
        text_calls["FPDFText_GetCharBox"] += n
        values = (ctypes.c_double * (4 * n + 4))()
        base = ctypes.addressof(values) + 32  # slot 0: the box before the first (none: zeros)
        size = 32 * n
        done = list(map(self.box_of, repeat(self.handle, n), at, range(base, base + size, 32),
                        range(base + 16, base + size, 32), range(base + 8, base + size, 32),
                        range(base + 24, base + size, 32)))
        flat = values[:]
        boxes: list[pg.Box] = list(zip(flat[4::4], flat[5::4], flat[6::4], flat[7::4], strict=True))
        if not all(done):
            for i, ok in enumerate(done):
                if not ok:
                    boxes[i] = boxes[i - 1] if i else (0.0, 0.0, 0.0, 0.0)
        return boxes


class _Out:
    """What `_chars` makes of the runs, in their order: the pieces, the stamp band's text, the
    characters not seen; `run` and `ink` are the piece being made, of `owner`'s characters."""

    def __init__(self) -> None:
        self.pieces: list[_Piece] = []
        self.band: list[str] = []
        self.unseen = 0
        self.run: list[str] = []
        self.ink = 0
        self.owner: _Text | None = None  # the object the run's characters belong to

    def flush(self) -> None:
        if self.run and self.owner is not None:
            self.pieces.append(_piece(("".join(self.run), self.owner.size, self.owner.bbox, self.ink, 0)))
        self.run, self.ink = [], 0

    def blank(self, char: str, in_band: bool) -> None:
        """White space: the band's, a line break (the band gets a space too), or the run's."""
        if in_band:
            self.band.append(" ")
        elif char in "\r\n":
            self.flush()
            self.pieces.append(_NEWLINE)
            self.band.append(" ")
        else:
            self.run.append(" ")

    def blanks_only(self, segment: str, in_band: bool) -> None:
        """An object none of whose characters is seen: only its white space is kept."""
        inked = len(segment.translate(_INKED))
        self.unseen += inked
        if inked == len(segment):
            return
        if in_band:
            self.band.append(" " * (len(segment) - inked))
            return
        for char in segment:
            if char in _BLANK:
                self.blank(char, in_band)

    def shown(self, segment: str, text: _Text) -> None:
        """A wholly shown object's characters, in the run of the object that drew them."""
        lines = segment.translate(_NEWLINES).split("\n")
        for i, part in enumerate(lines):
            if i:
                self.blank("\n", False)
            if not part:
                continue
            spaced = part.translate(_SPACED)
            lead = len(spaced) - len(spaced.lstrip(" "))
            if lead == len(spaced):
                self.run.append(spaced)
                continue
            if lead:
                self.run.append(spaced[:lead])
            if text is not self.owner:
                self.flush()
                self.owner = text
            self.run.append(spaced[lead:])
            self.ink += len(part.translate(_INKED))

    def alone(self, segment: str, text: _Text, state: int, in_band: bool, on_top: bool, address: int,
              boxes: Iterator[pg.Box], page: pg.Box, cells: _Cells) -> None:
        """An object whose characters are each a piece (or each checked): its box, its own."""
        obj = address if on_top else 0
        if state != CHECK and not in_band and len(segment.translate(_INKED)) == len(segment):
            # glyphs only, each shown (the common case, the top part's text): each a piece
            if self.run:
                self.flush()
            self.owner = text  # the white space after them belongs to it
            size = text.size
            # (`boxes` holds the rest of the page's too: zip takes as many as the segment has)
            self.pieces.extend([_piece((char, size, cbox, 1, obj)) for char, cbox in zip(segment, boxes, strict=False)])
            return
        for char in segment:
            cbox = next(boxes)
            if char in _BLANK:
                self.blank(char, in_band)
            elif state == CHECK and not _seen(text, cbox, page, cells):
                self.unseen += 1
            elif in_band:
                self.band.append(char)
            else:
                if self.run:  # (an empty run has no ink: nothing to flush)
                    self.flush()
                self.owner = text  # the white space after it belongs to it
                self.pieces.append(_piece((char, text.size, cbox, 1, obj)))


_NOWHERE: pg.Box = (0.0, 0.0, 0.0, 0.0)
_NEWLINE = _Piece("\n", 0.0, _NOWHERE, 0)


def _body_size(pieces: list[_Piece], box: pg.Box) -> float:
    """The page's body size: the size most of the visible characters below its top part have
    (a title page's own title may outnumber its body text: "below" keeps it out), or of all of
    them on a page with nothing below. Not the median: that falls on a short page's abstract
    and footnotes, and takes its body text for display text."""
    middle = box[1] + (box[3] - box[1]) * (1 - pg.TOP_PART)
    for chosen in ([piece for piece in pieces if piece.ink and piece.bbox[3] < middle], pieces):
        exact: dict[float, int] = {}  # summed by exact size first: a page has few sizes, and many pieces
        for piece in chosen:
            if piece.ink:
                exact[piece.size] = exact.get(piece.size, 0) + piece.ink
        counts: dict[float, int] = {}
        for size, count in exact.items():
            counts[round(size, 1)] = counts.get(round(size, 1), 0) + count
        if counts:
            return max(counts, key=lambda size: (counts[size], -size))
    return 0.0


def _unicode(raw: Any, textpage: Any, count: int) -> str:
    """The text page's characters, one str character each: in one call, unless a character
    beyond the BMP (two UTF-16 units) would shift the rest; then one call a character."""
    buf = (ctypes.c_ushort * (count + 1))()
    text_calls["FPDFText_GetText"] += 1
    written = raw.FPDFText_GetText(textpage, 0, count, buf)
    units = bytes(buf)[: max(written - 1, 0) * 2]
    if written - 1 == count:
        try:
            text = units.decode("utf-16-le")  # a lone surrogate fails; a pair makes one character of two
        except UnicodeDecodeError:
            text = ""
        if len(text) == count:
            return text
    text_calls["FPDFText_GetUnicode"] += count
    return "".join(chr(raw.FPDFText_GetUnicode(textpage, i) or 0xFFFD) for i in range(count))


def _seen(text: _Text, cbox: pg.Box, page: pg.Box, cells: _Cells) -> bool:
    if not text.visible:
        return False
    x, y = (cbox[0] + cbox[2]) / 2, (cbox[1] + cbox[3]) / 2
    if not _inside(x, y, page) or (text.clip is not None and not _inside(x, y, text.clip)):
        return False
    beneath: Colour | None = WHITE
    for fill in cells.near((x, y, x, y)):
        if not _inside(x, y, fill.bbox):
            continue
        if fill.order > text.order:
            return False  # painted over
        beneath = fill.colour
    return text.colour is None or beneath is None or not _same(text.colour, beneath)


def _lines(pieces: list[_Piece]) -> list[pg.Line]:
    """Pieces into lines at the text page's line breaks."""
    lines: list[pg.Line] = []
    run: list[_Piece] = []
    for piece in [*pieces, _NEWLINE]:
        if piece is not _NEWLINE:
            run.append(piece)
            continue
        line = _line(run)
        if line is not None:
            lines.append(line)
        run = []
    return lines


def _line(run: list[_Piece]) -> pg.Line | None:
    """One line: the size most of its characters have; a change of size off the baseline within
    it (a footnote mark, raised) is a word break, one on it (small capitals) is not."""
    glyphs = [piece for piece in run if piece.ink]
    if not glyphs:
        return None
    by_size: dict[float, int] = {}  # each size's characters, summed before rounding (a line has few sizes)
    for piece in glyphs:
        by_size[piece.size] = by_size.get(piece.size, 0) + piece.ink
    sizes: dict[float, int] = {}
    for exact, count in by_size.items():
        sizes[round(exact, 1)] = sizes.get(round(exact, 1), 0) + count
    size = max(sizes, key=lambda s: (sizes[s], s))
    if len(by_size) == 1:  # one size: no break to add
        joined = "".join([piece.text for piece in run])
    else:
        parts: list[str] = []
        last: _Piece | None = None
        for piece in run:
            if piece.ink and last is not None and _apart_in_size(piece, last):
                parts.append(" ")
            parts.append(piece.text)
            last = piece if piece.ink else last
        joined = "".join(parts)
    text = " ".join(part for part in joined.split(" ") if part)
    lefts, bottoms, rights, tops = zip(*[piece.bbox for piece in glyphs], strict=True)
    return pg.Line(text, size, (min(lefts), min(bottoms), max(rights), max(tops)))


def _apart_in_size(piece: _Piece, last: _Piece) -> bool:
    """A change of size between two pieces of a line that breaks a word: over a fifth of the
    larger, and off the baseline (their boxes' bottoms over BASELINE_SLACK of it apart): a
    footnote's mark is raised, the small capitals after a capital stand on its baseline."""
    larger = max(piece.size, last.size)
    return (abs(piece.size - last.size) > 0.2 * larger
            and abs(piece.bbox[1] - last.bbox[1]) > BASELINE_SLACK * larger)


# How far apart (a share of the size) the bottoms of two pieces on one baseline may be: a
# capital Q's tail, a comma's; a superscript is raised by about 0.4 of the size.
BASELINE_SLACK = 0.2


def _marked_off(raw: Any, obj: Any, hidden: pg.Hidden) -> bool:
    """In optional content that is off: an /OC mark whose group is named off, or is no plain group."""
    for i in range(max(raw.FPDFPageObj_CountMarks(obj), 0)):
        mark = raw.FPDFPageObj_GetMark(obj, i)
        if _mark_string(raw, mark, None) != "OC":
            continue
        name = _mark_string(raw, mark, b"Name")
        if name is None or name in hidden.names or _mark_string(raw, mark, b"Type") == "OCMD":
            return True
    return False


def _mark_string(raw: Any, mark: Any, key: bytes | None) -> str | None:
    """A mark's name (key None), or one of its string parameters; None when it has none."""
    size = ctypes.c_ulong()
    buf = (ctypes.c_ushort * 256)()
    ok = (raw.FPDFPageObjMark_GetName(mark, buf, ctypes.sizeof(buf), ctypes.byref(size)) if key is None else
          raw.FPDFPageObjMark_GetParamStringValue(mark, key, buf, ctypes.sizeof(buf), ctypes.byref(size)))
    if not ok:
        return None
    return bytes(buf)[: max(size.value - 2, 0)].decode("utf-16-le", "replace")


def _colour(raw: Any, obj: Any, stroke: bool) -> tuple[Colour | None, bool]:
    """(the colour an object shows, None when PDFium has none: a pattern; whether it is transparent)."""
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    get = raw.FPDFPageObj_GetStrokeColor if stroke else raw.FPDFPageObj_GetFillColor
    if not get(obj, r, g, b, a):
        return None, False
    return (r.value, g.value, b.value), a.value < MIN_ALPHA


def _opaque_fill(raw: Any, obj: Any, image: bool) -> tuple[Colour | None, bool]:
    """(an object's fill colour, None for an image or a pattern; whether it covers what lies beneath)."""
    if raw.FPDFPageObj_HasTransparency(obj):
        return None, False
    if image:
        return None, True
    mode, stroke = ctypes.c_int(), ctypes.c_int()
    if not raw.FPDFPath_GetDrawMode(obj, mode, stroke) or mode.value == 0:
        return None, False
    colour, transparent = _colour(raw, obj, stroke=False)
    return colour, not transparent


def _clip_box(raw: Any, obj: Any) -> pg.Box | None:
    """The box around the object's clip path (the intersection of its paths' boxes), on the page."""
    clip = raw.FPDFPageObj_GetClipPath(obj)
    if not clip:
        return None
    result: pg.Box | None = None
    x, y = ctypes.c_float(), ctypes.c_float()
    for p in range(max(raw.FPDFClipPath_CountPaths(clip), 0)):
        xs, ys = [], []
        for s in range(max(raw.FPDFClipPath_CountPathSegments(clip, p), 0)):
            segment = raw.FPDFClipPath_GetPathSegment(clip, p, s)
            if segment and raw.FPDFPathSegment_GetPoint(segment, x, y):
                xs.append(x.value)
                ys.append(y.value)
        if xs:
            box = (min(xs), min(ys), max(xs), max(ys))
            result = _intersect(result, box) or (box[0], box[1], box[0], box[1])
    return result


def _uris(raw: Any, doc: Any, page: Any) -> tuple[str, ...]:
    out: list[str] = []
    for i in range(min(max(raw.FPDFPage_GetAnnotCount(page.raw), 0), 10_000)):
        annot = raw.FPDFPage_GetAnnot(page.raw, i)
        try:
            if raw.FPDFAnnot_GetSubtype(annot) != raw.FPDF_ANNOT_LINK:
                continue
            link = raw.FPDFAnnot_GetLink(annot)
            action = raw.FPDFLink_GetAction(link) if link else None
            if not action or raw.FPDFAction_GetType(action) != raw.PDFACTION_URI:
                continue
            size = raw.FPDFAction_GetURIPath(doc.raw, action, None, 0)
            if 0 < size <= 8192:
                buf = ctypes.create_string_buffer(size)
                raw.FPDFAction_GetURIPath(doc.raw, action, buf, size)
                out.append(buf.value.decode("latin-1"))
        finally:
            raw.FPDFPage_CloseAnnot(annot)
        if len(out) >= pg.MAX_URIS:
            break
    return tuple(out)


def _font_name(raw: Any, obj: Any) -> str:
    """A text object's font's /BaseFont, as PDFium read it."""
    font = raw.FPDFTextObj_GetFont(obj)
    if not font:
        return ""
    buf = ctypes.create_string_buffer(256)
    size = raw.FPDFFont_GetBaseFontName(font, buf, ctypes.sizeof(buf))
    return buf.value.decode("latin-1") if 0 < size <= ctypes.sizeof(buf) else ""


def _address(obj: Any) -> int:
    # The pointer's value read from its own buffer: ctypes.cast would tie the two objects in a
    # reference cycle that only the garbage collector frees (memory grew with files read).
    return ctypes.c_void_p.from_buffer(obj).value or 0


def _bounds(raw: Any, obj: Any) -> pg.Box:
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    if not raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
        return (0.0, 0.0, 0.0, 0.0)
    return (left.value, bottom.value, right.value, top.value)


def _size(raw: Any, obj: Any, outer: Matrix) -> tuple[float, bool]:
    """A text object's size as a reader sees it (its font size scaled by the vertical axis of
    its matrix and the forms' it sits in), and whether it is squeezed to a sliver (its
    horizontal axis under a quarter of that)."""
    size = ctypes.c_float()
    if not raw.FPDFTextObj_GetFontSize(obj, size):
        return 0.0, True
    a, b, c, d, _e, _f = _compose(_matrix(raw, obj), outer)
    vertical, horizontal = math.hypot(c, d), math.hypot(a, b)
    return abs(size.value) * vertical, horizontal < vertical / 4


def _matrix(raw: Any, obj: Any) -> Matrix:
    m = raw.FS_MATRIX()
    if not raw.FPDFPageObj_GetMatrix(obj, m):
        return IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _compose(inner: Matrix, outer: Matrix) -> Matrix:
    """`inner` then `outer`: a form's content matrix, then the matrix of where the form is drawn."""
    a, b, c, d, e, f = inner
    p, q, r, s, t, u = outer
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t, e * q + f * s + u)


def _mapped_box(m: Matrix, box: pg.Box) -> pg.Box:
    """The page box around `box` once `m` maps it (its four corners)."""
    if m == IDENTITY:
        return box
    if m[1] == 0 and m[2] == 0:  # no rotation: two corners say it
        x0, x1, y0, y1 = m[0] * box[0] + m[4], m[0] * box[2] + m[4], m[3] * box[1] + m[5], m[3] * box[3] + m[5]
        return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[0], box[3]), (box[2], box[1]), (box[2], box[3])):
        xs.append(m[0] * x + m[2] * y + m[4])
        ys.append(m[1] * x + m[3] * y + m[5])
    return (min(xs), min(ys), max(xs), max(ys))


def _mapped(m: Matrix, box: pg.Box | None) -> pg.Box | None:
    return None if box is None else _mapped_box(m, box)


def _intersect(a: pg.Box | None, b: pg.Box | None) -> pg.Box | None:
    if a is None:
        return b
    if b is None:
        return a
    box = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return box if box[0] <= box[2] and box[1] <= box[3] else (box[0], box[1], box[0], box[1])


def _overlap(box: pg.Box, area: pg.Box) -> int:
    """0: `box` lies outside `area`; 1: partly inside; 2: wholly inside."""
    if box[2] < area[0] or box[0] > area[2] or box[3] < area[1] or box[1] > area[3]:
        return 0
    if box[0] >= area[0] and box[2] <= area[2] and box[1] >= area[1] and box[3] <= area[3]:
        return 2
    return 1


def _inside(x: float, y: float, box: pg.Box) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _same(a: Colour, b: Colour) -> bool:
    return all(abs(p - q) <= SAME_COLOUR for p, q in zip(a, b, strict=True))
