"""Command trees of tools built on Go's cobra (kubectl, helm), resolved the way cobra does.

cobra finds the command before it parses flags: it walks the words left to right, skips each
flag it knows and — for a flag it does not know as a boolean — also the word after it, and takes
the first remaining word as the subcommand. So in `kubectl --selector get delete pods` the word
`get` is the value of `--selector` and the command is `delete`. To reach the same command as the
tool every time, resolution here accepts only flags whose arity it knows from the tool's
reference (value-taking or boolean, `--flag=value`, `-nVALUE`); any other flag before the
command path is complete makes the invocation UNKNOWN (ask), never a guess. Once a leaf command
is reached, the remaining words are that command's arguments and only its own `check` looks at
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from mlwiki.mutations.base import (
    CHANGE,
    READ,
    SENSITIVE,
    UNKNOWN,
    Verdict,
    dynamic_word,
    flag_name,
    flag_width,
    verdict,
)

# A check of a read command's arguments: a reason to ask, or None when they are a plain read.
Check = Callable[[Sequence[str]], Optional[str]]


@dataclass(frozen=True)
class Command:
    kind: str  # READ, CHANGE or SENSITIVE: what running this command itself does
    reason: str = ""
    children: Mapping[str, Command] = field(default_factory=dict)
    check: Optional[Check] = None


def read(reason: str = "only reads", check: Optional[Check] = None, **children: Command) -> Command:
    return Command(READ, reason, _names(children), check)


def change(reason: str) -> Command:
    return Command(CHANGE, reason)


def sensitive(reason: str) -> Command:
    return Command(SENSITIVE, reason)


def group(kind: str, reason: str, children: Mapping[str, Command]) -> Command:
    """A command with subcommands; `kind`/`reason` describe running it without one."""
    return Command(kind, reason, dict(children))


def _names(children: Mapping[str, Command]) -> dict[str, Command]:
    # Python keywords cannot carry hyphens; `api_resources=` stands for `api-resources`.
    return {name.replace("_", "-"): command for name, command in children.items()}


def aliases(command: Command, *names: str) -> dict[str, Command]:
    return dict.fromkeys(names, command)


@dataclass(frozen=True)
class Grammar:
    tool: str
    root: Command
    flags: Mapping[str, bool]  # global flags: True when the flag takes a value
    risky_flags: Mapping[str, str]  # global flags that make any command need approval, and why


def classify(grammar: Grammar, args: Sequence[str]) -> Verdict:
    """Judge `args` (the words after the program name) against `grammar`."""
    tool = grammar.tool
    dynamic = dynamic_word(tool, args)
    if dynamic:
        return dynamic
    for word in args:
        if word.startswith("-") and flag_name(word) in grammar.risky_flags:
            return verdict(
                SENSITIVE,
                tool,
                (),
                f"{tool} {flag_name(word)}: {grammar.risky_flags[flag_name(word)]}",
            )
    node, path, index = grammar.root, [], 0
    while node.children and index < len(args):
        word = args[index]
        if word.startswith("-") and word != "-":
            step = flag_width(grammar.flags, word)
            if step is None:
                return _stopped(tool, node, path, f"flag {word!r} before the command is complete")
            index += step
            continue
        child = node.children.get(word)
        if child is None:
            return _stopped(
                tool, node, path, f"{' '.join([tool, *path, word])!r} is not a known command"
            )
        node, path, index = child, [*path, word], index + 1
        if node.kind == CHANGE and not node.children:
            break
    return _judge(tool, node, path, args[index:])


def _stopped(tool: str, node: Command, path: list[str], why: str) -> Verdict:
    """Resolution could not go on: a known changing command stays one, anything else is unknown."""
    if node.kind == CHANGE and path:
        return verdict(CHANGE, tool, path, f"{tool} {' '.join(path)} {node.reason}")
    return verdict(UNKNOWN, tool, path, f"{tool}: {why}; not a known read")


def _judge(tool: str, node: Command, path: list[str], rest: Sequence[str]) -> Verdict:
    name = " ".join([tool, *path])
    if node.kind != READ:
        category = SENSITIVE if node.kind == SENSITIVE else CHANGE
        return verdict(category, tool, path, f"{name} {node.reason}")
    if node.check:
        concern = node.check(rest)
        if concern:
            return verdict(SENSITIVE, tool, path, f"{name} {concern}")
    return verdict(READ, tool, path, f"{name} {node.reason}")


def unknown_option(args: Sequence[str], known: Mapping[str, bool]) -> Optional[str]:
    """The first option in `args` that is not in `known` (name → takes a value), if any."""
    index = 0
    while index < len(args):
        word = args[index]
        if word.startswith("-") and word != "-":
            step = flag_width(known, word)
            if step is None:
                return flag_name(word)
            index += step
        else:
            index += 1
    return None
