"""Live cluster state: GKE clusters from `gcloud`, their objects through the `kubernetes` client.

gcloud runs as an argument list (never a shell). Objects are read as raw JSON
(`_preload_content=False`) so that the client's models never reject a partially filled object.
A cluster that cannot be read becomes a `ClusterState` with a `problem` saying what to do.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Optional

import re2

from mlwiki.dashboard.state import ClusterState
from mlwiki.errors import BadInput
from mlwiki.kube import kubeconfig_path

GCLOUD_TIMEOUT_SECONDS = 90
KUBE_TIMEOUT_SECONDS = 60
PAGE_SIZE = 500
CACHE_SECONDS = 20.0
JOBSET_API = ("jobset.x-k8s.io", "v1alpha2", "jobsets")
PROJECT_ID = re2.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
# GKE's kubeconfig context name for a cluster: gke_PROJECT_LOCATION_CLUSTER.
GKE_CONTEXT = re2.compile(r"^gke_([a-z0-9.:-]+)_([a-z0-9-]+)_([a-z0-9-]+)$")


class GcloudError(Exception):
    """gcloud ran but failed; the message is its last error line."""


@dataclass(frozen=True)
class ClusterRef:
    name: str
    project: str
    location: str
    context: str = ""

    @property
    def gke_context(self) -> str:
        return self.context or f"gke_{self.project}_{self.location}_{self.name}"

    def credentials_hint(self) -> str:
        return (
            f"no kubeconfig context {self.gke_context!r}; get one with: gcloud container clusters "
            f"get-credentials {self.name} --location {self.location} --project {self.project}"
        )


def ref_from_context(context: str) -> ClusterRef:
    """A cluster named by a kubeconfig context; GKE context names carry project and location."""
    match = GKE_CONTEXT.match(context)
    if match:
        return ClusterRef(
            name=match.group(3), project=match.group(1), location=match.group(2), context=context
        )
    return ClusterRef(name=context, project="", location="", context=context)


# --- gcloud ------------------------------------------------------------------------------------


def _gcloud() -> str:
    path = shutil.which("gcloud")
    if not path:
        raise BadInput(
            "gcloud not found on PATH: install the Google Cloud CLI, or pass --context C (a kubeconfig "
            "context) or --snapshot DIR"
        )
    return path


def list_clusters(project: Optional[str] = None) -> list[ClusterRef]:
    """`gcloud container clusters list --format=json [--project P]` as cluster references."""
    argv = [_gcloud(), "container", "clusters", "list", "--format=json"]
    if project:
        argv += ["--project", project]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=GCLOUD_TIMEOUT_SECONDS, check=False
        )
    except subprocess.TimeoutExpired:
        raise GcloudError(
            f"gcloud container clusters list timed out after {GCLOUD_TIMEOUT_SECONDS} s"
        ) from None
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        # gcloud puts the reason on its "ERROR: (gcloud.…)" line; advice lines follow it.
        errors = [line for line in lines if line.startswith("ERROR:")]
        reason = (errors or lines[-1:] or [f"gcloud exited with {done.returncode}"])[0]
        raise GcloudError(reason)
    try:
        items = json.loads(done.stdout or "[]")
    except json.JSONDecodeError as error:
        raise GcloudError(f"gcloud printed no JSON: {error.msg}") from None
    return [_ref_from_gcloud(item, project) for item in items if isinstance(item, dict)]


def _ref_from_gcloud(item: dict[str, Any], project: Optional[str]) -> ClusterRef:
    # selfLink: https://container.googleapis.com/v1/projects/P/locations/L/clusters/C
    parts = str(item.get("selfLink") or "").split("/")
    from_link = parts[parts.index("projects") + 1] if "projects" in parts[:-1] else ""
    return ClusterRef(
        name=str(item.get("name") or ""),
        project=project or from_link,
        location=str(item.get("location") or item.get("zone") or ""),
    )


def resolve_clusters(target: str) -> list[ClusterRef]:
    """The clusters a TARGET names: a cluster of the configured project, a project, or (a workload)
    every cluster of the configured project."""
    try:
        clusters = list_clusters()
        default_error = None
    except GcloudError as error:
        clusters, default_error = [], error
    if target:
        named = [c for c in clusters if c.name == target]
        if named:
            return named
        if PROJECT_ID.match(target):
            try:
                return list_clusters(project=target)
            except GcloudError:
                pass  # not a project we can list: a workload name, looked for below
    if default_error is not None:
        raise BadInput(f"gcloud container clusters list: {default_error}")
    return clusters


# --- kubernetes --------------------------------------------------------------------------------


def kube_contexts() -> set[str]:
    from kubernetes import config

    try:
        contexts, _ = config.list_kube_config_contexts(config_file=kubeconfig_path())
    except (config.ConfigException, OSError):
        return set()
    return {str(c.get("name")) for c in contexts or []}


def _read_all(call: Callable[..., Any], *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Every item of a list call, page by page, as raw JSON."""
    items: list[dict[str, Any]] = []
    token = None
    while True:
        response = call(
            *args,
            limit=PAGE_SIZE,
            _continue=token,
            _preload_content=False,
            _request_timeout=KUBE_TIMEOUT_SECONDS,
            **kwargs,
        )
        data = json.loads(response.data)
        items.extend(data.get("items") or [])
        token = (data.get("metadata") or {}).get("continue")
        if not token:
            return items


def read_cluster(ref: ClusterRef) -> ClusterState:
    """Nodes, pods, JobSets and warning events of one cluster through its kubeconfig context."""
    import urllib3
    from kubernetes import client, config
    from kubernetes.client.exceptions import ApiException

    state = ClusterState(
        cluster=ref.name, project=ref.project, location=ref.location, context=ref.gke_context
    )
    try:
        api = config.new_client_from_config(config_file=kubeconfig_path(), context=ref.gke_context)
        core = client.CoreV1Api(api)
        state.nodes = _read_all(core.list_node)
        state.pods = _read_all(core.list_pod_for_all_namespaces)
        state.events = _read_all(core.list_event_for_all_namespaces, field_selector="type=Warning")
        try:
            state.jobsets = _read_all(
                client.CustomObjectsApi(api).list_cluster_custom_object, *JOBSET_API
            )
        except ApiException as error:
            if error.status != 404:  # 404: the JobSet CRD is not installed, so there are none
                raise
    except ApiException as error:
        state.problem = (
            f"Kubernetes API said {error.status} {error.reason} (context {ref.gke_context})"
        )
    except (config.ConfigException, urllib3.exceptions.HTTPError, OSError, ValueError) as error:
        state.problem = f"cannot read the cluster through context {ref.gke_context}: {error}"
    state.fill_identity_from_nodes()
    return state


class LiveSource:
    """Live clusters, rescanned at most every CACHE_SECONDS unless a refresh is asked for."""

    def __init__(self, clusters: list[ClusterRef], description: str) -> None:
        self.clusters = clusters
        self.description = description
        self._cached: Optional[list[ClusterState]] = None
        self._scanned_at = 0.0
        self._lock = threading.Lock()

    def states(self, refresh: bool = False) -> list[ClusterState]:
        with self._lock:
            fresh = time.monotonic() - self._scanned_at < CACHE_SECONDS
            if self._cached is None or refresh or not fresh:
                self._cached = self._scan()
                self._scanned_at = time.monotonic()
            return self._cached

    def _scan(self) -> list[ClusterState]:
        known = kube_contexts()

        def one(ref: ClusterRef) -> ClusterState:
            if ref.gke_context not in known:
                return ClusterState(
                    cluster=ref.name,
                    project=ref.project,
                    location=ref.location,
                    problem=ref.credentials_hint(),
                )
            return read_cluster(ref)

        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(one, self.clusters))


def live_source(target: str, contexts: list[str]) -> LiveSource:
    """Clusters named by --context flags, else those TARGET selects through gcloud."""
    if contexts:
        refs = [ref_from_context(c) for c in contexts]
        return LiveSource(refs, f"live: context {', '.join(contexts)}")
    refs = resolve_clusters(target)
    if not refs:
        raise BadInput(
            "gcloud found no GKE clusters in the configured project; pass a project as TARGET"
        )
    projects = sorted({r.project for r in refs if r.project})
    return LiveSource(
        refs, f"live: {len(refs)} cluster(s) in {', '.join(projects) or 'the configured project'}"
    )
