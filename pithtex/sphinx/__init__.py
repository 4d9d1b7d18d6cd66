"""Sphinx extension: verified Pith badges made at build time. In conf.py::

    extensions = ["pithtex.sphinx"]
    pith_keys = "keys.json"        # optional: a mirror's keys (named "page key" on the page)
    pith_base_url = None           # optional: the resolver (default $PITH_BASE_URL or pith.science)

and in a page::

    .. pith-list:: papers.bib      (or a plain list; relative to the page's source folder)

    Our paper :pith:`2104.04473` in a sentence.

Each paper is resolved and verified as `pithtex badge --list` does (pithtex.web.publist_check);
a paper that does not verify is listed as plain text, never drawn as a badge that could turn
green. The verified records, static badges and one pith-badge.js go to the output's
`_static/pith/`; every URL on a page is relative to that page, so a page at any depth finds
them. A failed paper fails the build with a warning (`-W`) or is shown as text (default).
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives

from ..web import publist

STATIC = "_static/pith"
PLACEHOLDER = "pith-static-folder:/"  # replaced, per page, by the page's relative URL of STATIC


class pith_html(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils names nodes in lower case
    """Raw HTML whose URLs are relative to STATIC until the page that holds it is written."""


def _check(env: Any, papers: list[publist.Wanted]) -> tuple[list[publist.Checked], str | None]:
    """Each paper checked, and the keys the page's elements are given (pith_keys, or none)."""
    from ..client import Client, keyring
    from ..web import publist_check

    config = env.config
    keys = keyring(Path(env.srcdir) / config.pith_keys) if config.pith_keys else keyring()
    checked = publist_check.check_all(papers, Client(keys, base_url=config.pith_base_url))
    keys_json = publist.page_keys(keys)
    files = publist.list_files(checked, publist.Place(PLACEHOLDER), keys_json)
    store = env.__dict__.setdefault("pith_files", {})
    store.setdefault(env.docname, {}).update({k: v for k, v in files.items()
                                               if k.startswith((publist.RECORDS, publist.BADGES))})
    for paper in checked:
        if not paper.verified:
            from sphinx.util import logging

            logging.getLogger(__name__).warning("pith: %s has no badge: %s", paper.wanted.label, paper.reason,
                                                location=env.docname)
    return checked, keys_json


def _without_script(fragment: str) -> str:
    """The list fragment without its script tag: the extension adds pith-badge.js once, to every page."""
    return fragment.split("\n", 1)[1]


class PithList(Directive):  # type: ignore[misc]
    """`.. pith-list:: FILE`: one item per paper of FILE (a .bib or a plain list)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        from ..errors import PithError

        env = self.state.document.settings.env
        relative, path = env.relfn2path(directives.path(self.arguments[0]))
        env.note_dependency(relative)
        from ..web.publist_check import load_list

        try:
            papers, _ = load_list(Path(path))
            checked, keys_json = _check(env, papers)
        except PithError as exc:  # no such file, not UTF-8, a line that names no paper, a bad pith_keys file
            return [self.state.document.reporter.error(f"pith-list: {exc}", line=self.lineno)]
        files = publist.list_files(checked, publist.Place(PLACEHOLDER), keys_json)
        return [pith_html(html=_without_script(files[f"{publist.FRAGMENT}.html"]))]


def pith_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
              content: Any = None) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """:pith:`ID`: one paper's badge (an arXiv id or a Pith Number), or its id as text if it did not verify."""
    from ..errors import PithError

    env = inliner.document.settings.env
    try:
        wanted = publist.paper_of(text.strip(), lineno)
    except PithError as exc:
        return [], [inliner.reporter.error(f"pith: {exc}", line=lineno)]
    try:
        checked, keys_json = _check(env, [wanted])
    except PithError as exc:  # a bad pith_keys file
        return [], [inliner.reporter.error(f"pith: {exc}", line=lineno)]
    paper = checked[0]
    if not paper.verified or paper.number is None:
        return [nodes.Text(publist.paper_label(paper))], []
    files = publist.list_files([paper], publist.Place(PLACEHOLDER), keys_json)
    return [pith_html(html=files[f"{publist.SNIPPETS}/{paper.number.body}.html"].strip())], []


def _visit(translator: Any, node: pith_html) -> None:
    here = posixpath.dirname(translator.builder.get_target_uri(translator.builder.current_docname))
    prefix = posixpath.relpath(STATIC, here or ".") + "/"
    translator.body.append(node["html"].replace(PLACEHOLDER, prefix))
    raise nodes.SkipNode


def _skip(translator: Any, node: pith_html) -> None:
    raise nodes.SkipNode


def _purge(app: Any, env: Any, docname: str) -> None:
    env.__dict__.get("pith_files", {}).pop(docname, None)


def _merge(app: Any, env: Any, docnames: Any, other: Any) -> None:
    env.__dict__.setdefault("pith_files", {}).update(other.__dict__.get("pith_files", {}))


def _write(app: Any, exception: Exception | None) -> None:
    """pith-badge.js and every page's records and badges into the output's _static/pith/."""
    from ..files import write_atomic
    from ..web import assets

    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / STATIC
    files: dict[str, str] = {}
    for per_page in app.env.__dict__.get("pith_files", {}).values():
        files.update(per_page)
    for sub in ("", publist.RECORDS, publist.BADGES):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    write_atomic(folder / assets.SCRIPT_NAME, assets.render_script(base_url=app.config.pith_base_url))
    for name, text in files.items():
        write_atomic(folder / name, text)


def setup(app: Any) -> dict[str, Any]:
    from .. import brand
    from ..web import assets

    app.add_config_value("pith_keys", None, "env")
    app.add_config_value("pith_base_url", None, "env")
    app.add_node(pith_html, html=(_visit, None), latex=(_skip, None), text=(_skip, None), man=(_skip, None),
                 texinfo=(_skip, None))
    app.add_directive("pith-list", PithList)
    app.add_role("pith", pith_role)
    app.add_js_file(f"pith/{assets.SCRIPT_NAME}", loading_method="defer")
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _write)
    return {"version": brand.VERSION, "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
