"""Round-15 incidents (tests/incidents15): the Kubernetes control plane as the root cause.

Three incidents written for this project as Cloud Logging bundles: a JobSet Kueue admitted whose
controller may not update `jobs/status` (the denial only in the controller's zap JSON line, in
`jobset-system`, naming the JobSet), a launcher refused listing its peer pods on each retry of its
Job, and a launcher that cannot reach the API server during a zonal control-plane upgrade while
Kueue's lease renewals time out. The labels were written with the set. Main before the new pages
and the structured-log fields (bc2c21c) got 0 of 3 exact (the first inconclusive, the others an
uncaught exception and an unreachable dependency); with them 3 of 3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_labels_well_formed, eval_report, generated_and_committed

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents15"
FLOORS = {"exact": 1.0, "status": 1.0, "root_cause": 1.0, "culprit": 1.0, "failures": 1.0}


@pytest.fixture(scope="module")
def report() -> dict:
    return eval_report(INCIDENTS)


def test_labels_are_well_formed() -> None:
    assert_labels_well_formed(INCIDENTS)


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_accuracy_floor(report: dict, field: str) -> None:
    assert report["scenarios"] == 3
    assert report["accuracy"][field] >= FLOORS[field]


def test_a_controllers_denial_names_no_host(report: dict) -> None:
    """The JobSet controller's line is about the JobSet it reconciles: the node its own pod runs
    on is no culprit, and the evidence is the controller's line itself."""
    result = next(r for r in report["results"] if r["scenario"] == "01-jobset-rbac-resume")
    assert result["got"]["root_cause"] == "kube-rbac-forbidden"
    assert result["got"]["culprit_hosts"] == []


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """Re-running the generator reproduces the committed scenario files byte for byte."""
    made, committed = generated_and_committed(INCIDENTS, tmp_path)
    assert made and made == committed
