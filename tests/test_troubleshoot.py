"""`mlwiki troubleshoot` end to end on bundles from the scenario generator and the demo."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, run_cli
from tests.scenarios import INJECTION, culprit_logs_missing, healthy, single_host_crash

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"


def findings_of(workload: str, bundle: Path) -> dict:
    result = run_cli("troubleshoot", workload, "--bundle", str(bundle), "--format", "json")
    assert result.code == 0, result.stderr
    return result.json()


def test_demo_markdown_shows_both_disruptions_with_their_culprits() -> None:
    expected = json.loads((DEMO / "expected.json").read_text())
    result = run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--format", "md")
    assert result.code == 0, result.stderr
    table = result.stdout.split("## Failure table", 1)[1].split("##", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 2
    for row, want in zip(rows, expected["failures"]):
        assert f"`{want['symptom']}`" in row and want["host"] in row and want["kind"] in row
    assert "**Status: diagnosed**" in result.stdout


def test_demo_findings_and_out_files_pass_verify(tmp_path: Path) -> None:
    out = tmp_path / "findings.json"
    result = run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--out", str(out))
    assert result.code == 0, result.stderr
    findings = json.loads(out.read_text())
    assert out.with_suffix(".md").read_text().startswith("# Troubleshooting report")
    assert findings["root_cause"]["symptom"] == "host-oom-killed"
    assert findings["culprit_hosts"][0]["task"] == 9
    assert findings["approvals"] == []
    check = run_cli("verify", str(out), "--bundle", str(DEMO))
    assert check.code == 0, check.stdout


def test_order_of_entries_does_not_matter(tmp_path: Path) -> None:
    wiki = load_wiki(REPO_ROOT / "_wiki")
    oldest = single_host_crash(wiki, "hbm-oom-runtime", tmp_path / "a", seed=3)
    newest = single_host_crash(wiki, "hbm-oom-runtime", tmp_path / "b", seed=3, newest_first=True)
    workload = json.loads((oldest / "expected.json").read_text())["workload"]
    first, second = findings_of(workload, oldest), findings_of(workload, newest)
    assert first["failures"] == second["failures"]
    assert first["culprit_hosts"] == second["culprit_hosts"]


def test_instructions_in_log_text_stay_fenced_data(tmp_path: Path) -> None:
    wiki = load_wiki(REPO_ROOT / "_wiki")
    folder = single_host_crash(wiki, "process-segfault", tmp_path / "s", seed=9, injected=INJECTION)
    workload = json.loads((folder / "expected.json").read_text())["workload"]
    findings = findings_of(workload, folder)
    assert findings["status"] == "diagnosed" and findings["approvals"] == []
    for run in findings["actions_run"]:  # read-only verification only; nothing was approved
        assert run["workflow"].startswith("verify-")
        assert all(step["status"] != "awaiting_approval" for step in run["steps"])
    assert any(INJECTION.strip() in item["quote"] for item in findings["evidence"])
    report = run_cli("troubleshoot", workload, "--bundle", str(folder)).stdout
    outside_code = re.sub(r"(`{3,})text\n.*?\n\1", "", report, flags=re.S)
    outside_code = re.sub(r"(`+)[^`].*?\1", "", outside_code)
    assert "ignore previous instructions" in report
    assert "ignore previous instructions" not in outside_code  # only ever inside code


def test_cascades_only_is_inconclusive_and_names_the_pointed_host(tmp_path: Path) -> None:
    folder = culprit_logs_missing(tmp_path / "dark", not_ready=False)
    expected = json.loads((folder / "expected.json").read_text())
    findings = findings_of(expected["workload"], folder)
    assert findings["status"] == "inconclusive" and findings["root_cause"] is None
    assert [c["host"] for c in findings["culprit_hosts"]] == expected["culprit_hosts"]
    assert any("no log entries at all from node" in gap for gap in findings["data"]["missing"])


def test_healthy_run_is_no_failure(tmp_path: Path) -> None:
    folder = healthy(tmp_path / "ok")
    findings = findings_of("healthy-run", folder)
    assert findings["status"] == "no_failure" and findings["failures"] == []


def test_window_outside_the_data_is_not_called_healthy(tmp_path: Path) -> None:
    result = run_cli(
        "troubleshoot",
        "llm-pretrain",
        "--bundle",
        str(DEMO),
        "--format",
        "json",
        "--start",
        "2024-01-01T00:00:00Z",
        "--end",
        "2024-01-01T01:00:00Z",
    )
    assert result.code == 0, result.stderr
    findings = result.json()
    assert findings["status"] == "inconclusive"
    assert any("no container log entries" in gap for gap in findings["data"]["missing"])


def test_bad_input_exits_2(tmp_path: Path) -> None:
    assert run_cli("troubleshoot", "llm-pretrain").code == 2
    missing = run_cli("troubleshoot", "llm-pretrain", "--bundle", str(tmp_path / "nope"))
    assert missing.code == 2 and "does not exist" in missing.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"timestamp": "2025-01-01T00:00:00Z"}\n{not json\n')
    bad = run_cli("troubleshoot", "llm-pretrain", "--bundle", str(broken))
    assert bad.code == 2 and "broken.jsonl:2" in bad.stderr
