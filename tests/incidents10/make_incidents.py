"""Deterministic generator of the round-10 held-out incidents (infrastructure-heavy).

Run `python tests/incidents10/make_incidents.py` to (re)write every scenario folder: `logs.json.gz`
(a gzipped `gcloud logging read --format=json` array, newest first) and `expected.json` (the label).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "tpu-train-prod-7731"
CLUSTER = "tpu-east5"
LOCATION = "us-east5"
ZONE = "us-east5-a"
T0 = datetime(2026, 11, 12, 3, 0, 0, tzinfo=timezone.utc)

Entry = dict[str, Any]


def ts(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def glog(level: str, seconds: float, pid: int, where: str, text: str) -> str:
    t = T0 + timedelta(seconds=seconds)
    return f"{level}{t:%m%d %H:%M:%S.%f} {pid} {where}] {text}"


class Bundle:
    """Collects entries for one incident; insertIds derive from content so runs are stable."""

    def __init__(self, name: str, jobset: str) -> None:
        self.name = name
        self.jobset = jobset
        self.entries: list[Entry] = []
        self.rng = random.Random(name)

    def _add(self, seconds: float, entry: Entry) -> None:
        entry["timestamp"] = ts(seconds)
        entry["receiveTimestamp"] = ts(seconds + 0.8)
        digest = hashlib.sha1(f"{self.name}{len(self.entries)}".encode()).hexdigest()
        entry["insertId"] = digest[:16]
        self.entries.append(entry)

    def container(
        self,
        seconds: float,
        pod: str,
        node: str,
        text: str,
        severity: str = "INFO",
        container: str = "jax-tpu",
        namespace: str = "default",
        dots: bool = False,
    ) -> None:
        key = "jobset.sigs.k8s.io" if dots else "jobset_sigs_k8s_io"
        labels = {"compute.googleapis.com/resource_name": node}
        if namespace == "default":
            labels[f"k8s-pod/{key}/jobset-name"] = self.jobset
            labels[f"k8s-pod/{key}/replicatedjob-name"] = "slice-job"
            labels["k8s-pod/xpk_google_com/workload"] = self.jobset
        stream = "stderr" if severity in ("ERROR", "CRITICAL", "WARNING") else "stdout"
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/{stream}",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "namespace_name": namespace,
                        "pod_name": pod,
                        "container_name": container,
                    },
                },
                "severity": severity,
                "labels": labels,
                "textPayload": text,
            },
        )

    def pod_event(
        self,
        seconds: float,
        pod: str,
        reason: str,
        message: str,
        kind: str = "Warning",
        component: str = "kubelet",
        node: Optional[str] = None,
    ) -> None:
        source: dict[str, str] = {"component": component}
        if node:
            source["host"] = node
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_pod",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "namespace_name": "default",
                        "pod_name": pod,
                    },
                },
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "kind": "Event",
                    "reason": reason,
                    "message": message,
                    "type": kind,
                    "involvedObject": {"kind": "Pod", "namespace": "default", "name": pod},
                    "source": source,
                },
            },
        )

    def node_event(
        self,
        seconds: float,
        node: str,
        reason: str,
        message: str,
        component: str = "node-controller",
        kind: str = "Warning",
    ) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_node",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "node_name": node,
                    },
                },
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "kind": "Event",
                    "reason": reason,
                    "message": message,
                    "type": kind,
                    "involvedObject": {"kind": "Node", "name": node, "uid": node},
                    "source": {"component": component, "host": node},
                },
            },
        )

    def jobset_event(
        self, seconds: float, reason: str, message: str, kind: str = "Warning"
    ) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                    },
                },
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "kind": "Event",
                    "reason": reason,
                    "message": message,
                    "type": kind,
                    "involvedObject": {
                        "kind": "JobSet",
                        "namespace": "default",
                        "name": self.jobset,
                        "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    },
                    "source": {"component": "jobset"},
                },
            },
        )

    def gce(self, seconds: float, node: str, method: str, message: str) -> None:
        instance_id = str(int(hashlib.sha1(node.encode()).hexdigest()[:15], 16))
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {"project_id": PROJECT, "zone": ZONE, "instance_id": instance_id},
                },
                "severity": "INFO",
                "operation": {
                    "id": f"systemevent-{instance_id[:8]}",
                    "producer": method,
                    "first": True,
                    "last": True,
                },
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "status": {"message": message},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{node}",
                    "request": {"@type": "type.googleapis.com/compute.instances.systemEvent"},
                },
            },
        )

    def serial(self, seconds: float, node: str, text: str) -> None:
        instance_id = str(int(hashlib.sha1(node.encode()).hexdigest()[:15], 16))
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/serialconsole.googleapis.com%2Fserial_port_1_output",
                "resource": {
                    "type": "gce_instance",
                    "labels": {"project_id": PROJECT, "zone": ZONE, "instance_id": instance_id},
                },
                "labels": {"compute.googleapis.com/resource_name": node},
                "textPayload": text,
            },
        )

    def node_log(
        self, seconds: float, node: str, log: str, text: str, severity: str = "INFO"
    ) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/{log}",
                "resource": {
                    "type": "k8s_node",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "node_name": node,
                    },
                },
                "severity": severity,
                "textPayload": text,
            },
        )

    def nodepool_audit(self, seconds: float, pool: str, method: str, message: str) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Factivity",
                "resource": {
                    "type": "gke_nodepool",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "nodepool_name": pool,
                    },
                },
                "severity": "NOTICE",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "status": {"message": message},
                    "authenticationInfo": {
                        "principalEmail": "container-engine-robot@system.gserviceaccount.com"
                    },
                    "serviceName": "container.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/locations/{LOCATION}/clusters/{CLUSTER}/nodePools/{pool}",
                },
            },
        )

    def node_patch(self, seconds: float, node: str, labels: dict[str, str]) -> None:
        """A Kubernetes audit entry of GKE labelling a node (how maintenance notices arrive)."""
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Factivity",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                    },
                },
                "severity": "NOTICE",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "authenticationInfo": {
                        "principalEmail": "system:gke-node-maintenance-controller"
                    },
                    "serviceName": "k8s.io",
                    "methodName": "io.k8s.core.v1.nodes.patch",
                    "resourceName": f"core/v1/nodes/{node}",
                    "request": {"metadata": {"labels": labels}},
                },
            },
        )

    def write(self, expected: dict[str, Any]) -> None:
        folder = HERE / self.name
        folder.mkdir(exist_ok=True)
        ordered = sorted(self.entries, key=lambda e: (e["timestamp"], e["insertId"]), reverse=True)
        # gzip (mtime 0, so the bytes are reproducible) keeps the whole set well under 1 MB.
        data = (json.dumps(ordered, indent=1) + "\n").encode("utf-8")
        (folder / "logs.json.gz").write_bytes(gzip.compress(data, mtime=0))
        label = {"workload": self.jobset, **expected}
        (folder / "expected.json").write_text(json.dumps(label, indent=2) + "\n", encoding="utf-8")


class Slice:
    """One XPK workload on one or more multi-host slices: node and pod names, task numbering."""

    def __init__(
        self,
        bundle: Bundle,
        pool_hex: str,
        pool: str,
        hosts: int,
        slices: int = 1,
        attempt: int = 0,
    ) -> None:
        self.b = bundle
        rng = random.Random(f"{bundle.name}{pool}")
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        self.nodes: list[str] = []
        self.pods: list[str] = []
        for j in range(slices):
            for c in range(hosts):
                tail = "".join(rng.choice(alphabet) for _ in range(4))
                self.nodes.append(f"gke-{CLUSTER}-{pool}-{j}-{pool_hex}-{tail}")
                suffix = "".join(rng.choice(alphabet) for _ in range(5))
                self.pods.append(f"{bundle.jobset}-slice-job-{j}-{c}-{suffix}")
        self.hosts = hosts
        self.pid = 700 + rng.randrange(200)
        self.attempt = attempt

    def say(self, seconds: float, task: int, text: str, severity: str = "INFO") -> None:
        self.b.container(
            seconds, self.pods[task], self.nodes[task], text, severity, dots=task % 2 == 1
        )

    def startup(self, start: float, ready: bool = True) -> None:
        for t in range(len(self.pods)):
            s = start + t * 0.3
            self.say(s, t, f"Starting training on process {t} of {len(self.pods)}")
            self.say(
                s + 2,
                t,
                glog(
                    "I",
                    s + 2,
                    self.pid,
                    "distributed.py:103",
                    "Connecting to JAX distributed service on "
                    f"{self.b.jobset}-slice-job-0-0.{self.b.jobset}:8482",
                ),
            )
            if ready:
                self.say(
                    s + 9,
                    t,
                    f"Initialized TPU backend: {4} local devices, {4 * len(self.pods)} global devices",
                )

    def steps(self, start: float, first: int, count: int, every: float = 6.0) -> float:
        rng = random.Random(f"{self.b.name}{start}")
        loss = 3.4 - first * 0.0009
        for i in range(count):
            s = start + i * every
            loss -= rng.uniform(0.0005, 0.003)
            step = first + i
            self.say(
                s,
                0,
                f"completed step: {step}, seconds: {every + rng.uniform(-0.05, 0.05):.3f}, "
                f"TFLOP/s/device: {rng.uniform(391, 398):.3f}, loss: {loss:.3f}",
            )
            if step % 10 == 0:
                for t in range(1, len(self.pods)):
                    self.say(
                        s + 0.2 * t,
                        t,
                        f"Per-host step {step} done; tokens/s/host: {rng.randint(41000, 43000)}",
                    )
        return start + count * every

    def heartbeat_cascade(self, seconds: float, dead: list[int]) -> None:
        names = "\n".join(f"/job:jax_worker/replica:0/task:{k}" for k in dead)
        for t in range(len(self.pods)):
            if t in dead:
                continue
            s = seconds + 0.05 * t
            self.say(
                s,
                t,
                glog(
                    "E",
                    s,
                    self.pid,
                    "coordination_service_agent.cc:332",
                    "Polled an error from coordination service (this can be an error "
                    "from this or another task).",
                ),
                "ERROR",
            )
            self.say(
                s + 0.01,
                t,
                glog(
                    "F",
                    s + 0.01,
                    self.pid,
                    "client.h:77",
                    "Terminating process because the JAX distributed service detected fatal errors. "
                    "This most likely indicates that another task died; see the other task logs for "
                    "more details. Disable Python buffering, i.e. `python -u`, to be sure to see all "
                    "the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy "
                    f"(stopped sending heartbeats):\n{names}\nThe tasks have crashed. Check the task "
                    "logs for an earlier error, or scheduler events (e.g. preemption, eviction) to "
                    "debug further.",
                ),
                "CRITICAL",
            )
        if 0 not in dead:
            for k in dead:
                self.say(
                    seconds - 0.5,
                    0,
                    glog(
                        "E",
                        seconds - 0.5,
                        self.pid,
                        "coordination_service.cc:1163",
                        f"Task /job:jax_worker/replica:0/task:{k} heartbeat timeout. This indicates "
                        "that the remote task has failed, got preempted, or crashed unexpectedly. "
                        "Check the task logs for an earlier error or scheduler events (e.g. "
                        "preemption, eviction) to debug further.",
                    ),
                    "ERROR",
                )

    def sigterm(self, seconds: float, tasks: list[int]) -> None:
        for t in tasks:
            s = seconds + 0.1 * t
            self.say(
                s,
                t,
                f"*** SIGTERM received by PID {self.pid} (TID {self.pid}) on cpu "
                f"{(t * 13) % 96} from PID 1; stack trace: ***",
                "ERROR",
            )
            self.say(
                s + 0.2,
                t,
                glog(
                    "E",
                    s + 0.2,
                    self.pid,
                    "process_state.cc:771",
                    "RAW: Raising signal 15 with default behavior",
                ),
                "ERROR",
            )

    def graceful_shutdown(self, seconds: float, tasks: list[int]) -> None:
        for t in tasks:
            self.b.pod_event(
                seconds + 0.3 * t,
                self.pods[t],
                "Terminated",
                "Pod was terminated in response to imminent node shutdown.",
                node=self.nodes[t],
            )

    def jobset_restart(self, seconds: float, job: int) -> None:
        self.b.jobset_event(
            seconds,
            "RestartJobSetFailurePolicyAction",
            "applying RestartJobSet failure policy action (first failed job: "
            f"{self.b.jobset}-slice-job-{job})",
        )

    def not_ready(self, seconds: float, nodes: list[int]) -> None:
        for t in nodes:
            self.b.node_event(
                seconds + 0.4 * t,
                self.nodes[t],
                "NodeNotReady",
                f"Node {self.nodes[t]} status is now: NodeNotReady",
            )


def noise(b: Bundle, s: Slice, start: float, end: float) -> None:
    """Benign lines every run has: kubelet chatter, warnings that are not failures."""
    rng = random.Random(f"noise{b.name}")
    t = start
    while t < end:
        node = rng.choice(s.nodes)
        b.node_log(
            t,
            node,
            "kubelet",
            rng.choice(
                [
                    'I1112 kubelet.go:2474] "SyncLoop (PLEG): event for pod"',
                    '"Image garbage collection succeeded"',
                    "W1112 reflector.go:462] watch of *v1.ConfigMap ended with: an error on the server "
                    '("unable to decode an event from the watch stream: http2: client connection lost")',
                ]
            ),
        )
        task = rng.randrange(len(s.pods))
        s.say(
            t + 1.1,
            task,
            rng.choice(
                [
                    "WARNING:absl:Tensorflow library not found, tensorflow.io.gfile operations will use "
                    "native shim calls. GCS paths (i.e. 'gs://...') cannot be accessed.",
                    "UserWarning: jax.tree_map is deprecated; use jax.tree.map instead",
                    "I1112 tpu_runtime_metrics.cc:88] Metrics server started on port 8431",
                ]
            ),
            "WARNING",
        )
        t += rng.uniform(40, 90)


def failure(kind: str, symptom: Optional[str], host: Optional[str]) -> dict[str, Optional[str]]:
    return {"kind": kind, "symptom": symptom, "host": host}


def maintenance_migrate() -> None:
    b = Bundle("01-migrate-on-maintenance", "llama3-70b-ft")
    s = Slice(b, "7c1e09ab", "v5p-pool", 4)
    s.startup(0)
    end = s.steps(60, 1, 70)
    noise(b, s, 0, end + 120)
    victim = 2
    b.gce(
        end,
        s.nodes[victim],
        "compute.instances.migrateOnHostMaintenance",
        "Instance migrated during Compute Engine maintenance.",
    )
    s.graceful_shutdown(end + 4, [victim])
    s.sigterm(end + 5, [victim])
    s.heartbeat_cascade(end + 105, [victim])
    s.jobset_restart(end + 108, 0)
    s.sigterm(end + 109, [0, 1, 3])
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "host-maintenance",
            "culprit_hosts": [s.nodes[victim]],
            "failures": [failure("preemption", "host-maintenance", s.nodes[victim])],
            "why": "The GCE system event on worker 2's VM (TPU VMs cannot live-migrate, so a "
            "migrate-on-maintenance terminates the guest) precedes that pod's graceful "
            "shutdown; the heartbeat cascade on the other tasks names task 2.",
        }
    )


def guest_terminate_mce() -> None:
    b = Bundle("02-mce-panic-guest-terminate", "gemma-pretrain")
    s = Slice(b, "3fa0b2c4", "v5e-pool", 4)
    s.startup(0)
    end = s.steps(50, 1, 60)
    noise(b, s, 0, end + 200)
    v = 1
    node = s.nodes[v]
    b.serial(end - 3, node, "[183412.552301] mce: [Hardware Error]: Machine check events logged")
    b.serial(
        end - 2,
        node,
        "[183413.001276] {1}[Hardware Error]: Hardware error from APEI "
        "Generic Hardware Error Source: 0",
    )
    b.serial(end - 2, node, "[183413.001280] {1}[Hardware Error]: event severity: fatal")
    b.serial(end - 1, node, "[183413.120044] Kernel panic - not syncing: Fatal hardware error!")
    b.gce(
        end + 8,
        node,
        "compute.instances.guestTerminate",
        "Instance terminated by guest OS shutdown.",
    )
    s.heartbeat_cascade(end + 100, [v])
    s.not_ready(end + 45, [v])
    s.jobset_restart(end + 104, 0)
    s.sigterm(end + 105, [0, 2, 3])
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "kernel-hardware-error",
            "culprit_hosts": [node],
            "failures": [failure("crash", "kernel-hardware-error", node)],
            "why": "A fatal machine check panicked worker 1's kernel (serial console); the VM's "
            "guestTerminate is the guest shutting itself down after the panic, so the "
            "hardware error is the cause. The cascades name task 1.",
        }
    )


def auto_repair_halt() -> None:
    b = Bundle("03-auto-repair-halt-for-restart", "mixtral-sft")
    s = Slice(b, "e41d7f20", "v5p-pool-b", 4)
    s.startup(0)
    end = s.steps(60, 1, 50)
    noise(b, s, 0, end + 900)
    v = 3
    s.not_ready(end, [v])
    b.node_event(end + 0.2, s.nodes[v], "NodeStatusUnknown", "Kubelet stopped posting node status.")
    s.heartbeat_cascade(end + 100, [v])
    s.jobset_restart(end + 103, 0)
    s.sigterm(end + 104, [0, 1, 2])
    b.nodepool_audit(
        end + 640,
        "v5p-pool-b",
        "google.container.v1.ClusterManager.RepairNodePool",
        "AUTO_REPAIR_NODES started for node pool v5p-pool-b",
    )
    for i, n in enumerate(s.nodes):
        b.gce(
            end + 650 + i * 2,
            n,
            "compute.instances.instanceManagerHaltForRestart",
            "Instance halted by the instance group manager for restart.",
        )
    b.write(
        {
            "status": "inconclusive",
            "root_cause": None,
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", None, s.nodes[v])],
            "why": "Worker 3's node stopped posting status; nothing below it (no GCE event, no "
            "kernel line) says why. The auto-repair 10 minutes later and the MIG halts "
            "of every VM are the repair of that NotReady node, after the crash, not its "
            "cause. A senior engineer names the node but cannot name a root cause."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its node-not-ready lines stay in its evidence).",
        }
    )


def baremetal_preempted() -> None:
    b = Bundle("04-baremetal-caretaker-preempted", "dlrm-v2")
    s = Slice(b, "90bb12ce", "v6e-pool", 4)
    s.startup(0)
    end = s.steps(40, 1, 80)
    noise(b, s, 0, end + 150)
    v = 0
    b.gce(
        end, s.nodes[v], "compute.instances.baremetalCaretakerPreempted", "Instance was preempted."
    )
    s.sigterm(end + 3, [0])
    for t in (1, 2, 3):
        s.say(
            end + 12 + t,
            t,
            glog(
                "E",
                end + 12,
                s.pid,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an "
                "error from this or another task).",
            ),
            "ERROR",
        )
        s.say(
            end + 12.1 + t,
            t,
            glog(
                "F",
                end + 12,
                s.pid,
                "client.h:77",
                "Terminating process because the JAX distributed service detected fatal errors. "
                "This most likely indicates that another task died; see the other task logs for "
                "more details. absl::Status: UNAVAILABLE: Failed to send RPC to coordination "
                "service. Either the leader task was preempted/died/restarted unexpectedly or this "
                "task is experiencing network issues. Check earlier logs from 1) this task, 2) the "
                "leader (usually slice 0 task 0), and 3) cluster scheduler to debug further.",
            ),
            "CRITICAL",
        )
    s.jobset_restart(end + 20, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "spot-preemption",
            "culprit_hosts": [s.nodes[0]],
            "failures": [failure("preemption", "spot-preemption", s.nodes[0])],
            "why": "Bare-metal caretaker preemption of task 0's VM; the leader-lost cascade on "
            "tasks 1-3 points at task 0.",
        }
    )


def host_error_only_audit() -> None:
    b = Bundle("05-host-error-audit-only", "t5x-xxl")
    s = Slice(b, "5d2a61f3", "v4-pool", 8)
    s.startup(0)
    end = s.steps(70, 1, 45)
    noise(b, s, 0, end + 150)
    v = 5
    b.gce(end, s.nodes[v], "compute.instances.hostError", "Instance terminated by Compute Engine.")
    s.heartbeat_cascade(end + 101, [v])
    s.jobset_restart(end + 105, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "host-error",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", "host-error", s.nodes[v])],
            "why": "Only the GCE hostError for worker 5's VM and the heartbeat cascade naming "
            "task 5: no graceful shutdown (host errors give none).",
        }
    )


def spot_one_vm_atomic() -> None:
    b = Bundle("06-spot-one-vm-whole-slice", "llm-spot-run")
    s = Slice(b, "aa03c9e1", "v5e-spot", 4)
    s.startup(0)
    end = s.steps(50, 1, 40)
    noise(b, s, 0, end + 200)
    v = 3
    b.gce(end, s.nodes[v], "compute.instances.preempted", "Instance was preempted.")
    # GKE takes the whole multi-host slice down: every node shuts down within seconds.
    s.graceful_shutdown(end + 6, [0, 1, 2, 3])
    s.sigterm(end + 7, [0, 1, 2, 3])
    s.not_ready(end + 60, [0, 1, 2, 3])
    s.jobset_restart(end + 70, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "spot-preemption",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("preemption", "spot-preemption", s.nodes[v])],
            "why": "One Spot VM (worker 3) was preempted; the other three nodes of the atomic "
            "slice shut down gracefully seconds later because of it. Only worker 3 is "
            "the culprit.",
        }
    )


def maintenance_notice_then_terminate() -> None:
    b = Bundle("07-maintenance-notice-then-terminate", "palm-eval")
    s = Slice(b, "c07f5e88", "v5p-pool", 4)
    s.startup(0)
    end = s.steps(60, 1, 120)
    noise(b, s, 0, end + 150)
    v = 1
    epoch = int((T0 + timedelta(seconds=end)).timestamp())
    b.node_patch(
        end - 1800, s.nodes[v], {"cloud.google.com/scheduled-maintenance-time": str(epoch)}
    )
    b.node_patch(end - 90, s.nodes[v], {"cloud.google.com/active-node-maintenance": "ONGOING"})
    b.gce(
        end,
        s.nodes[v],
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    s.graceful_shutdown(end - 60, [0, 1, 2, 3])
    s.sigterm(end - 59, [0, 1, 2, 3])
    s.jobset_restart(end - 40, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "host-maintenance",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("preemption", "host-maintenance", s.nodes[v])],
            "why": "GKE labels worker 1's node with scheduled-maintenance-time, then "
            "active-node-maintenance=ONGOING; then the slice drains and GCE terminates that VM for maintenance.",
        }
    )


def slice_recreated_all_at_once() -> None:
    b = Bundle("08-whole-slice-recreated", "moe-8x22b")
    s = Slice(b, "1b9e4d07", "v5p-pool-c", 4)
    s.startup(0)
    end = s.steps(60, 1, 60)
    noise(b, s, 0, end + 200)
    v = 2
    b.gce(end, s.nodes[v], "compute.instances.hostError", "Instance terminated by Compute Engine.")
    for i, n in enumerate(s.nodes):
        if i != v:
            b.gce(
                end + 9 + i,
                n,
                "compute.instances.instanceManagerHaltForRestart",
                "Instance halted by the instance group manager for restart.",
            )
    s.graceful_shutdown(end + 10, [0, 1, 3])
    s.sigterm(end + 10.5, [0, 1, 3])
    s.not_ready(end + 50, [0, 1, 2, 3])
    s.jobset_restart(end + 60, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "host-error",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", "host-error", s.nodes[v])],
            "why": "Every VM of the node pool went down within 12 s, but only worker 2 had a "
            "hostError; the others were halted by the instance group manager to recreate "
            "the slice atomically.",
        }
    )


def npd_kernel_oops() -> None:
    b = Bundle("09-npd-kernel-oops", "vit-22b")
    s = Slice(b, "4e8c3a19", "v4-pool", 4)
    s.startup(0)
    end = s.steps(50, 1, 70)
    noise(b, s, 0, end + 200)
    v = 2
    b.node_event(
        end - 1,
        s.nodes[v],
        "KernelOops",
        "kernel: BUG: unable to handle kernel NULL pointer dereference at 00000000000000b8",
        component="kernel-monitor",
    )
    s.not_ready(end + 40, [v])
    s.heartbeat_cascade(end + 99, [v])
    s.jobset_restart(end + 104, 0)
    s.sigterm(end + 105, [0, 1, 3])
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "kernel-hardware-error",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", "kernel-hardware-error", s.nodes[v])],
            "why": "node-problem-detector's KernelOops on worker 2's node, then NotReady; the "
            "cascade names task 2.",
        }
    )


def npd_taskhung_readonly() -> None:
    b = Bundle("10-npd-taskhung-readonly-fs", "bert-large-ckpt")
    s = Slice(b, "8d61b2f0", "v5e-pool", 4)
    s.startup(0)
    end = s.steps(45, 1, 60)
    noise(b, s, 0, end + 200)
    v = 3
    b.node_event(
        end - 30,
        s.nodes[v],
        "TaskHung",
        "kernel: INFO: task jbd2/sda1-8:402 blocked for more than 120 seconds.",
        component="kernel-monitor",
    )
    b.node_event(
        end - 20,
        s.nodes[v],
        "FilesystemIsReadOnly",
        "Node condition ReadonlyFilesystem is now: True, reason: FilesystemIsReadOnly, "
        'message: "Remounting filesystem read-only"',
        component="kernel-monitor",
    )
    s.say(end, v, "Traceback (most recent call last):", "ERROR")
    s.say(
        end + 0.01,
        v,
        '  File "/app/train.py", line 412, in save_local_staging\n'
        "    with open(path, 'wb') as f:",
        "ERROR",
    )
    s.say(
        end + 0.02,
        v,
        "OSError: [Errno 30] Read-only file system: '/tmp/ckpt_staging/step_60/params.msgpack'",
        "ERROR",
    )
    b.jobset_event(
        end + 3,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {b.jobset}-slice-job-0)",
    )
    b.pod_event(
        end + 2,
        s.pods[v],
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{s.pods[v]} failed with exit code 1 "
        "matching FailJob rule at index 0",
        component="job-controller",
    )
    s.sigterm(end + 4, [0, 1, 2])
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "kernel-hardware-error",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", "kernel-hardware-error", s.nodes[v])],
            "why": "The kernel hung in jbd2 and remounted the root fs read-only on worker 3's "
            "node; the trainer's EROFS on checkpoint staging and the FailJob (exit 1) "
            "follow from it.",
        }
    )


def device_plugin_lost_chip() -> None:
    b = Bundle("11-device-plugin-lost-chip", "sd-xl-train")
    s = Slice(b, "62f0ad15", "v5e-pool", 4)
    s.startup(0)
    end = s.steps(50, 1, 50)
    noise(b, s, 0, end + 200)
    v = 1
    pod = f"tpu-device-plugin-{random.Random(b.name).randrange(10000, 99999):x}"
    b.container(
        end - 8,
        pod,
        s.nodes[v],
        "device vfio/2 does not exist",
        "ERROR",
        container="tpu-device-plugin",
        namespace="kube-system",
    )
    b.container(
        end - 7.9,
        pod,
        s.nodes[v],
        "Updating device vfio/2 health to Unhealthy",
        "WARNING",
        container="tpu-device-plugin",
        namespace="kube-system",
    )
    s.say(
        end,
        v,
        glog(
            "F",
            end,
            s.pid,
            "tpu_driver.cc:1182",
            "Check failed: status.ok() Failed to read chip state: chip 2",
        ),
        "CRITICAL",
    )
    s.say(
        end + 0.1,
        v,
        f"*** SIGABRT received by PID {s.pid} (TID {s.pid}) on cpu 3 from PID "
        f"{s.pid}; stack trace: ***",
        "ERROR",
    )
    s.heartbeat_cascade(end + 100, [v])
    s.jobset_restart(end + 103, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "tpu-device-plugin-unhealthy",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", "tpu-device-plugin-unhealthy", s.nodes[v])],
            "why": "The TPU device plugin on worker 1's node lost vfio/2 eight seconds before "
            "the trainer aborted on that chip; the abort is the consequence.",
        }
    )


def vbar_oom() -> None:
    b = Bundle("12-vbar-agent-oom", "gemma2-27b")
    s = Slice(b, "d8a3c5e2", "v6e-pool", 4)
    s.startup(0, ready=False)
    v = 2
    b.serial(
        4,
        s.nodes[v],
        "[  912.330114] Memory cgroup out of memory: Killed process 5731 "
        "(vbar_control_ag) total-vm:3021440kB, anon-rss:1978336kB, "
        "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4412kB oom_score_adj:-998",
    )
    # Every host waits in slice initialisation: the three healthy ones for the fourth.
    for t in range(4):
        s.say(
            70 + t,
            t,
            "TPU backend initialization is taking more than 60.0 seconds. Did you run your "
            "code on all TPU hosts? See https://jax.readthedocs.io/en/latest/multi_process.html "
            "for more information.",
            "WARNING",
        )
    noise(b, s, 0, 290)
    s.say(300, v, "Traceback (most recent call last):", "ERROR")
    s.say(
        300.01,
        v,
        "RuntimeError: Unable to initialize backend 'tpu': UNAVAILABLE: TPU initialization "
        "failed: connection failure to the TPU host agent (vbar) on this host",
        "ERROR",
    )
    b.pod_event(
        302,
        s.pods[v],
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{s.pods[v]} failed with exit code 1 matching "
        "FailJob rule at index 0",
        component="job-controller",
    )
    b.jobset_event(
        303,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {b.jobset}-slice-job-0)",
    )
    s.sigterm(304, [0, 1, 3])
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "vbar-agent-oom",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("crash", "vbar-agent-oom", s.nodes[v])],
            "why": "The TPU host agent (vbar_control_ag) was OOM-killed on worker 2 at start-up; "
            "every host then waited in TPU initialisation (the healthy ones for worker 2) until "
            "worker 2 gave up on the agent connection and exited 1 (FailJob).",
        }
    )


def healthy(name: str, jobset: str, style: int) -> None:
    b = Bundle(name, jobset)
    s = Slice(b, "0a7b3e51", "v5p-pool", 4)
    s.startup(0)
    end = s.steps(60, 1, 90)
    noise(b, s, 0, end)
    other = Slice(Bundle(name + "x", "other-team-batch"), "f2c94d60", "v5e-spot-b", 4).nodes
    if style == 0:
        b.gce(200, other[1], "compute.instances.preempted", "Instance was preempted.")
        b.node_event(230, other[1], "NodeNotReady", f"Node {other[1]} status is now: NodeNotReady")
        b.node_event(
            300,
            other[3],
            "KernelOops",
            "kernel: BUG: unable to handle kernel paging request at ffff9a2b00000000",
            component="kernel-monitor",
        )
    else:
        b.gce(
            150,
            other[0],
            "compute.instances.terminateOnHostMaintenance",
            "Instance terminated during Compute Engine maintenance.",
        )
        b.gce(
            180, other[2], "compute.instances.hostError", "Instance terminated by Compute Engine."
        )
        b.container(
            240,
            "tpu-device-plugin-9f3c1",
            other[2],
            "device vfio/0 does not exist",
            "ERROR",
            container="tpu-device-plugin",
            namespace="kube-system",
        )
    b.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "The workload trained without interruption on its own node pool; the "
            "infrastructure events are on another team's node pool and concern no node "
            "this workload ran on.",
        }
    )


def graceful_only_one_pod() -> None:
    b = Bundle("15-graceful-shutdown-only", "llm-pretrain-b")
    s = Slice(b, "b3e07a42", "v5p-pool", 4)
    s.startup(0)
    end = s.steps(60, 1, 55)
    noise(b, s, 0, end + 200)
    v = 2
    s.graceful_shutdown(end, [v])
    s.sigterm(end + 1, [v])
    s.heartbeat_cascade(end + 102, [v])
    s.jobset_restart(end + 106, 0)
    s.sigterm(end + 107, [0, 1, 3])
    b.write(
        {
            "status": "inconclusive",
            "root_cause": None,
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("preemption", None, s.nodes[v])],
            "why": "Only worker 2's pod says its node was shutting down (a symptom of "
            "preemption, maintenance or repair); no GCE or node event in the bundle says "
            "which. The cascade names task 2. Name the host; the root cause is unknown."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its node-graceful-shutdown lines stay in its evidence).",
        }
    )


def two_disruptions() -> None:
    b = Bundle("16-maintenance-then-host-error", "llm-long-run")
    s = Slice(b, "6a2f90d1", "v5p-pool", 4)
    s.startup(0)
    end = s.steps(60, 1, 40)
    noise(b, s, 0, end + 1500)
    first_node = s.nodes[0]
    b.gce(
        end,
        first_node,
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    s.graceful_shutdown(end + 3, [0, 1, 2, 3])
    s.sigterm(end + 4, [0, 1, 2, 3])
    s.jobset_restart(end + 20, 0)
    # The slice comes back with a fresh VM for worker 0; training resumes from the checkpoint.
    again = end + 600
    s.nodes[0] = first_node[:-4] + "q7zk"
    s.startup(again)
    end2 = s.steps(again + 60, 31, 30)
    second = 3
    b.gce(
        end2,
        s.nodes[second],
        "compute.instances.hostError",
        "Instance terminated by Compute Engine.",
    )
    s.heartbeat_cascade(end2 + 100, [second])
    s.jobset_restart(end2 + 104, 0)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "host-error",
            "culprit_hosts": [s.nodes[second]],
            "failures": [
                failure("preemption", "host-maintenance", first_node),
                failure("crash", "host-error", s.nodes[second]),
            ],
            "why": "Two disruptions: maintenance on worker 0's VM first (the whole slice shut "
            "down gracefully), then after the restart a host error on worker 3's VM. "
            "The first disruption's cause is the root cause; both VMs are culprits."
            " Relabelled to the headline contract (#14): after the host error and the restart no step line comes in the 9 minutes the window still holds: the host error ended the run, so it is the headline, with its VM as the culprit.",
        }
    )


def multislice_spot() -> None:
    b = Bundle("17-multislice-spot-slice1", "llm-ms-spot")
    s = Slice(b, "2c7e5b94", "v5e-spot", 4, slices=2)
    s.startup(0)
    end = s.steps(60, 1, 50)
    noise(b, s, 0, end + 200)
    v = 6  # slice 1, worker 2
    b.gce(end, s.nodes[v], "compute.instances.preempted", "Instance was preempted.")
    s.graceful_shutdown(end + 5, [4, 5, 6, 7])
    s.sigterm(end + 6, [4, 5, 6, 7])
    s.heartbeat_cascade(end + 100, [4, 5, 6, 7])
    s.jobset_restart(end + 104, 1)
    b.write(
        {
            "status": "diagnosed",
            "root_cause": "spot-preemption",
            "culprit_hosts": [s.nodes[v]],
            "failures": [failure("preemption", "spot-preemption", s.nodes[v])],
            "why": "Multislice: a Spot VM of slice 1 (task 6) was preempted, slice 1's four "
            "nodes shut down together (atomic), so slice 0's tasks see tasks 4-7 stop "
            "heartbeating. Only the preempted VM is the culprit.",
        }
    )


def healthy_benign_kernel(name: str, jobset: str, style: int) -> None:
    b = Bundle(name, jobset)
    s = Slice(b, "5e1f0c37", "v5p-pool", 4)
    s.startup(0)
    end = s.steps(60, 1, 90)
    noise(b, s, 0, end)
    node = s.nodes[1]
    if style == 0:
        b.serial(
            200,
            node,
            "[ 5321.441092] {1}[Hardware Error]: Hardware error from APEI Generic "
            "Hardware Error Source: 1",
        )
        b.serial(200.1, node, "[ 5321.441095] {1}[Hardware Error]: event severity: corrected")
        b.serial(200.2, node, "[ 5321.441099] {1}[Hardware Error]:  section_type: memory error")
        why = (
            "A corrected (CE) memory error on worker 1's host is informational: the kernel "
            "fixed it and training never paused."
        )
    else:
        b.node_event(
            300,
            node,
            "TaskHung",
            "kernel: INFO: task kworker/u192:3:51234 blocked for more than 120 seconds.",
            component="kernel-monitor",
        )
        why = (
            "A transient hung-task warning on worker 1's node (a kworker flushing the boot "
            "disk) with steps continuing at full speed before, during and after it: noise, "
            "not a disruption."
        )
    b.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": why,
        }
    )


def main() -> None:
    maintenance_migrate()
    guest_terminate_mce()
    auto_repair_halt()
    baremetal_preempted()
    host_error_only_audit()
    spot_one_vm_atomic()
    maintenance_notice_then_terminate()
    slice_recreated_all_at_once()
    npd_kernel_oops()
    npd_taskhung_readonly()
    device_plugin_lost_chip()
    vbar_oom()
    healthy("13-healthy-other-pool-preempted", "llm-healthy-a", 0)
    healthy("14-healthy-other-pool-maintenance", "llm-healthy-b", 1)
    graceful_only_one_pod()
    two_disruptions()
    multislice_spot()
    healthy_benign_kernel("18-healthy-corrected-mce", "llm-healthy-c", 0)
    healthy_benign_kernel("19-healthy-transient-taskhung", "llm-healthy-d", 1)


if __name__ == "__main__":
    main()
