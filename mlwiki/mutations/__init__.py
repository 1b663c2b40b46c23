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

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Callable, Optional

from mlwiki.mutations import gcloud, gsutil, helm, kubectl
from mlwiki.mutations.base import CHANGE, DYNAMIC, READ, SENSITIVE, UNKNOWN, Verdict, is_dynamic

CLASSIFIERS: dict[str, Callable[[Sequence[str]], Verdict]] = {
    "kubectl": kubectl.classify,
    "gcloud": gcloud.classify,
    "gsutil": gsutil.classify,
    "helm": helm.classify,
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
