"""A notice and the interruption it announced on the same node are one disruption (DESIGN.md,
findings: the headline of a multi-disruption run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mlwiki.diagnose.pipeline import diagnose
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT
from tests.scenarios import Run

WIKI = load_wiki(REPO_ROOT / "_wiki")


def findings_of(folder: Path, workload: str) -> dict[str, Any]:
    return diagnose(workload, bundle=folder / "bundle.json", wiki=WIKI, verify=False).findings


def rows(findings: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return [(f["kind"], f["symptom"], f["host"]) for f in findings["failures"]]


def test_a_notice_and_the_interruption_it_announced_are_one_disruption(tmp_path: Path) -> None:
    run = Run("noticed", 2, 4, seed=22, step_period=30)
    run.start_attempt(0)
    node = run.pods[(1, 2)].node
    run.node_event(
        node,
        600,
        "MaintenanceEvent",
        f"MaintenanceEvent: Node {node} will be terminated for host maintenance",
    )
    run.train(10, 1500)  # the workload goes on for 10 minutes after the notice
    pod = run.pods[(1, 2)]
    run.gce_event(node, 1500, "compute.instances.terminateOnHostMaintenance")
    run.pod_event(
        pod.name,
        1501,
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        "Warning",
    )
    run.kill(pod, 1502)
    run.restart(run.cascade(pod, 1600) + 30)
    run.train(1700, 1900, step0=50)
    findings = findings_of(run.write(tmp_path, {}), "noticed")
    assert rows(findings) == [("preemption", "host-maintenance", node)]
    assert findings["root_cause"]["symptom"] == "host-maintenance"
