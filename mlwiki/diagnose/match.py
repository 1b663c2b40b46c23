"""The single pass: every entry is matched against the signature set and feeds the topology.

Only matched entries are kept whole (they may become evidence); of the others only compact facts
remain (per-pod and per-node first/last times and counts, in `Topology`), and the text of a
container line written within `JOIN_NS` of its stream's line before it (`Scan.lines`: the lines
of written records, which `mlwiki.diagnose.continuation` joins without decoding them again). Entries may arrive in
any order: nothing here depends on it. The cycle collector is paused while the pass runs
(`collector_paused`): what it allocates is acyclic and freed by reference counting.

Entries are read in batches of `BATCH`, whose message texts are matched at once first
(`SignatureSet.clear_of`): the entries of a batch in which nothing matches need no signature
match of their own (each is still read in order, one at a time, for everything else). That
pre-check pays only where most batches are clear; in a noisy run every batch holds a match and
it is work thrown away. So after a batch in which some entry matched, the next batch is matched
entry by entry without it, and a batch read so in which nothing matched turns it back on: a
healthy stretch costs one pre-check per batch, a noisy one none, and a clear batch after a
noisy one at most one batch of per-entry matches.

A container entry that is a piece of a longer written line (a LogSplit, a runtime's partial
record: `piece_of`) is not matched on its own: the record sweep matches its line whole.

Per entry the pass does a constant amount of work, and an entry that matched nothing is freed as
soon as its turn is over: what outlives it is strings and numbers (a stream's last line, the
store's columns), never the decoded entry. Entries freed in the order they were decoded keep the
allocator's working set to one entry; holding one decoded entry per stream until that stream's
next line (hundreds of streams at once) made every entry's allocation and freeing slower.
"""

from __future__ import annotations

import bisect
import gc
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import orjson

from mlwiki.diagnose.kept import KeptEntries
from mlwiki.diagnose.progress import Progress
from mlwiki.diagnose.signatures import RawMatch, SignatureSet
from mlwiki.diagnose.topology import Topology
from mlwiki.diagnose.unwrapped import cri_partial
from mlwiki.logs.entry import EntryFacts, facts_of, synthetic_insert_id
from mlwiki.logs.namespaces import CONTROLLER_NAMESPACES, SYSTEM_NAMESPACES
from mlwiki.logs.store import EntryStore
from mlwiki.wiki import Symptom

CASCADE = "cascade"
ROOT = "root"
SYMPTOM = "symptom"
CONSEQUENCE = "consequence"


def insert_id_of(entry: dict[str, Any]) -> str:
    """The entry's insertId; entries without one get the store's stable synthetic id."""
    given = entry.get("insertId")
    return given if isinstance(given, str) and given else synthetic_insert_id(entry)


@dataclass
class Hit:
    """One symptom matched in one entry."""

    index: int  # position of the entry in `Scan.entries`
    symptom: str
    role: str
    layer: str
    time: float
    timestamp: str
    insert_id: str
    log_name: str
    host: Optional[str]
    pod: Optional[str]
    quote: str
    field: str
    captures: dict[str, str]
    severity: str
    resource_type: str
    reason: Optional[str] = None  # a Kubernetes event's reason (Killing, BackOff, Evicted, …)
    shadowed: bool = False  # a root match inside a cascade line: never a root cause
    inferred: bool = False  # found from missing lines (a stall), cited by the last line seen
    incomplete: bool = (
        False  # its signature has a named group that named nothing (see continuation)
    )
    # The entry's `resource.labels.namespace_name` (whose pod wrote a container line: a batch
    # controller's, a system pod's), read with its facts so that no later step decodes it again.
    namespace: Any = None
    # The insertIds of the written record the hit's line belongs to (a traceback GKE split into
    # one entry per line), in time order, when it spans several entries (see continuation).
    record: list[str] = field(default_factory=list)
    excerpt: str = ""  # the record's lines around the hit's own (the report quotes them)


def hit_of(
    index: int,
    facts: EntryFacts,
    raw: RawMatch,
    *,
    time: float,
    host: Optional[str],
    quote: str,
    resource_type: str,
    cascade: bool,
    reason: Optional[str] = None,
) -> Hit:
    """The hit of `raw`'s page on the entry of `facts` (at `index` in `Scan.entries`); a root
    match on an entry that also matches a cascade page is shadowed.

    The fields are passed in `Hit`'s order, not by name: a noisy run makes tens of thousands of
    hits, and a dataclass's keyword arguments cost twice as much to bind."""
    signature = raw.signature
    role = signature.role
    return Hit(
        index,
        signature.symptom,
        role,
        signature.layer,
        time,
        facts.timestamp,
        facts.insert_id,
        facts.log_name,
        host,
        facts.pod,
        quote,
        raw.field,
        raw.captures,
        facts.severity,
        resource_type,
        reason,
        cascade and role == ROOT,  # shadowed
        False,  # inferred
        raw.incomplete,
        facts.resource_labels.get("namespace_name"),
    )


@contextmanager
def collector_paused(*, age_survivors: bool = False) -> Iterator[None]:
    """Python's cycle collector off for the duration: the pass makes millions of short-lived
    objects (decoded entries, their facts) while keeping thousands (hits, matched entries), and
    the collector, run every few hundred allocations, would walk the kept ones again and again.
    Nothing the pass makes holds a reference cycle; reference counting frees it all.

    With `age_survivors`, every object still alive at the end goes to the oldest generation
    (walked again only by a full collection, as long-lived data is) before the collector is back
    on; objects someone else froze stay frozen, and then nothing is aged. Inside a pause already
    on (a nested diagnosis, a caller's own pause) nothing changes."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if age_survivors and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()


# The one total order of hits: time, then insertId, then symptom (a sort key computed in C:
# the pass sorts every hit it found).
hit_order: Callable[[Hit], tuple[float, str, str]] = operator.attrgetter(
    "time", "insert_id", "symptom"
)


@dataclass
class Scan:
    """What one pass over the run's entries leaves behind."""

    signatures: SignatureSet
    topology: Topology
    entries: KeptEntries = field(default_factory=KeptEntries)
    hits: list[Hit] = field(default_factory=list)
    count: int = 0
    resource_types: dict[str, int] = field(default_factory=dict)
    # The store the entries are kept in, told what the pass found in each (its indexes answer
    # the verification queries' symptom_match clauses from that).
    store: Optional[EntryStore] = None
    # By store index (`EntryFacts.index`): where a matched entry is in `entries`, and the
    # (field, text) of each container line written within `JOIN_NS` of the line read before or
    # after it on its (pod, logName) stream: the lines of written records, which
    # `mlwiki.diagnose.continuation` then reads without decoding them again (see `runs_kept`).
    stored: dict[int, int] = field(default_factory=dict)
    lines: dict[int, tuple[str, str]] = field(default_factory=dict)
    # By store index: the container entries that are pieces of one written line, matched only
    # as that line by the record sweep (`piece_of`): a LogSplit's (uid, index), or None for a
    # runtime's partial record, which the next line of its stream continues.
    pieces: dict[int, Optional[tuple[str, int]]] = field(default_factory=dict)
    indexed: int = 0  # entries read with a store index
    # `lines` may miss a record's lines: a container stream's lines came in no time order (not
    # oldest nor newest first), or there were more than `MAX_KEPT_LINES` (see `runs_kept`).
    lines_partial: bool = False
    # Each container stream's last line read: [instant, store index, (field, text), the time
    # order the stream's lines came in (+1, -1)]; not the entry itself (module docstring).
    _previous: dict[tuple[Optional[str], str], list[Any]] = field(default_factory=dict, repr=False)
    _relevant: Optional[list[Hit]] = field(default=None, repr=False)
    _entries_matched: int = field(default=0, repr=False)  # entries whose texts matched a page
    _each_on_its_own: bool = field(default=False, repr=False)  # skip the batch pre-check

    @property
    def progress(self) -> Progress:
        return self.topology.progress

    def add(self, facts: EntryFacts) -> None:
        """Read one entry (its facts: see `mlwiki.logs.entry.EntryFacts`)."""
        self._add_batch([facts])

    def _read(self, facts: EntryFacts, clear: bool) -> None:
        """Read one entry of a batch (`_add_batch` counted it); `clear` when its message texts
        are known to match no signature (`SignatureSet.clear_of`)."""
        when = facts.time
        resource_type = facts.resource_type
        topology = self.topology
        if topology.observe(facts) and resource_type == "k8s_container":
            # By the entry's own labels, not only by whether an event named the pod before: a
            # longer-named workload's pod (`llm-eval-…` for `llm`) is not ours in any order.
            topology.progress.observe(facts)
        elif facts.log_name.endswith("/logs/events"):
            topology.progress.observe_event(facts.payload, when, topology.workload)
        stored = facts.index
        if stored is not None:
            self.indexed += 1
            if facts.pod:
                if resource_type == "k8s_container":
                    self._keep_line(facts, stored)
                    piece = piece_of(facts)
                    if piece is not False:  # matched as part of its line (module docstring)
                        self.pieces[stored] = piece
                        if self.store is not None:
                            self.store.note_matches(facts, ())
                        return
                elif resource_type.lower() == "k8s_container":
                    # The store's record sweep takes the type case-insensitively (as queries do).
                    self._keep_line(facts, stored)
        signatures = self.signatures
        if clear and signatures.texts_only(facts):
            found: list[RawMatch] = []  # the texts are clear, and no other field can match
        else:
            found = signatures.scan_all(facts, clear)
        if found:
            self._entries_matched += 1
        if self.store is not None:  # every page found, as a query would find it
            self.store.note_matches(
                facts, [raw.signature.symptom for raw in found] if found else ()
            )
        if not found:
            return
        found = signatures.specific(found)
        index = len(self.entries)
        self.entries.keep(facts)
        if stored is not None:
            self.stored[stored] = index
        has_cascade = any(raw.signature.role == CASCADE for raw in found)
        payload = facts.payload
        reason = payload.get("reason") if payload is not None else None
        event_reason = reason if isinstance(reason, str) else None
        for raw in found:
            self.hits.append(
                hit_of(
                    index,
                    facts,
                    raw,
                    time=when,
                    host=facts.host,
                    quote=raw.quote,
                    resource_type=resource_type,
                    cascade=has_cascade,
                    reason=event_reason,
                )
            )

    def _keep_line(self, facts: EntryFacts, stored: int) -> None:
        """Keep the text of a container line and of its stream's line read before it when
        they were written within `JOIN_NS` of each other. In a bundle written in either time
        order the lines of one written record arrive one after the other on their stream, so
        the lines kept are all the records' lines; a stream whose lines come in no such order
        sets `lines_partial` (see `runs_kept`), as does a flood of records' lines beyond
        `MAX_KEPT_LINES` (memory stays bounded: the rest are read again from the store)."""
        key = (facts.pod, facts.log_name)
        line = facts.record_line()
        seen = self._previous.get(key)
        if seen is None:
            self._previous[key] = [facts.instant, stored, line, 0]
            return
        instant, index, previous, order = seen
        seen[0], seen[1], seen[2] = facts.instant, stored, line
        step = facts.instant - instant
        if step:
            if not order:
                seen[3] = 1 if step > 0 else -1
            elif (step > 0) != (order > 0):
                self.lines_partial = True
        if -JOIN_NS <= step <= JOIN_NS:
            lines = self.lines
            if len(lines) >= MAX_KEPT_LINES:  # a flood of records: the sweep reads them again
                self.lines_partial = True
                return
            if index not in lines:
                lines[index] = previous
            lines[stored] = line

    def runs_kept(self, store: EntryStore) -> Optional[dict[int, tuple[str, str]]]:
        """The lines kept (`lines`) when they hold every line of every written record of
        `store`'s container streams: the pass read all of the store's entries (`indexed`), and
        each stream's lines came in one time order, so two lines of a record (within `JOIN_NS`
        of each other, nothing between them but lines as close) were read one after the other.
        None otherwise: the record sweep then reads all of the store's entries."""
        complete = not self.lines_partial and self.indexed == len(store)
        return self.lines if complete else None

    def add_all(self, entries: Iterable[Union[EntryFacts, dict[str, Any]]]) -> Scan:
        """Read every entry: their facts, or LogEntry dicts (those without a timestamp are
        skipped, as a store skips them)."""
        with collector_paused():
            batch: list[EntryFacts] = []
            for item in entries:
                facts = item if isinstance(item, EntryFacts) else facts_of(item)
                if facts is not None:
                    batch.append(facts)
                    if len(batch) == BATCH:
                        self._add_batch(batch)
                        batch = []
            self._add_batch(batch)
        return self

    def _add_batch(self, batch: list[EntryFacts]) -> None:
        """Read `batch`'s entries in order, their texts matched all at once first (module
        docstring): in a run of healthy lines no entry's texts then need a set match."""
        if not batch:
            return
        self.count += len(batch)
        kinds = self.resource_types
        for kind, count in Counter(map(_RESOURCE_TYPE, batch)).items():
            kinds[kind] = kinds.get(kind, 0) + count
        read = self._read
        matched = self._entries_matched
        if self._each_on_its_own:  # the last batch matched somewhere (module docstring)
            for facts in batch:
                read(facts, False)
        else:
            for facts, clear in zip(batch, self.signatures.clear_of(batch)):
                read(facts, clear)
        self._each_on_its_own = self._entries_matched > matched

    def finish(self) -> None:
        """Fill in what needed the whole pass: pod → node for hits on pod events, the node a
        node-pool event (repair, upgrade) points to, no node for a batch controller's lines;
        then put the hits in time order (ties by insertId and symptom) so that no later choice
        depends on the order entries arrived in."""
        self.topology.finish()
        self._previous.clear()
        self._relevant = None
        for hit in self.hits:
            if self.from_controller(hit):
                # A batch controller's line is about the objects it reconciles, not about the
                # node its own pod runs on: that node is no culprit.
                hit.host = None
            elif hit.host is None and hit.pod:
                hit.host = self.topology.node_of(hit.pod)
            elif hit.host is None and hit.resource_type == "gke_nodepool":
                labels = (self.entries[hit.index].get("resource") or {}).get("labels") or {}
                cluster, pool = labels.get("cluster_name"), labels.get("nodepool_name")
                if cluster and pool:
                    hit.host = self.topology.pool_suspect(f"gke-{cluster}-{pool}-", hit.time)
        self.hits.sort(key=hit_order)
        self.hits = specific_in_records(self.hits, self.signatures)

    def relevant_hits(self) -> list[Hit]:
        """Hits about the workload: its pods, its nodes (the node itself or a system pod on it,
        such as the TPU device plugin), a batch controller's lines that name it, or entries
        that name it."""
        if self._relevant is None:
            self._relevant = self._find_relevant()
        return list(self._relevant)

    def _find_relevant(self) -> list[Hit]:
        workload = self.topology.workload
        if workload is None:
            return list(self.hits)
        nodes = self.workload_nodes()
        kept = []
        for hit in self.hits:
            if hit.pod is not None and hit.pod in self.topology.pods:
                kept.append(hit)
            elif hit.pod is not None:
                # Another pod on the workload's nodes: its system lines may be the cause, but the
                # orchestrator's reaction to it (a crash loop of a DaemonSet pod) is its own. A
                # batch controller's line that names the workload: it failed to reconcile it.
                on_its_nodes = hit.host in nodes and self.from_system(hit)
                if (on_its_nodes and hit.role != CONSEQUENCE) or (
                    self.from_controller(hit) and self._about_workload(hit)
                ):
                    kept.append(hit)
            elif hit.host is not None:
                if hit.host in nodes:
                    kept.append(hit)
            elif self._about_workload(hit):
                kept.append(hit)
        return kept

    def _about_workload(self, hit: Hit) -> bool:
        """An entry about no pod or node: whether it names the workload, is the result of a
        scale-up its pods triggered, or is an autoscaler error while its pods waited."""
        entry = self.entries[hit.index]
        if self.topology.mentions(orjson.dumps(entry).decode()):
            return True
        if self.topology.triggered_by_workload(entry):
            return True
        return AUTOSCALER_LOG in hit.log_name and self.topology.waiting_for_capacity(
            entry, hit.time
        )

    def workload_nodes(self) -> set[str]:
        return {info.node for info in self.topology.pods.values() if info.node}

    def pool_hits(self) -> list[Hit]:
        """System and node hits on the other nodes of the workload's node pools.

        When a pod cannot be scheduled, the node it should have run on is where the reason is
        (a device plugin short of a chip), yet no pod of the workload ever ran there: those
        nodes are known only as siblings (same GKE node pool) of the nodes that did.
        """
        nodes = self.workload_nodes()
        pools = {pool for pool in map(node_pool, nodes) if pool}
        return [
            hit
            for hit in self.hits
            if hit.host
            and hit.host not in nodes
            and node_pool(hit.host) in pools
            and self.from_system(hit)
        ]

    @staticmethod
    def from_controller(hit: Hit) -> bool:
        """Written by a batch controller's pod (JobSet, Kueue, LeaderWorkerSet, KubeRay)."""
        return hit.resource_type == "k8s_container" and hit.namespace in CONTROLLER_NAMESPACES

    @staticmethod
    def from_system(hit: Hit) -> bool:
        """Written by the node or a system pod (kube-system…), not by some workload."""
        return hit.resource_type != "k8s_container" or hit.namespace in SYSTEM_NAMESPACES


def piece_of(facts: EntryFacts) -> Union[bool, Optional[tuple[str, int]]]:
    """Whether a container entry is a piece of a longer written line, and which: Cloud
    Logging's LogSplit (`split {uid, index, totalSplits}`, an entry over the size limit written
    as several) gives (uid, index); a container runtime's partial record (its CRI prefix tagged
    `P`, `mlwiki.diagnose.unwrapped.cri_partial`), None; False for a whole line. A dict lookup
    and a character test for the usual entry."""
    split = facts.top("split")  # a text line read without a dict has none (LineFacts)
    if split is not None:
        if type(split) is dict:
            uid, index, total = split.get("uid"), split.get("index", 0), split.get("totalSplits")
            if type(uid) is str and type(index) is int and type(total) is int and total > 1:
                return uid, index
        return False
    message = facts.message
    return None if message and cri_partial(message) else False


AUTOSCALER_LOG = "cluster-autoscaler-visibility"
BATCH = 256  # entries whose message texts are matched at once (`SignatureSet.clear_of`)
_RESOURCE_TYPE = operator.attrgetter("resource_type")
# Nanoseconds between two lines of one write: the logging agent stamps each line of a container
# as it reads it (see `mlwiki.diagnose.continuation`).
JOIN_NS = 2_000_000
MAX_KEPT_LINES = 1 << 18  # records' lines whose texts the pass keeps (see `Scan._keep_line`)
RECORD_REACH = 0.25  # seconds: the lines of one write (a traceback, a fatal line and its abort)


def specific_in_records(hits: list[Hit], signatures: SignatureSet) -> list[Hit]:
    """Time-ordered `hits` without the catch-all matches that a specific match explains.

    GKE writes every line a container prints as an entry of its own, so a traceback's header
    (`Traceback (most recent call last):`, a catch-all page) and its raised line naming the cause
    (`ValueError: RESOURCE_EXHAUSTED: …`, a specific page) are separate entries of one record,
    microseconds apart. A catch-all hit is dropped when a specific hit that explains it
    (`SignatureSet.explains`: a root or cascade, or a symptom whose own line is the exception's)
    lies on the same container stream (pod and log) within `RECORD_REACH` of it: the record is
    the specific page's. A launcher's `EXIT_CODE=1` summary under the traceback (a symptom) does
    not take the record. Of the catch-all hits of one record (the header, the raised line) only
    the last is kept: the raised line names the error, and the record is matched once.
    """
    generic = signatures.generic
    if not generic:
        return hits
    specific: dict[tuple[str, str], list[float]] = {}
    for hit in hits:
        if hit.symptom not in generic and hit.pod and signatures.explains(hit.role, hit.quote):
            specific.setdefault((hit.pod, hit.log_name), []).append(hit.time)
    kept: list[Hit] = []
    # (pod, log, page) → [index in `kept`, the time of the hit there]
    last_generic: dict[tuple[str, str, str], list[Any]] = {}
    for hit in hits:
        if hit.symptom not in generic:
            kept.append(hit)
            continue
        pod, when = hit.pod, hit.time
        times = specific.get((pod or "", hit.log_name)) if specific else None
        if times:
            at = bisect.bisect_left(times, when - RECORD_REACH)
            if at < len(times) and times[at] <= when + RECORD_REACH:
                continue
        if pod:
            key = (pod, hit.log_name, hit.symptom)
            previous = last_generic.get(key)
            if previous is not None and when - previous[1] <= RECORD_REACH:
                kept[previous[0]] = hit  # the same record: its later line (the raised one) stands
                previous[1] = when
                continue
            last_generic[key] = [len(kept), when]
        kept.append(hit)
    return kept


def node_pool(node: str) -> Optional[str]:
    """`gke-<cluster>-<pool>-<group>` of a GKE node `gke-<cluster>-<pool>-<group>-<id>`."""
    head, _, tail = node.rpartition("-")
    return head if node.startswith("gke-") and head.count("-") >= 3 and tail else None


def match_rows(
    symptoms: Iterable[Symptom],
    entries: Iterable[Union[EntryFacts, dict[str, Any]]],
    workload: Optional[str] = None,
    store: Optional[EntryStore] = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The matcher's rows (`mlwiki match`, the MCP server's `match_logs`) and signature problems.

    One row per hit (an entry's, or a written record's) × symptom, about `workload` when given, in
    time order. With the `store` the entries end up in, the hits are the diagnosis' own: each
    written record that spans entries matched once, as `mlwiki.diagnose.continuation` reads them
    (its row cites the decisive line, says how many entries the record holds, with its first and
    last, and quotes the lines around it)."""
    from mlwiki.diagnose.continuation import read_records  # it builds on this module

    scan = Scan(SignatureSet(symptoms), Topology(workload))
    scan.add_all(entries)
    scan.finish()
    if store is not None:
        read_records(scan, store)
    hits = sorted(scan.relevant_hits(), key=lambda h: (h.time, h.insert_id, h.symptom))
    return [_row(hit) for hit in hits], list(scan.signatures.problems)


def _row(hit: Hit) -> dict[str, Any]:
    """One row of `match_rows`."""
    row: dict[str, Any] = {
        "insertId": hit.insert_id,
        "timestamp": hit.timestamp,
        "symptom": hit.symptom,
        "role": hit.role,
        "layer": hit.layer,
        "host": hit.host,
        "pod": hit.pod,
        "field": hit.field,
        "captures": hit.captures,
        "quote": hit.quote,
    }
    if hit.record:  # a record of several entries: its size and ends, the lines around the quote
        first, last = hit.record[0], hit.record[-1]
        row["record"] = {"entries": len(hit.record), "first": first, "last": last}
        row["excerpt"] = hit.excerpt
    return row
