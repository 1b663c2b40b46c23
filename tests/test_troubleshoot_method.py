"""The diagnosis method on the cases an independent red team found wrong (issue #5).

Each test builds a small bundle with the scenario generator's `Run` (real LogEntry JSON) and
checks one rule of the method through the public CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

from mlwiki.logs.entry import NODE_LABEL
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, match_all, run_cli
from tests.scenarios import CLUSTER, PROJECT, Run, expected, heartbeat_lines, two_disruptions

WIKI = load_wiki(REPO_ROOT / "_wiki")
ABORT = "F0314 {clock} 1 tpu_host.cc:412] Check failed: buffer->size() == expected_size (8 vs. 4)"


def findings_of(run: Run, folder: Path, newest_first: bool = False) -> dict:
    run.write(folder, expected("diagnosed", None, [], []), newest_first=newest_first)
    result = run_cli("troubleshoot", run.workload, "--bundle", str(folder), "--format", "json")
    assert result.code == 0, result.stderr
    return result.json()


def rows(findings: dict) -> list[tuple[str, str | None, str | None]]:
    return [(f["kind"], f["symptom"], f["host"]) for f in findings["failures"]]


def cited_pages(findings: dict, row: dict) -> set[str]:
    """The symptom pages of the evidence a failure row cites (an unexplained row has no
    symptom of its own: DESIGN.md, findings)."""
    return {e["symptom"] for e in findings["evidence"] if e["id"] in row["evidence"]}


def test_a_container_echoing_an_audit_method_is_not_an_infrastructure_event(tmp_path: Path) -> None:
    run = Run("echo-run", 1, 4, seed=21)
    run.start_attempt(0)
    run.train(10, 200)
    echo, dead = run.pods[(0, 1)], run.pods[(0, 2)]
    run.log(
        echo, 150, "WARNING:absl:bad record: 'compute.instances.preempted on this VM'", "WARNING"
    )
    run.log(dead, 205, ABORT, "CRITICAL")
    run.kill(dead, 206)
    run.cascade(dead, 260)
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "process-abort"
    assert [c["host"] for c in findings["culprit_hosts"]] == [dead.node]
    matched = match_all("--bundle", str(tmp_path / "b"))
    assert "spot-preemption" not in {m["symptom"] for m in matched}


def digest_run(one_entry: bool) -> tuple[Run, str]:
    """Task 0 prints a Megascale bad-chip digest about another host, then everyone aborts."""
    run = Run("digest-run", 2, 4, seed=22)
    run.start_attempt(0)
    run.train(10, 200)
    bad, reporter = run.pods[(1, 2)], run.pods[(0, 0)]
    header = (
        "E0314 {clock} 9 megascale_error_aggregator.cc:213] Megascale detects a hang that is "
        "likely caused by bad TPU chips on the following hosts."
    )
    named = f"  The host that have bad TPUs are: {bad.node}"
    if one_entry:
        run.log(reporter, 500, header + "\n" + named, "ERROR")
    else:
        run.log(reporter, 500, header, "ERROR")
        run.log(reporter, 500.001, named, "ERROR")
    for pod in run.pods.values():
        run.log(pod, 505, "*** SIGABRT received by PID 1 (TID 1) on cpu 1 from PID 1; ***", "ERROR")
        run.kill(pod, 506)
    run.cluster_event(
        510,
        "JobSet",
        run.workload,
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action",
    )
    return run, bad.node


def test_a_reporter_naming_a_host_blames_that_host_not_itself(tmp_path: Path) -> None:
    for one_entry in (False, True):
        run, bad = digest_run(one_entry)
        findings = findings_of(run, tmp_path / str(one_entry))
        assert findings["root_cause"]["symptom"] == "megascale-hang-bad-chip"
        assert [c["host"] for c in findings["culprit_hosts"]] == [bad], one_entry
        assert rows(findings) == [("hang", "megascale-hang-bad-chip", bad)]


def test_one_entry_keeps_the_names_of_every_signature_of_its_page(tmp_path: Path) -> None:
    run, bad = digest_run(one_entry=True)
    run.write(tmp_path / "b", expected("diagnosed", None, [], []))
    digest = [
        m
        for m in match_all("--bundle", str(tmp_path / "b"))
        if m["symptom"] == "megascale-hang-bad-chip"
    ]
    assert len(digest) == 1 and digest[0]["captures"] == {"host": bad}
    assert bad in digest[0]["quote"]


PENDING = (
    "0/8 nodes are available: 8 Insufficient google.com/tpu. preemption: 0/8 nodes are "
    "available: 8 No preemption victims found for incoming pod."
)


def test_a_condition_reported_again_and_again_is_one_disruption(tmp_path: Path) -> None:
    run = Run("pending-run", 1, 2, seed=23)
    names = [f"{run.workload}-slice-job-0-{c}-abcde" for c in range(2)]
    for k in range(8):  # every 7 minutes for an hour, nothing of the workload ever runs
        for name in names:
            run.pod_event(name, 420 * k, "FailedScheduling", PENDING, "Warning")
    findings = findings_of(run, tmp_path / "b")
    assert rows(findings) == [("scheduling", "failed-scheduling-insufficient-tpu", None)]
    report = run_cli("troubleshoot", run.workload, "--bundle", str(tmp_path / "b")).stdout
    culprits = report.split("## Culprit hosts", 1)[1].split("##", 1)[0]
    assert "not tied to any node" in culprits and "many hosts" not in culprits


def test_every_disruption_names_its_own_culprit(tmp_path: Path) -> None:
    """The demo run survives both disruptions: the headline is the first's root cause and its
    culprit alone; each failure row keeps its own host and evidence."""
    folder = two_disruptions(WIKI, tmp_path / "two")
    answer = json.loads((folder / "expected.json").read_text())
    result = run_cli(
        "troubleshoot", answer["workload"], "--bundle", str(folder), "--format", "json"
    )
    findings = result.json()
    assert findings["root_cause"]["symptom"] == answer["failures"][0]["symptom"]
    (culprit,) = findings["culprit_hosts"]
    assert culprit["host"] == answer["failures"][0]["host"] == answer["culprit_hosts"][0]
    first, second = findings["failures"]
    assert [first["host"], second["host"]] == [row["host"] for row in answer["failures"]]
    assert first["host"] != second["host"]
    assert set(culprit["evidence"]) <= set(first["evidence"])
    assert not set(culprit["evidence"]) & set(second["evidence"])


def test_the_same_failure_after_the_run_recovered_is_a_new_disruption(tmp_path: Path) -> None:
    run = Run("flaky-run", 1, 2, seed=24)
    run.start_attempt(0)
    for k in range(2):  # crash, restart, run for a while, crash again the same way
        start = 600 * k
        run.train(start + 10, start + 200)
        dead = run.pods[(0, 1)]
        run.log(dead, start + 205, ABORT, "CRITICAL")
        run.kill(dead, start + 206)
        run.cascade(dead, start + 260)
        run.restart(start + 300)
    findings = findings_of(run, tmp_path / "b")
    assert [r[1] for r in rows(findings)] == ["process-abort", "process-abort"]


def test_a_stockout_explains_the_scheduling_failure_it_causes(tmp_path: Path) -> None:
    run = Run("stockout-run", 1, 2, seed=25)
    names = [f"{run.workload}-slice-job-0-{c}-abcde" for c in range(2)]
    for k in range(4):
        for name in names:
            run.pod_event(name, 1 + 500 * k, "FailedScheduling", PENDING, "Warning")
        run.autoscaler(300 + 500 * k, "scale.up.error.out.of.resources")
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "capacity-stockout-or-quota"
    assert rows(findings) == [("scheduling", "capacity-stockout-or-quota", None)]


def stalled_run(quiet_until: float, crash: bool = False) -> Run:
    """Steps every 30 s until 300 s, then only a sidecar-like line per pod every 5 minutes."""
    run = Run("stall-run", 1, 2, seed=26)
    run.start_attempt(0)
    run.train(10, 300)
    moment = 600.0
    while moment < quiet_until:
        for pod in run.pods.values():
            run.log(pod, moment, "Thread 0x00007f3a (most recent call first):")
        moment += 300
    if crash:
        dead = run.pods[(0, 1)]
        run.log(dead, quiet_until, ABORT, "CRITICAL")
        run.kill(dead, quiet_until + 1)
        run.cascade(dead, quiet_until + 30, restart=False)
    return run


def test_step_lines_that_stop_while_the_containers_log_are_a_stall(tmp_path: Path) -> None:
    findings = findings_of(stalled_run(3000), tmp_path / "stall")
    assert findings["status"] == "inconclusive" and findings["root_cause"] is None
    assert rows(findings) == [("hang", None, None)]
    assert cited_pages(findings, findings["failures"][0]) == {"training-stall"}
    assert "completed step" in findings["evidence"][0]["quote"]
    (tmp_path / "findings.json").write_text(json.dumps(findings))
    check = run_cli("verify", str(tmp_path / "findings.json"), "--bundle", str(tmp_path / "stall"))
    assert check.code == 0, check.stdout


def test_a_short_pause_or_a_crash_after_the_steps_is_not_a_stall(tmp_path: Path) -> None:
    assert findings_of(stalled_run(700), tmp_path / "short")["status"] == "no_failure"
    crashed = findings_of(stalled_run(3000, crash=True), tmp_path / "crash")
    assert [r[1] for r in rows(crashed)] == ["process-abort"]


def test_a_quiet_final_phase_of_a_run_that_completed_is_not_a_stall(tmp_path: Path) -> None:
    run = stalled_run(3000)
    run.cluster_event(3100, "JobSet", run.workload, "AllJobsCompleted", "jobset completed")
    assert findings_of(run, tmp_path / "done")["status"] == "no_failure"


def device_plugin_line(run: Run, node: str, seconds: float) -> None:
    """The TPU device plugin (a kube-system pod) on `node` reports a lost chip."""
    run.entries.append(
        {
            "insertId": f"plugin-{node}-{seconds}",
            "logName": "projects/p/logs/stderr",
            "resource": {
                "type": "k8s_container",
                "labels": {
                    "namespace_name": "kube-system",
                    "pod_name": "tpu-device-plugin-x7k2p",
                    "container_name": "tpu-device-plugin",
                },
            },
            "timestamp": run.at(seconds),
            "severity": "ERROR",
            "textPayload": "E0314 09:00:00.000000 41 health_check.go:71] device /dev/vfio/3 does not exist",
            "labels": {"compute.googleapis.com/resource_name": node},
        }
    )


def test_a_sick_node_of_the_pool_explains_the_pod_that_cannot_be_scheduled(
    tmp_path: Path,
) -> None:
    run = Run("short-chip", 1, 4, seed=27)
    run.start_attempt(0)
    pending = run.pods.pop((0, 3))  # never assigned: its node offers a chip too few
    run.entries = [e for e in run.entries if pending.name not in json.dumps(e)]
    device_plugin_line(run, pending.node, -60)
    for k in range(3):
        run.pod_event(pending.name, 2 + 400 * k, "FailedScheduling", PENDING, "Warning")
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "tpu-device-plugin-unhealthy"
    assert [c["host"] for c in findings["culprit_hosts"]] == [pending.node]
    assert rows(findings) == [("scheduling", "tpu-device-plugin-unhealthy", pending.node)]


def test_a_device_plugin_warning_on_a_node_whose_pod_runs_on_breaks_nothing(
    tmp_path: Path,
) -> None:
    run = Run("plugin-blip", 1, 2, seed=28)
    run.start_attempt(0)
    run.train(10, 400)
    device_plugin_line(run, run.pods[(0, 1)].node, 100)
    assert findings_of(run, tmp_path / "b")["status"] == "no_failure"


IN_USE = (
    "Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with "
    "pid 12. Not attempting to load libtpu.so in this process."
)
FALLBACK = (
    "A Google TPU may be present on this machine, but either a TPU-enabled jaxlib or libtpu is "
    "not installed. Falling back to cpu."
)


def test_the_same_entries_in_either_order_give_the_same_findings(tmp_path: Path) -> None:
    """Every host prints the same two lines (ties in host count): the earlier, explaining one is
    the common cause, oldest-first exactly as newest-first."""
    run = Run("in-use-run", 1, 4, seed=29)
    run.start_attempt(0)
    for pod in run.pods.values():
        run.log(pod, 15, IN_USE, "WARNING")
        run.log(pod, 15.003, FALLBACK, "WARNING")
        run.log(pod, 17, "AssertionError: [CpuDevice(id=0)]", "ERROR")
        run.kill(pod, 17)
    run.cluster_event(
        19,
        "JobSet",
        run.workload,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {run.workload}-slice-job-0)",
    )
    answers = [findings_of(run, tmp_path / str(order), order) for order in (False, True)]
    for order, findings in zip((False, True), answers):
        findings.pop("data")  # names the two bundle folders, as do the commands in next_steps
        for step in findings["next_steps"]:
            step["step"] = step["step"].replace(str(tmp_path / str(order)), "BUNDLE")
    assert answers[0] == answers[1]
    assert answers[0]["root_cause"]["symptom"] == "tpu-already-in-use"
    assert answers[0]["culprit_hosts"] == []
    assert rows(answers[0]) == [("crash", "tpu-already-in-use", None)]


def split_heartbeat_cascade(run: Run, pod, seconds: float, task: int) -> None:
    """The heartbeat cascade as GKE's agent writes it: one entry per line, microseconds apart."""
    head, rest = heartbeat_lines(task)[1].split("\n", 1)
    for offset, line in enumerate([head, *rest.split("\n")]):
        run.log(pod, seconds + offset * 0.000007, line, "ERROR")


def test_a_name_on_the_next_line_of_a_split_record_is_lent_to_its_headline(tmp_path: Path) -> None:
    run = Run("split-run", 2, 2, seed=30)
    run.start_attempt(0)
    run.train(10, 200)
    dead = run.pods[(1, 1)]
    run.silenced.add(dead.name)  # its own logs are lost: only the cascades can name it
    run.kill(dead, 206)
    for pod in run.pods.values():
        if pod is not dead:
            split_heartbeat_cascade(run, pod, 230, run.task(1, 1))
            run.kill(pod, 231)
    findings = findings_of(run, tmp_path / "b")
    assert findings["status"] == "inconclusive"
    assert [c["host"] for c in findings["culprit_hosts"]] == [dead.node]


def barrier_run(save_raises: bool) -> tuple[Run, str]:
    """Every task but task 3 times out at a barrier, the task list split over several entries;
    the JobSet fails on the exit code."""
    run = Run("barrier-run", 1, 4, seed=31)
    run.start_attempt(0)
    run.train(10, 200)
    late = run.pods[(0, 3)]
    lines = [
        "Barrier timed out. Id: sync_global_devices_done. This usually happens because a task "
        "triggered the barrier too early or too slowly.",
        "# of tasks that reached the barrier: 3/4.",
        "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:",
        "/job:jax_worker/replica:0/task:3",
    ]
    if save_raises:
        lines[0] = "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: " + lines[0]
    for pod in run.pods.values():
        if pod is not late:
            for offset, line in enumerate(lines):
                run.log(pod, 900 + offset * 0.000007, line, "ERROR")
            run.kill(pod, 901)
    first = run.pods[(0, 0)]
    run.cluster_event(
        903,
        "Job",
        f"{run.workload}-slice-job-0",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{first.name} failed with exit code 1 matching "
        "FailJob rule at index 0",
    )
    return run, late.node


def test_a_hang_that_raised_and_failed_the_job_is_a_crash(tmp_path: Path) -> None:
    for raised in (True, False):
        run, late = barrier_run(raised)
        findings = findings_of(run, tmp_path / str(raised))
        assert [c["host"] for c in findings["culprit_hosts"]] == [late]
        assert rows(findings) == [("crash" if raised else "hang", None, late)]
        assert "barrier-timeout" in cited_pages(findings, findings["failures"][0])


def test_a_job_that_fails_minutes_after_its_node_was_lost_ends_the_same_disruption(
    tmp_path: Path,
) -> None:
    """The taint manager evicts a lost node's pod only after ~5 minutes: the Job failure and the
    JobSet restart that follow are the end of the node's disruption, not a new one."""
    run = Run("lost-node", 1, 4, seed=32)
    run.start_attempt(0)
    run.train(10, 200)
    lost = run.pods[(0, 2)]
    run.gce_event(lost.node, 205, "compute.instances.hostError")
    run.kill(lost, 205)
    run.cascade(lost, 260, restart=False)
    run.cluster_event(
        265 + 300,
        "JobSet",
        run.workload,
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {run.workload}-slice-job-0)",
    )
    findings = findings_of(run, tmp_path / "b")
    assert rows(findings) == [("crash", "host-error", lost.node)]
    assert [c["host"] for c in findings["culprit_hosts"]] == [lost.node]


def test_a_warning_after_which_training_goes_on_is_not_a_failure(tmp_path: Path) -> None:
    """Every worker warns once; only process 0 prints step lines, and they go on: no failure."""
    run = Run("warned-run", 1, 4, seed=33)
    run.start_attempt(0)
    for pod in run.pods.values():
        run.log(pod, 24, "WARNING:sdk:GKE_DIAGON_IDENTIFIER environment variable not set.", "ERROR")
        if pod is not run.pods[(0, 0)]:
            run.kill(pod, 25)  # a worker that prints no steps falls silent, alive
    run.train(30, 900)
    assert findings_of(run, tmp_path / "b")["status"] == "no_failure"


def test_a_shutdown_barrier_of_a_run_that_then_completed_is_not_a_failure(tmp_path: Path) -> None:
    run = Run("done-run", 1, 4, seed=34)
    run.start_attempt(0)
    run.train(10, 600)
    for pod in list(run.pods.values())[:3]:
        run.log(pod, 1200, "Shutdown barrier has failed.", "ERROR")
        run.kill(pod, 1201)
    run.cluster_event(1260, "Job", f"{run.workload}-slice-job-0", "Completed", "Job completed")
    run.cluster_event(1261, "JobSet", run.workload, "AllJobsCompleted", "jobset completed")
    assert findings_of(run, tmp_path / "done")["status"] == "no_failure"
    run.cluster_event(
        1250,
        "Job",
        f"{run.workload}-slice-job-0",
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
    )
    failed = findings_of(run, tmp_path / "failed")
    (row,) = failed["failures"]
    assert row["symptom"] is None and "shutdown-barrier-failed" in cited_pages(failed, row)


def test_a_restart_loop_with_no_step_in_between_is_one_disruption(tmp_path: Path) -> None:
    """The liveness probe restarts task 3 during its long restore, the others die of its new
    incarnation, everyone restores again: three cycles, no training step, one disruption."""
    run = Run("loop-run", 1, 4, seed=35)
    run.start_attempt(0)
    slow = run.pods[(0, 3)]
    probe = 'Liveness probe failed: Get "http://10.0.0.3:8080/healthz": context deadline exceeded'
    for cycle in range(3):
        start = 280.0 * cycle
        for pod in run.pods.values():
            pod.end = None
            run.log(pod, start + 20, "Restoring checkpoint step 6100 from gs://b/ckpt/6100")
        for k in range(3):
            run.pod_event(slow.name, start + 150 + 10 * k, "Unhealthy", probe, "Warning")
        run.kill(slow, start + 181)
        run.cascade(slow, start + 220, restart=False)
    findings = findings_of(run, tmp_path / "b")
    assert rows(findings) == [("restart", "liveness-probe-restart", slow.node)]


def test_kubelet_restarts_inside_one_pod_are_one_restart_loop(tmp_path: Path) -> None:
    """The kubelet kills a container whose liveness probe fails and starts it again in the same
    pod, which goes on logging (compiling, never a step): each kill is the failure itself, and
    kills with no step in between are one loop, however far apart."""
    run = Run("probe-run", 1, 2, seed=37)
    run.start_attempt(0)
    run.train(10, 200)
    flaky = run.pods[(0, 1)]
    killed = "Container jax-tpu failed liveness probe, will be restarted"
    for kill in (600.0, 900.0):
        run.pod_event(
            flaky.name, kill - 20, "Unhealthy", "Liveness probe failed: timeout", "Warning"
        )
        run.pod_event(flaky.name, kill, "Killing", killed, "Normal")
        for moment in range(int(kill) + 10, int(kill) + 250, 30):
            run.log(flaky, moment, "Compiling train_step for 4 devices")
    findings = findings_of(run, tmp_path / "probe")
    assert rows(findings) == [("restart", "liveness-probe-restart", flaky.node)]


def test_a_workload_whose_name_extends_the_target_is_not_the_target(tmp_path: Path) -> None:
    """A project-wide export holds `llm-eval` beside `llm`: its crash, cascades and restart are
    about `llm-eval` only, although every name of it starts with `llm-`."""
    target = Run("llm", 1, 2, seed=38)
    target.start_attempt(0)
    target.train(10, 1200)
    other = Run("llm-eval", 1, 2, seed=39)
    other.start_attempt(0)
    other.train(10, 300)
    other.log(other.pods[(0, 1)], 320, ABORT, "CRITICAL")
    other.kill(other.pods[(0, 1)], 321)
    other.cascade(other.pods[(0, 1)], 360)
    target.entries.extend(other.entries)
    assert findings_of(target, tmp_path / "llm")["status"] == "no_failure"
    other.entries = target.entries
    found = findings_of(other, tmp_path / "eval")
    assert found["status"] == "diagnosed" and rows(found)[0][1] == "process-abort"


def test_a_node_pool_repair_points_at_the_pool_node_whose_trouble_came_first(
    tmp_path: Path,
) -> None:
    """GKE's repair audit entry names a node pool, not a node: the culprit is the node of that
    pool whose Warning events (here a full boot disk) started before the repair."""
    run = Run("repair-run", 2, 2, seed=40)
    run.start_attempt(0)
    run.train(10, 900)
    sick = run.pods[(1, 1)]
    disk = "Failed to garbage collect required amount of images. Attempted to free 1 bytes"
    for minute in range(3):
        run.node_event(sick.node, 600 + 60 * minute, "FreeDiskSpaceFailed", disk)
    pool = sick.node.rsplit("-", 2)[0].removeprefix(f"gke-{CLUSTER}-")
    run.entries.append(
        {
            "insertId": "repair-1",
            "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Factivity",
            "resource": {
                "type": "gke_nodepool",
                "labels": {"project_id": PROJECT, "cluster_name": CLUSTER, "nodepool_name": pool},
            },
            "timestamp": run.at(800),
            "severity": "NOTICE",
            "protoPayload": {
                "methodName": "google.container.v1.ClusterManager.RepairNodePool",
                "metadata": {"operationType": "AUTO_REPAIR_NODES"},
            },
        }
    )
    for pod in (p for p in run.pods.values() if p.node.startswith(sick.node.rsplit("-", 1)[0])):
        run.kill(pod, 830)
    run.cascade(sick, 860)
    findings = findings_of(run, tmp_path / "repair")
    assert findings["root_cause"]["symptom"] == "node-auto-repair-or-upgrade"
    assert [c["host"] for c in findings["culprit_hosts"]] == [sick.node]


def test_an_oom_kill_beside_a_workload_that_trains_on_breaks_nothing(tmp_path: Path) -> None:
    """The node's OOM killer picks a DaemonSet's process (a metrics exporter) on a node of the
    workload; the workload's pod there keeps logging and training goes on: no failure."""
    run = Run("neighbour-run", 1, 2, seed=41)
    run.start_attempt(0)
    run.train(10, 1500)
    node = run.pods[(0, 1)].node
    killed = (
        "Memory cgroup out of memory: Killed process 3312 (metrics-export) total-vm:812044kB, "
        "anon-rss:398311kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1512kB oom_score_adj:999"
    )
    run.node_event(node, 600, "OOMKilling", killed)
    assert findings_of(run, tmp_path / "n")["status"] == "no_failure"


def test_a_pod_without_logs_is_placed_on_its_node_by_the_kubelets_events(tmp_path: Path) -> None:
    """Only the kubelet's events remain of the dead pod (its own logs are missing): their
    source.host places it on its node, where the cascades naming its task then point."""
    run = Run("dark-run", 1, 4, seed=42)
    run.start_attempt(0)
    run.train(10, 300)
    dead = run.pods[(0, 2)]
    run.silenced.add(dead.name)
    run.entries = [  # nothing of it before the window either: no container line, no scheduling
        e
        for e in run.entries
        if e.get("labels", {}).get(NODE_LABEL) != dead.node
        and dead.name not in str((e.get("jsonPayload") or {}).get("message"))
    ]
    run.entries.append(
        {
            "insertId": "kubelet-kill",
            "logName": f"projects/{PROJECT}/logs/events",
            "resource": {
                "type": "k8s_pod",
                "labels": {"pod_name": dead.name, "namespace_name": "default"},
            },
            "timestamp": run.at(330),
            "severity": "INFO",
            "jsonPayload": {
                "reason": "Killing",
                "message": "Stopping container jax-tpu",
                "involvedObject": {"kind": "Pod", "name": dead.name},
                "source": {"component": "kubelet", "host": dead.node},
            },
        }
    )
    run.cascade(dead, 420)
    findings = findings_of(run, tmp_path / "dark")
    assert findings["status"] == "inconclusive"
    assert [c["host"] for c in findings["culprit_hosts"]] == [dead.node]


def test_a_set_up_fault_that_disrupts_nothing_is_an_observation(tmp_path: Path) -> None:
    """ML Diagnostics is not injected (the SDK warns on every host) but training runs on: no
    failure, and the fault is reported as an observation with its next steps, cited."""
    run = Run("mldiag-run", 1, 2, seed=43)
    run.start_attempt(0)
    for pod in run.pods.values():
        run.log(pod, 5, "GKE_DIAGON_IDENTIFIER environment variable not set.", "WARNING")
    run.train(10, 900)
    findings = findings_of(run, tmp_path / "m")
    assert findings["status"] == "no_failure" and not findings["failures"]
    [observation] = findings["observations"]
    assert observation["symptom"] == "mldiag-webhook-not-injecting" and observation["evidence"]
    assert any(s["symptom"] == "mldiag-webhook-not-injecting" for s in findings["next_steps"])


def megascale_digest_run(lines: list[str]) -> Run:
    """Task 0 prints a Megascale digest (one entry per line), then the JobSet restarts."""
    run = Run("mxla-run", 2, 2, seed=36)
    run.start_attempt(0)
    run.train(10, 200)
    reporter = run.pods[(0, 0)]
    for offset, line in enumerate(lines):
        run.log(reporter, 500 + offset * 0.000007, line, "ERROR")
    run.cluster_event(
        510,
        "JobSet",
        run.workload,
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action",
    )
    return run


def test_a_reporter_naming_several_hosts_blames_each_of_them(tmp_path: Path) -> None:
    probe = megascale_digest_run([])
    named = [probe.node(0, 1), probe.node(1, 0)]
    run = megascale_digest_run(
        [
            "Megascale detects a hang that is likely caused by a networking issue. Please "
            "examine the underlying networking stack for the following hosts.",
            "Potential cause: Networking issue",
            "Potential culprit workers: " + ", ".join(named),
        ]
    )
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "megascale-hang-network"
    assert sorted(c["host"] for c in findings["culprit_hosts"]) == sorted(named)


def test_a_reporter_naming_no_host_blames_no_host(tmp_path: Path) -> None:
    run = megascale_digest_run(
        [
            "Megascale detects a hang that is likely caused by inconsistent HLO module "
            "compilation across workers.",
            "Potential cause: Fingerprint mismatch",
        ]
    )
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "megascale-hang-hlo-mismatch"
    assert findings["culprit_hosts"] == []
    assert rows(findings) == [("hang", "megascale-hang-hlo-mismatch", None)]


def test_an_event_reason_is_matched_where_kubernetes_puts_it(tmp_path: Path) -> None:
    run = Run("slice-run", 1, 2, seed=37)
    names = [f"{run.workload}-slice-job-0-{c}-abcde" for c in range(2)]
    for k in range(3):
        for name in names:
            run.pod_event(name, 1 + 300 * k, "FailedScheduling", PENDING, "Warning")
        run.cluster_event(
            5 + 300 * k,
            "Slice",
            f"{run.workload}-slice-job-0",
            "SliceCreationFailed",
            "Failed to create slice with topology 4x4x4: nodes are already assigned",
        )
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "dynamic-slice-creation-failed"
