"""Benchmark: the fixed cost of a run, against another checkout in the same run.

What every command pays before its first entry, measured as whole processes (interpreter start
included; wall time and the child's own CPU time, user + system, from `wait4`):
- `mlwiki --help` and `mlwiki lint` (start-up and, for lint, the whole check of the tree's wiki);
- `mlwiki troubleshoot` end to end (Markdown report, redacted) and a direct diagnosis (the
  library call of `bench_diagnose.py`, in-process timing as there) on small `quiet` bundles of
  `SIZES` entries. A least-squares line through each tree's medians gives the fixed cost (its
  intercept, with its standard error) and the cost per 1,000 entries; each size's residual
  (median minus the line) is printed, so a fit that is not a line shows. The sizes stay small
  (≤ ~25k entries) so the intercept is read near the data, not extrapolated from 100k-entry runs
  whose noise is larger than the whole fixed cost.

`--against TREE` (e.g. `/work/main`) measures that checkout (its `_wiki/.venv` and `_wiki`) too,
interleaved with this one, the order alternating per repeat, so both see the same load; ratios
(this / against) are of medians. Each tree has its own bytecode cache, user cache (the parsed
wiki) and audit log in a temporary folder, warmed by one unmeasured run of each command, as on
a user's machine after the first run.

Usage: `python benchmarks/bench_startup.py [--repeat K] [--against TREE] [--sizes N,N,…]`
(default: 5 repeats, sizes 1500,3000,6000,12000,24000).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_diagnose import DIAGNOSE, MEASURE, WORKLOAD, make_quiet  # noqa: E402

SIZES = (1500, 3000, 6000, 12000, 24000)


@dataclass
class Tree:
    """A checkout being measured: its interpreter, its wiki, its own caches and audit log."""

    name: str
    root: Path
    folder: Path
    samples: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # (wall, cpu)

    @property
    def python(self) -> str:
        venv = self.root / "_wiki" / ".venv" / "bin" / "python"
        return str(venv) if venv.exists() else sys.executable

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(self.folder / "pycache")
        env["XDG_CACHE_HOME"] = str(self.folder / "cache")
        env["MLWIKI_AUDIT_LOG"] = str(self.folder / "audit.jsonl")
        return env


def run_process(tree: Tree, argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole child process, output discarded."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [tree.python, *argv],
        cwd=tree.root,
        env=tree.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _stderr = child.stderr.read() if child.stderr else b""
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode not in (0, 1):  # lint exits 1 on a FAIL, which is still a measurement
        raise SystemExit(f"{tree.name}: {' '.join(argv)} failed:\n{_stderr.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def run_direct(tree: Tree, bundle: Path, symptom: str, host: str) -> tuple[float, float]:
    """(wall, CPU) of a direct diagnosis timed inside the child (imports included)."""
    argv = ["-c", MEASURE.format(body=DIAGNOSE), str(bundle), symptom, host]
    out = subprocess.run(
        [tree.python, *argv, str(tree.root / "_wiki")],
        cwd=tree.root,
        env=tree.env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"{tree.name}: direct diagnosis failed:\n{out.stderr[-2000:]}")
    wall, cpu, _peak = out.stdout.split()[-3:]
    return float(wall), float(cpu)


def fit(points: list[tuple[float, float]]) -> tuple[float, float, float, list[float]]:
    """Least squares through (x, y): intercept, slope, the intercept's standard error and each
    point's residual."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx
    intercept = mean_y - slope * mean_x
    residuals = [y - (intercept + slope * x) for x, y in points]
    dof = max(1, len(points) - 2)
    sigma2 = sum(r * r for r in residuals) / dof
    error = (sigma2 * (1 / len(points) + mean_x**2 / sxx)) ** 0.5
    return intercept, slope, error, residuals


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def main(argv: list[str]) -> None:
    repeat, against, sizes = 5, None, SIZES
    while argv[:1] in (["--repeat"], ["--against"], ["--sizes"]):
        option, value, argv = argv[0], argv[1], argv[2:]
        if option == "--repeat":
            repeat = int(value)
        elif option == "--against":
            against = Path(value).resolve()
        else:
            sizes = tuple(int(size) for size in value.split(","))
    if argv or repeat < 1 or len(sizes) < 3:
        raise SystemExit(__doc__.split("Usage: ")[1])
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        trees = [Tree("this", REPO, folder / "this")]
        if against is not None:
            trees.append(Tree(against.name, against, folder / "against"))
        bundles = []
        for size in sizes:
            bundle = folder / f"quiet-{size}.json"
            symptom, host, count = make_quiet(bundle, size)
            bundles.append((count, bundle, symptom, host))
        counts = [count for count, *_ in bundles]
        cases = ["--help", "lint"]
        cases += [f"troubleshoot {count}" for count in counts]
        cases += [f"direct {count}" for count in counts]
        by_count = {count: (bundle, symptom, host) for count, bundle, symptom, host in bundles}

        def measure(tree: Tree, case: str) -> tuple[float, float]:
            wiki = ["--wiki", str(tree.root / "_wiki")]
            if case == "--help":
                return run_process(tree, ["-m", "mlwiki", "--help"])
            if case == "lint":
                return run_process(tree, ["-m", "mlwiki", "lint", *wiki])
            kind, count = case.split()
            bundle, symptom, host = by_count[int(count)]
            if kind == "direct":
                return run_direct(tree, bundle, symptom, host)
            command = ["-m", "mlwiki", "troubleshoot", WORKLOAD, "--bundle", str(bundle), *wiki]
            return run_process(tree, command)

        for tree in trees:  # warm-up: bytecode, the parsed wiki
            for case in ("--help", "lint", f"troubleshoot {bundles[0][0]}"):
                measure(tree, case)
        for attempt in range(repeat):
            for case in cases:
                for tree in trees if attempt % 2 == 0 else trees[::-1]:
                    tree.samples.setdefault(case, []).append(measure(tree, case))
    print(f"{'case':>20} {'tree':>8} {'wall s':>24} {'cpu s':>24} {'cpu ratio':>10}")
    for case in cases:
        for tree in trees:
            walls = [w for w, _ in tree.samples[case]]
            cpus = [c for _, c in tree.samples[case]]
            ratio = ""
            if len(trees) > 1 and tree is trees[0]:
                base = statistics.median(c for _, c in trees[1].samples[case])
                ratio = f"{statistics.median(cpus) / base:.2f}"
            print(f"{case:>20} {tree.name:>8} {spread(walls):>24} {spread(cpus):>24} {ratio:>10}")
    for kind in ("troubleshoot", "direct"):
        for tree in trees:
            for column, label in ((0, "wall"), (1, "cpu")):
                points = [
                    (
                        count / 1000,
                        statistics.median(s[column] for s in tree.samples[f"{kind} {count}"]),
                    )
                    for count in counts
                ]
                intercept, slope, error, residuals = fit(points)
                shown = ", ".join(f"{r:+.3f}" for r in residuals)
                print(
                    f"fixed cost {kind:>12} {tree.name:>8} {label:>4}: {intercept:.3f} s "
                    f"± {error:.3f} (+{slope:.3f} s per 1k entries); residuals {shown}"
                )


if __name__ == "__main__":
    main(sys.argv[1:])
