"""'verified' names this paper and the registry's key (issue 19, command line): the PDF must show
the record's title, --keys cannot take a registry key id, a long form's year is checked.

Real pith.sty PDFs (pdflatex), stamped fixtures and a real resolver on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pithtex.pdf import titles
from pithtex.record import title_sha256
from pithtex.trust import fingerprint

from ..conftest import BODY, SEED_PATH, SEED_TITLE, assert_clean_error, fixture_pdf, pithtex_cli, seed_doc
from ..pdfkit import body_text, make_pdf, page_pdf, wrapped
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import Reply

PINNED_ID = "pith-v1-2026-05"
ADDED = "a key --keys added, not the Pith registry"


def online(fake, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return pithtex_cli("verify", *args, "--base-url", fake.base, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})


def paper(folder: Path, title: str, body: str = BODY, cls: str = "article", options: str = "",
          hyperref: str = "") -> Path:
    """A real pith.sty paper, compiled twice with pdflatex."""
    folder.mkdir(parents=True)
    assert pithtex_cli("sty", str(folder)).returncode == 0
    (folder / "paper.tex").write_text(
        f"\\documentclass[{options}]{{{cls}}}\n\\usepackage[T1]{{fontenc}}\n{hyperref}\\usepackage{{pith}}\n"
        f"\\pithnumber{{{body}}}\n\\title{{{title}}}\n\\author{{A. Author}}\n\\begin{{document}}\n\\maketitle\n"
        "\\section{Introduction}Some text of the paper.\n\\end{document}\n", "utf-8")
    for _ in range(2):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "paper.tex"], cwd=folder, capture_output=True,
                       timeout=120)
    return folder / "paper.pdf"


def signed(key: TestKey, title: str, tex_title: str | None = None) -> dict:
    """A full record of `title` (its paper.title as arXiv writes it: `tex_title`), signed by `key`."""
    doc = full_record(canonical(title=tex_title or title), key)
    doc["paper"] = {"title": tex_title or title}
    return doc


# -- titles: what PDFs and arXiv do to a title --------------------------------------------------
@pytest.mark.parametrize(("title", "page"), [
    ("Efficient Fine-Tuning of Flows", "Efficient Fine-Tuning of Flows\nA. Author"),  # as is
    ("Efficient Fine-Tuning of Flows", "E\ufb03cient Fine-Tuning of Flows"),  # Unicode ligature (NFKC)
    ("Efficient Fine-Tuning of Flows", "E\x1ecient \x1cne-Tuning of Flows"),  # T1 ligature slots, no ToUnicode
    ("Efficient Fine-Tuning of Flows", "E\x0ecient \x0cne-Tuning of Flows"),  # OT1 ligature slots
    ("Efficient Fine-Tuning of Flows", "EFFICIENT FINE-TUNING\nOF FLOWS"),  # upper-case style, line break
    ("Learning Language Models", "Learning Lan-\nguage Mod- els"),  # hyphenated at line ends, extra spaces
    ("Ｗide Ｃharacters", "Wide Characters"),  # compatibility forms
    (r"Schr\"odinger Operators and G\'{e}rard's \emph{Bound}", "Schro\u0308dinger Operators and Ge´rard’s Bound"),
    (r"An $\mathcal{O}(n \log n)$ Bound for $k$-Means", "An O(n log n) Bound for k-Means"),  # TeX math
    (r"An $\mathcal{O}(n \log n)$ Bound for $k$-Means", "An \x0f(n log n) Bound for k-Means"),  # math glyph unknown
    (r"Typesetting with \LaTeX{} at Scale", "Typesetting with LATEX at Scale"),  # an unknown command: a gap
    ("Kelips: Building an Efficient DHT", "Kelips\x03: Building an E\x0ecient DHT"),  # footnote mark, own encoding
    (r"S{\o}ren and {\L}ukasiewicz in {\AE}r{\o}", "Søren and \x8aukasiewicz in Ærø"),  # T1's upper half: Ł is 0x8A
])
def test_a_title_is_found_however_the_pdf_sets_it(title, page):
    assert titles.shows(title, page)


@pytest.mark.parametrize(("title", "page"), [
    ("Efficient Fine-Tuning of Flows", "Efficient Fine-Tuning of Rivers"),
    ("Attention Is All You Need", "Efficient Large-Scale Language Model Training on GPU Clusters"),
    (r"An $\mathcal{O}(n \log n)$ Bound for $k$-Means", "An O(n log n) Bound for Clustering"),
])
def test_another_title_is_not_found(title, page):
    assert not titles.shows(title, page)


def test_what_counts_as_another_title():
    assert titles.unrelated(SEED_TITLE, "Attention Is All You Need")
    assert not titles.unrelated(SEED_TITLE, "Efficient Large-Scale Language Model Training on GPU Clusters")
    for stray in ("doi:10.1016/j.tcs.2003.05.002", "arXiv:quant-ph/9508027v2  25 Jan 1996", "paper.dvi",
                  "Microsoft Word - draft.docx", "untitled"):
        assert not titles.is_title(stray), stray
    assert titles.is_title("Attention Is All You Need")


# -- the PDF is the paper -------------------------------------------------------------------
@pytest.mark.slow
def test_pith_sty_pdfs_verify_only_as_the_records_paper(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    real = paper(tmp_path / "real", SEED_TITLE)
    two_column = paper(tmp_path / "ieee", SEED_TITLE, cls="IEEEtran", options="conference")
    for pdf in (real, two_column):
        p = online(fake, tmp_path, str(pdf), "--online", "--json")
        report = json.loads(p.stdout)
        assert p.returncode == 0 and report["verified"], p.stdout + p.stderr
        assert report["details"]["paper"].startswith("page 1 shows the record's title \"Efficient Large-Scale")
    # another paper with the same number: pith.sty recorded the title it typeset (Info /PithTitle)
    other = paper(tmp_path / "other", "Attention Is All You Need")
    p = online(fake, tmp_path, str(other), "--online")
    said = 'pith.sty typeset the title "Attention Is All You Need", the record\'s is "Efficient Large-Scale'
    assert p.returncode == 1 and said in p.stdout and "[FAIL] paper" in p.stdout, p.stdout
    # ... and with hyperref's pdfusetitle (Info /Title) as well: invalid, by the title pith.sty typeset
    named = paper(tmp_path / "named", "Attention Is All You Need", hyperref="\\usepackage[pdfusetitle]{hyperref}\n")
    p = online(fake, tmp_path, str(named), "--online")
    said = 'the PDF is of another paper: pith.sty typeset the title "Attention Is All You Need"'
    assert p.returncode == 1 and said in p.stdout, p.stdout
    # the same PDF against a record file: the same verdicts, no network
    p = pithtex_cli("verify", str(real), "--record", str(SEED_PATH))
    assert p.returncode == 0 and "[ok  ] paper" in p.stdout, p.stdout + p.stderr
    assert pithtex_cli("verify", str(named), "--record", str(SEED_PATH)).returncode == 1


@pytest.mark.slow
def test_a_title_with_math_accents_and_ligatures_verifies(fake, tmp_path):
    key = TestKey("lab-key")
    tex = r"Schr\"odinger Flows: an $\mathcal{O}(n^{2})$ Bound for Efficient Fine Structure"
    doc = signed(key, tex)
    from pithtex.number import PithNumber

    number = PithNumber.parse(doc["pith_number"])
    fake.record(number.body, Reply.json(doc))
    pdf = paper(tmp_path / "math", tex, body=number.body)
    p = online(fake, tmp_path, str(pdf), "--online", "--keys", str(key.key_file(tmp_path)))
    assert p.returncode == 0 and "[ok  ] paper      page 1 shows the record's title" in p.stdout, p.stdout
    assert p.stdout.splitlines()[0].endswith(f"verified, signed by lab-key, {ADDED}  ({pdf} via "
                                             f"{fake.base}/pith/{number.body}.json)")


@pytest.mark.slow
def test_fixtures_stamped_with_the_number_are_never_verified(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    for pdf in sorted(fixture_pdf("001").parent.glob("*.pdf")):
        out = tmp_path / pdf.name
        if pithtex_cli("stamp", str(pdf), "--number", BODY, "-o", str(out), "--force").returncode != 0:
            continue  # encrypted with a user password: stamp refuses it
        p = online(fake, tmp_path, str(out), "--online", "--json")
        report = json.loads(p.stdout)
        assert p.returncode == 3 and report["checks"]["paper"] == "unknown", (pdf.name, report["details"])
        assert "cannot tell that this PDF is the record's paper" in report["details"]["paper"]


def test_a_record_without_an_authenticated_title_leaves_the_pdf_unchecked(fake, tmp_path):
    doc = seed_doc()
    doc["paper"]["title"] = "Attention Is All You Need"  # unsigned, and not the title that was hashed
    fake.record(BODY, Reply.json(doc))
    pdf = make_pdf(tmp_path / "p.pdf", title="Attention Is All You Need")
    assert pithtex_cli("stamp", str(pdf), "--number", BODY, "--in-place").returncode == 0
    p = online(fake, tmp_path, str(pdf), "--online")
    assert p.returncode == 3 and "does not hash to title_canon_sha256" in p.stdout, p.stdout


def test_stamp_record_refuses_another_papers_pdf(tmp_path):
    pdf = make_pdf(tmp_path / "other.pdf", title="Attention Is All You Need")
    out = tmp_path / "out.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(pdf), "--record", str(SEED_PATH), "-o", str(out)), 1)
    assert "not stamped with" in err and "(use --force to stamp it anyway)" in err and not out.exists()
    p = pithtex_cli("stamp", str(pdf), "--record", str(SEED_PATH), "-o", str(out), "--force")
    assert p.returncode == 0 and "stamped anyway (--force)" in p.stderr and out.exists()
    # Info /Title alone is anyone's to write: not the paper (issue 24)
    named = make_pdf(tmp_path / "named.pdf", title=SEED_TITLE)
    named_out = tmp_path / "named-out.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(named), "--record", str(SEED_PATH), "-o", str(named_out)), 1)
    assert "metadata alone does not show which paper a PDF is" in err and not named_out.exists()
    shown = page_pdf(tmp_path / "shown.pdf", wrapped(SEED_TITLE, 20, 720) + body_text(), info_title=SEED_TITLE)
    p = pithtex_cli("stamp", str(shown), "--record", str(SEED_PATH), "-o", str(tmp_path / "ok.pdf"))
    assert p.returncode == 0 and not p.stderr, p.stderr


# -- registry key ids are reserved ------------------------------------------------------------
def _clash_keys(tmp_path: Path, key: TestKey) -> Path:
    path = tmp_path / "evil-keys.json"
    path.write_text(json.dumps({"keys": [{"key_id": PINNED_ID, "algorithm": "ed25519",
                                          "public_key_hex": key.raw_public.hex(),
                                          "fingerprint": fingerprint(key.raw_public)}]}))
    return path


def test_a_keys_file_cannot_take_a_registry_key_id(tmp_path):
    attacker = TestKey(PINNED_ID)
    keys = _clash_keys(tmp_path, attacker)
    forged = signed(attacker, "Attention Is All You Need")
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    p = pithtex_cli("verify", str(tmp_path / "forged.json"), "--keys", str(keys))
    assert p.returncode == 1 and "[FAIL] signature  the signature does not verify under pith-v1-2026-05" in p.stdout
    warning = f"pithtex: warning: {keys}: key '{PINNED_ID}' takes the id of a pinned Pith registry key; refused"
    assert p.stderr.startswith(warning) and len(p.stderr.splitlines()) == 1, p.stderr
    genuine = pithtex_cli("verify", str(SEED_PATH), "--keys", str(keys), "--json")
    report = json.loads(genuine.stdout)
    assert genuine.returncode == 0 and report["registry_signed"] is True and report["verdict"] == "verified"
    assert report["signer"] == f"signed by {PINNED_ID}, a pinned Pith registry key"


def test_an_added_key_is_never_worded_as_the_registry(tmp_path):
    key = TestKey("mirror-1")
    doc = signed(key, "A Mirrored Paper")
    (tmp_path / "r.json").write_text(json.dumps(doc))
    keyfile = str(key.key_file(tmp_path))
    p = pithtex_cli("verify", str(tmp_path / "r.json"), "--keys", keyfile)
    assert p.returncode == 0 and f"verified, signed by mirror-1, {ADDED}  (" in p.stdout.splitlines()[0]
    assert f"[ok  ] key        mirror-1 is {ADDED} (fingerprint" in p.stdout
    report = json.loads(pithtex_cli("verify", str(tmp_path / "r.json"), "--keys", keyfile, "--json").stdout)
    assert report["verified"] and report["registry_signed"] is False
    assert report["verdict"] == f"verified, signed by mirror-1, {ADDED}"
    body = doc["pith_number"].rsplit(":", 1)[1]
    svg = pithtex_cli("badge", body, "--record", str(tmp_path / "r.json"), "--keys", keyfile)
    assert svg.returncode == 0 and f"signed by mirror-1, {ADDED}</title>" in svg.stdout
    out = tmp_path / "b.png"
    assert pithtex_cli("badge", body, "--record", str(tmp_path / "r.json"), "--keys", keyfile, "--format", "png",
                       "-o", str(out)).returncode == 0
    from PIL import Image

    with Image.open(out) as image:
        assert image.text["Title"].endswith(f"signed by mirror-1, {ADDED}")


# -- the year -----------------------------------------------------------------------------------
def test_a_long_form_with_another_year_is_invalid(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    p = online(fake, tmp_path, f"pith:1999:{BODY}", "--online")
    assert p.returncode == 1 and f"pith:1999:{BODY} names year 1999" in p.stdout and "in 2021" in p.stdout
    assert online(fake, tmp_path, f"pith:2021:{BODY}", "--online").returncode == 0
    # a PDF whose XMP pith:long says 1999
    pdf = make_pdf(tmp_path / "p.pdf", title=SEED_TITLE, shows_title=True)
    assert pithtex_cli("stamp", str(pdf), "--number", f"pith:1999:{BODY}", "--in-place").returncode == 0
    p = online(fake, tmp_path, str(pdf), "--online")
    assert p.returncode == 1 and "names year 1999" in p.stdout and "submitted_at is in 2021" in p.stdout, p.stdout
    # stamp checks a long form against the record it is given
    err = assert_clean_error(pithtex_cli("stamp", str(pdf), "--number", f"pith:1999:{BODY}", "--record",
                                         str(SEED_PATH), "-o", str(tmp_path / "o.pdf")), 1)
    assert "names year 1999" in err and "submitted_at is in 2021" in err


# -- site owners --------------------------------------------------------------------------------
def test_save_writes_only_a_record_that_verified(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    saved = tmp_path / "site" / f"{BODY}.json"
    saved.parent.mkdir()
    p = online(fake, tmp_path, BODY, "--online", "--save", str(saved))
    assert p.returncode == 0 and json.loads(saved.read_text())["canonical_record"] == seed_doc()["canonical_record"]
    again = pithtex_cli("verify", str(saved))
    assert again.returncode == 0, again.stdout
    tampered = seed_doc()
    tampered["receipt"]["signature_b64"] = base64.b64encode(bytes(64)).decode()
    other = "AAAAAAAAAAAAAAAAAAAAAAAAAA"
    fake.record(other, Reply.json(tampered))
    bad = tmp_path / "bad.json"
    p = online(fake, tmp_path, other, "--online", "--save", str(bad))
    assert p.returncode == 1 and not bad.exists() and f"{bad} not written" in p.stderr


def test_embed_fallback_link_follows_base_url_and_keys_are_refused(tmp_path):
    p = pithtex_cli("badge", BODY, "--format", "embed", "--base-url", "https://mirror.example.org")
    assert p.returncode == 0 and f'<a href="https://mirror.example.org/pith/{BODY}">' in p.stdout
    key = TestKey("page-key")
    err = assert_clean_error(pithtex_cli("badge", BODY, "--format", "embed", "--keys", str(key.key_file(tmp_path)),
                                         "-o", str(tmp_path / "b.html")))
    assert "--keys cannot go into an embed" in err and not (tmp_path / "b.html").exists()


@pytest.mark.slow
def test_examples_say_which_paper_they_are(tmp_path):
    """The example papers carry the seed's number under their own title: invalid, naming both."""
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed")
    from ..conftest import example_paper

    folder = example_paper("article", tmp_path / "article")
    for _ in range(2):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "paper.tex"], cwd=folder, capture_output=True,
                       timeout=120)
    p = pithtex_cli("verify", str(folder / "paper.pdf"), "--record", str(SEED_PATH))
    said = 'pith.sty typeset the title "Papers that Carry their Own Identifier", the record\'s is "Efficient'
    assert p.returncode == 1 and said in p.stdout, p.stdout
    assert title_sha256(SEED_TITLE) == seed_doc()["canonical_record"]["metadata"]["title_canon_sha256"]



# -- pith.sty records the title it typeset: Info /PithTitle on every route --------------------
TITLED = (r"\documentclass{article}" "\n" r"\usepackage[T1]{fontenc}" "\n{preamble}"
          r"\usepackage{pith}\pithnumber{" + BODY + "}\n{title}\\author{A. Author}\n\\begin{document}\n"
          "{body}\\maketitle\nSome text of the paper.\n\\end{document}\n")
ROUTED = [("pdflatex", ""), ("dvips", ""), ("dvipdfmx", ""), ("xelatex", ""), ("lualatex", ""),
          ("pdflatex", "\\usepackage{hyperref}\n"), ("dvips", "\\usepackage{hyperref}\n"),
          ("lualatex", "\\usepackage{hyperxmp}\n"),
          ("pdflatex", "\\DocumentMetadata{}\n"), ("lualatex", "\\DocumentMetadata{}\n")]


def _titled(folder: Path, route: str, preamble: str, title: str, late: bool = False) -> Path:
    from ..texrun import compile_tex, write_doc

    text = TITLED.replace("{preamble}", "" if preamble.startswith("\\DocumentMetadata") else preamble)
    text = (preamble if preamble.startswith("\\DocumentMetadata") else "") + text
    given = f"\\title{{{title}}}"
    text = text.replace("{title}", "" if late else given).replace("{body}", given + "\n" if late else "")
    write_doc(folder, text)
    run = compile_tex(folder, route)
    assert run.pdf is not None and "! " not in run.log, run.log[-2000:]
    return run.pdf


def _info_title(pdf: Path) -> str | None:
    import pikepdf

    with pikepdf.open(pdf) as doc:
        value = doc.trailer.get("/Info", {}).get("/PithTitle")
        return None if value is None else str(value)


@pytest.mark.slow
@pytest.mark.parametrize(("route", "preamble"), ROUTED,
                         ids=[f"{r}{'-' + p.strip().split('{')[-1][:-1] if p else ''}" for r, p in ROUTED])
def test_another_papers_pith_sty_pdf_is_invalid_on_every_route(tmp_path, route, preamble):
    other = _titled(tmp_path / "other", route, preamble, "Attention Is {\\'E}t\\'e All You Need\\thanks{Funded.}")
    assert _info_title(other) == "Attention Is Été All You Need"
    p = pithtex_cli("verify", str(other), "--record", str(SEED_PATH))
    said = 'pith.sty typeset the title "Attention Is Été All You Need", the record\'s is "Efficient Large-Scale'
    assert p.returncode == 1 and said in p.stdout, p.stdout
    shown = pithtex_cli("inspect", str(other))
    assert "Info /PithTitle   Attention Is Été All You Need" in shown.stdout, shown.stdout
    genuine = _titled(tmp_path / "genuine", route, preamble, SEED_TITLE)
    assert _info_title(genuine) == SEED_TITLE
    p = pithtex_cli("verify", str(genuine), "--record", str(SEED_PATH))
    assert p.returncode == 0 and "[ok  ] paper" in p.stdout, p.stdout


@pytest.mark.slow
def test_title_recorded_when_given_late_never_when_withheld_or_missing(tmp_path):
    late = _titled(tmp_path / "late", "pdflatex", "", "Attention Is All You Need", late=True)
    assert _info_title(late) == "Attention Is All You Need"
    late_dvi = _titled(tmp_path / "late-dvi", "dvipdfmx", "", "Attention Is All You Need", late=True)
    assert _info_title(late_dvi) == "Attention Is All You Need"
    hidden = _titled(tmp_path / "hidden", "pdflatex", "\\PassOptionsToPackage{anonymous}{pith}\n",
                     "Attention Is All You Need")
    assert _info_title(hidden) is None
    from ..texrun import compile_tex, write_doc

    write_doc(tmp_path / "none", "\\documentclass{article}\n\\usepackage{pith}\\pithnumber{" + BODY + "}\n"
              "\\begin{document}\nNo title at all.\n\\end{document}\n")
    run = compile_tex(tmp_path / "none", "pdflatex")
    assert run.pdf is not None and "! " not in run.log and _info_title(run.pdf) is None, run.log[-1500:]

def test_the_decision_table_of_check_paper():
    """check_paper is pure: what the PDF shows in, a verdict out (pdf.shown.Shown by hand:
    `largest` is page 1's title, what pdf/page.py's title_lines picked)."""
    from pithtex.pdf.shown import Shown
    from pithtex.verify import check_paper

    doc, other = seed_doc(), "Attention Is All You Need"
    cases = [
        (Shown(page1=f"{SEED_TITLE}\nA. Author", largest=SEED_TITLE), "pass", "page 1 shows the record's title"),
        # metadata alone never shows which paper a PDF is; nor the title in page 1's smaller text
        (Shown(page1="", info_title=SEED_TITLE), "unknown", "metadata alone does not show"),
        (Shown(page1=f"{other}\nWe extend {SEED_TITLE}.", largest=other), "unknown", "only in its smaller text"),
        # metadata naming another paper whose title page 1 sets: invalid, whatever else page 1 shows
        (Shown(page1=f"{other} {SEED_TITLE}", largest=f"{other}\n{SEED_TITLE}", info_title=other), "fail",
         "its Info /Title"),
        (Shown(page1=f"{other}\nA. Author", largest=other, info_title=other), "fail", "its Info /Title"),
        (Shown(page1=f"{other}\nA. Author", largest=other, xmp_title=other), "fail", "its XMP dc:title"),
        (Shown(page1=f"{other}\nA. Author", pith_title=other), "fail", "pith.sty typeset the title"),
        # a stray Info /Title that page 1 does not set as its title: nothing shows another paper
        (Shown(page1="Some Other Words\nA. Author", largest="Some Other Words", info_title=other), "unknown",
         'Info /Title reads "Attention Is All You Need"'),
        (Shown(page1="arXiv:quant-ph/9508027v2 25 Jan 1996", largest="arXiv:quant-ph/9508027v2 25 Jan 1996",
               info_title="arXiv:quant-ph/9508027v2 25 Jan 1996"), "unknown", "cannot tell"),
        (Shown(page1=None, problem="pypdf cannot open the encrypted file"), "unknown", "pypdf cannot open"),
        (Shown(page1=""), "unknown", "page 1 shows no text"),
        # pith.sty's typeset title wins over page 1's text: a title page that merely cites the record's title
        (Shown(page1=f"{other}\nWe extend {SEED_TITLE}.", pith_title=other), "fail", "pith.sty typeset"),
    ]
    for shown, status, said in cases:
        check = check_paper(doc, shown)
        assert check.status == status and said in check.detail, (shown, check)
    # --title stands in for a missing paper.title, when it hashes
    bare = {k: v for k, v in doc.items() if k != "paper"}
    titled = Shown(page1=SEED_TITLE, largest=SEED_TITLE)
    assert check_paper(bare, titled).status == "unknown"
    assert check_paper(bare, titled, title=SEED_TITLE).status == "pass"
    assert "does not hash" in check_paper(bare, titled, title=other).detail
