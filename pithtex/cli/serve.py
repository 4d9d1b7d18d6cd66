"""`pithtex serve`: the badge server (pithtex/serve/) on uvicorn, for one machine."""

from __future__ import annotations

import os

from ..value import TYPE_CHECKING
from . import add_command, help_text
from .options import add_resolver_options

if TYPE_CHECKING:
    from argparse import Namespace

    from . import Subparsers

EXTRA = "pithtex serve needs Starlette and uvicorn: pip install 'pithtex[serve]'"


def register(subparsers: Subparsers) -> None:
    p = add_command(subparsers, "serve", help="serve verified badges over HTTP (for READMEs and model cards)",
                    description="Serve badges that are checked at the resolver on each request (cached while they "
                    "verify): /badge/ID.svg, .png, .json (shields.io's endpoint) and /v/ID, the page they link to.",
                    epilog=help_text("serve"))
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="the port (default 8080)")
    add_resolver_options(p)  # --base-url (the only host the server contacts) and --keys (named as added)
    p.add_argument("--cache", metavar="DIR", help="records and verified answers on disk (default "
                   "$PITH_SERVE_CACHE or ~/.cache/pithtex/serve); a restarted server reads them back")
    p.add_argument("--connections", type=int, default=1000, help="connections at once; beyond, 503 (default 1000)")


def run(args: Namespace) -> int:
    import importlib.util

    from ..errors import PithError

    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec("uvicorn") is None:
        raise PithError(EXTRA)
    if not 0 < args.port < 65536 or args.connections < 1:
        raise PithError("--port is 1-65535 and --connections at least 1")
    from ..serve.config import FROM_FLAGS, from_environment

    for flag, name in FROM_FLAGS.items():
        if getattr(args, flag):
            os.environ[name] = getattr(args, flag)  # one reader of the settings: pithtex.serve.config
    from ..serve.listen import listen
    from . import warn_refused

    settings = from_environment()
    warn_refused(settings.keys)
    print(f"pithtex serve: http://{args.host}:{args.port}/badge/ID.svg, checked at "
          f"{settings.base_url or 'the default resolver'}", flush=True)
    listen(settings, args.host, args.port, args.connections)
    return 0
