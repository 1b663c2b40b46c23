"""`mlwiki snapshot` writes exactly what kubectl prints, against the fake API server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.fakes.kube_api import (  # noqa: F401 - kube_api_fixture registers `kube_api`
    FakeKubeApi,
    kube_api_fixture,
    make_event,
    make_jobset,
    make_node,
    make_pod,
)

pytestmark = pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not on PATH")


def kubectl_json(*args: str) -> str:
    return subprocess.run(
        ["kubectl", *args, "-o", "json"], capture_output=True, text=True, check=True, env=os.environ
    ).stdout


def seed(api: FakeKubeApi) -> None:
    node = api.add(make_node("gke-a"))[0]
    api.add(
        make_pod("job-0", namespace="ml", node="gke-a"),
        make_event("ev", "NodeNotReady", "Node is not ready", node),
    )


def test_snapshot_files_equal_kubectl_output(kube_api: FakeKubeApi, tmp_path: Path) -> None:
    seed(kube_api)
    kube_api.add(make_jobset("job", namespace="ml"))
    out = tmp_path / "snap"
    result = run_cli("snapshot", "--out", str(out), "--format", "json")
    assert result.code == 0, result.stderr
    assert result.json()["files"] == {
        "nodes.json": 1, "pods.json": 1, "jobsets.json": 1, "events.json": 1,
    }  # fmt: skip
    for file, kind in (("nodes", "nodes"), ("pods", "pods"), ("events", "events")):
        assert (out / f"{file}.json").read_text() == kubectl_json("get", kind, "-A")
    assert (out / "jobsets.json").read_text() == kubectl_json(
        "get", "jobsets.jobset.x-k8s.io", "-A"
    )


def test_snapshot_without_jobset_crd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeKubeApi(jobsets=False) as api:
        seed(api)
        monkeypatch.setenv("KUBECONFIG", str(api.write_kubeconfig(tmp_path / "kubeconfig")))
        result = run_cli("snapshot", "--out", str(tmp_path / "snap"))
    assert result.code == 0, result.stderr
    assert "no JobSet CRD" in result.stdout
    assert json.loads((tmp_path / "snap" / "jobsets.json").read_text())["items"] == []


def test_snapshot_bad_context_and_unreachable_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = run_cli("snapshot", "--context", "a b", "--out", str(tmp_path / "x"))
    assert bad.code == 2 and "--context" in bad.stderr
    with FakeKubeApi() as api:
        monkeypatch.setenv("KUBECONFIG", str(api.write_kubeconfig(tmp_path / "kubeconfig")))
    # The server is stopped now: kubectl cannot connect.
    down = run_cli("snapshot", "--out", str(tmp_path / "y"))
    assert down.code == 2 and "kubectl get nodes failed" in down.stderr
    assert not (tmp_path / "y").exists()
