"""Bad input a tired on-call engineer types: one clear line naming the flag or file, exit 2.

Each case here was found by trying the documented commands with wrong values; none may print a
traceback or run on silently with a value the user surely did not mean.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, CliResult, run_cli

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"


def assert_bad_input(result: CliResult, *named: str) -> None:
    """Exit 2 with exactly one stderr line that names each of `named`."""
    assert result.code == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for word in named:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        # A workload with a space or capitals is a typo, not a name to diagnose as "inconclusive".
        (("troubleshoot", "llm pretrain", "--bundle", str(DEMO)), ("WORKLOAD_ID", "llm pretrain")),
        (("troubleshoot", "LLM-Pretrain", "--bundle", str(DEMO)), ("WORKLOAD_ID", "Kubernetes")),
        (("match", "llm pretrain", "--bundle", str(DEMO)), ("WORKLOAD", "llm pretrain")),
        # A malformed project id is named before any credentials are looked for.
        (("troubleshoot", "llm-pretrain", "--project", "my project"), ("--project", "project id")),
        (("match", "--project", "my project"), ("--project", "project id")),
        (("doctor", "--project", "my project"), ("--project", "project id")),
        (("doctor", "--bucket", "gs://my bucket"), ("--bucket", "bucket name")),
        (
            ("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--max-log-calls", "0"),
            ("--max-log-calls", "at least 1"),
        ),
    ],
)
def test_malformed_names_and_numbers_are_bad_input(argv: tuple[str, ...], named: tuple[str, ...]):
    assert_bad_input(run_cli(*argv), *named)


@pytest.mark.parametrize("command", ["troubleshoot", "match"])
def test_since_yesterday_says_which_forms_work(command: str):
    argv = [command, "llm-pretrain", "--bundle", str(DEMO)]
    since = run_cli(*argv, "--since", "yesterday")
    assert_bad_input(since, "--since", "'yesterday'", "24h", "last 24 hours")
    start = run_cli(*argv, "--start", "yesterday")
    assert_bad_input(start, "--start", "'yesterday'", "2 hours ago", "2024-05-01T12:00:00Z")


def test_relative_and_absolute_windows_still_work():
    result = run_cli(
        "troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--start", "2025-03-14T09:00:00Z",
        "--end", "2025-03-14T09:40:00Z", "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert result.json()["root_cause"]["symptom"] == "host-oom-killed"


def test_findings_file_given_as_bundle_says_what_a_bundle_holds(tmp_path: Path):
    findings = tmp_path / "findings.json"
    assert (
        run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--out", str(findings)).code
        == 0
    )
    mistaken = tmp_path / "mine.json"  # renamed, so the bundle reader does not skip it by name
    mistaken.write_text(findings.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_cli("troubleshoot", "llm-pretrain", "--bundle", str(mistaken))
    assert_bad_input(result, f"{mistaken}:1:", "JSON array of log entries", "one entry per line")


def test_wiki_flag_after_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert_bad_input(run_cli("index", "--check"), "_wiki", "--wiki")
    after = run_cli("index", "--check", "--wiki", str(REPO_ROOT))
    before = run_cli("--wiki", str(REPO_ROOT), "index", "--check")
    assert (after.code, after.stdout) == (before.code, before.stdout)
    assert after.code == 0, after.stderr
    assert_bad_input(run_cli("--wiki", str(tmp_path), "lint", "--format", "text"), "--wiki")


def fake_gcloud(folder: Path, stderr: str, code: int) -> Path:
    """A `gcloud` that prints `stderr` and exits with `code`, like an unauthenticated one."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "gcloud"
    script.write_text(f"#!/bin/sh\ncat >&2 <<'EOF'\n{stderr}\nEOF\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def test_dashboard_quotes_gcloud_error_line_not_its_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    gcloud_says = (
        "ERROR: (gcloud.container.clusters.list) You do not currently have an active account "
        "selected.\nPlease run:\n\n  $ gcloud auth login\n\nto select an already authenticated "
        "account to use."
    )
    bin_dir = fake_gcloud(tmp_path / "bin", gcloud_says, 1)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    result = run_cli("dashboard", "--no-browser", "--port", "0")
    assert_bad_input(
        result, "gcloud container clusters list", "You do not currently have an active"
    )
    assert "to select an already" not in result.stderr


def test_every_error_of_a_verify_with_other_workloads_findings_is_cited(tmp_path: Path):
    """Findings of one bundle checked against another: a FAIL listing each evidence item."""
    findings = tmp_path / "findings.json"
    assert (
        run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--out", str(findings)).code
        == 0
    )
    other = tmp_path / "other.jsonl"
    other.write_text(
        json.dumps({"insertId": "x1", "timestamp": "2025-03-14T09:00:00Z", "textPayload": "hello"})
        + "\n",
        encoding="utf-8",
    )
    result = run_cli("verify", str(findings), "--bundle", str(other))
    assert result.code == 1
    assert "Traceback" not in result.stderr
    evidence = json.loads(findings.read_text(encoding="utf-8"))["evidence"]
    for item in evidence:
        assert f"evidence {item['id']} (insertId '{item['insertId']}')" in result.stdout


def test_log_query_action_without_a_source_is_bad_input():
    argv = ("action", "find-host-oom-killed", "--param", "workload=llm-pretrain")
    window = ("--param", "start=2025-03-14T09:00:00Z", "--param", "end=2025-03-14T10:00:00Z")
    assert_bad_input(run_cli(*argv, *window), "--bundle or --project", "find-host-oom-killed")
    # --dry-run reads nothing, so it needs no source; with a bundle the query runs.
    assert run_cli(*argv, *window, "--dry-run").code == 0
    ran = run_cli(*argv, "--bundle", str(DEMO))
    assert ran.code == 0, ran.stderr
    assert ran.json()["count"] == 2


def test_dashboard_context_with_a_space_is_bad_input():
    result = run_cli("dashboard", "--context", "my ctx", "--no-browser", "--port", "0")
    assert_bad_input(result, "--context", "'my ctx'")


def test_verify_of_a_binary_file_names_it(tmp_path: Path) -> None:
    picture = tmp_path / "pic.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    assert_bad_input(run_cli("verify", str(picture)), "pic.png", "not a findings file")


def test_verify_takes_one_place_to_check_against(tmp_path: Path) -> None:
    findings = tmp_path / "findings.json"
    assert (
        run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--out", str(findings)).code
        == 0
    )
    result = run_cli("verify", str(findings), "--bundle", str(DEMO), "--project", "tpu-prod-123")
    assert_bad_input(result, "--bundle", "--project")


def test_a_workflow_that_queries_logs_needs_a_source() -> None:
    result = run_cli(
        "run", "verify-spot-preemption", "--param", "workload=llm-pretrain",
        "--start", "2025-03-14T09:00:00Z", "--end", "2025-03-14T10:00:00Z",
    )  # fmt: skip
    assert_bad_input(result, "--bundle or --project", "verify-spot-preemption")


def test_a_window_that_misses_the_bundle_says_where_the_bundle_is() -> None:
    result = run_cli(
        "troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--since", "24h", "--format", "json"
    )
    findings = result.json()
    assert findings["status"] == "inconclusive"
    assert any(
        "fall outside the window" in gap and "2025-03-14T09:00:00Z" in gap
        for gap in findings["data"]["missing"]
    )


def test_match_reads_one_source() -> None:
    assert_bad_input(
        run_cli("match", "--bundle", str(DEMO), "--project", "tpu-prod-123"),
        "--bundle",
        "--project",
    )


def test_an_empty_bundle_is_inconclusive_and_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    findings = run_cli(
        "troubleshoot", "llm-pretrain", "--bundle", str(empty), "--format", "json"
    ).json()
    assert findings["status"] == "inconclusive"
    assert findings["data"]["missing"][0] == "no log entries at all in the data read"
    assert not findings["window"]["start"].startswith("1970")
