"""Workflows end to end on a small wiki and bundle: conditions, outputs, verdicts, dry runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mlwiki.engine.actions import RunContext
from mlwiki.engine.audit import AuditLog
from mlwiki.engine.workflows import run_workflow
from mlwiki.errors import BadInput
from mlwiki.kube import RecordedRunner, record_output
from mlwiki.logs.session import LogSession
from mlwiki.wiki import load_wiki
from tests.conftest import WIKI_ROOT, run_cli

START, END = "2025-03-01T10:00:00Z", "2025-03-01T11:00:00Z"
OOM = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm."

SYMPTOM_PAGE = """---
title: Demo HBM OOM
summary: demo
role: root
layer: framework
signatures:
  - pattern: 'Ran out of memory in memory space (?P<space>hbm)'
  - pattern: 'task (?P<task>[0-9]+) OOM'
examples:
  - line: 'Ran out of memory in memory space hbm'
    source: https://example.com
workflow: verify-demo-oom
---
body
"""

ACTIONS: dict[str, dict[str, Any]] = {
    "find-demo-oom": {
        "title": "Find demo OOM lines",
        "kind": "log_query",
        "description": "Lines of the workload matching the demo-oom page.",
        "params": {
            "workload": {"type": "k8s_name", "required": True},
            "start": {"type": "timestamp", "required": True},
            "end": {"type": "timestamp", "required": True},
        },
        "filter": 'resource.type="k8s_container"\nAND {{ workload_selector(workload) }}\n'
        'AND {{ symptom_match("demo-oom") }}\nAND {{ time_window(start, end) }}',
        "extract": {"space": "memory space ([a-z]+)"},
    },
    "get-node": {
        "title": "Get one node",
        "kind": "kubectl",
        "description": "The node object as JSON.",
        "params": {
            "node": {"type": "k8s_name", "required": True},
            "context": {"type": "kube_context"},
        },
        "command": ["kubectl", "get", "node", "{{ node }}", "-o", "json"],
    },
    "cordon-node": {
        "title": "Cordon a node",
        "kind": "kubectl",
        "description": "Mark the node unschedulable.",
        "params": {"node": {"type": "k8s_name", "required": True}},
        "command": ["kubectl", "cordon", "{{ node }}"],
        "requires_approval": True,
        "risk": "No new pod lands on the node.",
    },
}

VERIFY = {
    "title": "Verify demo OOM",
    "description": "Find the lines, then look at the first host's node.",
    "symptom": "demo-oom",
    "params": {
        "workload": {"type": "k8s_name", "required": True},
        "start": {"type": "timestamp", "required": True},
        "end": {"type": "timestamp", "required": True},
    },
    "steps": [
        {
            "id": "find",
            "uses": "find-demo-oom",
            "with": {"workload": "{{ params.workload }}"},
            "outputs": {"hosts_seen": "result.hosts | length"},
        },
        {
            "id": "node",
            "uses": "get-node",
            "if": "steps.find.outputs.count > 0",
            "with": {"node": "{{ steps.find.outputs.first_host }}"},
            "outputs": {"ready": "result.json.status.phase"},
        },
    ],
    "conclusions": [
        {
            "if": "steps.find.outputs.count > 0 and steps.node.status == 'ok'",
            "verdict": "confirmed",
            "summary": "{{ steps.find.outputs.count }} OOM lines, first on "
            "{{ steps.find.outputs.first_host }}",
        },
        {"if": "steps.find.outputs.count == 0", "verdict": "refuted", "summary": "no OOM line"},
        {"verdict": "inconclusive", "summary": "could not tell"},
    ],
    "outputs": {"culprit": "steps.find.outputs.first_host"},
}

REMEDY = {
    "title": "Cordon the culprit",
    "description": "A workflow with one mutating step (for approval tests).",
    "symptom": "demo-oom",
    "params": {"node": {"type": "k8s_name", "required": True}},
    "steps": [
        {"id": "look", "uses": "get-node", "with": {"node": "{{ params.node }}"}},
        {"id": "cordon", "uses": "cordon-node", "with": {"node": "{{ params.node }}"}},
    ],
    "conclusions": [{"verdict": "inconclusive", "summary": "done: {{ steps.cordon.status }}"}],
}


def make_wiki(root: Path) -> Path:
    """A small wiki (real schemas) with the demo symptom, actions and workflows; returns _wiki."""
    wiki = root / "_wiki"
    shutil.copytree(WIKI_ROOT / "schemas", wiki / "schemas")
    (wiki / "symptoms").mkdir()
    (wiki / "symptoms" / "demo-oom.md").write_text(SYMPTOM_PAGE)
    for folder, docs in (
        ("actions", ACTIONS),
        ("workflows", {"verify-demo-oom": VERIFY, "remedy-demo": REMEDY}),
    ):
        (wiki / folder).mkdir()
        for doc_id, doc in docs.items():
            (wiki / folder / f"{doc_id}.json").write_text(json.dumps({"id": doc_id, **doc}))
    return wiki


def entry(insert_id: str, second: int, text: str, node: str, pod: str = "demo-job-0") -> dict:
    return {
        "insertId": insert_id,
        "logName": "projects/demo-project/logs/stdout",
        "timestamp": f"2025-03-01T10:00:{second:02d}Z",
        "resource": {
            "type": "k8s_container",
            "labels": {"pod_name": pod, "namespace_name": "default"},
        },
        "labels": {
            "compute.googleapis.com/resource_name": node,
            "k8s-pod/jobset_sigs_k8s_io/jobset-name": pod.rsplit("-", 1)[0],
        },
        "textPayload": text,
    }


def make_bundle(root: Path, oom: bool = True) -> Path:
    bundle = root / "bundle"
    bundle.mkdir()
    entries = [entry("a1", 1, "step 1 loss 2.3", "gke-a")]
    if oom:
        entries += [
            entry("a2", 5, OOM, "gke-b", "demo-job-1"),
            entry("a3", 6, OOM, "gke-c", "demo-job-2"),
            entry("a4", 7, OOM, "gke-b", "other-job-1"),  # another workload: never matched
        ]
    (bundle / "logs.json").write_text(json.dumps(entries))
    return bundle


@pytest.fixture
def demo(tmp_path: Path):
    return load_wiki(make_wiki(tmp_path))


def run_demo(wiki, bundle: Path, **options: Any):
    return run_workflow(
        wiki,
        "verify-demo-oom",
        {"workload": "demo-job"},
        LogSession.from_bundle(bundle),
        context=RunContext(start=START, end=END),
        runner=RecordedRunner(bundle),
        **options,
    )


def test_confirmed_run_uses_outputs_of_earlier_steps(demo, tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path)
    record_output(
        bundle, ["kubectl", "get", "node", "gke-b", "-o", "json"], '{"status": {"phase": "Up"}}'
    )
    run = run_demo(demo, bundle)
    find, node = run.steps
    assert (find.status, node.status) == ("ok", "ok")
    assert find.outputs["count"] == 2
    assert find.outputs["hosts"] == ["gke-b", "gke-c"]
    assert find.outputs["pods"] == ["demo-job-1", "demo-job-2"]
    assert find.outputs["first_host"] == "gke-b"
    assert find.outputs["space"] == ["hbm"]
    assert find.outputs["hosts_seen"] == 2
    assert node.rendered == ["kubectl", "get", "node", "gke-b", "-o", "json"]
    assert node.outputs["ready"] == "Up"
    assert run.verdict == "confirmed"
    assert run.summary == "2 OOM lines, first on gke-b"
    assert run.outputs == {"culprit": "gke-b"}
    assert [e["insertId"] for e in run.entries] == ["a2", "a3"]


def test_false_condition_skips_the_step_and_refutes(demo, tmp_path: Path) -> None:
    run = run_demo(demo, make_bundle(tmp_path, oom=False))
    assert [s.status for s in run.steps] == ["ok", "skipped"]
    assert run.steps[1].note == "condition is false: steps.find.outputs.count > 0"
    assert run.verdict == "refuted"


def test_failed_step_stops_the_run_inconclusive(demo, tmp_path: Path) -> None:
    run = run_demo(demo, make_bundle(tmp_path))  # the node lookup is not recorded
    assert run.steps[1].status == "failed"
    assert "not recorded in bundle: kubectl get node gke-b -o json" in run.steps[1].error
    assert run.verdict == "inconclusive"
    assert run.summary.startswith("step node failed")


def test_every_run_is_audited(demo, tmp_path: Path) -> None:
    run_demo(demo, make_bundle(tmp_path, oom=False))
    records = AuditLog().read()
    assert [(r["event"], r["step"], r["status"]) for r in records] == [("run", "find", "ok")]
    assert records[0]["workflow"] == "verify-demo-oom" and records[0]["dry_run"] is False
    assert 'resource.labels.pod_name:"demo-job-"' in records[0]["rendered"]
    assert len(records[0]["output_sha256"]) == 64


def test_dry_run_prints_exact_commands_and_runs_nothing(tmp_path: Path) -> None:
    wiki = make_wiki(tmp_path)
    result = run_cli(
        "--wiki", str(wiki), "run", "verify-demo-oom", "--dry-run", "--param", "workload=demo-job",
        "--start", START, "--end", END,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    data = result.json()
    find, node = data["steps"]
    assert find["status"] == "dry_run"
    owners = (
        "jobset_sigs_k8s_io/jobset-name",
        "jobset.sigs.k8s.io/jobset-name",
        "batch_kubernetes_io/job-name",
        "batch.kubernetes.io/job-name",
        "job-name",
        "leaderworkerset_sigs_k8s_io/name",
        "leaderworkerset.sigs.k8s.io/name",
    )
    selector = " OR ".join(
        [*(f'labels."k8s-pod/{key}"="demo-job"' for key in owners),
         'resource.labels.pod_name="demo-job"', 'resource.labels.pod_name:"demo-job-"']
    )  # fmt: skip
    assert find["filter"].startswith(
        f'resource.type="k8s_container"\nAND ({selector})\nAND (textPayload=~'
    )
    assert find["filter"].endswith(f'AND timestamp>="{START}" AND timestamp<="{END}"')
    assert node["command"] == [
        "kubectl", "get", "node", "{{ steps.find.outputs.first_host }}", "-o", "json",
    ]  # fmt: skip
    assert node["unresolved"] == ["node"]
    assert "depends on earlier steps" in node["note"]
    assert data["verdict"] is None
    assert all(r["dry_run"] for r in AuditLog().read())


def test_workflow_authoring_errors_name_file_step_and_expression(tmp_path: Path) -> None:
    wiki_dir = make_wiki(tmp_path)
    broken = dict(VERIFY, steps=[dict(VERIFY["steps"][0], **{"if": "steps.later.outputs.count"})])
    (wiki_dir / "workflows" / "verify-demo-oom.json").write_text(
        json.dumps({"id": "verify-demo-oom", **broken})
    )
    with pytest.raises(BadInput, match=r"verify-demo-oom.json: step find: if: .*steps.later"):
        run_workflow(load_wiki(wiki_dir), "verify-demo-oom", {"workload": "w"}, dry_run=True)
    broken["steps"] = [dict(VERIFY["steps"][0], **{"if": "steps.find.status =="})]
    (wiki_dir / "workflows" / "verify-demo-oom.json").write_text(
        json.dumps({"id": "verify-demo-oom", **broken})
    )
    with pytest.raises(BadInput, match="step find: if: invalid expression"):
        run_workflow(load_wiki(wiki_dir), "verify-demo-oom", {"workload": "w"}, dry_run=True)


def test_expressions_are_sandboxed(demo, tmp_path: Path) -> None:
    from mlwiki.engine.expressions import Where, evaluate

    with pytest.raises(BadInput, match="unsafe"):
        evaluate("params.__class__.__mro__", {"params": {}}, Where("wf.json", "step x: if"))


def test_bad_params_and_approvals_are_bad_input(tmp_path: Path) -> None:
    wiki = str(make_wiki(tmp_path))
    hostile = run_cli("--wiki", wiki, "run", "verify-demo-oom", "--param", "workload=$(id)")
    assert hostile.code == 2 and "--param workload" in hostile.stderr
    unknown = run_cli("--wiki", wiki, "run", "remedy-demo", "--param", "node=n1", "--approve", "x")
    assert unknown.code == 2 and "--approve x: workflow remedy-demo has no step" in unknown.stderr
    bare = run_cli("--wiki", wiki, "run", "remedy-demo", "--param", "node=n1", "--approve")
    assert bare.code == 2
