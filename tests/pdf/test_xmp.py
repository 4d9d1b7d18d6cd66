"""XMP: merging keeps every property and prefix, PDF/A gains the extension schema, XML is defused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pikepdf
import pytest
from defusedxml.ElementTree import fromstring

from pithtex.brand import XMP_NAMESPACE
from pithtex.pdf import xmp
from pithtex.pdf.stamp import Options, stamp_file

from ..conftest import BODY, URL, fixture_pdf
from ..pdfkit import pdfa_file

VALUES = {"number": BODY, "url": URL, "long": f"pith:2021:{BODY}"}
OTHER = "AAAAAAAAAAAAAAAAAAAAAAAAAA"
PACKET = f"""<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"
      xmlns:my="urn:example:mine" my:flag="a &amp; b &lt;c&gt; &quot;d&quot;">
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Tom &amp; Jerry's &lt;paper&gt;</rdf:li></rdf:Alt></dc:title>
   <dc:creator><rdf:Seq><rdf:li>Ada</rdf:li><rdf:li>Émile</rdf:li></rdf:Seq></dc:creator>
   <my:note>kept</my:note>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:pith="{XMP_NAMESPACE}" pith:number="{OTHER}"/>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>""".encode()
PDFA = b"""<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="2" pdfaid:conformance="B"/>
</rdf:RDF></x:xmpmeta>"""


def leaves(packet: bytes) -> set[tuple[str, str]]:
    """Every attribute and every text leaf as (qualified name, value)."""
    root = fromstring(xmp.xml_body(packet))
    found = set()
    for el in root.iter():
        found.update((k, v) for k, v in el.attrib.items())
        if not len(el) and (el.text or "").strip():
            found.add((el.tag, el.text.strip()))
    return found


def test_new_packet_is_wrapped_and_readable():
    packet = xmp.merge(None, VALUES)
    text = packet.decode("utf-8")
    assert text.startswith('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>')
    assert text.endswith('<?xpacket end="w"?>') and " " * 99 in text
    read = xmp.read_pith(packet)
    assert {k: read[k] for k in VALUES} == VALUES
    assert 'xmlns:pith="https://pith.science/ns/1.0/"' in text


@pytest.mark.parametrize("values", [VALUES, {"number": BODY, "url": "https://x.test/?a=1&b=<2>", "long": ""},
                                    {"number": BODY}, {}])
def test_new_packet_is_the_text_the_tree_writer_makes(values: dict[str, str]):
    """A file without XMP gets its packet without the XML library: the very text that
    merging into an empty packet through ElementTree gives."""
    empty = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>'
    assert xmp.merge(None, values) == xmp.merge(empty, values)
    assert xmp.read_pith(xmp.merge(None, values)) == {**{k: v for k, v in values.items() if v},
                                                       "schema_declared": False}


def test_merge_keeps_every_other_property_and_prefix():
    merged = xmp.merge(PACKET, VALUES)
    before = {leaf for leaf in leaves(PACKET) if XMP_NAMESPACE not in leaf[0]}
    after = leaves(merged)
    assert before <= after
    text = merged.decode("utf-8")
    assert "my:flag=" in text and "<dc:title>" in text and "&amp;" in text
    assert text.count(OTHER) == 0 and text.count("<pith:number>") == 1
    assert xmp.read_pith(merged)["number"] == BODY


def test_merge_is_deterministic_and_stable():
    once = xmp.merge(PACKET, VALUES)
    assert once == xmp.merge(PACKET, VALUES)
    assert xmp.merge(once, VALUES) == once


def test_pdfa_gains_the_extension_schema_once():
    merged = xmp.merge(PDFA, VALUES)
    read = xmp.read_pith(merged)
    assert read["pdfa"] == "2B" and read["schema_declared"]
    text = merged.decode()
    for name in ("number", "url", "long"):
        assert f"<pdfaProperty:name>{name}</pdfaProperty:name>" in text
    assert 'pdfaid:part="2"' in text
    assert xmp.merge(merged, VALUES).decode().count("<pdfaSchema:namespaceURI>") == 1


def test_escaping_of_values():
    merged = xmp.merge(None, {"number": BODY, "url": 'https://x/?a=1&b="<2>"'})
    assert xmp.read_pith(merged)["url"] == 'https://x/?a=1&b="<2>"'
    assert b"&amp;b=" in merged


@pytest.mark.parametrize("evil", [
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    b"<x:xmpmeta xmlns:x='adobe:ns:meta/'>&b;</x:xmpmeta>",
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    b"<x:xmpmeta xmlns:x='adobe:ns:meta/'>&e;</x:xmpmeta>",
    b"<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF>",
])
def test_hostile_or_broken_xml_is_refused(evil: bytes):
    with pytest.raises(xmp.XmpError):
        xmp.read_pith(evil)


def test_pdfa_corpus_file_keeps_pdfaid_and_declares_pith(tmp_path: Path):
    src = fixture_pdf("021")
    inp = tmp_path / "in.pdf"
    shutil.copyfile(src, inp)
    out = tmp_path / "out.pdf"
    stamp_file(inp, out, Options(__import__("pithtex.number").number.PithNumber.parse(BODY)))
    with pikepdf.open(out) as pdf:
        meta = pdf.open_metadata()
        assert meta["pdfaid:part"] == "1" and meta["pdfaid:conformance"] == "B"
        assert meta[f"{{{XMP_NAMESPACE}}}number"] == BODY
        raw = pdf.Root.Metadata.read_bytes().decode()
    assert f"<pdfaSchema:namespaceURI>{XMP_NAMESPACE}</pdfaSchema:namespaceURI>" in raw
    data = out.read_bytes()
    assert b"/Type /XRef" not in data[len(src.read_bytes()):], "PDF/A-1 keeps a classic xref table"


def test_info_strings_survive_with_escapes(tmp_path: Path):
    title = "Tom & Jerry (a) \\ b) — ünïcödé 中文"
    with pikepdf.new() as pdf:
        pdf.add_blank_page()
        pdf.docinfo["/Title"] = title
        pdf.save(tmp_path / "in.pdf")
    out = tmp_path / "out.pdf"
    stamp_file(tmp_path / "in.pdf", out, Options(__import__("pithtex.number").number.PithNumber.parse(BODY)))
    from pypdf import PdfReader

    with out.open("rb") as fh:
        info = PdfReader(fh).metadata
        assert info["/Title"] == title and info["/PithNumber"] == BODY


def test_attach_record_on_pdfa3_is_an_associated_file(tmp_path: Path):
    from ..conftest import SEED_PATH, SEED_TITLE, pithtex_cli

    inp = pdfa_file(tmp_path / "a3.pdf", "3", title=SEED_TITLE)
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(inp), "--record", str(SEED_PATH), "--attach-record", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    with pikepdf.open(out) as pdf:
        (spec,) = list(pdf.Root.AF)
        assert spec.AFRelationship == "/Data" and str(spec.UF) == "pith-record.json"
        assert b"canonical_record" in spec.EF.F.read_bytes()
        assert pdf.open_metadata()["pdfaid:part"] == "3"


def test_attach_record_on_pdfa2_needs_force(tmp_path: Path):
    from ..conftest import SEED_PATH, SEED_TITLE, assert_clean_error, pithtex_cli

    inp = pdfa_file(tmp_path / "a2.pdf", "2", title=SEED_TITLE)
    out = tmp_path / "out.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(inp), "--record", str(SEED_PATH), "--attach-record",
                                         "-o", str(out)), 1)
    assert "PDF/A-2B" in err and not out.exists()
