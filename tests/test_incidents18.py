"""Round-18 incidents (tests/incidents18): a workload that cannot obtain or refresh Google Cloud
credentials, a failure mode that had no page before.

Four incidents written for this project as Cloud Logging bundles: a JAX JobSet whose task 0 is
refused its Workload Identity token by the GKE metadata server (the other tasks then lose their
leader), an evaluation Job whose service-account key was deleted mid-run (invalid_grant on every
retry until the backoff limit), a JobSet whose Cloud Storage FUSE volume cannot mount on any pod
because the sidecar is refused the same token, and a Deployment whose key file is not mounted (a
crash loop). The labels were written with the set. Main before the page (aa3fd36) got 0 of 4
exact (a storage permission, two uncaught exceptions and a gcsfuse mount failure); with the page
4 of 4.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_labels_well_formed, eval_report, generated_and_committed

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents18"
FLOORS = {"exact": 1.0, "status": 1.0, "root_cause": 1.0, "culprit": 1.0, "failures": 1.0}


@pytest.fixture(scope="module")
def report() -> dict:
    return eval_report(INCIDENTS)


def test_labels_are_well_formed() -> None:
    assert_labels_well_formed(INCIDENTS)


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_accuracy_floor(report: dict, field: str) -> None:
    assert report["scenarios"] == 4
    assert report["accuracy"][field] >= FLOORS[field]


def test_the_credentials_are_the_root_of_every_incident(report: dict) -> None:
    """The diagnosis names the credentials, never the exception, the storage call or the mount
    failure they caused."""
    named = {r["got"]["root_cause"] for r in report["results"]}
    assert named == {"gcp-credentials-failure"}


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """Re-running the generator reproduces the committed scenario files byte for byte."""
    made, committed = generated_and_committed(INCIDENTS, tmp_path)
    assert made and made == committed
