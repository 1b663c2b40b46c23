"""kubectl/gcloud runner, recorded bundle outputs, kubernetes client reads, `mlwiki action`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mlwiki.errors import BadInput
from mlwiki.kube import (
    NotRecorded,
    RecordedRunner,
    ToolNotFound,
    read_objects,
    record_output,
    recording_key,
    run_command,
)
from tests.conftest import run_cli
from tests.fakes.kube_api import (  # noqa: F401 - kube_api_fixture registers `kube_api`
    FakeKubeApi,
    kube_api_fixture,
    make_jobset,
    make_node,
    make_pod,
)
from tests.test_engine_workflow import make_wiki

needs_kubectl = pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not on PATH")


def test_missing_program_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ToolNotFound, match="kubectl: not found on PATH"):
        run_command(["kubectl", "version"])


def test_run_command_captures_output_and_timeout(tmp_path: Path) -> None:
    done = run_command(["python3", "-c", "import sys; print('out'); sys.exit(3)"], timeout=30)
    assert (done.exit_code, done.stdout) == (3, "out\n")
    slow = run_command(["python3", "-c", "import time; time.sleep(5)"], timeout=0.5)
    assert slow.exit_code is None and "timed out" in slow.stderr


def test_recordings_ignore_scope_flags(tmp_path: Path) -> None:
    argv = ["kubectl", "--context=prod", "--namespace=ml", "get", "pods", "-o", "json"]
    assert recording_key(argv) == ["kubectl", "get", "pods", "-o", "json"]
    record_output(tmp_path, ["kubectl", "get", "pods", "-o", "json"], '{"items": [1, 2]}')
    served = RecordedRunner(tmp_path)(argv)
    assert served.recorded and served.stdout == '{"items": [1, 2]}'
    with pytest.raises(NotRecorded, match="not recorded in bundle: kubectl get nodes"):
        RecordedRunner(tmp_path)(["kubectl", "get", "nodes"])


def test_recording_found_by_name_without_index(tmp_path: Path) -> None:
    from mlwiki.kube import recording_name

    argv = ["kubectl", "get", "node", "n1", "-o", "json"]
    (tmp_path / "kubectl").mkdir()
    (tmp_path / "kubectl" / f"{recording_name(argv)}.json").write_text("{}")
    assert RecordedRunner(tmp_path)(argv).stdout == "{}"


def test_client_reads_raw_json(kube_api: FakeKubeApi) -> None:
    kube_api.add(
        make_node("gke-a"),
        make_pod("job-0", namespace="ml", labels={"app": "x"}),
        make_pod("other", namespace="default"),
        make_jobset("job", namespace="ml"),
    )
    assert [n["metadata"]["name"] for n in read_objects("nodes")["items"]] == ["gke-a"]
    pods = read_objects("pods", namespace="ml", label_selector="app=x")
    assert [p["metadata"]["name"] for p in pods["items"]] == ["job-0"]
    assert read_objects("jobsets")["items"][0]["kind"] == "JobSet"
    with pytest.raises(BadInput, match="kind 'secrets'"):
        read_objects("secrets")


@needs_kubectl
def test_action_runs_real_kubectl_with_context_and_namespace(
    kube_api: FakeKubeApi, tmp_path: Path
) -> None:
    kube_api.add(make_node("gke-a"))
    wiki = make_wiki(tmp_path)
    action = json.loads((wiki / "actions" / "get-node.json").read_text())
    action["params"]["namespace"] = {"type": "k8s_name"}
    (wiki / "actions" / "get-node.json").write_text(json.dumps(action))
    result = run_cli(
        "--wiki", str(wiki), "action", "get-node", "--param", "node=gke-a",
        "--param", "context=fake", "--param", "namespace=ml",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    data = result.json()
    assert data["command"] == [
        "kubectl", "--context=fake", "--namespace=ml", "get", "node", "gke-a", "-o", "json",
    ]  # fmt: skip
    assert data["outputs"]["json"]["metadata"]["name"] == "gke-a"
    missing = run_cli("--wiki", str(wiki), "action", "get-node", "--param", "node=gke-zz")
    assert missing.code == 1
    assert 'exit code 1: Error from server (NotFound): nodes "gke-zz" not found' in missing.stderr


def test_log_query_action_output_contract(tmp_path: Path) -> None:
    from tests.test_engine_workflow import make_bundle

    wiki = make_wiki(tmp_path)
    bundle = make_bundle(tmp_path)
    result = run_cli(
        "--wiki", str(wiki), "action", "find-demo-oom", "--param", "workload=demo-job",
        "--bundle", str(bundle),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    data = result.json()
    assert data["count"] == 2 and data["partial"] is False
    assert [e["insertId"] for e in data["entries"]] == ["a2", "a3"]
    # With no window given, a bundle's own time span is the window.
    assert (
        'timestamp>="2025-03-01T10:00:01Z" AND timestamp<="2025-03-01T10:00:08Z"'
        in (data["filter"])
    )
    text = run_cli(
        "--wiki", str(wiki), "action", "find-demo-oom", "--param", "workload=demo-job",
        "--bundle", str(bundle), "--format", "text",
    )  # fmt: skip
    assert text.stdout.splitlines()[-1] == "2 entries"
