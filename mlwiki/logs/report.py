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
    calls: int = 0
    entries: int = 0
    partial: bool = False
    reason: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "filter": self.filter,
            "calls": self.calls,
            "entries": self.entries,
            "partial": self.partial,
            "reason": self.reason,
        }


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
        }
