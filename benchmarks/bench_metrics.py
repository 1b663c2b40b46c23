"""Metric evidence at a thousand hosts: a bundle's duty cycle (1,000 hosts × 4 chips × 360 points)
aggregated per pod, judged for stall patterns and drawn as the per-host strip, against the
baseline of `json.loads` of the same `metrics/` file. Run by hand:

    _wiki/.venv/bin/python benchmarks/bench_metrics.py [HOSTS]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from mlwiki.diagnose.metric_evidence import DutyView, HostSeries, find_pattern
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.report import strip_rows
from mlwiki.metrics.source import BundleMetrics
from mlwiki.timewindow import Window

DUTY = "kubernetes.io/container/accelerator/duty_cycle"
T0 = 1_767_225_600


def write_bundle(folder: Path, hosts: int) -> Path:
    rng = random.Random(3)
    series = []
    for host in range(hosts):
        for chip in range(4):
            points = [
                {
                    "interval": {
                        "endTime": datetime.fromtimestamp(T0 + 60 * i + 7, timezone.utc).strftime(
                            "%Y-%m-%dT%H:%M:%SZ"
                        )
                    },
                    "value": {
                        "int64Value": str(0 if host == 7 and i > 200 else rng.randint(80, 99))
                    },
                }
                for i in range(360, 0, -1)
            ]
            series.append(
                {
                    "metric": {"type": DUTY, "labels": {"accelerator_id": f"n{host}-{chip}"}},
                    "resource": {"type": "k8s_container", "labels": {"pod_name": f"job-0-{host}"}},
                    "metricKind": "GAUGE",
                    "valueType": "INT64",
                    "points": points,
                }
            )
    path = folder / "metrics" / "duty.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"timeSeries": series}))
    return path


def main() -> None:
    hosts = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = write_bundle(folder, hosts)
        megabytes = path.stat().st_size / 1e6
        started = time.perf_counter()
        json.loads(path.read_text())
        baseline = time.perf_counter() - started
        started = time.perf_counter()
        metrics = BundleMetrics(folder)
        aggregation = Aggregation(60, "ALIGN_MEAN", "REDUCE_MEAN", ("resource.label.pod_name",))
        window = Window(
            datetime.fromtimestamp(T0, timezone.utc),
            datetime.fromtimestamp(T0 + 21660, timezone.utc),
        )
        result = metrics.query(
            f'metric.type = "{DUTY}" AND resource.labels.pod_name = starts_with("job-")',
            aggregation,
            window,
        )
        hosts_view = [HostSeries(s.pod or "", s.pod, s) for s in result.series]
        pattern = find_pattern(DutyView("bench", True, DUTY, aggregation, hosts_view))
        rows = strip_rows(result.series, *result.interval, threshold=1)
        elapsed = time.perf_counter() - started
    print(
        f"{hosts} hosts ({megabytes:.0f} MB): {elapsed:.2f} s (json.loads alone {baseline:.2f} s, "
        f"ratio {elapsed / baseline:.1f}x); pattern {pattern.kind if pattern else None}, "
        f"{len(rows)} strip rows"
    )


if __name__ == "__main__":
    main()
