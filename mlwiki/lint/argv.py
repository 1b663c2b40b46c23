"""Read an action's argument list the way kubectl, gcloud and a shell would.

Which verbs change things is decided in `mlwiki.mutations` (fail closed: a verb not known to be
read-only counts as mutating); this module adds what only the linter needs: shell syntax checks.
"""

from __future__ import annotations

import re
from typing import Optional

from mlwiki.mutations import classify
from mlwiki.wiki import Action

SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "cmd", "powershell", "pwsh"}
)
# Shell syntax that means someone expected a shell to interpret the element.
SHELL_METACHARACTERS = re.compile(r"\||;|&|`|\$\(|\$\{|>|<|\n")
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


def is_template(element: str) -> bool:
    return "{{" in element or "{%" in element


def shell_syntax(element: str) -> Optional[str]:
    """The first shell metacharacter in an element's literal text (templates excluded), if any."""
    match = SHELL_METACHARACTERS.search(_TEMPLATE.sub("", element))
    return match.group(0) if match else None


def mutating_reason(kind: str, argv: list[str]) -> Optional[str]:
    """Why running `argv` (of an action of `kind`) changes something, or None if it only reads.

    The judgement is `mlwiki.mutations`, the same one the engine's gate and the agents' hook use.
    """
    if kind not in ("kubectl", "gcloud") or not argv:
        return None
    verdict = classify([kind, *argv[1:]])
    if verdict is None or not verdict.mutating:
        return None
    return f"{kind} {verdict.verb}" if kind == "kubectl" else f"gcloud … {verdict.verb}"


def is_mutating(action: Action) -> bool:
    """An action changes something if it says so or if its command's verb does."""
    return action.requires_approval or mutating_reason(action.kind, action.command) is not None
