"""Where a diagnosis gets its entries: an offline bundle or Cloud Logging, and the log session.

Both paths end in the same `EntryStore` (deduplicated, synthetic insertIds for entries without
one), so a bundle is diagnosed exactly like the same entries served by Cloud Logging, and the
verification workflows query the very entries the diagnosis matched. For a bundle the store is
filled during the diagnosis' single pass (each new entry is stored, as an offset into its file,
and matched as it is read). The pass reads `EntryFacts` (`mlwiki.logs.entry`): `facts_of(entry)`
makes them from a LogEntry dict (e.g. from a page of Cloud Logging), `EntryStore.facts()` from
stored entries, `mlwiki.logs.bundle.iter_facts` from a bundle's raw bytes.

Cloud Logging is read by the live plan (`mlwiki.logs.live`): whole when the job is small, its
evidence pushed down into server-side filters when it is not. Then the collection can follow
up (`Collection.follow_up`): after a first diagnosis, the full context of the culprit hosts
around each disruption (`context_targets`), and the diagnosis runs again over everything read.
`from_bundle_as_live` reads a bundle the way the live plan reads Cloud Logging (the same
filters, pages, samples and budget, evaluated locally), so an online run can be reproduced and
a bundle exported with the plan's own filters diagnoses like the live run.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from mlwiki.logs.bundle import iter_bundle, iter_facts
from mlwiki.logs.entry import EntryFacts
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import Window

if TYPE_CHECKING:
    from mlwiki.diagnose.disruptions import Disruption
    from mlwiki.diagnose.match import Scan
    from mlwiki.logs.plan import ContextTarget
    from mlwiki.wiki import Wiki

MAX_FOLLOW_UPS = 2  # rounds of culprit context: a second round for culprits the first revealed
MAX_RECORD_WINDOWS = 20  # stretches of time around unnamed matches whose records are fetched


@dataclass
class Collection:
    """The run's entries (their facts, as a one-pass iterator) and the store they end up in."""

    entries: Iterator[EntryFacts]
    store: EntryStore
    sources: list[str]
    window: Optional[tuple[float, float]]
    partial: bool
    reasons: list[str]
    session: Any = None  # mlwiki.logs.session.LogSession, when already made
    bundle: Optional[Path] = None
    # Bundle entries left out because they fall outside the window: (count, first, last time).
    outside: list[float] = field(default_factory=list)
    metrics: Any = None  # mlwiki.metrics.source: the bundle's metrics/ or Cloud Monitoring
    # The live plan's follow-up: fetch the culprits' context, returning how many entries it added.
    follow_up: Optional[Callable[[list[ContextTarget], list[Window]], int]] = None
    follow_ups: int = 0
    sampled: list[dict[str, Any]] = field(default_factory=list)  # sources read as a sample
    rerun: Optional[str] = None  # the command that completes a partial live collection

    def refreshed(self) -> Collection:
        """The same collection to be read again from its store (after a follow-up added to it)."""
        report = self.session.report if self.session is not None else None
        return Collection(
            self.store.facts(),
            self.store,
            self.sources,
            self.window,
            report.partial if report is not None else self.partial,
            list(report.reasons) if report is not None else self.reasons,
            session=self.session,
            bundle=self.bundle,
            outside=self.outside,
            follow_up=self.follow_up if self.follow_ups + 1 < MAX_FOLLOW_UPS else None,
            follow_ups=self.follow_ups + 1,
            metrics=self.metrics,
            sampled=self.sampled,
            rerun=self.rerun,
        )


def _window_bounds(window: Optional[Window]) -> Optional[tuple[float, float]]:
    return (window.start.timestamp(), window.end.timestamp()) if window else None


def from_bundle(path: Path | str, window: Optional[Window] = None) -> Collection:
    store = EntryStore()
    bounds = _window_bounds(window)

    outside: list[float] = []  # [count, first, last] of entries outside the window

    def entries() -> Iterator[EntryFacts]:
        for facts in iter_facts(path, store):
            when = facts.time
            if bounds is not None and not bounds[0] <= when <= bounds[1]:
                if outside:
                    outside[0] += 1
                    outside[1], outside[2] = min(outside[1], when), max(outside[2], when)
                else:
                    outside.extend([1, when, when])
                continue
            if store.add_facts(facts):
                yield facts

    from mlwiki.metrics.source import BundleMetrics

    return Collection(
        entries(),
        store,
        [str(path)],
        bounds,
        False,
        [],
        bundle=Path(path),
        outside=outside,
        metrics=BundleMetrics(Path(path)),
    )


def signature_patterns(wiki: Optional[Wiki]) -> list[str]:
    """The signature set's RE2 patterns, for the server-side filters of the live plan."""
    from mlwiki.diagnose.signatures import signature_set
    from mlwiki.logs.plan import text_patterns
    from mlwiki.wiki import load_wiki

    symptoms = (wiki or load_wiki()).symptoms.values()
    # The set the diagnosis then scans with (`signature_set`): compiled once for both.
    return text_patterns(signature_set(symptoms).symptoms.values())[0]


def _live_collection(session: Any, window: Window, sources: list[str]) -> Collection:
    report = session.report
    live = session.live
    return Collection(
        session.store.facts(),
        session.store,
        sources,
        _window_bounds(window),
        report.partial,
        list(report.reasons),
        session=session,
        follow_up=live.follow_up if live is not None and live.pushed_down else None,
        sampled=list(report.sampled),
    )


def from_cloud(
    workload: Optional[str],
    project: Optional[str],
    window: Optional[Window],
    *,
    max_calls: Optional[int] = None,
    max_entries: Optional[int] = None,
    wiki: Optional[Wiki] = None,
    cache: bool = True,
) -> Collection:
    """Entries from Cloud Logging through the live plan (`mlwiki.logs.live`).

    `max_calls` caps the entries.list requests (paced under the read quota of 60 a minute per
    project) and `max_entries` the entries kept; reaching either makes the data partial, never
    silently short, and the collection's `rerun` names the command that completes it.
    """
    from mlwiki.errors import BadInput
    from mlwiki.logs.cloud import RequestBudget
    from mlwiki.logs.session import LogSession
    from mlwiki.metrics.source import CloudMetrics
    from mlwiki.timewindow import resolve_window

    if not project:
        raise BadInput("--project: needed to read Cloud Logging (or give --bundle)")
    if not workload:
        raise BadInput("WORKLOAD: needed to read Cloud Logging (the plan selects its entries)")
    window = window or resolve_window()
    session = LogSession.from_cloud(
        project,
        window,
        workload,
        budget=RequestBudget(max_calls) if max_calls else None,
        max_entries=max_entries,
        patterns=signature_patterns(wiki),
        cache=cache,
    )
    collection = _live_collection(session, window, list(session.report.sources))
    collection.rerun = rerun_command(session, workload, project, window)
    collection.metrics = CloudMetrics(project)
    return collection


def from_bundle_as_live(
    path: Path | str,
    workload: str,
    window: Optional[Window],
    *,
    max_calls: Optional[int] = None,
    max_entries: Optional[int] = None,
    wiki: Optional[Wiki] = None,
) -> Collection:
    """The bundle's entries as the live plan would fetch them from Cloud Logging."""
    from mlwiki.logs.cloud import RequestBudget
    from mlwiki.logs.session import LogSession

    window = window or _span(path)
    session = LogSession.as_live(
        path,
        window,
        workload,
        budget=RequestBudget(max_calls) if max_calls else None,
        max_entries=max_entries,
        patterns=signature_patterns(wiki),
    )
    from mlwiki.metrics.source import BundleMetrics

    collection = _live_collection(session, window, [str(path)])
    collection.bundle = Path(path)
    collection.metrics = BundleMetrics(Path(path))
    return collection


def _span(path: Path | str) -> Window:
    """A bundle's first to last entry, widened to whole seconds (the window of an as-live read)."""
    from mlwiki.errors import BadInput
    from mlwiki.timewindow import datetime_from_ns, timestamp_ns

    times = [t for t in (timestamp_ns(e.get("timestamp")) for e in iter_bundle(path)) if t]
    if not times:
        raise BadInput(f"--bundle {path}: no entry has a timestamp; give --start/--end")
    second = 10**9
    return Window(
        datetime_from_ns(min(times) // second * second),
        datetime_from_ns((max(times) // second + 1) * second),
    )


def rerun_command(session: Any, workload: str, project: str, window: Window) -> Optional[str]:
    """The `mlwiki troubleshoot` that completes a partial live collection: the same window with
    the request budget the missing pages need (fetched pages come back from the page cache)."""
    from mlwiki.timewindow import format_timestamp

    live = session.live
    calls = live.rerun_calls() if live is not None else None
    if calls is None:
        return None
    return shlex.join(
        [
            "mlwiki", "troubleshoot", workload, "--project", project,
            "--start", format_timestamp(window.start), "--end", format_timestamp(window.end),
            "--max-log-calls", str(calls),
        ]
    )  # fmt: skip


def record_windows(scan: Scan) -> list[Window]:
    """Where a matched line's record goes on in entries no signature matches: around each
    workload hit whose named group (the task, the host) was left empty — the name is on the
    next line, which the agent wrote as an entry of its own (`mlwiki.diagnose.continuation`)."""
    from mlwiki.diagnose.continuation import REACH
    from mlwiki.timewindow import datetime_from_ns

    spans: list[list[float]] = []
    for hit in sorted(scan.relevant_hits(), key=lambda h: h.time):
        if not hit.incomplete or hit.captures or hit.pod not in scan.topology.pods:
            continue
        if spans and hit.time - REACH <= spans[-1][1]:
            spans[-1][1] = hit.time + REACH
        else:
            spans.append([hit.time - REACH, hit.time + REACH])
    return [
        Window(datetime_from_ns(int(a * 1e9)), datetime_from_ns(int(b * 1e9)))
        for a, b in spans[:MAX_RECORD_WINDOWS]
    ]


def context_targets(disruptions: list[Disruption], scan: Scan) -> list[ContextTarget]:
    """For each disruption: its culprit hosts (else the hosts its seeds name) and pods, and the
    hosts the platform reported trouble on (a preemption, a host error, NotReady) shortly before
    or during it that the entries read so far do not tie to the workload — is the workload there?
    Each from `CONTEXT_BEFORE` before the disruption to `CONTEXT_AFTER` after its last seed."""
    from mlwiki.diagnose.disruptions import from_infra_source
    from mlwiki.diagnose.match import ROOT
    from mlwiki.logs.live import MAX_HOSTS
    from mlwiki.logs.plan import CONTEXT_AFTER, CONTEXT_BEFORE, ContextTarget
    from mlwiki.timewindow import datetime_from_ns

    known = scan.workload_nodes()
    targets = []
    for disruption in disruptions:
        hosts = [c.host for c in disruption.culprits if c.host]
        pods = [c.pod for c in disruption.culprits if c.pod]
        if not hosts:
            hosts = [h.host for h in disruption.seeds if h.host]
            pods = [h.pod for h in disruption.seeds if h.pod]
        start = disruption.time - CONTEXT_BEFORE
        troubled = sorted(
            (abs(disruption.time - hit.time), hit.host)
            for hit in scan.hits
            if hit.host
            and hit.host not in known
            and hit.role == ROOT
            and from_infra_source(hit)
            and start <= hit.time <= disruption.end
        )
        hosts = list(dict.fromkeys(hosts))[:MAX_HOSTS]  # the disruption's own hosts first
        flagged: list[str] = []
        for _, host in troubled:
            if len(flagged) >= MAX_HOSTS:
                break
            if host not in hosts and host not in flagged:
                flagged.append(host)
        hosts.extend(flagged)
        if not hosts:
            continue
        window = Window(
            datetime_from_ns(int(start * 1e9)),
            datetime_from_ns(int((disruption.end + CONTEXT_AFTER) * 1e9)),
        )
        own = tuple(dict.fromkeys(pods))[:MAX_HOSTS]
        failed_at = int(disruption.start * 1e9)
        targets.append(ContextTarget(tuple(hosts), own, window, tuple(flagged), failed_at))
    return targets


def session_of(collection: Collection) -> Any:
    """The log session over the collection's store (after the pass has filled it)."""
    from mlwiki.logs.report import SourceReport
    from mlwiki.logs.session import LogSession

    if collection.session is None:
        report = SourceReport(source="bundle", sources=collection.sources)
        report.entries = len(collection.store)
        collection.session = LogSession(collection.store, report)
    return collection.session


def window_from_flags(args: Any) -> Optional[Window]:
    """The window of --start/--end/--since; None when no flag is given (a bundle is read whole)."""
    from mlwiki.timewindow import resolve_window

    if args.start is None and args.end is None and args.since is None:
        return None
    return resolve_window(args.start, args.end, args.since)


def collection_for(workload: Optional[str], args: Any, wiki: Optional[Wiki] = None) -> Collection:
    """The collection the CLI flags describe (`--bundle` [`--as-live`] or `--project` with a
    window; `--no-cache`, `--max-log-calls`, `--max-entries`)."""
    window = window_from_flags(args)
    if wiki is None:
        from mlwiki.wiki import find_wiki_root, load_wiki

        wiki = load_wiki(find_wiki_root(explicit=getattr(args, "wiki", None)))
    max_calls = getattr(args, "max_log_calls", None)
    max_entries = getattr(args, "max_entries", None)
    if args.bundle is not None:
        if getattr(args, "as_live", False):
            if not workload:
                from mlwiki.errors import BadInput

                raise BadInput("--as-live: needs the workload (the plan selects its entries)")
            return from_bundle_as_live(
                args.bundle,
                str(workload),
                window,
                max_calls=max_calls,
                max_entries=max_entries,
                wiki=wiki,
            )
        return from_bundle(args.bundle, window)
    return from_cloud(
        workload,
        args.project,
        window,
        max_calls=max_calls,
        max_entries=max_entries,
        wiki=wiki,
        cache=not getattr(args, "no_cache", False),
    )
