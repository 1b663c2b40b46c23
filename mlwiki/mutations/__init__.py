"""Which kubectl, gcloud, gsutil and helm invocations only read — one judgement for all callers.

The engine's approval gate (`mlwiki.engine.actions.is_mutating`), the wiki linter's
mutating-command rule (E501) and the agents' PreToolUse hook (`mlwiki.guard`) all call
`classify`. It fails closed by construction: each tool's own grammar is parsed (global flags
with their arities, command groups, `--flag=value`, short flags), and an invocation is a read
only when its full command path is on that tool's allowlist of known reads and its arguments
pass the command's own check (Secrets, credentials, local programs). Anything else — a changing
command, an unknown command or plugin, a flag whose arity is not known before the command path
is complete, a word only known at run time (`DYNAMIC`) — needs approval (`mutating=True`). The
reasoning per tool is in each module's docstring, with its reference pages.

`Verdict.category` says why: READ, CHANGE, SENSITIVE (reads that print secrets or run local
programs) or UNKNOWN.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Callable, Optional

from mlwiki.mutations.base import CHANGE, DYNAMIC, READ, SENSITIVE, UNKNOWN, Verdict, is_dynamic


def _classifier(tool: str) -> Callable[[Sequence[str]], Verdict]:
    """The `classify` of the tool's module (`mlwiki.mutations.TOOL`), imported when it first
    judges a command: each module builds its tool's command tree, and a caller judges one or
    two tools (a diagnosis' workflows run kubectl, a guard hook sees one program)."""

    def classify_with(args: Sequence[str]) -> Verdict:
        module = importlib.import_module(f"mlwiki.mutations.{tool}")
        verdict: Verdict = module.classify(args)
        return verdict

    return classify_with


CLASSIFIERS: dict[str, Callable[[Sequence[str]], Verdict]] = {
    tool: _classifier(tool) for tool in ("kubectl", "gcloud", "gsutil", "helm")
}


def program_name(word: str) -> str:
    """`/usr/bin/kubectl` → `kubectl` (the name a classifier is registered under)."""
    return PurePosixPath(word).name


def classify(argv: Sequence[str]) -> Optional[Verdict]:
    """Judge one command's argv; None when the program is not one this module knows."""
    if not argv or is_dynamic(argv[0]):
        return None
    classifier = CLASSIFIERS.get(program_name(argv[0]))
    return classifier(argv[1:]) if classifier else None


__all__ = [
    "CHANGE",
    "CLASSIFIERS",
    "DYNAMIC",
    "READ",
    "SENSITIVE",
    "UNKNOWN",
    "Verdict",
    "classify",
    "is_dynamic",
    "program_name",
]
