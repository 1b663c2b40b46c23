"""A realistic, deterministic set of Cloud Logging entries around one TPU JobSet incident.

Workload `llm-pretrain` (2 slices x 2 hosts) in project `demo-proj`: step lines from every pod
(over a thousand entries, so paging is exercised), a preempted VM, the pod and JobSet events that
follow, kubelet / node-problem-detector / device-plugin lines on its nodes, autoscaler and
cluster-wide events, plus noise from another workload and entries outside the window.
The message texts follow the real lines quoted in the wiki's symptom pages.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

PROJECT = "demo-proj"
WORKLOAD = "llm-pretrain"
START = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
END = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
NODES = [f"gke-tpu-7f3a-{index}" for index in range(4)]
PREEMPTED = NODES[2]
ZONE = "us-central2-b"
CLUSTER = {"project_id": PROJECT, "location": ZONE, "cluster_name": "tpu-cluster"}


def _ts(moment: datetime, nanos: int = 0) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


def _log(name: str) -> str:
    return f"projects/{PROJECT}/logs/{name.replace('/', '%2F')}"


class _Ids:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"e{self.count:06d}"


def _container(
    ids: _Ids,
    moment: datetime,
    workload: str,
    pod: str,
    node: str,
    text: str,
    severity: str = "INFO",
) -> dict[str, Any]:
    return {
        "insertId": ids(),
        "logName": _log("stdout" if severity == "INFO" else "stderr"),
        "resource": {
            "type": "k8s_container",
            "labels": {
                **CLUSTER,
                "namespace_name": "default",
                "pod_name": pod,
                "container_name": "jax-tpu",
            },
        },
        "labels": {
            "compute.googleapis.com/resource_name": node,
            "k8s-pod/jobset_sigs_k8s_io/jobset-name": workload,
        },
        "severity": severity,
        "timestamp": _ts(moment, ids.count * 1000 + 7),
        "receiveTimestamp": _ts(moment + timedelta(seconds=1)),
        "textPayload": text,
    }


def _event(
    ids: _Ids,
    moment: datetime,
    kind: str,
    name: str,
    reason: str,
    message: str,
    resource_type: str,
    severity: str = "WARNING",
) -> dict[str, Any]:
    labels = dict(CLUSTER)
    if resource_type == "k8s_pod":
        labels.update(namespace_name="default", pod_name=name)
    if resource_type == "k8s_node":
        labels["node_name"] = name
    return {
        "insertId": ids(),
        "logName": _log("events"),
        "resource": {"type": resource_type, "labels": labels},
        "severity": severity,
        "timestamp": _ts(moment, 5),
        "jsonPayload": {
            "kind": "Event",
            "involvedObject": {"kind": kind, "name": name, "namespace": "default"},
            "reason": reason,
            "message": message,
            "source": {"component": "kubelet", "host": name if kind == "Node" else NODES[0]},
        },
    }


def _node_log(ids: _Ids, moment: datetime, node: str, log_id: str, text: str) -> dict[str, Any]:
    return {
        "insertId": ids(),
        "logName": _log(log_id),
        "resource": {"type": "k8s_node", "labels": {**CLUSTER, "node_name": node}},
        "severity": "INFO",
        "timestamp": _ts(moment, 11),
        "jsonPayload": {"MESSAGE": text},
    }


def _system_event(
    ids: _Ids, moment: datetime, node: str, method: str, message: str
) -> dict[str, Any]:
    return {
        "insertId": ids(),
        "logName": _log("cloudaudit.googleapis.com/system_event"),
        "resource": {
            "type": "gce_instance",
            "labels": {"project_id": PROJECT, "zone": ZONE, "instance_id": "123"},
        },
        "severity": "NOTICE",
        "timestamp": _ts(moment, 3),
        "protoPayload": {
            "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
            "methodName": method,
            "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{node}",
            "status": {"message": message},
        },
    }


def incident_entries() -> list[dict[str, Any]]:
    ids = _Ids()
    entries: list[dict[str, Any]] = []
    pods = [f"{WORKLOAD}-slice-{s}-{h}-x{s}{h}q" for s in range(2) for h in range(2)]
    for step in range(300):
        moment = START + timedelta(minutes=5, seconds=10 * step)
        for pod, node in zip(pods, NODES):
            entries.append(
                _container(
                    ids, moment, WORKLOAD, pod, node, f"completed step: {step}, loss=2.{step % 10}"
                )
            )
    crash = START + timedelta(minutes=55)
    entries.append(
        _system_event(
            ids, crash, PREEMPTED, "compute.instances.preempted", "Instance was preempted."
        )
    )
    entries.append(
        _system_event(
            ids,
            crash,
            "gke-other-1",
            "compute.instances.hostError",
            "Instance terminated by Compute Engine.",
        )
    )
    entries.append(
        _container(
            ids,
            crash + timedelta(seconds=20),
            WORKLOAD,
            pods[0],
            NODES[0],
            "Terminating process because the JAX distributed service detected fatal errors. "
            "This most likely indicates that another task died; see the other task logs.",
            "ERROR",
        )
    )
    entries.append(
        _event(
            ids,
            crash + timedelta(seconds=5),
            "Node",
            PREEMPTED,
            "NodeNotReady",
            f"Node {PREEMPTED} status is now: NodeNotReady",
            "k8s_node",
        )
    )
    entries.append(
        _event(
            ids,
            crash + timedelta(seconds=30),
            "Pod",
            pods[2],
            "Killing",
            "Stopping container jax-tpu",
            "k8s_pod",
            "INFO",
        )
    )
    entries.append(
        _event(
            ids,
            crash + timedelta(seconds=40),
            "JobSet",
            WORKLOAD,
            "Restarting",
            "jobset llm-pretrain restarting: job llm-pretrain-slice-1 failed",
            "k8s_cluster",
        )
    )
    entries.append(
        _event(
            ids,
            crash + timedelta(seconds=60),
            "Pod",
            pods[2],
            "FailedScheduling",
            "0/3 nodes are available: 3 Insufficient google.com/tpu.",
            "k8s_pod",
        )
    )
    for index, pod in enumerate(pods):
        entries.append(
            _event(
                ids,
                START + timedelta(minutes=1, seconds=index),
                "Pod",
                pod,
                "Scheduled",
                f"Successfully assigned default/{pod} to {NODES[index]}",
                "k8s_pod",
                "INFO",
            )
        )
    for node in NODES:
        entries.append(
            _node_log(
                ids, START + timedelta(minutes=2), node, "kubelet", f"kubelet started on {node}"
            )
        )
        entries.append(
            _node_log(
                ids,
                crash,
                node,
                "node-problem-detector",
                "Kernel: watchdog: BUG: soft lockup" if node == PREEMPTED else "ok",
            )
        )
        device_plugin = _container(
            ids,
            START + timedelta(minutes=3),
            "",
            f"tpu-device-plugin-{node[-1]}",
            node,
            "Found 4 TPU v5 chips",
        )
        device_plugin["resource"]["labels"].update(
            namespace_name="kube-system", container_name="tpu-device-plugin"
        )
        del device_plugin["labels"]["k8s-pod/jobset_sigs_k8s_io/jobset-name"]
        entries.append(device_plugin)
    entries.append(
        {
            "insertId": ids(),
            "logName": _log("container.googleapis.com/cluster-autoscaler-visibility"),
            "resource": {"type": "k8s_cluster", "labels": CLUSTER},
            "severity": "INFO",
            "timestamp": _ts(crash + timedelta(minutes=2)),
            "jsonPayload": {
                "noDecisionStatus": {
                    "noScaleUp": {
                        "unhandledPodGroups": [
                            {
                                "napFailReasons": [
                                    {"messageId": "no.scale.up.nap.pod.zonal.resources.exceeded"}
                                ]
                            }
                        ]
                    }
                }
            },
        }
    )
    # Noise: another workload, another node, and the incident's own pods outside the window.
    for step in range(40):
        entries.append(
            _container(
                ids,
                START + timedelta(minutes=7, seconds=step),
                "other-job",
                "other-job-0-0-abc",
                "gke-other-1",
                f"completed step: {step}",
            )
        )
    entries.append(
        _event(
            ids,
            START + timedelta(minutes=9),
            "Node",
            "gke-other-1",
            "NodeNotReady",
            "Node gke-other-1 status is now: NodeNotReady",
            "k8s_node",
        )
    )
    entries.append(
        _container(
            ids,
            START - timedelta(hours=2),
            WORKLOAD,
            pods[0],
            NODES[0],
            "completed step: 0 (an earlier run)",
        )
    )
    entries.append(
        _container(
            ids,
            END + timedelta(minutes=1),
            WORKLOAD,
            pods[0],
            NODES[0],
            "completed step: 0 (a later run)",
        )
    )
    return entries
