"""Small messages that said the wrong thing (issue 25, item 9): each now names what is really
the matter, in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .arxiv.test_arxiv_pithnumber import with_pith
from .arxiv.test_arxiv_rules import PLAIN, static_rules
from .conftest import BODY, assert_clean_error, pithtex_cli
from .pdfkit import make_pdf


def deep_pdf(path: Path, depth: int, where: str) -> Path:
    """A one-page PDF whose catalog (or trailer) holds `depth` nested arrays."""
    deep = b"[" * depth + b"]" * depth
    objs = [b"<< /Type /Catalog /Pages 2 0 R" + (b" /X " + deep if where == "catalog" else b"") + b" >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for num, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (num, body)
    xref = len(out)
    out += b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 4 /Root 1 0 R" + (b" /X " + deep if where == "trailer" else b"") + b" >>\n"
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    path.write_bytes(bytes(out))
    return path


@pytest.mark.parametrize("where", ["catalog", "trailer"])
@pytest.mark.parametrize("command", ["inspect", "stamp"])
def test_deep_nesting_is_called_deep_nesting_not_a_misplaced_object(tmp_path, where, command):
    pdf = deep_pdf(tmp_path / "deep.pdf", 100_000, where)
    extra = ["--number", BODY, "-o", str(tmp_path / "out.pdf")] if command == "stamp" else []
    err = assert_clean_error(pithtex_cli(command, str(pdf), *extra))
    assert "arrays or dictionaries nested more than 64 deep" in err
    assert "offset" not in err and "broken cross-reference" not in err


def test_an_option_after_double_dash_is_named_as_misplaced(tmp_path):
    """`--` ends the options (POSIX): `stamp -- -dash.pdf --number N` would stamp a file called
    `--number`. That is refused in one line, before anything is written, saying what to do."""
    make_pdf(tmp_path / "-dash.pdf")
    p = pithtex_cli("stamp", "--", "-dash.pdf", "--number", BODY, cwd=tmp_path)
    err = p.stderr.strip()
    assert p.returncode == 2 and len(err.splitlines()) == 1 and err.startswith("pithtex stamp: "), err  # a usage error
    assert "--number after -- is taken as a file name (-- ends the options); put the options before --" in err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["-dash.pdf"]
    # as POSIX has it, the options first: -dash.pdf is a file name after --
    p = pithtex_cli("stamp", "--number", BODY, "--", "-dash.pdf", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "-dash.pith.pdf").exists()


def test_a_file_really_named_like_an_option_is_still_a_file_after_double_dash(tmp_path):
    make_pdf(tmp_path / "--force")
    p = pithtex_cli("stamp", "--number", BODY, "-o", "out.pdf", "--", "--force", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out.pdf").exists()


@pytest.mark.parametrize(("defs", "said"), [
    ("\\def\\mynum{\\mynum}", "\\mynum expands to itself (a loop"),
    ("\\def\\mynum{\\other}\n\\newcommand{\\other}{pith:\\mynum}", "\\mynum expands to itself through \\other (a loop"),
])
def test_a_macro_that_expands_to_itself_is_called_a_loop_not_undefined(tmp_path: Path, defs: str, said: str):
    paper = tmp_path / "paper"
    shutil.copytree(PLAIN, paper)
    with_pith(paper, f"{defs}\n\\pithnumber{{\\mynum}}")
    (found,) = static_rules(paper)["pith-number-macro"]
    assert found.message.startswith(f"\\pithnumber{{\\mynum}}: {said}"), found.message
    assert "not defined" not in found.message
