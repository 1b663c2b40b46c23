"""What a log source did for a run: calls made, entries kept, and whether the data is partial."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.timewindow import Window


@dataclass
class QueryReport:
    """One server-side query of a collection (all of its pages)."""

    name: str
    filter: str
    calls: int = 0  # requests sent (retries included)
    entries: int = 0
    partial: bool = False
    reason: Optional[str] = None
    pages: int = 0  # pages read, from the API or the page cache
    cached: int = 0  # of which from the page cache (no request)
    retries: int = 0
    refetched: int = 0  # pages read again because a cached page's token had expired
    phase: str = ""
    order: str = "timestamp asc"
    sampled: Optional[float] = None  # the sample() fraction, when the query samples
    window: Optional[Window] = None
    # For a query cut short: how far it got (its last entry's time, oldest first) and the
    # pages still to read, estimated from the pages read.
    reached: Optional[str] = None
    pages_left: int = 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "phase": self.phase,
            "filter": self.filter,
            "order": self.order,
            "calls": self.calls,
            "pages": self.pages,
            "cached": self.cached,
            "retries": self.retries,
            "entries": self.entries,
            "partial": self.partial,
            "reason": self.reason,
        }
        if self.refetched:
            data["refetched"] = self.refetched
        if self.sampled is not None:
            data["sampled"] = self.sampled
        if self.window is not None:
            data["window"] = self.window.to_dict()
        if self.partial:
            data["reached"] = self.reached
            data["pages_left"] = self.pages_left
        return data


@dataclass
class SourceReport:
    """Included in outputs, so a reader can tell complete data from partial data, and why."""

    source: str  # "bundle" or "cloud_logging"
    sources: list[str] = field(default_factory=list)  # bundle files, or projects/P
    window: Optional[Window] = None
    calls: int = 0
    entries: int = 0
    outside_window: int = 0
    duplicates: int = 0
    partial: bool = False
    reasons: list[str] = field(default_factory=list)
    queries: list[QueryReport] = field(default_factory=list)
    # Sources read as a server-side sample: {source, filter, fraction, entries, complete}.
    sampled: list[dict[str, Any]] = field(default_factory=list)

    def mark_partial(self, reason: str) -> None:
        self.partial = True
        if reason not in self.reasons:
            self.reasons.append(reason)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sources": list(self.sources),
            "window": self.window.to_dict() if self.window else None,
            "calls": self.calls,
            "entries": self.entries,
            "outside_window": self.outside_window,
            "duplicates": self.duplicates,
            "partial": self.partial,
            "reasons": list(self.reasons),
            "queries": [query.to_dict() for query in self.queries],
            "sampled": [dict(item) for item in self.sampled],
        }
