"""`mlwiki doctor`: each prerequisite reported with its fix; role checks against a local server."""

from __future__ import annotations

import json
import os
import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import requests

from mlwiki.doctor import MISSING, OK, ROLE_PERMISSIONS, SKIPPED, check_roles


def _fake_tool(folder: Path, name: str, output: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{output}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def tools_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


def test_missing_tools_and_credentials_are_reported_with_fixes(
    cli, tools_path, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "nope.json"))
    result = cli("doctor", "--format", "json")
    assert result.code == 1
    checks = {c["name"]: c for c in result.json()["checks"]}
    for name in ("gcloud", "kubectl", "gke-gcloud-auth-plugin", "credentials"):
        assert checks[name]["status"] == MISSING and checks[name]["fix"], name
    assert checks["python"]["status"] == OK
    assert checks["roles"]["status"] == SKIPPED


def test_everything_present(cli, tools_path, tmp_path, monkeypatch) -> None:
    _fake_tool(tools_path, "gcloud", "Google Cloud SDK 500.0.0")
    _fake_tool(tools_path, "kubectl", "Client Version: v1.32.4")
    _fake_tool(tools_path, "gke-gcloud-auth-plugin", "Kubernetes v1.30.0")
    credentials = tmp_path / "adc.json"
    credentials.write_text(json.dumps({"type": "authorized_user"}))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(credentials))
    result = cli("doctor")
    assert result.code == 0, result.stdout
    assert "Client Version: v1.32.4" in result.stdout
    assert "[skipped] roles: no --project given" in result.stdout


class _ResourceManager(BaseHTTPRequestHandler):
    granted: ClassVar[set[str]] = set()
    requests: ClassVar[list[tuple[str, dict]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, body))
        answer = json.dumps(
            {"permissions": [p for p in body["permissions"] if p in self.granted]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def resource_manager(monkeypatch: pytest.MonkeyPatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ResourceManager)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("MLWIKI_RESOURCE_MANAGER_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    _ResourceManager.requests = []
    yield _ResourceManager
    server.shutdown()
    server.server_close()


def test_roles_are_tested_by_their_permissions(resource_manager) -> None:
    resource_manager.granted = {
        "logging.logEntries.list",
        "container.pods.list",
        "compute.instances.list",
    }
    checks = {c.name: c for c in check_roles("tpu-prod-123", requests.Session)}
    path, body = resource_manager.requests[0]
    assert path == "/v1/projects/tpu-prod-123:testIamPermissions"
    assert sorted(body["permissions"]) == sorted(ROLE_PERMISSIONS.values())
    statuses = {name.split()[0]: c.status for name, c in checks.items()}
    assert statuses == {
        "roles/logging.viewer": OK,
        "roles/container.viewer": OK,
        "roles/compute.viewer": OK,
        "roles/monitoring.viewer": MISSING,
    }
    assert (
        "grant roles/monitoring.viewer" in checks["roles/monitoring.viewer (Monitoring Viewer)"].fix
    )


def test_roles_unreachable_is_skipped_not_missing(monkeypatch) -> None:
    monkeypatch.setenv("MLWIKI_RESOURCE_MANAGER_ENDPOINT", "http://127.0.0.1:9")
    [check] = check_roles("tpu-prod-123", requests.Session)
    assert check.status == SKIPPED and "could not test" in check.detail
    assert os.environ["MLWIKI_RESOURCE_MANAGER_ENDPOINT"].startswith("http://127.0.0.1")


def test_bucket_permissions_checked_with_the_real_storage_client(gcs) -> None:
    from mlwiki.doctor import check_bucket

    [check] = check_bucket(gcs.bucket_name)
    assert check.status == OK, check.detail
    assert check.name == f"roles/storage.objectAdmin on gs://{gcs.bucket_name}"


def test_bucket_check_skipped_when_storage_is_unreachable(monkeypatch) -> None:
    from mlwiki.doctor import check_bucket

    monkeypatch.setenv("STORAGE_EMULATOR_HOST", "http://127.0.0.1:9")
    [check] = check_bucket("cc-handoff")
    assert check.status == SKIPPED and "could not test" in check.detail
