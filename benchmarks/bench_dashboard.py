"""Benchmark: summarise and render a 2,000-node, 10,000-pod TPU cluster (budget: under 1 s).

Baseline in the same run: `json.loads` of the same four snapshot files, which any reader of
`kubectl get -o json` output pays. Figures are the best of --repeat runs.

    _wiki/.venv/bin/python benchmarks/bench_dashboard.py [--nodes 2000] [--pods 10000] [--repeat 3]

Exit status 1 when summarise + render, or GET / over HTTP, takes longer than the budget.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from mlwiki.dashboard.app import create_app, render_page  # noqa: E402
from mlwiki.dashboard.server import serve_in_thread  # noqa: E402
from mlwiki.dashboard.state import SNAPSHOT_FILES, SnapshotSource, load_snapshot  # noqa: E402
from mlwiki.dashboard.summary import summarise  # noqa: E402
from tests.fakes.tpu_cluster import large_cluster  # noqa: E402

BUDGET_SECONDS = 1.0


@dataclass
class Figures:
    nodes: int
    pods: int
    events: int
    snapshot_bytes: int
    json_loads: float  # baseline
    load_snapshot: float
    summarise: float
    render: float
    html_bytes: int
    http_get: float  # GET / over HTTP from the served app: summarise + render + transfer

    @property
    def summarise_and_render(self) -> float:
        return self.summarise + self.render


def _best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(nodes: int = 2000, pods: int = 10000, repeat: int = 3) -> Figures:
    fake = large_cluster(nodes=nodes, pods=pods)
    with tempfile.TemporaryDirectory() as tmp:
        directory = fake.write_snapshot(Path(tmp) / "big-cluster")
        texts = [(directory / name).read_text(encoding="utf-8") for name in SNAPSHOT_FILES.values()]
        json_loads = _best(repeat, lambda: [json.loads(text) for text in texts])
        load_time = _best(repeat, lambda: load_snapshot(directory))
        state = load_snapshot(directory)
        running = serve_in_thread(create_app(SnapshotSource(directory)))
        try:
            http_time = _best(repeat, lambda: _get(running.url))
        finally:
            running.stop()
    summarise_time = _best(repeat, lambda: summarise([state]))
    summary = summarise([state])
    render_time = _best(repeat, lambda: render_page(summary))
    return Figures(
        nodes=len(state.nodes),
        pods=len(state.pods),
        events=len(state.events),
        snapshot_bytes=sum(len(text) for text in texts),
        json_loads=json_loads,
        load_snapshot=load_time,
        summarise=summarise_time,
        render=render_time,
        html_bytes=len(render_page(summary)),
        http_get=http_time,
    )


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    f = measure(args.nodes, args.pods, args.repeat)
    print(
        f"cluster: {f.nodes} nodes, {f.pods} pods, {f.events} events; snapshot {f.snapshot_bytes / 1e6:.1f} MB"
    )
    rows = [
        ("baseline json.loads of the 4 files", f.json_loads),
        ("load_snapshot (read + parse + check)", f.load_snapshot),
        ("summarise", f.summarise),
        (f"render page ({f.html_bytes / 1e3:.0f} kB HTML)", f.render),
        ("summarise + render", f.summarise_and_render),
        ("GET / over HTTP (served app)", f.http_get),
    ]
    for label, seconds in rows:
        print(f"  {label:<40} {seconds * 1000:8.1f} ms  ({seconds / f.json_loads:4.2f}x baseline)")
    ok = max(f.summarise_and_render, f.http_get) < BUDGET_SECONDS
    print(f"budget {BUDGET_SECONDS:.1f} s: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
