"""An in-memory, compact store of log entries with Cloud Logging's ordering and indexed queries.

Each entry is kept as where its bytes are — an offset into a plain bundle file (`register_file`)
— or, for entries from Cloud Logging or a compressed file, as its compact JSON bytes (orjson);
beside it a small index: timestamp in nanoseconds, insertId, resource type, host, pod, logName.
So 100k entries of a bundle cost a few bytes each beyond the file itself, and an entry is
decoded only when a query needs it. Entries are deduplicated on (logName, timestamp, insertId),
the identity Cloud Logging itself uses, so overlapping fetches do not double count.

Queries (`query`) narrow the candidates before decoding anything: the time bounds by binary
search, the resource types, and the necessary conditions of the filter (`Filter.prefilter`):
an equality on the node label, the pod name or the logName, or a `log_id("…")` (the entries
of the distinct sources with that host, pod or log), and an OR of `FIELD=~"…"` clauses that
the diagnosis' single pass has already answered. The pass registers which regexes it answers
(`answer_patterns`: the clauses `symptom_match("id")` renders) and, for each entry it read,
which of them matched (`note_matches`); an entry it did not read, or whose fields have an
unusual shape (`EntryFacts.regular`), stays a candidate. Candidates are then evaluated with
the full filter, so an index only ever saves work, never changes a result. `streams` answers
the record lookup's one query shape (a resource type, a time span, some container streams)
from the same order and the per-entry (type, pod, logName) without decoding anything but the
entries of the streams asked for.

Entries without an `insertId` get a stable synthetic one (`mlwiki.logs.entry.synthetic_insert_id`).
"""

from __future__ import annotations

import bisect
import os
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator
from itertools import compress
from pathlib import Path
from typing import IO, Any, Optional, Union

import orjson

from mlwiki.errors import BadInput
from mlwiki.logs.entry import (
    NODE_LABEL,
    SYNTHETIC_ID_PREFIX,
    EntryFacts,
    Stream,
    facts_of,
    synthetic_insert_id,
)
from mlwiki.logs.query import Filter, log_test

__all__ = ["SYNTHETIC_ID_PREFIX", "EntryStore", "synthetic_insert_id"]

HOST_PATHS = {("labels", NODE_LABEL), ("resource", "labels", "node_name")}
POD_PATHS = {("resource", "labels", "pod_name")}
Pattern = tuple[tuple[str, ...], str]  # (field path, regex) of one `FIELD=~"regex"` clause
Source = tuple[Optional[str], Optional[str], Optional[str], Optional[str]]


class _Files:
    """The plain bundle files entries point into, opened on first re-read and checked unchanged."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.stamps: list[tuple[int, int]] = []
        self.open: dict[int, IO[bytes]] = {}

    def register(self, path: Path) -> int:
        stat = path.stat()
        self.paths.append(path)
        self.stamps.append((stat.st_size, stat.st_mtime_ns))
        return len(self.paths) - 1

    def read(self, number: int, offset: int, length: int) -> bytes:
        handle = self.open.get(number)
        if handle is None:
            path = self.paths[number]
            try:
                handle = open(path, "rb")  # noqa: SIM115 - closed by close()
                stat = os.fstat(handle.fileno())
            except OSError as error:
                raise BadInput(f"{path}: cannot read again: {error}") from None
            if (stat.st_size, stat.st_mtime_ns) != self.stamps[number]:
                handle.close()
                raise BadInput(f"{path}: the bundle file changed while it was being read")
            self.open[number] = handle
        return os.pread(handle.fileno(), length, offset)

    def close(self) -> None:
        for handle in self.open.values():
            handle.close()
        self.open.clear()


class EntryStore:
    """Log entries, deduplicated, queried in Cloud Logging's `timestamp asc` order."""

    def __init__(self) -> None:
        self._blobs: list[Optional[bytes]] = []  # compact JSON, or None: the bytes are in a file
        self._files_of = array("i")  # file number (-1: a blob), offset and length in that file
        self._offsets = array("q")
        self._lengths = array("q")
        self._times = array("q")
        self._ids: list[str] = []
        # (lower-cased resource type, host, pod, logName) of each entry: one shared tuple per
        # distinct combination (a container stream is one), whatever the entry count.
        self._sources: list[Source] = []
        self._source_of: dict[Source, Source] = {}
        self._stream_source: dict[Stream, Source] = {}  # when the stream names host and pod
        self._by_id: dict[str, Union[int, list[int]]] = {}  # insertId → index(es), to dedupe
        self._order: Optional[list[int]] = None
        self._sorted_times: list[int] = []
        self._files = _Files()
        weakref.finalize(self, self._files.close)
        # What the diagnosis' pass answered (see the module docstring).
        self._patterns: dict[Pattern, tuple[str, ...]] = {}
        self._matched: dict[str, list[int]] = {}
        self._unread: set[int] = set()  # entries the pass has not read, or irregular ones
        self._irregular: set[int] = set()  # entries the host and pod indexes cannot answer for

    def __len__(self) -> int:
        return len(self._blobs)

    def register_file(self, path: Path) -> int:
        """A plain bundle file whose entries may be kept as offsets; its number."""
        return self._files.register(path)

    def close(self) -> None:
        """Close the bundle files opened to re-read entries (also done when collected)."""
        self._files.close()

    # ---- adding -------------------------------------------------------------------------------

    def add(self, entry: dict[str, Any]) -> bool:
        """Keep `entry` (a LogEntry dict); False when it was already there or has no timestamp."""
        facts = facts_of(entry)
        return facts is not None and self.add_facts(facts)

    def extend(self, entries: Iterable[dict[str, Any]]) -> int:
        """Add many entries; returns how many were new."""
        return sum(1 for entry in entries if self.add(entry))

    def add_facts(self, facts: EntryFacts) -> bool:
        """Keep the entry `facts` describe (its `index` is set); False for a duplicate."""
        insert_id, instant, log_name = facts.insert_id, facts.instant, facts.log_name or None
        known = self._by_id.get(insert_id)
        if known is not None:
            for index in known if isinstance(known, list) else (known,):
                if self._times[index] == instant and self._sources[index][3] == log_name:
                    return False
        index = len(self._blobs)
        if known is None:
            self._by_id[insert_id] = index
        elif isinstance(known, list):
            known.append(index)
        else:
            self._by_id[insert_id] = [known, index]
        location = facts.location
        if location is not None and location[0] < len(self._files.paths):
            self._blobs.append(None)
            self._files_of.append(location[0])
            self._offsets.append(location[1])
            self._lengths.append(location[2])
        else:
            # orjson's result keeps its over-allocated write buffer (4 KiB at least): copy it.
            self._blobs.append(bytes(memoryview(orjson.dumps(facts.entry))))
            self._files_of.append(-1)
            self._offsets.append(0)
            self._lengths.append(0)
        self._times.append(instant)
        self._ids.append(insert_id)
        stream = facts.stream
        named = facts.host is stream.host and facts.pod is stream.pod  # not from the payload
        shared = self._stream_source.get(stream) if named else None
        if shared is None:
            source = (facts.resource_type, facts.host or None, facts.pod or None, log_name)
            shared = self._source_of.get(source)
            if shared is None:
                kind = source[0].lower() or None
                shared = self._source_of[source] = (kind, *source[1:])
            if named:
                self._stream_source[stream] = shared
        self._sources.append(shared)
        self._unread.add(index)
        if not facts.regular:
            self._irregular.add(index)
        self._order = None
        facts.index = index
        return True

    # ---- what the pass answered ----------------------------------------------------------------

    def answer_patterns(self, patterns: dict[Pattern, tuple[str, ...]]) -> None:
        """The `FIELD=~"regex"` clauses the pass answers, each with the names it notes matches
        by (symptom ids): an entry matching the clause was noted with one of them."""
        self._patterns.update(patterns)

    def note_matches(self, facts: EntryFacts, names: Iterable[str]) -> None:
        """The pass read the entry of `facts` and found `names` (symptom ids) in it."""
        index = facts.index
        if index is None or not facts.regular:
            return  # not stored, or of a shape the indexes cannot answer for: read it in full
        self._unread.discard(index)
        for name in names:
            self._matched.setdefault(name, []).append(index)

    # ---- reading ------------------------------------------------------------------------------

    def _decode(self, index: int) -> dict[str, Any]:
        blob = self._blobs[index]
        if blob is None:
            blob = self._files.read(
                self._files_of[index], self._offsets[index], self._lengths[index]
            )
        entry: dict[str, Any] = orjson.loads(blob)
        if not isinstance(entry.get("insertId"), str) or not entry["insertId"]:
            entry["insertId"] = self._ids[index]
        return entry

    def entry(self, index: int) -> dict[str, Any]:
        """The entry stored at `index` (`EntryFacts.index`), decoded afresh."""
        return self._decode(index)

    def _sorted(self) -> list[int]:
        if self._order is None:
            # (instant, insertId, index) tuples compared in C: twice as fast as a key function.
            times = self._times
            ordered = sorted(zip(times, self._ids, range(len(times))))
            self._order = [index for _, _, index in ordered]
            self._sorted_times = [instant for instant, _, _ in ordered]
        return self._order

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every entry, ordered by timestamp then insertId."""
        for index in self._sorted():
            yield self._decode(index)

    def facts(self) -> Iterator[EntryFacts]:
        """The facts of every entry (with their `index`), ordered by timestamp then insertId:
        the input of a pass over entries already stored (Cloud Logging's)."""
        for index in self._sorted():
            facts = facts_of(self._decode(index))
            if facts is not None:
                facts.index = index
                yield facts

    def streams(
        self,
        resource_type: str,
        keys: set[tuple[str, str]],
        start_ns: int,
        end_ns: int,
    ) -> dict[tuple[str, str], list[tuple[int, int]]]:
        """The entries of `resource_type` (case-insensitively, as `resource.type="…"` compares)
        from `start_ns` to `end_ns` inclusive whose (pod, logName) is one of `keys`, each
        stream's in Cloud Logging's order as (instant, index): what a query on the type and the
        time bounds would return, grouped, and not decoded yet (`entry(index)` decodes one)."""
        order = self._sorted()
        low = bisect.bisect_left(self._sorted_times, start_ns)
        high = bisect.bisect_right(self._sorted_times, end_ns)
        kind, sources, times = resource_type.lower(), self._sources, self._times
        found: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for index in order[low:high]:
            source = sources[index]
            if source[0] != kind:
                continue
            key = (source[2] or "", source[3] or "")
            if key in keys:
                found.setdefault(key, []).append((times[index], index))
        return found

    def runs(
        self, resource_type: str, gap_ns: int, among: Optional[Iterable[int]] = None
    ) -> Iterator[tuple[tuple[str, str], list[int]]]:
        """Every run of two or more entries of `resource_type` on one (pod, logName) stream of a
        named pod, each within `gap_ns` of the one before, as ((pod, logName), indexes in Cloud
        Logging's order); nothing decoded, one open run per stream held at a time (the record
        sweep of `mlwiki.diagnose.continuation`). With `among`, only those entries are swept: a
        caller that knows every run's entries are among them (the pass that kept them) saves
        the sweep of all the others."""
        kind, sources, times = resource_type.lower(), self._sources, self._times
        if among is None:
            ordered: Iterable[int] = self._sorted()
        else:
            ids = self._ids
            ordered = sorted(among, key=lambda i: (times[i], ids[i]))
        last: dict[tuple[str, str], int] = {}
        run: dict[tuple[str, str], list[int]] = {}
        for index in ordered:
            source = sources[index]
            if source[0] != kind or not source[2]:
                continue
            key = (source[2], source[3] or "")
            instant = times[index]
            before = last.get(key)
            last[key] = instant
            if before is not None and instant - before <= gap_ns:
                run[key].append(index)
                continue
            ended = run.get(key)
            if ended is not None and len(ended) > 1:
                yield key, ended
            run[key] = [index]
        for key, ended in run.items():
            if len(ended) > 1:
                yield key, ended

    def insert_id(self, index: int) -> str:
        """The insertId of the entry stored at `index` (its synthetic one when it had none)."""
        return self._ids[index]

    def hosts(self) -> list[str]:
        """The node names the entries are about, sorted."""
        return sorted({host for _, host, _, _ in self._source_of.values() if host})

    def pods(self) -> list[str]:
        return sorted({pod for _, _, pod, _ in self._source_of.values() if pod})

    # ---- queries ------------------------------------------------------------------------------

    def _of_sources(self, field: int, accept: Callable[[str], bool], missing: bool) -> set[int]:
        """Indexes of the entries whose host (`field` 1), pod (2) or logName (3) is accepted,
        or is missing when `missing` says such entries may match: the few distinct sources are
        tested, then each entry's shared source tuple is looked up in C (`compress`), with no
        Python code per entry. Irregular entries are always among them (no index answers for
        them)."""
        chosen = {
            source
            for source in self._source_of.values()
            if (accept(source[field]) if source[field] else missing)
        }
        found = set(compress(range(len(self._sources)), map(chosen.__contains__, self._sources)))
        return found | self._irregular

    def _candidates(self, compiled: Filter) -> Optional[set[int]]:
        """A superset of the entries matching `compiled` from the indexes, or None when no
        index narrows it."""
        chosen: Optional[set[int]] = None
        for path, values in compiled.prefilter.equals:
            if path in HOST_PATHS:
                found = self._of_sources(1, _lowered_in(values), missing=False)
            elif path in POD_PATHS:
                found = self._of_sources(2, _lowered_in(values), missing=False)
            elif path == ("logName",):  # an empty logName and none look alike here: kept
                found = self._of_sources(3, _lowered_in(values), missing=True)
            else:
                continue
            chosen = found if chosen is None else chosen & found
        for logs in compiled.prefilter.logs:
            found = self._of_sources(3, _any_log(logs), missing=True)
            chosen = found if chosen is None else chosen & found
        for clauses in compiled.prefilter.patterns:
            names = [self._patterns.get(clause) for clause in clauses]
            if not names or None in names:
                continue  # a regex the pass did not answer: read every entry
            found = set(self._unread)
            for group in names:
                for name in group or ():
                    found.update(self._matched.get(name, ()))
            chosen = found if chosen is None else chosen & found
        return chosen

    def _in_order(
        self, indexes: Iterable[int], start: Optional[int], end: Optional[int]
    ) -> list[int]:
        """`indexes` within [start, end], in the store's order (instant, insertId, index)."""
        times, ids = self._times, self._ids
        return sorted(
            (
                i
                for i in indexes
                if (start is None or times[i] >= start) and (end is None or times[i] <= end)
            ),
            key=lambda i: (times[i], ids[i], i),
        )

    def query(self, compiled: Filter, limit: Optional[int] = None) -> list[dict[str, Any]]:
        """Entries matching `compiled`, ordered like Cloud Logging's `timestamp asc`."""
        candidates = self._candidates(compiled)
        if (
            candidates is not None
            and self._order is None
            and 8 * len(candidates) < len(self._times)
        ):
            # A few candidates (a verification query's prefilter) are put in order themselves:
            # sorting the whole store for them would cost more than the rest of the query.
            span = self._in_order(candidates, compiled.start_ns, compiled.end_ns)
        else:
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
            if candidates is not None and len(candidates) < high - low:
                span = self._in_order(candidates, compiled.start_ns, compiled.end_ns)
            else:
                span = order[low:high]
        types = compiled.resource_types
        sources = self._sources
        matches = compiled.matches
        found: list[dict[str, Any]] = []
        for index in span:
            if types is not None and sources[index][0] not in types:
                continue
            entry = self._decode(index)
            if matches(entry):
                found.append(entry)
                if limit is not None and len(found) >= limit:
                    break
        return found


def _lowered_in(values: frozenset[str]) -> Callable[[str], bool]:
    return lambda value: value.lower() in values


def _any_log(logs: frozenset[str]) -> Callable[[str], bool]:
    tests = [log_test(log) for log in logs]
    return lambda log_name: any(test(log_name) for test in tests)
