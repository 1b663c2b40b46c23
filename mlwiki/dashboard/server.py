"""Serve the dashboard on the loopback interface: bind, print the link, open a browser, stop cleanly."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import socket
import sys
import threading
import time
import webbrowser
from dataclasses import dataclass
from typing import Any, Callable, Optional
from urllib.parse import urlencode

from mlwiki.errors import BadInput

LOOPBACK_NAMES = {"localhost"}


def ensure_loopback(host: str) -> str:
    """HOST if it is a loopback address (127.0.0.0/8, ::1, localhost); anything else is refused."""
    if host in LOOPBACK_NAMES:
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise BadInput(
            f"--host {host}: not an IP address; the dashboard serves on 127.0.0.1 only"
        ) from None
    if not address.is_loopback:
        raise BadInput(
            f"--host {host}: refused; the dashboard serves on a loopback address (127.0.0.1) only"
        )
    return host


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on HOST:PORT (port 0: any free one); a busy port is a clear BadInput."""
    host = ensure_loopback(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise BadInput(
                f"--port {port}: already in use on {host}; pick another with --port"
            ) from None
        raise BadInput(f"--port {port}: cannot listen on {host}: {error.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def link(sock: socket.socket, target: str = "") -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    query = f"?{urlencode({'target': target})}" if target else ""
    return f"http://{shown}:{port}/{query}"


def has_display() -> bool:
    """A browser can open: macOS/Windows always; elsewhere only with an X or Wayland display."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@dataclass
class RunningServer:
    """A dashboard served from a background thread (tests, benchmarks); `stop()` ends it."""

    url: str
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _uvicorn_server(app: Any) -> Any:
    import uvicorn

    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", server_header=False
    )
    return uvicorn.Server(config)


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    sock = bind(host, port)
    server = _uvicorn_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while thread.is_alive() and not server.started:
        time.sleep(0.02)
    if not server.started:
        raise RuntimeError("the dashboard server did not start")
    return RunningServer(link(sock), server, thread)


def serve_forever(
    app: Any,
    sock: socket.socket,
    on_started: Optional[Callable[[], None]] = None,
) -> None:
    """Serve until Ctrl-C (uvicorn turns SIGINT/SIGTERM into a graceful shutdown)."""
    server = _uvicorn_server(app)
    if on_started is not None:

        def wait_then_call() -> None:
            while not server.started and not server.should_exit:
                time.sleep(0.05)
            if server.started:
                on_started()

        threading.Thread(target=wait_then_call, daemon=True).start()
    # uvicorn shuts down gracefully on Ctrl-C, then re-raises the signal: that is a clean stop.
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])


def open_browser(url: str) -> None:
    with contextlib.suppress(webbrowser.Error):  # the link is printed anyway
        webbrowser.open(url, new=2)
