"""Split records: GKE's logging agent turns every line a container writes into its own entry.

A traceback or a coordination-service error written at once becomes several entries of the same
container stream, microseconds apart, so the line that names the failed task
(`/job:jax_worker/replica:0/task:6`) is an entry of its own and a signature whose named group
follows its headline matches the headline alone, naming nobody. After the pass each such hit (a
signature with a named group matched, the group left empty) is matched again over its *record*:
the lines of the same container stream around it, each within `JOIN` seconds of the next, joined
in time order. The names found there are lent to the hit; its quote stays its own line (the
entry it cites).

Every page's record is matched once (`gather_records`). A *written record* is a run of entries
of one container stream, each within `JOIN` seconds of the one before, that no line with a header
of its own interrupts: a glog/absl prefix (`E1201 12:00:00.123456 …]`), a timestamped prefix, a
`Traceback (most recent call last):`. Lines without one — a traceback's frames and raised line,
the lines of a JSON error body printed across lines, glog continuation lines, the `*** Check
failure stack trace ***` block under an `F… Check failed:` line — belong to the record above
them. For every record holding a hit, its joined text is matched once more, so a page whose
wording spans lines (a JSON body's code and message) is found; then each page has one hit per
record, on its *decisive* line: a catch-all page's last matching line (a traceback's raised
line), a specific page's first (the `Check failed:` line, a body's message), the line completing
the match when only the joined text matches. Catch-all hits yield to a specific page in the
same record (as in `match.specific_in_records`). The hit cites its entry, lists the insertIds
of the whole record (`record`) and carries an `excerpt`: the record's lines around the decisive
line (for a traceback the last frame above the raised line), which the report quotes. Records
are read in time clusters, bounded by `REACH` and `MAX_RECORD_LINES`. A record none of whose
lines matched anything is not read again (the pass keeps only matched entries): a wording that
only a whole record holds is found when one of its lines names the failure on its own.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from mlwiki.diagnose.clock import epoch
from mlwiki.diagnose.match import CASCADE, ROOT, Hit, Scan, collector_paused, hit_order
from mlwiki.diagnose.signatures import MAX_QUOTE
from mlwiki.logs.entry import entry_text
from mlwiki.logs.query import compile_filter, quote
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import NS_PER_SECOND, timestamp_ns

JOIN = 0.002  # seconds between two lines of one write (the agent stamps each line as it reads it)
REACH = 1.0  # seconds around the hit searched for its record (bounds the lookup)
MAX_RECORD_LINES = 400  # a longer run of lines is cut into records of this size
EXCERPT_BEFORE, EXCERPT_AFTER = 2, 2  # record lines quoted around the decisive line
CONTAINER_TEXT = frozenset({"textPayload", "jsonPayload.message"})
# A line that starts a record of its own: a glog/absl prefix (severity letter, MMDD, time), a
# timestamped prefix (TensorFlow, Python logging), a Python traceback's header.
HEADER = re.compile(
    r"^(?:[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+|\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)"
    r"|Traceback \(most recent call last\):"
)


def gather_records(scan: Scan, store: EntryStore) -> None:
    """Match every container hit's record once (see the module docstring).

    The streams are read in time clusters (hits whose `REACH` windows overlap share one read
    of the store, which decodes only the entries of the hits' streams), so every entry is read
    at most once.
    """
    wanted = sorted(
        (h for h in scan.hits if h.pod and h.field in CONTAINER_TEXT), key=lambda h: h.time
    )
    clusters: list[list[Hit]] = []
    for hit in wanted:
        if clusters and hit.time - clusters[-1][-1].time <= 2 * REACH:
            clusters[-1].append(hit)
        else:
            clusters.append([hit])
    with collector_paused():  # the records' entries are acyclic: see match.collector_paused
        _gather(scan, store, clusters)


def _gather(scan: Scan, store: EntryStore, clusters: list[list[Hit]]) -> None:
    dropped: set[int] = set()
    added: list[Hit] = []
    for cluster in clusters:
        by_stream: dict[tuple[str, str], dict[str, list[Hit]]] = {}
        for hit in cluster:
            stream = by_stream.setdefault((hit.pod or "", hit.log_name), {})
            stream.setdefault(hit.insert_id, []).append(hit)
        streams = store.streams(
            "k8s_container",
            set(by_stream),
            _instant(cluster[0].time - REACH),
            _instant(cluster[-1].time + REACH),
        )
        for key, hits in by_stream.items():  # one stream's entries decoded at a time
            lines = [(instant, store.entry(index)) for instant, index in streams.get(key, ())]
            for record in _split(lines):
                inside = [h for e, _ in record for h in hits.get(str(e.get("insertId")), ())]
                if inside and len(record) > 1:
                    kept, extra = _match_record(scan, record, inside)
                    standing = {id(h) for h in kept}
                    dropped.update(id(h) for h in inside if id(h) not in standing)
                    added.extend(extra)
    if dropped or added:
        scan.hits = sorted([h for h in scan.hits if id(h) not in dropped] + added, key=hit_order)


def _instant(seconds: float) -> int:
    """The instant a `timestamp>="…"` bound written with `_stamp(seconds)` compares with."""
    return timestamp_ns(_stamp(seconds))  # type: ignore[return-value]


def _split(entries: list[tuple[int, dict[str, Any]]]) -> list[list[tuple[dict[str, Any], str]]]:
    """The written records of one stream's time-ordered (instant, entry) pairs, each line with
    its text."""
    records: list[list[tuple[dict[str, Any], str]]] = []
    previous = float("-inf")
    for instant, entry in entries:
        when = instant / NS_PER_SECOND
        text = entry_text(entry)
        if (
            records
            and when - previous <= JOIN
            and len(records[-1]) < MAX_RECORD_LINES
            and not HEADER.search(text)
        ):
            records[-1].append((entry, text))
        else:
            records.append([(entry, text)])
        previous = when
    return records


def _match_record(
    scan: Scan, record: list[tuple[dict[str, Any], str]], inside: list[Hit]
) -> tuple[list[Hit], list[Hit]]:
    """The record's hits that stand (one per page, on its decisive line) and the new hits of the
    pages only its joined text matches."""
    lines = [text for _, text in record]
    ids = [str(e.get("insertId")) for e, _ in record]
    position = {insert_id: i for i, insert_id in enumerate(ids)}
    generic = scan.signatures.generic
    # One hit per page and per thing it names: a digest's lines naming different hosts stay
    # apart, a traceback's header and raised line (naming nothing) are one.
    by_page: dict[tuple[str, tuple[tuple[str, str], ...]], list[Hit]] = {}
    for hit in sorted(inside, key=lambda h: (position[h.insert_id], h.symptom)):
        by_page.setdefault((hit.symptom, tuple(sorted(hit.captures.items()))), []).append(hit)
    kept = [hits[-1] if page in generic else hits[0] for (page, _), hits in by_page.items()]
    matched = {page for page, _ in by_page}
    cascade = any(h.role == CASCADE for h in inside)  # as for one entry (see `match.Scan`)
    extra: list[Hit] = []
    joined = "\n".join(lines)
    for raw in scan.signatures.scan_text(joined, frozenset(matched)):
        if raw.signature.symptom in matched:
            continue
        end = joined.find(raw.quote) + len(raw.quote)
        line = joined.count("\n", 0, end) if end >= len(raw.quote) else len(lines) - 1
        entry = record[line][0]
        scan.entries.append(entry)
        extra.append(
            replace(
                inside[0],
                index=len(scan.entries) - 1,
                symptom=raw.signature.symptom,
                role=raw.signature.role,
                layer=raw.signature.layer,
                time=epoch(str(entry.get("timestamp"))),
                timestamp=str(entry.get("timestamp")),
                insert_id=ids[line],
                quote=raw.quote.rsplit("\n", 1)[-1],
                field="textPayload",
                captures=raw.captures,
                severity=str(entry.get("severity") or "DEFAULT"),
                reason=None,
                shadowed=cascade and raw.signature.role == ROOT,
                incomplete=raw.incomplete,
            )
        )
    standing = kept + extra
    if any(h.symptom not in generic for h in standing):
        standing = [h for h in standing if h.symptom not in generic]
    for hit in standing:
        at = position[hit.insert_id]
        hit.record = ids
        around = range(max(0, at - EXCERPT_BEFORE), min(len(lines), at + EXCERPT_AFTER + 1))
        hit.excerpt = "\n".join(hit.quote if i == at else lines[i][:MAX_QUOTE] for i in around)
    chosen = {id(h) for h in standing}
    return [h for h in kept if id(h) in chosen], [h for h in extra if id(h) in chosen]


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
