"""Building blocks for the held-out incident bundles of `make_incidents.py`.

An `Incident` collects Cloud Logging LogEntry dicts in the shapes GKE and Compute Engine write
them (container stdout/stderr split one entry per line, Kubernetes events, node logs, GCE audit
system events) and writes them the way `gcloud logging read --format=json` prints them: a JSON
array, newest first (or JSONL when asked), beside the incident's `expected.json`.
Everything random comes from one seeded `random.Random`, so a run is reproducible byte for byte.
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Optional

SPELLINGS = {
    "dots": ("jobset.sigs.k8s.io", "batch.kubernetes.io"),
    "underscores": ("jobset_sigs_k8s_io", "batch_kubernetes_io"),
}
_ALNUM = string.ascii_lowercase + string.digits


@dataclass
class Pod:
    name: str
    node: str
    jobset: str
    replicated_job: str
    job_index: int
    completion_index: int
    attempt: int
    task: Optional[int] = None
    containers: tuple[str, ...] = ("jax-tpu",)

    @property
    def job(self) -> str:
        return f"{self.jobset}-{self.replicated_job}-{self.job_index}"


@dataclass
class Incident:
    name: str
    workload: str
    project: str
    cluster: str
    location: str
    start: datetime
    seed: int
    spelling: str = "dots"
    namespace: str = "default"
    jsonl: bool = False
    entries: list[dict[str, Any]] = field(default_factory=list)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # --- names and times -------------------------------------------------------------------

    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)

    def suffix(self, length: int) -> str:
        return "".join(self.rng.choice(_ALNUM) for _ in range(length))

    def pool_nodes(self, pool: str, count: int) -> list[str]:
        """Node names of one node pool, as GKE forms them: gke-<cluster>-<pool>-<8hex>-<4char>."""
        group = "".join(self.rng.choice("0123456789abcdef") for _ in range(8))
        return [f"gke-{self.cluster}-{pool}-{group}-{self.suffix(4)}" for _ in range(count)]

    def slices(self, pool_prefix: str, count: int, hosts: int) -> list[list[str]]:
        return [self.pool_nodes(f"{pool_prefix}-{j}", hosts) for j in range(count)]

    def xpk_pods(
        self, nodes: list[list[str]], attempt: int, replicated_job: str = "slice-job"
    ) -> list[Pod]:
        """One pod per node; task id = slice * hosts_per_slice + worker (cloud_tpu_cluster.py)."""
        pods = []
        for j, slice_nodes in enumerate(nodes):
            for c, node in enumerate(slice_nodes):
                name = f"{self.workload}-{replicated_job}-{j}-{c}-{self.suffix(5)}"
                task = j * len(slice_nodes) + c
                pods.append(Pod(name, node, self.workload, replicated_job, j, c, attempt, task))
        return pods

    # --- entries ---------------------------------------------------------------------------

    def _add(self, entry: dict[str, Any], when: datetime) -> dict[str, Any]:
        entry["timestamp"] = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        entry["insertId"] = self.suffix(16)
        entry["receiveTimestamp"] = (
            when + timedelta(milliseconds=self.rng.randint(300, 4000))
        ).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        self.entries.append(entry)
        return entry

    def _pod_labels(self, pod: Pod) -> dict[str, str]:
        keys = [SPELLINGS["dots"], SPELLINGS["underscores"]]
        if self.spelling != "both":
            keys = [SPELLINGS[self.spelling]]
        labels = {"compute.googleapis.com/resource_name": pod.node}
        for jobset, batch in keys:
            labels.update(
                {
                    f"k8s-pod/{jobset}/jobset-name": pod.jobset,
                    f"k8s-pod/{jobset}/replicatedjob-name": pod.replicated_job,
                    f"k8s-pod/{jobset}/job-index": str(pod.job_index),
                    f"k8s-pod/{jobset}/restart-attempt": str(pod.attempt),
                    f"k8s-pod/{batch}/job-completion-index": str(pod.completion_index),
                }
            )
        return labels

    def _resource(self, kind: str, **labels: str) -> dict[str, Any]:
        base = {"project_id": self.project, "location": self.location, "cluster_name": self.cluster}
        return {"type": kind, "labels": {**base, **labels}}

    def log(
        self,
        pod: Pod,
        when: datetime,
        text: str,
        stream: str = "stderr",
        container: Optional[str] = None,
        severity: Optional[str] = None,
        one_entry: bool = False,
    ) -> None:
        """A container's output: one entry per line, as the GKE logging agent splits plain text.

        `one_entry` keeps a multi-line message whole, as a multi-line parser would.
        """
        for offset, line in enumerate([text] if one_entry else text.split("\n")):
            entry = {
                "logName": f"projects/{self.project}/logs/{stream}",
                "resource": self._resource(
                    "k8s_container",
                    namespace_name=self.namespace,
                    pod_name=pod.name,
                    container_name=container or pod.containers[0],
                ),
                "severity": severity or ("ERROR" if stream == "stderr" else "INFO"),
                "textPayload": line,
                "labels": self._pod_labels(pod),
            }
            self._add(entry, when + timedelta(microseconds=7 * offset))

    def json_log(self, pod: Pod, when: datetime, payload: dict[str, Any], severity: str) -> None:
        """A container that logs structured JSON (the agent turns it into jsonPayload)."""
        entry = {
            "logName": f"projects/{self.project}/logs/stdout",
            "resource": self._resource(
                "k8s_container",
                namespace_name=self.namespace,
                pod_name=pod.name,
                container_name=pod.containers[0],
            ),
            "severity": severity,
            "jsonPayload": payload,
            "labels": self._pod_labels(pod),
        }
        self._add(entry, when)

    def pod_event(
        self,
        pod: str,
        when: datetime,
        reason: str,
        message: str,
        kind: str = "Normal",
        component: str = "kubelet",
        host: Optional[str] = None,
    ) -> None:
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        payload = {
            "kind": "Event",
            "apiVersion": "v1",
            "type": kind,
            "reason": reason,
            "message": message,
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": self.namespace},
            "source": source,
            "reportingComponent": component,
        }
        entry = {
            "logName": f"projects/{self.project}/logs/events",
            "resource": self._resource("k8s_pod", namespace_name=self.namespace, pod_name=pod),
            "severity": "WARNING" if kind == "Warning" else "INFO",
            "jsonPayload": payload,
        }
        self._add(entry, when)

    def object_event(
        self,
        obj_kind: str,
        name: str,
        when: datetime,
        reason: str,
        message: str,
        kind: str = "Normal",
        component: str = "jobset-controller",
        api_version: str = "jobset.x-k8s.io/v1alpha2",
    ) -> None:
        """An event about a namespaced non-pod object (Job, JobSet, Kueue Workload, Slice)."""
        payload = {
            "kind": "Event",
            "apiVersion": "v1",
            "type": kind,
            "reason": reason,
            "message": message,
            "involvedObject": {
                "kind": obj_kind,
                "name": name,
                "namespace": self.namespace,
                "apiVersion": api_version,
            },
            "source": {"component": component},
            "reportingComponent": component,
        }
        entry = {
            "logName": f"projects/{self.project}/logs/events",
            "resource": self._resource("k8s_cluster"),
            "severity": "WARNING" if kind == "Warning" else "INFO",
            "jsonPayload": payload,
        }
        self._add(entry, when)

    def node_event(
        self,
        node: str,
        when: datetime,
        reason: str,
        message: str,
        kind: str = "Warning",
        component: str = "kubelet",
    ) -> None:
        payload = {
            "kind": "Event",
            "apiVersion": "v1",
            "type": kind,
            "reason": reason,
            "message": message,
            "involvedObject": {"kind": "Node", "name": node, "apiVersion": "v1"},
            "source": {"component": component, "host": node},
            "reportingComponent": component,
        }
        entry = {
            "logName": f"projects/{self.project}/logs/events",
            "resource": self._resource("k8s_node", node_name=node),
            "severity": "WARNING" if kind == "Warning" else "INFO",
            "jsonPayload": payload,
        }
        self._add(entry, when)

    def node_log(
        self, node: str, when: datetime, text: str, log: str = "kubelet", severity: str = "INFO"
    ) -> None:
        """A node-level log line (kubelet, kernel via node-problem-detector, serial console)."""
        entry = {
            "logName": f"projects/{self.project}/logs/{log}",
            "resource": self._resource("k8s_node", node_name=node),
            "severity": severity,
            "jsonPayload": {"MESSAGE": text, "_HOSTNAME": node, "SYSLOG_IDENTIFIER": log},
        }
        self._add(entry, when)

    def serial_console(self, node: str, when: datetime, text: str) -> None:
        entry = {
            "logName": f"projects/{self.project}/logs/serialconsole.googleapis.com%2Fserial_port_1_output",
            "resource": {
                "type": "gce_instance",
                "labels": {
                    "project_id": self.project,
                    "zone": self.location,
                    "instance_id": str(self.rng.randint(10**18, 9 * 10**18)),
                },
            },
            "severity": "DEFAULT",
            "textPayload": text,
            "labels": {"compute.googleapis.com/resource_name": node},
        }
        self._add(entry, when)

    def gce_audit(self, node: str, when: datetime, method: str, message: str) -> None:
        """A Compute Engine system event (preempted, hostError, terminateOnHostMaintenance…)."""
        entry = {
            "logName": f"projects/{self.project}/logs/cloudaudit.googleapis.com%2Fsystem_event",
            "resource": {
                "type": "gce_instance",
                "labels": {
                    "project_id": self.project,
                    "zone": self.location,
                    "instance_id": str(self.rng.randint(10**18, 9 * 10**18)),
                },
            },
            "severity": "NOTICE",
            "protoPayload": {
                "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                "authenticationInfo": {"principalEmail": "system@google.com"},
                "serviceName": "compute.googleapis.com",
                "methodName": method,
                "resourceName": f"projects/{self.project}/zones/{self.location}/instances/{node}",
                "request": {"@type": f"type.googleapis.com/{method}"},
                "status": {"message": message},
            },
            "operation": {
                "id": str(self.rng.randint(10**18, 9 * 10**18)),
                "producer": method,
                "first": True,
                "last": True,
            },
        }
        self._add(entry, when)

    def gke_operation(self, pool: str, when: datetime, method: str, operation_type: str) -> None:
        """A GKE node-pool operation in the activity audit log (repair, upgrade)."""
        location = (
            self.location.rsplit("-", 1)[0] if self.location.count("-") == 2 else self.location
        )
        entry = {
            "logName": f"projects/{self.project}/logs/cloudaudit.googleapis.com%2Factivity",
            "resource": {
                "type": "gke_nodepool",
                "labels": {
                    "project_id": self.project,
                    "location": location,
                    "cluster_name": self.cluster,
                    "nodepool_name": pool,
                },
            },
            "severity": "NOTICE",
            "protoPayload": {
                "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                "authenticationInfo": {"principalEmail": "robot@system.gserviceaccount.com"},
                "serviceName": "container.googleapis.com",
                "methodName": method,
                "resourceName": f"projects/{self.project}/locations/{location}/clusters/{self.cluster}/nodePools/{pool}",
                "metadata": {
                    "@type": "type.googleapis.com/google.container.v1.OperationMetadata",
                    "operationType": operation_type,
                },
            },
        }
        self._add(entry, when)

    # --- output ----------------------------------------------------------------------------

    def write(self, root: Path, expected: dict[str, Any]) -> Path:
        folder = root / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("logs.json*"):
            old.unlink()
        newest_first = sorted(
            self.entries, key=lambda e: (e["timestamp"], e["insertId"]), reverse=True
        )
        if self.jsonl:
            text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in newest_first)
            (folder / "logs.jsonl").write_text(text, encoding="utf-8")
        else:
            # A JSON array like gcloud's, one entry per line to keep the fixtures small.
            body = ",\n".join(json.dumps(e, separators=(",", ":")) for e in newest_first)
            (folder / "logs.json").write_text(f"[\n{body}\n]\n", encoding="utf-8")
        document = {"workload": self.workload, **expected}
        (folder / "expected.json").write_text(
            json.dumps(document, indent=2) + "\n", encoding="utf-8"
        )
        return folder


def absl(level: str, when: datetime, thread: int, where: str, message: str) -> str:
    """An absl/glog-prefixed line as XLA, libtpu and the coordination service print them."""
    return f"{level}{when:%m%d %H:%M:%S.%f} {thread:>8} {where}] {message}"
