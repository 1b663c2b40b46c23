"""`mlwiki troubleshoot --project`: the same diagnosis from Cloud Logging as from the same entries
in a bundle, through the real google-cloud-logging client and a local Logging API server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.fakes.logging_server import FakeLoggingServer, serve_logging
from tests.fakes.monitoring_server import serve_monitoring

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"
WORKLOAD = "llm-pretrain"
PROJECT = "demo-tpu-project"


def _entries() -> list[dict[str, Any]]:
    return json.loads((DEMO / "logs.json").read_text())


def _window(entries: list[dict[str, Any]]) -> tuple[str, str]:
    stamps = sorted(datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00")) for e in entries)
    pad = timedelta(minutes=5)
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    return (stamps[0] - pad).strftime(fmt), (stamps[-1] + pad).strftime(fmt)


@pytest.fixture
def logging_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLoggingServer]:
    entries = _entries()
    for entry in entries:  # the API names the project the entries were read from
        entry["logName"] = entry["logName"].replace(entry["logName"].split("/")[1], PROJECT, 1)
    with serve_logging(entries) as server, serve_monitoring() as monitoring:
        monkeypatch.setenv("MLWIKI_LOGGING_ENDPOINT", server.url)
        # The diagnosis also reads Cloud Monitoring: a local server (with no series) answers.
        monkeypatch.setenv("MLWIKI_MONITORING_ENDPOINT", monitoring.endpoint)
        yield server


def _summary(findings: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": findings["status"],
        "root_cause": (findings["root_cause"] or {}).get("symptom"),
        "culprits": sorted(c["host"] for c in findings["culprit_hosts"]),
        "failures": sorted(
            (f["kind"], f["symptom"], f["host"] or "") for f in findings["failures"]
        ),
        "evidence": sorted(e["insertId"] for e in findings["evidence"]),
    }


def test_cloud_logging_gives_the_bundle_diagnosis_in_few_calls(cli, logging_api) -> None:
    start, end = _window(_entries())
    online = cli(
        "troubleshoot",
        WORKLOAD,
        "--project",
        PROJECT,
        "--start",
        start,
        "--end",
        end,
        "--format",
        "json",
    )
    assert online.code == 0, online.stderr
    offline = cli("troubleshoot", WORKLOAD, "--bundle", str(DEMO), "--format", "json")
    findings = online.json()
    assert _summary(findings) == _summary(offline.json())
    assert findings["status"] == "diagnosed" and not findings["data"]["partial"]
    # Few, well-filtered list calls: explicit bounds and full pages, never one call per action.
    bodies = logging_api.requests
    assert 1 <= len(bodies) <= 6, [b["filter"][:80] for b in bodies]
    for body in bodies:
        assert body["resourceNames"] == [f"projects/{PROJECT}"]
        assert body["pageSize"] == 1000
        assert "timestamp>=" in body["filter"] and "timestamp<=" in body["filter"], body["filter"]


def test_verify_resolves_online_citations_against_the_same_entries(
    cli, logging_api, tmp_path
) -> None:
    start, end = _window(_entries())
    out = tmp_path / "findings.json"
    assert (
        cli(
            "troubleshoot",
            WORKLOAD,
            "--project",
            PROJECT,
            "--start",
            start,
            "--end",
            end,
            "--out",
            str(out),
        ).code
        == 0
    )
    bundle = tmp_path / "fetched.json"
    bundle.write_text(json.dumps(logging_api.entries))
    result = cli("verify", str(out), "--bundle", str(bundle))
    assert result.code == 0, result.stdout + result.stderr


def test_verify_looks_cited_entries_up_in_cloud_logging(cli, logging_api, tmp_path) -> None:
    start, end = _window(_entries())
    out = tmp_path / "findings.json"
    assert (
        cli(
            "troubleshoot",
            WORKLOAD,
            "--project",
            PROJECT,
            "--start",
            start,
            "--end",
            end,
            "--out",
            str(out),
        ).code
        == 0
    )
    before = len(logging_api.requests)
    result = cli("verify", str(out), "--format", "json")
    assert result.code == 0, result.stdout + result.stderr
    assert (
        result.json()["checked_against"]
        == f"Cloud Logging projects/{PROJECT} (the project the findings name)"
    )
    lookups = logging_api.requests[before:]
    assert len(lookups) == 1 and "insertId=(" in lookups[0]["filter"]
    findings = json.loads(out.read_text())
    findings["evidence"][0]["quote"] = "a line nobody logged"
    out.write_text(json.dumps(findings))
    tampered = cli("verify", str(out))
    assert tampered.code == 1
    assert "the quote is not in the entry's text" in tampered.stdout


def test_an_explicit_project_wins_over_the_bundle_the_findings_name(
    cli, logging_api, tmp_path
) -> None:
    out = tmp_path / "findings.json"
    assert cli("troubleshoot", WORKLOAD, "--bundle", str(DEMO), "--out", str(out)).code == 0
    result = cli("verify", str(out), "--project", PROJECT, "--format", "json")
    assert result.json()["checked_against"] == f"Cloud Logging projects/{PROJECT} (given)"
    assert result.code == 0, result.stdout


def test_capped_collection_is_partial_and_never_no_failure(cli, logging_api) -> None:
    start, end = _window(_entries())
    result = cli(
        "troubleshoot", WORKLOAD, "--project", PROJECT, "--start", start, "--end", end,
        "--max-entries", "100", "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    findings = result.json()
    assert findings["data"]["partial"] is True
    assert findings["status"] == "inconclusive"
    assert findings["data"]["missing"], "the gap must be named"


def test_throttled_requests_are_retried(cli, logging_api) -> None:
    start, end = _window(_entries())
    logging_api.fail_next(429, n=1)
    result = cli(
        "troubleshoot",
        WORKLOAD,
        "--project",
        PROJECT,
        "--start",
        start,
        "--end",
        end,
        "--format",
        "json",
    )
    assert result.code == 0, result.stderr
    assert result.json()["status"] == "diagnosed"
    assert not result.json()["data"]["partial"]


def test_window_is_required_to_be_sane(cli, logging_api) -> None:
    result = cli(
        "troubleshoot",
        WORKLOAD,
        "--project",
        PROJECT,
        "--start",
        "2026-01-02T00:00:00Z",
        "--end",
        "2026-01-01T00:00:00Z",
    )
    assert result.code == 2
    assert "--start" in result.stderr or "--end" in result.stderr
