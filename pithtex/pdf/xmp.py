"""XMP packets: read the pith properties, and merge them into a packet without loss.

Untrusted XML is parsed with defusedxml (no entity expansion, no external entities).
Writing uses our own small serialiser instead of ElementTree's: it keeps every namespace
declaration where the packet made it, with its own prefix (the default namespace included;
PDF/A validators look for `pdfaid:`, `pdfaExtension:` …), keeps every other property and its
white space, and is deterministic (no dates are ever written). What it writes is parsed
again before it is returned: a packet that would not parse is never written.

XMP allows a packet in UTF-8, UTF-16 or UTF-32 (either byte order; the xpacket header's
begin="\ufeff" is a byte-order mark in the packet's encoding). A packet is read in its own
encoding (`packet_encoding`), parsed as UTF-8 (`as_utf8`), and written back in the encoding
it came in, with the leading byte-order mark it had, if any.

A packet that is not well-formed XML is refused by the stamper unless --force; `salvage`
then keeps what can be read of it (everything but the characters XML forbids, or the
elements completed before the first fault) instead of replacing it wholesale.
"""

from __future__ import annotations

import contextlib
import io
import re

from .. import brand
from ..limits import MAX_XMP_PACKET as MAX_PACKET  # larger is not metadata: refused unparsed
from ..value import TYPE_CHECKING, LazyPattern
from .errors import XmpError, XmpWriteError

# ElementTree is imported where a tree is built (a new packet needs none), and `typing`
# is for checkers only: together they cost a stamp ~3 ms, its own work takes about as long.
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
# XMP nests a few levels (x:xmpmeta, rdf:RDF, rdf:Description, property, rdf:Seq, rdf:li,
# structures); deeper is hostile, and the serialiser recurses once a level.
MAX_DEPTH = 100
# XML 1.0's Char production, negated: what no XML document may contain, even as a reference.
# Compiled on first use (its ranges cost 3 ms to compile, more than a whole stamp's XMP work);
# ASCII text, the fresh packet's case, is checked against the C0 controls alone.
FORBIDDEN = LazyPattern("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_FORBIDDEN_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CHAR_REF = LazyPattern(r"&#(x[0-9a-fA-F]+|[0-9]+);")
# An & that starts none of XML's own references (a bare & or an HTML entity such as &nbsp;).
_BARE_AMP = LazyPattern(r"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)")
_XML_DECL = LazyPattern(r"\A\s*<\?xml[^>]*\?>")
_SPECIAL = re.compile("[&<>\"'\r\n\t]")
# The XMP specification's own prefixes: a packet that uses one it never declares (some PDF
# writers do) is given the declaration when --force salvages it.
KNOWN_PREFIXES = {
    "dc": "http://purl.org/dc/elements/1.1/", "xmp": "http://ns.adobe.com/xap/1.0/",
    "xap": "http://ns.adobe.com/xap/1.0/", "xmpMM": "http://ns.adobe.com/xap/1.0/mm/",
    "xapMM": "http://ns.adobe.com/xap/1.0/mm/", "xmpRights": "http://ns.adobe.com/xap/1.0/rights/",
    "xapRights": "http://ns.adobe.com/xap/1.0/rights/", "pdf": "http://ns.adobe.com/pdf/1.3/",
    "pdfx": "http://ns.adobe.com/pdfx/1.3/", "photoshop": "http://ns.adobe.com/photoshop/1.0/",
    "stRef": "http://ns.adobe.com/xap/1.0/sType/ResourceRef#",
    "stEvt": "http://ns.adobe.com/xap/1.0/sType/ResourceEvent#", "pdfaid": PDFAID,
    "x": X, "rdf": RDF,
}
_USED_PREFIX = LazyPattern(r"</?([A-Za-z_][\w.-]*):[A-Za-z_]|\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=")
_FIRST_TAG = LazyPattern(r"<[A-Za-z_][\w.:-]*")


def _q(ns: str, local: str) -> str:
    return f"{{{ns}}}{local}"


# -- reading ------------------------------------------------------------------------------
class Parsed:
    """A packet's root element, each element's own namespace declarations in the order
    written ([(prefix, uri), ...], prefix "" for the default namespace), and the prefix each
    element was written with. Elements added later have neither; the serialiser declares
    what they need."""

    __slots__ = ("declared", "root", "written")

    def __init__(self, root: Element, declared: dict[Element, list[tuple[str, str]]],
                 written: dict[Element, tuple[str, dict[str, str]]]) -> None:
        self.root, self.declared, self.written = root, declared, written


# -- encodings: UTF-8, UTF-16 and UTF-32, as XMP allows ----------------------------------------
# UTF-32's marks first: UTF-16LE's (FF FE) begins UTF-32LE's (FF FE 00 00).
_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"), (b"\xef\xbb\xbf", "utf-8"))


def packet_encoding(packet: bytes) -> str:
    """The encoding a packet is written in: from a leading byte-order mark, else from how its
    first `<` is written (00 3C is UTF-16BE, 3C 00 00 00 UTF-32LE ...); UTF-8 otherwise."""
    for mark, name in _BOMS:
        if packet.startswith(mark):
            return name
    i = packet.find(b"<")
    if i < 0:
        return "utf-8"
    if i >= 3 and packet[i - 3:i] == b"\x00\x00\x00":
        return "utf-32-be"
    if packet[i + 1:i + 4] == b"\x00\x00\x00":
        return "utf-32-le"
    if i >= 1 and packet[i - 1] == 0:
        return "utf-16-be"
    if packet[i + 1:i + 2] == b"\x00":
        return "utf-16-le"
    return "utf-8"


def _leading_bom(packet: bytes, encoding: str) -> bytes:
    return next((mark for mark, name in _BOMS if name == encoding and packet.startswith(mark)), b"")


def as_utf8(packet: bytes, errors: str = "strict") -> bytes:
    """The packet as UTF-8 bytes (itself when it is UTF-8), without a leading byte-order mark
    or an XML declaration naming the old encoding. XmpError when it is not valid in its own
    encoding (unless `errors="replace"`, for salvage)."""
    encoding = packet_encoding(packet)
    if encoding == "utf-8":
        return packet
    try:
        text = packet[len(_leading_bom(packet, encoding)):].decode(encoding, errors)
    except UnicodeDecodeError as exc:
        raise XmpError(f"the XMP packet is not valid {encoding.upper()} ({exc.reason} at byte {exc.start})") from None
    return re.sub(r"<\?xml\s[^>]*\?>", "", text, count=1).encode("utf-8")


def parse(packet: bytes, writing: bool = True) -> Parsed:
    """The packet's tree (root x:xmpmeta or rdf:RDF) with its declarations; XmpError if it is
    not XML. Only a tree to be written again needs each element's prefixes (`writing`)."""
    if len(packet) > MAX_PACKET:
        raise XmpError("XMP packet too large")
    parsed, _ended, fault = _read(xml_body(as_utf8(packet)), writing)
    if fault is not None:
        raise XmpError(fault)
    if parsed is None:
        raise XmpError("XMP has no root element")
    return parsed


def _read(body: bytes, writing: bool = True) -> tuple[Parsed | None, set[Element], str | None]:
    """What the parser read before its first fault: the tree so far (None before the root),
    the elements it closed, and the fault (None when the whole body is XML)."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    declared: dict[Element, list[tuple[str, str]]] = {}
    ended: set[Element] = set()
    pending: list[tuple[str, str]] = []
    root = None
    fault = None
    depth = 0
    try:
        # start-ns events come just before the start of the element that declares them.
        for event, item in iterparse(io.BytesIO(body), events=("start-ns", "start", "end")):
            if event == "start-ns":
                pending.append(item)
            elif event == "start":
                depth += 1
                if depth > MAX_DEPTH:
                    raise ValueError(f"elements nested more than {MAX_DEPTH} deep")
                declared[item], pending = pending, []
                root = item if root is None else root
            else:
                depth -= 1
                ended.add(item)
    except DefusedXmlException as exc:  # entities: nothing of it is read again
        return None, ended, str(exc)
    except SyntaxError as exc:
        fault = f"not XML: {exc}"
    except ValueError as exc:  # too deep, or bytes expat refuses outright
        fault = str(exc)
    if root is None:
        return None, ended, fault
    # After a fault the two passes may stop an element apart: the shorter list is enough.
    written = dict(zip(declared, _written_prefixes(body), strict=False)) if writing else {}
    return Parsed(root, declared, written), ended, fault


def _written_prefixes(body: bytes) -> list[tuple[str, dict[str, str]]]:
    """The prefixes each element was written with, in document order, which ElementTree
    forgets: (the element's, {"{uri}local": prefix} for its attributes). Where two prefixes (or
    a prefix and the default namespace) name one namespace, the one written is kept. A second
    pass with expat itself, on text defusedxml has just read: any DTD stops it."""
    import xml.parsers.expat

    names: list[tuple[str, dict[str, str]]] = []

    def no_dtd(*_args: object) -> None:
        raise ValueError("DTD")

    def split(name: str) -> tuple[str, str]:
        parts = name.split(" ")
        return (f"{{{parts[0]}}}{parts[1]}" if len(parts) > 1 else name), (parts[2] if len(parts) == 3 else "")

    def start(name: str, attrs: dict[str, str]) -> None:
        names.append((split(name)[1], dict(split(a) for a in attrs if a.count(" ") == 2)))

    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.namespace_prefixes = True
    parser.StartDoctypeDeclHandler = no_dtd
    parser.EntityDeclHandler = no_dtd
    parser.StartElementHandler = start
    # The elements before a fault are named; the first pass says what the fault is.
    with contextlib.suppress(xml.parsers.expat.ExpatError, ValueError):
        parser.Parse(body, True)
    return names


def xml_body(packet: bytes) -> bytes:
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
    return pith_of(parse(packet, writing=False).root)


def pith_of(root: Element) -> dict[str, Any]:
    """`read_pith` of a packet already parsed."""
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


# -- what --force keeps of a broken packet -----------------------------------------------
# Elements kept open when the fault lies inside them: the containers of the properties.
_CONTAINERS = frozenset({_q(X, "xmpmeta"), _q(X, "xapmeta"), _q(RDF, "RDF"), _q(RDF, "Description")})


def salvage(packet: bytes) -> Parsed | None:
    """What can be read of a packet that `parse` refuses, or None when nothing can.

    First the text without what XML forbids (control characters and references to them, bytes
    that are not UTF-8 read as Latin-1, bare & escaped): usually all of it then parses. Else
    the elements completed before the first fault, inside the Descriptions open there.
    """
    if len(packet) > MAX_PACKET:
        return None
    text = _decode(xml_body(as_utf8(packet, errors="replace")))
    text = _XML_DECL.sub("", text)
    text = _CHAR_REF.sub(lambda m: "" if FORBIDDEN.match(_char(m.group(1))) else m.group(0), text)
    text = _declare_known(_BARE_AMP.sub("&amp;", FORBIDDEN.sub("", text)))
    parsed, ended, fault = _read(text.encode("utf-8"))
    if parsed is None:
        return None
    if fault is not None:
        _prune(parsed.root, ended)
    root = parsed.root
    return parsed if root.tag == _q(RDF, "RDF") or root.find(_q(RDF, "RDF")) is not None else None


def _declare_known(text: str) -> str:
    """The XMP prefixes the text uses and declares nowhere, declared on its first element."""
    used = {a or b for a, b in _USED_PREFIX.findall(text)}
    missing = [p for p in KNOWN_PREFIXES if p in used and f"xmlns:{p}=" not in text]
    first = _FIRST_TAG.search(text)
    if not missing or first is None:
        return text
    declared = "".join(f' xmlns:{p}="{KNOWN_PREFIXES[p]}"' for p in missing)
    return text[:first.end()] + declared + text[first.end():]


def _decode(body: bytes) -> str:
    """UTF-8 where it is UTF-8; each stray byte as the Latin-1 character it would be."""
    text = body.decode("utf-8", "surrogateescape")
    return re.sub("[\udc80-\udcff]", lambda m: chr(ord(m.group()) - 0xDC00), text)


def _char(ref: str) -> str:
    code = int(ref[1:], 16) if ref[0] == "x" else int(ref)
    return chr(code) if code <= 0x10FFFF else "\x00"


def _prune(el: Element, ended: set[Element]) -> None:
    """Drop the elements the parser never closed, except the containers around the fault."""
    for child in list(el):
        if child in ended:
            continue
        if child.tag in _CONTAINERS:
            _prune(child, ended)
        else:
            el.remove(child)


# -- merging ------------------------------------------------------------------------------
def merge(packet: bytes | None, values: dict[str, str], drop_pdfa: bool = False,
          salvaged: Parsed | None = None, like: bytes | None = None) -> bytes:
    """A packet with the pith properties set to `values` (number, url, long), all else kept,
    in the encoding of `packet` (or of `like`, the packet a salvaged tree came from).

    `drop_pdfa` removes the PDF/A identification (pdfaid:part, :conformance, ...): for a file
    that --force has made non-conforming, so it claims nothing it no longer is. `salvaged`
    (from `salvage`, or the tree `facts.read_xmp` parsed for writing) is merged into instead
    of parsing `packet` again; it is changed in place.
    """
    if packet is None and salvaged is None:
        return wrap(_checked(_fresh(values)))
    original = packet if packet is not None else like
    encoding = packet_encoding(original) if original else "utf-8"
    bom = _leading_bom(original, encoding) if original else b""
    from xml.etree.ElementTree import Element, SubElement

    parsed = salvaged if salvaged is not None else parse(packet or b"")
    root = parsed.root
    if root.tag == _q(RDF, "RDF"):
        wrapper = Element(_q(X, "xmpmeta"))
        wrapper.append(root)
        root = parsed.root = wrapper
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
    packet = bom + wrap(serialize(parsed), encoding)
    _verify(packet, values)
    return packet


def _verify(packet: bytes, values: dict[str, str]) -> None:
    """The packet parses and says what was meant; otherwise nothing is written (a bug)."""
    # The plain (C) parser: this is pithtex's own text, which never holds a DTD.
    from xml.etree.ElementTree import ParseError, fromstring

    try:
        root = fromstring(xml_body(as_utf8(packet)))
    except (ParseError, XmpError) as exc:
        raise XmpWriteError(f"the merged XMP packet does not parse: {exc}") from None
    if any(read_property(root, PITH, local) != values[local] for local in values if values[local]):
        raise XmpWriteError("the merged XMP packet does not read back the pith properties")


def _checked(xml: str) -> str:
    """The fresh packet is fixed text around escaped values: only a forbidden character could
    make it unparsable, and a regular expression finds one without loading an XML library."""
    if (_FORBIDDEN_ASCII if xml.isascii() else FORBIDDEN).search(xml):
        raise XmpWriteError("a value for the XMP packet holds a character XML forbids")
    return xml


def _fresh(values: dict[str, str]) -> str:
    """The XML `merge` makes of no packet (the same text, tests/pdf/test_xmp.py compares), written
    directly: a file without XMP is stamped without loading an XML library."""
    pith = brand.XMP_PREFIX
    props = [f"<{pith}:{local}>{escape(values[local])}</{pith}:{local}>"
             for local, _desc in PROPERTIES if values.get(local)]
    declared = f' xmlns:{pith}="{escape(PITH, True)}"' if props else ""
    inner = "\n   " + "\n   ".join(props) + ("\n  " if props else "")
    return (f'<x:xmpmeta xmlns:x="{escape(X, True)}"><rdf:RDF xmlns:rdf="{escape(RDF, True)}">'
            f'<rdf:Description{declared} rdf:about="">{inner}</rdf:Description>\n </rdf:RDF></x:xmpmeta>')


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


def wrap(xml: str, encoding: str = "utf-8") -> bytes:
    """The xpacket wrapper around `xml`, all in `encoding` (begin="\ufeff" becomes that
    encoding's byte-order mark, as XMP asks)."""
    head = f'<?xpacket begin="\ufeff" id="{PACKET_ID}"?>\n'
    return (head + xml + "\n" + PADDING + '<?xpacket end="w"?>').encode(encoding)


# -- serialising --------------------------------------------------------------------------
def escape(text: str, attribute: bool = False) -> str:
    """XML escaping of & < > (and quotes and line breaks in attributes, which a parser would
    otherwise turn into spaces), from one place for every writer."""
    if not _SPECIAL.search(text):  # most text: nothing to escape
        return text
    out = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    if attribute:
        out = out.replace('"', "&quot;").replace("'", "&apos;").replace("\n", "&#10;").replace("\t", "&#9;")
    return out


def serialize(parsed: Parsed) -> str:
    """The tree as XML text, each declaration where the packet made it ('xml' is predeclared)."""
    out: list[str] = []
    _element(parsed.root, parsed, {"xml": XML_NS}, out, False)
    return "".join(out)


def _element(el: Element, parsed: Parsed, scope: dict[str, str], out: list[str], in_new: bool) -> None:
    """One element; `in_new`: its parent is one pithtex added, which declared for it already."""
    if not isinstance(el.tag, str):  # comments and processing instructions
        return
    own = parsed.declared.get(el)
    new = own is None
    own = list(own) if own is not None else [] if in_new else _needed(el, parsed.declared, scope)
    inner = _push(scope, own) if own else scope.copy()
    tag_prefix, attr_prefixes = parsed.written.get(el, (None, {}))
    name = _name(el.tag, inner, own, attribute=False, written=tag_prefix)
    attrs = [(_name(k, inner, own, attribute=True, written=attr_prefixes.get(k)), v) for k, v in el.attrib.items()]
    out.append(f"<{name}")
    out.extend(f' xmlns{":" + p if p else ""}="{escape(uri, True)}"' for p, uri in own)
    out.extend(f' {k}="{escape(v, True)}"' for k, v in attrs)
    if not len(el) and not el.text:
        out.append("/>")
        return
    out.append(">")
    if el.text:
        out.append(escape(el.text))
    for child in el:
        _element(child, parsed, inner, out, new)
        if child.tail:
            out.append(escape(child.tail))
    out.append(f"</{name}>")


def _push(scope: dict[str, str], own: list[tuple[str, str]]) -> dict[str, str]:
    """The bindings inside an element: its own declarations last (the most recent wins a tie)."""
    inner = dict(scope)
    for prefix, uri in own:
        inner.pop(prefix, None)
        inner[prefix] = uri
    return inner


def _needed(el: Element, declared: dict[Element, list[tuple[str, str]]],
            scope: dict[str, str]) -> list[tuple[str, str]]:
    """For an element pithtex added: the declarations its new subtree needs, made once here."""
    own: list[tuple[str, str]] = []
    inner = dict(scope)
    stack = [el]
    while stack:
        sub = stack.pop()
        if sub is not el and sub in declared:  # the packet's own: declared where it was
            continue
        for name, attribute in [(sub.tag, False), *((k, True) for k in sub.attrib)]:
            if isinstance(name, str) and name.startswith("{"):
                _prefix(name[1:].partition("}")[0], inner, own, attribute)
        stack.extend(reversed(list(sub)))
    return own


def _name(tag: str, scope: dict[str, str], own: list[tuple[str, str]], attribute: bool,
          written: str | None = None) -> str:
    if not tag.startswith("{"):
        if not attribute and scope.get("", ""):  # no namespace, inside a default one
            own.append(("", ""))
            scope[""] = ""
        return tag
    uri, _, local = tag[1:].partition("}")
    prefix = written if written is not None and scope.get(written) == uri else _prefix(uri, scope, own, attribute)
    return f"{prefix}:{local}" if prefix else local


def _prefix(uri: str, scope: dict[str, str], own: list[tuple[str, str]], attribute: bool) -> str:
    """A prefix bound to uri in scope (an attribute needs a real one), declaring one if none is."""
    for prefix in reversed(scope):
        if scope[prefix] == uri and (prefix or not attribute):
            return prefix
    prefix = PREFERRED.get(uri, "ns")
    if prefix in scope or prefix == "ns":
        base, n = prefix, 1
        while f"{base}{n}" in scope:
            n += 1
        prefix = f"{base}{n}"
    own.append((prefix, uri))
    scope[prefix] = uri
    return prefix
