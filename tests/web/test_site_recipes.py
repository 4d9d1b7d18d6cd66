"""docs/web.md's site-generator recipes, built with the real generators and opened in Chromium and
Firefox ESR: MkDocs (Material, its dark toggle), Sphinx (`extensions = ["pithtex.sphinx"]`),
Hugo and Jekyll (examples/sites/: the command their config gives, the shipped shortcode and
include; a Hugo page where raw HTML is stripped) and a hand-written page under a strict
Content-Security-Policy. Each site's page is at depth 1 (/pubs/ and the like), with a 30-paper
list from one .bib (`pithtex badge --list`, or the Sphinx extension).

Every site is built once (module fixture) and served from one 127.0.0.1 server, each under
its own prefix; one page per browser holds them all in frames, so each browser starts once.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pithtex.number import PithNumber
from pithtex.web import assets as webassets

from .. import browserkit
from ..conftest import ROOT, pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply, closed_port_url, serving

PAPERS = 30
KEY = TestKey("lab-key-1")
BIN = ROOT / ".venv" / "bin"
RECIPES = ROOT / "examples" / "sites"
SITES = ["mkdocs", "sphinx", "hugo", "jekyll", "csp"]
STRICT_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
              "require-trusted-types-for 'script'; trusted-types 'none'")
INSTALL = {"hugo": "sudo apt-get install hugo (make test installs it: Makefile APT_PACKAGES)",
           "jekyll": "sudo apt-get install jekyll (make test installs it: Makefile APT_PACKAGES)",
           "mkdocs": ".venv/bin/pip install -e '.[dev]' (mkdocs-material is a dev dependency)",
           "sphinx-build": ".venv/bin/pip install -e '.[dev]' (sphinx is a dev dependency)"}


def tool(name: str) -> str:
    """A generator's executable; missing, the test fails saying how to install it (never skips)."""
    found = shutil.which(name, path=f"{BIN}:/usr/bin:/usr/local/bin")
    assert found, f"{name} is not installed: {INSTALL[name]}"
    return found


def build(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(cwd), "LANG": "C.UTF-8"})
    assert proc.returncode == 0, f"{cmd[0]} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"


def bib() -> str:
    return "".join(f"@article{{p{i}, title = {{Paper number {i}}}, eprint = {{2401.{i:05d}}}, "
                   "archivePrefix = {arXiv}}\n" for i in range(1, PAPERS + 1))


def serve_papers(fake: FakeResolver) -> None:
    for i in range(1, PAPERS + 1):
        arxiv, title = f"2401.{i:05d}", f"Paper number {i}"
        record = full_record(canonical(title=title, arxiv_id=arxiv), KEY)
        record["paper"] = {"title": title}
        for asked in (arxiv, f"{arxiv}v1"):
            fake.route(f"/api/pith-number/resolve?arxiv={asked}&json=true",
                       Reply.json({"pith_number": record["pith_number"]}))
        fake.record(PithNumber.parse(record["pith_number"]).body, Reply.json(record))


def publication_list(work: Path, out: Path, assets_url: str, fake: FakeResolver, *site: str) -> None:
    """`pithtex badge --list papers.bib -o OUT --assets-url URL --keys KEYS` (the docs' one command),
    with `site` (`--site jekyll --site-root DIR`) the generator's own files too."""
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = pithtex_cli("badge", "--list", str(work / "papers.bib"), "-o", str(out), "--assets-url", assets_url,
                       "--keys", str(work / "lab-key-1.json"), *site,
                       env={"XDG_CACHE_HOME": str(work / "cache"), "PITH_BASE_URL": fake.base})
    assert proc.returncode == 0, proc.stderr


def example_command(kind: str, site: Path, fake: FakeResolver, work: Path) -> None:
    """The command an example's config gives (tests/web/test_site_examples.py runs it as written),
    with the mirror's key its 30 papers are signed by."""
    from .test_site_examples import command_in, run_as_written

    proc = run_as_written(f"{command_in(kind)} --keys {work / 'lab-key-1.json'}", site,
                          {"XDG_CACHE_HOME": str(work / "cache"), "PITH_BASE_URL": fake.base})
    assert proc.returncode == 0, proc.stderr


def copy_recipe(name: str, dest: Path) -> Path:
    shutil.copytree(RECIPES / name, dest)
    return dest


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> Iterator[dict[str, Path]]:
    work = tmp_path_factory.mktemp("sites")
    (work / "papers.bib").write_text(bib())
    KEY.key_file(work)
    built: dict[str, Path] = {}
    with serving() as fake:
        serve_papers(fake)
        # MkDocs (Material): the list into docs/pith/, the page docs/pubs/index.md includes its Markdown
        src = copy_recipe("mkdocs", work / "mkdocs")
        publication_list(work, src / "docs" / "pith", "/mkdocs/pith/", fake)
        build([tool("mkdocs"), "build", "-d", str(work / "out-mkdocs")], src)
        built["mkdocs"] = work / "out-mkdocs"
        # Sphinx: the extension checks the .bib at build time
        src = copy_recipe("sphinx", work / "sphinx")
        shutil.copy(work / "papers.bib", src / "pubs" / "papers.bib")
        shutil.copy(work / "lab-key-1.json", src / "lab-key-1.json")
        (src / "conf.py").write_text((src / "conf.py").read_text() + f"pith_base_url = {fake.base!r}\n")
        build([tool("sphinx-build"), "-W", "-q", "-b", "html", ".", str(work / "out-sphinx")], src)
        built["sphinx"] = work / "out-sphinx"
        # Hugo (examples/sites/hugo, Hugo Academic's shape): its own command with the 30-paper .bib and the
        # mirror's key; a page citing all 30 with the shortcode, by arXiv id or BibTeX key; and (raw HTML
        # stripped, Hugo's default) the Markdown fragment pasted as content
        src = copy_recipe("hugo", work / "hugo")
        (src / "publications.bib").write_text(bib())
        example_command("hugo", src, fake, work)
        (src / "content" / "cites").mkdir(parents=True)
        (src / "content" / "cites" / "index.md").write_text("---\ntitle: Cites\n---\n\n" + "".join(
            f'{{{{< pith "{f"2401.{i:05d}" if i % 2 else f"p{i}"}" >}}}}\n\n' for i in range(1, PAPERS + 1)))
        stripped = (src / "static" / "pith" / "publications.md").read_text()
        (src / "content" / "stripped").mkdir(parents=True)
        (src / "content" / "stripped" / "index.md").write_text(f"---\ntitle: Stripped\n---\n\n{stripped}")
        build([tool("hugo"), "--quiet", "-d", str(work / "out-hugo")], src)
        built["hugo"] = work / "out-hugo"
        # Jekyll (examples/sites/jekyll, al-folio's shape): its own command; _includes/bib.html draws each
        # entry (al-folio's _layouts/bib.html) with its one include line
        src = copy_recipe("jekyll", work / "jekyll")
        (src / "_bibliography" / "papers.bib").write_text(bib())
        (src / "_data" / "papers.yml").write_text("".join(f"- key: p{i}\n  title: Paper number {i}\n"
                                                          for i in range(1, PAPERS + 1)))
        example_command("jekyll", src, fake, work)
        build([tool("jekyll"), "build", "--quiet", "-d", str(work / "out-jekyll")], src)
        built["jekyll"] = work / "out-jekyll"
        # strict CSP: a hand-written page, the HTML fragment pasted in
        out = work / "out-csp"
        publication_list(work, out / "pith", "/csp/pith/", fake)
        (out / "pubs").mkdir()
        fragment = (out / "pith" / "publications.html").read_text()
        (out / "pubs" / "index.html").write_text(
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Publications</title></head>'
            f"<body><h1>Publications</h1>{fragment}</body></html>")
        built["csp"] = out
    yield built


PAGES = {"mkdocs": "/mkdocs/pubs/", "sphinx": "/sphinx/pubs/index.html", "hugo": "/hugo/cites/",
         "jekyll": "/jekyll/publications/", "csp": "/csp/pubs/", "stripped": "/hugo/stripped/"}

# The outer page's steps: every framed site's badges settle; Material's toggle turns them dark.
STEPS = browserkit.FRAMED_STEPS + """\
const settled = (name) => doc(name).readyState === "complete" && badgesOf(name).length > 0
  && badgesOf(name).every((b) => b.dataset.state && b.dataset.state !== "checking");
window.pithScenario = async () => {
  const out = {};
  for (const name of JSON.parse(document.getElementById("sites").textContent)) {
    await until(() => settled(name));
    out[name] = { path: doc(name).location.pathname, states: badgesOf(name).map((b) => b.dataset.state),
                  themes: badgesOf(name).map((b) => b.dataset.theme) };
  }
  const slate = doc("mkdocs").querySelector('input[data-md-color-scheme="slate"]');
  // under the strict CSP: the element styled by a constructable stylesheet (style-src 'self' allows it)
  out.cspAdopted = badgesOf("csp").map((b) => b.shadowRoot.adoptedStyleSheets.length);
  out.toggle = !!slate;
  if (slate) slate.click();
  await until(() => badgesOf("mkdocs").every((b) => b.dataset.theme === "dark"), 10000);
  out.mkdocsDark = { scheme: doc("mkdocs").body.getAttribute("data-md-color-scheme"),
                     themes: badgesOf("mkdocs").map((b) => b.dataset.theme) };
  await until(() => doc("stripped").readyState === "complete");
  const images = Array.from(doc("stripped").querySelectorAll("main img, article img, body img"));
  await until(() => images.every((i) => i.complete));
  out.stripped = images.map((i) => ({ alt: i.alt, loaded: i.naturalWidth > 0, linked: !!i.closest("a[href]") }));
  return out;
};
"""


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_every_recipe_verifies_all_thirty_in_a_real_browser(sites, browser, tmp_path):
    with browserkit.page_server() as server:
        for name, folder in sites.items():
            strict = {"Content-Security-Policy": STRICT_CSP} if name == "csp" else None
            server.folder(f"/{name}", folder, headers=strict)
        server.route("/steps.js", STEPS, "text/javascript")
        names = list(PAGES)
        frames = "".join(f'<iframe id="{n}" src="{PAGES[n]}" width="800" height="300"></iframe>' for n in names)
        body = f'<script type="application/json" id="sites">{json.dumps(names)}</script>{frames}'
        server.route("/pith-badge.js", webassets.render_script(), "text/javascript")
        url, token = browserkit.page(server, "/recipes.html", body, head='<script src="/steps.js"></script>')
        report = browserkit.run(browser, server, url, token, tmp_path, size=(900, 900))
    assert report.get("failure") is None, report.get("failure")
    found = report["scenario"]
    for name in SITES:
        site = found[name]
        assert site["path"].count("/") >= 3, site["path"]  # /SITE/PAGE/...: a page at depth 1 of its site
        wanted = PAPERS + 1 if name == "sphinx" else PAPERS  # and the :pith: role's badge
        assert site["states"] == ["verified"] * wanted, (name, site["states"])
    assert found["toggle"] and found["mkdocsDark"] == {"scheme": "slate", "themes": ["dark"] * PAPERS}
    assert found["mkdocs"]["themes"] == ["light"] * PAPERS  # before the toggle: Material's light scheme
    assert found["csp"]["states"] == ["verified"] * PAPERS and report["errors"] == []
    assert found["cspAdopted"] == [1] * PAPERS
    # raw HTML stripped: linked static badges with their accessible name, loaded, never prose
    stripped = found["stripped"]
    assert len(stripped) == PAPERS and all(i["loaded"] and i["linked"] and re.fullmatch(r"pith: [A-Z2-7]{8}", i["alt"])
                                           for i in stripped), stripped
    assert found["stripped"] and found["stripped"] != []


def test_the_site_files_are_the_package_s_and_load_the_script_once(sites):
    from pithtex.web import sites as site_files

    for name, page, data in (("jekyll", "publications/index.html", "_data/pith.json"),
                             ("hugo", "cites/index.html", "data/pith.json")):
        built = (sites[name] / page).read_text()
        assert built.count("<pith-badge ") == PAPERS and built.count("pith-badge.js") == 1, name
        kind = site_files.SITES[name]
        assert kind.data == data and site_files.shipped(kind).strip()


def test_stripped_markdown_leaves_badges_not_prose(sites):
    """Hugo's default renderer drops raw HTML: what is left is the Markdown image links."""
    page = (sites["hugo"] / "stripped" / "index.html").read_text()
    main = page.split("<body", 1)[1]
    assert "<pith-badge" not in main and "raw HTML omitted" in main
    assert main.count('<img src="/hugo/pith/badges/') == PAPERS and main.count('alt="pith: ') == PAPERS
    text = re.sub(r"<[^>]+>", " ", main)
    assert "unchecked" not in text and "pithpith" not in text and "svg" not in html.unescape(text).lower()


def test_sphinx_names_a_missing_list_in_one_line(tmp_path):
    """A `.. pith-list::` of a file that is not there: the build says so (an error, fatal with -W), no traceback."""
    src = copy_recipe("sphinx", tmp_path / "src")
    KEY.key_file(src)
    # nothing is fetched from the internet: the :pith: role on the page asks a closed port
    (src / "conf.py").write_text((src / "conf.py").read_text() + f"pith_base_url = {closed_port_url()!r}\n")
    proc = subprocess.run([tool("sphinx-build"), "-W", "-q", "-b", "html", ".", str(tmp_path / "out")], cwd=src,
                          capture_output=True, text=True, timeout=300,
                          env={"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"})
    said = proc.stderr
    assert proc.returncode != 0 and "pith-list: " in said and "papers.bib: no such file" in said, said
    assert "Traceback" not in proc.stderr
