"""Static checks of Jinja2 templates and expressions, as the engine's sandbox will see them.

Nothing is rendered: templates are parsed to an AST, and the names and attribute paths they use
(`params.node`, `steps.find.outputs.count`) are read from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from jinja2 import nodes
from jinja2.exceptions import TemplateSyntaxError
from jinja2.parser import Parser
from jinja2.sandbox import SandboxedEnvironment


@dataclass(frozen=True)
class Access:
    """A dotted access from a bare name: `steps.find.outputs.count` → ("steps", ("find", ...))."""

    root: str
    path: tuple[str, ...]


class TemplateProblem(ValueError):
    """A template or expression that does not parse; the message says where."""


@lru_cache(maxsize=1)
def environment() -> SandboxedEnvironment:
    return SandboxedEnvironment()


@lru_cache(maxsize=4096)
def parse_template(source: str) -> nodes.Template:
    """Parse a template once (the AST is shared: callers only read it)."""
    try:
        return environment().parse(source)
    except TemplateSyntaxError as error:
        raise TemplateProblem(f"template does not parse: {error.message}") from error


@lru_cache(maxsize=4096)
def parse_expression(source: str) -> nodes.Template:
    """Parse one Jinja2 expression (like `Environment.compile_expression`) into a template AST."""
    try:
        parser = Parser(environment(), source, state="variable")
        expression = parser.parse_expression()
        if not parser.stream.eos:
            raise TemplateSyntaxError(
                "unexpected text after the expression", parser.stream.current.lineno
            )
    except TemplateSyntaxError as error:
        raise TemplateProblem(f"expression does not parse: {error.message}") from error
    tree = nodes.Template([nodes.Output([expression], lineno=1)], lineno=1)
    tree.set_environment(environment())
    return tree


def free_names(tree: nodes.Template) -> set[str]:
    """Names the template reads from its context: loaded names minus those it binds itself
    (loop variables, `set`, macro params). Simpler than jinja2.meta's scope tracking, and
    enough for the short templates of actions and workflows."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for name in tree.find_all(nodes.Name):
        (loaded if name.ctx == "load" else bound).add(name.name)
    return loaded - bound


def accesses(tree: nodes.Node) -> list[Access]:
    """Every maximal attribute/constant-subscript chain that starts at a bare name."""
    found: list[Access] = []
    _collect(tree, found)
    return found


def _collect(node: nodes.Node, found: list[Access]) -> None:
    if isinstance(node, (nodes.Getattr, nodes.Getitem)):
        path: list[str] = []
        current: nodes.Node = node
        while True:
            if isinstance(current, nodes.Getattr):
                path.append(current.attr)
                current = current.node
            elif isinstance(current, nodes.Getitem) and isinstance(current.arg, nodes.Const):
                path.append(str(current.arg.value))
                current = current.node
            else:
                break
        if isinstance(current, nodes.Name) and path:
            found.append(Access(current.name, tuple(reversed(path))))
            _collect_subscripts(node, found)
            return
    if isinstance(node, nodes.Name):
        found.append(Access(node.name, ()))
        return
    for child in node.iter_child_nodes():
        _collect(child, found)


def _collect_subscripts(node: nodes.Node, found: list[Access]) -> None:
    """Inside a chain, only non-constant subscripts (`x[steps.a.outputs.i]`) hold more accesses."""
    while isinstance(node, (nodes.Getattr, nodes.Getitem)):
        if isinstance(node, nodes.Getitem) and not isinstance(node.arg, nodes.Const):
            _collect(node.arg, found)
        node = node.node


def calls(tree: nodes.Node, function: str) -> list[nodes.Call]:
    """Calls of the bare function `function(...)` in the tree."""
    return [
        call
        for call in tree.find_all(nodes.Call)
        if isinstance(call.node, nodes.Name) and call.node.name == function
    ]
