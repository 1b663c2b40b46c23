"""The dashboard's ASGI app: one server-rendered page, `/api/summary`, `/healthz`, static files.

Read-only and loopback-only by construction: every method but GET/HEAD gets 405, a request whose
Host is not a loopback name gets 421 (so a DNS-rebinding page cannot read it), and every response
carries a strict Content-Security-Policy. Cluster text reaches the page only through Jinja2
autoescaping, and the JavaScript never writes HTML.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable, Optional, Protocol
from urllib.parse import urlencode

import re2

from mlwiki.dashboard.state import ClusterState
from mlwiki.dashboard.summary import Summary, summarise

PACKAGE_DIR = Path(__file__).resolve().parent
STATIC_DIR = PACKAGE_DIR / "static"
TEMPLATES_DIR = PACKAGE_DIR / "templates"

SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
SAFE_METHODS = {"GET", "HEAD"}
# A target is a project id, cluster name or workload (JobSet) name: DNS-like, never markup.
TARGET_PATTERN = re2.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$")


class StateSource(Protocol):
    """Where cluster states come from: a snapshot directory or live clusters."""

    description: str

    def states(self, refresh: bool = False) -> list[ClusterState]: ...


class BadTarget(ValueError):
    pass


def parse_target(value: str) -> str:
    value = value.strip()
    if value and not TARGET_PATTERN.match(value):
        raise BadTarget(
            "target must be a project id, cluster name or workload name "
            "(letters, digits, '.', '_', ':' or '-', at most 253 characters)"
        )
    return value


def _host_name(headers: list[tuple[bytes, bytes]]) -> str:
    host = next((v.decode("latin-1") for k, v in headers if k == b"host"), "")
    if host.startswith("["):  # [::1]:8080
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class GuardMiddleware:
    """Refuse writes and foreign Host headers; put the security headers on every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS:
            await _plain(
                send, 405, "read-only dashboard: only GET and HEAD\n", [(b"allow", b"GET, HEAD")]
            )
            return
        if _host_name(scope.get("headers") or []) not in LOOPBACK_HOSTS:
            await _plain(send, 421, "this dashboard answers only to 127.0.0.1 / localhost\n", [])
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.decode().lower() not in SECURITY_HEADERS
                ]
                headers.extend((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items())
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _plain(send: Callable, status: int, text: str, extra: list[tuple[bytes, bytes]]) -> None:
    body = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Dashboard:
    """Summaries on demand; the source decides when to rescan (it caches and serialises scans)."""

    def __init__(self, source: StateSource, events_limit: int) -> None:
        self.source = source
        self.events_limit = events_limit

    def summary(self, target: str, refresh: bool) -> Summary:
        states = self.source.states(refresh=refresh)
        return summarise(
            states, target=target, source=self.source.description, events_limit=self.events_limit
        )


@functools.lru_cache(maxsize=1)
def _template() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("index.html")


def render_page(summary: Optional[Summary], error: str = "") -> str:
    """The HTML page for SUMMARY (or only ERROR); every cluster value is autoescaped."""
    target = summary.target if summary else ""
    refresh_link = "?" + urlencode({**({"target": target} if target else {}), "refresh": "1"})
    return _template().render(
        summary=summary, error=error, target=target, refresh_link=refresh_link
    )


def create_app(source: StateSource, events_limit: int = 50) -> Any:
    """The ASGI app over SOURCE (starlette is imported here, not when the CLI starts)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    dashboard = Dashboard(source, events_limit)

    def request_summary(request: Request) -> Summary:
        target = parse_target(request.query_params.get("target", ""))
        return dashboard.summary(target, refresh=request.query_params.get("refresh") == "1")

    def page(request: Request) -> Response:
        try:
            summary = request_summary(request)
        except BadTarget as error:
            return HTMLResponse(render_page(None, str(error)), status_code=400)
        return HTMLResponse(render_page(summary))

    def api_summary(request: Request) -> Response:
        try:
            return JSONResponse(request_summary(request).to_json())
        except BadTarget as error:
            return JSONResponse({"error": str(error)}, status_code=400)

    def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "source": source.description})

    app = Starlette(
        routes=[
            Route("/", page, methods=["GET", "HEAD"]),
            Route("/api/summary", api_summary, methods=["GET", "HEAD"]),
            Route("/healthz", healthz, methods=["GET", "HEAD"]),
            Mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static"),
        ]
    )
    return GuardMiddleware(app)
