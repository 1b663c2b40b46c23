"""Cloud Logging's `entries.list` answered from local entries: the same filters, order and pages.

`LocalLogging(entries)` keeps each entry as compact JSON bytes in Cloud Logging's order
(timestamp, then insertId; `timestamp desc` is the exact reverse) and answers
`page(filter, order, offset, page_size)` with the entries the query language
(`mlwiki.logs.query`) selects. It serves two callers that must agree entry for entry:

- the offline evaluation of the live collection plan (`mlwiki.logs.live`), so a bundle read
  "as the live plan would" gets exactly the pages Cloud Logging would have returned;
- the local Logging API server of the tests and benchmarks (`tests/fakes/logging_server.py`).

Cost: a query scans only the entries inside its time bounds and of its resource types (and, for a
`sample(insertId, F)`, only the sampled ones: the hash needs no decoding), decodes each
candidate once, and stops as soon as the requested page is full (one more match says whether
there is a next page); the scan position is kept per query, so paging through N pages costs one
scan, not N. `resource_names` restricts a query to the projects it names, as the API does.
Entries are deduplicated on (logName, timestamp, insertId) like the store, and an
entry without insertId gets the store's stable synthetic id.
"""

from __future__ import annotations

import bisect
import sys
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Optional

import orjson

from mlwiki.logs.query import Filter, compile_filter, sample_fraction
from mlwiki.logs.store import synthetic_insert_id
from mlwiki.timewindow import timestamp_ns

ASCENDING = "timestamp asc"
DESCENDING = "timestamp desc"
MAX_CURSORS = 64  # queries whose scan position is kept (paging resumes without rescanning)


@dataclass
class _Cursor:
    """How far one query's scan has gone: the positions matched so far and the next to test."""

    matched: list[int] = field(default_factory=list)
    next_position: int = 0
    done: bool = False


class LocalLogging:
    """Local entries, listed like Cloud Logging lists them."""

    def __init__(self, entries: Iterable[dict[str, Any]] = ()) -> None:
        rows: dict[tuple[Any, int, str], tuple[int, str, bytes, Optional[str], str]] = {}
        for entry in entries:
            instant = timestamp_ns(entry.get("timestamp"))
            if instant is None:
                continue
            insert_id = entry.get("insertId")
            if not isinstance(insert_id, str) or not insert_id:
                entry = {**entry, "insertId": synthetic_insert_id(entry)}
                insert_id = entry["insertId"]
            key = (entry.get("logName"), instant, insert_id)
            if key in rows:
                continue
            resource = entry.get("resource")
            kind = resource.get("type") if isinstance(resource, dict) else None
            log_name = entry.get("logName")
            project = (
                sys.intern(log_name.split("/logs/", 1)[0]) if isinstance(log_name, str) else ""
            )
            kind = sys.intern(kind.lower()) if isinstance(kind, str) and kind else None
            rows[key] = (instant, insert_id, orjson.dumps(entry), kind, project)
        ordered = sorted(rows.values(), key=lambda row: (row[0], row[1]))
        self._times = [row[0] for row in ordered]
        self._blobs = [row[2] for row in ordered]
        self._types = [row[3] for row in ordered]
        self._projects = [row[4] for row in ordered]
        self._ids = [row[1] for row in ordered]
        self._cursors: OrderedDict[tuple[str, str, Optional[frozenset[str]]], _Cursor] = (
            OrderedDict()
        )

    def __len__(self) -> int:
        return len(self._blobs)

    def page(
        self,
        filter_text: str,
        order: str,
        offset: int,
        page_size: int,
        resource_names: Optional[Iterable[str]] = None,
    ) -> tuple[list[dict[str, Any]], bool]:
        """Entries `offset … offset+page_size-1` of the query's result, and whether more follow.

        `resource_names` (`projects/P`) keeps only the entries whose logName is in one of them.
        """
        compiled = compile_filter(filter_text)
        projects = frozenset(resource_names) if resource_names is not None else None
        cursor = self._cursor(filter_text, order, projects)
        self._advance(cursor, compiled, order, offset + page_size + 1, projects)
        chosen = cursor.matched[offset : offset + page_size]
        more = len(cursor.matched) > offset + page_size
        return [orjson.loads(self._blobs[i]) for i in chosen], more

    def _cursor(self, filter_text: str, order: str, projects: Optional[frozenset[str]]) -> _Cursor:
        key = (filter_text, order, projects)
        cursor = self._cursors.get(key)
        if cursor is None:
            cursor = self._cursors[key] = _Cursor()
            if len(self._cursors) > MAX_CURSORS:
                self._cursors.popitem(last=False)
        else:
            self._cursors.move_to_end(key)
        return cursor

    def _bounds(self, compiled: Filter) -> tuple[int, int]:
        low = 0 if compiled.start_ns is None else bisect.bisect_left(self._times, compiled.start_ns)
        high = (
            len(self._times)
            if compiled.end_ns is None
            else bisect.bisect_right(self._times, compiled.end_ns)
        )
        return low, high

    def _advance(
        self,
        cursor: _Cursor,
        compiled: Filter,
        order: str,
        wanted: int,
        projects: Optional[frozenset[str]],
    ) -> None:
        if cursor.done or len(cursor.matched) >= wanted:
            return
        low, high = self._bounds(compiled)
        positions = range(low, high) if order == ASCENDING else range(high - 1, low - 1, -1)
        types, blobs, matches = compiled.resource_types, self._blobs, compiled.matches
        resource_types, entry_projects = self._types, self._projects
        fraction, ids = compiled.insert_id_sample, self._ids
        for step in range(cursor.next_position, len(positions)):
            position = positions[step]
            if types is not None and resource_types[position] not in types:
                continue
            if projects is not None and entry_projects[position] not in projects:
                continue
            if fraction is not None and sample_fraction(ids[position]) >= fraction:
                continue  # left out by the sample: no need to decode it
            if matches(orjson.loads(blobs[position])):
                cursor.matched.append(position)
                if len(cursor.matched) >= wanted:
                    cursor.next_position = step + 1
                    return
        cursor.next_position = len(positions)
        cursor.done = True
