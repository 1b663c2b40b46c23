"""The reviewer's check of cited metric points: each one is in the series the source returns.

A metric evidence item names its metric type, its series labels, the aggregation it was read
with, a time and a value. The check asks the source (the bundle's `metrics/`, or Cloud
Monitoring of the findings' project) the same query narrowed to the cited series — one query per
metric type and aggregation, whatever the number of points — and the cited point must be there
with the same value. A point that is not there, or not with that value, is a problem; a source
that holds no metrics, or answers only in part, makes the check incomplete (never a pass).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from mlwiki.errors import BadInput
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.filter import quote
from mlwiki.timewindow import Window, timestamp_ns


def metric_items(findings: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        e
        for e in findings.get("evidence") or []
        if isinstance(e, dict) and e.get("kind") == "metric"
    ]


def _series_filter(metric: str, items: list[dict[str, Any]]) -> str:
    """The query narrowed to the cited series: their resource labels' values, one_of each."""
    clauses = [f"metric.type = {quote(metric)}"]
    keys = sorted({k for i in items for k in ((i.get("labels") or {}).get("resource") or {})})
    for key in keys:
        values = sorted(
            {str(i["labels"]["resource"][key]) for i in items if key in i["labels"]["resource"]}
        )
        clauses.append(f"resource.labels.{key} = one_of({', '.join(quote(v) for v in values)})")
    return " AND ".join(clauses)


def _shown(value: float) -> str:
    """A value as it reads in the findings: bytes in full, fractions to ten digits."""
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


def _same(left: float, right: float) -> bool:
    return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-9)


def check_metric_evidence(findings: dict[str, Any], source: Any) -> tuple[list[str], list[str]]:
    """(problems, gaps) of the findings' metric points against `source` (a MetricSource)."""
    items = metric_items(findings)
    problems: list[str] = []
    gaps: list[str] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for item in items:
        key = (str(item.get("metric")), repr(sorted((item.get("aggregation") or {}).items())))
        groups.setdefault(key, []).append(item)
    for (metric, _), cited in groups.items():
        label = f"evidence {', '.join(str(i.get('id')) for i in cited)} ({metric})"
        try:
            aggregation = Aggregation.from_spec(
                cited[0].get("aggregation"), f"{label}: aggregation"
            )
            times = [timestamp_ns(i.get("timestamp")) for i in cited]
            if any(t is None for t in times):
                problems.append(f"{label}: a cited time is not an RFC 3339 timestamp")
                continue
            seconds = [t / 1e9 for t in times if t is not None]
            window = Window(
                datetime.fromtimestamp(min(seconds) - aggregation.period, timezone.utc),
                datetime.fromtimestamp(max(seconds), timezone.utc),
            )
            found = source.query(_series_filter(metric, cited), aggregation, window)
        except BadInput as error:
            gaps.append(f"{label}: cannot be checked: {error}")
            continue
        if found.partial:
            gaps.append(f"{label}: {found.reason or 'the metrics were read only in part'}")
        for item in cited:
            wanted = item.get("labels") or {}
            series = [
                s
                for s in found.series
                if s.label_view()
                == {"metric": wanted.get("metric") or {}, "resource": wanted.get("resource") or {}}
            ]
            instant = (timestamp_ns(item.get("timestamp")) or 0) / 1e9
            points = [p for s in series for p in s.points if abs(p.time - instant) < 1e-6]
            where = f"evidence {item.get('id')} ({metric} at {item.get('timestamp')})"
            if not series:
                if not found.partial:
                    problems.append(f"{where}: no series with these labels in {source.describe()}")
            elif not points:
                problems.append(f"{where}: no point at this time in {source.describe()}")
            elif not any(_same(p.value, float(item.get("value", math.nan))) for p in points):
                values = ", ".join(_shown(p.value) for p in points)
                problems.append(
                    f"{where}: the value is {values} in {source.describe()}, not {item.get('value')}"
                )
    return problems, gaps
