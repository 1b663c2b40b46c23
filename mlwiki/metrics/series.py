"""Time series as `projects.timeSeries.list` returns them, read into typed objects and back.

The JSON form is the REST one (`{"timeSeries": [{"metric": {"type", "labels"}, "resource":
{"type", "labels"}, "metadata"?, "metricKind", "valueType", "points": [{"interval": {"startTime"?,
"endTime"}, "value": {"doubleValue" | "int64Value" | "boolValue"}}]}]}`, points newest first):
exactly what a bundle's `metrics/*.json` holds and what the gRPC client's responses turn into
(`proto.Message.to_json`). Inside, points are kept oldest first as (epoch seconds, value).
A malformed file is a `BadInput` naming the file, the series and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional

from mlwiki.errors import BadInput
from mlwiki.metrics.filter import Labels, labels_reader
from mlwiki.timewindow import NS_PER_SECOND, format_timestamp, timestamp_ns

VALUE_FIELDS = ("doubleValue", "int64Value", "boolValue")


def iso(seconds: float) -> str:
    """Epoch seconds as the RFC 3339 UTC text the API and the findings use."""
    return format_timestamp(datetime.fromtimestamp(seconds, tz=timezone.utc))


@dataclass(frozen=True)
class Point:
    time: float  # the end of the point's interval, epoch seconds
    value: float


@dataclass
class Series:
    metric_type: str
    metric_labels: dict[str, str]
    resource_type: str
    resource_labels: dict[str, str]
    points: list[Point] = field(default_factory=list)  # oldest first
    metric_kind: str = "GAUGE"
    value_type: str = "DOUBLE"
    system_labels: dict[str, str] = field(default_factory=dict)
    user_labels: dict[str, str] = field(default_factory=dict)
    unit: str = ""

    @property
    def labels(self) -> Labels:
        return labels_reader(
            {
                "metric": {"type": self.metric_type, "labels": self.metric_labels},
                "resource": {"type": self.resource_type, "labels": self.resource_labels},
                "metadata": {"systemLabels": self.system_labels, "userLabels": self.user_labels},
            }
        )

    @property
    def pod(self) -> Optional[str]:
        return self.resource_labels.get("pod_name")

    @property
    def node(self) -> Optional[str]:
        return self.resource_labels.get("node_name") or self.system_labels.get("node_name")

    def identity(self) -> tuple[Any, ...]:
        """What tells two series apart: their type and every label."""
        return (
            self.metric_type,
            tuple(sorted(self.metric_labels.items())),
            self.resource_type,
            tuple(sorted(self.resource_labels.items())),
        )

    def label_view(self) -> dict[str, dict[str, str]]:
        """The labels a citation names: `{"metric": {...}, "resource": {...}}`."""
        return {"metric": dict(self.metric_labels), "resource": dict(self.resource_labels)}

    def to_json(self, with_points: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "metric": {"type": self.metric_type, "labels": dict(self.metric_labels)},
            "resource": {"type": self.resource_type, "labels": dict(self.resource_labels)},
            "metricKind": self.metric_kind,
            "valueType": self.value_type,
        }
        if self.system_labels or self.user_labels:
            metadata: dict[str, Any] = {}
            if self.system_labels:
                metadata["systemLabels"] = dict(self.system_labels)
            if self.user_labels:
                metadata["userLabels"] = dict(self.user_labels)
            data["metadata"] = metadata
        if self.unit:
            data["unit"] = self.unit
        if with_points:
            data["points"] = [_point_json(p, self.value_type) for p in reversed(self.points)]
        return data


def _point_json(point: Point, value_type: str) -> dict[str, Any]:
    stamp = iso(point.time)
    if value_type == "INT64":
        value: dict[str, Any] = {"int64Value": str(round(point.value))}
    elif value_type == "BOOL":
        value = {"boolValue": bool(point.value)}
    else:
        value = {"doubleValue": point.value}
    return {"interval": {"startTime": stamp, "endTime": stamp}, "value": value}


def _labels(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadInput(f"{where}: labels must be an object of strings")
    return {str(k): v if isinstance(v, str) else str(v) for k, v in value.items()}


def _number(value: Mapping[str, Any], where: str) -> Optional[float]:
    if "doubleValue" in value:
        raw = value["doubleValue"]
    elif "int64Value" in value:
        raw = value["int64Value"]
    elif "boolValue" in value:
        return 1.0 if value["boolValue"] else 0.0
    elif "distributionValue" in value:
        mean = (value["distributionValue"] or {}).get("mean")
        return None if mean is None else float(mean)
    else:
        raise BadInput(f"{where}: value has none of {', '.join(VALUE_FIELDS)}")
    try:
        return float(raw)
    except (TypeError, ValueError):
        raise BadInput(f"{where}: {raw!r} is not a number") from None


def series_from_json(data: Any, where: str) -> Series:
    """One element of `timeSeries`; BadInput naming `where` and the field when malformed."""
    if not isinstance(data, Mapping):
        raise BadInput(f"{where}: a time series must be a JSON object")
    metric = data.get("metric")
    resource = data.get("resource")
    if not isinstance(metric, Mapping) or not isinstance(metric.get("type"), str):
        raise BadInput(f"{where}: metric.type is missing")
    if not isinstance(resource, Mapping) or not isinstance(resource.get("type"), str):
        raise BadInput(f"{where}: resource.type is missing")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise BadInput(f"{where}: metadata must be an object")
    points_data = data.get("points") or []
    if not isinstance(points_data, list):
        raise BadInput(f"{where}: points must be a list")
    points = []
    for number, item in enumerate(points_data):
        here = f"{where}.points[{number}]"
        if not isinstance(item, Mapping):
            raise BadInput(f"{here}: a point must be a JSON object")
        interval = item.get("interval") or {}
        end = interval.get("endTime") if isinstance(interval, Mapping) else None
        instant = timestamp_ns(end)
        if instant is None:
            raise BadInput(f"{here}: interval.endTime {end!r} is not an RFC 3339 timestamp")
        value = item.get("value")
        if not isinstance(value, Mapping):
            raise BadInput(f"{here}: value is missing")
        number_value = _number(value, f"{here}.value")
        if number_value is not None:
            points.append(Point(instant / NS_PER_SECOND, number_value))
    points.sort(key=lambda p: p.time)
    return Series(
        metric_type=metric["type"],
        metric_labels=_labels(metric.get("labels"), f"{where}.metric.labels"),
        resource_type=resource["type"],
        resource_labels=_labels(resource.get("labels"), f"{where}.resource.labels"),
        points=points,
        metric_kind=str(data.get("metricKind") or "GAUGE"),
        value_type=str(data.get("valueType") or "DOUBLE"),
        system_labels=_labels(
            metadata.get("systemLabels") or metadata.get("system_labels"), f"{where}.metadata"
        ),
        user_labels=_labels(
            metadata.get("userLabels") or metadata.get("user_labels"), f"{where}.metadata"
        ),
        unit=str(data.get("unit") or ""),
    )


def response_series(data: Any, where: str) -> list[Series]:
    """The series of one `timeSeries.list` response (`{"timeSeries": [...]}`, maybe empty)."""
    if not isinstance(data, Mapping):
        raise BadInput(
            f'{where}: expected the JSON timeSeries.list returns: {{"timeSeries": [...]}}'
        )
    items = data.get("timeSeries") or []
    if not isinstance(items, list):
        raise BadInput(f"{where}: timeSeries must be a list")
    return [series_from_json(item, f"{where}: timeSeries[{n}]") for n, item in enumerate(items)]


def response_json(series: Iterable[Series]) -> dict[str, Any]:
    """`{"timeSeries": [...]}` with points newest first, as `timeSeries.list` returns it."""
    return {"timeSeries": [s.to_json() for s in series]}


def merge(series: Iterable[Series]) -> list[Series]:
    """Series with the same identity joined (pages or files that split one series), points
    deduplicated by time, in first-seen order."""
    joined: dict[tuple[Any, ...], Series] = {}
    for item in series:
        key = item.identity()
        known = joined.get(key)
        if known is None:
            joined[key] = Series(**{**item.__dict__, "points": list(item.points)})
            continue
        times = {p.time for p in known.points}
        known.points.extend(p for p in item.points if p.time not in times)
        known.points.sort(key=lambda p: p.time)
    return list(joined.values())
