"""Split records: GKE's logging agent turns every line a container writes into its own entry.

A traceback or a coordination-service error written at once becomes several entries of the same
container stream, microseconds apart, so the line that names the failed task
(`/job:jax_worker/replica:0/task:6`) is an entry of its own and a signature whose named group
follows its headline matches the headline alone, naming nobody. After the pass each such hit (a
signature with a named group matched, the group left empty) is matched again over its *record*:
the lines of the same container stream around it, each within `JOIN` seconds of the next, joined
in time order. The names found there are lent to the hit; its quote stays its own line (the
entry it cites).

Every written record is matched once (`gather_records`). A *written record* is a run of
entries of one container stream, each within `JOIN` seconds of the one before, that no line with
a header of its own interrupts: a glog/absl prefix (`E1201 12:00:00.123456 …]`), a timestamped
prefix, a `Traceback (most recent call last):`. Lines without one — a traceback's frames and
raised line, the lines of a JSON error body printed across lines, glog continuation lines, the
`*** Check failure stack trace ***` block under an `F… Check failed:` line, the pieces of a
message a tool wrapped — belong to the record above them.

A stamp on every line is no header by itself. A container runtime's CRI prefix
(`2024-05-01T12:00:00.123456789Z stderr F `), `kubectl logs --timestamps`, a TPU VM launcher's
time, worker address and rank, a tool's own timestamp on every line (`STAMP`) would otherwise
cut a traceback into one-line records. When the line before carries a stamp too, the stream
stamps every line: what follows the stamp decides (a glog prefix or a logger's timestamp after
it starts a record, a frame does not). A stamped line after an unstamped one is a logger's
header (a Python logging record after the traceback above it), unless the stamps around the
unstamped lines are a tool's: a stamp is a *tool's* when what follows it is no header of a logger
(no glog prefix, no timestamp, no severity: `SEVERITY`). A tool that stamps every line with a long
prefix (`2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [UUID] `) and is wrapped at 80
columns has its prefix cut from its message: the unstamped lines are the pieces of the stamped
line above them, so a line carrying a tool's stamp after them, when the last stamped line before
them carried one too, continues the record. A logger writing its records with a severity
(`… ERROR trainer: step failed` and the traceback under it, then `… INFO trainer: …`) still
starts one at each; a logger whose format holds no severity (`%(asctime)s %(message)s`) reads as
a tool, its records joined when lines without a stamp come between them.

Each record of two or more lines is matched as one text: its lines joined by line breaks, and
in its flowed view (`mlwiki.diagnose.flowed`: a wrapped message read as the line it was), so a
page whose wording spans lines (a JSON body's code and message, a message wrapped at 80
columns) is found even when no line names it on its own. A page is added from the joined text
only by a match across lines: what one line holds on its own was the pass's to find (and, for a
catch-all page near a specific one, to drop). Then each page has one hit per record, on its
*decisive* line: a catch-all page's last matching line (a traceback's raised line), a specific
page's first (the `Check failed:` line, a body's message), the line completing the match when
only the joined text matches. Catch-all hits yield to a specific page in the same record that
explains them (a root or cascade; a symptom only on the exception's own line: as in
`match.specific_in_records`, see `mlwiki.diagnose.signatures`). The hit cites its entry, lists the insertIds of the whole record
(`record`) and carries an `excerpt`: the record's lines around the decisive line (for a
traceback the last frame above the raised line), which the report quotes.

The records are found in one sweep of the store's container streams (`EntryStore.runs`: runs of
lines within `JOIN`, found from the index without decoding); their lines' texts are the pass's
own (`Scan.lines`: a line within `JOIN` of the one read before it on its stream, as a record's
lines arrive in a bundle in either time order; `Scan.entries` for a matched line), so only a
line the pass did not keep is decoded again; when every stream's lines came in one time order,
the lines kept are all the records' lines and the sweep reads only them (`Scan.runs_kept`).
The set matches (`SignatureSet.pages`) come first so that spans and groups are read only for a
record where a new page appears, and a record's insertIds only for one that has hits. Per line
the sweep does a constant amount of work (a line whose first character starts neither a stamp nor
a header is read by neither regex), per record two or three set matches (as written, flowed, and
a matched line's own when the record holds a page none of its hits name). The work is linear in
the entries; records are bounded by `MAX_RECORD_LINES`. `mlwiki match` reports the same records (`read_records`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from itertools import accumulate
from typing import Any, Optional

from mlwiki.diagnose.flowed import flowed_text
from mlwiki.diagnose.match import (
    CASCADE,
    JOIN_NS,
    Hit,
    Scan,
    collector_paused,
    hit_of,
    hit_order,
)
from mlwiki.diagnose.signatures import MAX_QUOTE, RawMatch
from mlwiki.diagnose.unwrapped import unwrapped
from mlwiki.logs.entry import entry_text, facts_of, record_line
from mlwiki.logs.query import compile_filter, quote
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import NS_PER_SECOND, timestamp_ns

JOIN = JOIN_NS / NS_PER_SECOND  # seconds between two lines of one write (`match.JOIN_NS`)
REACH = 1.0  # seconds around a hit searched for its record's names (and fetched when live)
MAX_RECORD_LINES = 400  # a longer run of lines is cut into records of this size
EXCERPT_BEFORE, EXCERPT_AFTER = 2, 2  # record lines quoted around the decisive line
CONTAINER_TEXT = frozenset({"textPayload", "jsonPayload.message"})
# A line that starts a record of its own: it starts with a glog/absl prefix (severity letter,
# MMDD, time) or a timestamped prefix (TensorFlow, Python logging), or holds a Python
# traceback's header (behind a `[rank0]: ` tag, say).
HEADER = re.compile(r"(?:[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+|\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")
TRACEBACK = "Traceback (most recent call last):"
# A logger's severity after a stamp: a level word (Python logging's `ERROR`, `[INFO]`, after its
# name `- trainer - WARNING -`, loguru's `| INFO |`, Go's `\tinfo\t`) or one letter (TensorFlow's
# `E tensorflow/…`, Rook's `D | exec:`, Ray's `C 149 149]`). Read as a header when unsure: a
# header keeps the lines apart, as a stamp after unstamped lines always did.
SEVERITY = re.compile(
    r"[-|~\[ \t]*(?:[\w.]+[ \t]*[-|~][ \t]*)?\[?"
    r"(?:(?i:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|SEVERE|TRACE)|[DIWEFC])\b"
)
# A timestamp a line starts with, as a collector or launcher may write it on every line of a
# stream: the container runtime's (CRI: `2024-05-01T12:00:00.123456789Z stdout F `), kubectl's
# and docker's `--timestamps`, a tool's own ISO-8601 or `YYYY-MM-DD HH:MM:SS[.,]frac` prefix,
# a TPU VM launcher's worker address and rank after it (`… 10.164.0.33 [0] `).
STAMP = re.compile(
    r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"
    r"(?:[ \t]+(?:stdout|stderr)[ \t]+[FP])?"
    r"(?:[ \t]+\d{1,3}(?:\.\d{1,3}){3}[ \t]+\[\d+\])?"
    r"(?::?[ \t]+|:?$)"
)


def gather_records(scan: Scan, store: EntryStore) -> None:
    """Match every written record of several lines once (see the module docstring).

    One sweep of the store's container streams in time order finds their runs of lines each
    within `JOIN` of the one before without decoding anything (`EntryStore.runs`); a line's
    text is the pass's own (`Scan.lines`, `Scan.entries`), and only a line the pass did not
    keep is read again, one run at a time, so the work is linear in the entries and the memory
    bounded by the longest run.
    """
    hits: dict[int, list[Hit]] = {}  # by the position of their entry in `scan.entries`
    for hit in scan.hits:
        if hit.pod and hit.field in CONTAINER_TEXT:
            hits.setdefault(hit.index, []).append(hit)
    stored, kept, entries = scan.stored, scan.lines, scan.entries

    def entry_at(index: int) -> dict[str, Any]:
        """The entry at store `index`: the pass's copy when it matched it."""
        at = stored.get(index)
        return store.entry(index) if at is None else entries[at]

    dropped: set[int] = set()
    added: list[Hit] = []
    with collector_paused():  # the records' entries are acyclic: see match.collector_paused
        for _, run in store.runs("k8s_container", JOIN_NS, scan.runs_kept(store)):
            lines: list[Line] = []
            for index in run:
                at = stored.get(index)
                if at is None:
                    field, text = kept.get(index) or record_line(store.entry(index))
                    lines.append((index, field, text, None))
                else:
                    field, text = kept.get(index) or record_line(entries[at])
                    lines.append((index, field, text, hits.get(at, ())))
            for record in _split(lines):
                if len(record) < 2:
                    continue
                inside = [h for *_, found in record if found for h in found]
                standing, extra = _match_record(scan, record, inside, entry_at, store.insert_id)
                if inside:
                    chosen = {id(h) for h in standing}
                    dropped.update(id(h) for h in inside if id(h) not in chosen)
                added.extend(extra)
    if dropped or added:
        scan.hits = sorted([h for h in scan.hits if id(h) not in dropped] + added, key=hit_order)


# A record's line: its entry's store index, its field and text, and its hits (None: the pass
# matched nothing in it).
Line = tuple[int, str, str, Optional[Sequence[Hit]]]


def _split(run: list[Line]) -> Iterator[list[Line]]:
    """The written records of one run of a stream's lines (each within `JOIN` of the one
    before), in time order (see `_header`). A line whose first character can start neither a
    stamp nor a header (most of a stack trace's) is read by neither regex."""
    record: list[Line] = []
    stamped = False  # the line before carries a stamp
    last: Optional[re.Match[str]] = None  # the stamp of the run's last stamped line
    for line in run:
        text = line[2]
        first = text[:1]
        # `[` or a digit starts a stamp or a header (`\\d`: what `str.isdecimal` accepts), as
        # does a glog severity letter.
        numeric = first == "[" or first.isdecimal()
        stamp = STAMP.match(text) if numeric else None
        if record and (
            len(record) >= MAX_RECORD_LINES
            or TRACEBACK in text
            or ((numeric or (first and first in "IWEF")) and _header(text, stamp, stamped, last))
        ):
            yield record
            record = []
        record.append(line)
        stamped = stamp is not None
        last = stamp or last
    if record:
        yield record


def _header(
    text: str,
    stamp: Optional[re.Match[str]],
    stamped: bool,
    last: Optional[re.Match[str]],
) -> bool:
    """Whether a line that holds no traceback's header starts a record: it starts with a header
    (`HEADER`).

    A stamp that the line before carries too (`STAMP`: a container runtime's, kubectl's, a
    launcher's, a tool's own on every line) is no header by itself: the stream stamps every line,
    so what follows the stamp decides. A stamp after an unstamped line is a logger's header (a
    Python logging record after the traceback above it) unless it and `last`, the stamp of the
    last stamped line before, are a tool's (`_tool_stamp`): the unstamped lines between are the
    pieces of a wrapped line of the tool's."""
    if stamp is None:
        return HEADER.match(text) is not None
    if stamped:
        return HEADER.match(text, stamp.end()) is not None
    return last is None or not (_tool_stamp(last) and _tool_stamp(stamp))


def _tool_stamp(stamp: re.Match[str]) -> bool:
    """Whether a line's stamp is a tool's: no logger's header follows it (a glog prefix, a
    timestamp, a severity)."""
    text, end = stamp.string, stamp.end()
    return HEADER.match(text, end) is None and SEVERITY.match(text, end) is None


def _match_record(
    scan: Scan,
    record: list[Line],
    inside: list[Hit],
    entry_at: Callable[[int], dict[str, Any]],
    insert_id: Callable[[int], str],
) -> tuple[list[Hit], list[Hit]]:
    """The record's hits that stand (one per page, on its decisive line) and the new hits of the
    pages only its joined text matches (by a match across its lines: a page one line matches on
    its own was the pass's to find, and to drop); `entry_at` reads a line's entry by its store
    index (a new hit cites it), `insert_id` its insertId (read only for a record that has hits)."""
    signatures = scan.signatures
    lines = [line[2] for line in record]  # as written: what quotes and excerpts are cut from
    texts = _unwrapped_lines(lines)
    joined = "\n".join(texts)
    matched = {hit.symptom for hit in inside}
    # Set matches first (no span read): the pages the record as written or flowed holds that no
    # hit of its lines names, less those one line holds on its own.
    field = record[0][1]
    new = (signatures.pages(joined, field) | signatures.pages(flowed_text(joined), field)) - matched
    for (_, _, _, found), text in zip(record, texts):
        if not new:
            break
        if found is not None:  # only a line the pass matched holds a page on its own
            alone = signatures.pages(text, field)
            if "\n" in text:
                alone |= signatures.pages(flowed_text(text), field)
            matched |= alone
            new -= alone
    if not new and not inside:
        return [], []
    found = signatures.scan_text(joined, frozenset(matched), field) if new else []
    ids = [insert_id(line[0]) for line in record]
    position = {given: i for i, given in enumerate(ids)}
    generic = scan.signatures.generic
    # One hit per page and per thing it names: a digest's lines naming different hosts stay
    # apart, a traceback's header and raised line (naming nothing) are one.
    by_page: dict[tuple[str, tuple[tuple[str, str], ...]], list[Hit]] = {}
    for hit in sorted(inside, key=lambda h: (position[h.insert_id], h.symptom)):
        by_page.setdefault((hit.symptom, tuple(sorted(hit.captures.items()))), []).append(hit)
    kept = [hits[-1] if page in generic else hits[0] for (page, _), hits in by_page.items()]
    starts = list(accumulate((len(text) + 1 for text in texts[:-1]), initial=0))
    # A root page inside a cascade record is never a root cause (as for one entry: `match.Scan`).
    cascade = any(h.role == CASCADE for h in inside) or any(
        m.signature.role == CASCADE for m in found
    )
    extra: list[Hit] = []
    for raw in found:
        if raw.signature.symptom in matched:
            continue
        # The record lines the match's quote covers (a line's own text may hold line breaks).
        start = joined.find(raw.quote)
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, start + len(raw.quote) - 1) - 1
        if start < 0 or first == last:
            continue
        # The decisive line's own text when it was unwrapped: a quote is the entry's, verbatim.
        written = lines[last] if texts[last] is not lines[last] else None
        hit = _hit(scan, entry_at(record[last][0]), raw, cascade, written)
        if hit is not None:
            extra.append(hit)
    standing = kept + extra
    if any(h.symptom not in generic and signatures.explains(h.role, h.quote) for h in standing):
        standing = [h for h in standing if h.symptom not in generic]
    for hit in standing:
        at = position[hit.insert_id]
        hit.record = ids
        around = range(max(0, at - EXCERPT_BEFORE), min(len(lines), at + EXCERPT_AFTER + 1))
        hit.excerpt = "\n".join(hit.quote if i == at else lines[i][:MAX_QUOTE] for i in around)
    chosen = {id(h) for h in standing}
    return [h for h in kept if id(h) in chosen], [h for h in extra if id(h) in chosen]


def _hit(
    scan: Scan,
    entry: dict[str, Any],
    raw: RawMatch,
    cascade: bool,
    written: Optional[str] = None,
) -> Optional[Hit]:
    """The hit of a page only a record's joined text matches, cited by its decisive line's
    entry (kept with the pass's matched entries) and quoting that line: its part of the match,
    or the line as `written` when the match was read in its unwrapped view."""
    facts = facts_of(entry)
    if facts is None:  # cannot happen: the store keeps only entries with a timestamp
        return None
    scan.entries.append(entry)
    return hit_of(
        len(scan.entries) - 1,
        facts,
        raw,
        time=facts.time,
        host=facts.host or (scan.topology.node_of(facts.pod) if facts.pod else None),
        quote=raw.quote.rsplit("\n", 1)[-1] if written is None else written[:MAX_QUOTE],
        resource_type=facts.resource_type,
        cascade=cascade,
    )


def _unwrapped_lines(lines: list[str]) -> list[str]:
    """Each line of a record in its unwrapped view (`mlwiki.diagnose.unwrapped`: a launcher's or
    runtime's prefix on every line, escapes, CRLF ends), the line itself when nothing applies."""
    texts = []
    for line in lines:
        view = unwrapped(line)
        texts.append(line if view is None else view.text)
    return texts


def read_records(scan: Scan, store: EntryStore) -> None:
    """What the diagnosis reads of the records after the pass (`lend_names`, then
    `gather_records`): `mlwiki match` reports the same hits."""
    lend_names(scan, store)
    gather_records(scan, store)


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
    within `JOIN` of the next (compared in nanoseconds, as the record sweep compares them: a float
    difference of two epoch seconds is off by a few hundred ns); (0, -1) when the hit's entry is
    not among them."""
    stamps = [timestamp_ns(e.get("timestamp")) or 0 for e in entries]
    position = next((i for i, e in enumerate(entries) if e.get("insertId") == hit.insert_id), None)
    if position is None:
        return 0, -1
    first = last = position
    while first > 0 and stamps[first] - stamps[first - 1] <= JOIN_NS:
        first -= 1
    while last + 1 < len(entries) and stamps[last + 1] - stamps[last] <= JOIN_NS:
        last += 1
    return first, last


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
