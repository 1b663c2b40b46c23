"""Round-6 held-out incidents (tests/incidents6): precision traps — healthy runs full of
alarming-looking lines that must not be reported as failures — and near-misses where the same
kind of line does break the run.

Floors keep today's accuracy from regressing; the scenarios right today must stay exact.
The labels are what a senior engineer concludes, not what the tool says (see each `why`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.eval import evaluate
from mlwiki.wiki import load_wiki
from tests.conftest import assert_labels_well_formed, load_generator

ROOT = Path(__file__).resolve().parent / "incidents6"

# The round-6 report found four method misses (t12, t13: a Kueue Pending event about the Workload
# object was always a break although the workload was admitted and trained; t16: a 28 s NodeNotReady
# blip while the pod on that node kept stepping; t17: a kube-system pod's eviction on the workload's
# node). The method now gets all 23 right.
KNOWN_MISSES: set[str] = set()


@pytest.fixture(scope="module")
def report():
    wiki = load_wiki(Path(__file__).resolve().parents[1] / "_wiki")
    return evaluate(wiki, ROOT)


def test_twenty_three_labelled_incidents(report) -> None:
    assert len(report.outcomes) == 23
    traps = [o for o in report.outcomes if o.name.startswith("t")]
    assert len(traps) == 17 and all(o.expected["status"] == "no_failure" for o in traps)


def test_accuracy_floors(report) -> None:
    for name in (None, "status", "failures", "root_cause", "culprit"):
        assert (report.accuracy(name) if name else report.accuracy()) == 1.0, name


def test_right_today_stay_exact(report) -> None:
    wrong = sorted(o.name for o in report.outcomes if not o.exact and o.name not in KNOWN_MISSES)
    assert wrong == []


def test_near_misses_are_diagnosed_on_the_named_host(report) -> None:
    for outcome in report.outcomes:
        if outcome.name.startswith("n"):
            assert outcome.got["status"] == "diagnosed", outcome.name
            assert outcome.got["root_cause"] == outcome.expected["root_cause"], outcome.name


def test_labels_are_well_formed() -> None:
    assert_labels_well_formed(ROOT, headline_hosts_in_rows=False)


def test_generator_reproduces_the_stored_bundles(tmp_path: Path, monkeypatch) -> None:
    module = load_generator(ROOT, monkeypatch)
    names = module.generate(tmp_path)
    assert sorted(names) == sorted(p.parent.name for p in ROOT.glob("*/expected.json"))
    for name in names:
        for made in sorted((tmp_path / name).iterdir()):
            assert made.read_bytes() == (ROOT / name / made.name).read_bytes(), made
