"""Rules for `metric_query` actions: a filter Cloud Monitoring accepts, an aggregation it accepts,
and a window to ask for.

The filter is checked as the engine will send it: rendered with a harmless value of each
parameter's type (so `{{ workload_pods(workload) }}` becomes a real clause), then compiled by
`mlwiki.metrics.filter` — one metric type, no AND/OR mixed without parentheses, valid RE2.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlwiki.errors import BadInput
from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.wiki import Action

# A value of each parameter type that passes its own validation.
_PROBES: dict[str, Any] = {
    "k8s_name": "demo",
    "project_id": "demo-project",
    "timestamp": "2024-01-01T00:00:00Z",
    "duration": "3600s",
    "integer": 1,
    "string": "demo",
    "zone": "us-east5-b",
    "kube_context": "demo",
}


def _probe_values(action: Action) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, spec in action.params.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind == "enum":
            choices = spec.get("values") or ["demo"]
            values[name] = choices[0]
        else:
            values[name] = spec.get("default", _PROBES.get(str(kind), "demo"))
    return values


def metric_filter(ctx: LintContext, action: Action) -> Iterator[Finding]:
    if action.kind != "metric_query" or not isinstance(action.filter, str):
        return
    from mlwiki.engine.render import render_metric_filter
    from mlwiki.metrics.filter import compile_filter

    try:
        rendered = render_metric_filter(action, _probe_values(action))
    except BadInput:
        return  # template-variable (E403) reports templates that do not render
    try:
        compile_filter(rendered, "filter")
    except BadInput as problem:
        yield Finding(action.path, action.line_of("filter"), str(problem))


def metric_aggregation(ctx: LintContext, action: Action) -> Iterator[Finding]:
    if action.kind != "metric_query":
        return
    from mlwiki.metrics.aggregate import Aggregation

    spec = action.data.get("aggregation")
    if not isinstance(spec, dict):
        return  # the schema rule reports a missing or wrong-typed aggregation
    try:
        Aggregation.from_spec(spec, "aggregation")
    except BadInput as problem:
        yield Finding(action.path, action.line_of("aggregation"), str(problem))


def metric_window(ctx: LintContext, action: Action) -> Iterator[Finding]:
    if action.kind != "metric_query":
        return
    for name in ("start", "end"):
        spec = action.params.get(name)
        if not isinstance(spec, dict) or spec.get("type") != "timestamp":
            yield Finding(
                action.path,
                action.line_of("params"),
                f"a metric query reads a time window: declare param '{name}' of type timestamp",
            )


def metric_label_dropped(ctx: LintContext, action: Action) -> Iterator[Finding]:
    """A reduced query keeps only its group-by labels: an exported bundle (which holds what the
    query returned) can answer the filter again only if it groups by every label it filters on."""
    if action.kind != "metric_query" or not isinstance(action.filter, str):
        return
    from mlwiki.engine.render import render_metric_filter
    from mlwiki.metrics.aggregate import Aggregation, label_field
    from mlwiki.metrics.filter import compile_filter

    spec = action.data.get("aggregation")
    try:
        compiled = compile_filter(render_metric_filter(action, _probe_values(action)), "filter")
        aggregation = Aggregation.from_spec(spec if isinstance(spec, dict) else {}, "aggregation")
    except BadInput:
        return  # metric-filter and metric-aggregation report these
    if aggregation.reducer == "REDUCE_NONE":
        return
    kept = {label_field(name, "group_by_fields") for name in aggregation.group_by}
    for selector in sorted(compiled.label_selectors, key=str):
        if (selector.section, selector.key) not in kept:
            yield Finding(
                action.path,
                action.line_of("aggregation"),
                f"the filter reads {selector} but the reduced series drop it: add it to "
                "group_by_fields so an exported bundle answers the same query",
            )
