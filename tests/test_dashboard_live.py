"""Live mode with real parts: the `kubernetes` client against the fake Kubernetes API server
serving a realistic TPU cluster, and clusters listed by a `gcloud` executable on PATH."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from mlwiki.dashboard.live import ClusterRef, live_source, read_cluster, ref_from_context
from mlwiki.dashboard.summary import summarise
from mlwiki.errors import BadInput
from tests.conftest import REPO_ROOT
from tests.fakes.kube_api import FakeKubeApi
from tests.fakes.tpu_cluster import realistic_cluster

CONTEXT = "gke_demo-proj_us-east5-a_tpu-cluster"


@pytest.fixture
def cluster_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubeApi]:
    fake = realistic_cluster()
    with FakeKubeApi() as api:
        api.add(*fake.nodes, *fake.pods, *fake.jobsets, *fake.events)
        monkeypatch.setenv(
            "KUBECONFIG", str(api.write_kubeconfig(tmp_path / "kubeconfig", context=CONTEXT))
        )
        yield api


def _fake_gcloud(directory: Path, clusters: list[dict], fail_for_project: bool = False) -> Path:
    """An executable `gcloud` that prints CLUSTERS for `container clusters list --format=json`
    and records its argv (one JSON line per call)."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "gcloud"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"with open({str(directory / 'calls.jsonl')!r}, 'a') as log:\n"
        "    log.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"if {fail_for_project!r} and '--project' in sys.argv:\n"
        "    sys.stderr.write('ERROR: (gcloud.container.clusters.list) PERMISSION_DENIED\\n')\n"
        "    sys.exit(1)\n"
        f"print(json.dumps({clusters!r}))\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return directory


def _gcloud_cluster(name: str, project: str = "demo-proj", location: str = "us-east5-a") -> dict:
    return {
        "name": name,
        "location": location,
        "selfLink": f"https://container.googleapis.com/v1/projects/{project}/locations/{location}/clusters/{name}",
    }


def test_kubernetes_client_reads_cluster_and_numbers_match(cluster_api: FakeKubeApi) -> None:
    state = read_cluster(ref_from_context(CONTEXT))
    assert state.problem is None
    assert (state.cluster, state.project, state.location) == (
        "tpu-cluster",
        "demo-proj",
        "us-east5-a",
    )
    assert (len(state.nodes), len(state.jobsets)) == (18, 4)
    data = summarise([state], source="live").to_json()
    capacity = {(r["accelerator"], r["topology"]): r for r in data["capacity"]}
    assert capacity[("tpu-v5p-slice", "2x2x4")]["chips_used"] == 32
    assert capacity[("tpu-v6e-slice", "4x4")]["chips_free"] == 12
    assert {w["name"]: w["status"] for w in data["workloads"]} == {
        "spot-finetune": "Failed",
        "eval-sweep": "Failing",
        "llm-pretrain": "Running",
    }
    # Only warnings are asked for, and objects are read raw (no model validation in the way).
    event_queries = [r.query for r in cluster_api.requests if r.path == "/api/v1/events"]
    assert event_queries and all(q.get("fieldSelector") == "type=Warning" for q in event_queries)
    assert all(e["type"] == "Warning" for e in state.events)


def test_cluster_without_jobset_crd_has_no_workloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = realistic_cluster()
    with FakeKubeApi(jobsets=False) as api:
        api.add(*fake.nodes, *fake.pods)
        monkeypatch.setenv(
            "KUBECONFIG", str(api.write_kubeconfig(tmp_path / "kubeconfig", context=CONTEXT))
        )
        state = read_cluster(ref_from_context(CONTEXT))
    assert state.problem is None
    assert state.jobsets == [] and len(state.nodes) == 18


def test_unreachable_cluster_is_a_problem_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = FakeKubeApi().start()
    kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig", context=CONTEXT)
    api.stop()  # the port is closed now
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    state = read_cluster(ref_from_context(CONTEXT))
    assert state.problem and CONTEXT in state.problem


def test_gcloud_lists_clusters_and_missing_context_says_how_to_get_one(
    cluster_api: FakeKubeApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = _fake_gcloud(
        tmp_path / "bin",
        [_gcloud_cluster("tpu-cluster"), _gcloud_cluster("other", location="europe-west4")],
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    source = live_source("", [])
    states = {s.cluster: s for s in source.states()}
    assert states["tpu-cluster"].problem is None and len(states["tpu-cluster"].nodes) == 18
    hint = states["other"].problem or ""
    assert (
        "gcloud container clusters get-credentials other --location europe-west4 --project demo-proj"
        in hint
    )
    calls = [json.loads(line) for line in (bin_dir / "calls.jsonl").read_text().splitlines()]
    assert calls == [["container", "clusters", "list", "--format=json"]]
    # A cluster name as TARGET narrows the scan to that cluster.
    assert [r.name for r in live_source("tpu-cluster", []).clusters] == ["tpu-cluster"]


def test_project_target_lists_that_project_and_workload_target_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = _fake_gcloud(tmp_path / "bin", [_gcloud_cluster("tpu-cluster")])
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert [r.project for r in live_source("other-proj", []).clusters] == ["other-proj"]
    calls = [json.loads(line) for line in (bin_dir / "calls.jsonl").read_text().splitlines()]
    assert calls[-1] == [
        "container",
        "clusters",
        "list",
        "--format=json",
        "--project",
        "other-proj",
    ]

    failing = _fake_gcloud(
        tmp_path / "bin2", [_gcloud_cluster("tpu-cluster")], fail_for_project=True
    )
    monkeypatch.setenv("PATH", f"{failing}{os.pathsep}{os.environ['PATH']}")
    # Not a project we can list: a workload name, looked for in every cluster.
    assert [r.name for r in live_source("llm-pretrain", []).clusters] == ["tpu-cluster"]


def test_no_gcloud_is_a_clear_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BadInput, match="gcloud not found on PATH"):
        live_source("", [])


def test_context_flag_skips_gcloud_and_names_the_cluster(cluster_api: FakeKubeApi) -> None:
    source = live_source("", [CONTEXT])
    assert source.clusters == [ClusterRef("tpu-cluster", "demo-proj", "us-east5-a", CONTEXT)]
    assert ref_from_context("minikube") == ClusterRef("minikube", "", "", "minikube")
    first = source.states()
    assert source.states() is first  # cached between page loads
    assert source.states(refresh=True) is not first


def test_cli_live_end_to_end_through_context(cluster_api: FakeKubeApi, tmp_path: Path) -> None:
    """`mlwiki dashboard --context C` reads the fake API server and serves its numbers."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlwiki",
            "dashboard",
            "--context",
            CONTEXT,
            "--port",
            "0",
            "--no-browser",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "DISPLAY": "", "KUBECACHEDIR": str(tmp_path / "cache")},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().rsplit(" ", 1)[-1].strip()
        with urllib.request.urlopen(
            f"{url}api/summary?target=llm-pretrain", timeout=30
        ) as response:
            data = json.loads(response.read())
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert data["source"] == f"live: context {CONTEXT}"
    assert data["target_kind"] == "workload"
    assert [(w["name"], w["status"], w["chips"]) for w in data["workloads"]] == [
        ("llm-pretrain", "Running", 32)
    ]
    assert process.returncode == 0
