"""Render the project's generated files, latex/pith.sty, the manual's source latex/pith-doc.tex
and the web/ package, from templates, `brand` and `sty_options`.

The LaTeX package is never edited by hand: `render_all` writes it from
`templates/pith.sty.j2` and the brand values, and `check` says whether the committed copy
differs from a fresh render. Papers get their copy with `pithtex sty` (pithtex.latex.sty).
Output is deterministic (no clock, no paths), so a render on any machine gives the same
bytes.
"""

from __future__ import annotations

from pathlib import Path

from .. import brand, number
from ..pdf.objects import format_number as _num  # path operators' decimals, as the PDF layer's
from ..value import TYPE_CHECKING
from . import options as sty_options

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
STY_PATH = Path("latex") / "pith.sty"
DOC_PATH = Path("latex") / "pith-doc.tex"  # the manual's source; `make doc` compiles it


def environment() -> jinja2.Environment:
    """Jinja2 with delimiters that cannot clash with TeX's braces and percent signs."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        # `<<`/`>>` would clash with PDF dictionaries in driver specials, `{}`/`%` with TeX.
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["expl3"] = sty_options.expl3_text
    env.filters["latex"] = sty_options.latex_text
    env.filters["expl3_check"] = sty_options.expl3_check
    env.filters["latex2e_check"] = sty_options.latex2e_check
    return env


def _circle(c: brand.Circle, ops: dict[str, str]) -> list[str]:
    """A circle as four Bezier quarters, in logo units, with the given operator names."""
    start, quarters = c.path()
    # The line width goes first: PDF allows no state change inside a path.
    out = [_num(c.stroke), ops["w"]] if c.stroke > 0 else []
    out += [*(_num(v) for v in start), ops["m"]]
    for p in quarters:
        out += [*(_num(v) for v in p), ops["c"]]
    out += [ops["h"], ops["S"] if c.stroke > 0 else ops["f"]]
    return out


_PDF_OPS = {"m": "m", "c": "c", "h": "h", "w": "w", "S": "S", "f": "f"}
_PS_OPS = {"m": "moveto", "c": "curveto", "h": "closepath", "w": "setlinewidth", "S": "stroke", "f": "fill"}


def logo_path(dialect: str) -> str:
    """The brand logo as path operators in logo units (origin bottom left, y up)."""
    parts: list[str] = []
    for circle in brand.LOGO:
        ops = _PDF_OPS if dialect == "pdf" else _PS_OPS
        parts += (["newpath"] if dialect == "ps" else []) + _circle(circle, ops)
    # Spaces become `~` because the template body is read under \ExplSyntaxOn.
    return "~".join(parts)


# The link's own margin round the badge's box (bp): a flush-left badge starts this far right of
# arXiv's band, so that its link's rectangle starts outside it too.
_LINK_MARGIN_BP = 1.0

# The logo's height in the badge (the PDF route's box is 1.6ex high, see pith.sty.j2).
_LOGO_EX = 1.6


def logo_picture() -> str:
    """The brand logo as LaTeX picture commands in logo units, for LaTeXML's HTML (inline SVG)."""
    parts = []
    for c in brand.LOGO:
        if c.stroke > 0:
            parts.append(f"\\linethickness{{{_num(c.stroke * _LOGO_EX / brand.LOGO_SIZE)}ex}}"
                         f"\\put({_num(c.cx)},{_num(c.cy)}){{\\circle{{{_num(2 * c.r)}}}}}")
        else:
            parts.append(f"\\put({_num(c.cx)},{_num(c.cy)}){{\\circle*{{{_num(2 * c.r)}}}}}")
    return "".join(parts)


# The number reader's fields (pithtex/number.py's REASONS) as pith.sty's variables hold them.
_TEX_FIELDS = {"year": "\\l__pith_year_str", "char": "\\l__pith_char_str", "hint": "\\l__pith_hint_str",
               "position": "\\int_use:N \\l__pith_pos_int", "length": "\\int_use:N \\l__pith_pos_int"}


def tex_reason(text: str) -> str:
    """A reason of pithtex/number.py as the expl3 argument of pith.sty's \\__pith_invalid:n."""
    import string

    out: list[str] = []
    for literal, field, _spec, _conv in string.Formatter().parse(text):
        if out and literal.startswith(" "):  # after a control word TeX skips a `~`: a real space token
            out.append("\\c_space_tl ")
            literal = literal[1:]
        out.append(sty_options.expl3_text(literal))
        if field:
            out.append(_TEX_FIELDS[field] + " ")
    return "".join(out)


def _runs(alphabet: str) -> list[tuple[int, int]]:
    """The alphabet's character codes as (first, last) runs, lowest first."""
    runs: list[list[int]] = []
    for code in sorted(map(ord, alphabet)):
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return [(a, b) for a, b in runs]


def context() -> dict[str, object]:
    """Everything the templates may use, all from `brand` (and the number's reading rules)."""
    colour = brand.PRINT_COLOUR
    year, month, day = brand.RELEASE_DATE.split("/")
    return {
        "version": brand.VERSION,
        "date": brand.RELEASE_DATE,
        "date_iso": f"{year}-{month}-{day}",
        "label": brand.LABEL,
        "base_url": brand.BASE_URL,
        "xmp_ns": brand.XMP_NAMESPACE,
        "xmp_prefix": brand.XMP_PREFIX,
        "rgb": colour.latex_rgb,
        "rgb_space": colour.latex_rgb.replace(",", "~"),  # read under \ExplSyntaxOn
        "hex": colour.hex.lstrip("#").upper(),
        "logo_size": _num(brand.LOGO_SIZE),
        "arxiv_band": _num(brand.ARXIV_BAND),
        "badge_clear_bp": _num(brand.ARXIV_BAND + _LINK_MARGIN_BP),
        # TeX divides a dimension by an integer only; the logo box is LOGO_SIZE units high.
        "logo_size_int": int(brand.LOGO_SIZE),
        "logo_pdf": logo_path("pdf"),
        "logo_ps": logo_path("ps"),
        "logo_unit": f"{_num(_LOGO_EX / brand.LOGO_SIZE)}ex",
        "logo_picture": logo_picture(),
        "example_body": sty_options.EXAMPLE_BODY,
        "reading": number.READING,
        "reading_runs": _runs(number.READING.alphabet),
        "reasons": {key: tex_reason(text) for key, text in number.REASONS.items()},
        "options": sty_options.OPTIONS,
        "messages": sty_options.MESSAGES,
        "classes": sty_options.CLASSES,
        "review_modes": sty_options.REVIEW_MODES,
        "review_checks": sty_options.REVIEW_CHECKS,
        # The review warning's text after its "#1: ", for the LaTeXML path's Info.
        "review_text": next(m.text for m in sty_options.MESSAGES if m.name == "review").split(": ", 1)[1],
    }


def render_sty() -> str:
    return environment().get_template("pith.sty.j2").render(**context())


def render_doc() -> str:
    return environment().get_template("pith-doc.tex.j2").render(**context())
