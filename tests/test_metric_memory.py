"""Issue #15: HBM and host memory before an OOM become cited evidence on the OOM's row.

Live runs use the real google-cloud-logging and google-cloud-monitoring clients against the local
Logging and Monitoring servers; offline runs read a bundle whose `metrics/` was written by
`mlwiki metrics --out` beside its logs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Optional

import grpc
import pytest

from tests.fakes.logging_server import serve_logging
from tests.fakes.monitoring_server import gauge, serve_monitoring
from tests.scenarios import CLUSTER, NAMESPACE, PROJECT, T0, ZONE, Pod, Run, loud_hbm_oom

GIB = 2**30
HBM_USED = "kubernetes.io/container/accelerator/memory_used"
HBM_TOTAL = "kubernetes.io/container/accelerator/memory_total"
MEM_SHARE = "kubernetes.io/container/memory/limit_utilization"
MEM_USED = "kubernetes.io/container/memory/used_bytes"
NODE_SHARE = "kubernetes.io/node/memory/allocatable_utilization"
START = T0.strftime("%Y-%m-%dT%H:%M:%SZ")
END = (T0 + timedelta(seconds=1800)).strftime("%Y-%m-%dT%H:%M:%SZ")
CHIPS = 4
SAMPLE_AT = 5  # seconds past each minute when GKE samples (deterministic, for exact phrases)


def _container(pod: Pod, container: str = "jax-tpu") -> dict[str, str]:
    return {
        "project_id": PROJECT,
        "location": ZONE,
        "cluster_name": CLUSTER,
        "namespace_name": NAMESPACE,
        "pod_name": pod.name,
        "container_name": container,
    }


def _samples(pod: Pod, value: Callable[[float], float]) -> list[tuple[float, float]]:
    """One sample a minute while the pod lives (a dead pod's series just ends)."""
    end = pod.end if pod.end is not None else 1800
    moments = [m * 60 + SAMPLE_AT for m in range(31)]
    return [(T0.timestamp() + t, value(t)) for t in moments if pod.start <= t < end]


def hbm_run(workload: str, *, climbs: bool = True) -> tuple[Run, Pod, list[dict[str, Any]]]:
    """A runtime HBM OOM on one of four hosts at 913 s; its chip 0's HBM climbs from 9 GiB to
    15.8 of 16 GiB (or stays at 8 GiB) while the other chips and hosts hold 10–11 GiB."""
    run, culprit = loud_hbm_oom(workload, 1, 4, threads=1, rounds=90)
    rng = random.Random(7)
    series = []
    for pod in run.pods.values():
        for chip in range(CHIPS):
            labels = {"accelerator_id": f"{pod.node}-{chip}", "make": "cloud-tpu", "model": "v5e"}
            if pod is culprit and chip == 0:

                def used(t: float) -> float:
                    return round((9 + 6.8 * min(t, 905) / 905) * GIB) if climbs else 8 * GIB

            else:
                base = rng.uniform(10, 11)

                def used(t: float, base: float = base) -> float:
                    return round(base * GIB)

            series.append(
                gauge(HBM_USED, _container(pod), _samples(pod, used), metric_labels=labels)
            )
            series.append(
                gauge(
                    HBM_TOTAL,
                    _container(pod),
                    _samples(pod, lambda t: 16 * GIB),
                    metric_labels=labels,
                )
            )
    return run, culprit, series


def host_oom_run(workload: str) -> tuple[Run, Pod, list[dict[str, Any]]]:
    """An OOM kill of one of four hosts' containers at 605 s: its non-evictable working set climbs
    to 99.7 % of its 400 GiB limit; the others hold half; every node at 55–80 % of allocatable.
    The JobSet restarts and trains on."""
    run = Run(workload, 1, 4, seed=21, step_period=60)
    run.start_attempt(0)
    run.train(10, 600)
    oom = run.pods[(0, 1)]
    run.node_event(
        oom.node,
        605,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 41872 (python3) total-vm:412044880kB, "
        "anon-rss:398311424kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:790512kB "
        "oom_score_adj:-997",
    )
    run.pod_event(
        oom.name,
        606,
        "OOMKilled",
        f"Container jax-tpu in pod {oom.name} was OOMKilled (exit code 137)",
        "Warning",
    )
    run.kill(oom, 605)
    run.cascade(oom, 700)
    first = list(run.pods.values())
    run.restart(760)
    run.train(800, 1500, step0=10)
    series = []
    for pod in first + list(run.pods.values()):
        if pod is oom:

            def share(t: float) -> float:
                return round(0.6 + 0.397 * min(t, 545) / 545, 4)

        else:

            def share(t: float) -> float:
                return 0.5

        for memory_type, factor in (("non-evictable", 1.0), ("evictable", 0.1)):
            labels = {"memory_type": memory_type}
            series.append(
                gauge(
                    MEM_SHARE,
                    _container(pod),
                    _samples(pod, lambda t, f=factor: share(t) * f),
                    metric_labels=labels,
                    value_type="DOUBLE",
                )
            )
            series.append(
                gauge(
                    MEM_USED,
                    _container(pod),
                    _samples(pod, lambda t, f=factor: round(share(t) * f * 400 * GIB)),
                    metric_labels=labels,
                )
            )
    for node in sorted({p.node for p in first}):
        level = 0.8 if node == oom.node else 0.55
        whole = Pod("node", node, 0, 0, 0, 0.0)
        series.append(
            gauge(
                NODE_SHARE,
                {
                    "project_id": PROJECT,
                    "location": ZONE,
                    "cluster_name": CLUSTER,
                    "node_name": node,
                },
                _samples(whole, lambda t, v=level: v),
                metric_labels={"memory_type": "non-evictable", "component": "user"},
                resource_type="k8s_node",
                value_type="DOUBLE",
            )
        )
    return run, oom, series


@contextmanager
def live(monkeypatch: pytest.MonkeyPatch, run: Run, series: list[dict[str, Any]]) -> Iterator[Any]:
    with serve_logging(run.entries) as logging_api, serve_monitoring(series) as monitoring:
        monkeypatch.setenv("MLWIKI_LOGGING_ENDPOINT", logging_api.url)
        monkeypatch.setenv("MLWIKI_MONITORING_ENDPOINT", monitoring.endpoint)
        yield monitoring


def troubleshoot(cli, *where: str, out: Optional[Path] = None) -> dict[str, Any]:
    extra = ["--out", str(out)] if out else []
    result = cli("troubleshoot", *where, "--start", START, "--end", END, "--format", "json", *extra)
    assert result.code == 0, result.stderr
    return result.json()


def cited(findings: dict[str, Any], ids: list[str]) -> list[dict[str, Any]]:
    by_id = {e["id"]: e for e in findings["evidence"]}
    return [by_id[i] for i in ids if by_id[i].get("kind") == "metric"]


def verdict(findings: dict[str, Any]) -> tuple[Any, ...]:
    """What the logs decide: status, root cause, culprits and the failure table's rows."""
    root = findings["root_cause"]
    return (
        findings["status"],
        root and (root["symptom"], root["confidence"]),
        [c["host"] for c in findings["culprit_hosts"]],
        [(f["kind"], f["symptom"], f["host"], f["time"]) for f in findings["failures"]],
    )


def metric_points(findings: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (e["id"], e["metric"], e["pod"], e["host"], e["timestamp"], e["value"])
        for e in findings["evidence"]
        if e.get("kind") == "metric"
    )


def test_an_hbm_oom_whose_culprit_climbs_to_the_limit_cites_the_peak(
    cli, monkeypatch, tmp_path
) -> None:
    run, culprit, series = hbm_run("hbm-run")
    with live(monkeypatch, run, series) as monitoring:
        out = tmp_path / "findings.json"
        findings = troubleshoot(cli, "hbm-run", "--project", PROJECT, out=out)
        calls = len(monitoring.requests)
        assert calls <= 4  # duty cycle, HBM used, HBM total; the workflow's are answered cached
        assert findings["status"] == "diagnosed"
        assert findings["root_cause"]["symptom"] == "hbm-oom-runtime"
        row = findings["failures"][0]
        points = cited(findings, row["evidence"])
        used = [p for p in points if p["metric"] == HBM_USED and p["host"] == culprit.node]
        total = [p for p in points if p["metric"] == HBM_TOTAL]
        assert max(p["value"] for p in used) == round(15.8 * GIB)  # the peak just before the crash
        assert min(p["value"] for p in used) < 11.5 * GIB  # where the climb started (fullest chip)
        assert {p["value"] for p in total} == {16 * GIB}
        peers = [p for p in used + points if p["host"] != culprit.node and p["metric"] == HBM_USED]
        assert peers and all(p["value"] < 11.5 * GIB for p in peers)  # a peer, for contrast
        assert f"HBM on host {culprit.node} reached 15.8 of 16 GiB (99%)" in row["summary"]
        assert "the OOM" in row["summary"] and "corroborates hbm-oom-runtime" in row["summary"]
        mine = next(c for c in findings["culprit_hosts"] if c["host"] == culprit.node)
        assert {e["host"] for e in cited(findings, mine["evidence"])} == {culprit.node}
        assert len(cited(findings, mine["evidence"])) >= 3
        (memory,) = findings["metrics"]["memory"]
        assert memory["verdict"] == "at_limit" and memory["host"] == culprit.node
        report = out.with_suffix(".md").read_text()
        assert "## Memory before the OOM (Cloud Monitoring)" in report
        assert "reached 15.8 of 16 GiB (99%)" in report
        # verify reads every cited point back from Cloud Monitoring: one query per metric.
        check = cli("verify", str(out), "--project", PROJECT)
        assert check.code == 0, check.stdout + check.stderr
        tampered = json.loads(out.read_text())
        peak = next(e for e in tampered["evidence"] if e.get("value") == round(15.8 * GIB))
        peak["value"] = 12 * GIB
        out.write_text(json.dumps(tampered))
        bad = cli("verify", str(out), "--project", PROJECT)
        assert bad.code == 1 and f"the value is {round(15.8 * GIB)}" in bad.stdout


def test_an_oom_kill_with_the_working_set_at_its_limit_is_cited(cli, monkeypatch) -> None:
    run, oom, series = host_oom_run("oom-run")
    with live(monkeypatch, run, series) as monitoring:
        findings = troubleshoot(cli, "oom-run", "--project", PROJECT)
        asked = [r["filter"] for r in monitoring.requests]
    # One query per metric (duty cycle, container share and bytes, the culprit node); the
    # verification workflow may ask them again over its own window, within the call budget.
    assert len(set(asked)) == 4 and len(asked) <= 8
    assert findings["root_cause"]["symptom"] == "host-oom-killed"
    row = findings["failures"][0]
    assert row["host"] == oom.node
    points = cited(findings, row["evidence"])
    shares = [p for p in points if p["metric"] == MEM_SHARE and p["host"] == oom.node]
    assert max(p["value"] for p in shares) == pytest.approx(0.997)
    assert all(p["labels"]["metric"]["memory_type"] == "non-evictable" for p in shares)
    assert any(p["metric"] == MEM_USED and p["value"] > 398 * GIB for p in points)
    (node,) = [p for p in points if p["metric"] == NODE_SHARE]
    assert node["value"] == 0.8 and node["labels"]["resource"]["node_name"] == oom.node
    assert (
        f"the memory of pod {oom.name} on host {oom.node} reached 99.7% of its limit"
        in row["summary"]
    )
    assert "5 s before the OOM kill" in row["summary"]
    assert f"node {oom.node} was at 80% of its allocatable memory" in row["summary"]
    assert "node memory pressure" not in row["summary"]
    (memory,) = findings["metrics"]["memory"]
    assert memory["verdict"] == "at_limit" and memory["pod"] == oom.name
    # The second attempt's pods (restarted after the kill) are not the culprit's series.
    assert {p["pod"] for p in shares} == {oom.name}


def _gap_free(findings: dict[str, Any]) -> dict[str, Any]:
    return {**findings, "data": None, "summary": None}


@pytest.mark.parametrize("how", ["no series", "permission denied"])
def test_missing_memory_metrics_leave_the_log_diagnosis_and_name_the_gap(
    cli, monkeypatch, tmp_path, how
) -> None:
    run, culprit, series = hbm_run("blind-hbm")
    bundle = run.write(tmp_path / "logs", {})
    (bundle / "expected.json").unlink()
    logs_only = troubleshoot(cli, "blind-hbm", "--bundle", str(bundle))
    with live(monkeypatch, run, [] if how == "no series" else series) as monitoring:
        if how == "permission denied":
            monitoring.fail_next(grpc.StatusCode.PERMISSION_DENIED, n=10, after=1)
        findings = troubleshoot(cli, "blind-hbm", "--project", PROJECT)
    assert verdict(findings) == verdict(logs_only)
    assert [f["summary"] for f in findings["failures"]] == [
        f["summary"] for f in logs_only["failures"]
    ]
    assert not cited(findings, findings["failures"][0]["evidence"])
    assert "memory" not in (findings.get("metrics") or {})
    gaps = [g for g in findings["data"]["missing"] if "TPU HBM in use" in g]
    assert gaps and culprit.node in gaps[0]
    if how == "no series":
        assert "no point in Cloud Monitoring" in gaps[0]
    else:
        assert "PermissionDenied" in gaps[0]


@pytest.mark.parametrize("scenario", ["hbm", "host"])
def test_an_offline_bundle_replays_the_live_memory_evidence(
    cli, monkeypatch, tmp_path, scenario
) -> None:
    workload = f"replay-{scenario}"
    run, _, series = (hbm_run if scenario == "hbm" else host_oom_run)(workload)
    bundle = run.write(tmp_path / "bundle", {})
    (bundle / "expected.json").unlink()
    with live(monkeypatch, run, series):
        online = troubleshoot(cli, workload, "--project", PROJECT)
        export = cli(
            "metrics",
            workload,
            "--project",
            PROJECT,
            "--start",
            START,
            "--end",
            END,
            "--out",
            str(bundle),
        )
        assert export.code == 0, export.stderr
        assert "node memory: not read" not in export.stdout
    names = sorted(p.name for p in (bundle / "metrics").iterdir())
    if scenario == "host":
        assert "memory-allocatable-utilization.json" in names
    offline_out = tmp_path / "offline.json"
    offline = troubleshoot(cli, workload, "--bundle", str(bundle), out=offline_out)
    assert verdict(offline) == verdict(online)
    assert metric_points(offline) == metric_points(online)
    assert [f["summary"] for f in offline["failures"]] == [f["summary"] for f in online["failures"]]
    assert offline["metrics"]["memory"] == online["metrics"]["memory"]
    check = cli("verify", str(offline_out), "--bundle", str(bundle))
    assert check.code == 0, check.stdout + check.stderr
    tampered = json.loads(offline_out.read_text())
    item = next(
        e for e in tampered["evidence"] if e["id"] == offline["metrics"]["memory"][0]["evidence"][0]
    )
    item["value"] *= 0.5
    offline_out.write_text(json.dumps(tampered))
    bad = cli("verify", str(offline_out), "--bundle", str(bundle))
    assert bad.code == 1 and "the value is" in bad.stdout

    # A handoff carries the metrics the memory evidence cites, and verify replays them.
    from mlwiki.handoff.evidence import find_cited_entries
    from mlwiki.handoff.package import HandoffInputs, Stamp, assemble, redact_content
    from mlwiki.logs.bundle import iter_bundle
    from mlwiki.metrics.source import read_metrics_json
    from mlwiki.redact import Redactor

    entries = find_cited_entries(offline, iter_bundle(bundle))
    metrics = read_metrics_json(bundle / "metrics")
    inputs = HandoffInputs(workload, None, offline, entries, metrics=metrics)
    redactor = Redactor()
    package = assemble(
        redact_content(inputs, redactor),
        inputs,
        "bucket",
        Stamp("2026-01-01T00:00:00Z", "x", "unknown"),
        redactor,
    )
    assert any(name.startswith("metrics/") and "memory" in name for name in package.files)
    folder = tmp_path / "handoff"
    package.write(folder)
    replay = cli("verify", str(folder / "findings.json"), "--bundle", str(folder))
    assert replay.code == 0, replay.stdout + replay.stderr


def test_hbm_far_below_the_limit_is_reported_and_the_log_verdict_stands(cli, tmp_path) -> None:
    run, culprit, series = hbm_run("flat-hbm", climbs=False)
    plain = run.write(tmp_path / "plain", {})
    bundle = run.write(tmp_path / "bundle", {})
    (bundle / "metrics").mkdir()
    (bundle / "metrics" / "raw.json").write_text(json.dumps({"timeSeries": series}))
    logs_only = troubleshoot(cli, "flat-hbm", "--bundle", str(plain))
    findings = troubleshoot(cli, "flat-hbm", "--bundle", str(bundle))
    assert verdict(findings) == verdict(logs_only)
    (memory,) = findings["metrics"]["memory"]
    assert memory["verdict"] == "below_limit" and memory["host"] == culprit.node
    assert f"HBM on host {culprit.node} peaked at" in memory["summary"]
    assert "the log evidence stands" in memory["summary"]
    assert set(memory["evidence"]) <= set(findings["failures"][0]["evidence"])


def test_the_export_reads_node_memory_for_the_logs_nodes_or_says_it_did_not(
    cli, monkeypatch, tmp_path
) -> None:
    _, oom, series = host_oom_run("export-run")
    window = ("--start", START, "--end", END)
    with serve_monitoring(series) as monitoring:
        monkeypatch.setenv("MLWIKI_MONITORING_ENDPOINT", monitoring.endpoint)
        bare = cli(
            "metrics", "export-run", "--project", PROJECT, *window, "--out", str(tmp_path / "a")
        )
        assert bare.code == 0, bare.stderr
        assert "node memory: not read" in bare.stdout
        assert not (tmp_path / "a" / "metrics" / "memory-allocatable-utilization.json").exists()
        given = cli(
            "metrics",
            "export-run",
            "--project",
            PROJECT,
            *window,
            "--nodes",
            oom.node,
            "--out",
            str(tmp_path / "b"),
            "--format",
            "json",
        )
        assert given.code == 0, given.stderr
        assert given.json()["nodes"] == 1 and given.json()["skipped"] == []
        written = json.loads(
            (tmp_path / "b" / "metrics" / "memory-allocatable-utilization.json").read_text()
        )
        assert [s["resource"]["labels"]["node_name"] for s in written["timeSeries"]] == [oom.node]
        bad = cli("metrics", "export-run", "--project", PROJECT, *window, "--nodes", "Bad_Node")
        assert bad.code == 2 and "--nodes" in bad.stderr
