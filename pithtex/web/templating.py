"""The Jinja2 environment of the web templates (`pithtex/templates/web/`).

Its own module so that `badge` (snippets) and `webassets` (the element, the web package)
both use it without importing each other.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("pithtex", "templates/web"),
        autoescape=lambda name: name is not None and (".html" in name or ".svg" in name),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def render_template(template: str, /, **values: Any) -> str:
    return _environment().get_template(template).render(**values)
