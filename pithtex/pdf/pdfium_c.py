"""The PDFium functions the page reader (pdf/pdfium.py) calls, declared for ctypes on the
library pypdfium2 ships, without importing pypdfium2's own bindings: that generated module
declares all of PDFium's 469 functions when it is imported (14 ms, 76 M instructions, a fifth of
`verify one.pdf`'s reading worker), where the reader calls 63 (issue 32, "fast for one
file").

Each declaration is the C signature of PDFium's public headers (fpdfview.h, fpdf_text.h,
fpdf_edit.h, fpdf_annot.h, fpdf_doc.h, fpdf_formfill.h, fpdf_transformpage.h), with the same
pointer types pypdfium2 gives it, so every call passes and returns what it did through
pypdfium2_raw; tests/pdf/test_pdfium_c.py holds each one to the installed pypdfium2's.

`load()` is the library as a namespace (`lib.FPDF_LoadPage(...)`, `lib.FS_RECTF()`,
`lib.FPDF_ANNOT`), or None where the installed pypdfium2 keeps no library beside its bindings
(pdf/pdfium.py then imports pypdfium2_raw, as before).
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, c_char, c_double, c_float, c_int, c_uint, c_ulong, c_ushort, c_void_p

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


def _handle(name: str) -> Any:
    """A pointer to one of PDFium's opaque structs (FPDF_DOCUMENT is `fpdf_document_t__*`)."""
    return POINTER(type(name, (ctypes.Structure,), {}))


DOCUMENT, PAGE, TEXTPAGE, OBJECT = (_handle(f"fpdf_{n}_t__") for n in ("document", "page", "textpage", "pageobject"))
FONT, ANNOT, LINK, ACTION = (_handle(f"fpdf_{n}_t__") for n in ("font", "annotation", "link", "action"))
MARK, CLIP, BITMAP, FORM = (_handle(f"fpdf_{n}_t__") for n in ("pageobjectmark", "clippath", "bitmap", "form_handle"))
SEGMENT = _handle("fpdf_pathsegment_t")


class FS_MATRIX(ctypes.Structure):  # PDFium's names, as the reader spells them
    _fields_ = [(name, c_float) for name in "abcdef"]


class FS_RECTF(ctypes.Structure):
    _fields_ = [("left", c_float), ("top", c_float), ("right", c_float), ("bottom", c_float)]


class FPDF_LIBRARY_CONFIG(ctypes.Structure):
    """Version 2's fields: PDFium reads no further for a version 2 config."""

    _fields_ = [("version", c_int), ("m_pUserFontPaths", POINTER(POINTER(c_char))), ("m_pIsolate", c_void_p),
                ("m_v8EmbedderSlot", c_uint)]


class FPDF_FORMFILLINFO(ctypes.Structure):
    """The form-fill callbacks, all left NULL (a viewer's: the reader only draws the forms);
    as large as PDFium's struct, whose 34 pointer-sized fields follow the version."""

    _fields_ = [("version", c_int), ("callbacks", c_void_p * 34)]


_F, _D, _I, _U = POINTER(c_float), POINTER(c_double), POINTER(c_int), POINTER(c_uint)
_WIDE, _TEXT, _SIZE = POINTER(c_ushort), POINTER(c_char), POINTER(c_ulong)

# name: (return type, argument types), as fpdf_*.h declare them
FUNCTIONS: dict[str, tuple[Any, list[Any]]] = {
    "FPDF_InitLibraryWithConfig": (None, [POINTER(FPDF_LIBRARY_CONFIG)]),
    "FPDF_LoadDocument": (DOCUMENT, [_TEXT, _TEXT]),
    "FPDF_GetLastError": (c_ulong, []),
    "FPDF_GetPageCount": (c_int, [DOCUMENT]),
    "FPDF_GetFormType": (c_int, [DOCUMENT]),
    "FPDF_CloseDocument": (None, [DOCUMENT]),
    "FPDF_LoadPage": (PAGE, [DOCUMENT, c_int]),
    "FPDF_ClosePage": (None, [PAGE]),
    "FPDF_GetPageWidthF": (c_float, [PAGE]),
    "FPDF_GetPageHeightF": (c_float, [PAGE]),
    "FPDF_GetPageBoundingBox": (c_int, [PAGE, POINTER(FS_RECTF)]),
    "FPDF_PageToDevice": (c_int, [PAGE, c_int, c_int, c_int, c_int, c_int, c_double, c_double, _I, _I]),
    "FPDF_RenderPageBitmap": (None, [BITMAP, PAGE, c_int, c_int, c_int, c_int, c_int, c_int]),
    "FPDF_FFLDraw": (None, [FORM, BITMAP, PAGE, c_int, c_int, c_int, c_int, c_int, c_int]),
    "FPDFDOC_InitFormFillEnvironment": (FORM, [DOCUMENT, POINTER(FPDF_FORMFILLINFO)]),
    "FPDFDOC_ExitFormFillEnvironment": (None, [FORM]),
    "FORM_OnAfterLoadPage": (None, [PAGE, FORM]),
    "FORM_OnBeforeClosePage": (None, [PAGE, FORM]),
    "FPDFBitmap_Create": (BITMAP, [c_int, c_int, c_int]),
    "FPDFBitmap_FillRect": (c_int, [BITMAP, c_int, c_int, c_int, c_int, c_ulong]),
    "FPDFBitmap_GetBuffer": (c_void_p, [BITMAP]),
    "FPDFBitmap_GetStride": (c_int, [BITMAP]),
    "FPDFBitmap_Destroy": (None, [BITMAP]),
    "FPDFText_LoadPage": (TEXTPAGE, [PAGE]),
    "FPDFText_ClosePage": (None, [TEXTPAGE]),
    "FPDFText_CountChars": (c_int, [TEXTPAGE]),
    "FPDFText_GetText": (c_int, [TEXTPAGE, c_int, c_int, _WIDE]),
    "FPDFText_GetUnicode": (c_uint, [TEXTPAGE, c_int]),
    "FPDFText_GetCharBox": (c_int, [TEXTPAGE, c_int, _D, _D, _D, _D]),
    "FPDFText_GetTextObject": (OBJECT, [TEXTPAGE, c_int]),
    "FPDFPage_CountObjects": (c_int, [PAGE]),
    "FPDFPage_GetObject": (OBJECT, [PAGE, c_int]),
    "FPDFPage_GetAnnotCount": (c_int, [PAGE]),
    "FPDFPage_GetAnnot": (ANNOT, [PAGE, c_int]),
    "FPDFPage_CloseAnnot": (None, [ANNOT]),
    "FPDFAnnot_GetSubtype": (c_int, [ANNOT]),
    "FPDFAnnot_GetLink": (LINK, [ANNOT]),
    "FPDFLink_GetAction": (ACTION, [LINK]),
    "FPDFAction_GetType": (c_ulong, [ACTION]),
    "FPDFAction_GetURIPath": (c_ulong, [DOCUMENT, ACTION, c_void_p, c_ulong]),
    "FPDFPageObj_GetType": (c_int, [OBJECT]),
    "FPDFPageObj_GetBounds": (c_int, [OBJECT, _F, _F, _F, _F]),
    "FPDFPageObj_GetMatrix": (c_int, [OBJECT, POINTER(FS_MATRIX)]),
    "FPDFPageObj_GetFillColor": (c_int, [OBJECT, _U, _U, _U, _U]),
    "FPDFPageObj_GetStrokeColor": (c_int, [OBJECT, _U, _U, _U, _U]),
    "FPDFPageObj_HasTransparency": (c_int, [OBJECT]),
    "FPDFPageObj_GetClipPath": (CLIP, [OBJECT]),
    "FPDFPageObj_CountMarks": (c_int, [OBJECT]),
    "FPDFPageObj_GetMark": (MARK, [OBJECT, c_ulong]),
    "FPDFPageObjMark_GetName": (c_int, [MARK, _WIDE, c_ulong, _SIZE]),
    "FPDFPageObjMark_GetParamStringValue": (c_int, [MARK, _TEXT, _WIDE, c_ulong, _SIZE]),
    "FPDFClipPath_CountPaths": (c_int, [CLIP]),
    "FPDFClipPath_CountPathSegments": (c_int, [CLIP, c_int]),
    "FPDFClipPath_GetPathSegment": (SEGMENT, [CLIP, c_int, c_int]),
    "FPDFPathSegment_GetPoint": (c_int, [SEGMENT, _F, _F]),
    "FPDFPath_GetDrawMode": (c_int, [OBJECT, _I, _I]),
    "FPDFFormObj_CountObjects": (c_int, [OBJECT]),
    "FPDFFormObj_GetObject": (OBJECT, [OBJECT, c_ulong]),
    "FPDFTextObj_GetFont": (FONT, [OBJECT]),
    "FPDFTextObj_GetFontSize": (c_int, [OBJECT, _F]),
    "FPDFTextObj_GetTextRenderMode": (c_int, [OBJECT]),
    "FPDFTextObj_SetTextRenderMode": (c_int, [OBJECT, c_int]),
    "FPDFFont_GetBaseFontName": (c_ulong, [FONT, _TEXT, c_ulong]),
}

# the headers' constants the reader compares with
CONSTANTS = {"FORMTYPE_NONE": 0, "FPDF_ANNOT": 0x01, "FPDF_GRAYSCALE": 0x08, "FPDF_ANNOT_LINK": 2,
             "FPDF_PAGEOBJ_TEXT": 1, "FPDF_PAGEOBJ_PATH": 2, "FPDF_PAGEOBJ_IMAGE": 3, "FPDF_PAGEOBJ_FORM": 5,
             "PDFACTION_URI": 3}


class Library:
    """PDFium's functions, structs and constants the reader uses, as attributes."""

    FS_MATRIX = FS_MATRIX
    FS_RECTF = FS_RECTF
    FPDF_LIBRARY_CONFIG = FPDF_LIBRARY_CONFIG
    FPDF_FORMFILLINFO = FPDF_FORMFILLINFO

    def __init__(self, cdll: ctypes.CDLL) -> None:
        for name, (result, arguments) in FUNCTIONS.items():
            function = getattr(cdll, name)
            function.restype, function.argtypes = result, arguments
            setattr(self, name, function)
        for name, value in CONSTANTS.items():
            setattr(self, name, value)

    def __getattr__(self, name: str) -> Any:  # asked only for a name __init__ did not set
        raise AttributeError(f"pdf/pdfium_c.py declares no PDFium {name}: add its header's signature there")


def load() -> Library | None:
    """The PDFium library pypdfium2 installed, declared; None where its file is not found where
    pypdfium2_raw keeps it on this system (the reader then uses pypdfium2_raw itself)."""
    import importlib.util
    import sys
    from pathlib import Path

    spec = importlib.util.find_spec("pypdfium2_raw")  # its folder, without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    name = ("pdfium.dll" if sys.platform.startswith(("win32", "cygwin", "msys")) else
            "libpdfium.dylib" if sys.platform.startswith(("darwin", "ios")) else "libpdfium.so")
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.is_file():
        return None
    return Library(ctypes.CDLL(str(path)))
