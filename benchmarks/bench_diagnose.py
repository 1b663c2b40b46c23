"""Benchmark: `mlwiki troubleshoot`'s diagnosis against a bare `json.load` of the same bundle.

Three incidents, each a 256-host JobSet (64 slices × 4 hosts) written as one JSON array the way
`gcloud logging read --format=json` prints it (newest first):
- `quiet N`: one host OOM-killed, the 255 others print one heartbeat cascade each, the JobSet
  restarts; step lines pad the bundle to N entries (the default series is 25k → 400k);
- `noisy`: one host's runtime HBM OOM (`Error allocating device buffer`), then every survivor
  prints its cascade lines and ~150 abort and stack lines (SIGABRT banners and LOG(FATAL) lines
  of every thread, which match the root-role `process-abort` page, and stack frames that match
  nothing): ~60k entries of which ~26k match. The right answer is `hbm-oom-runtime` on the
  one host.
Each measurement runs in its own subprocess so that peaks are separate (VmHWM), and the
baseline (`json.load`) is measured in the same run, before each diagnosis, so the ratios hold
on a loaded machine; besides wall time, the CPU time of each process is compared (`cpu ×`),
which other processes on a shared machine disturb less. With `--repeat K` every pair is measured
K times and the spread is shown (median, then min–max). With three or more quiet sizes a
least-squares line through the medians gives each side's fixed cost and cost per 100k entries.
With `--baseline DIR` (another checkout with its own `_wiki/.venv`, e.g. main) the same bundle is
diagnosed by that checkout too, interleaved with this one (json.load, this, baseline, repeated),
so both are compared with the same baseline under the same load.

Every diagnosis appends to the audit log: each measurement gets a fresh one (`MLWIKI_AUDIT_LOG`
in a temporary folder), so that the timing is the diagnosis' and not the size of whatever log
the machine's user has grown (the audit log's own cost is measured by its own benchmark).

Usage: `python benchmarks/bench_diagnose.py [--repeat K] [--baseline DIR]
[quiet N … | noisy | growth]` (default: noisy, quiet 100000 and the growth series 25000 50000
100000 200000 400000).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.scenarios import Run, loud_hbm_oom  # noqa: E402

WORKLOAD = "bench-run"
# The peak is the process's own high-water mark (VmHWM): Linux carries ru_maxrss over fork and
# exec, so a child's ru_maxrss is at least its parent's peak.
MEASURE = """
import resource, sys, time
start, cpu = time.perf_counter(), time.process_time()
{body}
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
try:
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
except (OSError, IndexError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(elapsed, cpu, peak)
"""
LOAD = "import json\njson.load(open(sys.argv[1]))"
DIAGNOSE = (
    "from mlwiki.diagnose import diagnose\n"
    "from pathlib import Path\nfrom mlwiki.wiki import load_wiki\n"
    f"result = diagnose({WORKLOAD!r}, bundle=sys.argv[1], "
    "wiki=load_wiki(Path(sys.argv[4]) / '_wiki'))\n"
    "f = result.findings\n"
    "assert f['status'] == 'diagnosed', f['summary']\n"
    "assert f['root_cause']['symptom'] == sys.argv[2], f['root_cause']\n"
    "assert [c['host'] for c in f['culprit_hosts']] == [sys.argv[3]], f['culprit_hosts']\n"
)
THREADS = 50  # threads of a dying survivor, each printing a banner, a fatal line and a frame


def _write(run: Run, path: Path) -> int:
    """Write the run's entries newest first; how many there are."""
    path.write_text(
        json.dumps(sorted(run.entries, key=lambda e: e["timestamp"], reverse=True), indent=2)
    )
    return len(run.entries)


def make_quiet(path: Path, entries: int) -> tuple[str, str, int]:
    """One host OOM-killed, cascades on the 255 others, padded with step lines to `entries`."""
    run = Run(WORKLOAD, 64, 4, seed=256, step_period=10)
    run.start_attempt(0)
    rounds = max(1, (entries - 4 * 256) // 256)
    end = 10 + rounds * run.step_period
    run.train(10, end)
    culprit = run.pods[(17, 2)]
    run.node_event(
        culprit.node,
        end + 5,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 4242 (python3) total-vm:104857600kB, "
        "anon-rss:99857600kB",
    )
    run.kill(culprit, end + 5)
    run.cascade(culprit, end + 100)
    return "host-oom-killed", culprit.node, _write(run, path)


def make_noisy(path: Path, entries: int = 60_000) -> tuple[str, str, int]:
    """One host's runtime HBM OOM; every survivor dies loudly (cascade, then ~150 abort lines)."""
    noise = 255 * 3 * THREADS
    rounds = max(1, (entries - noise - 4 * 256) // 256)
    run, culprit = loud_hbm_oom(WORKLOAD, 64, 4, threads=THREADS, rounds=rounds)
    return "hbm-oom-runtime", culprit.node, _write(run, path)


def measure(body: str, *args: str, checkout: Path = REPO) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak RSS bytes) of `body` in a fresh interpreter of
    `checkout` (its `_wiki/.venv`, else this interpreter), with a fresh audit log."""
    python = checkout / "_wiki" / ".venv" / "bin" / "python"
    command = [str(python) if python.exists() else sys.executable, "-c", MEASURE.format(body=body)]
    with tempfile.TemporaryDirectory() as state:
        env = {**os.environ, "MLWIKI_AUDIT_LOG": str(Path(state) / "audit.jsonl")}
        out = subprocess.run(
            [*command, *args], capture_output=True, text=True, cwd=checkout, check=False, env=env
        )
    if out.returncode:
        raise SystemExit(f"measurement failed:\n{out.stderr}")
    fields = out.stdout.split()
    return float(fields[-3]), float(fields[-2]), int(fields[-1])


def _spread(values: list[float]) -> str:
    middle = statistics.median(values)
    if len(values) == 1:
        return f"{middle:.2f}"
    return f"{middle:.2f} ({min(values):.2f}–{max(values):.2f})"


def bench(
    kind: str, size: int, folder: Path, repeat: int, baseline: Optional[Path] = None
) -> tuple[int, float, float]:
    """Prints one row (and one for the baseline checkout); returns (entries, median json.load s,
    median diagnosis s)."""
    bundle = Path(folder) / f"{kind}-{size}.json"
    # Generated in a child process, and never read whole here: this process stays small.
    made = subprocess.run(
        [sys.executable, __file__, "--make", kind, str(bundle), str(size)],
        check=True,
        capture_output=True,
        text=True,
    )
    symptom, host, entries = made.stdout.split()
    count = int(entries)
    megabytes = bundle.stat().st_size / 1e6
    checkouts = [REPO] + ([baseline] if baseline is not None else [])
    loads: list[float] = []
    rows: dict[Path, list[tuple[float, float, float, float]]] = {c: [] for c in checkouts}
    for _ in range(repeat):
        load_s, load_cpu, _load_mem = measure(LOAD, str(bundle))
        loads.append(load_s)
        for checkout in checkouts:
            diag_s, diag_cpu, diag_mem = measure(
                DIAGNOSE, str(bundle), symptom, host, str(checkout), checkout=checkout
            )
            rows[checkout].append(
                (diag_s, diag_s / load_s, diag_cpu / load_cpu, diag_mem / 1e6 / megabytes)
            )
    for checkout in checkouts:
        name = kind if checkout == REPO else f"{kind}@{checkout.name}"
        diags, ratios, cpu_ratios, memory = (list(column) for column in zip(*rows[checkout]))
        print(
            f"{name:>10} {count:>8} {megabytes:>7.1f} {_spread(loads):>18} {_spread(diags):>20} "
            f"{_spread(ratios):>20} {_spread(cpu_ratios):>20} {_spread(memory):>18}",
            flush=True,
        )
    bundle.unlink()
    return count, statistics.median(loads), statistics.median(r[0] for r in rows[REPO])


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares line through (entries, seconds): (fixed seconds, seconds per 100k)."""
    xs, ys = [float(x) for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    return mean_y - slope * mean_x, slope * 100_000


def main(argv: list[str]) -> None:
    repeat, baseline = 1, None
    while argv[:1] in (["--repeat"], ["--baseline"]):
        if argv[0] == "--repeat":
            repeat = int(argv[1])
        else:
            baseline = Path(argv[1]).resolve()
        argv = argv[2:]
    plan: list[tuple[str, int]] = []
    words = list(argv) or ["noisy", "quiet", "100000", "growth"]
    while words:
        word = words.pop(0)
        if word == "noisy":
            plan.append(("noisy", 60_000))
        elif word == "growth":
            plan += [("quiet", n) for n in (25_000, 50_000, 100_000, 200_000, 400_000)]
        elif word == "quiet":
            while words and words[0].isdigit():
                plan.append(("quiet", int(words.pop(0))))
        else:
            raise SystemExit(f"unknown benchmark {word!r} (noisy, quiet N…, growth)")
    print(
        f"{'bundle':>10} {'entries':>8} {'MB':>7} {'json.load s':>18} {'diagnose s':>20} "
        f"{'time ×':>20} {'cpu ×':>20} {'peak/file':>18}"
    )
    quiet: list[tuple[int, float, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        for kind, size in plan:
            row = bench(kind, size, Path(folder), repeat, baseline)
            if kind == "quiet":
                quiet.append(row)
    if len({count for count, _, _ in quiet}) >= 3:  # growth: is it a line, and what is fixed?
        for name, column in (("json.load", 1), ("diagnose", 2)):
            fixed, per = fit([(row[0], row[column]) for row in quiet])
            print(f"growth fit {name:>9}: {fixed:+.2f} s fixed, {per:.2f} s per 100k entries")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make"]:
        kind, target, size = sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
        made = make_noisy(target, size) if kind == "noisy" else make_quiet(target, size)
        print(*made)
    else:
        main(sys.argv[1:])
