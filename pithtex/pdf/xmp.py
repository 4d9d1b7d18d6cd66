"""XMP packets: read the pith properties, and merge them into a packet without loss.

Untrusted XML is parsed with defusedxml (no entity expansion, no external entities).
Writing uses our own small serialiser instead of ElementTree's: it keeps the packet's own
namespace prefixes (PDF/A validators look for `pdfaid:`, `pdfaExtension:` …), keeps every
other property and its white space, and is deterministic (no dates are ever written).
"""

from __future__ import annotations

import io

from .. import brand

# ElementTree is imported where a tree is built (a new packet needs none), and `typing`
# is for checkers only: together they cost a stamp ~3 ms, its own work takes about as long.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from xml.etree.ElementTree import Element

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
X = "adobe:ns:meta/"
PITH = brand.XMP_NAMESPACE
PDFAID = "http://www.aiim.org/pdfa/ns/id/"
PDFA_EXT = "http://www.aiim.org/pdfa/ns/extension/"
PDFA_SCHEMA = "http://www.aiim.org/pdfa/ns/schema#"
PDFA_PROPERTY = "http://www.aiim.org/pdfa/ns/property#"
XML_NS = "http://www.w3.org/XML/1998/namespace"
PREFERRED = {RDF: "rdf", X: "x", PITH: brand.XMP_PREFIX, PDFAID: "pdfaid", PDFA_EXT: "pdfaExtension",
             PDFA_SCHEMA: "pdfaSchema", PDFA_PROPERTY: "pdfaProperty", XML_NS: "xml"}
PACKET_ID = "W5M0MpCehiHzreSzNTczkc9d"
# Room to edit the packet in place later, as the XMP specification recommends.
PADDING = (" " * 99 + "\n") * 20
PROPERTIES = (
    ("number", "The Pith Number of the paper (26 base32 characters)"),
    ("url", "The address of the Pith record of the paper"),
    ("long", "The long form of the Pith Number, pith:YYYY:BODY"),
)
# A packet larger than this is not metadata; refuse to parse it.
MAX_PACKET = 8 * 1024 * 1024


class XmpError(ValueError):
    """An XMP packet that cannot be parsed safely."""


def _q(ns: str, local: str) -> str:
    return f"{{{ns}}}{local}"


# -- reading ------------------------------------------------------------------------------
def parse(packet: bytes) -> tuple[Element, dict[str, str]]:
    """The root element (x:xmpmeta or rdf:RDF) and the packet's own uri → prefix map."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    if len(packet) > MAX_PACKET:
        raise XmpError("XMP packet too large")
    body = _xml_body(packet)
    prefixes: dict[str, str] = {}
    root = None
    try:
        for event, item in iterparse(io.BytesIO(body), events=("start-ns", "start")):
            if event == "start-ns":
                prefix, uri = item
                prefixes.setdefault(uri, prefix)
            elif root is None:
                root = item
    except (DefusedXmlException, SyntaxError, ValueError) as exc:
        raise XmpError(f"XMP is not well-formed XML: {exc}") from None
    if root is None:
        raise XmpError("XMP has no root element")
    return root, prefixes


def _xml_body(packet: bytes) -> bytes:
    """The XML between the xpacket wrapper (processing instructions, padding, junk dropped)."""
    start = -1
    for tag in (b"<x:xmpmeta", b"<x:xapmeta", b"<rdf:RDF"):
        start = packet.find(tag)
        if start >= 0:
            break
    if start < 0:
        start = packet.find(b"<", packet.find(b"?>") + 2 if packet.lstrip().startswith(b"<?xpacket") else 0)
    end = packet.rfind(b"<?xpacket end")
    body = packet[max(start, 0): end if end > start else len(packet)].rstrip(b"\x00\t\n\r ")
    return body


def descriptions(root: Element) -> list[Element]:
    return list(root.iter(_q(RDF, "Description")))


def read_property(root: Element, ns: str, local: str) -> str | None:
    """A simple property, written either as an attribute or as an element of a Description."""
    for desc in descriptions(root):
        value = desc.get(_q(ns, local))
        if value is not None:
            return value.strip()
        child = desc.find(_q(ns, local))
        if child is not None:
            return (child.text or "").strip()
    return None


def read_pith(packet: bytes) -> dict[str, Any]:
    """{"number", "url", "long"} as far as present, plus "pdfa" ("2B") when the packet says PDF/A."""
    root, _ = parse(packet)
    found: dict[str, Any] = {}
    for local, _desc in PROPERTIES:
        value = read_property(root, PITH, local)
        if value is not None:
            found[local] = value
    part = read_property(root, PDFAID, "part")
    if part:
        found["pdfa"] = part + (read_property(root, PDFAID, "conformance") or "")
    found["schema_declared"] = _schema_declared(root)
    return found


def _schema_declared(root: Element) -> bool:
    return any((el.text or "").strip() == PITH for el in root.iter(_q(PDFA_SCHEMA, "namespaceURI")))


# -- merging ------------------------------------------------------------------------------
def merge(packet: bytes | None, values: dict[str, str], drop_pdfa: bool = False) -> bytes:
    """A packet with the pith properties set to `values` (number, url, long), all else kept.

    `drop_pdfa` removes the PDF/A identification (pdfaid:part, :conformance, ...): for a file
    that --force has made non-conforming, so it claims nothing it no longer is.
    """
    if packet is None:
        return wrap(_fresh(values))
    from xml.etree.ElementTree import Element, SubElement

    root, prefixes = parse(packet)
    if root.tag == _q(RDF, "RDF"):
        wrapper = Element(_q(X, "xmpmeta"))
        wrapper.append(root)
        root = wrapper
    rdf = root.find(_q(RDF, "RDF")) if root.tag != _q(RDF, "RDF") else root
    if rdf is None:
        raise XmpError("XMP has no rdf:RDF element")
    about = _about(rdf)
    _remove_namespace(rdf, PITH)
    if drop_pdfa:
        _remove_namespace(rdf, PDFAID)
    desc = SubElement(rdf, _q(RDF, "Description"), {_q(RDF, "about"): about})
    desc.text = "\n   "
    for local, _desc in PROPERTIES:
        if values.get(local):
            child = SubElement(desc, _q(PITH, local))
            child.text = values[local]
            child.tail = "\n   "
    if len(desc):
        desc[-1].tail = "\n  "
    desc.tail = "\n "
    if read_property(root, PDFAID, "part") and not _schema_declared(root):
        _declare_schema(rdf, about)
    return wrap(serialize(root, prefixes))


def _fresh(values: dict[str, str]) -> str:
    """The XML `merge` makes of no packet (the same text, tests/test_xmp.py compares), written
    directly: a file without XMP is stamped without loading an XML library."""
    pith = brand.XMP_PREFIX
    props = [f"<{pith}:{local}>{escape(values[local])}</{pith}:{local}>"
             for local, _desc in PROPERTIES if values.get(local)]
    declared = f' xmlns:x="{escape(X, True)}" xmlns:rdf="{escape(RDF, True)}"' + (
        f' xmlns:{pith}="{escape(PITH, True)}"' if props else "")
    inner = "\n   " + "\n   ".join(props) + ("\n  " if props else "")
    return (f'<x:xmpmeta{declared}><rdf:RDF><rdf:Description rdf:about="">{inner}</rdf:Description>'
            "\n </rdf:RDF></x:xmpmeta>")


def _about(rdf: Element) -> str:
    for desc in rdf.findall(_q(RDF, "Description")):
        value = desc.get(_q(RDF, "about"))
        if value is not None:
            return value
    return ""


def _remove_namespace(rdf: Element, ns: str) -> None:
    for desc in list(rdf.findall(_q(RDF, "Description"))):
        had = False
        for key in [k for k in desc.attrib if k.startswith("{" + ns + "}")]:
            del desc.attrib[key]
            had = True
        for child in [c for c in desc if c.tag.startswith("{" + ns + "}")]:
            desc.remove(child)
            had = True
        if had and not len(desc) and set(desc.attrib) <= {_q(RDF, "about")}:
            rdf.remove(desc)


def _declare_schema(rdf: Element, about: str) -> None:
    """Add the pith entry to pdfaExtension:schemas, so a PDF/A file stays valid."""
    from xml.etree.ElementTree import SubElement

    bag = None
    for schemas in rdf.iter(_q(PDFA_EXT, "schemas")):
        bag = schemas.find(_q(RDF, "Bag"))
        if bag is not None:
            break
    if bag is None:
        desc = SubElement(rdf, _q(RDF, "Description"), {_q(RDF, "about"): about})
        schemas = SubElement(desc, _q(PDFA_EXT, "schemas"))
        bag = SubElement(schemas, _q(RDF, "Bag"))
        desc.tail = "\n "
    li = SubElement(bag, _q(RDF, "li"), {_q(RDF, "parseType"): "Resource"})
    for local, text in (("schema", "Pith Number"), ("namespaceURI", PITH), ("prefix", brand.XMP_PREFIX)):
        SubElement(li, _q(PDFA_SCHEMA, local)).text = text
    seq = SubElement(SubElement(li, _q(PDFA_SCHEMA, "property")), _q(RDF, "Seq"))
    for name, description in PROPERTIES:
        prop = SubElement(seq, _q(RDF, "li"), {_q(RDF, "parseType"): "Resource"})
        for local, text in (("name", name), ("valueType", "Text"), ("category", "external"),
                            ("description", description)):
            SubElement(prop, _q(PDFA_PROPERTY, local)).text = text


def wrap(xml: str) -> bytes:
    head = f'<?xpacket begin="\ufeff" id="{PACKET_ID}"?>\n'
    return (head + xml + "\n" + PADDING + '<?xpacket end="w"?>').encode("utf-8")


# -- serialising --------------------------------------------------------------------------
def escape(text: str, attribute: bool = False) -> str:
    """XML escaping of & < > (and quotes in attributes), from one place for every writer."""
    out = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attribute:
        out = out.replace('"', "&quot;").replace("'", "&apos;")
    return out


def serialize(root: Element, prefixes: dict[str, str]) -> str:
    names = dict(prefixes)
    used: list[str] = []
    for el in root.iter():
        for tag in [el.tag, *el.attrib]:
            if tag.startswith("{"):
                uri = tag[1:].partition("}")[0]
                if uri not in used:
                    used.append(uri)
    taken = set(names.values())
    for uri in used:
        if uri not in names:
            prefix = PREFERRED.get(uri)
            if prefix is None or prefix in taken:
                prefix = f"ns{len(taken)}"
            names[uri] = prefix
            taken.add(prefix)
    out: list[str] = []
    declarations = "".join(f' xmlns:{names[uri]}="{escape(uri, True)}"' for uri in used if uri != XML_NS)
    _element(root, names, out, declarations)
    return "".join(out)


def _qname(tag: str, names: dict[str, str]) -> str:
    if not tag.startswith("{"):
        return tag
    uri, _, local = tag[1:].partition("}")
    return f"{names[uri]}:{local}"


def _element(el: Element, names: dict[str, str], out: list[str], extra: str = "") -> None:
    if not isinstance(el.tag, str):  # comments and processing instructions
        return
    attrs = "".join(f' {_qname(k, names)}="{escape(v, True)}"' for k, v in el.attrib.items())
    out.append(f"<{_qname(el.tag, names)}{extra}{attrs}")
    if not len(el) and not el.text:
        out.append("/>")
    else:
        out.append(">")
        if el.text:
            out.append(escape(el.text))
        for child in el:
            _element(child, names, out)
            if child.tail:
                out.append(escape(child.tail))
        out.append(f"</{_qname(el.tag, names)}>")
