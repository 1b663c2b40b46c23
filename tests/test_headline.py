"""The headline of a multi-disruption run (DESIGN.md, findings): `root_cause` is the cause of the
disruption that ended the run when it ended in failure, else the first disruption's; the culprit
hosts are the headline's; every failure row keeps its own host; a notice and the interruption it
announced are one disruption; an unexplained row has no symptom."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mlwiki.diagnose.pipeline import diagnose
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT
from tests.scenarios import HBM_OOM_LINE, Pod, Run, culprit_logs_missing

WIKI = load_wiki(REPO_ROOT / "_wiki")


def findings_of(folder: Path, workload: str) -> dict[str, Any]:
    return diagnose(workload, bundle=folder / "bundle.json", wiki=WIKI, verify=False).findings


def rows(findings: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return [(f["kind"], f["symptom"], f["host"]) for f in findings["failures"]]


def preempt(run: Run, pod: Pod, at: float) -> None:
    run.gce_event(pod.node, at, "compute.instances.preempted", "Instance was preempted.")
    run.pod_event(
        pod.name,
        at + 1,
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        "Warning",
    )
    run.kill(pod, at + 3)


def oom_kill(run: Run, pod: Pod, at: float) -> None:
    run.node_event(
        pod.node,
        at,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 41872 (python3) total-vm:412044880kB, "
        "anon-rss:398311424kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:790512kB "
        "oom_score_adj:-997",
    )
    run.kill(pod, at)


def three_disruptions(folder: Path, *, ends_in_failure: bool) -> tuple[Path, list[str]]:
    """A Spot preemption and a host OOM kill the run survives (the JobSet restarts, training goes
    on), then a runtime HBM OOM: the JobSet reaches max restarts — or, the other way, restarts
    once more and trains on."""
    run = Run("multi-hit", 3, 4, seed=21, step_period=60)
    run.start_attempt(0)
    run.train(10, 600)
    spot = run.pods[(0, 3)]
    preempt(run, spot, 605)
    run.restart(run.cascade(spot, 700) + 30)
    run.train(800, 1500, step0=10)
    host_oom = run.pods[(1, 1)]
    oom_kill(run, host_oom, 1505)
    run.restart(run.cascade(host_oom, 1600) + 30)
    run.train(1700, 2400, step0=20)
    hbm = run.pods[(2, 2)]
    run.log(hbm, 2405, HBM_OOM_LINE, "ERROR")
    run.kill(hbm, 2405)
    end = run.cascade(hbm, 2450, restart=not ends_in_failure)
    if ends_in_failure:
        run.cluster_event(
            end,
            "JobSet",
            run.workload,
            "ReachedMaxRestarts",
            "jobset failed due to reaching max number of restarts",
        )
    else:
        run.restart(end + 30)
        run.train(2600, 3000, step0=30)
    return run.write(folder, {}), [spot.node, host_oom.node, hbm.node]


def test_a_run_that_ended_in_failure_is_headlined_by_what_ended_it(tmp_path: Path) -> None:
    folder, (spot, host_oom, hbm) = three_disruptions(tmp_path, ends_in_failure=True)
    findings = findings_of(folder, "multi-hit")
    assert findings["status"] == "diagnosed"
    assert findings["root_cause"]["symptom"] == "hbm-oom-runtime"
    assert [c["host"] for c in findings["culprit_hosts"]] == [hbm]
    assert rows(findings) == [
        ("preemption", "spot-preemption", spot),
        ("crash", "host-oom-killed", host_oom),
        ("crash", "hbm-oom-runtime", hbm),
    ]
    assert "#3 ended the run" in findings["summary"]


def test_a_run_that_recovered_is_headlined_by_its_first_disruption(tmp_path: Path) -> None:
    folder, (spot, host_oom, hbm) = three_disruptions(tmp_path, ends_in_failure=False)
    findings = findings_of(folder, "multi-hit")
    assert findings["root_cause"]["symptom"] == "spot-preemption"
    assert [c["host"] for c in findings["culprit_hosts"]] == [spot]
    assert [host for _, _, host in rows(findings)] == [spot, host_oom, hbm]
    assert "ended the run" not in findings["summary"]


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


@pytest.mark.parametrize("not_ready", [True, False])
def test_an_unexplained_row_has_no_symptom(tmp_path: Path, not_ready: bool) -> None:
    folder = culprit_logs_missing(tmp_path, not_ready=not_ready)
    findings = findings_of(folder, "dark-host")
    assert findings["status"] == "inconclusive" and findings["root_cause"] is None
    (row,) = findings["failures"]
    assert row["symptom"] is None and row["host"] is not None
    cited = {e["id"]: e["symptom"] for e in findings["evidence"]}
    assert "coordination-heartbeat-cascade" in {cited[i] for i in row["evidence"]}
