"""Workflow expressions (`if`, step and workflow `outputs`) and text templates (summaries, `with`).

All are Jinja2, compiled in the same sandbox as the action templates — never Python `eval`. The
names in scope are `params` (the workflow's parameters), `steps` (`steps.ID.status`,
`steps.ID.outputs.NAME`) and, in a step's own `outputs`, `result` (that step's result).

`references(source)` lists the `steps.ID` and `params.NAME` an expression uses, so a workflow can be
checked before it runs: a reference to an unknown step or parameter is an authoring error. At run
time, a name that is missing because an earlier step did not produce it (skipped, failed) raises
`Unresolved`, which the workflow runner turns into a skipped step or a conclusion that does not
apply — never into a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from jinja2 import TemplateError, Undefined, UndefinedError, nodes

from mlwiki.engine.render import command_environment, compiled_template
from mlwiki.errors import BadInput


class Unresolved(Exception):
    """An expression used a name that has no value in this run (e.g. a skipped step's output)."""


@dataclass(frozen=True)
class Where:
    """Where an expression lives, for error messages: file, step (or section) and field."""

    file: str
    place: str

    def __str__(self) -> str:
        return f"{self.file}: {self.place}"


@lru_cache(maxsize=2048)
def _expression(source: str) -> Callable[..., Any]:
    return command_environment().compile_expression(source, undefined_to_none=False)


def compile_expression(source: str, where: Where) -> Callable[..., Any]:
    try:
        return _expression(source)
    except TemplateError as error:
        raise BadInput(f"{where}: invalid expression {source!r}: {error}") from None


def evaluate(source: str, scope: Mapping[str, Any], where: Where) -> Any:
    """The value of expression `source` in `scope`."""
    function = compile_expression(source, where)
    try:
        value = function(**scope)
    except UndefinedError as error:
        raise Unresolved(f"{where}: {source!r}: {error}") from None
    except TemplateError as error:
        raise BadInput(f"{where}: cannot evaluate {source!r}: {error}") from None
    except (TypeError, ValueError, ArithmeticError, LookupError) as error:
        raise BadInput(f"{where}: cannot evaluate {source!r}: {error}") from None
    # A bare missing name evaluates to an Undefined object instead of raising.
    if isinstance(value, Undefined):
        raise Unresolved(f"{where}: {source!r}: {value._undefined_message}")
    return value


def is_true(source: str, scope: Mapping[str, Any], where: Where) -> bool:
    return bool(evaluate(source, scope, where))


def render_text(template: str, scope: Mapping[str, Any], where: Where) -> str:
    """A text with `{{ … }}` templates (a conclusion's summary, a step's `with` value)."""
    try:
        compiled = compiled_template(command_environment(), template)
    except TemplateError as error:
        raise BadInput(f"{where}: invalid template {template!r}: {error}") from None
    try:
        return compiled.render(**scope)
    except UndefinedError as error:
        raise Unresolved(f"{where}: {template!r}: {error}") from None
    except TemplateError as error:
        raise BadInput(f"{where}: cannot render {template!r}: {error}") from None
    except (TypeError, ValueError, ArithmeticError, LookupError) as error:
        raise BadInput(f"{where}: cannot render {template!r}: {error}") from None


def has_template(text: str) -> bool:
    return "{{" in text or "{%" in text


@lru_cache(maxsize=2048)
def references(source: str, *, template: bool = False) -> frozenset[tuple[str, str]]:
    """(`steps`, ID) and (`params`, NAME) pairs an expression or template refers to (each
    distinct source parsed once per process)."""
    env = command_environment()
    try:
        tree = env.parse(source if template else f"{{{{ {source} }}}}")
    except TemplateError:
        return frozenset()  # compile_expression / render_text report the syntax error
    found: set[tuple[str, str]] = set()
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        base = node.node
        if isinstance(base, nodes.Name) and base.name in ("steps", "params"):
            if isinstance(node, nodes.Getattr):
                found.add((base.name, node.attr))
            elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
                found.add((base.name, node.arg.value))
    return frozenset(found)
