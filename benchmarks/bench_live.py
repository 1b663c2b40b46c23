"""Benchmark: `mlwiki troubleshoot --project` (the live plan) at 100k and 1M entries.

Generates a 256-host JobSet (64 slices × 4 hosts) that trains for hours — step lines from every
pod, checkpoint lines, kubelet lines on every node and a TPU device plugin in kube-system on each
— and at the end a runtime HBM OOM on one host, the other 255 cascading, the JobSet restarting.
The entries are served by the local Logging API server (`tests/fakes/logging_server.py`) to the
real google-cloud-logging client, and the diagnosis is run three ways, each in its own process:

- offline: `mlwiki troubleshoot --bundle` on the same entries (the reference answer);
- live: `mlwiki troubleshoot --project` with default settings (fresh quota state and cache);
- baseline (`--baseline DIR`, a checkout of an earlier commit): the same command with that
  commit's code and wiki, against the same server in the same run.

It prints, per size and plan, the entries.list requests (pages and retries included), the pages
and entries the server returned, the command's wall time, its own CPU time (the client: the
server runs in this process) and the server's busy time, the status, and whether the findings
equal the offline ones (status, root cause, culprits, failure rows and cited insertIds). Then it
checks the page cache: the same live command again sends no request. `--repeat N` runs each
online plan N times (fresh quota state and cache each time) to show the noise.

    _wiki/.venv/bin/python benchmarks/bench_live.py [--sizes 100000 1000000] [--baseline DIR]
        [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fakes.big_incident import WORKLOAD, make_bundle  # noqa: E402
from tests.scenarios import PROJECT  # noqa: E402


def summary(findings: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": findings["status"],
        "root_cause": (findings.get("root_cause") or {}).get("symptom"),
        "culprits": sorted(c["host"] for c in findings["culprit_hosts"]),
        "failures": sorted(
            (f["kind"], f["symptom"] or "", f["host"] or "") for f in findings["failures"]
        ),
        "evidence": sorted(e["insertId"] for e in findings["evidence"]),
    }


def troubleshoot(
    args: list[str], env: dict[str, str], code_root: Path
) -> tuple[dict[str, Any], float]:
    command = [sys.executable, "-m", "mlwiki", "--wiki", str(code_root / "_wiki")]
    with tempfile.TemporaryDirectory() as folder:
        # The full findings (stdout is an agent-sized view; an older baseline prints them whole).
        full = Path(folder) / "findings.json"
        started = time.perf_counter()
        cpu = _children_cpu()
        out = subprocess.run(
            [*command, "troubleshoot", WORKLOAD, *args, "--format", "json", "--out", str(full)],
            capture_output=True,
            text=True,
            env=env,
            cwd=code_root,
            check=False,
        )
        wall = time.perf_counter() - started
        if out.returncode != 0:
            raise SystemExit(f"troubleshoot failed ({code_root}):\n{out.stderr[-3000:]}")
        findings = json.loads(full.read_text() if full.exists() else out.stdout)
    findings["_cpu"] = _children_cpu() - cpu
    return findings, wall


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def environment(state: Path, endpoint: str, code_root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MLWIKI_LOGGING_ENDPOINT=endpoint,
        XDG_STATE_HOME=str(state / "state"),
        XDG_CACHE_HOME=str(state / "cache"),
        MLWIKI_AUDIT_LOG=str(state / "audit.jsonl"),
        PYTHONPATH=str(code_root),
    )
    return env


def measure(size: int, folder: Path, baseline: Path | None, repeat: int) -> list[dict[str, Any]]:
    from mlwiki.logs.bundle import iter_bundle
    from tests.fakes.logging_server import FakeLoggingServer

    bundle = folder / f"bench-{size}.jsonl"
    made = subprocess.run(
        [sys.executable, __file__, "--make", str(bundle), str(size)],
        capture_output=True,
        text=True,
        check=True,
    )
    info = json.loads(made.stdout)
    window = ["--start", info["start"], "--end", info["end"]]
    offline, offline_wall = troubleshoot(
        ["--bundle", str(bundle), *window], environment(folder / "offline", "", REPO), REPO
    )
    rows = [
        {
            "size": info["entries"],
            "plan": "offline",
            "wall": offline_wall,
            "cpu": offline["_cpu"],
            "status": offline["status"],
            "equal": True,
        }
    ]
    server = FakeLoggingServer(iter_bundle(bundle), keep_entries=False)
    server.start()
    try:
        plans = [("live", REPO)] + ([("baseline", baseline)] if baseline else [])
        for run in range(repeat):
            for name, code_root in plans:
                state = folder / f"{name}-{size}-{run}"
                env = environment(state, server.url, code_root)
                before, busy = len(server.requests), server.busy_seconds
                served, pages = server.served, server.pages_served
                findings, wall = troubleshoot(["--project", PROJECT, *window], env, code_root)
                bodies = server.requests[before:]
                row = {
                    "size": info["entries"],
                    "plan": name,
                    "requests": len(bodies),
                    "pages": server.pages_served - pages,
                    "entries": server.served - served,
                    "wall": wall,
                    "cpu": findings["_cpu"],
                    "server": server.busy_seconds - busy,
                    "status": findings["status"],
                    "equal": summary(findings) == summary(offline),
                    "bounded": all(
                        b.get("pageSize") == 1000
                        and "timestamp>=" in b.get("filter", "")
                        and "timestamp<=" in b.get("filter", "")
                        for b in bodies
                    ),
                    "longest_filter": max((len(b.get("filter", "")) for b in bodies), default=0),
                }
                rows.append(row)
                if name == "live" and run == 0:
                    again = len(server.requests)
                    troubleshoot(["--project", PROJECT, *window], env, code_root)
                    row["cached_rerun_requests"] = len(server.requests) - again
    finally:
        server.stop()
        bundle.unlink()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--baseline", type=Path, help="checkout of the code to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="online runs per plan (noise)")
    options = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in options.sizes:
            rows.extend(measure(size, Path(folder), options.baseline, options.repeat))
    print(
        f"{'entries':>9} {'plan':>9} {'requests':>8} {'pages':>6} {'fetched':>8} "
        f"{'wall s':>7} {'client cpu s':>12} {'server s':>8} {'status':>12} {'= offline':>9}"
    )
    for row in rows:
        print(
            f"{row['size']:>9} {row['plan']:>9} {row.get('requests', '-'):>8} "
            f"{row.get('pages', '-'):>6} {row.get('entries', '-'):>8} {row['wall']:>7.2f} "
            f"{row['cpu']:>12.2f} {row.get('server', 0):>8.2f} {row['status']:>12} "
            f"{row['equal']!s:>9}"
        )
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make"]:
        print(json.dumps(make_bundle(Path(sys.argv[2]), int(sys.argv[3]))))
    else:
        main()
