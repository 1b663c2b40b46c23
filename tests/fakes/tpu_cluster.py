"""A generator of realistic GKE TPU cluster objects, as `kubectl get KIND -A -o json` prints them.

Nodes carry GKE's TPU labels (`cloud.google.com/gke-tpu-accelerator`, `…-topology`, node pool,
Spot), the `google.com/tpu` taint and capacity; one node pool is one slice; JobSets (XPK style:
one Job per slice, one pod per host) own pods that request every chip of their node; events
include scheduling failures, JobSet restarts and hostile text (markup meant to run if a page ever
stopped escaping it). Objects are complete enough for the `kubernetes` client's models.

`realistic_cluster()` is the scenario the tests check numbers against; `large_cluster()` is the
benchmark's 2,000-node, 10,000-pod cluster.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

TPU = "google.com/tpu"
HOSTILE_MESSAGE = (
    '<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=1">'
    "{{ 7*7 }} ${7*7} '); alert(1); //"
)
HOSTILE_REASON = '"><svg onload=window.__pwned=1>'
BASE_TIME = datetime(2025, 6, 1, 12, 0, 0, tzinfo=timezone.utc)


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class PoolSpec:
    """One node pool. TPU pools are one slice each: `nodes` defaults to the topology's hosts."""

    name: str
    accelerator: Optional[str]  # None: a CPU pool
    topology: str = ""
    chips_per_node: int = 0
    machine_type: str = "e2-standard-8"
    spot: bool = False
    nodes: Optional[int] = None
    not_ready: int = 0
    maintenance: int = 0  # active maintenance labels
    scheduled_maintenance: int = 0  # scheduled-maintenance-time label only
    terminating: int = 0  # impending-node-termination taint
    lost_chips: int = 0  # nodes whose device plugin lost a chip (allocatable < capacity)

    def node_count(self) -> int:
        if self.nodes is not None:
            return self.nodes
        chips = 1
        for part in self.topology.split("x"):
            chips *= int(part)
        return max(chips // self.chips_per_node, 1)


@dataclass
class WorkloadSpec:
    """A JobSet with one slice per pool in `pools`, one pod per node of each slice."""

    name: str
    pools: list[str]
    namespace: str = "default"
    state: str = "running"  # running | failed | pending | crashloop | restarting
    restarts: int = 0
    max_restarts: int = 3
    tpu: bool = True


@dataclass
class FakeCluster:
    project: str
    zone: str
    cluster: str
    nodes: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    jobsets: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def as_list(self, kind: str) -> dict[str, Any]:
        """What `kubectl get KIND -A -o json` prints for KIND (nodes, pods, jobsets, events)."""
        return {
            "apiVersion": "v1",
            "items": getattr(self, kind),
            "kind": "List",
            "metadata": {"resourceVersion": ""},
        }

    def write_snapshot(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        for kind in ("nodes", "pods", "jobsets", "events"):
            (directory / f"{kind}.json").write_text(
                json.dumps(self.as_list(kind), indent=1), encoding="utf-8"
            )
        return directory


class _Builder:
    def __init__(self, cluster: FakeCluster, seed: int) -> None:
        self.cluster = cluster
        self.random = random.Random(seed)
        self.pool_nodes: dict[str, list[dict[str, Any]]] = {}
        self.pool_specs: dict[str, PoolSpec] = {}
        self.event_count = 0

    def uid(self) -> str:
        return "-".join(
            "".join(self.random.choice("0123456789abcdef") for _ in range(n))
            for n in (8, 4, 4, 4, 12)
        )

    def suffix(self, length: int = 4) -> str:
        return "".join(
            self.random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(length)
        )

    # --- nodes ---------------------------------------------------------------------------------

    def add_pool(self, spec: PoolSpec) -> None:
        self.pool_specs[spec.name] = spec
        group = self.suffix(8)
        nodes = []
        for i in range(spec.node_count()):
            flags = {
                "not_ready": i < spec.not_ready,
                "maintenance": i < spec.maintenance,
                "scheduled": i < spec.scheduled_maintenance,
                "terminating": spec.node_count() - i <= spec.terminating,
                "lost_chips": spec.node_count() - i <= spec.lost_chips,
            }
            nodes.append(
                self.node(
                    spec, f"gke-{self.cluster.cluster}-{spec.name}-{group}-{self.suffix()}", flags
                )
            )
        self.pool_nodes[spec.name] = nodes
        self.cluster.nodes.extend(nodes)

    def node(self, spec: PoolSpec, name: str, flags: dict[str, bool]) -> dict[str, Any]:
        labels = {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "cloud.google.com/gke-boot-disk": "pd-balanced",
            "cloud.google.com/gke-container-runtime": "containerd",
            "cloud.google.com/gke-nodepool": spec.name,
            "cloud.google.com/gke-os-distribution": "cos",
            "cloud.google.com/machine-family": spec.machine_type.split("-")[0],
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": spec.machine_type,
            "topology.kubernetes.io/region": self.cluster.zone.rsplit("-", 1)[0],
            "topology.kubernetes.io/zone": self.cluster.zone,
        }
        taints: list[dict[str, Any]] = []
        capacity = {
            "cpu": "208",
            "ephemeral-storage": "98831908Ki",
            "memory": "463842928Ki",
            "pods": "110",
        }
        if spec.accelerator:
            labels["cloud.google.com/gke-tpu-accelerator"] = spec.accelerator
            labels["cloud.google.com/gke-tpu-topology"] = spec.topology
            labels["cloud.google.com/gce-topology-host"] = f"host-{self.suffix(6)}"
            taints.append({"effect": "NoSchedule", "key": TPU, "value": "present"})
            capacity[TPU] = str(spec.chips_per_node)
        if spec.spot:
            labels["cloud.google.com/gke-spot"] = "true"
        if flags["maintenance"]:
            labels["cloud.google.com/active-node-maintenance"] = "ONGOING"
        if flags["maintenance"] or flags["scheduled"]:
            labels["cloud.google.com/scheduled-maintenance-time"] = str(
                int((BASE_TIME + timedelta(hours=2)).timestamp())
            )
        if flags["terminating"]:
            taints.append(
                {
                    "effect": "NoSchedule",
                    "key": "cloud.google.com/impending-node-termination",
                    "timeAdded": _ts(BASE_TIME),
                }
            )
        allocatable = dict(capacity, cpu="207", memory="448000000Ki")
        if flags["lost_chips"] and spec.accelerator:
            allocatable[TPU] = str(spec.chips_per_node - 1)
        heartbeat = _ts(BASE_TIME - timedelta(minutes=30 if flags["not_ready"] else 0))
        ready = {
            "type": "Ready",
            "status": "Unknown" if flags["not_ready"] else "True",
            "reason": "NodeStatusUnknown" if flags["not_ready"] else "KubeletReady",
            "message": "Kubelet stopped posting node status."
            if flags["not_ready"]
            else "kubelet is posting ready status",
            "lastHeartbeatTime": heartbeat,
            "lastTransitionTime": heartbeat,
        }
        pressure = [
            {
                "type": kind,
                "status": "False",
                "reason": f"KubeletHas{reason}",
                "message": f"kubelet has {reason.lower()}",
                "lastHeartbeatTime": heartbeat,
                "lastTransitionTime": _ts(BASE_TIME - timedelta(days=2)),
            }
            for kind, reason in (
                ("MemoryPressure", "SufficientMemory"),
                ("DiskPressure", "NoDiskPressure"),
                ("PIDPressure", "SufficientPID"),
            )
        ]
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "uid": self.uid(),
                "resourceVersion": str(self.random.randint(10_000, 99_999)),
                "creationTimestamp": _ts(BASE_TIME - timedelta(days=2)),
                "labels": labels,
                "annotations": {
                    "container.googleapis.com/instance_id": str(self.random.randint(10**18, 10**19))
                },
            },
            "spec": {
                "podCIDR": f"10.{self.random.randint(0, 255)}.{self.random.randint(0, 255)}.0/24",
                "providerID": f"gce://{self.cluster.project}/{self.cluster.zone}/{name}",
                "taints": taints,
            },
            "status": {
                "addresses": [
                    {
                        "address": f"10.128.{self.random.randint(0, 255)}.{self.random.randint(1, 254)}",
                        "type": "InternalIP",
                    },
                    {"address": name, "type": "Hostname"},
                ],
                "allocatable": allocatable,
                "capacity": capacity,
                "conditions": [*pressure, ready],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {
                    "architecture": "amd64",
                    "bootID": self.uid(),
                    "containerRuntimeVersion": "containerd://1.7.24",
                    "kernelVersion": "6.1.112+",
                    "kubeProxyVersion": "v1.31.5-gke.1023000",
                    "kubeletVersion": "v1.31.5-gke.1023000",
                    "machineID": self.suffix(32),
                    "operatingSystem": "linux",
                    "osImage": "Container-Optimized OS from Google",
                    "systemUUID": self.uid(),
                },
            },
        }

    # --- pods ----------------------------------------------------------------------------------

    def pod(
        self,
        name: str,
        namespace: str,
        labels: dict[str, str],
        node: Optional[str],
        chips: int,
        container: str,
        state: str,
        started: datetime,
    ) -> dict[str, Any]:
        resources: dict[str, Any] = {"requests": {"cpu": "1", "memory": "1Gi"}}
        if chips:
            resources = {
                "limits": {TPU: str(chips)},
                "requests": {"cpu": "1", "memory": "1Gi", TPU: str(chips)},
            }
        status_by_state = {
            "running": ("Running", {"running": {"startedAt": _ts(started)}}, {}, 0),
            "oom": (
                "Failed",
                {
                    "terminated": {
                        "exitCode": 137,
                        "reason": "OOMKilled",
                        "startedAt": _ts(started),
                        "finishedAt": _ts(started + timedelta(minutes=40)),
                    }
                },
                {},
                0,
            ),
            "sigterm": (
                "Failed",
                {
                    "terminated": {
                        "exitCode": 143,
                        "reason": "Error",
                        "startedAt": _ts(started),
                        "finishedAt": _ts(started + timedelta(minutes=39)),
                    }
                },
                {},
                0,
            ),
            "crashloop": (
                "Running",
                {
                    "waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": f"back-off 5m0s restarting failed container={container}",
                    }
                },
                {
                    "terminated": {
                        "exitCode": 139,
                        "reason": "Error",
                        "startedAt": _ts(started),
                        "finishedAt": _ts(started + timedelta(minutes=3)),
                    }
                },
                6,
            ),
            "pending": ("Pending", {}, {}, 0),
        }
        phase, container_state, last_state, restart_count = status_by_state[state]
        status: dict[str, Any] = {
            "phase": phase,
            "qosClass": "Burstable",
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "True" if node else "False",
                    "lastTransitionTime": _ts(started),
                    **(
                        {}
                        if node
                        else {"reason": "Unschedulable", "message": "0/9 nodes are available"}
                    ),
                }
            ],
        }
        if node:
            status.update(
                hostIP=f"10.128.0.{self.random.randint(1, 254)}",
                podIP=f"10.4.{self.random.randint(0, 255)}.{self.random.randint(1, 254)}",
                startTime=_ts(started),
                containerStatuses=[
                    {
                        "name": container,
                        "image": "us-docker.pkg.dev/demo/trainer:latest",
                        "imageID": "us-docker.pkg.dev/demo/trainer@sha256:" + self.suffix(64),
                        "containerID": "containerd://" + self.suffix(64),
                        "ready": state == "running",
                        "started": state == "running",
                        "restartCount": restart_count,
                        "state": container_state,
                        "lastState": last_state,
                    }
                ],
            )
        spec: dict[str, Any] = {
            "containers": [
                {
                    "name": container,
                    "image": "us-docker.pkg.dev/demo/trainer:latest",
                    "resources": resources,
                }
            ],
            "restartPolicy": "Never" if chips else "Always",
            "schedulerName": "default-scheduler",
            "serviceAccountName": "default",
            "tolerations": [{"key": TPU, "operator": "Exists", "effect": "NoSchedule"}]
            if chips
            else [],
        }
        if node:
            spec["nodeName"] = node
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": self.uid(),
                "creationTimestamp": _ts(started),
                "labels": labels,
            },
            "spec": spec,
            "status": status,
        }

    def system_pods(self, per_node: int) -> None:
        """Daemon pods (no TPU) on every node, like GKE's fluentbit, kube-proxy, device plugin."""
        daemons = [
            "fluentbit-gke",
            "kube-proxy",
            "tpu-device-plugin",
            "gke-metadata-server",
            "pdcsi-node",
        ]
        for node in self.cluster.nodes:
            node_name = node["metadata"]["name"]
            for daemon in daemons[:per_node]:
                self.cluster.pods.append(
                    self.pod(
                        f"{daemon}-{self.suffix(5)}",
                        "kube-system",
                        {"k8s-app": daemon},
                        node_name,
                        0,
                        daemon,
                        "running",
                        BASE_TIME - timedelta(days=2),
                    )
                )

    # --- workloads -----------------------------------------------------------------------------

    def add_workload(self, spec: WorkloadSpec) -> None:
        pools = [self.pool_specs[p] for p in spec.pools]
        first = pools[0]
        chips = first.chips_per_node if spec.tpu else 0
        started = BASE_TIME - timedelta(hours=1)
        selector = (
            {
                "cloud.google.com/gke-tpu-accelerator": first.accelerator,
                "cloud.google.com/gke-tpu-topology": first.topology,
            }
            if spec.tpu and first.accelerator
            else {}
        )
        hosts = first.node_count()
        container_resources = {"limits": {TPU: str(chips)}} if chips else {"requests": {"cpu": "2"}}
        jobset_status: dict[str, Any] = {
            "restarts": spec.restarts,
            "replicatedJobsStatus": [],
            "conditions": [],
        }
        if spec.state == "failed":
            jobset_status["terminalState"] = "Failed"
            jobset_status["conditions"].append(
                {
                    "type": "Failed",
                    "status": "True",
                    "reason": "ReachedMaxRestarts",
                    "message": "jobset failed due to reaching max number of restarts",
                    "lastTransitionTime": _ts(started + timedelta(minutes=41)),
                }
            )
        self.cluster.jobsets.append(
            {
                "apiVersion": "jobset.x-k8s.io/v1alpha2",
                "kind": "JobSet",
                "metadata": {
                    "name": spec.name,
                    "namespace": spec.namespace,
                    "uid": self.uid(),
                    "creationTimestamp": _ts(started - timedelta(hours=3)),
                    "annotations": {
                        "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"
                    },
                },
                "spec": {
                    "failurePolicy": {"maxRestarts": spec.max_restarts},
                    "replicatedJobs": [
                        {
                            "name": "slice-job",
                            "replicas": len(pools),
                            "template": {
                                "spec": {
                                    "parallelism": hosts,
                                    "completions": hosts,
                                    "backoffLimit": 0,
                                    "template": {
                                        "spec": {
                                            "nodeSelector": selector,
                                            "restartPolicy": "Never",
                                            "containers": [
                                                {
                                                    "name": "jax-tpu",
                                                    "image": "us-docker.pkg.dev/demo/trainer:latest",
                                                    "resources": container_resources,
                                                }
                                            ],
                                        }
                                    },
                                }
                            },
                        }
                    ],
                },
                "status": jobset_status,
            }
        )
        for slice_index, pool in enumerate(pools):
            nodes = self.pool_nodes[pool.name]
            job_name = f"{spec.name}-slice-job-{slice_index}"
            for worker in range(hosts):
                node = nodes[worker]["metadata"]["name"] if worker < len(nodes) else None
                state = {
                    "running": "running",
                    "restarting": "running",
                    "pending": "pending",
                    "crashloop": "crashloop" if slice_index == 0 and worker == 0 else "running",
                    "failed": "oom" if slice_index == 0 and worker == 1 else "sigterm",
                }[spec.state]
                if node is None:
                    state = "pending"
                labels = {
                    "batch.kubernetes.io/job-completion-index": str(worker),
                    "batch.kubernetes.io/job-name": job_name,
                    "jobset.sigs.k8s.io/jobset-name": spec.name,
                    "jobset.sigs.k8s.io/replicatedjob-name": "slice-job",
                    "jobset.sigs.k8s.io/job-index": str(slice_index),
                    "jobset.sigs.k8s.io/restart-attempt": str(spec.restarts),
                }
                pod = self.pod(
                    f"{job_name}-{worker}-{self.suffix(5)}",
                    spec.namespace,
                    labels,
                    None if state == "pending" else node,
                    chips,
                    "jax-tpu",
                    state,
                    started,
                )
                if spec.state == "restarting":
                    pod["metadata"]["deletionTimestamp"] = _ts(BASE_TIME - timedelta(minutes=1))
                self.cluster.pods.append(pod)
                if state == "pending":
                    self.event(
                        "Pod",
                        pod["metadata"]["name"],
                        spec.namespace,
                        "FailedScheduling",
                        f"0/{len(self.cluster.nodes)} nodes are available: {len(self.cluster.nodes)} Insufficient google.com/tpu. "
                        "preemption: 0/9 nodes are available: 9 No preemption victims found for incoming pod.",
                        BASE_TIME - timedelta(minutes=5),
                        count=12,
                    )
        if spec.state in ("failed", "restarting"):
            self.event(
                "JobSet",
                spec.name,
                spec.namespace,
                "RestartJobSetFailurePolicyAction",
                f"applying RestartJobSet failure policy action (first failed job: {spec.name}-slice-job-0)",
                started + timedelta(minutes=40),
            )

    # --- events --------------------------------------------------------------------------------

    def event(
        self,
        kind: str,
        obj: str,
        namespace: str,
        reason: str,
        message: str,
        moment: datetime,
        event_type: str = "Warning",
        count: int = 1,
    ) -> None:
        self.event_count += 1
        event_namespace = namespace or "default"
        self.cluster.events.append(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {
                    "name": f"{obj}.{self.suffix(16)}",
                    "namespace": event_namespace,
                    "uid": self.uid(),
                    "creationTimestamp": _ts(moment - timedelta(seconds=count)),
                },
                "involvedObject": {
                    "kind": kind,
                    "name": obj,
                    "namespace": namespace,
                    "apiVersion": "v1",
                },
                "reason": reason,
                "message": message,
                "type": event_type,
                "count": count,
                "firstTimestamp": _ts(moment - timedelta(seconds=count)),
                "lastTimestamp": _ts(moment),
                "source": {"component": "default-scheduler" if kind == "Pod" else "kubelet"},
                "reportingComponent": "",
                "reportingInstance": "",
            }
        )


def build_cluster(
    pools: list[PoolSpec],
    workloads: list[WorkloadSpec],
    project: str = "demo-proj",
    zone: str = "us-east5-a",
    cluster: str = "tpu-cluster",
    system_pods_per_node: int = 0,
    seed: int = 7,
) -> FakeCluster:
    builder = _Builder(FakeCluster(project, zone, cluster), seed)
    for pool in pools:
        builder.add_pool(pool)
    for workload in workloads:
        builder.add_workload(workload)
    builder.system_pods(system_pods_per_node)
    for node in builder.cluster.nodes:
        ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
        if ready["status"] != "True":
            builder.event(
                "Node",
                node["metadata"]["name"],
                "",
                "NodeNotReady",
                f"Node {node['metadata']['name']} status is now: NodeNotReady",
                BASE_TIME - timedelta(minutes=20),
            )
    return builder.cluster


# The scenario the tests check; the comments are the numbers a reader expects on the page.
REALISTIC_POOLS = [
    # v5p 2x2x4: 16 chips, 4 per host → 4 hosts. Two slices of llm-pretrain, all healthy.
    PoolSpec("v5p-slice-a", "tpu-v5p-slice", "2x2x4", 4, "ct5p-hightpu-4t"),
    # Second slice: one host NotReady → degraded.
    PoolSpec("v5p-slice-b", "tpu-v5p-slice", "2x2x4", 4, "ct5p-hightpu-4t", not_ready=1),
    # v6e 4x4 Spot: 16 chips, 4 per host → 4 hosts; one has the impending-termination taint.
    PoolSpec("v6e-spot", "tpu-v6e-slice", "4x4", 4, "ct6e-standard-4t", spot=True, terminating=1),
    # v5e 2x4 single-host (8 chips per host), three hosts, one under active maintenance.
    PoolSpec(
        "v5e-single", "tpu-v5-lite-podslice", "2x4", 8, "ct5lp-hightpu-8t", nodes=3, maintenance=1
    ),
    # v4 2x2x2: 8 chips, 4 per host → 2 hosts expected, only 1 present.
    PoolSpec("v4-slice", "tpu-v4-podslice", "2x2x2", 4, "ct4p-hightpu-4t", nodes=1),
    PoolSpec("default-pool", None, nodes=2),
]
REALISTIC_WORKLOADS = [
    WorkloadSpec(
        "llm-pretrain",
        ["v5p-slice-a", "v5p-slice-b"],
        namespace="training",
        restarts=1,
        state="running",
    ),
    WorkloadSpec("spot-finetune", ["v6e-spot"], namespace="training", restarts=3, state="failed"),
    WorkloadSpec("eval-sweep", ["v5e-single"], state="crashloop"),
    WorkloadSpec("data-prep", ["default-pool"], tpu=False),
]


def realistic_cluster(cluster: str = "tpu-cluster", project: str = "demo-proj") -> FakeCluster:
    """Five TPU pools in every state worth showing, four JobSets, and a hostile event."""
    fake = build_cluster(
        REALISTIC_POOLS,
        REALISTIC_WORKLOADS,
        project=project,
        cluster=cluster,
        system_pods_per_node=2,
    )
    builder = _Builder(fake, seed=11)
    victim = next(
        n
        for n in fake.nodes
        if n["metadata"]["labels"].get("cloud.google.com/gke-nodepool") == "v5e-single"
    )
    builder.event(
        "Node",
        victim["metadata"]["name"],
        "",
        HOSTILE_REASON,
        HOSTILE_MESSAGE,
        BASE_TIME + timedelta(minutes=1),
    )
    builder.event(
        "Pod",
        "unrelated-pod",
        "default",
        "Pulled",
        "Normal events are not warnings",
        BASE_TIME,
        event_type="Normal",
    )
    return fake


def large_cluster(nodes: int = 2000, pods: int = 10000, events: int = 2000) -> FakeCluster:
    """NODES TPU hosts in 4-host v5p slices, one training pod per host (two slices per JobSet),
    daemon pods filling up to PODS, and EVENTS warning events."""
    pools = [
        PoolSpec(
            f"pool-{i:04d}",
            "tpu-v5p-slice",
            "2x2x4",
            4,
            "ct5p-hightpu-4t",
            spot=i % 3 == 0,
            not_ready=int(i % 17 == 0),
        )
        for i in range(nodes // 4)
    ]
    workloads = [
        WorkloadSpec(
            f"job-{i:04d}",
            [pools[2 * i].name, pools[2 * i + 1].name],
            state="failed" if i % 25 == 0 else "running",
            restarts=i % 4,
        )
        for i in range(len(pools) // 2)
    ]
    fake = build_cluster(
        pools,
        workloads,
        cluster="big-cluster",
        system_pods_per_node=max((pods - nodes) // nodes, 0),
    )
    builder = _Builder(fake, seed=3)
    for i in range(events):
        pod = fake.pods[i % len(fake.pods)]
        builder.event(
            "Pod",
            pod["metadata"]["name"],
            pod["metadata"]["namespace"],
            "BackOff",
            f"Back-off restarting failed container {i}",
            BASE_TIME - timedelta(seconds=i),
        )
    return fake
