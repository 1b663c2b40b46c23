"""Cluster state the dashboard summarises, and loading it from a recorded snapshot directory."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from mlwiki.dashboard import k8s
from mlwiki.errors import BadInput

# The four files of a snapshot (DESIGN.md, "Cluster snapshot"), each `kubectl get KIND -A -o json`.
SNAPSHOT_FILES = {
    "nodes": "nodes.json",
    "pods": "pods.json",
    "jobsets": "jobsets.json",
    "events": "events.json",
}
# A cluster without the JobSet CRD, or a recorder that kept no events, has nothing to write there.
OPTIONAL_FILES = {"jobsets", "events"}


@dataclass
class ClusterState:
    """One cluster's objects as raw Kubernetes JSON, plus where they came from.

    `problem` is set when the cluster could not be read (no kubeconfig context, API error); the
    page shows it with what to do, and the lists stay empty.
    """

    cluster: str
    project: str = ""
    location: str = ""
    context: str = ""
    nodes: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    jobsets: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    problem: Optional[str] = None

    def fill_identity_from_nodes(self) -> None:
        """GKE nodes carry `gce://PROJECT/ZONE/…` as providerID; use it when nothing else said."""
        for node in self.nodes:
            project, zone = k8s.node_project_zone(node)
            if project:
                self.project = self.project or project
                self.location = self.location or zone
                return


def _read_list(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(
            f"{path}: missing; a snapshot holds {', '.join(SNAPSHOT_FILES.values())}"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"{path}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise BadInput(f"{path}:{error.lineno}: not JSON: {error.msg}") from None
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise BadInput(
            f"{path}: field 'items' must be a list of objects (kubectl get -A -o json output)"
        )
    return items


def load_snapshot(directory: Path) -> ClusterState:
    """Read `nodes.json`, `pods.json`, `jobsets.json`, `events.json` from DIRECTORY.

    The cluster is named after the directory; project and zone come from the nodes.
    """
    if not directory.is_dir():
        raise BadInput(f"--snapshot {directory}: not a directory")
    lists = {
        kind: _read_list(directory / file_name)
        for kind, file_name in SNAPSHOT_FILES.items()
        if kind not in OPTIONAL_FILES or (directory / file_name).exists()
    }
    state = ClusterState(cluster=directory.resolve().name, **lists)
    state.fill_identity_from_nodes()
    return state


class SnapshotSource:
    """A recorded snapshot; read once, and again when the page asks for a refresh."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.description = f"snapshot {directory}"
        self._state = load_snapshot(directory)

    def states(self, refresh: bool = False) -> list[ClusterState]:
        if refresh:
            self._state = load_snapshot(self.directory)
        return [self._state]
