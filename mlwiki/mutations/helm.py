"""helm's command tree and global flags, from the Helm reference (helm 3 and 4).

Sources: https://helm.sh/docs/helm/helm/ (commands, global flags) and each command's page
https://helm.sh/docs/helm/helm_<command>/. Reads: list, status, history, show, search, version,
env, lint, verify, template, `get notes|metadata`, `repo list`, `plugin list`, `dependency list`.
`get values|manifest|hooks|all` ask: release values and rendered Secrets hold credentials.
`--post-renderer` asks on any command: it names a program helm runs. An unknown command is a
plugin, which is a program, so it asks too.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlwiki.mutations.base import READ, Verdict
from mlwiki.mutations.cobra import Grammar, aliases, change, group, read, sensitive
from mlwiki.mutations.cobra import classify as classify_cobra

GLOBAL_FLAGS = {
    "--burst-limit": True, "--color": True, "--colour": True, "--content-cache": True,
    "--debug": False, "--kube-apiserver": True, "--kube-as-group": True,
    "--kube-as-user": True, "--kube-ca-file": True, "--kube-context": True,
    "--kube-insecure-skip-tls-verify": False, "--kube-tls-server-name": True,
    "--kube-token": True, "--kubeconfig": True, "-n": True, "--namespace": True, "--qps": True,
    "--registry-config": True, "--repository-cache": True, "--repository-config": True,
    "-h": False, "--help": False,
}  # fmt: skip
RISKY_FLAGS = {
    "--kubeconfig": "names a kubeconfig, which can make helm run an exec credential plugin",
    "--post-renderer": "runs a program on the rendered manifests",
    "--post-renderer-args": "runs a program on the rendered manifests",
}

_SECRETS = sensitive("prints release values or rendered manifests, which hold its secrets")
_LIST = read()
_HISTORY = read()
_SHOW = group(
    READ,
    "prints help",
    {
        name: read("only prints chart files")
        for name in ("all", "chart", "crds", "readme", "values")
    },
)
_UNINSTALL = change("uninstalls a release")
_DEPENDENCY = group(
    READ,
    "prints help",
    {
        **aliases(read(), "list", "ls"),
        "build": change("downloads charts into charts/"),
        **aliases(change("downloads charts into charts/"), "update", "up"),
    },
)
_PLUGIN = group(
    READ,
    "prints help",
    {
        **aliases(read("only lists plugins"), "list", "ls"),
        "install": change("installs a plugin (a program helm will run)"),
        "package": change("packages a plugin"),
        **aliases(change("removes a plugin"), "uninstall", "rm", "remove"),
        **aliases(change("updates a plugin (a program helm will run)"), "update", "up"),
        "verify": read("only verifies a plugin's signature"),
    },
)
_REPO = group(
    READ,
    "prints help",
    {
        **aliases(read("only lists repositories"), "list", "ls"),
        "add": change("adds a chart repository to your configuration"),
        "index": change("writes an index file"),
        **aliases(change("removes a chart repository"), "remove", "rm"),
        **aliases(change("downloads repository indexes"), "update", "up"),
    },
)

ROOT = group(
    READ,
    "prints help",
    {
        "completion": read("only prints a completion script"),
        "create": change("creates a chart directory"),
        **aliases(_DEPENDENCY, "dependency", "dep", "dependencies"),
        "env": read("only prints helm's environment"),
        "get": group(
            READ,
            "prints help",
            {
                "notes": read(),
                "metadata": read(),
                **aliases(_SECRETS, "all", "hooks", "manifest", "values"),
            },
        ),
        "help": read("only prints help"),
        **aliases(_HISTORY, "history", "hist"),
        "install": change("installs a release"),
        "lint": read("only checks a chart"),
        **aliases(_LIST, "list", "ls"),
        "package": change("writes a chart archive"),
        "plugin": _PLUGIN,
        **aliases(change("downloads a chart"), "pull", "fetch"),
        "push": change("uploads a chart"),
        "registry": group(
            READ,
            "prints help",
            {
                "login": change("stores registry credentials"),
                "logout": change("removes registry credentials"),
            },
        ),
        "repo": _REPO,
        "rollback": change("rolls a release back"),
        "search": group(READ, "prints help", {"hub": read(), "repo": read()}),
        **aliases(_SHOW, "show", "inspect"),
        "status": read(),
        "template": read("only renders a chart locally"),
        "test": change("runs a release's test pods"),
        **aliases(_UNINSTALL, "uninstall", "un", "delete", "del"),
        "upgrade": change("upgrades (or installs) a release"),
        "verify": read("only verifies a chart's signature"),
        "version": read(),
    },
)

GRAMMAR = Grammar("helm", ROOT, GLOBAL_FLAGS, RISKY_FLAGS)


def classify(args: Sequence[str]) -> Verdict:
    return classify_cobra(GRAMMAR, args)


__all__ = ["GRAMMAR", "classify"]
