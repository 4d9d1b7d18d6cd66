"""Titles whose glyphs the text layer cannot vouch for (issue 32, "glyphs are what they look
like"): one-page arXiv-like papers (tests/viewkit.py's page) whose title is set in an embedded
composite font or a Type 1 font with an encoding of its own, forged (the glyphs draw paper B's
title, the text layer reads A's) or genuine; and PATHs that count Tesseract's runs, or lack it.
Fonts come from Debian's packages (DejaVu Sans, TeX Live's cmr17.pfb); nothing is committed.
"""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

import pikepdf

from . import viewkit

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
CMR17 = Path("/usr/share/texlive/texmf-dist/fonts/type1/public/amsfonts/cm/cmr17.pfb")
SIZE = 20


def _padded(a: str, b: str) -> tuple[str, str]:
    width = max(len(a), len(b))
    return a.ljust(width), b.ljust(width)


def _to_unicode(texts: list[str], code_bytes: int) -> bytes:
    """A ToUnicode CMap: code i+1 (of `code_bytes` bytes) reads texts[i]."""
    hexed = "%0" + str(2 * code_bytes) + "X"
    entries = b"".join(b"<%s> <%s>\n" % ((hexed % (i + 1)).encode(), text.encode("utf-16-be").hex().upper().encode())
                       for i, text in enumerate(texts))
    low, high = (hexed % 0).encode(), (hexed % (256 ** code_bytes - 1)).encode()
    return (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Forged def\n"
            b"1 begincodespacerange <%s> <%s> endcodespacerange\n%d beginbfchar\n" % (low, high, len(texts))
            + entries + b"endbfchar endcmap CMapName currentdict /CMap defineresource pop end end\n")


# -- a composite (Type 0) font: what XeLaTeX, LuaLaTeX and Word write ----------------------------
def _cmap_format4(font: bytes) -> dict[int, int]:
    """A TrueType font's Unicode (3, 1) format-4 cmap: character code to glyph id."""
    tables = {font[12 + 16 * i: 16 + 16 * i]: struct.unpack(">II", font[20 + 16 * i: 28 + 16 * i])
              for i in range(struct.unpack(">H", font[4:6])[0])}
    base = tables[b"cmap"][0]
    for i in range(struct.unpack(">H", font[base + 2: base + 4])[0]):
        platform, encoding, offset = struct.unpack(">HHI", font[base + 4 + 8 * i: base + 12 + 8 * i])
        if (platform, encoding) == (3, 1):
            sub = base + offset
            break
    segs = struct.unpack(">H", font[sub + 6: sub + 8])[0] // 2
    arrays = [struct.unpack(f">{segs}H", font[start: start + 2 * segs])
              for start in (sub + 14, sub + 16 + 2 * segs, sub + 16 + 4 * segs, sub + 16 + 6 * segs)]
    ends, starts, deltas, ranges = arrays
    out = {}
    for s in range(segs):
        for code in range(starts[s], min(ends[s], 0xFFFE) + 1):
            if ranges[s] == 0:
                out[code] = (code + deltas[s]) & 0xFFFF
            else:
                where = sub + 16 + 6 * segs + 2 * s + ranges[s] + 2 * (code - starts[s])
                glyph = struct.unpack(">H", font[where: where + 2])[0]
                out[code] = (glyph + deltas[s]) & 0xFFFF if glyph else 0
    return out


def type0_title(path: Path, *, drawn: str, read: str, below: bool = False) -> Path:
    """viewkit's page with its title in DejaVu Sans embedded as a composite font: code i+1 draws
    drawn[i]'s glyph (its own CIDToGIDMap) while the ToUnicode map reads read[i]. `below`: the
    title in Helvetica instead, that line at 10 pt in the body."""
    drawn, read = _padded(drawn, read)
    program = DEJAVU.read_bytes()
    glyph_of = _cmap_format4(program)
    gids = b"\0\0" + b"".join(struct.pack(">H", glyph_of[ord(c)]) for c in drawn)

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        descriptor = pikepdf.Dictionary(Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name("/DejaVuSans"),
                                        Flags=32, FontBBox=[-1021, -463, 1793, 1232], ItalicAngle=0, Ascent=928,
                                        Descent=-236, CapHeight=729, StemV=80,
                                        FontFile2=pdf.make_stream(program))
        cid = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.CIDFontType2,
                                 BaseFont=pikepdf.Name("/DejaVuSans"), FontDescriptor=descriptor, DW=600,
                                 CIDSystemInfo=pikepdf.Dictionary(Registry=pikepdf.String("Adobe"),
                                                                  Ordering=pikepdf.String("Identity"), Supplement=0),
                                 CIDToGIDMap=pdf.make_stream(gids))
        page.Resources.Font.F9 = pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type0, BaseFont=pikepdf.Name("/DejaVuSans-Identity-H"),
            Encoding=pikepdf.Name("/Identity-H"), DescendantFonts=[cid],
            ToUnicode=pdf.make_stream(_to_unicode(list(read), 2)))
    codes = b"".join(struct.pack(">H", i + 1) for i in range(len(drawn)))
    size, y = (10, 150) if below else (SIZE, viewkit.TITLE_Y)
    title = viewkit.line(viewkit.TITLE_A, SIZE, viewkit.TITLE_Y) if below else b""
    return viewkit.paper(path, title + b"BT /F9 %d Tf 72 %d Td <%s> Tj ET\n" % (size, y, codes.hex().encode()),
                         edit=edit)


# -- a Type 1 font whose program says which glyph each code draws ----------------------------------
def _pfb(data: bytes) -> list[bytes]:
    """A PFB's segments: cleartext, encrypted, trailer."""
    parts, at = [], 0
    while at < len(data) and data[at] == 0x80 and data[at + 1] in (1, 2):
        length = struct.unpack("<I", data[at + 2: at + 6])[0]
        parts.append(data[at + 6: at + 6 + length])
        at += 6 + length
    return parts


_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _glyph_name(c: str) -> str:
    """A letter's or digit's glyph name in Computer Modern (letters only in these titles)."""
    return "space" if c == " " else _DIGITS[int(c)] if c.isdigit() else c


_EEXEC = (55665, 52845, 22719)  # eexec's key and constants (Adobe Type 1 Font Format, 7.2)


def _eexec(data: bytes, decrypt: bool) -> bytes:
    r, c1, c2 = _EEXEC
    out = bytearray()
    for byte in data:
        other = byte ^ (r >> 8)
        cipher = byte if decrypt else other
        out.append(other)
        r = ((cipher + r) * c1 + c2) & 0xFFFF
    return bytes(out)


def _encoding(text: str) -> bytes:
    return b"/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n" + b"".join(
        b"dup %d /%s put\n" % (i + 1, _glyph_name(c).encode()) for i, c in enumerate(text)) + b"readonly def\n"


def type1_title(path: Path, *, drawn: str, read: str, hidden: bool = False) -> Path:
    """viewkit's page with its title in Computer Modern (cmr17) embedded as a Type 1 font with no
    /Encoding: its program's own encoding makes code i+1 draw drawn[i]'s glyph, while the
    ToUnicode map reads read[i]. `hidden`: the encoding that draws is in the program's
    encrypted part (before /Private), and its cleartext declares one that reads `read`."""
    drawn, read = _padded(drawn, read)
    clear, secret, trailer = _pfb(CMR17.read_bytes())[:3]
    start = clear.index(b"/Encoding")
    end = clear.index(b"readonly def", start) + len(b"readonly def\n")
    clear = clear[:start] + _encoding(read if hidden else drawn) + clear[end:]
    if hidden:
        plain = _eexec(secret, decrypt=True)
        at = plain.index(b"/Private") - len(b"dup\n")
        secret = _eexec(plain[:at] + _encoding(drawn) + plain[at:], decrypt=False)
    widths = [500 if c != " " else 333 for c in drawn]

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        program = pdf.make_stream(clear + secret + trailer, Length1=len(clear), Length2=len(secret),
                                  Length3=len(trailer))
        descriptor = pikepdf.Dictionary(Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name("/CMR17"), Flags=4,
                                        FontBBox=[-33, -250, 945, 749], ItalicAngle=0, Ascent=694, Descent=-194,
                                        CapHeight=683, StemV=53, FontFile=program)
        page.Resources.Font.F8 = pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name("/ABCDEF+CMR17"),
            FirstChar=1, LastChar=len(drawn), Widths=widths, FontDescriptor=descriptor,
            ToUnicode=pdf.make_stream(_to_unicode(list(read), 1)))
    codes = bytes(range(1, len(drawn) + 1))
    return viewkit.paper(path, b"BT /F8 %d Tf 72 %d Td <%s> Tj ET\n" % (SIZE, viewkit.TITLE_Y, codes.hex().encode()),
                         edit=edit)


# -- Tesseract counted, or absent -----------------------------------------------------------------
def counting_path(folder: Path) -> tuple[str, Path]:
    """A PATH whose `tesseract` notes each run in the returned file, then runs the real one."""
    real = shutil.which("tesseract")
    assert real is not None, "tesseract-ocr is one of the Makefile's APT_PACKAGES"
    folder.mkdir(parents=True, exist_ok=True)
    runs = folder / "runs"
    runs.write_text("")
    wrapper = folder / "tesseract"
    wrapper.write_text(f"#!/bin/sh\necho run >> '{runs}'\nexec '{real}' \"$@\"\n")
    wrapper.chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}", runs


def runs(counted: Path) -> int:
    return len(counted.read_text().split())


def path_without_tesseract(folder: Path) -> str:
    """A PATH holding only what pithtex runs besides Tesseract (prlimit)."""
    folder.mkdir(parents=True, exist_ok=True)
    for program in ("prlimit",):
        found = shutil.which(program)
        assert found is not None
        (folder / program).symlink_to(found)
    return str(folder)
