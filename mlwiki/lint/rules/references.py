"""Rules that check what points to what: steps → actions, templates → params, pages ↔ workflows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

from jinja2 import nodes

from mlwiki.lint.argv import is_mutating
from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.lint.positions import step_line
from mlwiki.lint.templates import TemplateProblem, calls, environment, free_names, parse_template
from mlwiki.wiki import Action, Symptom, Workflow

# Params the runner fills from the run's context (workload, project, time window) when an action
# declares them and the step does not pass them; any other required param must be in `with`.
CONTEXT_PARAMS = frozenset({"start", "end", "project", "workload"})
# Functions the engine provides to action filters (log queries, metric queries).
FILTER_HELPERS = frozenset({"workload_selector", "time_window", "symptom_match"})
METRIC_FILTER_HELPERS = frozenset({"workload_pods", "any_of"})


def _action_templates(action: Action) -> Iterator[tuple[str, str]]:
    """(where, template text) of every templated part of an action."""
    for index, element in enumerate(action.command):
        if isinstance(element, str) and ("{" in element or "}" in element):
            yield f"command[{index}]", element  # an element without braces is a literal
    if isinstance(action.filter, str):
        yield "filter", action.filter


def unknown_action(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    for step in workflow.steps:
        uses = step.get("uses")
        if isinstance(uses, str) and uses not in ctx.wiki.actions:
            yield Finding(
                workflow.path,
                step_line(workflow, step),
                f"step '{step.get('id')}' uses action '{uses}', which does not exist",
            )


def unknown_remedy_action(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    for remedy in symptom.remedies:
        action = remedy.get("action")
        if isinstance(action, str) and action not in ctx.wiki.actions:
            yield Finding(
                symptom.page.path,
                symptom.page.line_of("remedies"),
                f"remedy action '{action}' does not exist",
            )


def step_params(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    for step in workflow.steps:
        action = ctx.wiki.actions.get(str(step.get("uses")))
        if action is None:
            continue
        given = step.get("with") if isinstance(step.get("with"), dict) else {}
        line = step_line(workflow, step)
        for name in sorted(set(given) - set(action.params)):
            declared = ", ".join(sorted(action.params)) or "none"
            yield Finding(
                workflow.path,
                line,
                f"step '{step.get('id')}' passes '{name}', which action '{action.id}' does not declare (declared: {declared})",
            )
        for name, spec in sorted(action.params.items()):
            required = (
                isinstance(spec, dict) and spec.get("required") is True and "default" not in spec
            )
            if required and name not in given and name not in CONTEXT_PARAMS:
                yield Finding(
                    workflow.path,
                    line,
                    f"step '{step.get('id')}' must pass required param '{name}' of action '{action.id}'",
                )


def action_template(ctx: LintContext, action: Action) -> Iterator[Finding]:
    declared = set(action.params)
    for where, text in _action_templates(action):
        try:
            tree = parse_template(text)
        except TemplateProblem as problem:
            yield Finding(action.path, action.line_of(where.split("[")[0]), f"{where}: {problem}")
            continue
        helpers = METRIC_FILTER_HELPERS if action.kind == "metric_query" else FILTER_HELPERS
        unknown = free_names(tree) - declared - helpers - set(environment().globals)
        for name in sorted(unknown):
            yield Finding(
                action.path,
                action.line_of(where.split("[")[0]),
                f"{where}: '{{{{ {name} }}}}' is not a declared param",
            )


def quoted_filter_value(ctx: LintContext, action: Action) -> Iterator[Finding]:
    """A `{{ … }}` inside a quoted string of a filter: the engine quotes every value it renders,
    so `"{{ node }}"` becomes `""node-1""` and the query silently matches nothing."""
    if not isinstance(action.filter, str):
        return
    for expression in _quoted_expressions(action.filter):
        yield Finding(
            action.path,
            action.line_of("filter"),
            f"filter: '{expression}' is written inside quotes; values are quoted when rendered "
            f'(it would render as ""value"" and match nothing): write {expression} '
            "without the quotes",
        )


def _quoted_expressions(text: str) -> Iterator[str]:
    """The `{{ … }}` expressions that stand inside a double-quoted string of a filter template
    (template tags and comments outside strings are skipped, quotes inside them too)."""
    index, quoted = 0, False
    while index < len(text):
        char = text[index]
        if text.startswith(("{{", "{%", "{#"), index):
            closing = {"{": "}}", "%": "%}", "#": "#}"}[text[index + 1]]
            end = text.find(closing, index + 2)
            end = len(text) if end < 0 else end + 2
            if quoted and text[index + 1] == "{":
                yield " ".join(text[index:end].split())
            index = end
            continue
        if quoted and char == "\\":
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        index += 1


def unknown_symptom(ctx: LintContext, action: Action) -> Iterator[Finding]:
    listed = action.data.get("symptoms")
    for symptom_id in listed if isinstance(listed, list) else []:
        if isinstance(symptom_id, str) and symptom_id not in ctx.wiki.symptoms:
            yield Finding(
                action.path, action.line_of("symptoms"), f"symptom '{symptom_id}' does not exist"
            )
    for where, text in _action_templates(action):
        try:
            tree = parse_template(text)
        except TemplateProblem:
            continue  # template-variable reports it
        for call in calls(tree, "symptom_match"):
            argument = _literal_argument(call)
            line = action.line_of(where.split("[")[0])
            if argument is None:
                yield Finding(
                    action.path, line, f"{where}: symptom_match() takes one literal symptom id"
                )
            elif argument not in ctx.wiki.symptoms:
                yield Finding(
                    action.path, line, f"{where}: symptom_match('{argument}'): no such symptom page"
                )


def _literal_argument(call: nodes.Call) -> Optional[str]:
    if len(call.args) == 1 and not call.kwargs and isinstance(call.args[0], nodes.Const):
        value = call.args[0].value
        return value if isinstance(value, str) else None
    return None


def symptom_workflow(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    workflow_id = symptom.workflow
    if not isinstance(workflow_id, str):
        return  # the schema rule reports a missing or wrong-typed field
    line = symptom.page.line_of("workflow")
    workflow = ctx.wiki.workflows.get(workflow_id)
    if workflow is None:
        yield Finding(symptom.page.path, line, f"workflow '{workflow_id}' does not exist")
    elif workflow.symptom != symptom.id:
        yield Finding(
            symptom.page.path,
            line,
            f"workflow '{workflow_id}' verifies '{workflow.symptom}', not this page ('{symptom.id}')",
        )


def workflow_symptom(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    symptom_id = workflow.symptom
    if isinstance(symptom_id, str) and symptom_id not in ctx.wiki.symptoms:
        yield Finding(
            workflow.path,
            workflow.line_of("symptom"),
            f"symptom '{symptom_id}' is not a symptom page",
        )


def mutating_step(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    for step in workflow.steps:
        action = ctx.wiki.actions.get(str(step.get("uses")))
        if action is not None and is_mutating(action):
            yield Finding(
                workflow.path,
                step_line(workflow, step),
                f"step '{step.get('id')}' uses mutating action '{action.id}': verification workflows only read; name it in the symptom page's remedies",
            )


def duplicate_step_id(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    seen: set[str] = set()
    for step in workflow.steps:
        step_id = step.get("id")
        if isinstance(step_id, str) and step_id in seen:
            yield Finding(
                workflow.path, step_line(workflow, step), f"step id '{step_id}' is used twice"
            )
        seen.add(str(step_id))


def unused_action(ctx: LintContext) -> Iterator[Finding]:
    used = {
        str(step.get("uses")) for workflow in ctx.wiki.workflows.values() for step in workflow.steps
    }
    used |= {
        str(r.get("action")) for symptom in ctx.wiki.symptoms.values() for r in symptom.remedies
    }
    for action in ctx.wiki.actions.values():
        if action.id not in used:
            yield Finding(
                action.path, 1, f"action '{action.id}' is used by no workflow step and no remedy"
            )


def conclusion_fallback(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    conclusions = workflow.data.get("conclusions")
    if (
        isinstance(conclusions, list)
        and conclusions
        and isinstance(conclusions[-1], dict)
        and "if" in conclusions[-1]
    ):
        yield Finding(
            workflow.path,
            workflow.line_of("conclusions"),
            "the last conclusion has an 'if': add a final one without it (usually inconclusive)",
        )
