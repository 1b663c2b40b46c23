"""How many Cloud Logging calls one workflow run makes online (real client, local fake server).

Runs a real wiki workflow through `mlwiki run --project P` against the fake Logging server of
`tests/fakes/logging_server.py` (pointed at with MLWIKI_LOGGING_ENDPOINT), with a synthetic
incident of ENTRIES container lines, and prints the number of `entries:list` requests and the run
time. The engine evaluates every action's filter locally on the entries the session collected, so
the count is that of the broad collection plan, not one call per step.

    _wiki/.venv/bin/python benchmarks/bench_workflow_calls.py [WORKFLOW_ID] [ENTRIES]
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mlwiki.cli import main
from tests.fakes.logging_server import FakeLoggingServer

OOM = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm."


def incident(count: int) -> list[dict]:
    entries = []
    for index in range(count):
        node = f"gke-tpu-{index % 16}"
        text = OOM if index % 97 == 0 else f"step {index} loss 2.{index % 10}"
        entries.append(
            {
                "insertId": f"e{index}",
                "logName": "projects/demo-project/logs/stdout",
                "timestamp": f"2025-03-01T10:{(index // 60) % 60:02d}:{index % 60:02d}Z",
                "resource": {
                    "type": "k8s_container",
                    "labels": {"pod_name": f"llm-pretrain-slice-0-{index % 16}-x"},
                },
                "labels": {
                    "compute.googleapis.com/resource_name": node,
                    "k8s-pod/jobset_sigs_k8s_io/jobset-name": "llm-pretrain",
                },
                "severity": "ERROR" if index % 97 == 0 else "INFO",
                "textPayload": text,
            }
        )
    return entries


def main_() -> None:
    workflow = sys.argv[1] if len(sys.argv) > 1 else "verify-hbm-oom-compile"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    server = FakeLoggingServer(incident(count))
    server.start()
    state = tempfile.mkdtemp()
    os.environ.update(MLWIKI_LOGGING_ENDPOINT=server.url, MLWIKI_AUDIT_LOG=f"{state}/audit.jsonl")
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(
                [
                    "run", workflow, "--project", "demo-project", "--param", "workload=llm-pretrain",
                    "--start", "2025-03-01T10:00:00Z", "--end", "2025-03-01T11:00:00Z",
                    "--no-entries",
                ]
            )  # fmt: skip
    finally:
        server.stop()
    seconds = time.perf_counter() - started
    import json

    run = json.loads(out.getvalue()) if out.getvalue() else {}
    steps = [(s["id"], s["status"]) for s in run.get("steps", [])]
    print(f"workflow: {workflow} (exit {code}), {count} entries served")
    print(f"steps: {steps}; verdict: {run.get('verdict')}")
    print(f"Logging entries:list requests: {len(server.requests)}")
    for query in (run.get("source") or {}).get("queries", []):
        print(f"  {query['name']}: {query['calls']} call(s), {query['entries']} entries")
    print(f"wall time: {seconds:.2f}s")
    if err.getvalue().strip():
        print(err.getvalue().strip())


if __name__ == "__main__":
    main_()
