"""Round-9 held-out incidents (tests/incidents9): jobs that NEVER START or start only after a long
wait — GCE quota, reservation stockout, a topology no pool offers, DWS queued provisioning that
expires, Kueue (missing LocalQueue, a request larger than the flavor), an admission webhook
denying pods, an untolerated TPU taint, a missing Secret, a wrong image tag, an init container
denied by Cloud Storage, node auto-provisioning limits, and two healthy runs after a long wait.

Floors keep today's accuracy from regressing; the scenarios right today must stay exact.
The labels are what a senior engineer concludes, not what the tool says (see each `why`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.eval import FIELDS, evaluate
from mlwiki.wiki import load_wiki
from tests.conftest import assert_labels_well_formed, load_generator

ROOT = Path(__file__).resolve().parent / "incidents9"

# 01 (an autoscaler quota error naming only an instance) is right since results are tied to the
# scale-ups the workload's pods triggered (eventId); 07 and 09 are labelled with the pages added for
# the gaps this set found. 04 stays wrong: queued provisioning never creates a pod, so the stockout
# behind the failed ProvisioningRequest is not tied to the workload, and the tool names the failed
# request (provisioning-request-failed) rather than the capacity it lacked.
KNOWN_MISSES = {"04-dws-queued-expired"}

FLOORS = {"status": 1.0, "root_cause": 13 / 14, "culprit": 1.0, "failures": 13 / 14}


@pytest.fixture(scope="module")
def report():
    wiki = load_wiki(Path(__file__).resolve().parents[1] / "_wiki")
    return evaluate(wiki, ROOT)


def test_fourteen_labelled_incidents(report) -> None:
    assert len(report.outcomes) == 14


def test_accuracy_floors(report) -> None:
    for name in FIELDS:
        assert report.accuracy(name) >= FLOORS[name] - 1e-9, name
    assert report.accuracy() >= 13 / 14 - 1e-9


def test_right_today_stay_exact(report) -> None:
    wrong = sorted(o.name for o in report.outcomes if not o.exact and o.name not in KNOWN_MISSES)
    assert wrong == []


def test_healthy_after_a_long_wait_is_no_failure(report) -> None:
    healthy = {
        o.name: o.got["status"] for o in report.outcomes if o.name.startswith(("13-", "14-"))
    }
    assert healthy == {
        "13-healthy-after-kueue-wait": "no_failure",
        "14-healthy-after-scaleup": "no_failure",
    }


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
