"""A long, large TPU JobSet incident, written entry by entry (a million entries fit in memory).

A JobSet of `slices` × `hosts` pods trains for hours — step lines from every pod, checkpoint
lines, kubelet lines on every node and a TPU device plugin in kube-system on each — and at the
end one host hits a runtime HBM OOM (after a Python traceback), the others cascade naming its
task, and the JobSet restarts. Used by `benchmarks/bench_live.py` (256 hosts, 100k and 1M
entries) and by the live-plan tests (smaller).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, TextIO

from tests.scenarios import PROJECT, T0, Pod, Run

WORKLOAD = "bench-run"
HOSTS, SLICES = 4, 64
OOM = (
    "XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
    "allocate 4.39G. That was not possible. There are 2.30G free.; (0x0x0_HBM0)"
)
TRACEBACK = (
    "Traceback (most recent call last):",
    '  File "/app/maxtext/train.py", line 611, in train_loop',
    "    state, metrics = p_train_step(state, example_batch, nextrng)",
)


class StreamingRun(Run):
    """A `Run` that writes each entry as a JSON line instead of keeping it (a million fit)."""

    out: TextIO

    def _emit(self, entry: dict[str, Any]) -> None:
        entry["insertId"] = self._alnum(16)
        entry.setdefault("receiveTimestamp", entry["timestamp"])
        self.out.write(json.dumps(entry) + "\n")
        self.count = getattr(self, "count", 0) + 1

    def node_line(self, node: str, seconds: float, text: str) -> None:
        self._emit(
            {
                "logName": f"projects/{PROJECT}/logs/kubelet",
                "resource": {
                    "type": "k8s_node",
                    "labels": {"project_id": PROJECT, "node_name": node, "cluster_name": "c"},
                },
                "timestamp": self.at(seconds),
                "severity": "INFO",
                "jsonPayload": {"MESSAGE": text, "SYSLOG_IDENTIFIER": "kubelet"},
            }
        )

    def plugin_line(self, node: str, seconds: float, text: str) -> None:
        self._emit(
            {
                "logName": f"projects/{PROJECT}/logs/stderr",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "namespace_name": "kube-system",
                        "pod_name": f"tpu-device-plugin-{node[-4:]}",
                        "container_name": "tpu-device-plugin",
                    },
                },
                "labels": {"compute.googleapis.com/resource_name": node},
                "timestamp": self.at(seconds),
                "severity": "INFO",
                "textPayload": text,
            }
        )


def make_bundle(
    path: Path, entries: int, slices: int = SLICES, hosts: int = HOSTS, workload: str = WORKLOAD
) -> dict[str, Any]:
    """Write the incident as JSONL; returns its entry count, window and culprit node."""
    per_round = slices * hosts
    rounds = max(10, entries * 9 // 10 // per_round)
    period = 20.0 if entries > 200_000 else 27.0
    with path.open("w", encoding="utf-8") as out:
        run = StreamingRun(workload, slices, hosts, seed=256, step_period=period)
        run.out = out
        run.start_attempt(0)
        end = 30 + rounds * period
        culprit: Pod = run.pods[(min(17, slices - 1), min(2, hosts - 1))]
        moment, step = 30.0, 0
        infra_every = max(1, round(9 * 300 / period / 10))  # ~10% of the entries: node chatter
        while moment < end:
            step = run.train(moment, moment + period, step)
            if step % 100 == 0:
                for pod in run.pods.values():
                    run.log(pod, moment + 5, f"Saved checkpoint at step {step} to gs://ckpt/{step}")
            if step % infra_every == 0:
                for node in run.nodes.values():
                    run.node_line(node, moment + 3, "SyncLoop (housekeeping) took 12ms")
                    run.plugin_line(node, moment + 4, "health check passed for 4 TPU chips")
            moment += period
        for offset, line in enumerate(TRACEBACK):
            run.log(culprit, end + 4 + offset * 0.001, line, "ERROR")
        run.log(culprit, end + 5, OOM, "ERROR")
        run.kill(culprit, end + 5)
        run.train(end + 6, end + 90, step)
        restart = run.cascade(culprit, end + 100)
        run.restart(restart + 30)
    start = T0.timestamp()
    return {
        "entries": run.count,
        "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
        "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + restart + 600)),
        "culprit": culprit.node,
    }
