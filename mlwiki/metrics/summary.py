"""What a metric query tells a workflow: the outputs it can branch on, and a text strip per host.

Outputs of a `metric_query` (every time an ISO timestamp, every value a number, None when no
point was fetched):
- `count` — how many series came back (0: no data at all, never "all is well");
  `points` — how many points;
- `min`, `max`, `mean` over every point; `max_host` / `max_timestamp`, `min_host` /
  `min_timestamp` — where the extremes were;
- `last` — the highest of the series' newest values (`last == 0`: every series ended at 0) and
  `last_min` — the lowest of them;
- `first_timestamp`, `last_timestamp` — the oldest and newest point;
- `flat_since` — since when every series has held its own newest value (within `tolerance`);
  `flat_minutes` — how long that is, up to the newest point;
- `low_since` — since when every series has stayed at or below `threshold` (None while some
  series' newest value is above it); `low_minutes`;
- `low_hosts` / `high_hosts` — hosts whose newest value is at or below / above `threshold`;
  `first_low_host` / `first_low_since` — of the low hosts, the one that went low first (in a
  hang every host ends idle; the first to fall is where to look);
- `hosts`, `pods` — what the series are about; `by_host` — per host `last`, `min`, `max`,
  `low_since`.
A host is the series' node (`resource.labels.node_name`, or the node a pod ran on when the run's
logs say so), else its pod.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from mlwiki.metrics.series import Point, Series, iso

HostOf = Callable[[Series], Optional[str]]
LEVELS = "▂▄▆█"


def node_or_pod(pod_nodes: Optional[Mapping[str, str]] = None) -> HostOf:
    """The host of a series: its node label, else the node its pod ran on, else its pod."""
    known = pod_nodes or {}

    def host(series: Series) -> Optional[str]:
        return series.node or known.get(series.pod or "") or series.pod

    return host


def trailing_run(points: Sequence[Point], keep: Callable[[float], bool]) -> Optional[float]:
    """The time of the oldest point of the newest run of points for which `keep` holds, or None
    when the newest point does not hold."""
    since = None
    for point in reversed(points):
        if not keep(point.value):
            break
        since = point.time
    return since


def flat_start(series: Series, tolerance: float) -> Optional[float]:
    if not series.points:
        return None
    newest = series.points[-1].value
    return trailing_run(series.points, lambda v: abs(v - newest) <= tolerance)


def low_start(series: Series, threshold: float) -> Optional[float]:
    return trailing_run(series.points, lambda v: v <= threshold)


def _stamp(value: Optional[float]) -> Optional[str]:
    return iso(value) if value is not None else None


def _minutes(since: Optional[float], newest: Optional[float]) -> Optional[float]:
    if since is None or newest is None:
        return None
    return round((newest - since) / 60.0, 1)


def summarize(
    series: Sequence[Series],
    *,
    threshold: float = 0.0,
    tolerance: float = 0.0,
    host_of: Optional[HostOf] = None,
) -> dict[str, Any]:
    """The outputs of a metric query over `series` (see the module docstring)."""
    host_of = host_of or node_or_pod()
    with_points = [s for s in series if s.points]
    every = [(p, s) for s in with_points for p in s.points]
    newest = max((p.time for p, _ in every), default=None)
    oldest = min((p.time for p, _ in every), default=None)
    high = max(every, key=lambda ps: (ps[0].value, -ps[0].time), default=None)
    low = min(every, key=lambda ps: (ps[0].value, ps[0].time), default=None)
    lasts = [s.points[-1].value for s in with_points]
    flats = [flat_start(s, tolerance) for s in with_points]
    lows = [low_start(s, threshold) for s in with_points]
    flat_since = max((f for f in flats if f is not None), default=None) if with_points else None
    low_since = (
        max(lows) if with_points and all(v is not None for v in lows) else None  # type: ignore[type-var]
    )
    by_host: dict[str, dict[str, Any]] = {}
    for item, low_at in zip(with_points, lows):
        host = host_of(item) or "(unknown)"
        values = [p.value for p in item.points]
        known = by_host.get(host)
        entry = {
            "last": item.points[-1].value,
            "min": min(values),
            "max": max(values),
            "low_since": _stamp(low_at),
        }
        if known is None:
            by_host[host] = entry
        else:  # several series on one host (chips): the host is as busy as its busiest chip
            known["last"] = max(known["last"], entry["last"])
            known["min"] = min(known["min"], entry["min"])
            known["max"] = max(known["max"], entry["max"])
            if entry["low_since"] is None or known["low_since"] is None:
                known["low_since"] = None
            else:
                known["low_since"] = max(known["low_since"], entry["low_since"])
    low_hosts = sorted(h for h, v in by_host.items() if v["last"] <= threshold)
    first_low = min(
        ((v["low_since"], h) for h, v in by_host.items() if v["low_since"] is not None),
        default=(None, None),
    )
    return {
        "count": len(series),
        "points": len(every),
        "min": low[0].value if low else None,
        "max": high[0].value if high else None,
        "mean": round(sum(p.value for p, _ in every) / len(every), 6) if every else None,
        "max_host": host_of(high[1]) if high else None,
        "max_timestamp": _stamp(high[0].time) if high else None,
        "min_host": host_of(low[1]) if low else None,
        "min_timestamp": _stamp(low[0].time) if low else None,
        "last": max(lasts) if lasts else None,
        "last_min": min(lasts) if lasts else None,
        "first_timestamp": _stamp(oldest),
        "last_timestamp": _stamp(newest),
        "flat_since": _stamp(flat_since),
        "flat_minutes": _minutes(flat_since, newest),
        "low_since": _stamp(low_since),
        "low_minutes": _minutes(low_since, newest),
        "low_hosts": low_hosts,
        "first_low_host": first_low[1],
        "first_low_since": first_low[0],
        "high_hosts": sorted(set(by_host) - set(low_hosts)),
        "hosts": sorted(by_host),
        "pods": sorted({s.pod for s in series if s.pod}),
        "by_host": by_host,
    }


def sparkline(values: Sequence[Optional[float]], top: float = 100.0, threshold: float = 0.0) -> str:
    """One character per value: `_` at or below `threshold` (idle), then `▂▄▆█` by quarter of
    0..`top`, `·` for no point. Coarse on purpose: hosts doing the same thing draw the same
    strip (and share a row), whatever the noise between them."""
    out = []
    for value in values:
        if value is None:
            out.append("·")
        elif value <= threshold:
            out.append("_")
        else:
            share = 0.0 if top <= 0 else max(0.0, min(1.0, value / top))
            out.append(LEVELS[min(len(LEVELS) - 1, int(share * len(LEVELS)))])
    return "".join(out)
