"""Facts written once: the logo's geometry, the shared size limits, the base32 alphabet, the
engine list, the font path and the bug line each have one home, and the outputs that use
them agree."""

from __future__ import annotations

import ast
import json
import math
import re
import zlib
from pathlib import Path

import pytest

from pithtex import brand, limits
from pithtex.arxiv import ENGINES, ROUTES
from pithtex.cli import build_parser
from pithtex.latex import options
from pithtex.latex.render import logo_path, render_doc, render_sty
from pithtex.number import BASE32_ALPHABET, PithNumber
from pithtex.pdf import badge as pdf_badge
from pithtex.pdf import seen, xmp

from .conftest import ROOT, pithtex_cli
from .pdfkit import Writer

PACKAGE = ROOT / "pithtex"


def _constants(kind: type) -> list[tuple[str, int, object]]:
    """Every literal of `kind` in the package's modules: (module, line, value)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) is kind:
                out.append((path.relative_to(ROOT).as_posix(), node.lineno, node.value))
    return out


def _numbers(path: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path)]


def test_the_logo_is_drawn_from_one_geometry():
    """pith.sty's PDF route and the stamped badge trace the same curves (the badge scaled to its
    height); the quarter-circle constant is written in brand.py only."""
    kappas = [(m, line) for m, line, v in _constants(float) if 0.55 < v < 0.56]
    assert kappas == [("pithtex/brand.py", next(line for m, line, v in _constants(float)
                                                if m == "pithtex/brand.py" and 0.55 < v < 0.56))]
    tex = _numbers(logo_path("pdf").replace("~", " "))  # the ring's width, then both circles' paths
    stream = pdf_badge.drawing(PithNumber("YBK5PTAKOSCXY2WMLIIB7DMYH6")).decode("ascii").splitlines()
    assert stream[1].endswith(" S") and stream[2].endswith(" f")  # the ring stroked, the core filled
    scale = pdf_badge.HEIGHT / brand.LOGO_SIZE
    badge = [v / scale for line in stream[1:3] for v in _numbers(line)]
    assert len(badge) == len(tex) == 1 + 2 * (2 + 4 * 6)
    assert badge == pytest.approx(tex, abs=2e-3)
    for circle in brand.LOGO:  # the curves are circles: the midpoint of each quarter on the radius
        (x0, y0), quarters = circle.path()
        for x1, y1, x2, y2, x3, y3 in quarters:
            mx, my = (x0 + 3 * x1 + 3 * x2 + x3) / 8, (y0 + 3 * y1 + 3 * y2 + y3) / 8
            assert math.hypot(mx - circle.cx, my - circle.cy) == pytest.approx(circle.r, rel=3e-4)
            x0, y0 = x3, y3


def test_one_xmp_limit_for_the_facts_reader_and_the_stamper(tmp_path):
    """A packet of exactly the limit is read by inspect and merged by stamp; one byte more is
    refused by both, at the same size."""
    assert xmp.MAX_PACKET == limits.MAX_XMP_PACKET
    head = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
            b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>')
    tail = b'<?xpacket end="w"?>'
    number = "YBK5PTAKOSCXY2WMLIIB7DMYH6"
    for extra, readable in ((0, True), (1, False)):
        packet = head + b" " * (limits.MAX_XMP_PACKET + extra - len(head) - len(tail)) + tail
        pdf = _pdf_with_packet(tmp_path / f"x{extra}.pdf", packet)
        assert pdf.stat().st_size < limits.MAX_XMP_PACKET // 100  # Flate: the size is the decoded one
        seen = json.loads(pithtex_cli("inspect", str(pdf), "--json").stdout)
        assert (seen["xmp"] is None) is readable, seen["xmp"]
        stamp = pithtex_cli("stamp", str(pdf), "--number", number, "-o", str(tmp_path / f"out{extra}.pdf"))
        assert stamp.returncode == (0 if readable else 1), stamp.stderr
        if not readable:
            assert "XMP metadata is unreadable" in stamp.stderr


def _pdf_with_packet(path: Path, packet: bytes) -> Path:
    """A one-page PDF whose XMP is `packet`, Flate-compressed (qpdf, hence pikepdf, always writes
    metadata uncompressed, so this one is written by hand)."""
    data = zlib.compress(packet, 9)
    bodies = [b"<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>",
              b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
              b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
              b"<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
              % (len(data), data)]
    w = Writer(b"%PDF-1.7\n")
    for num, body in enumerate(bodies, 1):
        w.obj(num, body)
    out = w.end(w.table(w.entries(), b"<< /Size %d /Root 1 0 R >>" % (len(bodies) + 1)))
    path.write_bytes(out)
    return path


def test_other_shared_facts_have_one_home():
    strings = _constants(str)

    def where(pred) -> list[str]:
        return sorted({m for m, _line, v in strings if pred(v)})

    assert where(lambda v: BASE32_ALPHABET in v or "A-Za-z2-7" in v or "A-Z2-7" in v) == ["pithtex/number.py"]
    assert where(lambda v: "DejaVuSans.ttf" in v) == ["pithtex/web/metrics.py"]
    assert where(lambda v: "this is a bug in pithtex" in v) == ["pithtex/errors.py"]
    assert ("auto", *ROUTES, "all") == ENGINES and ROUTES == ("pdflatex", "latex", "xelatex")
    for command in ("check", "bundle"):
        sub = build_parser(command)._subparsers._group_actions[0].choices[command]
        assert next(a for a in sub._actions if a.dest == "engine").choices == ENGINES
    sizes = _products()
    assert sizes[16 * 1024 * 1024] == {"pithtex/limits.py"}  # a record, wherever it is read
    assert not sizes[8 * 1024 * 1024] & {"pithtex/pdf/xmp.py", "pithtex/pdf/facts.py", "pithtex/pdf/stamp.py"}


def _products() -> dict[int, set[str]]:
    """Sizes written as products of integers (16 * 1024 * 1024) and the modules writing them."""
    out: dict[int, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and all(
                    (isinstance(n, ast.Constant) and type(n.value) is int) or isinstance(n, (ast.BinOp, ast.Mult))
                    for n in ast.walk(node) if not isinstance(n, ast.expr_context)):
                value = eval(compile(ast.Expression(node), "<size>", "eval"))
                out.setdefault(value, set()).add(path.relative_to(ROOT).as_posix())
    return out


def test_the_web_element_takes_its_response_limit_from_limits():
    script = (ROOT / "web" / "dist" / "pith-badge.mjs").read_text(encoding="utf-8")
    assert "const MAX_BYTES = C.limits.bytes;" in script
    assert f'"bytes": {limits.MAX_RESPONSE_BYTES}' in script or f'"bytes":{limits.MAX_RESPONSE_BYTES}' in script
    assert Path(ROOT / "pithtex" / "resolver.py").read_text().count("MAX_RESPONSE_BYTES") >= 1


def _code_strings() -> list[tuple[str, int, str]]:
    """Every string literal of the package's code, docstrings left out (prose may name a fact)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        out += [(path.relative_to(ROOT).as_posix(), node.lineno, node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and type(node.value) is str and id(node) not in docs]
    return out


def test_a_theme_added_to_the_one_table_reaches_every_output(monkeypatch):
    """brand.THEMES is the one home of the badge themes: a theme added there (only) is drawn
    as SVG and PNG, offered by `pithtex badge --theme`, carried into <pith-badge>'s colours and
    panel stylesheet (which takes any theme of its table by name) and named in its README and
    types."""
    from pithtex.web import assets, badge

    colours = {name: getattr(brand.LIGHT, name) for name in brand.Theme.__slots__}
    contrast = brand.Theme(**{**colours, "message_bg": brand.Colour("#123456"), "panel_bg": brand.Colour("#fedcba")})
    monkeypatch.setitem(brand.THEMES, "contrast", contrast)
    number = PithNumber("YBK5PTAKOSCXY2WMLIIB7DMYH6")
    assert "#123456" in badge.svg(number, None, "contrast") and "#123456" not in badge.svg(number, None, "light")
    assert badge.png(number, None, "contrast") != badge.png(number, None, "light")
    parser = build_parser("badge")
    assert parser.parse_args(["badge", number.body, "--theme", "contrast"]).theme == "contrast"
    sub = parser._subparsers._group_actions[0].choices["badge"]
    assert "contrast" in next(a for a in sub._actions if a.dest == "theme").choices
    assert "contrast" in sub.format_help()  # `pithtex badge --help` offers it
    script = assets.render_script()
    values = json.loads(re.search(r"const C = (\{.*?\});\n", script).group(1))
    assert values["themes"]["contrast"]["colours"]["messageBg"] == "#123456"
    assert (values["defaultTheme"], values["darkTheme"]) == (brand.DEFAULT_THEME, brand.DARK_THEME)
    assert "return scheme === \"dark\" ? C.darkTheme : C.defaultTheme;" in script
    assert '.panel[data-theme=\\"contrast\\"]{background:#fedcba' in script
    assert "Object.prototype.hasOwnProperty.call(C.themes, asked)" in script  # any theme of the table
    files = {path.name: text for path, text in assets.package_files().items()}
    assert "`contrast`" in files["README.md"]
    assert f'theme="auto|{"|".join(brand.THEMES)}"' in files["pith-badge.d.ts"]  # the element's types


def test_theme_colours_and_the_resolvers_url_are_written_once():
    """Each theme colour (badge, element, panel) is a literal of brand.py only, and so is the
    default resolver's URL (the user agent and every --base-url help take brand.BASE_URL)."""
    strings = _code_strings()
    for theme in brand.THEMES.values():
        for name in brand.Theme.__slots__:
            hex_ = getattr(theme, name).hex.lower()
            if hex_ == "#ffffff":  # white is no theme's own (shape.py tests a text colour against it)
                continue
            assert {m for m, _line, v in strings if hex_ in v.lower()} == {"pithtex/brand.py"}, (name, hex_)
    assert {m for m, _line, v in strings if "https://pith.science" in v} == {"pithtex/brand.py"}
    # a theme's name too: the default (a badge, a served badge, --theme, the element's fallback)
    # and the dark scheme's (a snippet's dark-mode image, theme="auto") are brand.py's
    assert {m for m, _line, v in strings if v in brand.THEMES} == {"pithtex/brand.py"}
    helps = set()
    for command in ("verify", "stamp", "badge"):
        sub = build_parser(command)._subparsers._group_actions[0].choices[command]
        helps.add(next(a for a in sub._actions if a.dest == "base_url").help)
    assert len(helps) == 1 and brand.BASE_URL in helps.pop()


def _class_lists() -> list[str]:
    """Literal collections of three or more supported class names in the package, the tests and
    bench/, as `path:line` (a second list of the classes, to drift from the table)."""
    names = set(options.CLASS_NAMES)
    found = []
    for folder in ("pithtex", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
                if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and items is not None:
                    held = {n.value for n in items if isinstance(n, ast.Constant) and n.value in names}
                    if len(held) >= 3:
                        found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    return found


def test_the_supported_classes_are_one_table():
    """pithtex/latex/options.py's CLASSES is the one list of supported classes: no other list of
    them in code or tests, one example paper each, the manual shows page 1 of each, and
    docs/latex.md's placement table has a row naming each with where its log says the badge went."""
    assert _class_lists() == []
    assert len(set(options.CLASS_NAMES)) == len(options.CLASSES) >= 10
    assert sorted(p.name for p in (ROOT / "examples").iterdir() if (p / "paper.tex").is_file()) == sorted(
        options.CLASS_NAMES)
    manual = render_doc()
    for c in options.CLASSES:
        assert f"\\pagepicture{{{c.trim}}}{{{c.name}}}" in manual, c.name
    doc = (ROOT / "docs" / "latex.md").read_text(encoding="utf-8")
    table = doc.split("| class, variant | where the badge goes | how |", 1)[1].split("\n\n", 1)[0]
    rows = [row for row in table.splitlines() if row.startswith("| ")]
    for c in options.CLASSES:
        assert any((c.known_as or c.name) in row and f"`{c.placed}`" in row and c.variant in row
                   for row in rows), c


def test_arxivs_stamp_band_has_one_home():
    """The band where arXiv stamps page 1 is brand.ARXIV_BAND: no module or bench writes 40.0 (or
    the page reader's 50.0) again, the templates write no band in bp, and pith.sty's flush-left
    badge starts just right of it (its link's 1 bp margin)."""
    floats = [(m, line) for m, line, v in _constants(float) if v in (40.0, 50.0)]
    assert floats == [("pithtex/brand.py", next(line for m, line, v in _constants(float) if v == brand.ARXIV_BAND))]
    for path in sorted((ROOT / "bench").glob("*.py")):
        assert not [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(n, ast.Constant) and n.value in (40.0, 50.0) and type(n.value) is float], path
    for path in sorted((PACKAGE / "templates").rglob("*.j2")):
        assert not re.search(r"\b\d+(\.\d+)?(\s|\\,)?bp\b", path.read_text(encoding="utf-8")), path
    assert f"{{ {brand.ARXIV_BAND + 1:g}bp - 1in - \\tex_hoffset:D" in render_sty()
    assert seen.STAMP_BAND == brand.ARXIV_BAND + seen.STAMP_SLACK


def test_the_debug_switch_the_sample_number_and_the_verified_detail_are_written_once():
    """PITHTEX_DEBUG (the command line and a batch's worker read it, the bug line names it),
    the sample number (the manual's examples, the sample badges) and a verified badge's detail
    each have one home."""
    strings = _code_strings()

    def where(pred) -> set[str]:
        return {m for m, _line, v in strings if pred(v)}

    assert where(lambda v: "PITHTEX_DEBUG" in v) == {"pithtex/errors.py"}
    assert where(lambda v: v == brand.SAMPLE_BODY) == {"pithtex/brand.py"}
    assert where(lambda v: v.startswith("hash and signature by")) == {"pithtex/web/badge.py"}
    # the options several commands share: one name, help and conversion each
    assert where(lambda v: v.startswith("the password of an encrypted PDF")) == {"pithtex/cli/options.py"}
    assert where(lambda v: v == "--base-url") == {"pithtex/cli/options.py"}


def test_a_rules_meaning_is_written_in_the_catalogue_only():
    """A finding that says what its rule means says `RULE.meaning` (arxiv/catalogue.py, rendered
    into docs/arxiv-rules.md), never the same words again; its own message may add the file or
    the option at hand, and so may its fix. Nor is a rule's general fix written out again."""
    from pithtex.arxiv import catalogue

    def plain(text: str) -> str:
        return " ".join(text.replace("…", "...").split())

    said = {plain(text): f"{rule.id}.{part}" for rule in vars(catalogue).values() if isinstance(rule, catalogue.Rule)
            for part, text in (("meaning", rule.meaning), ("fix", rule.fix))}
    again = [f"{m}:{line} repeats {name}" for m, line, v in _code_strings() if m != "pithtex/arxiv/catalogue.py"
             for text, name in said.items() if text in plain(v)]
    assert again == []


def test_small_facts_that_were_written_twice_have_one_home():
    """Each was once written in two rooms: TeX's time limit per run (the sandbox, check's and
    bundle's --timeout), a Pith year's range (PithNumber, `number --year`), the verdict "would
    fail on arXiv" (the catalogue, the report), TeX's "File `…' not found" (the log reader, the
    figure-format check), whose an added key is (brand, verify)."""
    from pithtex.arxiv import sandbox
    from pithtex.number import YEARS

    assert [m for m, _line, v in _constants(float) if v == limits.TEX_RUN_SECONDS] == ["pithtex/limits.py"]
    assert sandbox.DEFAULT_TIMEOUT == limits.TEX_RUN_SECONDS
    for command in ("check", "bundle"):
        sub = build_parser(command)._subparsers._group_actions[0].choices[command]
        assert next(a for a in sub._actions if a.dest == "timeout").default == limits.TEX_RUN_SECONDS
    assert [m for m, _line, v in _constants(int) if v == YEARS[-1]] == []  # 9999: `not 1000 <= y <= 9999`
    assert "YEARS" in (PACKAGE / "cli" / "number.py").read_text(encoding="utf-8")
    strings = _code_strings()

    def where(pred) -> set[str]:
        return {m for m, _line, v in strings if pred(v)}

    assert where(lambda v: v == "would fail on arXiv") == {"pithtex/arxiv/catalogue.py"}
    assert where(lambda v: "File `" in v) == {"pithtex/arxiv/logparse.py"}
    assert where(lambda v: "added, not the Pith registry" in v) == {"pithtex/brand.py"}


def test_the_settings_serve_takes_from_its_flags_are_named_once():
    """The variables that carry `pithtex serve`'s flags to the server (which `uvicorn
    pithtex.serve:app` reads alike) are serve/config.py's FROM_FLAGS; PITH_BASE_URL is resolver.py's."""
    strings = _code_strings()
    for name in ("PITH_SERVE_KEYS", "PITH_SERVE_CACHE"):
        assert {m for m, _line, v in strings if v == name} == {"pithtex/serve/config.py"}, name
    assert {m for m, _line, v in strings if v == "PITH_BASE_URL"} == {"pithtex/resolver.py"}


def test_the_benches_take_the_sample_number_and_the_badge_colours_from_brand():
    """bench/ draws and stamps with brand.py's sample number, label and colours (badge-maker is
    given the same badge to draw), never a copy of them."""
    colours = {getattr(t, n).hex.lower() for t in brand.THEMES.values() for n in brand.Theme.__slots__} - {"#ffffff"}
    found = []
    for path in sorted((ROOT / "bench").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.lower()
                if brand.SAMPLE_BODY.lower() in text or any(c in text for c in colours):
                    found.append(f"{path.name}:{node.lineno}")
    assert found == []
