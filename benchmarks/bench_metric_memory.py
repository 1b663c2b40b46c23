"""Memory before an OOM at a thousand hosts: an HBM OOM on one of SLICES × HOSTS hosts (4 chips
each), diagnosed offline from a bundle whose `metrics/` is what `mlwiki metrics --out` writes
(per-pod HBM used and total, duty cycle, host memory), against the baseline of the same bundle
without `metrics/` in the same run. Reports the wall time of both, their ratio, and the memory
step alone. Run by hand:

    _wiki/.venv/bin/python benchmarks/bench_metric_memory.py [SLICES] [HOSTS]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mlwiki.diagnose import metric_memory, pipeline  # noqa: E402
from mlwiki.metrics.export import export_workload, workload_nodes  # noqa: E402
from mlwiki.metrics.source import BundleMetrics, write_export  # noqa: E402
from mlwiki.timewindow import resolve_window  # noqa: E402
from mlwiki.wiki import load_wiki  # noqa: E402
from tests.metric_scenarios import END, START, hbm_run  # noqa: E402

WORKLOAD = "bench-hbm"


def bundles(folder: Path, slices: int, hosts: int) -> tuple[Path, Path, int]:
    """(logs only, logs + exported metrics/, series exported)."""
    run, _, series = hbm_run(WORKLOAD, slices=slices, hosts=hosts)
    plain = run.write(folder / "plain", {})
    (plain / "expected.json").unlink()
    raw = folder / "raw"
    (raw / "metrics").mkdir(parents=True)
    (raw / "metrics" / "raw.json").write_text(json.dumps({"timeSeries": series}))
    with_metrics = folder / "with"
    shutil.copytree(plain, with_metrics)
    window = resolve_window(START, END)
    source = BundleMetrics(raw)
    nodes = workload_nodes(plain, WORKLOAD)
    export_workload(
        load_wiki(REPO / "_wiki"),
        source,
        WORKLOAD,
        (window.start.timestamp(), window.end.timestamp()),
        nodes,
    )
    write_export(source.fetched, with_metrics)
    exported = sum(len(r["timeSeries"]) for r in source.fetched.values())
    return plain, with_metrics, exported


def main() -> None:
    slices = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    hosts = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    wiki = load_wiki(REPO / "_wiki")
    window = resolve_window(START, END)
    step = {"seconds": 0.0}
    original = metric_memory.amend_memory

    def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            step["seconds"] += time.perf_counter() - started

    pipeline.amend_memory = timed  # the step's own share of the diagnosis
    with tempfile.TemporaryDirectory() as tmp:
        plain, with_metrics, exported = bundles(Path(tmp), slices, hosts)
        times: dict[str, list[float]] = {"plain": [], "with": []}
        summary = ""
        for _ in range(2):
            for name, bundle in (("plain", plain), ("with", with_metrics)):
                started = time.perf_counter()
                result = pipeline.diagnose(
                    WORKLOAD, bundle=bundle, wiki=wiki, window=window, verify=False
                )
                times[name].append(time.perf_counter() - started)
                memory = (result.findings.get("metrics") or {}).get("memory")
                summary = memory[0]["verdict"] if memory else summary
    best = {k: min(v) for k, v in times.items()}
    print(
        f"{slices * hosts} hosts, {exported} exported series: without metrics/ "
        f"{best['plain']:.2f} s, with {best['with']:.2f} s (ratio "
        f"{best['with'] / best['plain']:.2f}x; runs {times}); memory step "
        f"{step['seconds'] / 2:.3f} s a run; verdict {summary}"
    )


if __name__ == "__main__":
    main()
