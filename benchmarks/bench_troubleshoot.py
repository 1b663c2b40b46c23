"""Benchmark: `mlwiki troubleshoot` vs a bare `json.load` of the same bundle (time, peak memory).

Generates a 256-host incident (64 slices × 4 hosts, one host OOM-killed, cascades on the other
255, JobSet restart) padded with step lines to N entries, written as one JSON array the way
`gcloud logging read --format=json` prints it. Each measurement runs in its own subprocess so
peaks are separate (ru_maxrss). Usage: `python benchmarks/bench_troubleshoot.py [N …]`
(default 25000 100000 400000).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.scenarios import Run  # noqa: E402

MEASURE = """
import resource, sys, time
start = time.perf_counter()
{body}
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""
LOAD = "import json\njson.load(open(sys.argv[1]))"
DIAGNOSE = (
    "from mlwiki.diagnose import diagnose\n"
    "from pathlib import Path\nfrom mlwiki.wiki import load_wiki\n"
    f"result = diagnose('bench-run', bundle=sys.argv[1], wiki=load_wiki(Path({str(REPO / '_wiki')!r})))\n"
    "assert result.findings['status'] == 'diagnosed', result.findings['summary']"
)


def make_bundle(path: Path, entries: int) -> None:
    run = Run("bench-run", 64, 4, seed=256, step_period=10)
    run.start_attempt(0)
    per_round = 256
    rounds = max(1, (entries - 4 * 256) // per_round)
    run.train(10, 10 + rounds * run.step_period)
    end = 10 + rounds * run.step_period
    culprit = run.pods[(17, 2)]
    run.node_event(
        culprit.node,
        end + 5,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 4242 (python3) total-vm:104857600kB, anon-rss:99857600kB",
    )
    run.kill(culprit, end + 5)
    run.cascade(culprit, end + 100)
    path.write_text(
        json.dumps(sorted(run.entries, key=lambda e: e["timestamp"], reverse=True), indent=2)
    )


def measure(body: str, bundle: Path) -> tuple[float, int]:
    command = [sys.executable, "-c", MEASURE.format(body=body), str(bundle)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
    if out.returncode:
        raise SystemExit(f"measurement failed:\n{out.stderr}")
    fields = out.stdout.split()
    return float(fields[-2]), int(fields[-1])


def main(sizes: list[int]) -> None:
    print(
        f"{'entries':>9} {'MB':>7} {'load s':>7} {'load MB':>8} {'diag s':>7} {'diag MB':>8} {'time x':>7} {'mem/file':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            bundle = Path(folder) / f"bench-{size}.json"
            # Generated in a child process: a child's ru_maxrss starts from its parent's peak.
            subprocess.run([sys.executable, __file__, "--make", str(bundle), str(size)], check=True)
            megabytes = bundle.stat().st_size / 1e6
            load_s, load_mem = measure(LOAD, bundle)
            diag_s, diag_mem = measure(DIAGNOSE, bundle)
            print(
                f"{size:>9} {megabytes:>7.1f} {load_s:>7.2f} {load_mem / 1e6:>8.0f} {diag_s:>7.2f} "
                f"{diag_mem / 1e6:>8.0f} {diag_s / load_s:>7.2f} {diag_mem / 1e6 / megabytes:>8.2f}"
            )
            bundle.unlink()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make"]:
        make_bundle(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        main([int(a) for a in sys.argv[1:]] or [25_000, 100_000, 400_000])
