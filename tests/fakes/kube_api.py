"""A small fake Kubernetes API server (stdlib `http.server`) for the real kubectl and client.

Enough of the API for `/usr/bin/kubectl` 1.32 and the `kubernetes` Python client to get, list,
describe, log, patch (cordon, taint, label), evict/drain, create and delete — on 127.0.0.1 only.

Usage::

    from tests.fakes.kube_api import FakeKubeApi, make_node, make_pod

    with FakeKubeApi() as api:                  # or the `kube_api` fixture below
        api.add(make_node("gke-tpu-1"), make_pod("trainer-0", node="gke-tpu-1"))
        api.set_log("default", "trainer-0", "step 1\\nstep 2\\n")
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        subprocess.run(["kubectl", "--kubeconfig", str(kubeconfig), "cordon", "gke-tpu-1"])
        assert api.get("nodes", "gke-tpu-1")["spec"]["unschedulable"] is True
        assert [r.path for r in api.requests_by("PATCH")] == ["/api/v1/nodes/gke-tpu-1"]

API of `FakeKubeApi(objects=(), jobsets=True)`:
- `start()` / `stop()` / context manager; `url` (`http://127.0.0.1:PORT`), `port`.
- `add(*objects)`: store objects; the resource is found from `apiVersion` + `kind` (see
  `RESOURCES`); `metadata.uid`, `resourceVersion`, `creationTimestamp` and (for namespaced
  objects) `namespace: default` are filled in when missing. Returns the stored copies.
- `get(plural, name, namespace=None, group="")` → the stored object (a deep copy) or None;
  `objects(plural, group="")` → all of one resource.
- `set_log(namespace, pod, text, container=None)`: what `pods/<pod>/log` returns.
- `requests`: every request as a `RecordedRequest(method, path, query, content_type, body)`
  (`body` parsed as JSON when it is JSON, else bytes); `requests_by(method)`; `clear_requests()`.
- `write_kubeconfig(path, context="fake", namespace=None)`: a kubeconfig with
  `server: http://127.0.0.1:PORT` and a dummy bearer token; returns `path`.
- `jobsets=False` leaves out the `jobset.x-k8s.io` group, as on a cluster without the JobSet CRD.

Served:
- discovery: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/<group>/<version>` (plain
  APIVersions/APIGroupList/APIResourceList JSON; kubectl falls back to these from aggregated
  discovery). No OpenAPI: use `--validate=false` with `kubectl create/apply -f`.
- resources (`RESOURCES`): core v1 namespaces, nodes, pods (+ `log`, `eviction`), events;
  `batch/v1` jobs; `jobset.x-k8s.io/v1alpha2` jobsets; `policy/v1` poddisruptionbudgets (so that
  kubectl drain finds the eviction API).
- GET list (namespaced, cluster-wide with `-A`) with `labelSelector` (`=`, `==`, `!=`, `in`,
  `notin`, `key`, `!key`) and `fieldSelector` (any dotted path, `=`, `==`, `!=`); lists carry
  `kind: <Kind>List`, `apiVersion` and `metadata.resourceVersion`. `watch=true` returns an empty
  stream at once. No server-side Table: `kubectl get` without `-o` prints only NAME and AGE.
- GET one object; PATCH with `merge-patch+json` or `strategic-merge-patch+json`, both applied as
  a JSON merge patch (RFC 7386: lists replaced — correct for kubectl taint, which sends the whole
  `spec.taints`; `$`-directives dropped); `json-patch+json` and apply-patch → 415.
- POST create (409 when it exists), POST `pods/<n>/eviction` (deletes the pod), DELETE.
- Errors are `kind: Status` bodies with the usual `reason` (NotFound, AlreadyExists, …).

The pytest fixture `kube_api` starts a server, writes a kubeconfig, sets `KUBECONFIG` and
`KUBECACHEDIR` with monkeypatch and stops the server afterwards. Use it from a test module with
`from tests.fakes.kube_api import kube_api_fixture  # noqa: F401` (or list this module in
`pytest_plugins`), then take `kube_api` as an argument.
"""

from __future__ import annotations

import copy
import itertools
import json
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

import pytest

KUBE_VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.4-fake",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}


@dataclass(frozen=True)
class Resource:
    group: str  # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular(self) -> str:
        return self.kind.lower()


VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
RESOURCES = (
    Resource("", "v1", "namespaces", "Namespace", False, ("ns",)),
    Resource("", "v1", "nodes", "Node", False, ("no",), ("status",)),
    Resource("", "v1", "pods", "Pod", True, ("po",), ("log", "eviction", "status")),
    Resource("", "v1", "events", "Event", True, ("ev",)),
    Resource("batch", "v1", "jobs", "Job", True, (), ("status",)),
    Resource("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", True, ("js",), ("status",)),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("pdb",)),
)
JOBSET_GROUP = "jobset.x-k8s.io"


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    content_type: str
    body: Any = None


@dataclass
class _Store:
    """Objects keyed by (group, plural, namespace, name); namespace is "" for cluster objects."""

    objects: dict[tuple[str, str, str, str], dict[str, Any]] = field(default_factory=dict)
    logs: dict[tuple[str, str, str], str] = field(default_factory=dict)
    versions: Iterator[int] = field(default_factory=lambda: itertools.count(1000))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_version(self) -> str:
        return str(next(self.versions))


class ApiError(Exception):
    def __init__(self, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.code, self.reason, self.message = code, reason, message

    def status(self) -> dict[str, Any]:
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch; keys starting with `$` (strategic-merge directives) dropped."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _path_value(obj: dict[str, Any], path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _split_outside_parens(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def label_selector_matches(selector: str, labels: dict[str, str]) -> bool:
    for requirement in _split_outside_parens(selector):
        for word, negate in ((" notin ", True), (" in ", False)):
            if word in requirement:
                key, values = requirement.split(word, 1)
                allowed = {v.strip() for v in values.strip().strip("()").split(",")}
                present = key.strip() in labels and labels[key.strip()] in allowed
                if present == negate:
                    return False
                break
        else:
            if "!=" in requirement:
                key, value = requirement.split("!=", 1)
                if labels.get(key.strip()) == value.strip():
                    return False
            elif "=" in requirement:
                key, value = requirement.replace("==", "=").split("=", 1)
                if labels.get(key.strip()) != value.strip():
                    return False
            elif requirement.startswith("!"):
                if requirement[1:].strip() in labels:
                    return False
            elif requirement not in labels:
                return False
    return True


def field_selector_matches(selector: str, obj: dict[str, Any]) -> bool:
    for requirement in _split_outside_parens(selector):
        if "!=" in requirement:
            path, value = requirement.split("!=", 1)
            if _path_value(obj, path.strip()) == value.strip():
                return False
        else:
            path, value = requirement.replace("==", "=").split("=", 1)
            if _path_value(obj, path.strip()) != value.strip():
                return False
    return True


class FakeKubeApi:
    """The fake API server; see the module docstring."""

    def __init__(self, objects: Iterable[dict[str, Any]] = (), jobsets: bool = True) -> None:
        self.resources = [r for r in RESOURCES if jobsets or r.group != JOBSET_GROUP]
        self._store = _Store()
        self.requests: list[RecordedRequest] = []
        self._server: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None
        self.add(*objects)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeKubeApi:
        api = self

        class Handler(_Handler):
            fake = api

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeKubeApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if not self._server:
            raise RuntimeError("the fake API server is not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- seeding and inspection --------------------------------------------------------------
    def resource_for(self, api_version: str, kind: str) -> Resource:
        for resource in self.resources:
            if resource.group_version == api_version and resource.kind == kind:
                return resource
        raise ValueError(f"the fake API server does not serve {api_version} {kind}")

    def find_resource(self, group: str, version: str, plural: str) -> Optional[Resource]:
        for resource in self.resources:
            if (resource.group, resource.version, resource.plural) == (group, version, plural):
                return resource
        return None

    def add(self, *objects: dict[str, Any]) -> list[dict[str, Any]]:
        stored = []
        for obj in objects:
            resource = self.resource_for(obj.get("apiVersion", ""), obj.get("kind", ""))
            stored.append(self._put(resource, copy.deepcopy(obj), create=False))
        return stored

    def _put(self, resource: Resource, obj: dict[str, Any], create: bool) -> dict[str, Any]:
        meta = obj.setdefault("metadata", {})
        if not meta.get("name"):
            raise ApiError(422, "Invalid", "metadata.name: Required value")
        obj.setdefault("apiVersion", resource.group_version)
        obj.setdefault("kind", resource.kind)
        if resource.namespaced:
            meta.setdefault("namespace", "default")
        else:
            meta.pop("namespace", None)
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("creationTimestamp", _now())
        key = (resource.group, resource.plural, meta.get("namespace", ""), meta["name"])
        with self._store.lock:
            if create and key in self._store.objects:
                raise ApiError(
                    409,
                    "AlreadyExists",
                    f'{resource.plural} "{meta["name"]}" already exists',
                )
            meta["resourceVersion"] = self._store.next_version()
            self._store.objects[key] = obj
        return copy.deepcopy(obj)

    def get(
        self, plural: str, name: str, namespace: Optional[str] = None, group: str = ""
    ) -> Optional[dict[str, Any]]:
        obj = self._store.objects.get((group, plural, namespace or "", name))
        return copy.deepcopy(obj) if obj is not None else None

    def objects(self, plural: str, group: str = "") -> list[dict[str, Any]]:
        return [
            copy.deepcopy(obj)
            for (g, p, _, _), obj in sorted(self._store.objects.items())
            if (g, p) == (group, plural)
        ]

    def set_log(self, namespace: str, pod: str, text: str, container: Optional[str] = None) -> None:
        self._store.logs[(namespace, pod, container or "")] = text

    def requests_by(self, method: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method]

    def clear_requests(self) -> None:
        self.requests.clear()

    def write_kubeconfig(
        self, path: Path, context: str = "fake", namespace: Optional[str] = None
    ) -> Path:
        ctx: dict[str, Any] = {"cluster": "fake-cluster", "user": "fake-user"}
        if namespace:
            ctx["namespace"] = namespace
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake-cluster", "cluster": {"server": self.url}}],
            "users": [{"name": "fake-user", "user": {"token": "fake-token"}}],
            "contexts": [{"name": context, "context": ctx}],
            "current-context": context,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=2), encoding="utf-8")  # JSON is valid YAML
        return path

    # -- discovery ---------------------------------------------------------------------------
    def _groups(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for resource in self.resources:
            if resource.group and resource.version not in groups.setdefault(resource.group, []):
                groups[resource.group].append(resource.version)
        return groups

    def discovery(self, path: str) -> Optional[dict[str, Any]]:
        if path == "/version":
            return KUBE_VERSION
        if path == "/api":
            return {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [
                    {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{self.port}"}
                ],
            }
        if path == "/apis":
            groups = []
            for group, versions in self._groups().items():
                entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
                groups.append({"name": group, "versions": entries, "preferredVersion": entries[0]})
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        parts = path.strip("/").split("/")
        if parts == ["api", "v1"]:
            return self._resource_list("", "v1")
        if len(parts) == 3 and parts[0] == "apis" and parts[2] in self._groups().get(parts[1], []):
            return self._resource_list(parts[1], parts[2])
        return None

    def _resource_list(self, group: str, version: str) -> dict[str, Any]:
        entries: list[dict[str, Any]] = []
        for r in self.resources:
            if (r.group, r.version) != (group, version):
                continue
            entries.append(
                {
                    "name": r.plural,
                    "singularName": r.singular,
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": VERBS,
                    "shortNames": list(r.short_names),
                }
            )
            for sub in r.subresources:
                entry: dict[str, Any] = {
                    "name": f"{r.plural}/{sub}",
                    "singularName": "",
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": ["get", "patch", "update"],
                }
                if sub == "log":
                    entry.update(kind="Pod", verbs=["get"])
                elif sub == "eviction":
                    entry.update(group="policy", version="v1", kind="Eviction", verbs=["create"])
                entries.append(entry)
        gv = f"{group}/{version}" if group else version
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": gv,
            "resources": entries,
        }

    # -- resource requests -------------------------------------------------------------------
    def handle(
        self, method: str, path: str, query: dict[str, str], content_type: str, body: Any
    ) -> tuple[int, Any]:
        """(status, JSON object or text) for one request; raises ApiError for API errors."""
        if method == "GET":
            found = self.discovery(path)
            if found is not None:
                return 200, found
        resource, namespace, name, sub = self._route(path)
        if method == "GET" and name is None:
            if query.get("watch") in ("true", "1"):
                return 200, ""
            return 200, self._list(resource, namespace, query)
        if method == "POST" and name is None:
            return 201, self._create(resource, namespace, body)
        if name is None:
            raise ApiError(405, "MethodNotAllowed", f"{method} is not allowed on a collection")
        key = (resource.group, resource.plural, namespace or "", name)
        current = self._store.objects.get(key)
        if current is None:
            raise ApiError(404, "NotFound", f'{resource.plural} "{name}" not found')
        if sub == "log" and method == "GET":
            return 200, self._log(namespace or "", name, query)
        if sub == "eviction" and method == "POST":
            self._delete(key)
            return 201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}
        if sub not in (None, "status"):
            raise ApiError(404, "NotFound", f"subresource {sub} is not served")
        if method == "GET":
            return 200, copy.deepcopy(current)
        if method == "PATCH":
            return 200, self._patch(key, content_type, body)
        if method == "DELETE":
            return 200, self._delete(key)
        raise ApiError(405, "MethodNotAllowed", f"{method} is not supported by the fake")

    def _route(self, path: str) -> tuple[Resource, Optional[str], Optional[str], Optional[str]]:
        parts = path.strip("/").split("/")
        if parts[:1] == ["api"] and len(parts) >= 3:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 4:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            raise ApiError(
                404, "NotFound", f"the server could not find the requested resource {path}"
            )
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        resource = self.find_resource(group, version, rest[0])
        if resource is None or (namespace is not None and not resource.namespaced):
            raise ApiError(
                404, "NotFound", f"the server could not find the requested resource {path}"
            )
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        return resource, namespace, name, sub

    def _list(
        self, resource: Resource, namespace: Optional[str], query: dict[str, str]
    ) -> dict[str, Any]:
        labels = query.get("labelSelector", "")
        fields = query.get("fieldSelector", "")
        items = [
            copy.deepcopy(obj)
            for (g, p, ns, _), obj in sorted(self._store.objects.items())
            if (g, p) == (resource.group, resource.plural)
            and (namespace is None or ns == namespace)
            and label_selector_matches(labels, (obj.get("metadata") or {}).get("labels") or {})
            and field_selector_matches(fields, obj)
        ]
        return {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.group_version,
            "metadata": {"resourceVersion": self._store.next_version()},
            "items": items,
        }

    def _create(self, resource: Resource, namespace: Optional[str], body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ApiError(400, "BadRequest", "the request body must be a JSON object")
        if resource.namespaced:
            body.setdefault("metadata", {})["namespace"] = namespace or "default"
        return self._put(resource, body, create=True)

    def _patch(
        self, key: tuple[str, str, str, str], content_type: str, body: Any
    ) -> dict[str, Any]:
        if content_type not in (
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
        ):
            raise ApiError(415, "UnsupportedMediaType", f"patch type {content_type} not supported")
        with self._store.lock:
            patched = merge_patch(self._store.objects[key], body)
            patched["metadata"]["resourceVersion"] = self._store.next_version()
            self._store.objects[key] = patched
            return copy.deepcopy(patched)

    def _delete(self, key: tuple[str, str, str, str]) -> dict[str, Any]:
        with self._store.lock:
            return self._store.objects.pop(key)

    def _log(self, namespace: str, pod: str, query: dict[str, str]) -> str:
        text = self._store.logs.get((namespace, pod, query.get("container", "")))
        if text is None:
            text = self._store.logs.get((namespace, pod, ""), "")
        tail = query.get("tailLines")
        if tail and tail.isdigit():
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-int(tail) :]) if int(tail) else ""
        return text


class _Handler(BaseHTTPRequestHandler):
    fake: FakeKubeApi
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        return

    def _serve(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        self.fake.requests.append(
            RecordedRequest(self.command, parts.path, query, content_type, body)
        )
        try:
            status, payload = self.fake.handle(self.command, parts.path, query, content_type, body)
        except ApiError as error:
            status, payload = error.code, error.status()
        if isinstance(payload, str):
            data, kind = payload.encode(), "text/plain"
        else:
            data, kind = json.dumps(payload).encode(), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve


# -- object factories: schema-complete enough for the kubernetes client's models ----------------
def make_node(
    name: str,
    labels: Optional[dict[str, str]] = None,
    taints: Optional[list[dict[str, str]]] = None,
    ready: bool = True,
    tpu_chips: int = 4,
    unschedulable: bool = False,
) -> dict[str, Any]:
    capacity = {"cpu": "208", "memory": "400Gi", "pods": "110"}
    if tpu_chips:
        capacity["google.com/tpu"] = str(tpu_chips)
    spec: dict[str, Any] = {"providerID": f"gce://demo-project/us-central2-b/{name}"}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "Unknown",
                    "reason": "KubeletReady" if ready else "NodeStatusUnknown",
                    "message": "kubelet is posting ready status"
                    if ready
                    else "Kubelet stopped posting node status.",
                    "lastHeartbeatTime": "2025-01-01T00:00:00Z",
                    "lastTransitionTime": "2025-01-01T00:00:00Z",
                }
            ],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.2"}],
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": "00000000-0000-0000-0000-000000000001",
                "containerRuntimeVersion": "containerd://1.7.0",
                "kernelVersion": "6.1.0",
                "kubeProxyVersion": "v1.32.4",
                "kubeletVersion": "v1.32.4",
                "machineID": "0000000000000000",
                "operatingSystem": "linux",
                "osImage": "Container-Optimized OS from Google",
                "systemUUID": "00000000-0000-0000-0000-000000000002",
            },
        },
    }


def make_pod(
    name: str,
    namespace: str = "default",
    node: Optional[str] = None,
    phase: str = "Running",
    labels: Optional[dict[str, str]] = None,
    restarts: int = 0,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "trainer:latest"}]}
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": spec,
        "status": {
            "phase": phase,
            "containerStatuses": [
                {
                    "name": "main",
                    "image": "trainer:latest",
                    "imageID": "",
                    "ready": phase == "Running",
                    "restartCount": restarts,
                    "started": phase == "Running",
                    "state": {"running": {"startedAt": "2025-01-01T00:00:00Z"}}
                    if phase == "Running"
                    else {"waiting": {"reason": "ContainerCreating"}},
                }
            ],
        },
    }


def make_event(
    name: str,
    reason: str,
    message: str,
    involved: dict[str, Any],
    namespace: str = "default",
    event_type: str = "Warning",
) -> dict[str, Any]:
    """A core v1 Event about `involved` (a stored object: its kind, name, namespace, uid)."""
    meta = involved.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "involvedObject": {
            "apiVersion": involved.get("apiVersion", "v1"),
            "kind": involved.get("kind", ""),
            "name": meta.get("name", ""),
            "namespace": meta.get("namespace", ""),
            "uid": meta.get("uid", ""),
        },
        "reason": reason,
        "message": message,
        "type": event_type,
        "count": 1,
        "firstTimestamp": "2025-01-01T00:00:00Z",
        "lastTimestamp": "2025-01-01T00:00:00Z",
        "source": {"component": "kubelet"},
    }


def make_jobset(name: str, namespace: str = "default", replicas: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicatedJobs": [
                {"name": "slice", "replicas": replicas, "template": {"spec": {}}},
            ],
            "failurePolicy": {"maxRestarts": 3},
        },
        "status": {"restarts": 0, "conditions": []},
    }


@pytest.fixture(name="kube_api")
def kube_api_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubeApi]:
    """A started FakeKubeApi with KUBECONFIG and KUBECACHEDIR pointing at it (context `fake`)."""
    with FakeKubeApi() as api:
        monkeypatch.setenv("KUBECONFIG", str(api.write_kubeconfig(tmp_path / "kubeconfig")))
        monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kubecache"))
        yield api
