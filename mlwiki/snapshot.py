"""Record cluster state as the files `kubectl get KIND -A -o json` prints (DESIGN.md snapshot).

`nodes.json`, `pods.json`, `jobsets.json`, `events.json`: each is kubectl's own stdout, byte for
byte, so a snapshot reads exactly like the live cluster (the dashboard and bundles use it). When
the cluster has no JobSet CRD, `jobsets.json` is an empty List, written the way kubectl prints
one, and the report says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from mlwiki.errors import BadInput
from mlwiki.kube import CommandRunner, run_command

# File name -> what `kubectl get` is asked for (jobsets by their full resource name).
KINDS = {
    "nodes.json": "nodes",
    "pods.json": "pods",
    "jobsets.json": "jobsets.jobset.x-k8s.io",
    "events.json": "events",
}
CLUSTER_SCOPED = {"nodes"}
EMPTY_LIST = {"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}}
TIMEOUT = 120


class SnapshotError(BadInput):
    """kubectl could not read the cluster."""


@dataclass
class SnapshotReport:
    out: Path
    files: dict[str, int] = field(default_factory=dict)  # file -> number of items
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"out": str(self.out), "files": self.files, "notes": self.notes}


def kubectl_get(kind: str, context: Optional[str], namespace: Optional[str]) -> list[str]:
    argv = ["kubectl"]
    if context:
        argv.append(f"--context={context}")
    argv += ["get", kind]
    # Nodes are cluster-scoped: a namespace does not narrow them.
    if namespace and kind not in CLUSTER_SCOPED:
        argv.append(f"--namespace={namespace}")
    else:
        argv.append("--all-namespaces")
    return [*argv, "-o", "json"]


def _missing_resource(stderr: str) -> bool:
    return "doesn't have a resource type" in stderr or "the server could not find" in stderr


def take_snapshot(
    out: Path,
    *,
    context: Optional[str] = None,
    namespace: Optional[str] = None,
    runner: Optional[CommandRunner] = None,
) -> SnapshotReport:
    """Write the four snapshot files into `out` (created when missing)."""
    from mlwiki.engine.params import ParamSpec, validate

    if context:
        validate(ParamSpec("context", "kube_context"), context, "--context")
    if namespace:
        validate(ParamSpec("namespace", "k8s_name"), namespace, "--namespace")
    run = runner or run_command
    report = SnapshotReport(out)
    outputs: dict[str, str] = {}
    for file, kind in KINDS.items():
        argv = kubectl_get(kind, context, namespace)
        result = run(argv, TIMEOUT)
        if result.exit_code == 0:
            outputs[file] = result.stdout
        elif kind.startswith("jobsets") and _missing_resource(result.stderr):
            outputs[file] = json.dumps(EMPTY_LIST, indent=4) + "\n"
            report.notes.append("the cluster has no JobSet CRD: jobsets.json is an empty List")
        else:
            first = next((line for line in result.stderr.splitlines() if line.strip()), "")
            status = "timed out" if result.exit_code is None else f"exit {result.exit_code}"
            raise SnapshotError(f"kubectl get {kind} failed ({status}): {first}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for file, text in outputs.items():
            (out / file).write_text(text, encoding="utf-8")
    except OSError as error:
        raise BadInput(f"--out {out}: cannot write ({error.strerror or error})") from None
    for file, text in outputs.items():
        try:
            items = json.loads(text).get("items")
        except (ValueError, AttributeError):
            items = None
        report.files[file] = len(items) if isinstance(items, list) else 0
    return report
