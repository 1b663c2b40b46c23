"""Round-14 incidents (tests/incidents14): failure modes that had no page before issue #12's fifth round.

Five incidents written for this project as Cloud Logging bundles: a JobSet preempted by the
kube-scheduler for a higher-priority pod, a Job that cannot verify its tracking server's
certificate, a Cloud Storage FUSE volume that cannot mount without its sidecar, a
LeaderWorkerSet group recreated after its worker pod's OOM kill, a KubeRay actor that dies after
Ray's memory monitor kills its worker. The labels were written with the set. Main before the new
pages (437680d) got 1 of 5 exact (the LWS one, by its kernel OOM line alone); with the pages 5 of 5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlwiki.diagnose.pipeline import diagnose
from mlwiki.wiki import load_wiki
from tests.conftest import WIKI_ROOT, eval_report, generated_and_committed

HERE = Path(__file__).resolve().parent
INCIDENTS = HERE / "incidents14"
FLOORS = {"exact": 1.0, "status": 1.0, "root_cause": 1.0, "culprit": 1.0, "failures": 1.0}


@pytest.fixture(scope="module")
def report() -> dict:
    return eval_report(INCIDENTS)


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_accuracy_floor(report: dict, field: str) -> None:
    assert report["scenarios"] == 5
    assert report["accuracy"][field] >= FLOORS[field]


def test_every_new_page_is_the_answer_or_the_evidence_of_one_incident(report: dict) -> None:
    """Each new id is named by the diagnosis of the incident written for it: as its root cause,
    or (a symptom or consequence) in the evidence that led to the root."""
    named = {o["got"]["root_cause"] for o in report["results"]}
    assert {"pod-preempted-by-priority", "tls-certificate-error", "gcsfuse-mount-failure"} <= named
    wiki = load_wiki(WIKI_ROOT)
    for scenario in ("04-lws-group-oom", "05-ray-actor-oom"):
        bundle = INCIDENTS / scenario / "logs.json"
        expected = json.loads((INCIDENTS / scenario / "expected.json").read_text())
        findings = diagnose(expected["workload"], bundle=bundle, wiki=wiki, verify=False).findings
        page = "leaderworkerset-restarts" if "lws" in scenario else "ray-worker-died"
        assert page in {e["symptom"] for e in findings["evidence"]}, scenario


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """Re-running the generator reproduces the committed scenario files byte for byte."""
    made, committed = generated_and_committed(INCIDENTS, tmp_path)
    assert made and made == committed
