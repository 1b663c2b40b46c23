"""What a classifier says about one command line, and the word-level helpers every tool shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

# The categories of a verdict. Only READ runs without the user's approval.
READ = "read"  # on the allowlist of known reads
CHANGE = "change"  # a known command that changes something
SENSITIVE = "sensitive"  # reads, but dumps secrets or runs local programs
UNKNOWN = "unknown"  # not on the allowlist, or not parsable the way the tool would parse it

# Stands for a word whose value is only known when the shell runs the command (`$VAR`, `$(…)`,
# a glob, the arguments `xargs` appends). A NUL can never be part of a real argument, so no
# command line can spell this marker.
DYNAMIC = "\0dynamic\0"


def is_dynamic(word: str) -> bool:
    return "\0" in word


@dataclass(frozen=True)
class Verdict:
    """`mutating` is True when the invocation needs the user's approval (anything but READ).

    `verb` is the command path as the tool itself resolves it ("get", "rollout restart",
    "compute instances delete"); `reason` is a sentence for the person asked to approve.
    """

    mutating: bool
    tool: str
    verb: str
    reason: str
    category: str = CHANGE


def verdict(category: str, tool: str, path: Sequence[str], reason: str) -> Verdict:
    return Verdict(category != READ, tool, " ".join(path), reason, category)


def dynamic_word(tool: str, argv: Sequence[str]) -> Optional[Verdict]:
    """A verdict for an argv with a run-time word: any word can carry a flag or a verb."""
    for position, word in enumerate(argv, start=1):
        if is_dynamic(word):
            return verdict(
                UNKNOWN,
                tool,
                (),
                f"{tool}: argument {position} is only known when the shell runs it "
                "(an expansion, substitution, glob or appended input), so the command cannot be "
                "checked",
            )
    return None


def flag_name(word: str) -> str:
    """`--context=prod` → `--context`; `-nfoo` → `-n`; `-n` → `-n`."""
    if word.startswith("--"):
        return word.split("=", 1)[0]
    return word[:2]


def flag_width(flags: Mapping[str, bool], word: str) -> Optional[int]:
    """How many words a flag occupies (1 or 2), or None when `flags` does not know its arity.

    `flags` maps a flag to True when it takes a value. `--flag=value` and `-nVALUE` carry their
    value; `-abc` as combined boolean shorthands is not accepted (None).
    """
    if word == "--":
        return None
    name = flag_name(word)
    if name not in flags:
        return None
    attached = "=" in word if word.startswith("--") else len(word) > 2
    if attached:
        return 1 if word.startswith("--") or flags[name] else None
    return 2 if flags[name] else 1
