"""Rendering action templates — command argument lists and Logging filters — in a Jinja2 sandbox.

Templates see only the action's validated parameters, by bare name (`{{ node }}`). The sandbox has
no loader (no file access) and `StrictUndefined` (a missing name is an error, never an empty
string). Each sandbox (`Sandbox`) keeps the Python Jinja generates for a template or expression
in the user cache (`mlwiki.wiki_cache.template_code`), so a command compiles only the texts no
earlier command compiled: a diagnosis' verification workflows use a few dozen.

Commands: each element of `command` is rendered on its own and stays one argument. An element
whose rendering starts with `-` is refused unless that `-` is the template's own text (a flag the
wiki author wrote, like `--zone={{ zone }}`): values are checked, flags are not. An element that
renders empty is left out, so optional flags can be written
`{% if zone is defined %}--zone={{ zone }}{% endif %}`. For kubectl, `--context=…` and
`--namespace=…` are added after `kubectl` from params named `context` / `namespace` when they are
set and the template does not place them itself.

Filters: every `{{ value }}` becomes a quoted, escaped query string literal (`"llm-pretrain"`),
so a template never writes quotes around a value. Helper functions build whole clauses:

- `workload_selector(workload)`: the entries of the workload, as the live collection plan selects
  them (`mlwiki.logs.plan.workload_selector`: its JobSet label in both spellings GKE uses, or a
  pod name starting with `WORKLOAD-`), so the plan's fetched entries answer it.
- `time_window(start, end)`: `timestamp>="START" AND timestamp<="END"`.
- `symptom_match("symptom-id")`: an OR of the symptom page's signatures as `FIELD=~"RE2"` clauses,
  so a query never copies a page's regexes. Signatures that name a `field` are matched there.
  Signatures without one are joined into one alternation (named groups made non-capturing, each
  pattern in its own group so a `(?i)` stays local) and matched against each message field of
  `mlwiki.wiki.MESSAGE_FIELDS`. The matcher also searches the cluster autoscaler's `messageId`s,
  but the query language cannot say "a messageId anywhere": a signature that matches one of its
  page's examples shaped like a messageId (`scale.up.error.out.of.resources`) is also matched
  against the paths where GKE's autoscaler visibility logs put them (`AUTOSCALER_MESSAGE_ID_FIELDS`).
  Other signatures leave those paths out, which keeps filters far below the 20,000-character limit.
- A clause is written only for a field an entry the query selects can hold. A LogEntry carries
  one payload (`textPayload`, `jsonPayload` or `protoPayload`), and the rest of the filter often
  says which: GKE's container, pod and node logs (`resource.type="k8s_container"`, `k8s_pod`,
  `k8s_node`) and its named logs (`log_id("events")`, `stdout`, `kubelet`, the serial console,
  the autoscaler's log: `LOG_IDS_WITHOUT_AUDIT`) are never audit entries, so they hold no
  `protoPayload`; an audit log (`log_id("cloudaudit.googleapis.com/…")`) holds nothing else.
  The filter is read with `symptom_match` standing for any entry (the coverage filter): a
  `resource.type`/`logName`/`log_id` term narrows the payloads, AND intersects, OR unites, and
  anything else (NOT, other resource types and logs) leaves all three possible. A field of an
  excluded payload could never match, so leaving it out changes no answer and gives each query
  back the room of those fields under Cloud Logging's filter limit (lint E606). When every
  clause of a page would be left out, all are kept: the query stays valid and selects nothing
  more.

Metric filters (`metric_query`, the Cloud Monitoring filter language) quote values by the same
rule and have their own helpers:

- `workload_pods(workload)`: `resource.labels.pod_name = starts_with("WORKLOAD-")`.
- `any_of(field, values)`: `FIELD = one_of("a", "b")` from a comma-separated value (a step can
  pass `{{ steps.find.outputs.hosts | join(',') }}`); at most `MAX_ANY_OF` values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextvars import ContextVar
from functools import lru_cache
from types import CodeType
from typing import TYPE_CHECKING, Any, Callable, Optional, Union
from urllib.parse import unquote

import re2
from jinja2 import StrictUndefined, Template, TemplateError, nodes
from jinja2.environment import TemplateExpression
from jinja2.sandbox import SandboxedEnvironment

from mlwiki.errors import BadInput
from mlwiki.logs.workload import selector_clauses
from mlwiki.wiki import MESSAGE_FIELDS
from mlwiki.wiki_cache import template_code

if TYPE_CHECKING:
    from mlwiki.logs.query import Node
    from mlwiki.wiki import Action, Symptom, Wiki

AUTOSCALER_MESSAGE_ID_FIELDS = (
    "jsonPayload.resultInfo.results.errorMsg.messageId",
    "jsonPayload.noDecisionStatus.noScaleUp.reason.messageId",
    "jsonPayload.noDecisionStatus.noScaleUp.unhandledPodGroups.napFailReasons.messageId",
    "jsonPayload.noDecisionStatus.noScaleUp.unhandledPodGroups.rejectedMigs.reason.messageId",
)
# A LogEntry holds one of these payloads; which one a query can select is read off its filter.
PAYLOADS = frozenset({"textPayload", "jsonPayload", "protoPayload"})
_NOT_AUDIT = frozenset({"textPayload", "jsonPayload"})
# GKE's own resource types and logs: container output, events, node journals, never an audit entry.
RESOURCE_TYPES_WITHOUT_AUDIT = frozenset({"k8s_container", "k8s_pod", "k8s_node"})
LOG_IDS_WITHOUT_AUDIT = frozenset(
    {
        "stdout",
        "stderr",
        "events",
        "kubelet",
        "container-runtime",
        "docker",
        "kube-proxy",
        "node-problem-detector",
        "serialconsole.googleapis.com/serial_port_1_output",
        "container.googleapis.com/cluster-autoscaler-visibility",
    }
)
AUDIT_LOG_PREFIX = "cloudaudit.googleapis.com/"
# Param name -> the kubectl flag the engine adds, and every spelling that means the template set it.
KUBECTL_SCOPE_FLAGS = {
    "context": ("--context", ("--context",)),
    "namespace": ("--namespace", ("--namespace", "-n", "--all-namespaces", "-A")),
}
# A field path as the Logging query language writes it: dotted names, quoted segments allowed.
# An autoscaler messageId such as `scale.up.error.out.of.resources`.
_MESSAGE_ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+")
_FIELD_PATH = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\.([A-Za-z_][A-Za-z0-9_]*|"[^"\\\n]+"))*')


class QueryFragment(str):
    """Query text a helper built itself from quoted values: inserted as is, not quoted again."""


_EXPRESSION: ContextVar[Optional[str]] = ContextVar("expression", default=None)


class Sandbox(SandboxedEnvironment):
    """Jinja's sandbox, whose compiled code is kept between commands (`TemplateCode` in
    `mlwiki.wiki_cache`) under the sandbox's `name` and the template's or expression's text:
    generating a template's Python is most of what compiling it costs. A text that does not
    parse is never kept, so its error is raised again."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(**options)
        self.name = name

    def compile_expression(self, source: str, undefined_to_none: bool = True) -> TemplateExpression:
        code = template_code().code(self.name, "expression", source)
        if code is not None:  # it compiled before, so it parses: what Jinja builds from the code
            template = self.template_class.from_code(self, code, self.make_globals(None), None)
            return TemplateExpression(template, undefined_to_none)
        token = _EXPRESSION.set(source)  # `compile` keeps the code under the expression's text
        try:
            return super().compile_expression(source, undefined_to_none)
        finally:
            _EXPRESSION.reset(token)

    def compile(  # type: ignore[override]
        self,
        source: Union[str, nodes.Template],
        name: Optional[str] = None,
        filename: Optional[str] = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Union[str, CodeType]:
        if raw or defer_init or name is not None or filename is not None:
            return super().compile(source, name, filename, raw, defer_init)
        cache = template_code()
        if isinstance(source, str):
            parts = (self.name, "template", source)
            code = cache.code(*parts)
            if code is not None:
                return code
        else:  # the template `compile_expression` builds around an expression
            expression = _EXPRESSION.get()
            if expression is None:
                return super().compile(source)
            parts = (self.name, "expression", expression)
        code = super().compile(source)
        cache.keep(code, *parts)
        return code


@lru_cache(maxsize=1)
def command_environment() -> SandboxedEnvironment:
    """The sandbox for command elements and expressions: values are inserted as they are."""
    return Sandbox("command", undefined=StrictUndefined, autoescape=False)


def _quote(value: Any) -> str:
    from mlwiki.logs.query import quote

    return quote(value if isinstance(value, str) else str(value))


def _finalize_filter_value(value: Any) -> str:
    return value if isinstance(value, QueryFragment) else _quote(value)


@lru_cache(maxsize=1)
def filter_environment() -> SandboxedEnvironment:
    """The sandbox for filters: every `{{ value }}` is rendered as a quoted query literal."""
    return Sandbox(
        "filter", undefined=StrictUndefined, autoescape=False, finalize=_finalize_filter_value
    )


def workload_selector(workload: str) -> QueryFragment:
    """Entries of the workload: an owner label (JobSet, Job, LeaderWorkerSet; both spellings) or
    a pod named exactly like it or `WORKLOAD-…` (`mlwiki.logs.workload`)."""
    return QueryFragment(f"({' OR '.join(selector_clauses(workload, _quote))})")


def time_window(start: str, end: str) -> QueryFragment:
    return QueryFragment(f"timestamp>={_quote(start)} AND timestamp<={_quote(end)}")


def strip_group_names(pattern: str) -> str:
    """`(?P<task>…)` / `(?<task>…)` → `(?:…)`: patterns can share one alternation, and a query
    sent to Cloud Logging carries no group names."""
    if "(?P<" not in pattern and "(?<" not in pattern:  # most have none: nothing to rewrite
        return pattern
    out: list[str] = []
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index : index + 2])
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            # A `]` right after `[` or `[^` is a literal member of the class.
            for literal in ("^]", "]"):
                if pattern.startswith(literal, index + 1):
                    out.append(char + literal)
                    index += 1 + len(literal)
                    break
            else:
                out.append(char)
                index += 1
            continue
        elif char == "(":
            named = re.match(r"\(\?P?<[A-Za-z_][A-Za-z0-9_]*>", pattern[index:])
            if named:
                out.append("(?:")
                index += named.end()
                continue
        out.append(char)
        index += 1
    return "".join(out)


def symptom_clauses(
    wiki: Wiki, symptom_id: str, payloads: frozenset[str] = PAYLOADS
) -> QueryFragment:
    """The `symptom_match("id")` helper: the page's signatures as one OR of `=~` clauses, on
    the fields of the `payloads` the query can select (see the module docstring)."""
    symptom = wiki.symptoms.get(symptom_id)
    if symptom is None:
        raise BadInput(f"symptom_match({symptom_id!r}): no symptom page with that id")
    regexes = symptom_regexes(symptom)
    selectable = {path: regex for path, regex in regexes.items() if _selectable(path, payloads)}
    clauses = [f"{path}=~{_quote(regex)}" for path, regex in (selectable or regexes).items()]
    return QueryFragment(f"({' OR '.join(clauses)})")


def _selectable(path: str, payloads: frozenset[str]) -> bool:
    top = path.split(".", 1)[0]
    return top not in PAYLOADS or top in payloads


def selectable_payloads(node: Node) -> frozenset[str]:
    """The payloads an entry matching the filter `node` can hold (a superset: see the module
    docstring)."""
    from mlwiki.logs.query import And, Call, Compare, Or

    if isinstance(node, Compare) and node.op == "=":
        if node.path == ("resource", "type"):
            return (
                _NOT_AUDIT if node.value.text.lower() in RESOURCE_TYPES_WITHOUT_AUDIT else PAYLOADS
            )
        if node.path == ("logName",) and "/logs/" in node.value.text:
            return _payloads_of_log(unquote(node.value.text.rpartition("/logs/")[2]))
        return PAYLOADS
    if isinstance(node, Call) and node.name == "log_id":
        return _payloads_of_log(node.args[0].text)  # type: ignore[union-attr]
    if isinstance(node, And):
        return frozenset.intersection(PAYLOADS, *(selectable_payloads(i) for i in node.items))
    if isinstance(node, Or):
        return frozenset().union(*(selectable_payloads(item) for item in node.items))
    return PAYLOADS


def _payloads_of_log(log_id: str) -> frozenset[str]:
    if log_id.startswith(AUDIT_LOG_PREFIX):
        return frozenset({"protoPayload"})
    return _NOT_AUDIT if log_id in LOG_IDS_WITHOUT_AUDIT else PAYLOADS


def symptom_regexes(symptom: Symptom) -> dict[str, str]:
    """The field paths and regexes of `symptom_match` for one page (see the module docstring);
    the diagnosis' pass answers exactly these clauses from its own matches."""
    symptom_id = symptom.id
    if not symptom.signatures:
        raise BadInput(f"symptom_match({symptom_id!r}): the page has no signatures")
    by_field: dict[str, list[str]] = {}
    anywhere: list[str] = []
    message_ids: list[str] = []
    id_examples = [e.line for e in symptom.examples if _MESSAGE_ID.fullmatch(e.line)]
    for signature in symptom.signatures:
        if signature.field:
            if not _FIELD_PATH.fullmatch(signature.field):
                raise BadInput(
                    f"symptom_match({symptom_id!r}): signature field {signature.field!r} "
                    "is not a field path"
                )
            by_field.setdefault(signature.field, []).append(signature.pattern)
            continue
        anywhere.append(signature.pattern)
        if any(re2.search(signature.pattern, line) for line in id_examples):
            message_ids.append(signature.pattern)
    for path in MESSAGE_FIELDS:
        if anywhere:
            by_field.setdefault(path, []).extend(anywhere)
    for path in AUTOSCALER_MESSAGE_ID_FIELDS:
        if message_ids:
            by_field.setdefault(path, []).extend(message_ids)
    joined: dict[tuple[str, ...], str] = {}  # the message fields share their patterns
    regexes: dict[str, str] = {}
    for path, patterns in by_field.items():
        key = tuple(patterns)
        if key not in joined:
            joined[key] = _alternation(patterns)
        regexes[path] = joined[key]
    return regexes


def _alternation(patterns: list[str]) -> str:
    """One RE2 for a query: group names mean nothing to Cloud Logging, so none are sent."""
    if len(patterns) == 1:
        return strip_group_names(patterns[0])
    return "|".join(f"(?:{strip_group_names(p)})" for p in patterns)


@lru_cache(maxsize=1024)
def compiled_template(env: SandboxedEnvironment, template: str) -> Template:
    """`template` compiled in the sandbox `env`, once per process: every render, check and
    workflow step that uses the same text reuses it."""
    return env.from_string(template)


def _render(
    env: SandboxedEnvironment,
    template: str,
    values: Mapping[str, Any],
    where: str,
    functions: Optional[Mapping[str, Callable[..., Any]]] = None,
) -> str:
    try:
        return compiled_template(env, template).render({**values, **(functions or {})})
    except BadInput:
        raise
    except TemplateError as error:
        raise BadInput(f"{where}: cannot render {template!r}: {error}") from None


def render_command(action: Action, values: Mapping[str, Any]) -> list[str]:
    """The argument list of a kubectl or gcloud action, every value checked to stay one argument."""
    template = action.command
    program = action.kind
    if not template or template[0] != program:
        raise BadInput(
            f"{action.path}: action {action.id}: command must start with {program!r} (its kind), "
            f"not {template[0] if template else 'nothing'!r}"
        )
    argv = [program]
    for position, element in enumerate(template[1:], start=1):
        where = f"{action.path}: action {action.id}: command[{position}]"
        rendered = _render(command_environment(), element, values, where)
        if rendered == "":
            continue
        if rendered.startswith("-") and not _authors_flag(element, values, where):
            raise BadInput(f"{where}: renders to {rendered!r}, which would be taken for a flag")
        if "\x00" in rendered or "\n" in rendered:
            raise BadInput(f"{where}: renders to a value with NUL or a line break")
        argv.append(rendered)
    if program == "kubectl":
        argv[1:1] = _kubectl_scope_flags(template, values)
    return argv


def _authors_flag(element: str, values: Mapping[str, Any], where: str) -> bool:
    """Whether the leading `-` is the template's own text (`--tail={{ n }}`, also inside an
    `{% if %}`) rather than a value's: render again with every value replaced by a letter."""
    probe = _render(command_environment(), element, {name: "x" for name in values}, where)
    return probe.startswith("-")


def _kubectl_scope_flags(template: list[str], values: Mapping[str, Any]) -> list[str]:
    flags = []
    for name, (flag, spellings) in KUBECTL_SCOPE_FLAGS.items():
        uses_param = re.compile(rf"{{{{[^}}]*\b{name}\b")
        placed = any(
            element.split("=", 1)[0] in spellings or uses_param.search(element)
            for element in template[1:]
        )
        if not placed and values.get(name):
            flags.append(f"{flag}={values[name]}")
    return flags


MAX_ANY_OF = 100
_METRIC_FIELD = re.compile(
    r"(metric|resource)\.labels?\.[a-z][a-z0-9_]*|metadata\.system_labels\.[a-z][a-z0-9_]*"
)


def workload_pods(workload: str) -> QueryFragment:
    """The workload's pods in a metric filter: pod names start with `WORKLOAD-`."""
    return QueryFragment(f"resource.labels.pod_name = starts_with({_quote(f'{workload}-')})")


def any_of(field: str, values: Any) -> QueryFragment:
    """`FIELD = one_of(...)` for a comma-separated list of values (each quoted)."""
    if not isinstance(field, str) or not _METRIC_FIELD.fullmatch(field):
        raise BadInput(
            f"any_of({field!r}, …): the first argument is a label field like resource.labels.node_name"
        )
    items = [v.strip() for v in str(values).split(",") if v.strip()]
    if not items:
        raise BadInput(f"any_of({field}, …): no values")
    if len(items) > MAX_ANY_OF:
        raise BadInput(f"any_of({field}, …): {len(items)} values; at most {MAX_ANY_OF}")
    return QueryFragment(f"{field} = one_of({', '.join(_quote(v) for v in items)})")


def render_metric_filter(action: Action, values: Mapping[str, Any]) -> str:
    """The Monitoring filter of a metric_query action, every value quoted as a filter string."""
    functions = {"workload_pods": workload_pods, "any_of": any_of}
    where = f"{action.path}: action {action.id}: filter"
    return _render(filter_environment(), action.filter or "", values, where, functions)


ANY_ENTRY = QueryFragment('timestamp>="1970-01-01T00:00:00Z"')


def render_filter(
    action: Action, values: Mapping[str, Any], wiki: Wiki, *, coverage: bool = False
) -> str:
    """The Logging query of a log_query action, every value quoted as a query string.

    `coverage=True` renders what the query looks through rather than what it looks for: each
    `symptom_match(...)` becomes a clause every entry passes, so the result selects the entries
    (sources, resources, window) the signatures were matched against."""
    where = f"{action.path}: action {action.id}: filter"
    template = action.filter or ""
    functions: dict[str, Callable[..., Any]] = {
        "workload_selector": workload_selector,
        "time_window": time_window,
        "symptom_match": lambda symptom_id: ANY_ENTRY,
    }
    looked_through = _render(filter_environment(), template, values, where, functions)
    if coverage or "symptom_match" not in template:
        return looked_through
    from mlwiki.logs.query import compile_filter

    try:
        payloads = selectable_payloads(compile_filter(looked_through, where).tree)
    except BadInput:  # a construct the local language lacks: nothing is known, nothing is left out
        payloads = PAYLOADS
    functions["symptom_match"] = lambda symptom_id: symptom_clauses(wiki, symptom_id, payloads)
    return _render(filter_environment(), template, values, where, functions)
