"""A run's log data: entries from a bundle or from Cloud Logging, and local queries over them.

`LogSession.from_bundle(path, window)`, `LogSession.from_cloud(project, window, workload,
patterns=…)` or `LogSession.as_live(path, window, workload, patterns=…)` (a bundle read the way
the live plan reads Cloud Logging); then `session.query(filter_text)` evaluates any Logging query
on the run's entries and returns a `QueryResult(entries, count, partial, reason)`. With Cloud
Logging the window is collected once by the live plan (`mlwiki.logs.live`); a filter the
entries it read whole do not cover is fetched once with its own (well-filtered) query, and
counted. `session.report` says what was done.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from mlwiki.logs.bundle import load_bundle
from mlwiki.logs.query import Filter, compile_filter
from mlwiki.logs.report import SourceReport
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import Window, datetime_from_ns

# The live plan's modules are imported by the methods that read the way it does: a bundle read
# whole (every offline diagnosis) never loads them.
if TYPE_CHECKING:
    from mlwiki.logs.cloud import RequestBudget, RetryPolicy
    from mlwiki.logs.live import LiveCollection
    from mlwiki.progress import Progress


def _patterns_or_wiki(patterns: Optional[Sequence[str]]) -> Sequence[str]:
    if patterns is not None:
        return patterns
    from mlwiki.logs.plan import text_patterns
    from mlwiki.wiki import load_wiki

    return text_patterns(load_wiki().symptoms.values())[0]


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


class LogSession:
    """The entries of one run and the report of how they were obtained."""

    def __init__(
        self, store: EntryStore, report: SourceReport, live: Optional[LiveCollection] = None
    ) -> None:
        self.store = store
        self.report = report
        # The live plan's collection: what it read whole (coverage), its pager for the filters
        # that covers nothing of, its follow-up and samples. None for a bundle read whole.
        self.live = live
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
        patterns: Optional[Sequence[str]] = None,
        cache: bool = True,
    ) -> LogSession:
        """Collect `window` with the live plan; `patterns` are the signatures' RE2 patterns
        (`mlwiki.logs.plan.text_patterns`) that a source too big to read whole is searched for,
        by default those of the wiki found from the current directory."""
        from mlwiki.logs.cache import PageCache, disabled_by_env
        from mlwiki.logs.cloud import LoggingFetcher, RequestBudget, RetryPolicy, make_client
        from mlwiki.logs.live import LiveCollection

        fetcher = LoggingFetcher(
            client=client if client is not None else make_client(project),
            project=project,
            retry=retry or RetryPolicy(),
            budget=budget or RequestBudget(),
            progress=progress,
            cache=PageCache() if cache and not disabled_by_env() else None,
        )
        if max_entries is not None:
            fetcher.max_entries = max_entries
        report = SourceReport(
            source="cloud_logging", sources=[f"projects/{project}"], window=window
        )
        live = LiveCollection(
            fetcher,
            workload,
            window,
            _patterns_or_wiki(patterns),
            report=report,
            max_entries=fetcher.max_entries,
            progress=progress,
        )
        live.run()
        return cls(live.store, report, live)

    @classmethod
    def as_live(
        cls,
        path: Path | str,
        window: Window,
        workload: str,
        *,
        budget: Optional[RequestBudget] = None,
        max_entries: Optional[int] = None,
        patterns: Optional[Sequence[str]] = None,
    ) -> LogSession:
        """The bundle's entries the live plan would fetch from Cloud Logging, page for page."""
        from mlwiki.logs.bundle import iter_bundle
        from mlwiki.logs.cloud import RequestBudget
        from mlwiki.logs.live import LiveCollection, LocalPager
        from mlwiki.logs.local import LocalLogging

        pager = LocalPager(LocalLogging(iter_bundle(path)), budget or RequestBudget())
        report = SourceReport(source="bundle (as live)", sources=[str(path)], window=window)
        live = LiveCollection(
            pager,
            workload,
            window,
            _patterns_or_wiki(patterns),
            report=report,
            max_entries=max_entries,
        )
        live.run()
        return cls(live.store, report, live)

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every entry of the run, oldest first (for one-pass signature matching)."""
        return self.store.entries()

    def query(self, filter_text: str, where: str = "filter") -> QueryResult:
        """Entries matching a Logging query, ordered by timestamp then insertId."""
        compiled = compile_filter(filter_text, where)
        if (
            self.live is not None
            and filter_text not in self._fetched_extra
            and not self.live.coverage.covers(compiled)
        ):
            self._fetch_extra(compiled)
        entries = self.store.query(compiled)
        reason = "; ".join(self.report.reasons) or None
        return QueryResult(entries, len(entries), self.report.partial, reason)

    def _fetch_extra(self, compiled: Filter) -> None:
        from mlwiki.logs.plan import MAX_FILTER_CHARS, wrapped
        from mlwiki.logs.split import split_filter

        assert self.live is not None
        window = self.live.window
        low, high = compiled.start_ns, compiled.end_ns
        if low is not None and high is not None and low < high:
            # The filter's own bounds, so a query about another period is answered for it.
            window = Window(datetime_from_ns(low), datetime_from_ns(high))
        self._fetched_extra.add(compiled.text)
        # A step's filter grows with the wiki's signatures: over the API's limit it is sent as
        # parts whose union selects the same entries (mlwiki.logs.split).
        room = MAX_FILTER_CHARS - len(wrapped(window, ""))
        parts = split_filter(compiled.text, room, "a workflow step's filter")
        for number, part in enumerate(parts, 1):
            suffix = f".{number}" if len(parts) > 1 else ""
            self.live.extra(f"extra-{len(self._fetched_extra)}{suffix}", part, window)
