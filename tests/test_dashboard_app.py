"""The dashboard over real HTTP (uvicorn on 127.0.0.1) and the `mlwiki dashboard` command."""

from __future__ import annotations

import html
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mlwiki.dashboard.app import create_app
from mlwiki.dashboard.server import RunningServer, ensure_loopback, has_display, serve_in_thread
from mlwiki.dashboard.state import SnapshotSource
from tests.conftest import REPO_ROOT, run_cli
from tests.fakes.tpu_cluster import HOSTILE_MESSAGE, realistic_cluster

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'"
)


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return realistic_cluster().write_snapshot(tmp_path_factory.mktemp("snap") / "tpu-cluster")


@pytest.fixture(scope="module")
def served(snapshot: Path) -> Iterator[RunningServer]:
    running = serve_in_thread(create_app(SnapshotSource(snapshot)))
    yield running
    running.stop()


def request(
    served: RunningServer, method: str, path: str, host: str = "", body: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    port = int(served.url.rsplit(":", 1)[1].split("/")[0])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": host} if host else {}
    conn.request(method, path, body=body or None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


@pytest.mark.parametrize("path", ["/", "/api/summary", "/healthz", "/static/dashboard.js", "/nope"])
def test_security_headers_on_every_response(served: RunningServer, path: str) -> None:
    _, headers, _ = request(served, "GET", path)
    assert headers["content-security-policy"] == CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_only_get_and_head(served: RunningServer, method: str) -> None:
    status, headers, _ = request(served, method, "/api/summary", body=b"{}")
    assert status == 405
    assert headers["allow"] == "GET, HEAD"
    assert headers["content-security-policy"] == CSP
    assert request(served, "HEAD", "/healthz")[0] == 200


def test_foreign_host_header_refused(served: RunningServer) -> None:
    # A DNS-rebinding page would send its own host name; only loopback names are answered.
    assert request(served, "GET", "/api/summary", host="evil.example:8080")[0] == 421
    assert request(served, "GET", "/healthz", host="localhost:8080")[0] == 200


def test_static_assets_have_exact_types(served: RunningServer) -> None:
    _, css, _ = request(served, "GET", "/static/dashboard.css")
    _, js, _ = request(served, "GET", "/static/dashboard.js")
    assert css["content-type"].startswith("text/css")
    assert "javascript" in js["content-type"]


def test_api_summary_shape_and_target(served: RunningServer) -> None:
    status, headers, body = request(served, "GET", "/api/summary")
    data = json.loads(body)
    assert status == 200 and headers["content-type"] == "application/json"
    assert {"capacity", "node_pools", "workloads", "events", "generated_at", "source"} <= set(data)
    assert set(data["capacity"][0]) >= {
        "accelerator", "topology", "nodes", "chips_total", "chips_used", "chips_free",
        "nodes_not_ready", "nodes_maintenance", "spot_nodes",
    }  # fmt: skip
    assert set(data["workloads"][0]) >= {
        "name",
        "namespace",
        "status",
        "restarts",
        "reason",
        "troubleshoot",
    }
    _, _, body = request(served, "GET", "/api/summary?target=llm-pretrain")
    assert [w["name"] for w in json.loads(body)["workloads"]] == ["llm-pretrain"]
    status, _, body = request(served, "GET", "/api/summary?target=%3Cscript%3E")
    assert status == 400 and "target must be" in json.loads(body)["error"]


def test_page_escapes_cluster_text(served: RunningServer) -> None:
    status, _, body = request(served, "GET", "/")
    page = body.decode()
    assert status == 200
    assert (
        "<script>window.__pwned" not in page
        and "<img src=x" not in page
        and "<svg onload" not in page
    )
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert page.count("<script") == 1  # only our own external script tag
    assert " style=" not in page  # the CSP would block inline styles


def test_bad_target_page_is_400_and_escaped(served: RunningServer) -> None:
    status, _, body = request(served, "GET", "/?target=%22%3E%3Cb%3E")
    assert status == 400
    assert "<b>" not in body.decode()


def test_cli_refuses_non_loopback_host(snapshot: Path) -> None:
    for host in ("0.0.0.0", "192.168.1.10", "example.com"):
        result = run_cli("dashboard", "--snapshot", str(snapshot), "--host", host, "--no-browser")
        assert result.code == 2, result.stderr
        assert f"--host {host}" in result.stderr and "Traceback" not in result.stderr


def test_cli_port_in_use_is_exit_2(snapshot: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = run_cli(
            "dashboard", "--snapshot", str(snapshot), "--port", str(port), "--no-browser"
        )
    assert result.code == 2
    assert f"--port {port}: already in use" in result.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "--port 70000"),
        (["bad target!"], "TARGET 'bad target!'"),
        (["--snapshot", "/nonexistent-dir"], "not a directory"),
        (["--snapshot", ".", "--context", "c"], "exclude each other"),
    ],
)
def test_cli_bad_input_is_exit_2(argv: list[str], message: str) -> None:
    result = run_cli("dashboard", "--no-browser", "--port", "0", *argv)
    assert result.code == 2
    assert message in result.stderr


def test_cli_serves_prints_link_and_stops_on_ctrl_c(snapshot: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlwiki",
            "dashboard",
            "llm-pretrain",
            "--snapshot",
            str(snapshot),
            "--port",
            "0",
            "--no-browser",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "DISPLAY": ""},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.rsplit(" ", 1)[-1].strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/?target=llm-pretrain"), line
        port = int(url.split(":")[2].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        conn.close()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert "stopped" in stderr and "Traceback" not in stderr


def test_page_html_mentions_hostile_text_literally(served: RunningServer) -> None:
    # The message shows as text: after unescaping it is exactly what the cluster said.
    _, _, body = request(served, "GET", "/")
    assert html.escape(HOSTILE_MESSAGE, quote=False) in body.decode().replace("&#34;", '"').replace(
        "&#39;", "'"
    )


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_addresses_are_accepted(host: str) -> None:
    assert ensure_loopback(host) in {host, "127.0.0.1"}


def test_browser_opens_only_with_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not has_display()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert has_display()
