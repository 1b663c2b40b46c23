"""Round-4 held-out incidents (project-wide exports): the diagnosis must blame only the target.

The bundles under tests/incidents4/ hold the target workload together with other workloads of the
same project and cluster noise; expected.json is what a senior TPU engineer concludes. These
tests pin today's accuracy (floors, and exact answers for the scenarios right today) without
bending the labels: the scenarios in KNOWN_MISSES are wrong today and stay labelled truthfully.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import eval_report

HERE = Path(__file__).resolve().parent / "incidents4"
SCENARIOS = sorted(p.parent.name for p in HERE.glob("*/expected.json"))

# Wrong today: scenario -> the fields that miss. The round-4 report found three; the method
# now gets daemonset-oom-on-target-node and window-misses-root right. The one left is a
# convention: this label wants no host in the row of a hang between two named hosts, while the
# tool (and tests/incidents2's multislice-dcn-hang label) puts the first host the digest names
# there; both hosts are the culprits either way.
KNOWN_MISSES = {
    "megascale-network-two-hosts": {"failures"},
}
FLOORS = {"exact": 22 / 23, "status": 1.0, "root_cause": 1.0, "culprit": 1.0, "failures": 22 / 23}


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return eval_report(HERE)


def results_by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["scenario"]: r for r in report["results"]}


def test_every_scenario_is_scored(report: dict[str, Any]) -> None:
    assert len(SCENARIOS) >= 18
    assert sorted(results_by_name(report)) == SCENARIOS


def test_accuracy_floors(report: dict[str, Any]) -> None:
    for name, floor in FLOORS.items():
        assert report["accuracy"][name] >= floor, (name, report["accuracy"][name])


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s not in KNOWN_MISSES])
def test_scenario_exact(report: dict[str, Any], scenario: str) -> None:
    outcome = results_by_name(report)[scenario]
    assert outcome["exact"], json.dumps(
        {"expected": outcome["expected"], "got": outcome["got"]}, indent=1
    )


@pytest.mark.parametrize("scenario", sorted(KNOWN_MISSES))
def test_known_misses_only_miss_where_reported(report: dict[str, Any], scenario: str) -> None:
    """A known miss may get better, never worse: fields right today must stay right."""
    scores = results_by_name(report)[scenario]["scores"]
    assert {f for f, ok in scores.items() if not ok} <= KNOWN_MISSES[scenario]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_labels_name_real_hosts_and_explain(scenario: str) -> None:
    folder = HERE / scenario
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    entries = json.loads((folder / "logs.json").read_text(encoding="utf-8"))
    assert expected["why"].strip()
    assert expected["status"] in {"diagnosed", "inconclusive", "no_failure"}
    assert [e["timestamp"] for e in entries] == sorted(
        (e["timestamp"] for e in entries), reverse=True
    )
    text = json.dumps(entries)
    hosts = set(expected["culprit_hosts"]) | {f["host"] for f in expected["failures"] if f["host"]}
    for host in hosts:
        assert text.count(host) >= 2, host
    # Every bundle is project-wide: it holds at least one entry that is not the target's.
    assert any(expected["workload"] not in json.dumps(e) for e in entries)


def test_generator_is_deterministic(tmp_path: Path) -> None:
    shutil.copy(HERE / "make_incidents.py", tmp_path / "make_incidents.py")
    subprocess.run([sys.executable, str(tmp_path / "make_incidents.py")], check=True, timeout=120)
    for scenario in SCENARIOS:
        for name in ("logs.json", "expected.json"):
            generated = (tmp_path / scenario / name).read_bytes()
            assert generated == (HERE / scenario / name).read_bytes(), f"{scenario}/{name}"
