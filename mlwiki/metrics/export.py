"""The workload's metric set, read with the wiki's own metric actions: what `mlwiki metrics`
prints and writes into a bundle, and what a diagnosis of that bundle reads back.

Each action of `EXPORT_ACTIONS` (duty cycle, TensorCore utilization, HBM used and total, host
memory) is rendered for the workload and asked of the source with its aggregation, the alignment
period widened as the diagnosis widens it (`period_for`), so the exported files hold exactly the
answers the diagnosis asks for: the bundle replays the same findings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Optional

from mlwiki.errors import BadInput
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.series import iso
from mlwiki.metrics.source import MetricResult
from mlwiki.timewindow import Window
from mlwiki.wiki import Wiki

EXPORT_ACTIONS = (
    "query-tpu-duty-cycle",
    "query-tpu-tensorcore-utilization",
    "query-tpu-hbm-used",
    "query-tpu-hbm-total",
    "query-container-memory-used",
    "query-container-memory-limit-utilization",
)
MAX_POINTS = 360  # per series: the alignment period is widened for long windows


def period_for(window: tuple[float, float], base: int) -> int:
    """The action's period, widened to whole minutes so a series has at most MAX_POINTS points."""
    seconds = max(0.0, window[1] - window[0])
    return max(base, math.ceil(seconds / MAX_POINTS / 60.0) * 60)


@dataclass
class Asked:
    action: str
    metric: str
    result: Optional[MetricResult] = None
    error: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        result = self.result
        return {
            "action": self.action,
            "metric": self.metric,
            "series": len(result.series) if result else 0,
            "points": sum(len(s.points) for s in result.series) if result else 0,
            "partial": bool(result.partial) if result else True,
            "reason": (result.reason if result else self.error),
        }


def workload_query(
    wiki: Wiki, action_id: str, workload: str, window: tuple[float, float]
) -> tuple[str, Aggregation, str]:
    """(filter, aggregation, metric type) of a metric action for the workload and window."""
    from mlwiki.engine.actions import resolve_action_params
    from mlwiki.engine.render import render_metric_filter
    from mlwiki.metrics.filter import compile_filter

    action = wiki.action(action_id)
    values = resolve_action_params(
        action, {"workload": workload, "start": iso(window[0]), "end": iso(window[1])}
    )
    text = render_metric_filter(action, values)
    base = Aggregation.from_spec(action.data.get("aggregation"), f"action {action.id}")
    aggregation = Aggregation(
        period_for(window, base.period), base.aligner, base.reducer, base.group_by
    )
    return text, aggregation, compile_filter(text).metric_type


def as_window(window: tuple[float, float]) -> Window:
    return Window(*(datetime.fromtimestamp(t, timezone.utc) for t in window))


def export_workload(
    wiki: Wiki, source: Any, workload: str, window: tuple[float, float]
) -> list[Asked]:
    """Ask the source for every metric of `EXPORT_ACTIONS` the wiki has (one call each)."""
    asked = []
    for action_id in EXPORT_ACTIONS:
        if action_id not in wiki.actions:
            continue
        text, aggregation, metric = workload_query(wiki, action_id, workload, window)
        item = Asked(action_id, metric)
        try:
            item.result = source.query(text, aggregation, as_window(window))
        except BadInput as error:
            item.error = str(error)
        asked.append(item)
    return asked
