"""A run's log data: entries from a bundle or from Cloud Logging, and local queries over them.

`LogSession.from_bundle(path, window)` or `LogSession.from_cloud(project, window, workload)`;
then `session.query(filter_text)` evaluates any Logging query on the run's entries and returns a
`QueryResult(entries, count, partial, reason)`. With Cloud Logging, `collect` fetches the window
once with the broad plan of `mlwiki.logs.plan`; a filter the plan does not cover is fetched once
with its own (well-filtered) query, and counted. `session.report` says what was done.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from mlwiki.logs.bundle import load_bundle
from mlwiki.logs.cloud import LoggingFetcher, RequestBudget, RetryPolicy, make_client
from mlwiki.logs.plan import Coverage, PlannedQuery, cluster_query, node_queries, workload_query
from mlwiki.logs.query import compile_filter
from mlwiki.logs.report import SourceReport
from mlwiki.logs.store import EntryStore
from mlwiki.progress import Progress
from mlwiki.timewindow import Window, datetime_from_ns


@dataclass(frozen=True)
class CollectionContext:
    project: str
    window: Window
    workload: str


@dataclass
class QueryResult:
    entries: list[dict[str, Any]]
    count: int
    partial: bool
    reason: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "count": self.count,
            "partial": self.partial,
            "reason": self.reason,
        }


def _run(
    query: PlannedQuery,
    window: Window,
    fetcher: LoggingFetcher,
    store: EntryStore,
    report: SourceReport,
) -> None:
    entries, query_report = fetcher.fetch(query.name, query.filter, window)
    added = store.extend(entries)
    report.queries.append(query_report)
    report.entries += added
    report.duplicates += len(entries) - added
    report.calls = fetcher.budget.calls
    if query_report.partial and query_report.reason:
        report.mark_partial(query_report.reason)


def collect(
    fetcher: LoggingFetcher, context: CollectionContext
) -> tuple[EntryStore, SourceReport, Coverage]:
    """Fetch the run's window with the broad plan: workload, then its nodes, then the cluster."""
    store = EntryStore()
    report = SourceReport(
        source="cloud_logging", sources=[f"projects/{context.project}"], window=context.window
    )
    coverage = Coverage(context.window)
    first = workload_query(context.workload)
    _run(first, context.window, fetcher, store, report)
    coverage.add(first)
    for query in [*node_queries(store.hosts(), context.workload), cluster_query()]:
        _run(query, context.window, fetcher, store, report)
        coverage.add(query)
    return store, report, coverage


class LogSession:
    """The entries of one run and the report of how they were obtained."""

    def __init__(
        self,
        store: EntryStore,
        report: SourceReport,
        fetcher: Optional[LoggingFetcher] = None,
        coverage: Optional[Coverage] = None,
    ) -> None:
        self.store = store
        self.report = report
        self._fetcher = fetcher
        self._coverage = coverage
        self._fetched_extra: set[str] = set()

    @classmethod
    def from_bundle(cls, path: Path | str, window: Optional[Window] = None) -> LogSession:
        store, report = load_bundle(path, window)
        return cls(store, report)

    @classmethod
    def from_cloud(
        cls,
        project: str,
        window: Window,
        workload: str,
        *,
        client: Any = None,
        retry: Optional[RetryPolicy] = None,
        budget: Optional[RequestBudget] = None,
        max_entries: Optional[int] = None,
        progress: Optional[Progress] = None,
    ) -> LogSession:
        fetcher = LoggingFetcher(
            client=client if client is not None else make_client(project),
            project=project,
            retry=retry or RetryPolicy(),
            budget=budget or RequestBudget(),
            progress=progress,
        )
        if max_entries is not None:
            fetcher.max_entries = max_entries
        store, report, coverage = collect(fetcher, CollectionContext(project, window, workload))
        return cls(store, report, fetcher, coverage)

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every entry of the run, oldest first (for one-pass signature matching)."""
        return self.store.entries()

    def query(self, filter_text: str, where: str = "filter") -> QueryResult:
        """Entries matching a Logging query, ordered by timestamp then insertId."""
        compiled = compile_filter(filter_text, where)
        if (
            self._fetcher is not None
            and self._coverage is not None
            and filter_text not in self._fetched_extra
            and not self._coverage.covers(compiled)
        ):
            self._fetch_extra(filter_text)
        entries = self.store.query(compiled)
        reason = "; ".join(self.report.reasons) or None
        return QueryResult(entries, len(entries), self.report.partial, reason)

    def _fetch_extra(self, filter_text: str) -> None:
        assert self._fetcher is not None and self._coverage is not None
        compiled = compile_filter(filter_text)
        window = self._coverage.window
        low, high = compiled.start_ns, compiled.end_ns
        if low is not None and high is not None and low < high:
            # The filter's own bounds, so a query about another period is answered for it.
            window = Window(datetime_from_ns(low), datetime_from_ns(high))
        self._fetched_extra.add(filter_text)
        query = PlannedQuery(f"extra-{len(self._fetched_extra)}", filter_text)
        _run(query, window, self._fetcher, self.store, self.report)
