"""Round-8 held-out incidents (tests/incidents8): WHO IS WHO — mapping what the logs name (a JAX
`task:K`, a headless-service address, a TPU_WORKER_HOSTNAMES entry, a Megascale host name, a
LeaderWorkerSet leader) to a pod and its node: a JobSet with a CPU `driver` plus TPU `workers`
(task ids counting only the workers, or the driver first), plain Indexed Jobs, a LeaderWorkerSet,
128-host and multislice runs, pods re-placed across restart attempts, a replaced pod, two
root-looking lines within a second, Pathways, and a healthy 64-host run with benign noise.

Floors keep today's accuracy from regressing; the scenarios right today must stay exact.
The labels are what a senior engineer concludes, not what the tool says (see each `why`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.eval import FIELDS, evaluate
from mlwiki.wiki import load_wiki
from tests.conftest import assert_labels_well_formed, load_generator

ROOT = Path(__file__).resolve().parent / "incidents8"

# The round-8 report found one miss (15: task:K was mapped by completion index although the
# start-up lines say the driver is process 0, so task:4 is workers-0-3); a task is now the pod
# that declared that process id, and all 16 are right.
KNOWN_MISSES: set[str] = set()

FLOORS = {"status": 1.0, "root_cause": 1.0, "culprit": 1.0, "failures": 1.0}


@pytest.fixture(scope="module")
def report():
    wiki = load_wiki(Path(__file__).resolve().parents[1] / "_wiki")
    return evaluate(wiki, ROOT)


def test_sixteen_labelled_incidents(report) -> None:
    assert len(report.outcomes) == 16


def test_accuracy_floors(report) -> None:
    for name in FIELDS:
        assert report.accuracy(name) >= FLOORS[name], name
    assert report.accuracy() == 1.0


def test_right_today_stay_exact(report) -> None:
    wrong = sorted(o.name for o in report.outcomes if not o.exact and o.name not in KNOWN_MISSES)
    assert wrong == []


def test_labels_are_well_formed() -> None:
    assert_labels_well_formed(ROOT)


def test_generator_reproduces_the_bundles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_generator(ROOT, monkeypatch)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    for folder in sorted(p for p in ROOT.iterdir() if p.is_dir() and p.name != "__pycache__"):
        for original in folder.iterdir():
            regenerated = tmp_path / folder.name / original.name
            assert regenerated.read_bytes() == original.read_bytes(), (
                f"{folder.name}/{original.name}"
            )
