"""Round-7 held-out incidents (tests/incidents7): the root modes earlier rounds covered least —
runtime and program-load HBM OOM, input mismatch after a restore, Mosaic and VMEM compile
failures, a PJRT `Check failed`, core halted in a 16-host slice, TPU init and topology faults, a
connect timeout from one image pull, barrier timeouts, GCS 429 and 403, Pathways cache config,
host-agent OOM, device-plugin loss, host maintenance and Kueue preemption.

Floors keep today's accuracy from regressing; the scenarios right today must stay exact.
The labels are what a senior engineer concludes, not what the tool says (see each `why`)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mlwiki.eval import FIELDS, evaluate
from mlwiki.wiki import load_wiki
from tests.conftest import assert_labels_well_formed, load_generator

ROOT = Path(__file__).resolve().parent / "incidents7"

# The round-7 report found one miss (gcs-429-during-restore: a hang, by the page's kind, although
# the other tasks raised at the restore barrier and the JobSet failed); the method now counts any
# task that raised, and gets all 18 right.
KNOWN_MISSES: set[str] = set()


@pytest.fixture(scope="module")
def report():
    wiki = load_wiki(Path(__file__).resolve().parents[1] / "_wiki")
    return evaluate(wiki, ROOT)


def test_eighteen_labelled_incidents(report) -> None:
    assert len(report.outcomes) == 18


def test_accuracy_floors(report) -> None:
    for name in FIELDS:
        assert report.accuracy(name) == 1.0, name
    assert report.accuracy() == 1.0


def test_right_today_stay_exact(report) -> None:
    wrong = sorted(o.name for o in report.outcomes if not o.exact and o.name not in KNOWN_MISSES)
    assert wrong == []


def test_a_throttled_save_that_failed_the_job_is_a_crash(report) -> None:
    outcome = next(o for o in report.outcomes if o.name == "gcs-429-during-restore")
    assert outcome.got["failures"][0]["kind"] == "crash"


def test_labels_are_well_formed() -> None:
    assert_labels_well_formed(ROOT)


def test_generator_reproduces_the_bundles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_generator(ROOT, monkeypatch)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    for folder in sorted(p for p in ROOT.iterdir() if p.is_dir() and p.name != "__pycache__"):
        for original in folder.iterdir():
            regenerated = tmp_path / folder.name / original.name
            # A gzip stream's bytes depend on the zlib build; its content must not.
            read = gzip.decompress if original.suffix == ".gz" else (lambda data: data)
            assert read(regenerated.read_bytes()) == read(original.read_bytes()), (
                f"{folder.name}/{original.name}"
            )
