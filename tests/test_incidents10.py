"""Round-10 held-out incidents (infrastructure-heavy): the diagnosis must not regress on them.

Exact expectations for the scenarios diagnosed right today (all 19); a future known miss keeps
only the fields it still gets right in KNOWN_MISSES. The labels stay true: a miss is reported, never relabelled to pass.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from mlwiki.eval import EvalReport, evaluate, scenario_folders
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, run_cli

HERE = Path(__file__).resolve().parent / "incidents10"

# Scenario name -> the fields still right today when a scenario is a known miss (none today).
KNOWN_MISSES: dict[str, set[str]] = {}


@pytest.fixture(scope="module")
def report() -> EvalReport:
    return evaluate(load_wiki(REPO_ROOT / "_wiki"), HERE)


def test_exact_accuracy_floor(report: EvalReport) -> None:
    assert len(report.outcomes) == 19
    assert report.accuracy() >= 1 - len(KNOWN_MISSES) / len(report.outcomes)
    assert report.accuracy("status") == 1.0
    assert report.accuracy("root_cause") == 1.0


@pytest.mark.parametrize("folder", scenario_folders(HERE), ids=lambda p: p.name)
def test_scenario_not_regressed(report: EvalReport, folder: Path) -> None:
    outcome = next(o for o in report.outcomes if o.name == folder.name)
    must_hold = KNOWN_MISSES.get(folder.name, set(outcome.scores))
    wrong = sorted(f for f in must_hold if not outcome.scores[f])
    assert not wrong, f"{folder.name}: {wrong} expected {outcome.expected} got {outcome.got}"


@pytest.mark.parametrize("folder", scenario_folders(HERE), ids=lambda p: p.name)
def test_labels_are_consistent_with_their_bundle(folder: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    entries = json.loads(gzip.decompress((folder / "logs.json.gz").read_bytes()))
    stamps = [e["timestamp"] for e in entries]
    assert stamps == sorted(stamps, reverse=True), "gcloud prints newest first"
    text = json.dumps(entries)
    assert f'"{expected["workload"]}' in text
    failure_hosts = {f["host"] for f in expected["failures"] if f["host"]}
    # culprits are the headline disruption's (DESIGN.md, findings): hosts of its rows
    assert set(expected["culprit_hosts"]) <= failure_hosts or expected["status"] == "inconclusive"
    for host in expected["culprit_hosts"]:
        assert host in text, f"culprit {host} never appears in the bundle"
    if expected["status"] == "no_failure":
        assert expected["root_cause"] is None and not expected["failures"]
    assert expected["why"]


def test_cli_text_table_lists_every_incident() -> None:
    result = run_cli("eval", str(HERE), "--format", "text")
    assert result.code == 0, result.stderr
    assert all(p.name in result.stdout for p in scenario_folders(HERE))
