"""Throughput of the Logging-query evaluator on many entries, against baselines in the same run.

    _wiki/.venv/bin/python benchmarks/bench_query.py [--entries 1000000]

A typical six-clause filter (resource.type, a label with a quoted key, severity>=, a timestamp
range, a `:` substring and a `=~` regex) is compiled once and evaluated on every entry. Baselines:
a hand-written Python predicate doing the same checks, and `orjson.loads` of the same entries (what
decoding costs before any filter runs). Prints entries/s and the ratios.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, Callable

import orjson
import re2

from mlwiki.logs.query import compile_filter
from mlwiki.timewindow import timestamp_ns

FILTER = (
    'resource.type="k8s_container" '
    'AND labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"="llm-pretrain" '
    "AND severity>=WARNING "
    'AND timestamp>="2024-05-01T10:00:00Z" AND timestamp<="2024-05-01T11:00:00Z" '
    'AND textPayload:"out of memory" '
    'AND textPayload=~"RESOURCE_EXHAUSTED: .*[0-9]+(\\\\.[0-9]+)?[GM]iB"'
)
SEVERITIES = ["INFO", "INFO", "INFO", "WARNING", "ERROR"]
TEXTS = [
    "completed step: {n}, loss=2.31",
    "RESOURCE_EXHAUSTED: Out of memory while trying to allocate {n}.5GiB",
    "Terminating process because the JAX distributed service detected fatal errors",
    "checkpoint saved at step {n}",
]


def make_entries(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    entries = []
    for number in range(count):
        minute, second = divmod(number % 7200, 60)
        entries.append(
            {
                "insertId": f"id{number:08d}",
                "logName": "projects/demo/logs/stdout",
                "resource": {
                    "type": rng.choice(["k8s_container", "k8s_container", "k8s_node"]),
                    "labels": {
                        "pod_name": f"llm-pretrain-0-{number % 64}",
                        "namespace_name": "default",
                    },
                },
                "labels": {
                    "k8s-pod/jobset_sigs_k8s_io/jobset-name": rng.choice(["llm-pretrain", "other"]),
                    "compute.googleapis.com/resource_name": f"gke-tpu-{number % 64}",
                },
                "severity": rng.choice(SEVERITIES),
                "timestamp": f"2024-05-01T{10 + minute // 60:02d}:{minute % 60:02d}:{second:02d}.{number % 10**9:09d}Z",
                "textPayload": rng.choice(TEXTS).format(n=number),
            }
        )
    return entries


def hand_written() -> Callable[[dict[str, Any]], bool]:
    """The same checks, written by hand in plain Python (the bar to compare against)."""
    rank = {"DEFAULT": 0, "DEBUG": 100, "INFO": 200, "NOTICE": 300, "WARNING": 400, "ERROR": 500}
    low = timestamp_ns("2024-05-01T10:00:00Z")
    high = timestamp_ns("2024-05-01T11:00:00Z")
    regex = re2.compile(r"RESOURCE_EXHAUSTED: .*[0-9]+(\.[0-9]+)?[GM]iB")

    def predicate(entry: dict[str, Any]) -> bool:
        if entry.get("resource", {}).get("type", "").lower() != "k8s_container":
            return False
        if (
            entry.get("labels", {}).get("k8s-pod/jobset_sigs_k8s_io/jobset-name", "").lower()
            != "llm-pretrain"
        ):
            return False
        if rank.get(str(entry.get("severity", "DEFAULT")).upper(), 0) < 400:
            return False
        instant = timestamp_ns(entry.get("timestamp"))
        if instant is None or not low <= instant <= high:
            return False
        text = entry.get("textPayload")
        if not isinstance(text, str) or "out of memory" not in text.lower():
            return False
        return regex.search(text) is not None

    return predicate


def timed(label: str, count: int, run: Callable[[], int]) -> float:
    best = float("inf")
    matched = 0
    for _ in range(3):
        started = time.perf_counter()
        matched = run()
        best = min(best, time.perf_counter() - started)
    print(f"{label:<34} {best:7.2f} s  {count / best / 1e6:6.2f} M entries/s  ({matched} matched)")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    args = parser.parse_args()
    entries = make_entries(args.entries)
    blobs = [orjson.dumps(entry) for entry in entries]
    started = time.perf_counter()
    compiled = compile_filter(FILTER)
    print(
        f"compile_filter: {(time.perf_counter() - started) * 1000:.1f} ms (first call, grammar included)"
    )
    manual = hand_written()
    ours = timed("compiled LQL filter", len(entries), lambda: sum(map(compiled.matches, entries)))
    baseline = timed(
        "hand-written Python predicate", len(entries), lambda: sum(map(manual, entries))
    )
    decode = timed(
        "orjson.loads (decode only)", len(entries), lambda: len(list(map(orjson.loads, blobs)))
    )
    assert sum(map(compiled.matches, entries)) == sum(map(manual, entries)), "the two disagree"
    print(f"compiled filter / hand-written time: {ours / baseline:.2f}x")
    print(f"compiled filter / orjson.loads time: {ours / decode:.2f}x")


if __name__ == "__main__":
    main()
