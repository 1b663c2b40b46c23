"""Honest verdicts: a workflow that could not have seen the evidence says `inconclusive` and why,
never `refuted`; the window a run used is always in its output, the live default said aloud."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, run_cli
from tests.fakes.logging_server import FakeLoggingServer, serve_logging

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"
PROJECT = "demo-tpu-project"


def run(*argv: str) -> dict:
    result = run_cli("run", *argv, "--format", "json")
    assert result.code == 0, result.stderr
    return result.json()


def test_a_window_that_misses_the_run_is_inconclusive_not_refuted() -> None:
    done = run(
        "verify-host-oom-killed", "--param", "workload=llm-pretrain", "--bundle", str(DEMO),
        "--start", "2025-03-14T07:00:00Z", "--end", "2025-03-14T08:00:00Z",
    )  # fmt: skip
    assert done["verdict"] == "inconclusive"
    assert (
        "not refuted" in done["summary"]
        and "no log entries of workload llm-pretrain" in (done["summary"])
    )
    assert done["window"] == {
        "start": "2025-03-14T07:00:00Z", "end": "2025-03-14T08:00:00Z", "chosen": "given"
    }  # fmt: skip
    assert done["blind"]


def test_a_bundle_without_the_source_a_query_reads_cannot_refute(tmp_path: Path) -> None:
    entries = json.loads((DEMO / "logs.json").read_text())
    kept = [e for e in entries if "cloudaudit" not in e["logName"]]
    assert len(kept) < len(entries)
    (tmp_path / "logs.json").write_text(json.dumps(kept))
    done = run(
        "verify-spot-preemption", "--param", "workload=llm-pretrain", "--bundle", str(tmp_path)
    )
    assert done["verdict"] == "inconclusive"
    assert "query-gce-preempted" in done["summary"] and "not in the export" in done["summary"]


def test_a_real_absence_is_still_refuted() -> None:
    # The workload's logs are there and the bundle has Compute Engine audit logs; no preemption
    # in the OOM's window is a true refutation.
    done = run(
        "verify-spot-preemption", "--param", "workload=llm-pretrain", "--bundle", str(DEMO),
    )  # fmt: skip
    assert done["verdict"] == "confirmed"
    oom_only = run(
        "verify-hbm-oom-runtime", "--param", "workload=llm-pretrain", "--bundle", str(DEMO)
    )
    assert oom_only["verdict"] == "refuted", oom_only["summary"]
    assert "blind" not in oom_only


@pytest.fixture
def logging_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLoggingServer]:
    entries = json.loads((DEMO / "logs.json").read_text())
    for entry in entries:
        entry["logName"] = entry["logName"].replace(entry["logName"].split("/")[1], PROJECT, 1)
    with serve_logging(entries) as server:
        monkeypatch.setenv("MLWIKI_LOGGING_ENDPOINT", server.url)
        yield server


def test_live_data_without_a_window_says_which_window_it_used(logging_api) -> None:
    result = run_cli(
        "run", "verify-host-oom-killed", "--param", "workload=llm-pretrain",
        "--project", PROJECT, "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    done = result.json()
    assert done["window"]["chosen"].startswith("the last 24 hours")
    assert "the last 24 hours" in result.stderr and done["window"]["start"] in result.stderr
    # The demo happened in 2025: the last 24 hours cannot refute it.
    assert done["verdict"] == "inconclusive" and "not refuted" in done["summary"]
