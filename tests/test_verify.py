"""`mlwiki verify`: citations must resolve to fetched entries whose text holds the quote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, run_cli

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"


@pytest.fixture
def findings(tmp_path: Path) -> Path:
    out = tmp_path / "findings.json"
    assert (
        run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--out", str(out)).code == 0
    )
    return out


def tamper(path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def test_good_findings_pass(findings: Path) -> None:
    result = run_cli("verify", str(findings), "--bundle", str(DEMO), "--format", "json")
    assert result.code == 0 and result.json()["status"] == "PASS"


def test_altered_quote_fails(findings: Path) -> None:
    tamper(findings, lambda d: d["evidence"][0].update(quote="Out of memory: Killed process 1 (x)"))
    result = run_cli("verify", str(findings), "--bundle", str(DEMO))
    assert result.code == 1 and "E1" in result.stdout and "quote" in result.stdout


def test_unfetched_entry_fails(findings: Path) -> None:
    tamper(findings, lambda d: d["evidence"][1].update(timestamp="2020-01-01T00:00:00Z"))
    result = run_cli("verify", str(findings), "--bundle", str(DEMO))
    assert result.code == 1 and "no entry with this insertId and timestamp" in result.stdout


def test_uncited_conclusion_fails(findings: Path) -> None:
    tamper(findings, lambda d: d["failures"][0].update(evidence=["E999"]))
    result = run_cli("verify", str(findings), "--bundle", str(DEMO))
    assert result.code == 1 and "E999" in result.stdout


def test_schema_violation_fails(findings: Path) -> None:
    tamper(findings, lambda d: d.update(status="probably"))
    assert run_cli("verify", str(findings), "--bundle", str(DEMO)).code == 1


def test_bad_files_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "f.json"
    bad.write_text("{oops")
    assert run_cli("verify", str(bad)).code == 2
    assert run_cli("verify", str(tmp_path / "missing.json")).code == 2
    bad.write_text(json.dumps({"evidence": [], "data": {"sources": ["/nonexistent"]}}))
    assert run_cli("verify", str(bad)).code == 2
