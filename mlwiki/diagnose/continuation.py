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

A written line may also reach Cloud Logging in pieces: a container runtime writes a line longer
than its buffer as partial records (its CRI prefix tagged `P`) and a last one tagged `F`, and
Cloud Logging writes an entry over its size limit as several, each with `split {uid, index,
totalSplits}` (LogSplit). A piece is never matched on its own (`match.piece_of`: its words are cut
anywhere, even inside one); the sweep glues each line's pieces into one line (`_glue`: a split's
in the order of `index`, partial records with the record completing them, each piece without its
CRI prefix) and matches it with its record, a match inside the glued line counting as one across
its entries. Its hit cites the piece the match starts in and quotes that piece, verbatim.

Every line of a record is also read in its unwrapped view (`mlwiki.diagnose.unwrapped`: a
launcher's or the runtime's prefix on every line, escapes, CRLF ends), for the pages the lines as
written and flowed do not hold; a record's first line is read for its header after the runtime's
CRI prefix (the prefix is the runtime's, not the logger's).

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
traceback the last frame above the raised line), which the report quotes. A catch-all hit the
sweep adds meets the specific hits of the stream's lines around it as the pass's hits do
(`match.specific_in_records`).

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
    specific_in_records,
)
from mlwiki.diagnose.signatures import MAX_QUOTE, RawMatch, SignatureSet
from mlwiki.diagnose.unwrapped import cri_prefix_end, unwrapped
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
    stored, kept, entries, pieces = scan.stored, scan.lines, scan.entries, scan.pieces

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
            glued: dict[int, Glued] = {}
            if pieces:
                stale: list[Hit] = []
                lines = _glue(lines, pieces, glued, stale)
                dropped.update(id(h) for h in stale)
            for record in _split(lines):
                if len(record) < 2 and record[0][0] not in glued:
                    continue
                inside = [h for *_, found in record if found for h in found]
                standing, extra = _match_record(
                    scan, record, inside, entry_at, store.insert_id, glued
                )
                if inside:
                    chosen = {id(h) for h in standing}
                    dropped.update(id(h) for h in inside if id(h) not in chosen)
                added.extend(extra)
    if dropped or added:
        scan.hits = sorted([h for h in scan.hits if id(h) not in dropped] + added, key=hit_order)
    generic = scan.signatures.generic
    if any(h.symptom in generic for h in added):
        # The records' new catch-all hits meet the specific ones around them too.
        scan.hits = specific_in_records(scan.hits, scan.signatures)


# A record's line: its entry's store index, its field and text, and its hits (None: the pass
# matched nothing in it).
Line = tuple[int, str, str, Optional[Sequence[Hit]]]
# A written line cut into pieces, glued (`_glue`): its text (the pieces joined without a
# separator, each without its CRI prefix) and each piece's store index and offset in it.
Glued = tuple[str, list[tuple[int, int]]]


def _glue(
    lines: list[Line],
    pieces: dict[int, Optional[tuple[str, int]]],
    glued: dict[int, Glued],
    stale: list[Hit],
) -> list[Line]:
    """`lines` (one run's) with the pieces of each written line as one line: a LogSplit's pieces
    in the order of their `index`, a runtime's partial records and the record completing them.
    The line stands at its first piece (whose written text `_split` reads); `glued` gets its
    text and pieces, keyed by the first piece's store index. The hits the pass found in a piece
    on its own (the last of a runtime's partial records is read as a whole line) go to `stale`:
    the line is matched whole, in the record sweep."""
    out: list[Line] = []
    splits: dict[str, list[tuple[int, Line]]] = {}
    open_partial: Optional[list[Line]] = None
    for line in lines:
        piece = pieces.get(line[0], False)
        if open_partial is not None:
            open_partial.append(line)
            if piece is None:
                continue  # another partial record: the line goes on
            out.append(_glued_line(open_partial, glued, stale))
            open_partial = None
            if piece is False:
                continue  # the record completing the line
        if piece is None:
            open_partial = [line]
        elif piece is False:
            out.append(line)
        else:
            uid, index = piece
            group = splits.get(uid)
            if group is None:
                splits[uid] = group = []
                out.append(line)  # the line's place: its first piece read
            group.append((index, line))
    if open_partial is not None:
        out.append(_glued_line(open_partial, glued, stale))
    if splits:
        for position, line in enumerate(out):
            piece = pieces.get(line[0], False)
            if piece:
                group = sorted(splits[piece[0]], key=lambda item: item[0])
                out[position] = _glued_line([member for _, member in group], glued, stale)
    return out


def _glued_line(members: list[Line], glued: dict[int, Glued], stale: list[Hit]) -> Line:
    """One line of the pieces `members`, recorded in `glued`, their own hits in `stale` (see
    `_glue`): the line is one the pass did not match (its hits None)."""
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    length = 0
    for index, _, text, _ in members:
        part = text[cri_prefix_end(text) :]  # each piece's CRI prefix is the runtime's envelope
        offsets.append((index, length))
        parts.append(part)
        length += len(part)
    first = members[0]
    glued[first[0]] = ("".join(parts), offsets)
    stale.extend(hit for *_, hits in members if hits for hit in hits)
    return first[0], first[1], first[2], None


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
        if first.isdecimal():  # the runtime's CRI prefix is no part of the line (`unwrapped`)
            text = text[cri_prefix_end(text) :]
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
    glued: dict[int, Glued],
) -> tuple[list[Hit], list[Hit]]:
    """The record's hits that stand (one per page, on its decisive line) and the new hits of the
    pages only its joined text matches (by a match across its lines, or inside a line glued from
    pieces, `glued`: a page one whole entry matches on its own was the pass's to find, and to
    drop); `entry_at` reads a line's entry by its store index (a new hit cites it), `insert_id`
    its insertId (read only for a record that has hits)."""
    signatures = scan.signatures
    # As written (a glued line as its pieces joined): what quotes and excerpts are cut from.
    lines = [glued[line[0]][0] if line[0] in glued else line[2] for line in record]
    joined = "\n".join(lines)
    matched = {hit.symptom for hit in inside}
    # Set matches first (no span read): the pages the record as written, flowed or unwrapped
    # holds that no hit of its lines names, less those one line holds on its own.
    field = record[0][1]
    new = _pages(signatures, joined, field) - matched
    for (index, _, _, found), text in zip(record, lines):
        if not new:
            break
        # Only a whole entry the pass matched holds a page on its own (not a glued line).
        if found is not None and index not in glued:
            alone = _pages(signatures, text, field)
            matched |= alone
            new -= alone
    if not new and not inside:
        return [], []
    found = signatures.scan_text(joined, frozenset(matched), field) if new else []
    # Each line's entries (a glued line's pieces), by insertId: where each is in the record.
    members = [
        [i for i, _ in glued[line[0]][1]] if line[0] in glued else [line[0]] for line in record
    ]
    ids = [insert_id(index) for indexes in members for index in indexes]
    position = {insert_id(index): at for at, indexes in enumerate(members) for index in indexes}
    generic = scan.signatures.generic
    # One hit per page and per thing it names: a digest's lines naming different hosts stay
    # apart, a traceback's header and raised line (naming nothing) are one.
    by_page: dict[tuple[str, tuple[tuple[str, str], ...]], list[Hit]] = {}
    for hit in sorted(inside, key=lambda h: (position[h.insert_id], h.symptom)):
        by_page.setdefault((hit.symptom, tuple(sorted(hit.captures.items()))), []).append(hit)
    kept = [hits[-1] if page in generic else hits[0] for (page, _), hits in by_page.items()]
    starts = list(accumulate((len(text) + 1 for text in lines[:-1]), initial=0))
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
        if start < 0 or (first == last and record[last][0] not in glued):
            continue
        # A quote is the entry's, verbatim: of a glued line, the piece where the match starts.
        cited, written = record[last][0], None
        if cited in glued:
            within = start - starts[last] if first == last else 0
            cited = next(i for i, offset in reversed(glued[cited][1]) if offset <= within)
            written = record_line(entry_at(cited))[1]
        hit = _hit(scan, entry_at(cited), raw, cascade, written)
        if hit is not None:
            extra.append(hit)
    standing = kept + extra

    def explaining(hit: Hit) -> bool:
        """Whether a specific hit explains the record's catch-all ones, read on its quote or,
        on a glued line, on the whole line (a piece holds only part of the message)."""
        at = position[hit.insert_id]
        quote = lines[at] if record[at][0] in glued else hit.quote
        return hit.symptom not in generic and signatures.explains(hit.role, quote)

    if any(explaining(h) for h in standing):
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


def _pages(signatures: SignatureSet, text: str, field: str) -> frozenset[str]:
    """The pages `text` holds as written, in its flowed view when it has line breaks, and in its
    unwrapped view when logging wrapped it (`mlwiki.diagnose.unwrapped`; a logger's header on a
    line stays on: the pass read that line alone without it): set matches only."""
    pages = signatures.pages(text, field)
    if "\n" in text:
        pages |= signatures.pages(flowed_text(text), field)
    view = unwrapped(text, headers=False)
    return pages if view is None else pages | signatures.pages(view.text, field)


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
