"""Issue #15: HBM and host memory before an OOM become cited evidence on the OOM's row.

Live runs use the real google-cloud-logging and google-cloud-monitoring clients against the local
Logging and Monitoring servers; offline runs read a bundle whose `metrics/` was written by
`mlwiki metrics --out` beside its logs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import grpc
import pytest

from tests.fakes.logging_server import serve_logging
from tests.fakes.monitoring_server import serve_monitoring
from tests.metric_scenarios import (
    END,
    GIB,
    HBM_TOTAL,
    HBM_USED,
    MEM_SHARE,
    MEM_USED,
    NODE_SHARE,
    START,
    hbm_run,
    host_oom_run,
)
from tests.scenarios import PROJECT, Run


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


def test_node_names_are_asked_in_chunks_the_action_parameter_takes() -> None:
    from mlwiki.engine.params import MAX_VALUE_LENGTH
    from mlwiki.metrics.export import NODES_PER_QUERY, node_chunks

    names = [f"gke-tpu-cluster-tpu-v5p-pool-{i % 16}-ad38600e-{i:04d}" for i in range(1000)]
    chunks = node_chunks(names + names[:10])
    assert [n for chunk in chunks for n in chunk] == sorted(names)
    assert all(len(c) <= NODES_PER_QUERY and len(",".join(c)) <= MAX_VALUE_LENGTH for c in chunks)
    for chunk, following in zip(chunks, chunks[1:]):  # each as full as it can be
        assert len(",".join([*chunk, following[0]])) > MAX_VALUE_LENGTH
    assert node_chunks([]) == [] and node_chunks(["a", "b"]) == [["a", "b"]]
