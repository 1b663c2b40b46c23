"""Round-19 incidents (tests/incidents19): an input pipeline that cannot read or decode its data,
a failure mode that had no page before.

Three incidents written for this project as Cloud Logging bundles: a multi-host JAX JobSet whose
tf.data reader reaches a corrupt TFRecord shard on one host (the others then lose its heartbeats
and the JobSet restarts), a PyTorch/XLA Job whose DataLoader worker cannot open an image on every
attempt until the backoff limit, and an evaluation JobSet pointed at a TFDS data_dir where the
dataset was never prepared. The labels were written with the set. Main before the page (aa3fd36)
got 0 of 3 exact (each an uncaught exception, application-exception); with the page 3 of 3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_labels_well_formed, eval_report, generated_and_committed

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents19"
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


def test_the_data_is_the_root_of_every_incident(report: dict) -> None:
    """The diagnosis names the input pipeline, never the uncaught exception it explains nor the
    survivors' heartbeat cascade."""
    assert {r["got"]["root_cause"] for r in report["results"]} == {"input-pipeline-failure"}


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """Re-running the generator reproduces the committed scenario files byte for byte."""
    made, committed = generated_and_committed(INCIDENTS, tmp_path)
    assert made and made == committed
