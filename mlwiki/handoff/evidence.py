"""The log entries a findings file cites, found among fetched entries by insertId and timestamp."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from mlwiki.timewindow import timestamp_ns


def entry_key(insert_id: Any, timestamp: Any) -> Optional[tuple[str, int]]:
    """(insertId, instant in ns): Cloud Logging, gcloud and findings may spell one instant as
    `…00.500Z`, `…00.5Z` or `…00.500+00:00`, and these keys make them equal."""
    instant = timestamp_ns(timestamp)
    if not isinstance(insert_id, str) or instant is None:
        return None
    return insert_id, instant


def cited_keys(findings: dict[str, Any]) -> dict[str, tuple[str, int]]:
    """Evidence id → (insertId, instant) for each evidence item of the findings."""
    keys: dict[str, tuple[str, int]] = {}
    for item in findings.get("evidence") or []:
        key = entry_key(item.get("insertId"), item.get("timestamp"))
        if key and isinstance(item.get("id"), str):
            keys[item["id"]] = key
    return keys


def find_cited_entries(
    findings: dict[str, Any], entries: Iterable[dict[str, Any]]
) -> dict[tuple[str, int], dict[str, Any]]:
    """The cited entries among `entries` (one pass; stops early once all are found)."""
    wanted = set(cited_keys(findings).values())
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for entry in entries:
        key = entry_key(entry.get("insertId"), entry.get("timestamp"))
        if key in wanted and key not in found:
            found[key] = entry
            if len(found) == len(wanted):
                break
    return found
