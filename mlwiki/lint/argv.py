"""Read an action's argument list the way kubectl and gcloud will: which verb does it run?

Fail closed: a kubectl verb that is not known to be read-only counts as mutating, so a new or
unusual command needs `requires_approval` until it is added to the read-only table here.
"""

from __future__ import annotations

import re
from typing import Optional

from mlwiki.wiki import Action

# kubectl verbs (and verb + sub-verb) that only read. port-forward, proxy and attach are NOT here:
# they open a channel into the cluster, so they are gated like writes.
KUBECTL_READ_ONLY = frozenset(
    {
        "get",
        "describe",
        "logs",
        "top",
        "explain",
        "events",
        "api-resources",
        "api-versions",
        "version",
        "cluster-info",
        "wait",
        "diff",
        "auth can-i",
        "auth whoami",
        "rollout status",
        "rollout history",
        "config view",
        "config current-context",
        "config get-contexts",
        "config get-clusters",
        "config get-users",
    }
)
# Verbs that have a second word deciding whether they read or write.
KUBECTL_TWO_WORD = frozenset({"auth", "rollout", "config", "certificate"})
# Global flags that take the next element as their value (`--context X`, `-n X`).
KUBECTL_VALUE_FLAGS = frozenset(
    {
        "--context",
        "-n",
        "--namespace",
        "--kubeconfig",
        "--cluster",
        "--user",
        "-s",
        "--server",
        "--token",
        "--as",
        "--as-group",
        "--as-uid",
        "--request-timeout",
        "--cache-dir",
        "-v",
        "--v",
    }
)

# gcloud command words that change something (`compute instances delete`, `... set-labels`).
GCLOUD_MUTATING = frozenset(
    {
        "delete",
        "reset",
        "resize",
        "update",
        "create",
        "stop",
        "start",
        "suspend",
        "resume",
        "patch",
        "apply",
        "deploy",
        "import",
        "upgrade",
        "rollback",
        "cancel",
        "enable",
        "disable",
        "attach-disk",
        "detach-disk",
        "simulate-maintenance-event",
        "perform-maintenance",
        "add-iam-policy-binding",
        "remove-iam-policy-binding",
        "set-iam-policy",
    }
)
GCLOUD_MUTATING_PREFIXES = ("set-", "add-", "remove-")
GCLOUD_VALUE_FLAGS = frozenset(
    {
        "--project",
        "--zone",
        "--region",
        "--location",
        "--format",
        "--account",
        "--configuration",
        "--verbosity",
        "--impersonate-service-account",
        "--billing-project",
        "--filter",
        "--limit",
        "--cluster",
    }
)

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


def _words(argv: list[str], value_flags: frozenset[str]) -> list[str]:
    """Positional words after the program name, skipping flags and the values of value flags."""
    words: list[str] = []
    skip_next = False
    for element in argv[1:]:
        if skip_next:
            skip_next = False
            continue
        if element.startswith("-"):
            skip_next = element in value_flags
            continue
        words.append(element)
    return words


def kubectl_verb(argv: list[str]) -> str:
    """`kubectl -n X rollout restart ...` → "rollout restart"; "" when there is no verb."""
    words = _words(argv, KUBECTL_VALUE_FLAGS)
    if not words:
        return ""
    if words[0] in KUBECTL_TWO_WORD and len(words) > 1:
        return f"{words[0]} {words[1]}"
    return words[0]


def mutating_reason(kind: str, argv: list[str]) -> Optional[str]:
    """Why running `argv` (of an action of `kind`) changes something, or None if it only reads."""
    if kind == "kubectl":
        verb = kubectl_verb(argv)
        if verb and verb not in KUBECTL_READ_ONLY:
            return f"kubectl {verb}"
        return None
    if kind == "gcloud":
        for word in _words(argv, GCLOUD_VALUE_FLAGS):
            if is_template(word):
                continue
            if word in GCLOUD_MUTATING or word.startswith(GCLOUD_MUTATING_PREFIXES):
                return f"gcloud … {word}"
    return None


def is_mutating(action: Action) -> bool:
    """An action changes something if it says so or if its command's verb does."""
    return action.requires_approval or mutating_reason(action.kind, action.command) is not None
