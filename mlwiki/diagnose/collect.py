"""Where a diagnosis gets its entries: an offline bundle or Cloud Logging, and the log session.

Both paths end in the same `EntryStore` (deduplicated, synthetic insertIds for entries without
one), so a bundle is diagnosed exactly like the same entries served by Cloud Logging, and the
verification workflows query the very entries the diagnosis matched. For a bundle the store is
filled during the diagnosis' single pass (each new entry is stored, as an offset into its file,
and matched as it is read). The pass reads `EntryFacts` (`mlwiki.logs.entry`): `facts_of(entry)`
makes them from a LogEntry dict (e.g. from a page of Cloud Logging), `EntryStore.facts()` from
stored entries, `mlwiki.logs.bundle.iter_facts` from a bundle's raw bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from mlwiki.logs.bundle import iter_facts
from mlwiki.logs.entry import EntryFacts
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import Window


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


def from_cloud(
    workload: Optional[str],
    project: Optional[str],
    window: Optional[Window],
    *,
    max_calls: Optional[int] = None,
    max_entries: Optional[int] = None,
) -> Collection:
    """Entries from Cloud Logging through the log session's few broad queries (`mlwiki.logs.plan`).

    `max_calls` caps the entries.list requests (the read quota is 60 a minute per project) and
    `max_entries` the entries kept; reaching either makes the data partial, never silently short.
    """
    from mlwiki.errors import BadInput
    from mlwiki.logs.cloud import RequestBudget
    from mlwiki.logs.session import LogSession
    from mlwiki.metrics.source import CloudMetrics
    from mlwiki.timewindow import resolve_window

    if not project:
        raise BadInput("--project: needed to read Cloud Logging (or give --bundle)")
    if not workload:
        raise BadInput("WORKLOAD: needed to read Cloud Logging (the broad queries select it)")
    window = window or resolve_window()
    session = LogSession.from_cloud(
        project,
        window,
        workload,
        budget=RequestBudget(max_calls) if max_calls else None,
        max_entries=max_entries,
    )
    report = session.report
    return Collection(
        session.store.facts(),
        session.store,
        list(report.sources),
        _window_bounds(window),
        report.partial,
        list(report.reasons),
        session=session,
        metrics=CloudMetrics(project),
    )


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


def collection_for(workload: Optional[str], args: Any) -> Collection:
    """The collection the CLI flags describe (`--bundle` or `--project` with a window)."""
    window = window_from_flags(args)
    if args.bundle is not None:
        return from_bundle(args.bundle, window)
    return from_cloud(
        workload,
        args.project,
        window,
        max_calls=getattr(args, "max_log_calls", None),
        max_entries=getattr(args, "max_entries", None),
    )
