"""The log entries a findings file cites, found among fetched entries by insertId and timestamp."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

import re2

_TIMESTAMP = re2.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})$"
)


def normalize_timestamp(value: str) -> str:
    """One spelling per instant: UTC, `Z`, fraction without trailing zeros (nanoseconds kept).

    Cloud Logging, gcloud and the findings may write the same instant as `…00.500Z`,
    `…00.5Z` or `…00.500+00:00`; comparing normalized strings makes them equal.
    """
    match = _TIMESTAMP.match(value)
    if not match:
        return value
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
    if offset != "Z":
        sign = 1 if offset[0] == "+" else -1
        delta = timedelta(hours=int(offset[1:3]), minutes=int(offset[4:6]))
        moment = (moment.replace(tzinfo=timezone(sign * delta))).astimezone(timezone.utc)
    fraction = (fraction or "").rstrip("0")
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "") + "Z"


def entry_key(insert_id: Any, timestamp: Any) -> Optional[tuple[str, str]]:
    if not isinstance(insert_id, str) or not isinstance(timestamp, str):
        return None
    return insert_id, normalize_timestamp(timestamp)


def cited_keys(findings: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Evidence id → (insertId, normalized timestamp) for each evidence item of the findings."""
    keys: dict[str, tuple[str, str]] = {}
    for item in findings.get("evidence") or []:
        key = entry_key(item.get("insertId"), item.get("timestamp"))
        if key and isinstance(item.get("id"), str):
            keys[item["id"]] = key
    return keys


def find_cited_entries(
    findings: dict[str, Any], entries: Iterable[dict[str, Any]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The cited entries among `entries` (one pass; stops early once all are found)."""
    wanted = set(cited_keys(findings).values())
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in entries:
        key = entry_key(entry.get("insertId"), entry.get("timestamp"))
        if key in wanted and key not in found:
            found[key] = entry
            if len(found) == len(wanted):
                break
    return found
