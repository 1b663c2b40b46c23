"""Where a run's metrics come from — an offline bundle's `metrics/` or Cloud Monitoring — behind
one `query(filter, aggregation, window)`, so that a bundle answers exactly like the API.

- `BundleMetrics(path)`: every `metrics/*.json` of the bundle folder (each exactly what
  `timeSeries.list` returns), read once and checked (a malformed file is a `BadInput` naming it);
  a query selects the series its filter matches and applies the aggregation locally
  (`mlwiki.metrics.aggregate`). A bundle without `metrics/` answers every query with no series
  and `partial: true` ("the bundle holds no metrics"), never with an empty "all is well".
- `CloudMetrics(project)`: the real client (`mlwiki.metrics.cloud`), one counted call per page.
Both remember what each query returned (`fetched`: name → `{"timeSeries": [...]}`) so that a
diagnosis can cite points, export them into a bundle and hand them off; a bundle's answers are
turned into that JSON only when they are read (`Answers`), not on every query of a diagnosis.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Protocol

from mlwiki.errors import BadInput
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.filter import compile_filter
from mlwiki.metrics.series import Series, merge, response_json, response_series
from mlwiki.timewindow import Window

if TYPE_CHECKING:  # the Cloud Monitoring client's side, imported only when it is used
    from mlwiki.metrics.cloud import Fetched, MetricBudget, MonitoringFetcher

METRICS_DIR = "metrics"
_NAME = re.compile(r"[^a-z0-9]+")


@dataclass
class MetricResult:
    series: list[Series]
    partial: bool = False
    reason: Optional[str] = None
    calls: int = 0
    interval: tuple[float, float] = (0.0, 0.0)


class Answers(MutableMapping[str, dict[str, Any]]):
    """Query answers by export name, each `{"timeSeries": [...]}`; an answer given as series is
    rendered to that JSON the first time it is read."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}

    def __getitem__(self, name: str) -> dict[str, Any]:
        value = self._items[name]
        if isinstance(value, list):
            value = self._items[name] = response_json(value)
        return value  # type: ignore[no-any-return]

    def __setitem__(self, name: str, value: Any) -> None:
        self._items[name] = value

    def __delitem__(self, name: str) -> None:
        del self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class MetricSource(Protocol):
    fetched: MutableMapping[str, dict[str, Any]]
    pod_nodes: Mapping[str, str]

    def query(self, filter_text: str, aggregation: Aggregation, window: Window) -> MetricResult: ...

    def describe(self) -> str: ...


def export_name(filter_text: str, aggregation: Aggregation, taken: dict[str, Any]) -> str:
    """A file stem for a query's answer: its metric type's last two parts (`accelerator-duty-cycle`),
    numbered when another query already took it."""
    metric = compile_filter(filter_text).metric_type
    stem = _NAME.sub("-", "/".join(metric.split("/")[-2:]).lower()).strip("-") or "metric"
    name, number = stem, 2
    while name in taken:
        name, number = f"{stem}-{number}", number + 1
    return name


def metrics_folder(bundle: Path) -> Optional[Path]:
    """The `metrics/` folder of a bundle directory (or of a bundle file's folder is not used:
    a single-file bundle holds no metrics)."""
    folder = bundle / METRICS_DIR if bundle.is_dir() else None
    return folder if folder is not None and folder.is_dir() else None


def read_metrics_json(folder: Path) -> dict[str, Any]:
    """File stem → parsed JSON of every `*.json` in `folder`; BadInput names a bad file."""
    found: dict[str, Any] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            found[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise BadInput(f"{path}: cannot read: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise BadInput(f"{path}: not UTF-8 ({error.reason})") from None
        except json.JSONDecodeError as error:
            raise BadInput(
                f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"
            ) from None
    return found


def read_metrics_folder(folder: Path) -> list[Series]:
    """Every series of every `*.json` in `folder`, merged; BadInput names the bad file."""
    found: list[Series] = []
    for stem, data in read_metrics_json(folder).items():
        found.extend(response_series(data, str(folder / f"{stem}.json")))
    return merge(found)


@dataclass
class BundleMetrics:
    bundle: Path
    pod_nodes: Mapping[str, str] = field(default_factory=dict)
    fetched: Answers = field(default_factory=Answers)
    calls: int = 0
    _series: Optional[list[Series]] = None

    @property
    def folder(self) -> Optional[Path]:
        return metrics_folder(self.bundle)

    @property
    def available(self) -> bool:
        return self.folder is not None

    def all_series(self) -> list[Series]:
        if self._series is None:
            folder = self.folder
            self._series = read_metrics_folder(folder) if folder is not None else []
        return self._series

    def describe(self) -> str:
        return str(self.folder or self.bundle / METRICS_DIR)

    def query(self, filter_text: str, aggregation: Aggregation, window: Window) -> MetricResult:
        compiled = compile_filter(filter_text)
        interval = aggregation.request_interval(window)
        if not self.available:
            return MetricResult(
                [],
                True,
                f"the bundle holds no Cloud Monitoring metrics ({self.bundle / METRICS_DIR}/)",
                interval=interval,
            )
        chosen = [s for s in self.all_series() if compiled.matches(s.labels)]
        series = aggregation.apply(chosen, interval)
        self.fetched[export_name(filter_text, aggregation, self.fetched)] = series
        return MetricResult(series, interval=interval)


@dataclass
class CloudMetrics:
    project: str
    fetcher: Optional[MonitoringFetcher] = None
    pod_nodes: Mapping[str, str] = field(default_factory=dict)
    fetched: dict[str, dict[str, Any]] = field(default_factory=dict)
    _answers: dict[tuple[str, Aggregation], tuple[tuple[float, float], list[Series]]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        if self.fetcher is None:
            from mlwiki.metrics.cloud import MonitoringFetcher

            self.fetcher = MonitoringFetcher(self.project)

    @property
    def calls(self) -> int:
        assert self.fetcher is not None
        return self.fetcher.budget.calls

    @property
    def budget(self) -> MetricBudget:
        assert self.fetcher is not None
        return self.fetcher.budget

    def describe(self) -> str:
        return f"Cloud Monitoring projects/{self.project}"

    def query(self, filter_text: str, aggregation: Aggregation, window: Window) -> MetricResult:
        """One call per page — or none, when a complete answer to the same query over a wider
        interval is at hand (the workflows of a diagnosis ask again about part of its window:
        the grid is the same, so the narrower answer is the wider one's points inside it)."""
        assert self.fetcher is not None
        compile_filter(filter_text)  # a bad filter is bad input before any call
        interval = aggregation.request_interval(window)
        known = self._answers.get((filter_text, aggregation))
        if known is not None and known[0][0] <= interval[0] and interval[1] <= known[0][1]:
            inside = [
                Series(
                    **{
                        **s.__dict__,
                        "points": [p for p in s.points if interval[0] < p.time <= interval[1]],
                    }
                )
                for s in known[1]
            ]
            return MetricResult([s for s in inside if s.points], interval=interval)
        got: Fetched = self.fetcher.fetch(filter_text, aggregation, interval)
        self.fetched[export_name(filter_text, aggregation, self.fetched)] = got.response
        if not got.partial:
            self._answers[(filter_text, aggregation)] = (interval, got.series)
        return MetricResult(got.series, got.partial, got.reason, got.calls, interval)


def write_export(fetched: Mapping[str, dict[str, Any]], out: Path) -> list[Path]:
    """Each query's answer as `OUT/metrics/NAME.json` (what timeSeries.list returns)."""
    folder = out / METRICS_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, response in fetched.items():
            path = folder / f"{name}.json"
            path.write_text(json.dumps(response, indent=1) + "\n", encoding="utf-8")
            written.append(path)
    except OSError as error:
        raise BadInput(f"--out: cannot write {folder}: {error.strerror or error}") from None
    return written


def series_of(response: dict[str, Any], where: str) -> list[Series]:
    return merge(response_series(response, where))


__all__ = [
    "METRICS_DIR",
    "BundleMetrics",
    "CloudMetrics",
    "MetricResult",
    "MetricSource",
    "read_metrics_folder",
    "response_json",
    "series_of",
    "write_export",
]
