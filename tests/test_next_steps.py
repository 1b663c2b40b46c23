"""The next steps a diagnosis prints: nothing troubleshoot already did, and every proposed change
as a command that runs as printed and names its kube context or project explicitly."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, WIKI_ROOT, run_cli
from tests.scenarios import single_host_crash

DEMO = "_wiki/examples/llm-pretrain-oom"


def test_next_steps_do_not_ask_to_rerun_what_troubleshoot_ran(monkeypatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    findings = run_cli("troubleshoot", "llm-pretrain", "--bundle", DEMO, "--format", "json").json()
    ran = {run["workflow"]: run["verdict"] for run in findings["actions_run"]}
    assert ran == {"verify-host-oom-killed": "confirmed", "verify-spot-preemption": "confirmed"}
    assert findings["next_steps"]
    assert not [s for s in findings["next_steps"] if s.get("workflow") in ran]
    assert not [s for s in findings["next_steps"] if "mlwiki run" in s["step"]]


def test_findings_name_the_place_the_entries_name(monkeypatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    findings = run_cli("troubleshoot", "llm-pretrain", "--bundle", DEMO, "--format", "json").json()
    labels = json.loads((REPO_ROOT / DEMO / "logs.json").read_text())[0]["resource"]["labels"]
    assert findings["project"] == labels["project_id"]
    assert findings["cluster"] == labels["cluster_name"]
    assert findings["location"] == labels["location"]
    assert findings["kube_context"] == (
        f"gke_{labels['project_id']}_{labels['location']}_{labels['cluster_name']}"
    )


def test_a_proposed_change_names_its_context_and_runs_as_printed(tmp_path: Path) -> None:
    bundle = single_host_crash(load_wiki(WIKI_ROOT), "process-segfault", tmp_path / "b", seed=3)
    workload = json.loads((bundle / "expected.json").read_text())["workload"]
    findings = run_cli("troubleshoot", workload, "--bundle", str(bundle), "--format", "json").json()
    (change,) = [s for s in findings["next_steps"] if s.get("action")]
    words = shlex.split(change["command"])
    assert words[:3] == ["mlwiki", "action", "cordon-node"] and words[-2] == "--approve"
    assert f"context={findings['kube_context']}" in words
    assert f"node={findings['culprit_hosts'][0]['host']}" in words
    # The same command, shown instead of run (the user approves the real one); the digest its
    # --approve carries is that very command's.
    from mlwiki.engine.approval import argv_digest

    shown = run_cli(*words[1:-2], "--dry-run", "--format", "json")
    assert shown.code == 0, shown.stderr
    command = shown.json()["command"]
    assert command == [
        "kubectl", f"--context={findings['kube_context']}", "cordon",
        findings["culprit_hosts"][0]["host"],
    ]  # fmt: skip
    assert argv_digest(command).startswith(words[-1])


def test_each_failure_row_names_its_own_pod_in_its_commands() -> None:
    """A failure row that is not the headline keeps its own host and pod: `culprit_hosts` are
    the headline's only, so the other row's pod comes from its own evidence."""
    from mlwiki.diagnose.context import settle_next_steps

    wiki = load_wiki(WIKI_ROOT)
    headline, other = "gke-c-pool-1-aaaa-0001", "gke-c-pool-1-aaaa-0002"

    def item(eid: str, host: str, pod: str | None) -> dict[str, object]:
        return {"id": eid, "host": host, "pod": pod, "symptom": "x", "quote": "q"}

    findings = {
        "failures": [
            {"symptom": "host-oom-killed", "host": headline, "evidence": ["E1", "E2"]},
            {"symptom": "container-exit-nonzero", "host": other, "evidence": ["E3"]},
        ],
        # The headline's root is a node line (no pod): its pod is its culprit entry's.
        "evidence": [
            item("E1", headline, None),
            item("E2", "elsewhere", "p-0"),
            item("E3", other, "p-2"),
        ],
        "culprit_hosts": [{"host": headline, "pod": "p-1", "evidence": ["E1"]}],
        "actions_run": [],
        "next_steps": [
            {
                "step": "describe",
                "symptom": "container-exit-nonzero",
                "action": "kubectl-describe-pod",
            },
            {"step": "describe", "symptom": "host-oom-killed", "action": "kubectl-describe-pod"},
        ],
    }
    place = {"kube_context": "gke_p_l_c", "project": "p", "cluster": "c", "location": "l"}
    settle_next_steps(wiki, findings, place)
    other_step, headline_step = (shlex.split(s["command"]) for s in findings["next_steps"])
    assert "pod=p-2" in other_step
    assert "pod=p-1" in headline_step
