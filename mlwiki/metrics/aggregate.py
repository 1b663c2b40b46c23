"""Alignment and reduction of time series, as `timeSeries.list`'s `aggregation` does it.

An `Aggregation` is what a `metric_query` action declares (`alignment_period`,
`per_series_aligner`, `cross_series_reducer`, `group_by_fields`) and what is sent to Cloud
Monitoring. The same rules applied here let an offline bundle answer the query as the API does:

- Alignment divides the request interval into periods that end at the interval's end time and
  go back by `alignment_period`; a point belongs to the period `(end - period, end]` its own end
  time falls in, and each period with points gives one aligned point stamped with the period's
  end (ALIGN_MEAN, MIN, MAX, SUM, COUNT, NEXT_OLDER — the newest point in the period).
- The request interval is widened to whole periods since the epoch (`request_interval`), so
  periods end on the same instants whoever computes them: the live query, a re-aligned bundle
  export, and `verify` re-reading a cited point. Re-aligning aligned points is then the identity
  for every aligner but COUNT, which is why a bundle that holds an export replays the same.
- Reduction combines, per aligned instant, the series that agree on `group_by_fields`
  (REDUCE_MEAN, MIN, MAX, SUM, COUNT); the reduced series keep only those labels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional

from mlwiki.errors import BadInput
from mlwiki.metrics.filter import LABEL_SECTIONS
from mlwiki.metrics.series import Point, Series
from mlwiki.timewindow import Window

ALIGNERS = (
    "ALIGN_NONE",
    "ALIGN_MEAN",
    "ALIGN_MIN",
    "ALIGN_MAX",
    "ALIGN_SUM",
    "ALIGN_COUNT",
    "ALIGN_NEXT_OLDER",
)
REDUCERS = ("REDUCE_NONE", "REDUCE_MEAN", "REDUCE_MIN", "REDUCE_MAX", "REDUCE_SUM", "REDUCE_COUNT")
MIN_PERIOD = 60  # GKE system metrics are sampled every 60 s: a shorter period aligns nothing
DEFAULT_PERIOD = 60

_COMBINE: dict[str, Callable[[Sequence[float]], float]] = {
    "MEAN": lambda values: math.fsum(values) / len(values),
    "MIN": min,
    "MAX": max,
    "SUM": math.fsum,
    "COUNT": lambda values: float(len(values)),
    "NEXT_OLDER": lambda values: values[-1],
}


@dataclass(frozen=True)
class Aggregation:
    period: int = DEFAULT_PERIOD  # seconds
    aligner: str = "ALIGN_MEAN"
    reducer: str = "REDUCE_NONE"
    group_by: tuple[str, ...] = ()

    @classmethod
    def from_spec(cls, data: Optional[Mapping[str, Any]], where: str) -> Aggregation:
        """The `aggregation` object of a metric_query action; BadInput naming the field."""
        data = data or {}
        period_text = str(data.get("alignment_period", f"{DEFAULT_PERIOD}s"))
        if not period_text.endswith("s") or not period_text[:-1].isdigit():
            raise BadInput(f"{where}.alignment_period: {period_text!r} is not seconds like '60s'")
        period = int(period_text[:-1])
        if period < MIN_PERIOD or period % MIN_PERIOD:
            raise BadInput(
                f"{where}.alignment_period: {period_text} must be a whole number of minutes "
                f"(at least {MIN_PERIOD}s: the metrics are sampled every minute)"
            )
        aligner = str(data.get("per_series_aligner", "ALIGN_MEAN"))
        reducer = str(data.get("cross_series_reducer", "REDUCE_NONE"))
        if aligner not in ALIGNERS:
            raise BadInput(
                f"{where}.per_series_aligner: {aligner!r} is not one of {', '.join(ALIGNERS)}"
            )
        if reducer not in REDUCERS:
            raise BadInput(
                f"{where}.cross_series_reducer: {reducer!r} is not one of {', '.join(REDUCERS)}"
            )
        group_by = tuple(str(f) for f in data.get("group_by_fields") or ())
        if reducer != "REDUCE_NONE" and aligner == "ALIGN_NONE":
            raise BadInput(
                f"{where}: a cross_series_reducer needs a per_series_aligner other than ALIGN_NONE"
            )
        if group_by and reducer == "REDUCE_NONE":
            raise BadInput(f"{where}.group_by_fields: grouping needs a cross_series_reducer")
        for name in group_by:
            label_field(name, f"{where}.group_by_fields")
        return cls(period, aligner, reducer, group_by)

    def to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "alignment_period": f"{self.period}s",
            "per_series_aligner": self.aligner,
            "cross_series_reducer": self.reducer,
        }
        if self.group_by:
            spec["group_by_fields"] = list(self.group_by)
        return spec

    def to_request(self) -> dict[str, Any]:
        """The `aggregation` of a ListTimeSeriesRequest (proto field names)."""
        request: dict[str, Any] = {"per_series_aligner": self.aligner}
        if self.aligner != "ALIGN_NONE":
            request["alignment_period"] = {"seconds": self.period}
        if self.reducer != "REDUCE_NONE":
            request["cross_series_reducer"] = self.reducer
            request["group_by_fields"] = list(self.group_by)
        return request

    def request_interval(self, window: Window) -> tuple[float, float]:
        """(start, end) in epoch seconds: the window widened to whole periods."""
        start, end = window.start.timestamp(), window.end.timestamp()
        return (
            math.floor(start / self.period) * self.period,
            math.ceil(end / self.period) * self.period,
        )

    def apply(self, series: Iterable[Series], interval: tuple[float, float]) -> list[Series]:
        """The series as the API returns them for this aggregation over `interval`."""
        start, end = interval
        inside = [_within(s, start, end) for s in series]
        if self.aligner == "ALIGN_NONE":
            return inside
        aligned = [_align(s, self.aligner, self.period, end) for s in inside]
        aligned = [s for s in aligned if s.points]
        if self.reducer == "REDUCE_NONE":
            return aligned
        return _reduce(aligned, self.reducer, self.group_by)


def label_field(name: str, where: str) -> tuple[str, str]:
    """A group-by field (`resource.label.pod_name`, `metric.labels.accelerator_id`,
    `metadata.system_labels.node_name`) as (section, key)."""
    parts = name.split(".", 2)
    if len(parts) == 3 and tuple(parts[:2]) in LABEL_SECTIONS:
        return LABEL_SECTIONS[(parts[0], parts[1])], parts[2].strip('"')
    raise BadInput(f"{where}: {name!r} is not a label field like resource.label.pod_name")


def _within(series: Series, start: float, end: float) -> Series:
    return _with_points(series, [p for p in series.points if start < p.time <= end])


def _with_points(series: Series, points: list[Point], value_type: Optional[str] = None) -> Series:
    return Series(
        **{
            **series.__dict__,
            "points": points,
            "value_type": value_type or series.value_type,
        }
    )


def _output_type(function: str, given: str) -> str:
    if function == "MEAN":
        return "DOUBLE"
    if function == "COUNT":
        return "INT64"
    return given


def _align(series: Series, aligner: str, period: int, end: float) -> Series:
    function = aligner[len("ALIGN_") :]
    buckets: dict[float, list[float]] = {}
    for point in series.points:  # oldest first, so NEXT_OLDER takes the newest of a period
        periods_back = math.floor((end - point.time) / period)
        bucket_end = end - periods_back * period
        buckets.setdefault(bucket_end, []).append(point.value)
    combine = _COMBINE[function]
    points = [Point(t, combine(values)) for t, values in sorted(buckets.items())]
    return _with_points(series, points, _output_type(function, series.value_type))


def _reduce(series: list[Series], reducer: str, group_by: tuple[str, ...]) -> list[Series]:
    function = reducer[len("REDUCE_") :]
    fields = [label_field(name, "group_by_fields") for name in group_by]
    groups: dict[tuple[Optional[str], ...], list[Series]] = {}
    for item in series:
        read = item.labels  # one reader a series, asked for every field
        groups.setdefault(tuple(read(section, key) for section, key in fields), []).append(item)
    combine = _COMBINE[function]
    reduced = []
    for key, members in groups.items():
        by_time: dict[float, list[float]] = {}
        for member in members:
            for point in member.points:
                by_time.setdefault(point.time, []).append(point.value)
        kept: dict[str, dict[str, str]] = {"metric": {}, "resource": {}, "system": {}, "user": {}}
        for (section, label), value in zip(fields, key):
            if value is not None:
                kept[section][label] = value
        first = members[0]
        reduced.append(
            Series(
                metric_type=first.metric_type,
                metric_labels=kept["metric"],
                resource_type=first.resource_type,
                resource_labels=kept["resource"],
                points=[Point(t, combine(v)) for t, v in sorted(by_time.items())],
                metric_kind=first.metric_kind,
                value_type=_output_type(function, first.value_type),
                system_labels=kept["system"],
                user_labels=kept["user"],
                unit=first.unit,
            )
        )
    return reduced
