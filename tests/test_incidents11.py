"""Round-11 held-out incidents: the diagnosis must not regress on them.

The labels in `tests/incidents11/*/expected.json` are what a senior TPU engineer concludes; the
scenarios the tool gets right today are pinned exactly, the others only by the overall floor.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mlwiki.eval import evaluate
from mlwiki.wiki import load_wiki

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents11"
WIKI = HERE.parent / "_wiki"

# Exact today (all four fields): keep them exact. The one other, 12-mldiag-webhook-warning, is a
# label convention the red teams split on: this label (and incidents5's) calls a set-up fault in a
# run that trained on "diagnosed"; incidents2-4 call it no_failure, which the tool follows, listing
# the fault under findings["observations"] with its next steps.
EXACT_TODAY = {
    "01-ambiguous-two-roots",
    "02-root-mid-traceback",
    "03-culprit-earlier-warning",
    "04-runtime-oom-multislice",
    "05-one-host-bad-shard",
    "06-bad-hardware-three-restarts",
    "07-bad-checkpoint-loop",
    "08-healthy-noisy",
    "09-healthy-window-mid-run",
    "10-pathways-worker-preempted",
    "11-kueue-preempted",
}
FLOORS = {
    "exact": 11 / 12,
    "status": 11 / 12,
    "root_cause": 11 / 12,
    "culprit": 12 / 12,
    "failures": 12 / 12,
}


@pytest.fixture(scope="module")
def report():
    return evaluate(load_wiki(WIKI), INCIDENTS)


def test_every_incident_is_labelled(report):
    assert len(report.outcomes) == 12
    for outcome in report.outcomes:
        assert outcome.expected["why"], outcome.name
        assert outcome.expected["status"] in {"diagnosed", "inconclusive", "no_failure"}


@pytest.mark.parametrize("name", sorted(EXACT_TODAY))
def test_exact_today(report, name):
    outcome = next(o for o in report.outcomes if o.name == name)
    assert outcome.exact, f"{name}: expected {outcome.expected}, got {outcome.got}"


def test_accuracy_floors(report):
    for field, floor in FLOORS.items():
        got = report.accuracy(None if field == "exact" else field)
        assert got >= floor - 1e-9, f"{field}: {got:.3f} < {floor:.3f}"


def test_generator_is_deterministic(tmp_path):
    """The committed bundles are exactly what make_incidents.py writes."""
    script = (INCIDENTS / "make_incidents.py").read_text(encoding="utf-8")
    copy = tmp_path / "make_incidents.py"
    copy.write_text(script, encoding="utf-8")
    subprocess.run([sys.executable, str(copy)], check=True, timeout=120)
    for folder in sorted(
        p for p in INCIDENTS.iterdir() if p.is_dir() and (p / "expected.json").exists()
    ):
        for name in ("logs.json", "expected.json"):
            fresh = json.loads((tmp_path / folder.name / name).read_text(encoding="utf-8"))
            assert fresh == json.loads((folder / name).read_text(encoding="utf-8")), (
                f"{folder.name}/{name}"
            )
