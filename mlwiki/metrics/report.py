"""A per-host strip of a metric (TPU duty cycle) in text, bounded for a thousand hosts.

Each host's series is cut into `width` equal slices of the window and drawn with one character
per slice (`mlwiki.metrics.summary.sparkline`: `_` idle, `▂▄▆█` by quarter of 0–100 %, `·` no
sample). Hosts whose strips are identical are one
row ("998 hosts"), and at most `max_rows` rows are shown: the rows that stand out first (lowest
newest value, then the lowest mean), the rest folded into one row that says how many hosts it
holds. So the strip stays a few lines whatever the number of hosts, and a wedged host among a
thousand busy ones is always the first row.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.metrics.series import Point, Series, iso, series_from_json
from mlwiki.metrics.summary import HostOf, low_start, node_or_pod, sparkline

WIDTH = 48
MAX_ROWS = 8
MAX_NAMES = 3


@dataclass
class StripRow:
    strip: str
    hosts: list[str] = field(default_factory=list)
    last: Optional[float] = None
    mean: float = 0.0
    low_since: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "strip": self.strip,
            "count": len(self.hosts),
            "hosts": self.hosts[:MAX_NAMES],
            "last": self.last,
            "low_since": self.low_since,
        }


def _time(point: Point) -> float:
    return point.time


def _slices(series: Series, start: float, end: float, width: int) -> list[Optional[float]]:
    step = (end - start) / width if end > start else 1.0
    sums = [0.0] * width
    counts = [0] * width
    for point in series.points:
        index = min(width - 1, max(0, math.ceil((point.time - start) / step) - 1))
        sums[index] += point.value
        counts[index] += 1
    return [sums[i] / counts[i] if counts[i] else None for i in range(width)]


def strip_rows(
    series: Sequence[Series],
    start: float,
    end: float,
    *,
    host_of: Optional[HostOf] = None,
    threshold: float = 0.0,
    width: int = WIDTH,
    max_rows: int = MAX_ROWS,
    top: float = 100.0,
) -> list[StripRow]:
    """One row per distinct strip (hosts with the same strip share it), outliers first."""
    host_of = host_of or node_or_pod()
    by_host: dict[str, list[Series]] = {}
    for item in series:
        if item.points:
            by_host.setdefault(host_of(item) or "(unknown)", []).append(item)
    rows: dict[tuple[str, Optional[str]], StripRow] = {}
    for host, items in sorted(by_host.items(), key=lambda kv: kv[0]):
        merged = Series(
            **{
                **items[0].__dict__,
                "points": sorted((p for s in items for p in s.points), key=_time),
            }
        )
        line = sparkline(_slices(merged, start, end, width), top, threshold)
        last = max(s.points[-1].value for s in items)
        low = low_start(merged, threshold) if last <= threshold else None
        low_text = iso(low) if low is not None else None
        row = rows.setdefault((line, low_text), StripRow(line, last=last, low_since=low_text))
        row.hosts.append(host)
        values = [p.value for p in merged.points]
        row.mean += sum(values) / len(values)
        row.last = max(row.last or 0.0, last)
    ordered = sorted(
        rows.values(), key=lambda r: (r.last or 0.0, r.mean / len(r.hosts), -len(r.hosts))
    )
    if len(ordered) <= max_rows:
        return ordered
    shown, rest = ordered[: max_rows - 1], ordered[max_rows - 1 :]
    biggest = max(rest, key=lambda r: len(r.hosts))
    folded = StripRow(
        biggest.strip,
        [h for r in rest for h in r.hosts],
        max(r.last or 0.0 for r in rest),
        sum(r.mean for r in rest),
    )
    return [*shown, folded]


def row_label(row: dict[str, Any]) -> str:
    count = row["count"]
    names = ", ".join(row["hosts"])
    if count == 1:
        return names
    more = f", … {count - len(row['hosts'])} more" if count > len(row["hosts"]) else ""
    return f"{count} hosts ({names}{more})"


def host_strip_lines(
    series_json: Sequence[dict[str, Any]],
    *,
    pod_nodes: Optional[Mapping[str, str]] = None,
    threshold: float = 0.0,
) -> list[str]:
    """Text lines of a metric query's result for a terminal: the strip per host group."""
    series = [series_from_json(item, f"series[{n}]") for n, item in enumerate(series_json)]
    times = [p.time for s in series for p in s.points]
    if not times:
        return ["no points"]
    top = max(100.0, max(p.value for s in series for p in s.points))
    rows = strip_rows(
        series,
        min(times) - 1,
        max(times),
        top=top,
        threshold=threshold,
        host_of=node_or_pod(pod_nodes),
    )
    lines = [f"{iso(min(times))} → {iso(max(times))}, scale 0–{top:g}"]
    for row in rows:
        data = row.to_dict()
        low = f", low since {data['low_since']}" if data["low_since"] else ""
        lines.append(f"{data['strip']}  last {data['last']:g}{low}  {row_label(data)}")
    return lines
