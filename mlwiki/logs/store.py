"""An in-memory, compact store of log entries with Cloud Logging's ordering and cheap pre-filters.

Each entry is kept as its JSON bytes (orjson) plus a small index (timestamp in nanoseconds,
resource type, host, pod, logName, insertId), so 100k entries cost about their JSON size and are
decoded only when a query needs them. Entries are deduplicated on (logName, timestamp, insertId),
the identity Cloud Logging itself uses, so overlapping fetches do not double count.

Entries without an `insertId` get a stable synthetic one: `mlwiki-` + the first 20 hex digits of
the SHA-1 of the entry's JSON with sorted keys. The same entry always gets the same id, so
findings that cite it resolve again when the bundle is re-read.
"""

from __future__ import annotations

import bisect
import hashlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, Optional

import orjson

from mlwiki.logs.entry import entry_host, entry_pod
from mlwiki.logs.query import Filter
from mlwiki.timewindow import timestamp_ns

SYNTHETIC_ID_PREFIX = "mlwiki-"


def synthetic_insert_id(entry: dict[str, Any]) -> str:
    digest = hashlib.sha1(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return SYNTHETIC_ID_PREFIX + digest[:20]


def _interned(value: Any) -> Optional[str]:
    return sys.intern(value) if isinstance(value, str) else None


class EntryStore:
    """Log entries, deduplicated, queried in Cloud Logging's `timestamp asc` order."""

    def __init__(self) -> None:
        self._blobs: list[bytes] = []
        self._times: list[int] = []
        self._ids: list[str] = []
        self._types: list[Optional[str]] = []
        self._hosts: list[Optional[str]] = []
        self._pods: list[Optional[str]] = []
        self._logs: list[Optional[str]] = []
        self._seen: set[tuple[Optional[str], int, str]] = set()
        self._order: Optional[list[int]] = None
        self._sorted_times: list[int] = []

    def __len__(self) -> int:
        return len(self._blobs)

    def add(self, entry: dict[str, Any]) -> bool:
        """Keep `entry` (a LogEntry dict); False when it was already there or has no timestamp."""
        instant = timestamp_ns(entry.get("timestamp"))
        if instant is None:
            return False
        if not isinstance(entry.get("insertId"), str):
            entry["insertId"] = synthetic_insert_id(entry)
        log_name = _interned(entry.get("logName"))
        key = (log_name, instant, entry["insertId"])
        if key in self._seen:
            return False
        self._seen.add(key)
        resource = entry.get("resource")
        resource_type = resource.get("type") if isinstance(resource, dict) else None
        # orjson's result keeps its over-allocated write buffer (4 KiB at least): copy it to size.
        self._blobs.append(bytes(memoryview(orjson.dumps(entry))))
        self._times.append(instant)
        self._ids.append(entry["insertId"])
        self._types.append(_interned(resource_type.lower()) if resource_type else None)
        self._hosts.append(_interned(entry_host(entry)))
        self._pods.append(_interned(entry_pod(entry)))
        self._logs.append(log_name)
        self._order = None
        return True

    def extend(self, entries: Iterable[dict[str, Any]]) -> int:
        """Add many entries; returns how many were new."""
        return sum(1 for entry in entries if self.add(entry))

    def _sorted(self) -> list[int]:
        if self._order is None:
            times, ids = self._times, self._ids
            self._order = sorted(range(len(times)), key=lambda i: (times[i], ids[i]))
            self._sorted_times = [times[i] for i in self._order]
        return self._order

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every entry, ordered by timestamp then insertId."""
        for index in self._sorted():
            yield orjson.loads(self._blobs[index])

    def hosts(self) -> list[str]:
        """The node names the entries are about, sorted."""
        return sorted({host for host in self._hosts if host})

    def pods(self) -> list[str]:
        return sorted({pod for pod in self._pods if pod})

    def query(self, compiled: Filter, limit: Optional[int] = None) -> list[dict[str, Any]]:
        """Entries matching `compiled`, ordered like Cloud Logging's `timestamp asc`."""
        order = self._sorted()
        low = (
            0
            if compiled.start_ns is None
            else bisect.bisect_left(self._sorted_times, compiled.start_ns)
        )
        high = (
            len(order)
            if compiled.end_ns is None
            else bisect.bisect_right(self._sorted_times, compiled.end_ns)
        )
        types = compiled.resource_types
        resource_types = self._types
        matches = compiled.matches
        blobs = self._blobs
        found: list[dict[str, Any]] = []
        for index in order[low:high]:
            if types is not None and resource_types[index] not in types:
                continue
            entry = orjson.loads(blobs[index])
            if matches(entry):
                found.append(entry)
                if limit is not None and len(found) >= limit:
                    break
        return found
