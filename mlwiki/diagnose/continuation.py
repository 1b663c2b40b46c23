"""Split records: GKE's logging agent turns every line a container writes into its own entry.

A traceback or a coordination-service error written at once becomes several entries of the same
container stream, microseconds apart, so the line that names the failed task
(`/job:jax_worker/replica:0/task:6`) is an entry of its own and a signature whose named group
follows its headline matches the headline alone, naming nobody. After the pass each such hit (a
signature with a named group matched, the group left empty) is matched again over its *record*:
the lines of the same container stream around it, each within `JOIN` seconds of the next, joined
in time order. The names found there are lent to the hit; its quote stays its own line (the
entry it cites).

A catch-all page's record (a Python traceback: header, frames, raised line) is matched once, on
its raised line (see `match.specific_in_records`); that hit is given the insertIds of the whole
record, which its evidence cites, so the frames above the message travel with it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from mlwiki.diagnose.clock import epoch
from mlwiki.diagnose.match import Hit, Scan
from mlwiki.logs.entry import entry_pod, entry_text
from mlwiki.logs.query import compile_filter, quote
from mlwiki.logs.store import EntryStore

JOIN = 0.002  # seconds between two lines of one write (the agent stamps each line as it reads it)
REACH = 1.0  # seconds around the hit searched for its record (bounds the lookup)


def gather_records(scan: Scan, store: EntryStore) -> None:
    """Give each catch-all container hit (a traceback's raised line) the entries of its record.

    The record is found as in `lend_names`; the streams are read in time clusters (hits whose
    `REACH` windows overlap share one store query), so every entry is read at most once.
    """
    wanted = sorted(
        (h for h in scan.hits if h.symptom in scan.signatures.generic and h.pod),
        key=lambda h: h.time,
    )
    clusters: list[list[Hit]] = []
    for hit in wanted:
        if clusters and hit.time - clusters[-1][-1].time <= 2 * REACH:
            clusters[-1].append(hit)
        else:
            clusters.append([hit])
    for cluster in clusters:
        query = " AND ".join(
            (
                'resource.type="k8s_container"',
                f'timestamp>="{_stamp(cluster[0].time - REACH)}"',
                f'timestamp<="{_stamp(cluster[-1].time + REACH)}"',
            )
        )
        streams: dict[tuple[str, str], list[dict[str, Any]]] = {}
        keys = {(h.pod, h.log_name) for h in cluster}
        for entry in store.query(compile_filter(query, "record lookup")):
            key = (entry_pod(entry) or "", str(entry.get("logName") or ""))
            if key in keys:
                streams.setdefault(key, []).append(entry)
        for hit in cluster:
            ids = _record_ids(streams.get((hit.pod or "", hit.log_name), []), hit)
            if len(ids) > 1:
                hit.record = ids


def _record_ids(entries: list[dict[str, Any]], hit: Hit) -> list[str]:
    first, last = _bounds(entries, hit)
    return [str(e.get("insertId")) for e in entries[first : last + 1]] if last >= first else []


def lend_names(scan: Scan, store: EntryStore) -> None:
    """Give each container hit whose named group was left empty the names of its record."""
    for hit in scan.hits:
        if not hit.incomplete or hit.captures or not hit.pod or hit.field != "textPayload":
            continue
        record = _record(_stream(store, hit), hit)
        if len(record) > 1:
            hit.captures = scan.signatures.names(hit.symptom, "\n".join(record))


def _stream(store: EntryStore, hit: Hit) -> list[dict[str, Any]]:
    """The entries of the hit's container stream (same pod, same log) within `REACH` seconds."""
    query = " AND ".join(
        (
            'resource.type="k8s_container"',
            f"resource.labels.pod_name={quote(hit.pod)}",
            f"logName={quote(hit.log_name)}",
            f'timestamp>="{_stamp(hit.time - REACH)}"',
            f'timestamp<="{_stamp(hit.time + REACH)}"',
        )
    )
    return store.query(compile_filter(query, "record lookup"))


def _record(entries: list[dict[str, Any]], hit: Hit) -> list[str]:
    """The texts of the run of entries holding the hit, each within `JOIN` of the next."""
    first, last = _bounds(entries, hit)
    return [entry_text(e) for e in entries[first : last + 1]]


def _bounds(entries: list[dict[str, Any]], hit: Hit) -> tuple[int, int]:
    """First and last index of the run of time-ordered `entries` holding the hit's entry, each
    within `JOIN` of the next; (0, -1) when the hit's entry is not among them."""
    stamps = [epoch(str(e.get("timestamp"))) for e in entries]
    position = next((i for i, e in enumerate(entries) if e.get("insertId") == hit.insert_id), None)
    if position is None:
        return 0, -1
    first = last = position
    while first > 0 and stamps[first] - stamps[first - 1] <= JOIN:
        first -= 1
    while last + 1 < len(entries) and stamps[last + 1] - stamps[last] <= JOIN:
        last += 1
    return first, last


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
