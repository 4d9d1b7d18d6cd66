"""The ASGI application: Starlette routes behind a guard that refuses, before any work, what
no badge request needs (methods, bodies, odd paths) and clients over their rate.

    GET /badge/{id}.svg|.png|.json   id: any form of a Pith Number, or arxiv/ARXIV_ID
    GET /v/{id}                      the page a badge links to
    GET /healthz, GET /metrics
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from .. import brand
from ..web.badge import BadgeState
from . import checking, ids
from .counters import Counters
from .gate import Busy, Checks, Rate
from .policy import Answer, Policy
from .render import Body, Drawings, page, shields, when

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.types import ASGIApp, Receive, Scope, Send

    from ..client import Client
    from .config import Settings

TYPES = {"svg": "image/svg+xml; charset=utf-8", "png": "image/png", "json": "application/json",
         "html": "text/html; charset=utf-8"}
# Image proxies (GitHub's camo) and CDNs revalidate every time (the ETag makes that a 304);
# when this server errs, a proxy may show its last copy for a day.
CACHE_CONTROL = "no-cache, stale-if-error=86400"
SECURITY = {"X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"}


class Server:
    """What every request shares: settings, the client and its verified answers, bounds, counts."""

    def __init__(self, settings: Settings, client: Client) -> None:
        self.settings, self.client = settings, client
        self.policy = Policy(settings, client)
        self.checks = Checks(settings.checks, settings.queue)
        self.rate = Rate(settings.rate, settings.burst)
        self.counters = Counters()
        self.drawings = Drawings()
        self.resolver = client.resolver.base

    async def answer(self, target: ids.Target) -> Answer:
        recent = self.policy.recent(target)
        if recent is not None:
            self.counters.hit("hit")
            return recent
        self.counters.hit("miss")
        started = time.monotonic()
        try:
            answer = await self.checks.run(target.key, lambda: self.policy.answer(target),
                                           self.settings.timeout * 2 + 5)
        except TimeoutError:
            answer = Answer(target.number, _unchecked("the check did not finish in time"), None, None)
        self.counters.resolver(time.monotonic() - started)
        self.counters.verdict("stale" if answer.stale_age is not None else answer.state.word or brand.UNCHECKED)
        return answer

    # -- routes ----------------------------------------------------------------------------------
    async def badge(self, request: Request) -> Response:
        name, fmt = ids.split_format(request.path_params["rest"])
        target, theme = ids.target(name), _theme(request)
        answer = await self.answer(target)
        if fmt == "json":
            made = shields(answer.number, answer.state, theme)
        elif answer.number is None:  # an arXiv id the resolver named no number for: nothing to draw
            return PlainTextResponse(f"no Pith Number for this arXiv id now: {answer.state.reason}\n", 404,
                                     headers={"Cache-Control": "no-store", "X-Pith-State": brand.UNCHECKED, **SECURITY})
        else:
            made = self.drawings.badge(answer.number, answer.state, theme, fmt)
        return _send(request, made, fmt, answer)

    async def verification(self, request: Request) -> Response:
        target = ids.target(request.path_params["rest"])
        answer = await self.answer(target)
        path = f"/badge/{_path_name(target)}.svg"
        return _send(request, page(target, answer, self.resolver, path), "html", answer)

    async def healthz(self, request: Request) -> Response:
        return PlainTextResponse("ok\n", headers={"Cache-Control": "no-store"})

    async def metrics(self, request: Request) -> Response:
        gauges = {"pith_checks_pending": float(self.checks.pending),
                  "pith_verified_remembered": float(len(self.policy.ledger.memory))}
        return PlainTextResponse(self.counters.text(gauges), headers={"Cache-Control": "no-store"},
                                 media_type="text/plain; version=0.0.4")


def _path_name(target: ids.Target) -> str:
    """The id as a badge URL writes it (parsed values only, never the request's own text)."""
    if target.arxiv is not None:
        return f"arxiv/{target.arxiv}"
    assert target.number is not None
    return target.number.body


def _theme(request: Request) -> str:
    if not request.scope.get("query_string"):
        return brand.DEFAULT_THEME  # most requests: no query to parse
    theme = request.query_params.get("theme", brand.DEFAULT_THEME)
    if theme not in brand.THEMES:
        raise ids.BadRequest(400, f"theme is one of {', '.join(brand.THEMES)}")
    return theme


def _unchecked(reason: str) -> BadgeState:
    return BadgeState(brand.UNCHECKED, reason)


def _send(request: Request, made: Body, fmt: str, answer: Answer) -> Response:
    headers = {"ETag": made.etag, "Cache-Control": CACHE_CONTROL, **SECURITY,
               "X-Pith-State": answer.state.word or brand.UNCHECKED, "Vary": "Accept-Encoding"}
    if fmt == "json":
        headers["Access-Control-Allow-Origin"] = "*"  # shields.io's endpoint badge reads it from browsers too
    if answer.verified_at is not None:
        headers["X-Pith-Verified-At"] = when(answer.verified_at)
    if answer.stale_age is not None:
        headers["X-Pith-Stale-Age"] = str(int(answer.stale_age))
    asked = next((value for name, value in request.scope["headers"] if name == b"if-none-match"), None)
    if asked is not None and _matches(asked.decode("latin-1"), made.etag):
        return Response(status_code=304, headers=headers)
    return Response(made.content, headers=headers, media_type=TYPES[fmt])


def _matches(header: str, etag: str) -> bool:
    """If-None-Match: '*' or any listed tag, compared weakly (RFC 9110 13.1.2)."""
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return "*" in tags or etag in tags


async def _refused(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, ids.BadRequest) else 404
    return PlainTextResponse(f"{exc if isinstance(exc, ids.BadRequest) else 'not found'}\n", status_code=status,
                             headers={"Cache-Control": "no-store", **SECURITY})


async def _busy(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("busy: too many badges are being checked; try again shortly\n", status_code=503,
                             headers={"Retry-After": "5", "Cache-Control": "no-store", "X-Pith-State": brand.UNCHECKED})


class Guard:
    """Refuses before routing: methods other than GET and HEAD, a request body, a path no id
    needs, a client over its rate; counts every answer by route and status."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self._problem(scope)
        route = _route(scope["path"])
        if problem is not None:
            status, why, text = problem
            self.server.counters.refuse(why)
            self.server.counters.request(route, status)
            await PlainTextResponse(text + "\n", status_code=status, headers={"Cache-Control": "no-store", **SECURITY,
                                    **({"Retry-After": "1"} if status == 429 else {})})(scope, receive, send)
            return

        async def counted(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.server.counters.request(route, message["status"])
            await send(message)

        await self.app(scope, receive, counted)

    def _problem(self, scope: Scope) -> tuple[int, str, str] | None:
        if scope["method"] not in ("GET", "HEAD"):
            return 405, "method", "only GET and HEAD"
        headers = dict(scope["headers"])
        if headers.get(b"content-length", b"0") != b"0" or b"transfer-encoding" in headers:
            return 413, "body", "a badge request has no body"
        bad = ids.raw_path_problem(scope.get("raw_path") or scope["path"].encode("utf-8", "replace"))
        if bad is not None:
            return 400, "path", bad
        if len(scope.get("query_string", b"")) > 100:
            return 414, "path", "the query is too long"
        client = scope.get("client")
        if not self.server.rate.allow(client[0] if client else "-"):
            return 429, "rate", "too many requests from this address; slow down"
        return None


def _route(path: str) -> str:
    """A fixed name per route for the counters (never the request's own text)."""
    for prefix in ("/badge/", "/v/", "/healthz", "/metrics"):
        if path.startswith(prefix):
            return prefix.strip("/")
    return "other"


def create_app(settings: Settings) -> ASGIApp:
    client = checking.client_for(settings)
    server = Server(settings, client)
    routes = [Route("/badge/{rest:path}", server.badge, methods=["GET", "HEAD"]),
              Route("/v/{rest:path}", server.verification, methods=["GET", "HEAD"]),
              Route("/healthz", server.healthz, methods=["GET", "HEAD"]),
              Route("/metrics", server.metrics, methods=["GET", "HEAD"])]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        server.checks.close()  # checks still waiting are dropped; those running end by their deadline

    app = Starlette(routes=routes, exception_handlers={ids.BadRequest: _refused, 404: _refused, Busy: _busy},
                    lifespan=lifespan)
    return Guard(app, server)
