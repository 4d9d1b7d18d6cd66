"""`pithtex serve`: verified badges for pages that run no scripts (READMEs, model cards), an
ASGI application on Starlette (`pip install pithtex[serve]`), configured from PITH_SERVE_*
variables and PITH_BASE_URL (see docs/serve.md), so `uvicorn pithtex.serve:app` works as is.

The room above client.py, beside cli/: it imports the library, nothing imports it.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """`app` is made on first use, from the environment then: importing this package (the
    command line does, to say what is missing) starts nothing and needs no Starlette."""
    if name != "app":
        raise AttributeError(name)
    from .app import create_app
    from .config import from_environment

    made = create_app(from_environment())
    globals()["app"] = made
    return made
