"""The web assets: the self-verifying `<pith-badge>` element, its snippets, and the npm package.

Rendered from the Jinja2 templates in `pithtex/templates/web/`. The script carries the
pinned registry keys and the badge drawing (`pithtex.web.shape`'s table) baked in at
render time, so it needs nothing but the browser (WebCrypto for SHA-256 and Ed25519) and
trusts no server. The npm package under `web/` (ES module, classic script, types) is
rendered by `make render` like latex/pith.sty, so `render --check` guards it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

from .. import brand
from ..files import write_atomic
from ..limits import MAX_RESPONSE_BYTES, NETWORK_SECONDS
from ..number import BASE32_ALPHABET, READING, REASONS, PithNumber
from ..record import MAX_DEPTH, MAX_DIGITS
from ..safetext import INVISIBLE_RANGES, QUOTES
from . import badge
from . import shape as badgeshape
from .metrics import text_width
from .templating import render_template

SCRIPT_NAME = "pith-badge.js"
MODULE_NAME = "pith-badge.mjs"
NPM_NAME = "pith-badge"
WEB_DIR = Path("web")
CDN_URL = "https://cdn.jsdelivr.net/npm/{name}@{version}/dist/{file}"
# What the element may show in its message segment besides base32 (while resolving, or bad input).
_MESSAGE_EXTRA = "arXiv?"
# A record signed by a key the page added (not the registry's) is verified in another colour,
# with these words and the verified mark: never the registry's green "verified".
PAGE_KEY = "pagekey"
PAGE_KEY_WORD = "page key"
# What a reader sees on a page that is not a secure context (web/README.md quotes it).
INSECURE = ("this page is not a secure context (served over https, or from localhost), so the browser offers "
            "no WebCrypto to check the record with")


def embed_status_width() -> int:
    """One width for every state (checking, verified, invalid, unchecked, page key): no layout shift."""
    words = [(w, w in badgeshape.MARKS) for w in (*brand.STATES, brand.CHECKING)] + [(PAGE_KEY_WORD, True)]
    return max(badgeshape.status_width(w, mark) for w, mark in words)


def embed_width(number: PithNumber) -> int:
    return badgeshape.label_width() + badgeshape.message_width(badge.message_text(number)) + embed_status_width()


def _shape(state: str) -> dict[str, Any]:
    if state == PAGE_KEY:
        return badgeshape.shape(PAGE_KEY, embed_status_width(), word=PAGE_KEY_WORD, mark=brand.VERIFIED)
    return badgeshape.shape(state, embed_status_width())


def _css() -> str:
    """The element's stylesheet (adopted as a constructable stylesheet: no inline styles)."""
    rules = [
        # all:initial: the page's inherited styles (letter-spacing, text-transform, ...) stop here
        ":host{all:initial;display:inline-block;position:relative;vertical-align:baseline}",
        ".badge{display:block;margin:0;padding:0;border:0;background:none;cursor:pointer;line-height:0;border-radius:3px}",
        ".badge:focus-visible{outline:2px solid #1f6feb;outline-offset:2px}",
        ".badge svg{display:block}",
        ".panel{position:absolute;top:calc(100% + 4px);left:0;z-index:10;box-sizing:border-box;width:max-content;"
        "min-width:min(22em,90vw);max-width:min(30em,90vw);padding:.5em .75em;border:1px solid;border-radius:6px;"
        "font:13px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;text-align:left;white-space:normal;"
        "overflow-wrap:anywhere;box-shadow:0 4px 12px rgba(0,0,0,.2)}",
        ".panel[hidden]{display:none}.panel.end{left:auto;right:0}",
        # in the top layer: placed by script against the viewport, not centred as popovers are
        ".panel[popover]{position:fixed;inset:auto;margin:0;top:0;left:0;overflow:visible}",
        ".panel p,.panel ul{margin:.25em 0}.panel ul{padding-left:1.1em}",
        ".state{display:inline-block;padding:0 .4em;border-radius:3px;font-weight:600}",
        ".note{font-size:12px}",
    ]
    for name, t in brand.THEMES.items():
        scope = f'.panel[data-theme="{name}"]'
        rules.append(f"{scope}{{background:{t.panel_bg.hex};color:{t.panel_fg.hex};"
                     f"border-color:{t.panel_border.hex}}}{scope} a{{color:{t.panel_link.hex}}}")
        for state, colour in ((brand.VERIFIED, t.verified_bg), (brand.INVALID, t.invalid_bg),
                              (brand.UNCHECKED, t.unchecked_bg), (brand.CHECKING, t.unchecked_bg)):
            rules.append(f"{scope} .state.{state}{{background:{colour.hex};color:{t.message_fg.hex}}}")
        rules.append(f"{scope} .state.{PAGE_KEY}{{background:{t.page_key_bg.hex};color:{t.message_fg.hex}}}")
    return "".join(rules)


def _script_values(keys: Any, base_url: str) -> dict[str, Any]:
    key_list = [
        {"key_id": k.key_id, "raw": base64.b64encode(k.raw).decode("ascii"), "fingerprint": k.fingerprint}
        for k in keys
    ]
    states = (brand.CHECKING, brand.VERIFIED, brand.INVALID, brand.UNCHECKED)
    return {
        "version": brand.VERSION,
        "keys": key_list,
        "base_url": base_url.rstrip("/"),
        # how a number's text reads (its alphabet is base32's, the hash's encoding too): the
        # rules and words `pithtex number` and pith.sty use
        "reading": {**READING._asdict(), "reasons": REASONS},
        "label": brand.LABEL,
        "height": badgeshape.HEIGHT,
        "pad": badgeshape.PAD,
        "chars": {c: text_width(c) for c in BASE32_ALPHABET + _MESSAGE_EXTRA},
        "charFallback": text_width("\x00"),
        "shapes": {state: badgeshape.to_json(_shape(state)) for state in (*states, PAGE_KEY)},
        "themes": {name: {"colours": {**badgeshape.theme_table(t), f"{PAGE_KEY}Bg": t.page_key_bg.hex}}
                   for name, t in brand.THEMES.items()},
        "defaultTheme": brand.DEFAULT_THEME,  # theme="auto" on a light scheme, or none declared
        "darkTheme": brand.DARK_THEME,  # theme="auto" on a dark scheme
        "limits": {"depth": MAX_DEPTH, "digits": MAX_DIGITS, "bytes": MAX_RESPONSE_BYTES, "seconds": NETWORK_SECONDS},
        "invisible": INVISIBLE_RANGES,
        "quotes": QUOTES,
        "insecure": INSECURE,
        # whose key signed, and a refused key id clash: pithtex.brand's words, as the command line says them
        "words": {"registry": brand.signed_by_registry("{key}"),
                  "added": brand.signed_by_added("{key}", brand.ADDED_BY_PAGE),
                  "clash": brand.key_id_clash("{source}", "{key}"),
                  "unusable": brand.key_id_unusable("{source}", "{key}")},
        "css": _css(),
    }


def render_script(keys: Any = None, base_url: str | None = None, module: bool = False) -> str:
    """pith-badge.js (or, with `module`, the ES module) with `keys` (default: the pinned
    registry keys) baked in."""
    from ..trust import pinned_keys

    values = _script_values(keys if keys is not None else pinned_keys(), base_url or brand.BASE_URL)
    return render_template(SCRIPT_NAME + ".j2", values=json.dumps(values, sort_keys=True, separators=(",", ":")),
                           version=brand.VERSION, module=module)


def fallback_svg(number: PithNumber, theme: str = brand.DEFAULT_THEME, uid: str | None = None) -> str:
    """The badge shown before (or without) the script: as wide as the element will draw it,
    and saying 'unchecked', which is true until the reader's browser has checked it. Its SVG
    ids end in `uid`, by default random: a page may hold two snippets of one number (one
    hidden, say), and a url(#id) that found the other's, hidden, gradient would not draw."""
    state = brand.UNCHECKED
    uid = uid or f"{number.body[:8]}u{secrets.token_hex(4)}"
    return badgeshape.to_svg(_shape(state), badge.message_text(number), brand.THEMES[theme], uid,
                             f"{brand.LABEL}: {badge.message_text(number)}, {state}",
                             f"{number.prefixed}: {state} (this page's script has not checked its record)")


def cdn_url(file: str = MODULE_NAME) -> str:
    return CDN_URL.format(name=NPM_NAME, version=brand.VERSION, file=file)


def integrity(text: str) -> str:
    """Subresource Integrity for a rendered file: a CDN serving other bytes is refused."""
    return "sha384-" + base64.b64encode(hashlib.sha384(text.encode("utf-8")).digest()).decode("ascii")


def embed_snippet(number: PithNumber, script_url: str = SCRIPT_NAME, src: str | None = None,
                  theme: str | None = None, cdn: bool = False, base_url: str | None = None,
                  link_base: str | None = None) -> str:
    """The HTML to paste: the script tag and a <pith-badge> whose light DOM is a plain linked badge.
    With `cdn`, the script is the npm package's ES module from a CDN, pinned by its hash (its
    resolver is the default one, so another `base_url` goes into the element's attribute). The
    fallback link (no script) goes to the number's page on `link_base`, else on `base_url`."""
    script = {"src": script_url, "module": False, "integrity": None}
    if cdn:
        script = {"src": cdn_url(), "module": True, "integrity": integrity(render_script(module=True))}
    return render_template(
        "embed.html.j2",
        number=number,
        url=number.url_at(link_base or base_url or brand.BASE_URL),
        script=script,
        src=src,
        base_url=base_url,
        theme=theme,
        fallback=fallback_svg(number, theme or brand.DEFAULT_THEME),
    )


def package_files() -> dict[Path, str]:
    """The npm package under web/ (relative paths), rendered: `render --check` guards it."""
    values = {"name": NPM_NAME, "version": brand.VERSION, "module": MODULE_NAME, "script": SCRIPT_NAME,
              "cdn_module": cdn_url(), "cdn_script": cdn_url(SCRIPT_NAME),
              "integrity_module": integrity(render_script(module=True)),
              "integrity_script": integrity(render_script()), "base_url": brand.BASE_URL, "insecure": INSECURE,
              "states": tuple(brand.STATES), "seconds": f"{NETWORK_SECONDS:g}", "themes": tuple(brand.THEMES)}
    package = {
        "name": NPM_NAME,
        "version": brand.VERSION,
        "description": "<pith-badge>: a Pith Number badge that verifies its record in the reader's browser",
        "license": "MIT",
        "type": "module",
        "module": f"dist/{MODULE_NAME}",
        "main": f"dist/{MODULE_NAME}",
        # what a CDN serves for the bare package URL: the classic script, for a plain <script src>
        "unpkg": f"dist/{SCRIPT_NAME}",
        "jsdelivr": f"dist/{SCRIPT_NAME}",
        "types": "dist/pith-badge.d.ts",
        "exports": {".": {"types": "./dist/pith-badge.d.ts", "import": f"./dist/{MODULE_NAME}",
                          "default": f"./dist/{MODULE_NAME}"},
                    "./classic": f"./dist/{SCRIPT_NAME}", "./package.json": "./package.json"},
        "files": ["dist/", "README.md"],
        "sideEffects": True,
        "keywords": ["pith", "arxiv", "badge", "web-component", "custom-element", "ed25519", "verification"],
        "homepage": brand.BASE_URL,
        # axe-core runs only in the browser tests (`make web-deps`), never in the package.
        "devDependencies": {"axe-core": AXE_CORE_VERSION},
    }
    return {
        WEB_DIR / "package.json": json.dumps(package, indent=2) + "\n",
        WEB_DIR / "dist" / MODULE_NAME: render_script(module=True),
        WEB_DIR / "dist" / SCRIPT_NAME: render_script(),
        WEB_DIR / "dist" / "pith-badge.d.ts": render_template("pith-badge.d.ts.j2", **values),
        WEB_DIR / "README.md": render_template("package-README.md.j2", **values),
    }


AXE_CORE_VERSION = "4.14.1"


def render_web_assets(dest: Path) -> list[Path]:
    """Write pith-badge.js, the ES module, an example embed page and sample badge SVGs into `dest`."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    number = PithNumber(brand.SAMPLE_BODY)
    files = {SCRIPT_NAME: render_script(), MODULE_NAME: render_script(module=True)}
    for theme in brand.THEMES:
        files[badge.image_name(number, theme)] = badge.svg(number, None, theme)
    files["pith-badge-example.html"] = render_template(
        "example.html.j2", number=number, embed=embed_snippet(number),
        html=badge.snippet("html", number), md=badge.snippet("md", number), rst=badge.snippet("rst", number),
    )
    written = []
    for name, text in files.items():
        written.append(write_atomic(dest / name, text))
    return written
