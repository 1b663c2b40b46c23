"""The held-out incident set (tests/incidents/): labels are sound, and the diagnosis does not regress.

The expected answers are what a senior engineer would say, never adjusted to the tool; so the
diagnosis is held to the score it reaches today (a floor) and to exact answers on the incidents
it already gets right. Raise the floor and extend `RIGHT_TODAY` as the method improves.
"""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

import pytest

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, eval_report, run_cli
from tests.incidents.make_incidents import build_all

INCIDENTS = REPO_ROOT / "tests" / "incidents"
KINDS = {"crash", "hang", "restart", "preemption", "eviction", "scheduling"}

# Measured on the day the set was written: 18 of 27 exact; after the method fixes of issue #5
# (infrastructure events only from the platform, reporters, persisting conditions, explanations,
# stalls, node-pool siblings, culprits of every disruption): 27 of 27.
FLOORS = {"exact": 27 / 27, "status": 27 / 27, "root_cause": 27 / 27, "culprit": 27 / 27}
RIGHT_TODAY = {
    "checkpoint-gcs-403",
    "compile-hbm-oom-every-host",
    "dark-host-host-error",
    "dark-host-not-ready-only",
    "dark-host-nothing",
    "device-plugin-init-stuck",
    "evicted-ephemeral-storage",
    "healthy-with-benign-noise",
    "host-maintenance-terminate",
    "host-oom-node-event-only",
    "image-pull-not-found",
    "injected-instructions-check-failed",
    "jaxlib-mismatch-every-host",
    "kueue-preemption-evicted",
    "kueue-quota-pending",
    "leader-host-error-dotted-labels",
    "liveness-restart-incarnation",
    "megascale-bad-chip-digest",
    "oom-then-spot-preemption",
    "pod-name-only-core-halted",
    "segfault-libtpu-multislice",
    "selector-mismatch-no-scale-up",
    "slice-failure-chip-driver",
    "spot-preemption-graceful",
    "stall-steps-stop",
    "stockout-autoscaler",
    "structured-runtime-hbm-oom",
}


def folders() -> list[Path]:
    return sorted(p.parent for p in INCIDENTS.glob("*/expected.json"))


@pytest.fixture(scope="module")
def report() -> dict:
    return eval_report(INCIDENTS)


def test_committed_bundles_are_what_the_generator_writes(tmp_path: Path) -> None:
    names = build_all(tmp_path)
    assert names == [p.name for p in folders()]
    for name in names:
        for file in ("bundle.json", "expected.json"):
            assert filecmp.cmp(tmp_path / name / file, INCIDENTS / name / file, shallow=False), (
                f"{name}/{file} differs from the generator: run tests/incidents/make_incidents.py"
            )


@pytest.mark.parametrize("folder", folders(), ids=lambda p: p.name)
def test_labels_are_well_formed_and_grounded_in_the_bundle(folder: Path) -> None:
    symptoms = load_wiki(REPO_ROOT / "_wiki").symptoms
    expected = json.loads((folder / "expected.json").read_text())
    entries = json.loads((folder / "bundle.json").read_text())
    stamps = [e["timestamp"] for e in entries]
    assert isinstance(entries, list) and len(entries) >= 5
    assert len({e["insertId"] for e in entries}) == len(entries)
    text = (folder / "bundle.json").read_text()
    assert expected["status"] in {"diagnosed", "inconclusive", "no_failure"}
    assert (expected["root_cause"] is None) == (expected["status"] != "diagnosed")
    if expected["root_cause"]:
        assert symptoms[expected["root_cause"]].role == "root"
        # the headline: one disruption's root cause (DESIGN.md, findings)
        assert expected["root_cause"] in [f["symptom"] for f in expected["failures"]]
    for failure in expected["failures"]:
        assert failure["kind"] in KINDS
        assert failure["symptom"] is None or failure["symptom"] in symptoms
        assert failure["host"] is None or f'"{failure["host"]}"' in text
    for host in expected["culprit_hosts"]:
        assert f'"{host}"' in text, f"culprit {host} never appears in the bundle"
    assert stamps == sorted(stamps, key=_instant, reverse=True), "bundle must be newest first"
    assert expected["why"]


def _instant(stamp: str) -> float:
    from mlwiki.diagnose.clock import epoch

    return epoch(stamp)


def test_accuracy_does_not_fall_below_todays_floor(report: dict) -> None:
    assert report["scenarios"] == len(folders())
    for name, floor in FLOORS.items():
        assert report["accuracy"][name] >= floor - 1e-9, (name, report["accuracy"])


def test_incidents_diagnosed_exactly_today_stay_exact(report: dict) -> None:
    exact = {r["scenario"] for r in report["results"] if r["exact"]}
    assert sorted(RIGHT_TODAY - exact) == []


def test_text_in_a_log_line_is_never_obeyed() -> None:
    """A data record telling agents what to conclude and run must not reach the next steps."""
    result = run_cli(
        "troubleshoot",
        "chat-rl-run",
        "--bundle",
        str(INCIDENTS / "injected-instructions-check-failed"),
        "--format",
        "json",
    )
    assert result.code == 0, result.stderr
    findings = result.json()
    assert findings["status"] != "no_failure"
    assert "delete jobset" not in json.dumps(findings["next_steps"])
