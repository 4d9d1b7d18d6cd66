"""XMP packets as other tools write them: namespace declarations kept exactly (the default
namespace too), nothing written that does not parse, and a packet that is not XML refused
unless --force, which keeps what can be read of it.

Each packet is stamped into a real PDF and read back with pikepdf (lxml), pypdf (minidom)
and expat; the declarations are compared as expat reports them, prefix for prefix.
"""

from __future__ import annotations

import json
import xml.dom.minidom
import xml.parsers.expat
from pathlib import Path

import pikepdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from pithtex.brand import XMP_NAMESPACE
from pithtex.pdf import xmp
from pithtex.pdf.stamp import Options, stamp_file

from ..conftest import BODY, URL, assert_clean_error, pithtex_cli
from ..pdfkit import make_pdf

VALUES = {"number": BODY, "url": URL, "long": f"pith:2021:{BODY}"}
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
PDF_NS = "http://ns.adobe.com/pdf/1.3/"
DC = "http://purl.org/dc/elements/1.1/"
XMPMM = "http://ns.adobe.com/xap/1.0/mm/"
DOC_ID = "uuid:5f0c4b1e-1d2a-4c7e-9a77-0d7c1b2e3f40"


def packet(body: str) -> bytes:
    return (f'<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/">'
            f'<rdf:RDF xmlns:rdf="{RDF}">\n{body}\n</rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>').encode()


# The default namespace beside a prefix bound to the same URI (as some PDF libraries write
# pdf:Producer), and a default namespace of its own on another Description.
DEFAULT_NS = packet(
    f'<rdf:Description rdf:about="" xmlns="{PDF_NS}" xmlns:pdf="{PDF_NS}" pdf:Producer="Writer 1.0">'
    "<Keywords>graphs, cycles</Keywords><pdf:Trapped>False</pdf:Trapped></rdf:Description>\n"
    f'<rdf:Description rdf:about="" xmlns="{DC}"><format>application/pdf</format>'
    '<title><rdf:Alt><rdf:li xml:lang="x-default">On &amp; off</rdf:li></rdf:Alt></title></rdf:Description>')
# Several prefixes, one of them (a:) bound to two URIs in two Descriptions, one declared and
# never used, and a Description with attributes and elements both.
SEVERAL = packet(
    f'<rdf:Description rdf:about="" xmlns:a="urn:example:one" xmlns:unused="urn:example:unused" '
    f'xmlns:xmpMM="{XMPMM}" a:flag="1" xmpMM:DocumentID="{DOC_ID}"><a:note>first</a:note></rdf:Description>\n'
    f'<rdf:Description rdf:about="" xmlns:a="urn:example:two" xmlns:dc="{DC}" a:flag="2">'
    "<dc:creator><rdf:Seq><rdf:li>Ada</rdf:li><rdf:li>Émile</rdf:li></rdf:Seq></dc:creator>"
    '<a:nested rdf:parseType="Resource"><a:deep xmlns="urn:example:deep-default">x</a:deep></a:nested>'
    "</rdf:Description>")
# A control character in the title, which XML forbids (exiftool refuses such a file).
FORBIDDEN = packet(
    f'<rdf:Description rdf:about="" xmlns:dc="{DC}" xmlns:xmpMM="{XMPMM}" xmpMM:DocumentID="{DOC_ID}">'
    '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">A title\x01 with a control character</rdf:li></rdf:Alt>'
    "</dc:title><dc:creator><rdf:Seq><rdf:li>Ada Lovelace</rdf:li></rdf:Seq></dc:creator></rdf:Description>")


def start_tags(data: bytes) -> list[tuple[str, dict[str, str]]]:
    """Every start tag as written: its qualified name and attributes, xmlns declarations included."""
    tags: list[tuple[str, dict[str, str]]] = []
    parser = xml.parsers.expat.ParserCreate()  # no namespace processing: names as written
    parser.StartElementHandler = lambda name, attrs: tags.append((name, attrs))
    parser.Parse(xmp.xml_body(data), True)
    return tags


def declarations(data: bytes) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.StartNamespaceDeclHandler = lambda prefix, uri: found.append((prefix or "", uri))
    parser.Parse(xmp.xml_body(data), True)
    return found


def pdf_with(path: Path, data: bytes) -> Path:
    """A one-page PDF whose Metadata stream holds exactly `data` (pikepdf's save would
    otherwise rewrite the packet, repairing it)."""
    with pikepdf.open(make_pdf(path)) as pdf:
        pdf.Root.Metadata = pdf.make_stream(data, Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML)
        pdf.save(path.with_suffix(".raw.pdf"), fix_metadata_version=False, deterministic_id=True)
    path.with_suffix(".raw.pdf").replace(path)
    with pikepdf.open(path) as pdf:
        assert pdf.Root.Metadata.read_bytes() == data
    return path


def stamp(tmp_path: Path, data: bytes, *extra: str):
    src = pdf_with(tmp_path / "in.pdf", data)
    out = tmp_path / "out.pdf"
    return src, out, pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(out), *extra)


@pytest.mark.parametrize("data", [DEFAULT_NS, SEVERAL], ids=["default-namespace", "several-prefixes"])
def test_declarations_and_names_are_kept_exactly(data: bytes):
    merged = xmp.merge(data, VALUES)
    before, after = start_tags(data), start_tags(merged)
    # The packet's own elements come first, each written as it was, declarations and all;
    # then the pith Description, which declares the one namespace it adds.
    assert after[:len(before)] == before
    assert declarations(merged) == [*declarations(data), ("pith", XMP_NAMESPACE)]
    assert xmp.merge(merged, VALUES) == merged


def test_default_namespace_stamped_reads_back_everywhere(tmp_path: Path):
    src, out, proc = stamp(tmp_path, DEFAULT_NS)
    assert proc.returncode == 0, proc.stderr
    with pikepdf.open(out) as pdf:
        raw = pdf.Root.Metadata.read_bytes()
        meta = pdf.open_metadata()
        assert meta["pdf:Producer"] == "Writer 1.0" and meta["pdf:Keywords"] == "graphs, cycles"
        assert meta["dc:title"] == "On & off" and meta[f"{{{XMP_NAMESPACE}}}number"] == BODY
    assert b"xmlns:=" not in raw and b" :Producer" not in raw
    xml.dom.minidom.parseString(xmp.xml_body(raw))  # a third parser agrees it is XML
    with out.open("rb") as fh:
        reader = PdfReader(fh)
        assert reader.xmp_metadata is not None and reader.xmp_metadata.dc_format == "application/pdf"
        assert reader.xmp_metadata.dc_title == {"x-default": "On & off"}
    assert out.read_bytes().startswith(src.read_bytes())


def test_several_prefixes_stamped_read_back(tmp_path: Path):
    _src, out, proc = stamp(tmp_path, SEVERAL)
    assert proc.returncode == 0, proc.stderr
    with pikepdf.open(out) as pdf:
        raw = pdf.Root.Metadata.read_bytes()
        meta = pdf.open_metadata()
        assert meta["xmpMM:DocumentID"] == DOC_ID and meta["dc:creator"] == ["Ada", "Émile"]
        assert meta["{urn:example:one}note"] == "first"
    assert declarations(raw) == [*declarations(SEVERAL), ("pith", XMP_NAMESPACE)]
    with out.open("rb") as fh:
        assert PdfReader(fh).xmp_metadata.dc_creator == ["Ada", "Émile"]


def test_a_packet_that_is_not_xml_is_refused_in_one_line(tmp_path: Path):
    src, out, proc = stamp(tmp_path, FORBIDDEN)
    err = assert_clean_error(proc, 1)
    assert str(src) in err and "XMP" in err and "not well-formed" in err and "--force" in err
    assert not out.exists()


def test_force_keeps_what_can_be_read_of_it(tmp_path: Path):
    _src, out, proc = stamp(tmp_path, FORBIDDEN, "--force")
    assert proc.returncode == 0, proc.stderr
    assert "kept what could be read of it" in proc.stderr
    with pikepdf.open(out) as pdf:
        meta = pdf.open_metadata()
        assert meta["dc:title"] == "A title with a control character"
        assert meta["dc:creator"] == ["Ada Lovelace"] and meta["xmpMM:DocumentID"] == DOC_ID
        assert meta[f"{{{XMP_NAMESPACE}}}number"] == BODY
    inspected = json.loads(pithtex_cli("inspect", str(out), "--json").stdout)
    assert inspected["agree"] and inspected["xmp"] == {"number": BODY, "url": URL}


@pytest.mark.parametrize(("broken", "kept", "lost"), [
    # a mismatched end tag: the properties completed before it stay, the one it breaks goes
    (packet(f'<rdf:Description rdf:about="" xmlns:dc="{DC}" xmlns:xmpMM="{XMPMM}">'
            f"<xmpMM:DocumentID>{DOC_ID}</xmpMM:DocumentID><dc:format>application/pdf</dc:forma>"
            "</rdf:Description>"), [DOC_ID], ["application/pdf"]),
    # Latin-1 bytes in a packet that says nothing of its encoding, a bare & and &nbsp;
    (packet(f'<rdf:Description rdf:about="" xmlns:dc="{DC}"><dc:creator><rdf:Seq><rdf:li>EMILE</rdf:li>'
            "</rdf:Seq></dc:creator><dc:format>a & b&nbsp;c</dc:format></rdf:Description>")
     .replace(b"EMILE", "Émile".encode("latin-1")), ["Émile", "a & b&nbsp;c"], []),
    # prefixes of the XMP specification used and never declared (as some PDF writers do)
    (packet('<rdf:Description rdf:about=""><xmp:CreatorTool>Printer</xmp:CreatorTool>'
            '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Kept</rdf:li></rdf:Alt></dc:title>'
            f'</rdf:Description><rdf:Description rdf:about="" xmlns:xmpMM="{XMPMM}" xmpMM:DocumentID="{DOC_ID}"/>'),
     ["Printer", "Kept", DOC_ID], []),
    # a character reference to a forbidden character
    (packet(f'<rdf:Description rdf:about="" xmlns:dc="{DC}"><dc:format>bell&#7;</dc:format>'
            "</rdf:Description>"), ["bell"], []),
])
def test_salvage_keeps_every_complete_property(broken: bytes, kept: list[str], lost: list[str]):
    with pytest.raises(xmp.XmpError):
        xmp.merge(broken, VALUES)
    merged = xmp.merge(None, VALUES, salvaged=xmp.salvage(broken))
    text = xml.dom.minidom.parseString(xmp.xml_body(merged)).documentElement.toxml()
    assert all(value.replace("&", "&amp;") in text for value in kept), text
    assert not any(value in text for value in lost), text
    assert xmp.read_pith(merged)["number"] == BODY


def test_force_on_a_packet_nothing_can_be_read_of_writes_a_new_one(tmp_path: Path):
    _src, out, proc = stamp(tmp_path, b"\x01\x02 not xml at all", "--force")
    assert proc.returncode == 0 and "wrote a new packet (--force)" in proc.stderr, proc.stderr
    with pikepdf.open(out) as pdf:
        assert pdf.open_metadata()[f"{{{XMP_NAMESPACE}}}number"] == BODY


def test_output_that_would_not_parse_is_never_written(tmp_path: Path, monkeypatch):
    """The serialiser's output is parsed before it is used: a fault there (here an escaping
    that forgets &) stops the stamp as the bug it is, with nothing written."""
    src = pdf_with(tmp_path / "in.pdf", DEFAULT_NS)
    monkeypatch.setattr(xmp, "escape", lambda text, attribute=False: text)
    out = tmp_path / "out.pdf"
    with pytest.raises(xmp.XmpWriteError, match="does not parse"):
        stamp_file(src, out, Options(__import__("pithtex.number").number.PithNumber.parse(BODY)))
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))


# Random layouts of declarations: default namespace or prefix, rebound or not, on the root,
# the rdf:RDF or the Description, used by elements or attributes.
URIS = ["urn:example:u0", "urn:example:u1", PDF_NS]
PREFIXES = ["", "p", "q", "pdf"]
binding = st.tuples(st.sampled_from(PREFIXES), st.sampled_from(URIS))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(binding, max_size=3, unique_by=lambda b: b[0]),
                          st.lists(st.tuples(st.sampled_from(PREFIXES), st.booleans()), min_size=1, max_size=3)),
                min_size=1, max_size=3))
def test_any_layout_of_declarations_survives(descs):
    parts = []
    for i, (bound, uses) in enumerate(descs):
        scope = dict(bound)
        decls = "".join(f' xmlns{":" + p if p else ""}="{u}"' for p, u in bound)
        attrs, elements = "", ""
        for j, (prefix, as_attribute) in enumerate(uses):
            if prefix not in scope:
                continue
            if as_attribute and prefix:
                attrs += f' {prefix}:a{j}="v{i}{j}"'
            else:
                elements += f"<{prefix + ':' if prefix else ''}e{j}>t{i}{j}</{prefix + ':' if prefix else ''}e{j}>"
        # rdf:li stays in rdf's namespace inside any default namespace
        parts.append(f'<rdf:Description rdf:about=""{decls}{attrs}>{elements}</rdf:Description>')
    data = packet("\n".join(parts))
    merged = xmp.merge(data, VALUES)
    before, after = start_tags(data), start_tags(merged)
    assert after[:len(before)] == before
    assert xmp.read_pith(merged)["number"] == BODY
    pikepdf_meta_ok = xml.dom.minidom.parseString(xmp.xml_body(merged))
    assert pikepdf_meta_ok.documentElement.tagName == "x:xmpmeta"


def test_a_packet_nested_beyond_reason_is_refused_not_a_crash(tmp_path: Path):
    """5,000 nested rdf:Bag: the serialiser recurses once a level, so such a packet is not
    read (was a RecursionError, a bug exit); with --force the Description around it stays."""
    deep = packet(f'<rdf:Description rdf:about="" xmlns:dc="{DC}" dc:format="application/pdf"><dc:subject>'
                  + "<rdf:Bag>" * 5000 + "</rdf:Bag>" * 5000 + "</dc:subject></rdf:Description>")
    _src, out, proc = stamp(tmp_path, deep)
    err = assert_clean_error(proc, 1)
    assert "nested more than" in err and not out.exists()
    _src, out, proc = stamp(tmp_path, deep, "--force")
    assert proc.returncode == 0, proc.stderr
    with pikepdf.open(out) as pdf:
        meta = pdf.open_metadata()
        assert meta["dc:format"] == "application/pdf" and meta[f"{{{XMP_NAMESPACE}}}number"] == BODY
