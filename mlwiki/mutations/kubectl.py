"""kubectl's command tree and global flags, from the kubectl reference.

Sources: https://kubernetes.io/docs/reference/kubectl/generated/kubectl/ (commands and global
flags) and https://kubernetes.io/docs/reference/kubectl/generated/kubectl_options/ (flags
inherited by every command). Only the commands marked `read` run without approval; among them
`get` and `apply view-last-applied` ask for Secrets (they print the data), `config view` asks
with `--raw`/`--flatten` (they print credentials), and `kustomize` asks for any option that can
run plugins, exec functions or helm. `diff` always asks: it runs the program named by
KUBECTL_EXTERNAL_DIFF. `--kubeconfig` and `--kuberc` ask on any command: a kubeconfig can name
an exec credential plugin (a program kubectl runs) and a kuberc can alias commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from mlwiki.mutations.base import CHANGE, READ, Verdict, flag_name
from mlwiki.mutations.cobra import (
    Command,
    Grammar,
    aliases,
    change,
    group,
    read,
    sensitive,
    unknown_option,
)
from mlwiki.mutations.cobra import classify as classify_cobra

# kubectl_options: every flag inherited by all commands, True when it takes a value.
GLOBAL_FLAGS = {
    "--as": True, "--as-group": True, "--as-uid": True, "--as-user-extra": True,
    "--certificate-authority": True, "--client-certificate": True, "--client-key": True,
    "--cluster": True, "--context": True, "--disable-compression": False,
    "--insecure-skip-tls-verify": False, "--match-server-version": False, "-n": True,
    "--namespace": True, "--password": True, "--request-timeout": True, "-s": True,
    "--server": True, "--tls-server-name": True, "--token": True, "--user": True,
    "--username": True, "-v": True, "--v": True, "--vmodule": True,
    "--warnings-as-errors": False, "-h": False, "--help": False,
    # Also global, but they make the command ask (RISKY_FLAGS); their arity still matters.
    "--kubeconfig": True, "--kuberc": True, "--cache-dir": True, "--profile": True,
    "--profile-output": True,
}  # fmt: skip
RISKY_FLAGS = {
    "--kubeconfig": "names a kubeconfig, which can make kubectl run an exec credential plugin",
    "--kuberc": "names a kuberc, which can alias commands and change their flags",
    "--cache-dir": "writes kubectl's discovery cache to a directory of your choosing",
    "--profile": "writes a profile file",
    "--profile-output": "writes a profile file where it says",
}
SECRET_RESOURCES = frozenset({"secret", "secrets"})


def names_secrets(args: Sequence[str]) -> Optional[str]:
    """Whether any word names the Secret resource (`secrets`, `secret/x`, `Secret.v1.`, lists)."""
    for word in args:
        if word.startswith("-"):
            continue
        for item in word.lower().split(","):
            if item.split("/", 1)[0].split(".", 1)[0] in SECRET_RESOURCES:
                return "prints Secret data (base64 is not encryption)"
    return None


def _get_check(args: Sequence[str]) -> Optional[str]:
    for word in args:
        name = flag_name(word)
        if name == "--raw":
            return "--raw reads any API path, Secrets included"
        if name in ("-f", "--filename", "-k", "--kustomize"):
            return f"{name} reads the objects named in files, which may be Secrets"
    return names_secrets(args)


def _config_view_check(args: Sequence[str]) -> Optional[str]:
    for word in args:
        if word.split("=", 1)[0] in ("--raw", "--flatten"):
            return f"{word.split('=', 1)[0]} prints client certificates, keys and tokens"
    return None


# kubectl_kustomize: the options that only shape the output; the rest run plugins or helm.
KUSTOMIZE_OPTIONS = {
    **GLOBAL_FLAGS, "-o": True, "--output": True, "--load-restrictor": True, "--reorder": True,
}  # fmt: skip


def _kustomize_check(args: Sequence[str]) -> Optional[str]:
    option = unknown_option(args, KUSTOMIZE_OPTIONS)
    if option:
        return f"{option} is not a plain render (plugins, exec functions and helm run programs)"
    return None


_KUBECONFIG_CHANGE = change("changes your kubeconfig (and so which cluster later commands reach)")
_TOP_NODE = read("only reads metrics")
_TOP_POD = read("only reads metrics")

ROOT = group(
    READ,
    "prints help",
    {
        # Basic and intermediate commands
        "create": change("creates resources"),
        "expose": change("creates a Service"),
        "run": change("creates a pod"),
        "set": change("changes resources"),
        "explain": read("only prints API documentation"),
        "get": read("only reads", check=_get_check),
        "edit": change("changes resources"),
        "delete": change("deletes resources"),
        # Deploy commands
        "rollout": group(
            READ,
            "prints help",
            {
                "history": read(),
                "status": read(),
                "pause": change("pauses a rollout"),
                "restart": change("restarts workloads"),
                "resume": change("resumes a rollout"),
                "undo": change("rolls a workload back"),
            },
        ),
        "scale": change("changes replica counts"),
        "autoscale": change("creates an autoscaler"),
        # Cluster management commands
        "certificate": group(
            READ,
            "prints help",
            {"approve": change("approves a CSR"), "deny": change("denies a CSR")},
        ),
        "cluster-info": group(
            READ,
            "only reads",
            {"dump": sensitive("dumps the whole cluster state and logs, and can write files")},
        ),
        "top": group(
            READ,
            "prints help",
            {**aliases(_TOP_NODE, "node", "nodes", "no"), **aliases(_TOP_POD, "pod", "pods", "po")},
        ),
        "cordon": change("marks a node unschedulable"),
        "uncordon": change("marks a node schedulable"),
        "drain": change("evicts every pod from a node"),
        "taint": change("changes node taints"),
        # Troubleshooting and debugging commands
        "describe": read(),
        "logs": read(),
        "attach": change("attaches to a running container"),
        "exec": change("runs a command in a container"),
        "port-forward": change("opens a local port into a pod"),
        "proxy": change(
            "opens a local proxy to the API server that anything on this machine can use"
        ),
        "cp": change("runs tar in a container and writes files"),
        "auth": group(
            READ,
            "prints help",
            {
                "can-i": read(),
                "whoami": read(),
                "reconcile": change("changes RBAC objects"),
            },
        ),
        "debug": change("creates a debugging container or pod"),
        "events": read(),
        # Advanced commands
        "diff": sensitive("runs a local diff program (KUBECTL_EXTERNAL_DIFF) on the live objects"),
        "apply": group(
            CHANGE,
            "creates or changes resources",
            {
                "view-last-applied": read(check=_get_check),
                "edit-last-applied": change("changes resources"),
                "set-last-applied": change("changes resources"),
            },
        ),
        "patch": change("changes resources"),
        "replace": change("replaces resources"),
        "wait": read("only waits and reads"),
        "kustomize": read("only renders manifests", check=_kustomize_check),
        # Settings commands
        "label": change("changes labels"),
        "annotate": change("changes annotations"),
        "completion": read("only prints a completion script"),
        # Other commands
        "alpha": change("runs an experimental command"),
        "api-resources": read(),
        "api-versions": read(),
        "config": group(
            READ,
            "prints help",
            {
                "current-context": read(),
                "get-clusters": read(),
                "get-contexts": read(),
                "get-users": read(),
                "view": read(
                    "only prints the kubeconfig, credentials redacted", check=_config_view_check
                ),
                **aliases(_KUBECONFIG_CHANGE, "use-context", "use", "set", "set-cluster"),
                **aliases(_KUBECONFIG_CHANGE, "set-context", "set-credentials", "unset"),
                **aliases(_KUBECONFIG_CHANGE, "delete-cluster", "delete-context", "delete-user"),
                **aliases(_KUBECONFIG_CHANGE, "rename-context"),
            },
        ),
        "plugin": group(READ, "prints help", {"list": read("only lists plugins")}),
        "version": read(),
        "options": read("only prints the global flags"),
        "help": read("only prints help"),
    },
)

GRAMMAR = Grammar("kubectl", ROOT, GLOBAL_FLAGS, RISKY_FLAGS)


def classify(args: Sequence[str]) -> Verdict:
    return classify_cobra(GRAMMAR, args)


__all__ = ["GRAMMAR", "Command", "classify"]
