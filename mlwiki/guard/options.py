"""getopt-style option scanning for the programs the guard looks through (sudo, timeout, xargs…).

`scan` reads options the way POSIX/GNU getopt does for programs that stop at their first
operand (`sudo`, `env`, `timeout`, `nice`, `xargs`, `strace`…): `-abc` is a cluster of switches,
`-n5` and `-n 5` give `-n` a value, `--name=value` and `--name value` a long option its value,
`--` ends the options. An option the table does not know raises `UnknownOption`: the guard does
not know how many words it takes, so it cannot tell which word is the command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mlwiki.mutations import is_dynamic


class UnknownOption(Exception):
    """An option whose arity is not known (or a computed word where an option may stand)."""


@dataclass
class Scanned:
    options: list[tuple[str, str]] = field(default_factory=list)  # (option, value or "")
    operands: list[str] = field(default_factory=list)  # everything from the first operand on

    def has(self, *names: str) -> bool:
        return any(option in names for option, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [value for option, value in self.options if option in names]


def scan(args: Sequence[str], spec: Mapping[str, bool]) -> Scanned:
    """Split `args` into options and operands; `spec` maps `-x`/`--long` to "takes a value"."""
    result = Scanned()
    index = 0
    while index < len(args):
        word = args[index]
        if is_dynamic(word):
            raise UnknownOption("a computed word stands where an option may be")
        if word == "--":
            result.operands = list(args[index + 1 :])
            return result
        if not word.startswith("-") or word == "-":
            result.operands = list(args[index:])
            return result
        index += 1
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            if name not in spec:
                raise UnknownOption(name)
            if spec[name] and not eq:
                if index >= len(args):
                    raise UnknownOption(f"{name} without its value")
                value = args[index]
                index += 1
            result.options.append((name, value))
            continue
        cluster = word[1:]
        while cluster:
            name = "-" + cluster[0]
            if name not in spec:
                raise UnknownOption(name)
            if spec[name]:
                value = cluster[1:]
                if not value:
                    if index >= len(args):
                        raise UnknownOption(f"{name} without its value")
                    value = args[index]
                    index += 1
                result.options.append((name, value))
                break
            result.options.append((name, ""))
            cluster = cluster[1:]
    return result


def switches(names: str) -> dict[str, bool]:
    """`"-a -b --long"` → those options as switches (no value)."""
    return dict.fromkeys(names.split(), False)


def valued(names: str) -> dict[str, bool]:
    """`"-u --user"` → those options as taking a value."""
    return dict.fromkeys(names.split(), True)
