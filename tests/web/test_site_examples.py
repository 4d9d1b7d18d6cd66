"""examples/sites/jekyll (al-folio's shape) and examples/sites/hugo (Hugo Academic's) take exactly
the route docs/web.md gives: the one command written in the site's config, run as written from
the site's folder, and the one line in the template. Each is run against the local resolver
(tests/resolverkit.py, serving the seed record: signed by the pinned registry key, so the
command needs no --keys), built with the real generator, and its pages opened in Chromium and
Firefox ESR, where every badge must say verified."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pithtex.web import assets as webassets
from pithtex.web import sites as site_kinds

from .. import browserkit
from ..conftest import BODY, ROOT, SEED_PATH
from ..resolverkit import Reply, serving
from .test_site_recipes import build, tool

EXAMPLES = ROOT / "examples" / "sites"
CONFIG = {"jekyll": "_config.yml", "hugo": "hugo.toml"}
LINE = {"jekyll": "{% include pith-badge.html key=entry.key %}", "hugo": '{{< pith "narayanan2021megatron" >}}'}
KEYS = ("narayanan2021megatron", "narayanan2021sc")  # two entries naming one eprint: a badge each
BADGE = (f'<pith-badge number="{BODY}" src="{{prefix}}records/{BODY}.json" arxiv="2104.04473">'
         f'<a href="https://pith.science/pith/{BODY}"><img src="{{prefix}}badges/pith-{BODY[:8]}.svg" '
         f'alt="pith: {BODY[:8]}" width="')
PREFIX = {"jekyll": "/jekyll/assets/pith/", "hugo": "/hugo/pith/"}


def command_in(kind: str) -> str:
    """The command the example's config tells its owner to run (the comment line `#   pithtex …`)."""
    lines = [line.lstrip("#").strip() for line in (EXAMPLES / kind / CONFIG[kind]).read_text().splitlines()
             if line.startswith("#")]
    found = [line for line in lines if line.startswith("pithtex badge --list ")]
    assert len(found) == 1, lines
    return found[0]


def run_as_written(command: str, site: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("pithtex", path=str(Path(sys.executable).parent))
    assert exe is not None
    argv = shlex.split(command)
    return subprocess.run([exe, *argv[1:]], cwd=site, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Iterator[dict[str, tuple[Path, Path, subprocess.CompletedProcess[str]]]]:
    work = tmp_path_factory.mktemp("examples")
    done = {}
    with serving() as fake:
        fake.record(BODY, Reply(body=SEED_PATH.read_bytes(), headers={"Content-Type": "application/json"}))
        fake.route("/api/pith-number/resolve", Reply.json({"pith_number": f"pith:2021:{BODY}"}))
        for kind in ("jekyll", "hugo"):
            site = shutil.copytree(EXAMPLES / kind, work / kind)
            proc = run_as_written(command_in(kind), site,
                                  {"PITH_BASE_URL": fake.base, "XDG_CACHE_HOME": str(work / "cache")})
            out = work / f"out-{kind}"
            if kind == "hugo":  # a page as Hugo Blox writes it: its arXiv id (with a version) in front matter
                blox = site / "content" / "publication" / "blox-style"
                blox.mkdir()
                (blox / "index.md").write_text("---\ntitle: Blox\nhugoblox:\n  ids:\n    arxiv: 2104.04473v2\n---\n\n"
                                               "{{< pith >}}\n\n{{< pith \"no-such-key\" >}}\n")
            if proc.returncode == 0:
                build([tool("jekyll"), "build", "--quiet", "-d", str(out)] if kind == "jekyll"
                      else [tool("hugo"), "--quiet", "-d", str(out)], site)
            done[kind] = (site, out, proc)
            if proc.returncode == 0:  # as GitHub's Pages workflow builds: under another path
                build([tool("jekyll"), "build", "--quiet", "--baseurl", "/repo", "-d", str(work / f"repo-{kind}")]
                      if kind == "jekyll" else [tool("hugo"), "--quiet", "--baseURL", "https://me.github.io/repo/",
                                                "-d", str(work / f"repo-{kind}")], site)
                done[f"{kind}-repo"] = (site, work / f"repo-{kind}", proc)
    yield done


def test_the_docs_give_the_example_s_command_and_line():
    docs = (ROOT / "docs" / "web.md").read_text()
    for kind in ("jekyll", "hugo"):
        assert command_in(kind) in docs, kind
        assert LINE[kind] in docs, kind
    assert LINE["jekyll"] in (EXAMPLES / "jekyll" / "_includes" / "bib.html").read_text()
    for page in (EXAMPLES / "hugo" / "content" / "publication").glob("*/index.md"):  # each page, its own key
        assert page.read_text().count("{{< pith ") == 1 and f'{{{{< pith "{page.parent.name}" >}}}}' in page.read_text()


@pytest.mark.parametrize("kind", ["jekyll", "hugo"])
def test_the_command_as_written_writes_the_index_and_the_shipped_template(examples, kind):
    site, _, proc = examples[kind]
    assert proc.returncode == 0, proc.stderr
    assert len(re.findall(r"^verified +arXiv:2104\.04473 ", proc.stdout, re.M)) == 2, proc.stdout
    assert re.search(r"^pithtex: skipped knuth1984 \(line \d+\): no eprint", proc.stderr, re.M), proc.stderr
    spec = site_kinds.SITES[kind]
    assert (site / spec.template).read_text() == site_kinds.shipped(spec)
    index = json.loads((site / spec.data).read_text())
    prefix = PREFIX[kind]
    assert index["script"] == f"{prefix}pith-badge.js"
    for key in KEYS:
        entry = index["papers"][key]
        assert entry["state"] == "verified" and entry["number"] == BODY and entry["record"] == f"records/{BODY}.json"
        assert entry["snippet"].startswith(BADGE.format(prefix=prefix)), entry["snippet"]
    assert "knuth1984" not in index["papers"]
    folder = site / ("assets/pith" if kind == "jekyll" else "static/pith")
    assert json.loads((folder / "records" / f"{BODY}.json").read_text()) == json.loads(SEED_PATH.read_text())
    assert (folder / "pith-badge.js").read_text() == webassets.render_script()


@pytest.mark.parametrize("kind", ["jekyll", "hugo"])
def test_the_built_pages_carry_each_entry_s_badge_and_the_script_once(examples, kind):
    _, out, proc = examples[kind]
    assert proc.returncode == 0, proc.stderr
    badge = BADGE.format(prefix=PREFIX[kind])
    pages = ([out / "publications" / "index.html"] if kind == "jekyll"
             else [out / "publication" / key / "index.html" for key in KEYS])
    found = sum(page.read_text().count(badge) for page in pages)
    assert found == 2, [page.read_text() for page in pages]
    for page in pages:
        assert page.read_text().count(f'<script src="{PREFIX[kind]}pith-badge.js" defer></script>') == 1, page
    if kind == "hugo":  # the once-a-page flag lives in .Page.Store (Hugo deprecates .Scratch): one script a page
        shortcode = site_kinds.shipped(site_kinds.SITES["hugo"])
        assert "$.Page.Store.Set" in shortcode and ".Scratch" not in shortcode
    if kind == "hugo":  # `{{< pith >}}` alone: the page's hugoblox.ids.arxiv, its version dropped
        blox = (out / "publication" / "blox-style" / "index.html").read_text()
        assert blox.count(badge) == 1 and blox.count("pith-badge.js") == 1, blox
    if kind == "jekyll":  # the entry that names no paper gets nothing, not an unverified badge
        text = pages[0].read_text()
        knuth = text.split('id="knuth1984"', 1)[1].split("</li>", 1)[0]
        assert "The TeXbook" in knuth and "pith" not in knuth.lower()


@pytest.mark.parametrize("kind", ["jekyll", "hugo"])
def test_a_build_under_another_path_puts_it_in_front_of_every_url(examples, kind):
    """`jekyll build --baseurl /repo` or `hugo --baseURL https://me.github.io/repo/` of a site
    whose config says /jekyll or /hugo/: the include or shortcode swaps the site's path in the
    badges' URLs, so they point where that build serves the files."""
    site, out, _ = examples[f"{kind}-repo"]
    spec = site_kinds.SITES[kind]
    index = json.loads((site / spec.data).read_text())
    assert index["base"] == PREFIX[kind] and index["site_path"] == f"/{kind}"
    moved = PREFIX[kind].replace(f"/{kind}/", "/repo/", 1)
    pages = ([out / "publications" / "index.html"] if kind == "jekyll"
             else [out / "publication" / key / "index.html" for key in KEYS])
    text = "".join(page.read_text() for page in pages)
    assert text.count(BADGE.format(prefix=moved)) == 2, text
    assert text.count(f'<script src="{moved}pith-badge.js" defer></script>') == len(pages)
    assert PREFIX[kind] not in text


STEPS = browserkit.FRAMED_STEPS + """\
window.pithScenario = async () => {
  const out = {};
  for (const name of JSON.parse(document.getElementById("pages").textContent)) {
    await until(() => doc(name).readyState === "complete" && badgesOf(name).length > 0
      && badgesOf(name).every((b) => b.dataset.state && b.dataset.state !== "checking"));
    out[name] = badgesOf(name).map((b) => b.dataset.state);
  }
  return out;
};
"""


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_the_example_pages_show_verified_badges_in_a_real_browser(examples, browser, tmp_path):
    pages = {"jekyll": "/jekyll/publications/", **{f"hugo-{key}": f"/hugo/publication/{key}/" for key in KEYS}}
    with browserkit.page_server() as server:
        for kind in ("jekyll", "hugo"):
            _, out, proc = examples[kind]
            assert proc.returncode == 0, proc.stderr
            server.folder(f"/{kind}", out)
        server.route("/steps.js", STEPS, "text/javascript")
        server.route("/pith-badge.js", webassets.render_script(), "text/javascript")
        frames = "".join(f'<iframe id="{n}" src="{p}" width="800" height="300"></iframe>' for n, p in pages.items())
        body = f'<script type="application/json" id="pages">{json.dumps(list(pages))}</script>{frames}'
        url, token = browserkit.page(server, "/examples.html", body, head='<script src="/steps.js"></script>')
        report = browserkit.run(browser, server, url, token, tmp_path, size=(900, 1000))
    assert report.get("failure") is None, report.get("failure")
    assert report["scenario"] == {"jekyll": ["verified", "verified"], "hugo-narayanan2021megatron": ["verified"],
                                  "hugo-narayanan2021sc": ["verified"]}, report["scenario"]
    assert report["errors"] == []
