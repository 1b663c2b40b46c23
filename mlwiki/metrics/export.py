"""The workload's metric set, read with the wiki's own metric actions: what `mlwiki metrics`
prints and writes into a bundle, and what a diagnosis of that bundle reads back.

Each action of `EXPORT_ACTIONS` (duty cycle, TensorCore utilization, HBM used and total, host
memory of the containers) is rendered for the workload, and each of `NODE_ACTIONS` (node memory)
for the workload's nodes (`node_chunks`: as many names a query as the action's `nodes` parameter
takes), and asked of the source with its
aggregation, the alignment period widened as the diagnosis widens it (`period_for`). The
diagnosis asks the very same queries (`action_query`) over the same window — node memory for its
culprit nodes, a subset of the exported ones — so the exported files hold exactly the answers it
needs, and a bundle replays the same findings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
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
NODE_ACTIONS = ("query-node-memory-allocatable-utilization",)
NODES_PER_QUERY = 100  # the node actions' `nodes` parameter takes at most 100 names
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


def action_query(
    wiki: Wiki, action_id: str, window: tuple[float, float], params: dict[str, str]
) -> tuple[str, Aggregation, str]:
    """(filter, aggregation, metric type) of a metric action for `params` and the window."""
    from mlwiki.engine.actions import resolve_action_params
    from mlwiki.engine.render import render_metric_filter
    from mlwiki.metrics.filter import compile_filter

    action = wiki.action(action_id)
    values = resolve_action_params(
        action, {**params, "start": iso(window[0]), "end": iso(window[1])}
    )
    text = render_metric_filter(action, values)
    base = Aggregation.from_spec(action.data.get("aggregation"), f"action {action.id}")
    aggregation = Aggregation(
        period_for(window, base.period), base.aligner, base.reducer, base.group_by
    )
    return text, aggregation, compile_filter(text).metric_type


def workload_query(
    wiki: Wiki, action_id: str, workload: str, window: tuple[float, float]
) -> tuple[str, Aggregation, str]:
    """(filter, aggregation, metric type) of a workload-wide metric action."""
    return action_query(wiki, action_id, window, {"workload": workload})


def node_query(
    wiki: Wiki, action_id: str, nodes: Sequence[str], window: tuple[float, float]
) -> tuple[str, Aggregation, str]:
    """(filter, aggregation, metric type) of a node action for one chunk of nodes (sorted)."""
    return action_query(wiki, action_id, window, {"nodes": ",".join(sorted(nodes))})


def node_chunks(nodes: Iterable[str]) -> list[list[str]]:
    """The nodes, sorted, in chunks a node action's `nodes` parameter takes: at most
    NODES_PER_QUERY names and, joined with commas, at most the engine's value length."""
    from mlwiki.engine.params import MAX_VALUE_LENGTH

    chunks: list[list[str]] = []
    length = 0
    for node in sorted(set(nodes)):
        if (
            not chunks
            or len(chunks[-1]) >= NODES_PER_QUERY
            or length + 1 + len(node) > MAX_VALUE_LENGTH
        ):
            chunks.append([])
            length = -1
        chunks[-1].append(node)
        length += 1 + len(node)
    return chunks


def as_window(window: tuple[float, float]) -> Window:
    return Window(*(datetime.fromtimestamp(t, timezone.utc) for t in window))


def _ask(source: Any, action_id: str, query: tuple[str, Aggregation, str], window: Window) -> Asked:
    text, aggregation, metric = query
    item = Asked(action_id, metric)
    try:
        item.result = source.query(text, aggregation, window)
    except BadInput as error:
        item.error = str(error)
    return item


def export_workload(
    wiki: Wiki,
    source: Any,
    workload: str,
    window: tuple[float, float],
    nodes: Iterable[str] = (),
) -> list[Asked]:
    """Ask the source for every metric of `EXPORT_ACTIONS` the wiki has (one call each), and of
    `NODE_ACTIONS` for `nodes` (one call per chunk of `node_chunks`; none without nodes)."""
    asked = [
        _ask(source, a, workload_query(wiki, a, workload, window), as_window(window))
        for a in EXPORT_ACTIONS
        if a in wiki.actions
    ]
    for action_id in NODE_ACTIONS:
        if action_id not in wiki.actions:
            continue
        for chunk in node_chunks(nodes):
            query = node_query(wiki, action_id, chunk, window)
            asked.append(_ask(source, action_id, query, as_window(window)))
    return asked


def workload_nodes(bundle: Optional[Path], workload: str) -> list[str]:
    """The nodes the workload's pods ran on, from the log entries of the bundle at `bundle`
    (none when there is no such folder or it holds no logs): what node metrics are asked for."""
    from mlwiki.logs.bundle import bundle_files, iter_file
    from mlwiki.logs.entry import entry_host, entry_pod

    if bundle is None or not bundle.exists():
        return []
    try:
        files = bundle_files(bundle)
    except BadInput:  # a folder of metrics only: no logs to learn the nodes from
        return []
    nodes: set[str] = set()
    prefix = f"{workload}-"
    for file in files:
        for entry in iter_file(file):
            pod, host = entry_pod(entry), entry_host(entry)
            if host and pod and pod.startswith(prefix):
                nodes.add(host)
    return sorted(nodes)
