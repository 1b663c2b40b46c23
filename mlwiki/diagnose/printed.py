"""What a culprit printed last: the lines of its pod just before and at its root-cause line.

A root-cause line rarely stands alone: a Python traceback, the step it was on, a warning a
second earlier. For each culprit host whose pod the findings name, the last `LINES` lines that
pod's containers wrote up to `AFTER` seconds past the culprit's first cited line (its root cause,
or the node event that killed it; and no earlier than `BEFORE` seconds before it) are cited as evidence items of their own (`symptom: null`, each
quote an exact prefix of its entry's text) and listed in the culprit's `printed`. They come from
the entries read — the whole bundle, or on the live path the culprit's follow-up context — so the
report quotes them and `mlwiki verify` checks them like any other citation.
"""

from __future__ import annotations

from typing import Any

from mlwiki.diagnose.clock import epoch, iso
from mlwiki.diagnose.match import Scan, insert_id_of
from mlwiki.diagnose.signatures import MAX_QUOTE
from mlwiki.logs.entry import container_message
from mlwiki.logs.query import compile_filter, quote
from mlwiki.logs.store import EntryStore

LINES = 6
BEFORE = 600.0
AFTER = 1.0


def cite_printed(
    findings: dict[str, Any], scan: Scan, store: EntryStore
) -> dict[str, dict[str, Any]]:
    """Add each culprit's last lines to the findings; returns evidence id → entry."""
    evidence = findings["evidence"]
    by_insert_id = {item.get("insertId"): item["id"] for item in evidence}
    by_id = {item["id"]: item for item in evidence}
    cited: dict[str, dict[str, Any]] = {}
    for culprit in findings["culprit_hosts"]:
        pod = culprit.get("pod")
        cited_lines = [
            by_id[eid]
            for eid in culprit["evidence"]
            if eid in by_id and by_id[eid].get("kind") != "metric"
        ]
        if not pod or pod not in scan.topology.pods or not cited_lines:
            continue
        when = min(_time(item) for item in cited_lines)
        lines = _last_lines(store, pod, when)
        ids = []
        for entry in lines:
            insert_id = insert_id_of(entry)
            evidence_id = by_insert_id.get(insert_id)
            if evidence_id is None:
                evidence_id = f"E{len(evidence) + 1}"
                text = container_message(entry) or ""
                evidence.append(
                    {
                        "id": evidence_id,
                        "insertId": insert_id,
                        "timestamp": str(entry.get("timestamp") or ""),
                        "logName": str(entry.get("logName") or ""),
                        "host": culprit["host"],
                        "pod": pod,
                        "symptom": None,
                        "quote": text[:MAX_QUOTE],
                    }
                )
                by_insert_id[insert_id] = evidence_id
                cited[evidence_id] = entry
            ids.append(evidence_id)
        if ids:
            culprit["printed"] = ids
    return cited


def _time(item: dict[str, Any]) -> float:
    return epoch(str(item.get("timestamp") or ""))


def _last_lines(store: EntryStore, pod: str, when: float) -> list[dict[str, Any]]:
    query = (
        f'resource.type="k8s_container" AND resource.labels.pod_name={quote(pod)} AND '
        f'timestamp>="{iso(when - BEFORE)}" AND timestamp<="{iso(when + AFTER)}"'
    )
    found = [e for e in store.query(compile_filter(query, "culprit lines")) if container_message(e)]
    return found[-LINES:]
