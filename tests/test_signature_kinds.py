"""An entry's kind (audit methodName, event reason) yields to its own message (signatures.py)."""

from __future__ import annotations

from typing import Any

from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.wiki import load_wiki
from tests.conftest import WIKI_ROOT

SIGNATURES = SignatureSet(load_wiki(WIKI_ROOT).symptoms.values())


def _audit(method: str, message: str) -> dict[str, Any]:
    return {
        "insertId": "a1",
        "timestamp": "2025-01-01T00:00:00Z",
        "logName": "projects/p/logs/cloudaudit.googleapis.com%2Fsystem_event",
        "resource": {"type": "gce_instance", "labels": {"instance_id": "1"}},
        "protoPayload": {"methodName": method, "status": {"message": message}},
    }


def _pages(entry: dict[str, Any]) -> set[str]:
    return {match.signature.symptom for match in SIGNATURES.scan(entry)}


def test_a_maintenance_message_outweighs_a_preemption_method_name() -> None:
    entry = _audit(
        "compute.instances.preempted", "Instance terminated during Compute Engine maintenance."
    )
    assert _pages(entry) == {"host-maintenance"}


def test_the_method_name_stands_when_the_message_agrees_or_says_nothing() -> None:
    assert _pages(_audit("compute.instances.preempted", "Instance was preempted.")) == {
        "spot-preemption"
    }
    assert _pages(_audit("compute.instances.preempted", "")) == {"spot-preemption"}
    maintenance = _audit("compute.instances.terminateOnHostMaintenance", "")
    assert _pages(maintenance) == {"host-maintenance"}
