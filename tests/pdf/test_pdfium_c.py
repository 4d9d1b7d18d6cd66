"""pdf/pdfium_c.py declares the PDFium functions the reader calls as the installed pypdfium2
declares them (the same C types, pointer for pointer, struct layouts included), the reader
uses nothing it does not declare, and a reading worker no longer imports pypdfium2's bindings."""

from __future__ import annotations

import ctypes
import re
import subprocess
import sys

import pypdfium2_raw

from pithtex.pdf import pdfium_c

from ..conftest import ROOT


def _shape(kind: object) -> object:
    """A C type as what it is, whatever class ctypes made for it: a simple type's code, a
    pointer to what it points at, a struct's C name."""
    if kind is None:
        return None
    assert isinstance(kind, type)
    if issubclass(kind, ctypes._Pointer):
        return ("*", _shape(kind._type_))
    if issubclass(kind, ctypes.Structure):  # its layout: test_the_structs_are_laid_out_as_pypdfium2_s
        return ("struct", kind.__name__.removeprefix("struct_").strip("_"))
    if issubclass(kind, ctypes._SimpleCData):
        return kind._type_
    return kind.__name__


def test_every_function_is_declared_as_pypdfium2_declares_it():
    for name, (result, arguments) in pdfium_c.FUNCTIONS.items():
        theirs = getattr(pypdfium2_raw, name)
        assert _shape(result) == _shape(theirs.restype), name
        assert [_shape(a) for a in arguments] == [_shape(a) for a in theirs.argtypes], name


def test_the_structs_are_laid_out_as_pypdfium2_s():
    def layout(kind: type[ctypes.Structure]) -> object:
        return ctypes.sizeof(kind), [(name, getattr(kind, name).offset, _shape(c)) for name, c, *_ in kind._fields_]

    for name in ("FS_MATRIX", "FS_RECTF"):
        assert layout(getattr(pdfium_c, name)) == layout(getattr(pypdfium2_raw, name)), name
    # the config: version 2's fields, where pypdfium2 has them (PDFium reads no further for version 2)
    ours, theirs = pdfium_c.FPDF_LIBRARY_CONFIG, pypdfium2_raw.FPDF_LIBRARY_CONFIG
    assert [(n, getattr(ours, n).offset) for n, *_ in ours._fields_] == [
        (n, getattr(theirs, n).offset) for n, *_ in theirs._fields_[:4]]
    # the form-fill callbacks: as large as PDFium's struct, the version first, all callbacks NULL
    assert ctypes.sizeof(pdfium_c.FPDF_FORMFILLINFO) == ctypes.sizeof(pypdfium2_raw.FPDF_FORMFILLINFO)
    assert pdfium_c.FPDF_FORMFILLINFO.version.offset == 0
    assert not any(pdfium_c.FPDF_FORMFILLINFO(version=2).callbacks)


def test_the_constants_are_pypdfium2_s():
    assert {name: getattr(pypdfium2_raw, name) for name in pdfium_c.CONSTANTS} == pdfium_c.CONSTANTS


def test_the_reader_uses_only_what_is_declared():
    used = set(re.findall(r"\braw\.([A-Z][A-Za-z_0-9]+)", (ROOT / "pithtex/pdf/pdfium.py").read_text("utf-8")))
    declared = set(pdfium_c.FUNCTIONS) | set(pdfium_c.CONSTANTS) | {
        "FS_MATRIX", "FS_RECTF", "FPDF_LIBRARY_CONFIG", "FPDF_FORMFILLINFO"}
    assert len(used) > 60 and used <= declared, used - declared
    library = pdfium_c.load()
    assert library is not None  # found beside pypdfium2_raw, as its wheel installs it
    assert all(callable(getattr(library, name)) for name in pdfium_c.FUNCTIONS)


def test_a_reading_worker_imports_no_pypdfium2_bindings(tmp_path):
    """What a reading worker does, in a process of its own: page 1 read, through the declared
    functions alone (pypdfium2_raw's bindings are a fifth of the worker's start)."""
    from ..arxivkit import arxiv_pdf

    pdf = arxiv_pdf(tmp_path / "p.pdf", title="A Test Paper", body="Some text of the paper.")
    code = ("import sys\nfrom pithtex.workers import bounded\nbounded.warm()\n"
            "from pithtex.pdf.view import read_view\nview = read_view(sys.argv[1])\n"
            "print(view.page.lines[0].text, '|', any(m.startswith('pypdfium2') for m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("|") == ["A Test Paper ", " False\n"]
