"""The expressions and templates of a workflow parse and name only what exists.

In scope (see the formats contract): `params.NAME` (declared workflow params) and
`steps.STEP.status` / `steps.STEP.outputs.NAME`, where STEP ran earlier (any step, in conclusions
and workflow outputs); `result` inside a step's own `outputs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.lint.positions import step_line
from mlwiki.lint.templates import (
    TemplateProblem,
    accesses,
    environment,
    free_names,
    parse_expression,
    parse_template,
)
from mlwiki.wiki import Workflow

LOG_QUERY_OUTPUTS = frozenset(
    {"count", "hosts", "pods", "first_timestamp", "last_timestamp", "first_host", "first_text"}
)
COMMAND_OUTPUTS = frozenset({"exit_code", "stdout", "json", "items_count"})
METRIC_QUERY_OUTPUTS = frozenset(
    {
        "count",
        "points",
        "min",
        "max",
        "mean",
        "max_host",
        "max_timestamp",
        "min_host",
        "min_timestamp",
        "last",
        "last_min",
        "first_timestamp",
        "last_timestamp",
        "flat_since",
        "flat_minutes",
        "low_since",
        "low_minutes",
        "low_hosts",
        "first_low_host",
        "first_low_since",
        "high_hosts",
        "hosts",
        "pods",
        "by_host",
        "partial",
    }
)
STEP_FIELDS = frozenset({"status", "outputs"})


@dataclass(frozen=True)
class Scope:
    where: str  # e.g. steps[1].if
    line: int
    visible_steps: tuple[str, ...]  # step ids an expression here may name
    extra_names: frozenset[str] = frozenset()


def workflow_expression(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    outputs = _step_outputs(ctx, workflow)
    for scope, text, is_template in _expressions(workflow):
        try:
            tree = parse_template(text) if is_template else parse_expression(text)
        except TemplateProblem as problem:
            yield Finding(workflow.path, scope.line, f"{scope.where}: {problem}")
            continue
        allowed = {"params", "steps", *scope.extra_names, *environment().globals}
        for name in sorted(free_names(tree) - allowed):
            yield Finding(
                workflow.path,
                scope.line,
                f"{scope.where}: unknown name '{name}' (use params.NAME or steps.STEP…)",
            )
        for access in accesses(tree):
            message = _check_access(workflow, outputs, scope, access.root, access.path)
            if message:
                yield Finding(workflow.path, scope.line, f"{scope.where}: {message}")


def _expressions(workflow: Workflow) -> Iterator[tuple[Scope, str, bool]]:
    """(scope, text, is_template) of every expression and template in the workflow."""
    step_ids = tuple(str(step.get("id")) for step in workflow.steps)
    for index, step in enumerate(workflow.steps):
        line = step_line(workflow, step)
        earlier = step_ids[:index]
        with_values = step.get("with") if isinstance(step.get("with"), dict) else {}
        for name, value in with_values.items():
            if isinstance(value, str):
                yield Scope(f"steps[{index}].with.{name}", line, earlier), value, True
        if isinstance(step.get("if"), str):
            yield Scope(f"steps[{index}].if", line, earlier), step["if"], False
        step_outputs = step.get("outputs") if isinstance(step.get("outputs"), dict) else {}
        for name, value in step_outputs.items():
            if isinstance(value, str):
                yield (
                    Scope(f"steps[{index}].outputs.{name}", line, earlier, frozenset({"result"})),
                    value,
                    False,
                )
    conclusions = workflow.data.get("conclusions")
    conclusions_line = workflow.line_of("conclusions")
    for index, conclusion in enumerate(conclusions if isinstance(conclusions, list) else []):
        if not isinstance(conclusion, dict):
            continue
        if isinstance(conclusion.get("if"), str):
            yield (
                Scope(f"conclusions[{index}].if", conclusions_line, step_ids),
                conclusion["if"],
                False,
            )
        if isinstance(conclusion.get("summary"), str):
            yield (
                Scope(f"conclusions[{index}].summary", conclusions_line, step_ids),
                conclusion["summary"],
                True,
            )
    outputs = workflow.data.get("outputs")
    for name, value in (outputs if isinstance(outputs, dict) else {}).items():
        if isinstance(value, str):
            yield Scope(f"outputs.{name}", workflow.line_of("outputs"), step_ids), value, False


def _step_outputs(ctx: LintContext, workflow: Workflow) -> dict[str, frozenset[str]]:
    """Output names each step provides: its action kind's standard ones, extracts, its own."""
    provided: dict[str, frozenset[str]] = {}
    for step in workflow.steps:
        action = ctx.wiki.actions.get(str(step.get("uses")))
        names: set[str] = set()
        if action is not None:
            if action.kind == "log_query":
                names |= LOG_QUERY_OUTPUTS
                extract = action.data.get("extract")
                names |= set(extract) if isinstance(extract, dict) else set()
            elif action.kind == "metric_query":
                names |= METRIC_QUERY_OUTPUTS
            else:
                names |= COMMAND_OUTPUTS
        own = step.get("outputs")
        names |= set(own) if isinstance(own, dict) else set()
        provided[str(step.get("id"))] = frozenset(names)
    return provided


def _check_access(
    workflow: Workflow,
    outputs: dict[str, frozenset[str]],
    scope: Scope,
    root: str,
    path: tuple[str, ...],
) -> str:
    """Why `root.path…` cannot be evaluated here, or "" when it can."""
    if root == "params":
        if path and path[0] not in workflow.params:
            return f"params.{path[0]} is not a declared workflow param"
        return ""
    if root != "steps" or not path:
        return ""
    step_id = path[0]
    if step_id not in outputs:
        return f"steps.{step_id}: no step has id '{step_id}'"
    if step_id not in scope.visible_steps:
        return f"steps.{step_id} is not an earlier step"
    if len(path) < 2 or path[1] not in STEP_FIELDS:
        return f"steps.{step_id}: name .status or .outputs.NAME"
    if path[1] == "outputs" and len(path) > 2 and path[2] not in outputs[step_id]:
        known = ", ".join(sorted(outputs[step_id]))
        return f"steps.{step_id}.outputs.{path[2]} is not an output of that step (it has: {known})"
    return ""
