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
least-squares line through the medians (wall and CPU) gives each side's fixed cost, with its
standard error, and cost per 100k entries, with each size's residual (a fit that is not a line
shows there). Read from 25k-400k-entry runs the fixed part is an extrapolation whose error is
often as large as itself; `bench_startup.py` measures it on small bundles.

`--against TREE` also measures the diagnosis of another checkout (its `_wiki/.venv` and its
`_wiki`, e.g. `/work/main`) in the same run, interleaved with this tree's (the order alternates
per repeat), so a change is compared with its baseline under the same load. Each tree appends to
its own audit log in the benchmark's temporary folder, never the user's; `--audit-mb M` first
fills each with a valid hash chain of M MB of run records (a user's log grows like that: ~12
records per diagnosis), to show what a grown log costs. Bytecode is cached (in that folder, per
tree, even when PYTHONDONTWRITEBYTECODE is set), and so is each tree's user cache (the parsed
wiki, `XDG_CACHE_HOME`); one unmeasured diagnosis per tree fills both, as on a user's machine
after the first run: otherwise every measurement would include compiling mlwiki's sources and
parsing the wiki, a fixed cost no user pays twice.

Usage: `python benchmarks/bench_diagnose.py [--repeat K] [--against TREE] [--audit-mb M]
[quiet N … | noisy | growth]` (default: noisy, quiet 100000 and the growth series 25000 50000
100000 200000 400000).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

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
    f"result = diagnose({WORKLOAD!r}, bundle=sys.argv[1], wiki=load_wiki(Path(sys.argv[4])))\n"
    "f = result.findings\n"
    "assert f['status'] == 'diagnosed', f['summary']\n"
    "assert f['root_cause']['symptom'] == sys.argv[2], f['root_cause']\n"
    "assert [c['host'] for c in f['culprit_hosts']] == [sys.argv[3]], f['culprit_hosts']\n"
)


@dataclass
class Tree:
    """A checkout whose diagnosis is measured: its interpreter, its wiki, its own audit log."""

    name: str
    root: Path
    audit_log: Path
    rows: list[tuple[int, float, float]] = field(default_factory=list)  # (entries, wall, cpu)

    @property
    def python(self) -> str:
        venv = self.root / "_wiki" / ".venv" / "bin" / "python"
        return str(venv) if self.root != REPO and venv.exists() else sys.executable


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


def fill_audit_log(path: Path, megabytes: float) -> None:
    """A valid hash chain of run records, about `megabytes` MB (the shape `AuditLog` writes)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    previous, size = "0" * 64, 0
    with path.open("wb") as out:
        while size < megabytes * 1e6:
            record = {
                "time": "2026-12-01T12:00:00.000000Z",
                "user": "bench",
                "host": "bench",
                "event": "run",
                "action": "logging-query",
                "workflow": "verify-host-oom-killed",
                "rendered": 'resource.type="k8s_container" AND textPayload=~"Killed process"',
                "status": "ok",
                "count": size % 97,
                "output_sha256": "f" * 64,
                "dry_run": False,
                "mutating": False,
                "prev_sha256": previous,
            }
            line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
            previous = hashlib.sha256(line.rstrip(b"\n")).hexdigest()
            out.write(line)
            size += len(line)
    path.chmod(0o600)


def measure(body: str, *args: str, tree: Tree | None = None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak RSS bytes) of `body` in a fresh interpreter."""
    python = tree.python if tree else sys.executable
    env = None
    if tree:  # bytecode cached as on a user's machine (in the benchmark's folder, not the tree)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tree.audit_log.parent / "pycache")
        env["MLWIKI_AUDIT_LOG"] = str(tree.audit_log)
        env["XDG_CACHE_HOME"] = str(tree.audit_log.parent / "cache")  # the wiki cache, warmed
    command = [python, "-c", MEASURE.format(body=body), *args]
    cwd = tree.root if tree else REPO
    out = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, check=False)
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
    kind: str, size: int, folder: Path, repeat: int, trees: list[Tree]
) -> tuple[int, float, float]:
    """Prints one row per tree and adds (entries, median wall, median CPU) to each tree's rows;
    returns json.load's (entries, median wall, median CPU)."""
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
    loads, load_cpus = [], []
    runs: dict[str, list[tuple[float, float, float, float, float]]] = {t.name: [] for t in trees}
    for attempt in range(repeat):
        load_s, load_cpu, _load_mem = measure(LOAD, str(bundle))
        loads.append(load_s)
        load_cpus.append(load_cpu)
        for tree in trees if attempt % 2 == 0 else trees[::-1]:
            wiki = str(tree.root / "_wiki")
            diag_s, diag_cpu, diag_mem = measure(
                DIAGNOSE, str(bundle), symptom, host, wiki, tree=tree
            )
            runs[tree.name].append(
                (diag_s, diag_cpu, diag_s / load_s, diag_cpu / load_cpu, diag_mem / 1e6 / megabytes)
            )
    for tree in trees:
        walls, cpus, ratios, cpu_ratios, memory = (list(column) for column in zip(*runs[tree.name]))
        print(
            f"{tree.name:>8} {kind:>6} {count:>8} {megabytes:>7.1f} {_spread(loads):>18} "
            f"{_spread(walls):>20} {_spread(cpus):>20} {_spread(ratios):>20} "
            f"{_spread(cpu_ratios):>20} {_spread(memory):>18}",
            flush=True,
        )
        tree.rows.append((count, statistics.median(walls), statistics.median(cpus)))
    bundle.unlink()
    return count, statistics.median(loads), statistics.median(load_cpus)


def warm_up(folder: Path, trees: list[Tree]) -> None:
    """One unmeasured diagnosis per tree, so every module it imports has its bytecode cached."""
    bundle = folder / "warm-up.json"
    symptom, host, _entries = make_quiet(bundle, 2_000)
    for tree in trees:
        measure(DIAGNOSE, str(bundle), symptom, host, str(tree.root / "_wiki"), tree=tree)
    bundle.unlink()


def fit(points: list[tuple[int, float]]) -> tuple[float, float, float, list[float]]:
    """Least-squares line through (entries, seconds): fixed seconds, seconds per 100k, the fixed
    part's standard error and each point's residual (seconds above the line)."""
    xs, ys = [float(x) for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx
    fixed = mean_y - slope * mean_x
    residuals = [y - fixed - slope * x for x, y in zip(xs, ys)]
    variance = sum(r * r for r in residuals) / max(1, len(xs) - 2)
    error = (variance * (1 / len(xs) + mean_x**2 / sxx)) ** 0.5
    return fixed, slope * 100_000, error, residuals


def main(argv: list[str]) -> None:
    repeat, against, audit_mb = 1, None, 0.0
    while argv[:1] in (["--repeat"], ["--against"], ["--audit-mb"]):
        option, value, argv = argv[0], argv[1], argv[2:]
        if option == "--repeat":
            repeat = int(value)
        elif option == "--against":
            against = Path(value).resolve()
        else:
            audit_mb = float(value)
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
        f"{'tree':>8} {'bundle':>6} {'entries':>8} {'MB':>7} {'json.load s':>18} "
        f"{'diagnose s':>20} {'diagnose cpu s':>20} {'time ×':>20} {'cpu ×':>20} "
        f"{'peak/file':>18}"
    )
    with tempfile.TemporaryDirectory() as folder:
        trees = [Tree("this", REPO, Path(folder) / "this" / "audit.jsonl")]
        if against:
            trees.append(Tree(against.name, against, Path(folder) / "against" / "audit.jsonl"))
        for tree in trees:
            if audit_mb:
                fill_audit_log(tree.audit_log, audit_mb)
        warm_up(Path(folder), trees)
        loads = [bench(kind, size, Path(folder), repeat, trees) for kind, size in plan]
    quiet = [index for index, (kind, _) in enumerate(plan) if kind == "quiet"]
    if len({plan[index][1] for index in quiet}) >= 3:  # growth: is it a line, and what is fixed?
        sides = [("json.load", [loads[index] for index in quiet])]
        sides += [(tree.name, [tree.rows[index] for index in quiet]) for tree in trees]
        for name, rows in sides:
            for label, column in (("wall", 1), ("cpu", 2)):
                fixed, per, error, residuals = fit([(row[0], row[column]) for row in rows])
                print(
                    f"growth fit {name:>9} {label:>4}: {fixed:+.2f} s fixed (± {error:.2f}), "
                    f"{per:.2f} s per 100k entries; residuals "
                    + ", ".join(f"{r:+.2f}" for r in residuals)
                )
        print(
            "The fixed part is extrapolated from large runs: when its error is about its size, "
            "read it from benchmarks/bench_startup.py (small bundles) instead."
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make"]:
        # The benchmark's own subprocesses write their bundles this way; by hand it makes one.
        args = sys.argv[2:]
        if len(args) != 3 or args[0] not in ("noisy", "quiet") or not args[2].isdigit():
            print("usage: bench_diagnose.py --make {noisy|quiet} PATH ENTRIES", file=sys.stderr)
            sys.exit(2)
        kind, target, size = args[0], Path(args[1]), int(args[2])
        made = make_noisy(target, size) if kind == "noisy" else make_quiet(target, size)
        print(*made)
    else:
        main(sys.argv[1:])
