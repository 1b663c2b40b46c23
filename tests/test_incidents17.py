"""Round-17 incidents (tests/incidents17): a gRPC message over the size limit and a full local disk
or /dev/shm, failure modes that had no page before.

Four incidents written for this project as Cloud Logging bundles: a JAX JobSet whose task 0 puts a
value over 4 MiB into jax.distributed's key-value store (the other tasks then lose their leader), an
evaluation Job whose gRPC client gets a response over its receive limit on every attempt, a
PyTorch/XLA JobSet whose DataLoader workers fill the container's /dev/shm, and a JobSet whose image
cannot be unpacked onto one node's full boot disk. The labels were written with the set. Main before
the new pages (bc2c21c) got 0 of 4 exact (three uncaught exceptions and one image pull); with the
pages 4 of 4.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_labels_well_formed, eval_report, generated_and_committed

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents17"
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


def test_each_new_page_is_the_root_of_its_incidents(report: dict) -> None:
    """The diagnosis names the new page, never the exception, the segfault or the image pull it
    explains."""
    named = {r["got"]["root_cause"] for r in report["results"]}
    assert named == {"grpc-message-too-large", "local-disk-full"}


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """Re-running the generator reproduces the committed scenario files byte for byte."""
    made, committed = generated_and_committed(INCIDENTS, tmp_path)
    assert made and made == committed
