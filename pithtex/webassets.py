"""The web assets: the self-verifying `<pith-badge>` script, its snippet, and sample badges.

Rendered from the Jinja2 templates in `pithtex/templates/web/`. The script carries the
pinned registry keys and the badge layout baked in at render time, so it needs nothing
but the browser (WebCrypto for SHA-256 and Ed25519) and trusts no server.
"""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import badge, brand
from .files import write_atomic
from .metrics import text_width
from .number import PithNumber

SCRIPT_NAME = "pith-badge.js"
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
# A sample number for the rendered sample badges: the seed record's.
SAMPLE_BODY = "YBK5PTAKOSCXY2WMLIIB7DMYH6"


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("pithtex", "templates/web"),
        autoescape=lambda name: bool(name) and (".html" in name or ".svg" in name),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def render_template(name: str, **values: Any) -> str:
    return _environment().get_template(name).render(**values)


def embed_status_width() -> int:
    """One width for every status ('checking', 'verified', 'unverified'): no layout shift."""
    return max(
        badge.status_width(badge.VERIFIED_TEXT, True),
        badge.status_width(badge.UNVERIFIED_TEXT, False),
        badge.status_width(badge.CHECKING_TEXT, False),
    )


def embed_width(number: PithNumber) -> int:
    lay = badge.layout(number, False)
    return lay.label + lay.message + embed_status_width()


def _script_values(keys: Any, base_url: str) -> dict[str, Any]:
    key_list = [
        {"id": k.key_id, "raw": base64.b64encode(k.raw).decode("ascii"), "fingerprint": k.fingerprint}
        for k in keys
    ]
    themes = {
        name: {
            "labelBg": t.label_bg.hex, "labelFg": t.label_fg.hex, "messageBg": t.message_bg.hex,
            "messageFg": t.message_fg.hex, "verifiedBg": t.verified_bg.hex, "unverifiedBg": t.unverified_bg.hex,
            "logo": badge._logo_svg(t.label_fg.hex),
        }
        for name, t in brand.THEMES.items()
    }
    texts = (brand.LABEL, badge.VERIFIED_TEXT, badge.UNVERIFIED_TEXT, badge.CHECKING_TEXT)
    return {
        "keys": key_list,
        "base_url": base_url.rstrip("/"),
        "layout": {
            "height": badge.HEIGHT, "pad": badge.PAD, "logo": badge.LOGO_PX, "gap": badge.LOGO_GAP,
            "check": badge.CHECK_PX, "label": badge.label_width(), "status": embed_status_width(),
            "font": badge.FONT_FAMILY, "chars": {c: text_width(c) for c in BASE32},
            "texts": {t: text_width(t) for t in texts},
            "labelText": brand.LABEL,
        },
        "themes": themes,
        "version": brand.VERSION,
    }


def render_script(keys: Any = None, base_url: str | None = None) -> str:
    """pith-badge.js with `keys` (default: the pinned registry keys) baked in."""
    from .trust import pinned_keys

    values = _script_values(keys if keys is not None else pinned_keys(), base_url or brand.BASE_URL)
    return render_template(SCRIPT_NAME + ".j2", values=json.dumps(values, sort_keys=True, indent=1))


def embed_snippet(number: PithNumber, script_url: str = SCRIPT_NAME, src: str | None = None,
                  theme: str | None = None) -> str:
    """The HTML to paste: the script tag and a <pith-badge> whose light DOM is a plain linked badge."""
    return render_template(
        "embed.html.j2",
        number=number,
        url=number.url,
        script_url=script_url,
        src=src,
        theme=theme,
        width=embed_width(number),
        height=badge.HEIGHT,
        fallback=badge.svg(number, None, theme or "light"),
    )


def render_web_assets(dest: Path) -> list[Path]:
    """Write pith-badge.js, an example embed page and sample badge SVGs into `dest`."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    number = PithNumber(SAMPLE_BODY)
    files = {SCRIPT_NAME: render_script()}
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


