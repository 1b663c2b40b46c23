"""A local stand-in for the Cloud Logging API's `entries:list`, for the real client to talk to.

Stdlib `http.server` in a thread on 127.0.0.1 (port 0). It serves LogEntry dicts and evaluates
each request's filter with the project's own query engine (`mlwiki.logs.local.LocalLogging`:
indexed by time, each candidate decoded once, paging resumes where the last page stopped), so
server-side filtering is real and a million entries are served in seconds per query. It honours
`resourceNames`, `orderBy`, `pageSize` (default 50, at most 1000), the 20,000-character filter
limit and `pageToken` (tokens are bound to the query they came from, and `expire_tokens()` makes
every token handed out so far invalid, as Cloud Logging's expire); it records every request
body (`requests`), the pages and entries it returned (`pages_served`, `served`) and the time it
spent answering (`busy_seconds`), and can inject faults:
`fail_next(429, n=2)` makes the next two requests fail with that status, and
`fail_next(503, after=1)` lets one request through first (a failure in the middle of paging).
`keep_entries=False` drops the dicts once indexed (a benchmark's million entries).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mlwiki.errors import BadInput
from mlwiki.logs.local import ASCENDING, LocalLogging
from mlwiki.logs.query import compile_filter

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class FakeLoggingServer:
    def __init__(self, entries: Iterable[dict[str, Any]] = (), keep_entries: bool = True) -> None:
        self.entries: list[dict[str, Any]] = []

        def indexed() -> Iterator[dict[str, Any]]:
            for entry in entries:
                if keep_entries:
                    self.entries.append(entry)
                yield entry

        self._index = LocalLogging(indexed())
        self.requests: list[dict[str, Any]] = []
        self.busy_seconds = 0.0
        self.pages_served = 0  # successful responses
        self.served = 0  # entries in them
        self._faults: list[int | None] = []
        self._token_generation = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def fail_next(self, status: int, n: int = 1, after: int = 0) -> None:
        with self._lock:
            self._faults.extend([None] * after + [status] * n)

    def expire_tokens(self) -> None:
        """Every page token handed out so far is rejected from now on (400, as expired)."""
        with self._lock:
            self._token_generation += 1

    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                status, payload = server.handle(self.path, raw)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: tests read `server.requests` instead of access logs."""

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # --- the API ---------------------------------------------------------------------------------

    def handle(self, path: str, raw: bytes) -> tuple[int, dict[str, Any]]:
        if path.split("?", 1)[0] != "/v2/entries:list":
            return _error(404, f"no such method: {path}")
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return _error(400, "request body is not JSON")
        with self._lock:
            self.requests.append(body)
            fault = self._faults.pop(0) if self._faults else None
            if fault is not None:
                return _error(fault, "injected fault")
            started = time.perf_counter()
            try:
                return self._list(body)
            finally:
                self.busy_seconds += time.perf_counter() - started

    def _list(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        resource_names = body.get("resourceNames") or []
        if not resource_names or len(resource_names) > 100:
            return _error(400, "resourceNames: between 1 and 100 are required")
        for name in resource_names:
            if not str(name).startswith("projects/"):
                return _error(400, f"resourceNames: unsupported {name!r}")
        page_size = body.get("pageSize", 50)
        if not isinstance(page_size, int) or not 0 < page_size <= 1000:
            return _error(400, "pageSize must be between 1 and 1000")
        order = body.get("orderBy", "timestamp asc")
        if order not in ("timestamp asc", "timestamp desc"):
            return _error(400, f"orderBy: unsupported {order!r}")
        filter_text = body.get("filter", "")
        if len(filter_text) > 20000:
            return _error(400, "filter is longer than 20000 characters")
        try:
            compiled = compile_filter(filter_text)
        except BadInput as error:
            return _error(400, f"invalid filter: {error}")
        query_key = hashlib.sha1(
            json.dumps([resource_names, filter_text, order, page_size]).encode()
        ).hexdigest()[:12]
        offset = 0
        if body.get("pageToken"):
            token_key, _, rest = str(body["pageToken"]).partition(":")
            generation, _, token_offset = rest.partition(":")
            if token_key != query_key or not token_offset.isdigit():
                return _error(400, "pageToken does not belong to this query")
            if generation != str(self._token_generation):
                return _error(400, "pageToken has expired")
            offset = int(token_offset)
        page, more = self._index.page(
            compiled.text, order or ASCENDING, offset, page_size, resource_names
        )
        self.pages_served += 1
        self.served += len(page)
        response: dict[str, Any] = {"entries": page} if page else {}
        if more:
            response["nextPageToken"] = f"{query_key}:{self._token_generation}:{offset + page_size}"
        return 200, response


def _error(status: int, message: str) -> tuple[int, dict[str, Any]]:
    return status, {
        "error": {
            "code": status,
            "message": message,
            "status": _STATUS_NAMES.get(status, "UNKNOWN"),
        }
    }


@contextmanager
def serve_logging(entries: Iterable[dict[str, Any]] = ()) -> Iterator[FakeLoggingServer]:
    """A started server; stopped on exit."""
    server = FakeLoggingServer(entries)
    server.start()
    try:
        yield server
    finally:
        server.stop()
