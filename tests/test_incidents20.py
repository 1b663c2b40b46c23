"""Round-20 incidents (tests/incidents20): a Python dependency that is missing or incompatible, a
failure mode that had no page before.

Three incidents written for this project as Cloud Logging bundles: a multi-host JAX JobSet whose
rebuilt image has a JAX without an API the trainer imports (every task dies at the import, so no
host is the culprit, and the JobSet restarts and fails), a fine-tuning Job whose entrypoint pins a
release the index does not have, on every attempt until the backoff limit, and a preprocessing Job
crash-looping on NumPy's ABI check after its image moved to NumPy 2. The labels were written with
the set. Main before the page (aa3fd36) got 0 of 3 exact (two uncaught exceptions, and the pip
failure inconclusive: a Job that failed with no root line); with the page 3 of 3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_labels_well_formed, eval_report, generated_and_committed

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents20"
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


def test_the_dependency_is_the_root_of_every_incident(report: dict) -> None:
    """The diagnosis names the dependency, never the uncaught exception it explains nor the
    restarts it causes."""
    assert {r["got"]["root_cause"] for r in report["results"]} == {"python-dependency-error"}


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """Re-running the generator reproduces the committed scenario files byte for byte."""
    made, committed = generated_and_committed(INCIDENTS, tmp_path)
    assert made and made == committed
