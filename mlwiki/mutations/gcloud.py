"""gcloud (and `gcloud storage`): an allowlist of full command paths that only read.

Source: https://cloud.google.com/sdk/gcloud/reference (GLOBAL FLAGS and the command groups;
each group's page is https://cloud.google.com/sdk/gcloud/reference/GROUP/…). gcloud's command
is the path of group and command words (`compute instances describe`), optionally after a
release track (`alpha`, `beta`, `preview`); global flags may stand anywhere. The path is read
word by word, skipping only flags whose arity the reference states; an unknown flag before the
path is complete makes the command UNKNOWN. The invocation is a read only when its path is
exactly one of READ_COMMANDS, which are all leaf commands — so what follows them is their
arguments (`compute instances describe delete` describes an instance called "delete"). A path
that leaves the allowlist (`compute instances delete`, `secrets versions destroy`,
`compute instances add-access-config`) needs approval, whatever its words look like. Reads that
print credentials or secret values, or change which cluster kubectl reaches, are in
SENSITIVE_COMMANDS.
"""

from __future__ import annotations

from collections.abc import Sequence

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

TRACKS = frozenset({"alpha", "beta", "preview"})
# gcloud's GLOBAL FLAGS (True: takes a value), plus the location flags every group that has them
# documents as value-taking.
GLOBAL_FLAGS = {
    "--account": True, "--billing-project": True, "--configuration": True, "--flatten": True,
    "--format": True, "--help": False, "--project": True, "--quiet": False, "-q": False,
    "--verbosity": True, "--version": False, "-v": False, "-h": False,
    "--access-token-file": True, "--impersonate-service-account": True, "--log-http": False,
    "--no-log-http": False, "--trace-token": True, "--user-output-enabled": False,
    "--no-user-output-enabled": False, "--flags-file": True,
    "--zone": True, "-z": True, "--region": True, "--location": True,
}  # fmt: skip
RISKY_FLAGS = {"--flags-file": "reads further flags from a file, which cannot be checked here"}

# Group path → its commands that only read (each a leaf command of that group).
_READS = {
    "": "info version help cheat-sheet",
    "auth": "list",
    "config": "list get get-value",
    "config configurations": "list describe",
    "components": "list",
    "projects": "list describe get-iam-policy get-ancestors",
    "organizations": "list describe",
    "resource-manager folders": "list describe",
    "services": "list",
    "compute instances": (
        "list describe get-serial-port-output get-guest-attributes get-iam-policy "
        "get-shielded-identity"
    ),
    "compute instances os-inventory": "describe list-instances",
    "compute zones": "list describe",
    "compute regions": "list describe",
    "compute operations": "list describe wait",
    "compute project-info": "describe",
    "compute accelerator-types": "list describe",
    "compute machine-types": "list describe",
    "compute disks": "list describe",
    "compute images": "list describe describe-from-family",
    "compute networks": "list describe",
    "compute networks subnets": "list describe",
    "compute firewall-rules": "list describe",
    "compute routers": "list describe get-status",
    "compute addresses": "list describe",
    "compute reservations": "list describe",
    "compute resource-policies": "list describe",
    "compute instance-templates": "list describe",
    "compute instance-groups": "list describe list-instances",
    "compute instance-groups managed": "list describe list-instances list-errors",
    "compute instance-groups unmanaged": "list describe list-instances",
    "compute backend-services": "list describe get-health",
    "compute forwarding-rules": "list describe",
    "compute health-checks": "list describe",
    "compute tpus": "list describe",
    "compute tpus accelerator-types": "list describe",
    "compute tpus versions": "list describe",
    "compute tpus tpu-vm": "list describe",
    "compute tpus tpu-vm accelerator-types": "list describe",
    "compute tpus tpu-vm versions": "list describe",
    "compute tpus queued-resources": "list describe",
    "container clusters": "list describe get-upgrade-info check-autopilot-compatibility",
    "container node-pools": "list describe",
    "container operations": "list describe wait",
    "container": "get-server-config",
    "container images": "list list-tags describe",
    "container fleet memberships": "list describe",
    "logging": "read tail",
    "logging logs": "list",
    "logging sinks": "list describe",
    "logging metrics": "list describe",
    "logging buckets": "list describe",
    "logging views": "list describe",
    "logging resource-descriptors": "list",
    "monitoring dashboards": "list describe",
    "monitoring policies": "list describe",
    "monitoring channels": "list describe",
    "monitoring metrics-scopes": "list describe",
    "monitoring uptime": "list-configs describe",
    "iam roles": "list describe",
    "iam service-accounts": "list describe get-iam-policy",
    "iam service-accounts keys": "list",
    "iam": "list-grantable-roles list-testable-permissions",
    "secrets": "list describe",
    "secrets versions": "list describe",
    "storage": "ls cat du hash",
    "storage buckets": "list describe",
    "storage buckets notifications": "list describe",
    "storage objects": "list describe",
    "storage folders": "list describe",
    "storage managed-folders": "list describe",
    "storage operations": "list describe",
    "artifacts repositories": "list describe",
    "artifacts docker images": "list describe",
    "asset": "search-all-resources search-all-iam-policies",
    "quotas info": "list describe",
    "dns managed-zones": "list describe",
    "dns record-sets": "list describe",
    "pubsub topics": "list describe",
    "pubsub subscriptions": "list describe",
}
READ_COMMANDS = frozenset(
    (*group.split(), command) for group, commands in _READS.items() for command in commands.split()
)
# Everything under these groups only prints documentation.
READ_GROUPS = frozenset({("topic",)})
SENSITIVE_COMMANDS = {
    ("auth", "print-access-token"): "prints an OAuth access token",
    ("auth", "print-identity-token"): "prints an identity token",
    ("auth", "application-default", "print-access-token"): "prints an OAuth access token",
    ("config", "config-helper"): "prints the current access token",
    ("secrets", "versions", "access"): "prints a secret's value",
    ("container", "clusters", "get-credentials"): (
        "writes your kubeconfig and switches kubectl's current context to that cluster"
    ),
    ("storage", "sign-url"): "creates a URL that grants anyone access to an object",
    ("sql", "generate-login-token"): "prints a database login token",
}
_READ_PREFIXES = frozenset(path[:length] for path in READ_COMMANDS for length in range(len(path)))
_SENSITIVE_PREFIXES = frozenset(
    path[:length] for path in SENSITIVE_COMMANDS for length in range(1, len(path))
)


def classify(args: Sequence[str]) -> Verdict:
    """Judge gcloud's arguments (the words after `gcloud`)."""
    dynamic = dynamic_word("gcloud", args)
    if dynamic:
        return dynamic
    for word in args:
        if word.startswith("-") and flag_name(word) in RISKY_FLAGS:
            return verdict(
                SENSITIVE, "gcloud", (), f"gcloud {word}: {RISKY_FLAGS[flag_name(word)]}"
            )
    path: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word.startswith("-") and word != "-":
            width = flag_width(GLOBAL_FLAGS, word)
            if width is None:
                return verdict(
                    UNKNOWN,
                    "gcloud",
                    path,
                    f"gcloud: flag {word!r} before the command is complete; not a known read",
                )
            index += width
            continue
        index += 1
        if not path and word in TRACKS:
            continue
        path.append(word)
        key = tuple(path)
        if key in SENSITIVE_COMMANDS:
            return verdict(
                SENSITIVE, "gcloud", path, f"gcloud {' '.join(path)} {SENSITIVE_COMMANDS[key]}"
            )
        if key in READ_COMMANDS or key in READ_GROUPS:
            return verdict(READ, "gcloud", path, f"gcloud {' '.join(path)} only reads")
        if key not in _READ_PREFIXES and key not in _SENSITIVE_PREFIXES:
            return verdict(
                CHANGE,
                "gcloud",
                path,
                f"gcloud {' '.join(path)} is not a known read (it may change resources)",
            )
    if not path:
        return verdict(READ, "gcloud", path, "gcloud with no command only prints help")
    return verdict(UNKNOWN, "gcloud", path, f"gcloud {' '.join(path)} is a group, not a command")
