"""Done-when of issue #15: Cloud Monitoring metrics as cited evidence in the diagnosis.

Live runs use the real google-cloud-logging and google-cloud-monitoring clients against the local
Logging and Monitoring servers; the offline runs read the same data from a bundle whose
`metrics/` was written by `mlwiki metrics --out`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Optional

import pytest

from tests.fakes.logging_server import serve_logging
from tests.fakes.monitoring_server import gauge, serve_monitoring
from tests.scenarios import CLUSTER, NAMESPACE, PROJECT, T0, ZONE, Run

DUTY = "kubernetes.io/container/accelerator/duty_cycle"
START = T0.strftime("%Y-%m-%dT%H:%M:%SZ")
END = (T0 + timedelta(seconds=3660)).strftime("%Y-%m-%dT%H:%M:%SZ")
QUIET_FROM = 1800  # seconds after T0 when the chips stop
CHIPS = 4


def silent_run(
    workload: str, *, wedged: Optional[int] = None, seed: int = 3
) -> tuple[Run, list[dict[str, Any]]]:
    """Four hosts that log an info line a minute and never a step line or an error; their TPU
    duty cycle is busy, then 0 from QUIET_FROM on — on every host, or only on host `wedged`."""
    run = Run(workload, 1, 4, seed=seed)
    run.start_attempt(0)
    for minute in range(1, 61):
        for pod in run.pods.values():
            run.log(
                pod, minute * 60 + 3, "I0314 {clock} 1 input_pipeline.py:212] prefetch queue 14/16"
            )
    rng = random.Random(seed)
    series = []
    for (_, index), pod in sorted(run.pods.items()):
        stops = wedged is None or index == wedged
        for chip in range(CHIPS):
            points = []
            for minute in range(61):
                moment = T0.timestamp() + minute * 60 + rng.randint(1, 50)
                idle = stops and minute * 60 >= QUIET_FROM
                points.append((moment, 0 if idle else rng.randint(82, 99)))
            labels = {
                "project_id": PROJECT,
                "location": ZONE,
                "cluster_name": CLUSTER,
                "namespace_name": NAMESPACE,
                "pod_name": pod.name,
                "container_name": "jax-tpu",
            }
            series.append(
                gauge(
                    DUTY,
                    labels,
                    points,
                    metric_labels={
                        "accelerator_id": f"{pod.node}-{chip}",
                        "make": "cloud-tpu",
                        "model": "tpu-v5p",
                    },
                )
            )
    return run, series


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


def rows(findings: dict[str, Any]) -> list[tuple[str, Optional[str], Optional[str]]]:
    return [(f["kind"], f["symptom"], f["host"]) for f in findings["failures"]]


def metric_points(findings: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (e["metric"], e["pod"], e["host"], e["timestamp"], e["value"])
        for e in findings["evidence"]
        if e.get("kind") == "metric"
    )


def test_a_silent_stall_is_found_from_the_duty_cycle_and_cites_metric_points(
    cli, monkeypatch, tmp_path
) -> None:
    run, series = silent_run("idle-run")
    with live(monkeypatch, run, series) as monitoring:
        out = tmp_path / "findings.json"
        findings = troubleshoot(cli, "idle-run", "--project", PROJECT, out=out)
        assert findings["status"] == "inconclusive" and findings["root_cause"] is None
        # Inconclusive: the row has no symptom; the stall is what its cited points show.
        assert rows(findings) == [("hang", None, None)]
        assert findings["culprit_hosts"] == []
        row = findings["failures"][0]
        assert {e["symptom"] for e in findings["evidence"] if e["id"] in row["evidence"]} == {
            "training-stall"
        }
        assert row["time"] == (T0 + timedelta(seconds=QUIET_FROM + 60)).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        cited = {e["id"]: e for e in findings["evidence"] if e.get("kind") == "metric"}
        assert set(row["evidence"]) <= set(cited) and len(row["evidence"]) >= 3
        values = [cited[i]["value"] for i in row["evidence"]]
        assert 0 in values and max(values) > 80  # busy, then idle
        assert all(
            cited[i]["metric"] == DUTY and cited[i]["labels"]["resource"]["pod_name"]
            for i in row["evidence"]
        )
        assert "fell to 1% or less" in row["summary"] and "all 4 hosts" in findings["summary"]
        assert findings["data"]["metrics"]["hosts"] == 4
        strip = findings["metrics"]["duty_cycle"]["rows"]
        assert len(strip) == 1 and strip[0]["count"] == 4 and strip[0]["last"] == 0
        report = out.with_suffix(".md").read_text()
        assert "## TPU duty cycle per host (Cloud Monitoring)" in report and "4 hosts (" in report
        calls = len(monitoring.requests)
        assert 1 <= calls <= 4  # the diagnosis' one query, plus the stall workflow's (cached)
        # verify checks every cited point against Cloud Monitoring: one query per metric.
        check = cli("verify", str(out), "--project", PROJECT)
        assert check.code == 0, check.stdout + check.stderr
        assert len(monitoring.requests) == calls + 1
        tampered = json.loads(out.read_text())
        metric_item = next(
            e for e in tampered["evidence"] if e.get("kind") == "metric" and e["value"] == 0
        )
        metric_item["value"] = 42
        out.write_text(json.dumps(tampered))
        bad = cli("verify", str(out), "--project", PROJECT)
        assert bad.code == 1 and "the value is 0" in bad.stdout


def test_one_wedged_host_is_named_as_the_culprit(cli, monkeypatch) -> None:
    run, series = silent_run("wedge-run", wedged=2)
    wedged = next(p for (_, i), p in run.pods.items() if i == 2)
    with live(monkeypatch, run, series):
        findings = troubleshoot(cli, "wedge-run", "--project", PROJECT)
    assert rows(findings) == [("hang", None, wedged.node)]
    assert [c["host"] for c in findings["culprit_hosts"]] == [wedged.node]
    culprit = findings["culprit_hosts"][0]
    assert culprit["pod"] == wedged.name
    cited = {e["id"]: e for e in findings["evidence"]}
    assert {cited[i]["kind"] for i in culprit["evidence"]} == {"metric"}
    assert {cited[i]["host"] for i in culprit["evidence"]} == {wedged.node}
    assert "stayed busy" in findings["failures"][0]["summary"]
    first_row = findings["metrics"]["duty_cycle"]["rows"][0]
    assert first_row["hosts"] == [wedged.node] and first_row["last"] == 0  # the outlier first


def test_missing_metrics_are_an_honest_partial_never_no_failure(cli, monkeypatch) -> None:
    run, _ = silent_run("blind-run")
    with live(monkeypatch, run, []):
        findings = troubleshoot(cli, "blind-run", "--project", PROJECT)
    assert findings["status"] == "inconclusive" and findings["data"]["partial"] is True
    assert any("no TPU duty-cycle series" in gap for gap in findings["data"]["missing"])
    assert findings["failures"] == []
    # The same logs with the chips busy to the end: Cloud Monitoring says the run is working.
    run, series = silent_run("busy-run", wedged=99)
    with live(monkeypatch, run, series):
        healthy = troubleshoot(cli, "busy-run", "--project", PROJECT)
    assert healthy["status"] == "no_failure" and healthy["data"]["partial"] is False


@pytest.mark.parametrize("wedged", [None, 1])
def test_an_offline_bundle_with_metrics_gives_the_live_findings(
    cli, monkeypatch, tmp_path, wedged
) -> None:
    run, series = silent_run("replay-run", wedged=wedged)
    bundle = tmp_path / "bundle"
    with live(monkeypatch, run, series):
        online = troubleshoot(cli, "replay-run", "--project", PROJECT)
        export = cli(
            "metrics",
            "replay-run",
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
        assert "wrote" in export.stdout and "TPU duty cycle per host" in export.stdout
    run.write(bundle, {})
    (bundle / "expected.json").unlink()
    assert (bundle / "metrics" / "accelerator-duty-cycle.json").exists()
    offline_out = tmp_path / "offline.json"
    offline = troubleshoot(cli, "replay-run", "--bundle", str(bundle), out=offline_out)
    for key in ("status", "culprit_hosts"):
        assert offline[key] == online[key], key
    strip = lambda f: {k: v for k, v in f["metrics"]["duty_cycle"].items() if k != "source"}  # noqa: E731
    assert strip(offline) == strip(online)
    assert rows(offline) == rows(online) and metric_points(offline) == metric_points(online)
    check = cli("verify", str(offline_out), "--bundle", str(bundle))
    assert check.code == 0, check.stdout + check.stderr

    # A handoff carries the bundle's metrics and replays the same: verify against the package.
    from mlwiki.handoff.package import HandoffInputs, Stamp, assemble, redact_content
    from mlwiki.metrics.source import read_metrics_json
    from mlwiki.redact import Redactor

    inputs = HandoffInputs(
        "replay-run",
        None,
        json.loads(offline_out.read_text()),
        metrics=read_metrics_json(bundle / "metrics"),
    )
    redactor = Redactor()
    content = redact_content(inputs, redactor)
    package = assemble(
        content, inputs, "bucket", Stamp("2026-01-01T00:00:00Z", "x", "unknown"), redactor
    )
    assert "metrics/accelerator-duty-cycle.json" in package.files
    assert (
        "metrics/accelerator-duty-cycle.json" in json.loads(package.files["manifest.json"])["files"]
    )
    assert package.metadata["evidence"]["missing"] == []
    folder = tmp_path / "handoff"
    package.write(folder)
    replay = cli("verify", str(folder / "findings.json"), "--bundle", str(folder))
    assert replay.code == 0, replay.stdout + replay.stderr
