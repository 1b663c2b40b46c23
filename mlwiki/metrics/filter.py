"""The Cloud Monitoring filter language: parsed once, checked, and evaluated on time series.

A filter (https://cloud.google.com/monitoring/api/v3/filters) compares selectors with values:
`metric.type = "kubernetes.io/container/accelerator/duty_cycle" AND
resource.labels.pod_name = starts_with("llm-pretrain-")`. Selectors are `metric.type`,
`metric.labels.KEY` (or `metric.label.KEY`), `resource.type`, `resource.labels.KEY`,
`metadata.system_labels.KEY`, `metadata.user_labels.KEY` and `project`; a key with `.`, `/` or
`-` is double-quoted. Values are quoted strings, numbers, `true`/`false`, or one of the
functions `starts_with`, `ends_with`, `has_substring`, `one_of` and
`monitoring.regex.full_match` (RE2, whole value). Operators: `=`, `!=`, `:` (has substring) and
the orderings, which compare numbers.

Checks beyond the grammar, each a `BadInput` naming the place:
- `timeSeries.list` needs exactly one metric type, so a filter must hold exactly one
  `metric.type = "…"` comparison among its top-level AND terms (`metric_type`);
- AND and OR mixed without parentheses are refused: the documentation does not say which binds
  tighter, and a filter whose meaning depends on a guess is a wrong filter;
- a regular expression must compile under RE2.

The same compiled filter selects series in an offline bundle (`matches`), so a bundle answers a
metric query as Cloud Monitoring would.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional

import re2
from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput

from mlwiki.errors import BadInput
from mlwiki.logs.query import quote as _log_quote

# What a selector reads from a series: (section, key) → value, or None when absent.
Labels = Callable[[str, Optional[str]], Optional[str]]
Predicate = Callable[[Labels], bool]

SECTIONS = {
    ("metric", "type"): ("metric.type", None),
    ("resource", "type"): ("resource.type", None),
    ("project",): ("project", None),
}
LABEL_SECTIONS = {
    ("metric", "labels"): "metric",
    ("metric", "label"): "metric",
    ("resource", "labels"): "resource",
    ("resource", "label"): "resource",
    ("metadata", "system_labels"): "system",
    ("metadata", "user_labels"): "user",
}


def quote(value: object) -> str:
    """`value` as a double-quoted filter string: `\\`, `"` and control characters escaped, so a
    template value can never close the string or add a clause (the log filters' own rule)."""
    return _log_quote(value)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    from mlwiki.grammar import parser

    return parser("monitoring-filter")  # filter.lark, from its generated tables


def _unquote(text: str) -> str:
    body = text[1:-1]
    out: list[str] = []
    escapes = {"n": "\n", "r": "\r", "t": "\t"}
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            following = body[index + 1]
            out.append(escapes.get(following, following))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


@dataclass(frozen=True)
class Selector:
    """`section` is metric.type, resource.type, project, or a label section with its `key`."""

    section: str
    key: Optional[str]

    def __str__(self) -> str:
        if self.key is None:
            return self.section
        prefix = {"system": "metadata.system_labels", "user": "metadata.user_labels"}
        return f"{prefix.get(self.section, self.section + '.labels')}.{self.key}"


@dataclass(frozen=True)
class CompiledFilter:
    text: str
    predicate: Predicate
    metric_type: str
    selectors: frozenset[Selector] = frozenset()

    @property
    def label_selectors(self) -> frozenset[Selector]:
        """The labels the filter reads (`resource.labels.pod_name` → ("resource", "pod_name"))."""
        return frozenset(s for s in self.selectors if s.key is not None)

    def matches(self, labels: Labels) -> bool:
        return self.predicate(labels)


def _selector(tree: Tree, where: str) -> Selector:
    parts = [
        _unquote(str(token)) if token.type == "STRING" else str(token)
        for token in tree.children
        if isinstance(token, Token)
    ]
    head = tuple(parts[:2])
    if tuple(parts) in SECTIONS:
        return Selector(SECTIONS[tuple(parts)][0], None)
    if head in LABEL_SECTIONS and len(parts) == 3:
        return Selector(LABEL_SECTIONS[head], parts[2])
    known = "metric.type, resource.type, project, metric.labels.KEY, resource.labels.KEY, metadata.system_labels.KEY, metadata.user_labels.KEY"
    line = getattr(tree.meta, "line", 0) if hasattr(tree, "meta") else 0
    raise BadInput(f"{where}: '{'.'.join(parts)}' is not a selector ({known}){_at(line)}")


def _at(line: int) -> str:
    return f" (line {line})" if line else ""


def _value_matcher(value: Tree, op: str, where: str) -> Callable[[Optional[str]], bool]:
    kind = value.data
    if kind == "call":
        name = str(value.children[0])
        arguments = [_unquote(str(t)) for t in value.children[1:] if isinstance(t, Token)]
        if op not in ("=", "!="):
            raise BadInput(f"{where}: {name}() needs '=' or '!=', not {op!r}")
        test = _function(name, arguments, where)
        return (lambda v: v is not None and test(v)) if op == "=" else (lambda v: not test(v or ""))
    token = value.children[0]
    if kind == "string":
        wanted = _unquote(str(token))
    elif kind == "boolean":
        wanted = str(token)
    else:
        wanted = str(token)
    if op == "=":
        return lambda v: v == wanted
    if op == "!=":
        return lambda v: v != wanted
    if op == ":":
        return lambda v: v is not None and wanted in v
    try:
        number = float(wanted)
    except ValueError:
        raise BadInput(f"{where}: {op!r} compares numbers, not {wanted!r}") from None
    compare = {
        ">": lambda a: a > number,
        "<": lambda a: a < number,
        ">=": lambda a: a >= number,
        "<=": lambda a: a <= number,
    }[op]

    def ordered(v: Optional[str]) -> bool:
        try:
            return v is not None and compare(float(v))
        except ValueError:
            return False

    return ordered


def _function(name: str, arguments: list[str], where: str) -> Callable[[str], bool]:
    if name == "one_of":
        if not arguments:
            raise BadInput(f"{where}: one_of() needs at least one value")
        choices = frozenset(arguments)
        return lambda v: v in choices
    if len(arguments) != 1:
        raise BadInput(f"{where}: {name}() takes exactly one string")
    argument = arguments[0]
    if name == "starts_with":
        return lambda v: v.startswith(argument)
    if name == "ends_with":
        return lambda v: v.endswith(argument)
    if name == "has_substring":
        return lambda v: argument in v
    try:
        pattern = re2.compile(argument)
    except re2.error as error:
        raise BadInput(f"{where}: {name}({argument!r}): not RE2: {error}") from None
    return lambda v: pattern.fullmatch(v) is not None


def _compile(tree: Tree, where: str) -> Predicate:
    kind = tree.data
    if kind == "group":
        return _compile(tree.children[0], where)
    if kind == "negation":
        inner = _compile(tree.children[-1], where)
        return lambda labels: not inner(labels)
    if kind in ("disjunction", "conjunction"):
        parts = [_compile(c, where) for c in tree.children if isinstance(c, Tree)]
        if kind == "disjunction":
            for child in tree.children:
                if isinstance(child, Tree) and child.data == "conjunction":
                    raise BadInput(
                        f"{where}: AND and OR are mixed without parentheses; write "
                        "(a AND b) OR c or a AND (b OR c)"
                    )
            return lambda labels: any(p(labels) for p in parts)
        return lambda labels: all(p(labels) for p in parts)
    if kind == "comparison":
        selector = _selector(tree.children[0], where)
        op = str(tree.children[1])
        matcher = _value_matcher(tree.children[2], op, where)
        return lambda labels: matcher(labels(selector.section, selector.key))
    raise BadInput(f"{where}: unsupported filter construct {kind!r}")  # pragma: no cover


def _top_terms(tree: Tree) -> list[Tree]:
    """The AND terms at the top of the filter (a filter that is one term is its own list)."""
    while tree.data == "group":
        tree = tree.children[0]
    if tree.data == "conjunction":
        out: list[Tree] = []
        for child in tree.children:
            if isinstance(child, Tree):
                out.extend(_top_terms(child) if child.data == "group" else [child])
        return out
    return [tree]


def _metric_types(tree: Tree) -> list[str]:
    found = []
    for term in _top_terms(tree):
        if term.data != "comparison":
            continue
        selector, op, value = term.children
        parts = [str(t) for t in selector.children]
        if parts == ["metric", "type"] and str(op) == "=" and value.data == "string":
            found.append(_unquote(str(value.children[0])))
    return found


def _all_metric_type_uses(tree: Tree) -> int:
    count = 0
    for node in tree.iter_subtrees():
        if node.data == "comparison":
            parts = [str(t) for t in node.children[0].children]
            count += parts == ["metric", "type"]
    return count


@functools.lru_cache(maxsize=512)
def compile_filter(text: str, where: str = "filter") -> CompiledFilter:
    """The filter `text` compiled; BadInput (naming `where`, line and column) when it is not a
    valid, single-metric Monitoring filter."""
    if not text.strip():
        raise BadInput(f"{where}: empty filter: it must name one metric.type")
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise BadInput(
            f"{where}: not a Monitoring filter at line {error.line}, column {error.column}: "
            f"{error.get_context(text).strip().splitlines()[0]!r}"
        ) from None
    except LarkError as error:  # pragma: no cover - other parser errors
        raise BadInput(f"{where}: not a Monitoring filter: {error}") from None
    root = tree.children[0]
    predicate = _compile(root, where)
    types = _metric_types(root)
    if len(types) != 1 or _all_metric_type_uses(root) != 1:
        raise BadInput(
            f"{where}: a time-series filter names exactly one metric type as a top-level "
            f'`metric.type = "…"` term (found {len(types) or "none"})'
        )
    selectors = frozenset(
        _selector(node.children[0], where)
        for node in root.iter_subtrees()
        if node.data == "comparison"
    )
    return CompiledFilter(text, predicate, types[0], selectors)


def labels_reader(series: Mapping[str, Any]) -> Labels:
    """The selector view of one time series in the REST JSON form of `timeSeries.list`."""
    metric = series.get("metric") or {}
    resource = series.get("resource") or {}
    metadata = series.get("metadata") or {}
    sections = {
        "metric": metric.get("labels") or {},
        "resource": resource.get("labels") or {},
        "system": metadata.get("systemLabels") or metadata.get("system_labels") or {},
        "user": metadata.get("userLabels") or metadata.get("user_labels") or {},
    }

    def read(section: str, key: Optional[str]) -> Optional[str]:
        if section == "metric.type":
            return metric.get("type")
        if section == "resource.type":
            return resource.get("type")
        if section == "project":
            return sections["resource"].get("project_id")
        value = sections.get(section, {}).get(key or "")
        if value is None:
            return None
        return (
            value
            if isinstance(value, str)
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
        )

    return read
