"""Which kubectl, gcloud and helm command lines change something — one judgement for all callers.

The wiki linter uses it to demand `requires_approval: true` on mutating actions, and the agents'
PreToolUse hook (`mlwiki.guard`) uses it to force the user's approval. Unknown verbs count as
mutating: a gate must fail closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# kubectl global flags that take a separate value (`--context X`); `--flag=value` needs no entry.
KUBECTL_VALUE_FLAGS = frozenset(
    {
        "--context", "-n", "--namespace", "--kubeconfig", "-s", "--server", "--user", "--cluster",
        "--as", "--as-group", "--as-uid", "--token", "--request-timeout", "--certificate-authority",
        "--client-certificate", "--client-key", "--tls-server-name", "--cache-dir", "--profile",
        "--profile-output", "--log-file", "-v", "--v", "--password", "--username",
    }
)  # fmt: skip
KUBECTL_READ_VERBS = frozenset(
    {
        "get", "describe", "logs", "top", "explain", "api-resources", "api-versions", "version",
        "cluster-info", "wait", "diff", "events", "completion", "kustomize", "options", "help",
    }
)  # fmt: skip
KUBECTL_READ_SUBCOMMANDS = {
    "rollout": frozenset({"status", "history"}),
    "auth": frozenset({"can-i", "whoami"}),
    "config": frozenset({"view", "get-contexts", "current-context", "get-clusters", "get-users"}),
    "plugin": frozenset({"list"}),
    "certificate": frozenset(),
}
# gcloud verbs (the last word of the command group path) that only read.
GCLOUD_READ_PREFIXES = (
    "list",
    "describe",
    "get-",
    "read",
    "tail",
    "print-",
    "show",
    "info",
    "version",
)
GCLOUD_READ_WORDS = frozenset({"get-credentials", "get-iam-policy", "get-value", "help"})
HELM_READ_VERBS = frozenset(
    {
        "list",
        "ls",
        "status",
        "get",
        "history",
        "show",
        "template",
        "search",
        "version",
        "env",
        "lint",
        "help",
        "repo",
    }
)


@dataclass(frozen=True)
class Verdict:
    mutating: bool
    tool: str
    verb: str
    reason: str


def _positionals(args: list[str], value_flags: frozenset[str]) -> list[str]:
    """Positional words of a command line, skipping flags and the values of value-taking flags."""
    words: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--":
            break
        if arg.startswith("-"):
            if "=" not in arg and arg in value_flags:
                skip = True
            continue
        words.append(arg)
    return words


def classify_kubectl(args: list[str]) -> Verdict:
    """`args` are kubectl's arguments (without the program name)."""
    words = _positionals(args, KUBECTL_VALUE_FLAGS)
    if not words:
        return Verdict(False, "kubectl", "", "no verb")
    verb = words[0]
    if verb in KUBECTL_READ_VERBS:
        return Verdict(False, "kubectl", verb, f"kubectl {verb} only reads")
    if verb in KUBECTL_READ_SUBCOMMANDS:
        sub = words[1] if len(words) > 1 else ""
        if sub in KUBECTL_READ_SUBCOMMANDS[verb]:
            return Verdict(False, "kubectl", f"{verb} {sub}", f"kubectl {verb} {sub} only reads")
        return Verdict(
            True,
            "kubectl",
            f"{verb} {sub}".strip(),
            f"kubectl {verb} {sub} changes state".replace("  ", " "),
        )
    return Verdict(
        True,
        "kubectl",
        verb,
        f"kubectl {verb} changes the cluster (or is not known to be read-only)",
    )


def classify_gcloud(args: list[str]) -> Verdict:
    words = _positionals(
        args,
        frozenset(
            {
                "--project",
                "--zone",
                "--region",
                "--format",
                "--filter",
                "--configuration",
                "--account",
                "--impersonate-service-account",
                "--location",
                "--limit",
            }
        ),
    )
    if not words:
        return Verdict(False, "gcloud", "", "no command")
    # The verb is the last word of the command path; positional arguments after it are names.
    # gcloud paths are lowercase words; a name such as an instance id can follow the verb.
    verb = next((w for w in words if _is_gcloud_verb(w)), words[-1])
    if verb in GCLOUD_READ_WORDS or verb.startswith(GCLOUD_READ_PREFIXES):
        return Verdict(False, "gcloud", verb, f"gcloud … {verb} only reads")
    if words[:2] in (["auth", "list"], ["config", "list"]):
        return Verdict(False, "gcloud", " ".join(words[:2]), "only reads")
    return Verdict(
        True, "gcloud", verb, f"gcloud … {verb} changes resources (or is not known to be read-only)"
    )


_GCLOUD_VERBS = frozenset(
    {
        "create", "delete", "update", "reset", "resize", "stop", "start", "suspend", "resume",
        "patch", "set-iam-policy", "add-iam-policy-binding", "remove-iam-policy-binding", "ssh",
        "scp", "import", "export", "deploy", "enable", "disable", "upgrade", "rollback", "cancel",
        "apply", "attach-disk", "detach-disk", "set-machine-type", "add-labels", "remove-labels",
        "add-metadata", "remove-metadata", "simulate-maintenance-event", "perform-maintenance",
        "get-credentials", "get-iam-policy", "get-value", "read", "tail", "write", "set", "unset",
        "activate", "login", "revoke", "repair", "rollout", "complete-upgrade", "cp", "mv", "rm",
    }
)  # fmt: skip


def _is_gcloud_verb(word: str) -> bool:
    return word in _GCLOUD_VERBS or word.startswith(GCLOUD_READ_PREFIXES)


def classify_helm(args: list[str]) -> Verdict:
    words = _positionals(args, frozenset({"-n", "--namespace", "--kube-context", "--kubeconfig"}))
    verb = words[0] if words else ""
    if not verb or verb in HELM_READ_VERBS:
        return Verdict(False, "helm", verb, "helm read")
    return Verdict(True, "helm", verb, f"helm {verb} changes the cluster")


CLASSIFIERS = {"kubectl": classify_kubectl, "gcloud": classify_gcloud, "helm": classify_helm}


def classify(argv: list[str]) -> Optional[Verdict]:
    """Judge one command's argv; None when the program is not one this module knows."""
    if not argv:
        return None
    program = argv[0].rsplit("/", 1)[-1]
    classifier = CLASSIFIERS.get(program)
    return classifier(argv[1:]) if classifier else None
