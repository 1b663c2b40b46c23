"""Guard for the orchestration, infrastructure, storage and ML Diagnostics part of the wiki.

Checks the 25 symptom pages of TAXONOMY sections E/F, H, I and J through the public loader
(`mlwiki.wiki.load_wiki`): roles as in the taxonomy, required sections, signatures that match their
own real examples but no counter-example, no root signature firing on cascade or benign lines, a
valid read-only verification workflow per page, approval-gated remedies — and runs a few of the
workflows end to end on a small offline bundle through the real workflow engine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import re2

from mlwiki.engine.actions import run_action
from mlwiki.engine.workflows import check_workflow, run_workflow
from mlwiki.logs.session import LogSession
from mlwiki.wiki import Symptom, Wiki, load_wiki
from tests.conftest import WIKI_ROOT

# The TAXONOMY.md roles of this section (kept here: CI does not depend on the shared folder).
ROLES = {
    "training-stall": "symptom",
    "checkpoint-gcs-permission": "root",
    "checkpoint-restore-failure": "root",
    "gcs-throttling": "root",
    "failed-scheduling-insufficient-tpu": "root",
    "capacity-stockout-or-quota": "root",
    "kueue-admission-pending": "root",
    "kueue-preemption": "root",
    "jobset-restarts": "consequence",
    "job-failed-exit-code": "consequence",
    "image-pull-failure": "root",
    "pod-evicted-node-pressure": "root",
    "liveness-probe-restart": "root",
    "node-graceful-shutdown": "symptom",
    "spot-preemption": "root",
    "host-error": "root",
    "host-maintenance": "root",
    "node-not-ready": "symptom",
    "node-auto-repair-or-upgrade": "root",
    "kernel-hardware-error": "root",
    "tpu-device-plugin-unhealthy": "root",
    "vbar-agent-oom": "root",
    "dynamic-slice-creation-failed": "root",
    "mldiag-webhook-not-injecting": "root",
    "mldiag-sdk-setup-error": "root",
    "admission-webhook-denied": "root",
    "container-config-error": "root",
    "provisioning-request-failed": "root",
}

SECTIONS = (
    "What it is",
    "Log signature",
    "Where it shows up",
    "How to verify",
    "Cause or cascade",
    "Remedy",
    "Sources",
)

# Lines healthy hosts print after another host failed (reference §2.1): no root page may match them.
CASCADE_LINES = (
    "E0926 17:26:32.075402  157988 coordination_service_agent.cc:332] Polled an error from "
    "coordination service (this can be an error from this or another task).",
    "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed "
    "service detected fatal errors. This most likely indicates that another task died; see the "
    "other task logs for more details. absl::Status: UNAVAILABLE: The following tasks are "
    "unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:3\nThe tasks have "
    "crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, "
    "eviction) to debug further.",
    "Task /job:jax_worker/replica:0/task:3 heartbeat timeout. This indicates that the remote task "
    "has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error "
    "or scheduler events (e.g. preemption, eviction) to debug further.",
    "F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX distributed "
    "service detected fatal errors. absl::Status: UNAVAILABLE: Failed to send RPC to coordination "
    "service. Either the leader task was preempted/died/restarted unexpectedly or this task is "
    "experiencing network issues.",
    "*** SIGTERM received by PID 714292 (TID 714292) on cpu 80 from PID 711980; stack trace: ***",
)

# Benign lines (reference §5 and healthy orchestration messages): no root page may match them.
BENIGN_LINES = (
    "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
    "tpunetd either not supported or disabled, falling back to Slice Builder",
    "The JAX preemption service is disabled.",
    "completed step: 4, seconds: 11.645, TFLOP/s/device: 194.526, Tokens/s/device: 4221.032, "
    "total_weights: 1572864, loss: 9.610",
    "Successfully assigned default/llm-pretrain-slice-job-0-0-abcde to gke-tpu-pool-1a2b-0001",
    'Successfully pulled image "us-docker.pkg.dev/p/r/trainer:v1" in 1.387s',
    "Readiness probe failed: HTTP probe failed with statuscode: 503",
    "Quota reserved in ClusterQueue cluster-queue, wait time since queued was 2s",
    "Admitted by ClusterQueue cluster-queue, wait time since reservation was 0s",
    "jobset completed successfully",
    "Node gke-tpu-pool-1a2b-0001 status is now: NodeReady",
    "[Hardware Error]: event severity: corrected",
    "Received successful DaemonRegistrationResponse from backend",
)

MUTATING_ACTIONS = (
    "cordon-node",
    "uncordon-node",
    "drain-node",
    "taint-node",
    "delete-pod",
    "reset-tpu-vm",
    "delete-tpu-vm",
    "resize-node-pool",
    "recreate-node-pool",
    "label-namespace-mldiagnostics",
)

PLAYBOOKS = (
    "triage-decision-tree",
    "crash",
    "hang-or-stall",
    "restart-loop",
    "preemption-and-maintenance",
    "job-never-starts",
    "common-pitfalls",
)

TOOLS = (
    "mlwiki-cli",
    "gcloud-logging-read",
    "kubectl-recipes",
    "ml-diagnostics-and-xprof",
    "cloud-tpu-diagnostics-stack-traces",
)

WORKLOAD = "llm-pretrain"
WINDOW = {"workload": WORKLOAD, "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T01:00:00Z"}


@pytest.fixture(scope="module")
def wiki() -> Wiki:
    return load_wiki(WIKI_ROOT)


@pytest.fixture(scope="module")
def compiled(wiki: Wiki) -> dict[str, list[Any]]:
    return {
        sid: [re2.compile(sig.pattern) for sig in s.signatures] for sid, s in wiki.symptoms.items()
    }


def _matches(compiled: dict[str, list[Any]], symptom_id: str, line: str) -> bool:
    return any(pattern.search(line) for pattern in compiled[symptom_id])


def _symptom(wiki: Wiki, symptom_id: str) -> Symptom:
    assert symptom_id in wiki.symptoms, f"missing page _wiki/symptoms/{symptom_id}.md"
    return wiki.symptoms[symptom_id]


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_page_has_taxonomy_role_and_every_section(wiki: Wiki, symptom_id: str) -> None:
    symptom = _symptom(wiki, symptom_id)
    assert symptom.role == ROLES[symptom_id]
    assert symptom.workflow == f"verify-{symptom_id}"
    headings = re.findall(r"(?m)^## (.+?)\s*$", symptom.page.body)
    assert headings == list(SECTIONS)
    # Every section has text of its own before the next heading.
    for section in re.split(r"(?m)^## .+$", symptom.page.body)[1:]:
        assert section.strip(), f"{symptom_id}: empty section"


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_examples_match_own_page_and_counter_examples_do_not(
    wiki: Wiki, compiled: dict[str, list[Any]], symptom_id: str
) -> None:
    symptom = _symptom(wiki, symptom_id)
    assert symptom.examples, f"{symptom_id}: no example"
    for example in symptom.examples:
        assert example.source.startswith("http"), f"{symptom_id}: example without a source URL"
        assert _matches(compiled, symptom_id, example.line), f"{symptom_id}: {example.line!r}"
    for counter in symptom.counter_examples:
        assert not _matches(compiled, symptom_id, counter.line), f"{symptom_id}: {counter.line!r}"


def test_no_root_signature_matches_cascade_benign_or_non_root_example(
    wiki: Wiki, compiled: dict[str, list[Any]]
) -> None:
    non_root_examples = [
        example.line
        for sid in ROLES
        if ROLES[sid] != "root"
        for example in _symptom(wiki, sid).examples
    ]
    roots = [sid for sid, s in wiki.symptoms.items() if s.role == "root"]
    offending = [
        (root, line[:80])
        for line in (*CASCADE_LINES, *BENIGN_LINES, *non_root_examples)
        for root in roots
        if _matches(compiled, root, line)
    ]
    assert offending == []


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_verification_workflow_is_valid_and_read_only(wiki: Wiki, symptom_id: str) -> None:
    workflow = wiki.workflows[f"verify-{symptom_id}"]
    assert workflow.symptom == symptom_id
    check_workflow(wiki, workflow)
    conclusions = workflow.data["conclusions"]
    assert "if" not in conclusions[-1] and conclusions[-1]["verdict"] == "inconclusive"
    assert {c["verdict"] for c in conclusions} >= {"confirmed", "inconclusive"}
    for step in workflow.steps:
        assert not wiki.actions[step["uses"]].requires_approval, step["uses"]


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_remedies_name_existing_actions(wiki: Wiki, symptom_id: str) -> None:
    for remedy in _symptom(wiki, symptom_id).remedies:
        if "action" in remedy:
            assert remedy["action"] in wiki.actions, f"{symptom_id}: {remedy['action']}"


# A valid value per parameter type, to render a mutating action without running it.
SAMPLE_VALUES = {
    "k8s_name": "gke-tpu-a-0001",
    "project_id": "my-project",
    "zone": "us-east5-b",
    "integer": 0,
}


@pytest.mark.parametrize("action_id", MUTATING_ACTIONS)
def test_mutating_actions_wait_for_approval(wiki: Wiki, action_id: str) -> None:
    action = wiki.actions[action_id]
    assert action.requires_approval
    assert action.data.get("risk", "").strip()
    params = {
        name: SAMPLE_VALUES[spec["type"]]
        for name, spec in action.params.items()
        if spec.get("required")
    }
    result = run_action(wiki, action_id, params).to_dict(with_entries=False)
    assert result["status"] == "awaiting_approval"
    assert "gke-tpu-a-0001" in result["command"]


def test_cordon_node_keeps_the_design_minimal_form(wiki: Wiki) -> None:
    action = wiki.actions["cordon-node"]
    assert action.kind == "kubectl"
    assert action.command == ["kubectl", "cordon", "{{ node }}"]
    assert action.params["node"] == {
        "type": "k8s_name",
        "required": True,
        "description": "node name",
    }


def test_playbooks_and_tools_exist(wiki: Wiki) -> None:
    for page_id in PLAYBOOKS:
        assert wiki.pages[page_id].type == "playbook"
    for page_id in TOOLS:
        assert wiki.pages[page_id].type == "tool"
    assert "```mermaid\nflowchart" in wiki.pages["triage-decision-tree"].body


# ---- the workflows on a small offline bundle, through the real engine ------------------------


def _event(ts: str, kind: str, name: str, reason: str, message: str) -> dict[str, Any]:
    resource: dict[str, Any] = {"type": "k8s_pod" if kind == "Pod" else "k8s_cluster", "labels": {}}
    if kind == "Pod":
        resource["labels"]["pod_name"] = name
    return {
        "insertId": f"ev-{name}-{reason}-{ts}",
        "logName": "projects/p/logs/events",
        "timestamp": ts,
        "severity": "WARNING",
        "resource": resource,
        "jsonPayload": {
            "reason": reason,
            "message": message,
            "involvedObject": {"kind": kind, "name": name},
        },
    }


def _system_event(ts: str, vm: str, method: str) -> dict[str, Any]:
    return {
        "insertId": f"gce-{vm}-{ts}",
        "logName": "projects/p/logs/cloudaudit.googleapis.com%2Fsystem_event",
        "timestamp": ts,
        "severity": "INFO",
        "resource": {"type": "gce_instance", "labels": {"zone": "us-east5-b"}},
        "protoPayload": {
            "methodName": method,
            "resourceName": f"projects/p/zones/us-east5-b/instances/{vm}",
        },
    }


def _step_line(ts: str, step: int) -> dict[str, Any]:
    return {
        "insertId": f"step-{step}",
        "logName": "projects/p/logs/stdout",
        "timestamp": ts,
        "severity": "INFO",
        "resource": {
            "type": "k8s_container",
            "labels": {"pod_name": f"{WORKLOAD}-slice-job-0-0-a"},
        },
        "labels": {
            "compute.googleapis.com/resource_name": "gke-tpu-a-0001",
            "k8s-pod/jobset_sigs_k8s_io/jobset-name": WORKLOAD,
        },
        "textPayload": f"completed step: {step}, seconds: 11.645, loss: 9.610",
    }


def _scheduled(pod: str, node: str) -> dict[str, Any]:
    return _event(
        "2026-01-01T00:00:05Z",
        "Pod",
        pod,
        "Scheduled",
        f"Successfully assigned default/{pod} to {node}",
    )


def _session(tmp_path: Path, entries: list[dict[str, Any]]) -> LogSession:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(entries), encoding="utf-8")
    return LogSession.from_bundle(bundle)


def _run(wiki: Wiki, workflow_id: str, session: LogSession, **extra: str) -> dict[str, Any]:
    return run_workflow(wiki, workflow_id, {**WINDOW, **extra}, session).to_dict(with_entries=False)


def test_preemption_of_a_workload_node_is_confirmed_with_its_host(
    wiki: Wiki, tmp_path: Path
) -> None:
    session = _session(
        tmp_path,
        [
            _scheduled(f"{WORKLOAD}-slice-job-0-0-a", "gke-tpu-a-0001"),
            _scheduled(f"{WORKLOAD}-slice-job-0-1-b", "gke-tpu-a-0002"),
            _system_event("2026-01-01T00:10:00Z", "gke-tpu-a-0002", "compute.instances.preempted"),
        ],
    )
    run = _run(wiki, "verify-spot-preemption", session)
    assert run["verdict"] == "confirmed"
    assert run["outputs"]["culprit_host"] == "gke-tpu-a-0002"
    assert "gke-tpu-a-0002" in run["summary"]


def test_preemption_of_another_vm_is_refuted(wiki: Wiki, tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        [
            _scheduled(f"{WORKLOAD}-slice-job-0-0-a", "gke-tpu-a-0001"),
            _system_event("2026-01-01T00:10:00Z", "gke-other-0009", "compute.instances.preempted"),
        ],
    )
    run = _run(wiki, "verify-spot-preemption", session)
    assert run["verdict"] == "refuted"
    assert "gke-other-0009" in run["summary"]


def test_jobset_restart_names_the_first_failed_job(wiki: Wiki, tmp_path: Path) -> None:
    message = (
        f"applying RestartJobSet failure policy action (first failed job: {WORKLOAD}-slice-job-1)"
    )
    session = _session(
        tmp_path,
        [
            _event(
                "2026-01-01T00:11:00Z",
                "JobSet",
                WORKLOAD,
                "RestartJobSetFailurePolicyAction",
                message,
            )
        ],
    )
    run = _run(wiki, "verify-jobset-restarts", session)
    assert run["verdict"] == "confirmed"
    assert run["outputs"]["first_failed_jobs"] == [f"{WORKLOAD}-slice-job-1"]


def test_events_without_the_symptom_refute_and_no_events_is_inconclusive(
    wiki: Wiki, tmp_path: Path
) -> None:
    with_events = _session(tmp_path, [_scheduled(f"{WORKLOAD}-slice-job-0-0-a", "gke-tpu-a-0001")])
    assert _run(wiki, "verify-image-pull-failure", with_events)["verdict"] == "refuted"
    (tmp_path / "empty").mkdir()
    empty = _session(tmp_path / "empty", [])
    assert _run(wiki, "verify-image-pull-failure", empty)["verdict"] == "inconclusive"


def test_silent_stall_is_confirmed_only_without_later_progress(wiki: Wiki, tmp_path: Path) -> None:
    session = _session(tmp_path, [_step_line("2026-01-01T00:05:00Z", 4)])
    stalled = _run(wiki, "verify-training-stall", session, quiet_from="2026-01-01T00:30:00Z")
    assert stalled["verdict"] == "confirmed"
    assert "2026-01-01T00:05:00Z" in stalled["summary"]
    progressing = _run(wiki, "verify-training-stall", session, quiet_from="2026-01-01T00:01:00Z")
    assert progressing["verdict"] == "refuted"
