"""Deterministic generator of the round-4 held-out incidents (project-wide exports).

Each incident is what an on-call engineer gets from `gcloud logging read --format=json` over a whole
project: the target workload plus other workloads of the same project, kube-system noise, node
logs, cluster-scoped events, audit logs for unrelated VMs and autoscaler decisions about other
pools. Run `python tests/incidents4/make_incidents.py` to rewrite every `<name>/logs.json` and
`<name>/expected.json`; the output depends only on this file (fixed seeds, fixed clocks).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "ml-prod-4417"
CLUSTER = "tpu-prod-use5"
LOCATION = "us-east5"
ZONE = "us-east5-b"
JOBSET_LABELS = ("k8s-pod/jobset_sigs_k8s_io/jobset-name", "k8s-pod/jobset.sigs.k8s.io/jobset-name")


def node_name(pool: str, group: str, suffix: str) -> str:
    return f"gke-{CLUSTER}-{pool}-{group}-{suffix}"


@dataclass
class Slice:
    """One multi-host TPU slice of a workload: node names, pod names and task ids per host."""

    jobset: str
    index: int
    nodes: list[str]
    pods: list[str]
    replicated: str = "slice-job"

    def task(self, host: int) -> int:
        return self.index * len(self.nodes) + host


@dataclass
class Incident:
    name: str
    workload: str
    start: datetime
    seed: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # -- identity helpers -------------------------------------------------------------------
    def suffix(self, n: int = 5) -> str:
        return "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))

    def make_slice(
        self, jobset: str, index: int, pool: str, hosts: int, replicated: str = "slice-job"
    ) -> Slice:
        group = "".join(self.rng.choice("0123456789abcdef") for _ in range(8))
        nodes = [node_name(pool, group, self.suffix(4)) for _ in range(hosts)]
        pods = [f"{jobset}-{replicated}-{index}-{c}-{self.suffix()}" for c in range(hosts)]
        return Slice(jobset, index, nodes, pods, replicated)

    def respawn(self, s: Slice) -> Slice:
        """The same slice after a JobSet restart: new Jobs, so new pod names on the same nodes."""
        pods = [
            f"{s.jobset}-{s.replicated}-{s.index}-{c}-{self.suffix()}" for c in range(len(s.nodes))
        ]
        return Slice(s.jobset, s.index, s.nodes, pods, s.replicated)

    def ts(self, seconds: float) -> str:
        moment = self.start + timedelta(seconds=seconds)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def _add(self, seconds: float, entry: dict[str, Any]) -> None:
        entry["timestamp"] = self.ts(seconds)
        entry["receiveTimestamp"] = self.ts(seconds + 0.8 + self.rng.random())
        entry["insertId"] = self.suffix(16)
        self.entries.append(entry)

    # -- entry shapes -----------------------------------------------------------------------
    def container(
        self,
        t: float,
        pod: str,
        node: str,
        text: str,
        *,
        jobset: Optional[str] = None,
        container: str = "jax-tpu",
        namespace: str = "default",
        severity: str = "INFO",
        stream: str = "stderr",
    ) -> None:
        labels = {"compute.googleapis.com/resource_name": node}
        if jobset:
            # Both spellings of the JobSet label occur in real exports; alternate per pod.
            labels[JOBSET_LABELS[len(pod) % 2]] = jobset
        self._add(
            t,
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
                "textPayload": text,
                "labels": labels,
            },
        )

    def pod_event(
        self,
        t: float,
        pod: str,
        reason: str,
        message: str,
        *,
        namespace: str = "default",
        host: Optional[str] = None,
        kind: str = "Pod",
        component: str = "kubelet",
        severity: str = "WARNING",
    ) -> None:
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        resource_type = "k8s_pod" if kind == "Pod" else "k8s_cluster"
        labels = {"project_id": PROJECT, "location": LOCATION, "cluster_name": CLUSTER}
        if kind == "Pod":
            labels |= {"namespace_name": namespace, "pod_name": pod}
        self._add(
            t,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {"type": resource_type, "labels": labels},
                "severity": severity,
                "jsonPayload": {
                    "apiVersion": "v1",
                    "kind": "Event",
                    "reason": reason,
                    "message": message,
                    "type": "Warning" if severity == "WARNING" else "Normal",
                    "involvedObject": {"kind": kind, "name": pod, "namespace": namespace},
                    "source": source,
                    "reportingComponent": component,
                },
            },
        )

    def node_event(
        self, t: float, node: str, reason: str, message: str, component: str = "kubelet"
    ) -> None:
        self._add(
            t,
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
                "severity": "WARNING",
                "jsonPayload": {
                    "kind": "Event",
                    "reason": reason,
                    "message": message,
                    "type": "Warning",
                    "involvedObject": {"kind": "Node", "name": node, "uid": node},
                    "source": {"component": component, "host": node},
                },
            },
        )

    def node_log(
        self, t: float, node: str, message: str, log: str = "kubelet", severity: str = "INFO"
    ) -> None:
        self._add(
            t,
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
                "jsonPayload": {"MESSAGE": message, "SYSLOG_IDENTIFIER": log, "_HOSTNAME": node},
            },
        )

    def gce_audit(self, t: float, instance: str, method: str, message: str) -> None:
        self._add(
            t,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": ZONE,
                        "instance_id": str(self.rng.randrange(10**18, 10**19)),
                    },
                },
                "severity": "INFO",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "status": {"message": message},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{instance}",
                },
                "operation": {
                    "id": f"systemevent-{self.suffix(12)}",
                    "producer": method,
                    "first": True,
                    "last": True,
                },
            },
        )

    def gke_audit(self, t: float, pool: str, method: str, message: str) -> None:
        self._add(
            t,
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
                    "status": {"message": message} if message else {},
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/locations/{LOCATION}/clusters/{CLUSTER}/nodePools/{pool}",
                },
            },
        )

    def autoscaler_noscaleup(self, t: float, pool: str, message_id: str, pod: str) -> None:
        self._add(
            t,
            {
                "logName": f"projects/{PROJECT}/logs/container.googleapis.com%2Fcluster-autoscaler-visibility",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                    },
                },
                "severity": "DEFAULT",
                "jsonPayload": {
                    "noDecisionStatus": {
                        "noScaleUp": {
                            "unhandledPodGroups": [
                                {
                                    "podGroup": {
                                        "samplePod": {"name": pod, "namespace": "default"},
                                        "totalPodCount": 4,
                                    },
                                    "rejectedMigs": [
                                        {
                                            "mig": {"nodepool": pool, "zone": ZONE},
                                            "reason": {
                                                "messageId": message_id,
                                                "parameters": [pool],
                                            },
                                        }
                                    ],
                                }
                            ],
                            "unhandledPodGroupsTotalCount": 1,
                        },
                        "measureTime": str(int((self.start + timedelta(seconds=t)).timestamp())),
                    }
                },
            },
        )

    def jobset_event(
        self, t: float, jobset: str, reason: str, message: str, namespace: str = "default"
    ) -> None:
        self.pod_event(
            t,
            jobset,
            reason,
            message,
            kind="JobSet",
            component="jobset-controller",
            namespace=namespace,
        )

    # -- composite behaviour ------------------------------------------------------------------
    def training(
        self, s: Slice, t0: float, t1: float, every: float = 30.0, step0: int = 0, loss: float = 6.2
    ) -> int:
        """Step lines of every host of a slice from t0 to t1; returns the next step number."""
        step = step0
        t = t0
        while t < t1:
            for host, (pod, node) in enumerate(zip(s.pods, s.nodes)):
                seconds = every + self.rng.uniform(-0.4, 0.4)
                self.container(
                    t + host * 0.05,
                    pod,
                    node,
                    f"completed step: {step}, seconds: {seconds:.3f}, TFLOP/s/device: {180 + self.rng.random() * 12:.3f}, "
                    f"Tokens/s/device: {4100 + self.rng.random() * 200:.3f}, total_weights: 1572864, loss: {loss:.3f}",
                    jobset=s.jobset,
                    stream="stdout",
                )
            loss -= 0.004
            step += 1
            t += every
        return step

    def startup(self, s: Slice, t: float) -> None:
        for host, (pod, node) in enumerate(zip(s.pods, s.nodes)):
            self.pod_event(
                t - 20,
                pod,
                "Scheduled",
                f"Successfully assigned default/{pod} to {node}",
                host=None,
                component="default-scheduler",
                severity="INFO",
            )
            self.pod_event(
                t - 8, pod, "Started", "Started container jax-tpu", host=node, severity="INFO"
            )
            self.container(
                t + host * 0.1,
                pod,
                node,
                f"I1120 jax._src.distributed] Connecting to JAX distributed service on "
                f"{s.jobset}-slice-job-0-0.{s.jobset}:8482",
                jobset=s.jobset,
            )
            self.container(
                t + 4 + host * 0.1,
                pod,
                node,
                f"Initializing process {s.task(host)} of the JAX distributed system",
                jobset=s.jobset,
            )

    def heartbeat_cascade(
        self, survivors: list[tuple[str, str, str]], t: float, dead_task: int
    ) -> None:
        for i, (jobset, pod, node) in enumerate(survivors):
            at = t + i * 0.03
            self.container(
                at,
                pod,
                node,
                f"E1120 {self.rng.randrange(10, 59):02d}:{self.rng.randrange(60):02d}.075402  157988 coordination_service_agent.cc:332] "
                "Polled an error from coordination service (this can be an error from this or another task).",
                jobset=jobset,
                severity="ERROR",
            )
            self.container(
                at + 0.001,
                pod,
                node,
                "F1120 client.h:77] Terminating process because the JAX distributed service detected fatal "
                "errors. This most likely indicates that another task died; see the other task logs for more "
                "details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. "
                "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
                jobset=jobset,
                severity="CRITICAL",
            )
            self.container(
                at + 0.002,
                pod,
                node,
                f"/job:jax_worker/replica:0/task:{dead_task}",
                jobset=jobset,
                severity="CRITICAL",
            )
            self.container(
                at + 0.003,
                pod,
                node,
                "The tasks have crashed. Check the task logs for an earlier error, or scheduler events "
                "(e.g. preemption, eviction) to debug further.",
                jobset=jobset,
                severity="CRITICAL",
            )

    def sigterm(self, pod: str, node: str, t: float, jobset: str) -> None:
        pid = self.rng.randrange(100, 9000)
        self.container(
            t,
            pod,
            node,
            f"*** SIGTERM received by PID {pid} (TID {pid}) on cpu {self.rng.randrange(200)} "
            f"from PID 1; stack trace: ***",
            jobset=jobset,
            severity="ERROR",
        )
        self.container(
            t + 0.2,
            pod,
            node,
            "process_state.cc:771] RAW: Raising signal 15 with default behavior",
            jobset=jobset,
            severity="ERROR",
        )

    def restart_jobset(self, t: float, jobset: str, failed_job: str) -> None:
        self.jobset_event(
            t,
            jobset,
            "RestartJobSetFailurePolicyAction",
            f"applying RestartJobSet failure policy action (first failed job: {failed_job})",
        )

    def noise(self, t0: float, t1: float, every: float = 90.0) -> None:
        """kube-system and node chatter a project-wide export always holds."""
        infra = node_name("default-pool", "5c1e0a7d", "q2m8")
        t = t0
        while t < t1:
            kind = self.rng.randrange(5)
            if kind == 0:
                self.container(
                    t,
                    f"fluentbit-gke-{self.suffix()}",
                    infra,
                    "[2026/11/20 10:00:00] [ warn] [engine] failed to flush chunk '1-17001.flb', retry in 9 seconds: task_id=3, input=tail.0 > output=stackdriver.0 (out_id=0)",
                    container="fluentbit",
                    namespace="kube-system",
                    severity="WARNING",
                )
            elif kind == 1:
                self.container(
                    t,
                    "kube-proxy-gke-" + self.suffix(4),
                    infra,
                    'W1120 proxier.go:1224] "Failed to list IP sets" err="exit status 1"',
                    container="kube-proxy",
                    namespace="kube-system",
                    severity="WARNING",
                )
            elif kind == 2:
                self.container(
                    t,
                    f"gke-metadata-server-{self.suffix()}",
                    infra,
                    "[conn-id:2f1c] Unable to fetch Kubernetes service account token: context deadline exceeded; retrying",
                    container="gke-metadata-server",
                    namespace="kube-system",
                    severity="WARNING",
                )
            elif kind == 3:
                self.container(
                    t,
                    f"tpu-device-plugin-{self.suffix()}",
                    infra,
                    "I1120 plugin.go:208] ListAndWatch: sending 4 healthy devices",
                    container="tpu-device-plugin",
                    namespace="kube-system",
                )
            else:
                self.node_log(
                    t,
                    infra,
                    'I1120 kubelet_getters.go:218] "Pod status updated" pod="kube-system/pdcsi-node-x" status="Running"',
                )
            t += every * (0.6 + self.rng.random())

    # -- output ---------------------------------------------------------------------------------
    def write(self, expected: dict[str, Any]) -> None:
        folder = HERE / self.name
        folder.mkdir(exist_ok=True)
        ordered = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        # A JSON array like gcloud's, one entry per line to keep the files small and diffable.
        text = "[\n" + ",\n".join(json.dumps(e, sort_keys=True) for e in ordered) + "\n]\n"
        (folder / "logs.json").write_text(text, encoding="utf-8")
        (folder / "expected.json").write_text(
            json.dumps({"workload": self.workload, **expected}, indent=2) + "\n", encoding="utf-8"
        )


def survivors_of(slices: list[Slice], skip: set[int]) -> list[tuple[str, str, str]]:
    out = []
    for s in slices:
        for host, (pod, node) in enumerate(zip(s.pods, s.nodes)):
            if s.task(host) not in skip:
                out.append((s.jobset, pod, node))
    return out


T0 = datetime(2026, 11, 20, 9, 0, 0, tzinfo=timezone.utc)


def crash_and_restart(inc: Incident, slices: list[Slice], dead: tuple[int, int], t: float) -> None:
    """Survivors cascade on the dead task, then the JobSet restarts and SIGTERMs everyone."""
    s, host = slices[dead[0]], dead[1]
    inc.heartbeat_cascade(survivors_of(slices, {s.task(host)}), t, s.task(host))
    inc.restart_jobset(t + 6, s.jobset, f"{s.jobset}-{s.replicated}-{s.index}")
    for other in slices:
        for pod, node in zip(other.pods, other.nodes):
            inc.pod_event(
                t + 7, pod, "Killing", "Stopping container jax-tpu", host=node, severity="INFO"
            )


def oom_while_neighbour_preempted() -> None:
    """Target `llm` OOM-killed on one host; `llm-eval` (prefix-sharing name) is Spot-preempted meanwhile."""
    inc = Incident("oom-while-llm-eval-preempted", "llm", T0, 401)
    llm = [inc.make_slice("llm", j, f"v5p-pool-{j}", 4) for j in range(2)]
    ev = inc.make_slice("llm-eval", 0, "v5e-spot-pool", 4)
    inc.noise(0, 900)
    for s in llm:
        inc.startup(s, 10)
        inc.training(s, 60, 700)
    inc.startup(ev, 30)
    inc.training(ev, 90, 610, every=20)
    # llm-eval loses its Spot VM.
    inc.gce_audit(612, ev.nodes[2], "compute.instances.preempted", "Instance was preempted.")
    inc.node_event(
        640,
        ev.nodes[2],
        "NodeNotReady",
        f"Node {ev.nodes[2]} status is now: NodeNotReady",
        "node-controller",
    )
    inc.heartbeat_cascade(survivors_of([ev], {2}), 720, 2)
    inc.restart_jobset(726, "llm-eval", "llm-eval-slice-job-0")
    # llm's host 1 of slice 1 runs out of host RAM while loading the next data shard.
    bad = llm[1].nodes[1]
    inc.container(
        702,
        llm[1].pods[1],
        bad,
        "I1120 grain] Prefetching shard 00173-of-01024 into host buffer (3.1G)",
        jobset="llm",
    )
    inc.node_log(
        709,
        bad,
        "Memory cgroup out of memory: Killed process 48211 (python3) total-vm:412003340kB, "
        "anon-rss:398110220kB, file-rss:81236kB, shmem-rss:0kB, UID:0 pgtables:790212kB oom_score_adj:-997",
        log="kernel",
        severity="ERROR",
    )
    inc.node_event(
        709.5,
        bad,
        "OOMKilling",
        "Out of memory: Killed process 48211 (python3) total-vm:412003340kB, "
        "anon-rss:398110220kB, file-rss:81236kB, shmem-rss:0kB",
        "kernel-monitor",
    )
    crash_and_restart(inc, llm, (1, 1), 812)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "host-oom-killed",
            "culprit_hosts": [bad],
            "failures": [{"kind": "crash", "symptom": "host-oom-killed", "host": bad}],
            "why": "The kernel OOM killer killed python3 on llm slice 1 host 1; llm's survivors name task 5 (that host). "
            "The Spot preemption and restart belong to llm-eval, a different JobSet whose name merely extends 'llm'.",
        }
    )


def neighbour_prefix_segfault() -> None:
    """`trainer-2` segfaults and restarts; target `trainer` trains on undisturbed."""
    inc = Incident("trainer-2-segfault-trainer-healthy", "trainer", T0 + timedelta(hours=3), 402)
    tr = inc.make_slice("trainer", 0, "v6e-pool-a", 4)
    t2 = inc.make_slice("trainer-2", 0, "v6e-pool-b", 4)
    inc.noise(0, 1000)
    inc.startup(tr, 10)
    inc.training(tr, 60, 1000, every=40)
    inc.startup(t2, 20)
    inc.training(t2, 70, 500, every=25)
    pid = 21877
    inc.container(
        505,
        t2.pods[3],
        t2.nodes[3],
        f"*** SIGSEGV (@0x10), see gl__________43#s15 received by PID {pid} (TID {pid + 9}) on cpu 41; stack trace: ***",
        jobset="trainer-2",
        severity="ERROR",
    )
    inc.container(
        505.1,
        t2.pods[3],
        t2.nodes[3],
        "PC: @     0x7f3b2c1d9a10  (unknown)  xla::ifrt::PjRtLoadedExecutable::Execute()",
        jobset="trainer-2",
        severity="ERROR",
    )
    inc.pod_event(
        507,
        t2.pods[3],
        "BackOff",
        "Back-off restarting failed container jax-tpu in pod " + t2.pods[3],
        host=t2.nodes[3],
    )
    crash_and_restart(inc, [t2], (0, 3), 610)
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "Only trainer-2 (a separate JobSet whose pod names start with 'trainer-') crashed; trainer's four hosts log "
            "steps through the whole window with no error.",
        }
    )


def preempted_node_never_used() -> None:
    inc = Incident("spot-preemption-other-pool", "bert-ft", T0 + timedelta(hours=5), 403)
    ft = inc.make_slice("bert-ft", 0, "v5e-pool-1", 4)
    other_nodes = [node_name("v5e-spot-2", "7ab03c11", inc.suffix(4)) for _ in range(4)]
    inc.noise(0, 1200)
    inc.startup(ft, 10)
    inc.training(ft, 60, 1200, every=35)
    for i, node in enumerate(other_nodes):
        inc.gce_audit(400 + i * 0.4, node, "compute.instances.preempted", "Instance was preempted.")
        inc.node_event(
            430 + i,
            node,
            "NodeNotReady",
            f"Node {node} status is now: NodeNotReady",
            "node-controller",
        )
    inc.pod_event(
        402,
        "batch-infer-7f9c8d-x2k4p",
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        host=other_nodes[0],
    )
    inc.autoscaler_noscaleup(
        500, "v5e-spot-2", "scale.up.error.out.of.resources", "batch-infer-7f9c8d-q7w2c"
    )
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "The preempted VMs belong to the v5e-spot-2 pool that serves batch-infer; bert-ft never ran there and keeps "
            "training.",
        }
    )


def maintenance_after_schedule() -> None:
    """Target just rescheduled onto a node that then gets terminated for host maintenance."""
    inc = Incident("maintenance-on-fresh-node", "gemma-pt", T0 + timedelta(days=1), 404)
    sl = [inc.make_slice("gemma-pt", j, f"v5p-res-{j}", 4) for j in range(2)]
    inc.noise(0, 1400)
    for s in sl:
        inc.startup(s, 30)
        inc.training(s, 90, 900, every=30, step0=1200)
    victim = sl[0].nodes[2]
    inc.node_log(
        880,
        victim,
        'I1121 kubelet.go:2459] "SyncLoop UPDATE" source="api" labels="cloud.google.com/active-node-maintenance=ONGOING"',
    )
    inc.gce_audit(
        905,
        victim,
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    inc.pod_event(
        906,
        sl[0].pods[2],
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        host=victim,
    )
    inc.sigterm(sl[0].pods[2], victim, 906.5, "gemma-pt")
    crash_and_restart(inc, sl, (0, 2), 1010)
    # An unrelated VM of the CPU pool is migrated for maintenance too (CPUs live-migrate, nothing breaks).
    inc.gce_audit(
        700,
        node_name("cpu-pool", "0d3e9f21", "zz7k"),
        "compute.instances.migrateOnHostMaintenance",
        "Instance migrated during Compute Engine maintenance.",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "host-maintenance",
            "culprit_hosts": [victim],
            "failures": [{"kind": "preemption", "symptom": "host-maintenance", "host": victim}],
            "why": "GCE terminated gemma-pt slice 0 host 2 for host maintenance (TPUs cannot live-migrate); the survivors name "
            "task 2. The CPU VM's live migration is unrelated.",
        }
    )


def other_jobset_restart() -> None:
    inc = Incident("other-jobset-restarts", "mixtral-sft", T0 + timedelta(days=1, hours=4), 405)
    me = inc.make_slice("mixtral-sft", 0, "v6e-pool-3", 4)
    rl = [inc.make_slice("rl-actor", j, f"v6e-pool-{5 + j}", 4) for j in range(2)]
    inc.noise(0, 1000)
    inc.startup(me, 10)
    inc.training(me, 60, 1000, every=40)
    for s in rl:
        inc.startup(s, 15)
        inc.training(s, 70, 400, every=20)
    bad = rl[1].nodes[0]
    inc.container(
        401,
        rl[1].pods[0],
        bad,
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
        "Attempting to allocate 2.61G. That was not possible. There are 1.07G free.; (0x0x0_HBM0)",
        jobset="rl-actor",
        severity="ERROR",
    )
    crash_and_restart(inc, rl, (1, 0), 505)
    inc.jobset_event(
        900,
        "rl-actor",
        "ReachedMaxRestarts",
        "jobset failed due to reaching max number of restarts",
    )
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "rl-actor hit an HBM OOM and exhausted its restarts; mixtral-sft on its own pool is untouched.",
        }
    )


def nan_with_crashlooping_deployment() -> None:
    inc = Incident("nan-exit1-with-cpu-crashloop", "llama-sweep", T0 + timedelta(days=2), 406)
    sl = inc.make_slice("llama-sweep", 0, "v5p-pool-7", 4)
    cpu = node_name("cpu-n2-pool", "44ab91c0", "m3pd")
    inc.noise(0, 900)
    inc.startup(sl, 10)
    inc.training(sl, 60, 600, every=30, loss=3.1)
    for k in range(8):
        pod = "tokenizer-svc-6b8d5f7c9-" + "pqrxt"
        inc.container(
            100 + k * 90,
            pod,
            cpu,
            "Traceback (most recent call last):",
            container="server",
            severity="ERROR",
        )
        inc.container(
            100.1 + k * 90,
            pod,
            cpu,
            "ModuleNotFoundError: No module named 'sentencepiece'",
            container="server",
            severity="ERROR",
        )
        inc.pod_event(
            101 + k * 90,
            pod,
            "BackOff",
            f"Back-off restarting failed container server in pod {pod}",
            host=cpu,
        )
    for host, (pod, node) in enumerate(zip(sl.pods, sl.nodes)):
        inc.container(
            603 + host * 0.02,
            pod,
            node,
            "Traceback (most recent call last):",
            jobset="llama-sweep",
            severity="ERROR",
        )
        inc.container(
            603.01 + host * 0.02,
            pod,
            node,
            '  File "/deps/MaxText/train.py", line 512, in train_loop',
            jobset="llama-sweep",
            severity="ERROR",
        )
        inc.container(
            603.02 + host * 0.02,
            pod,
            node,
            "FloatingPointError: invalid value (nan) encountered in jit(train_step). Because jax_config.debug_nans.value "
            "and/or config.jax_debug_infs is set, the de-optimized function (i.e., the function as if the `jit` "
            "decorator were removed) was called in an attempt to get a more precise error message.",
            jobset="llama-sweep",
            severity="ERROR",
        )
    inc.pod_event(
        606,
        "llama-sweep-slice-job-0",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{sl.pods[0]} failed with exit code 1 matching FailJob rule at index 0",
        kind="Job",
        component="job-controller",
    )
    inc.jobset_event(
        607,
        "llama-sweep",
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: llama-sweep-slice-job-0)",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "nan-inf-loss",
            "culprit_hosts": [],
            "failures": [{"kind": "crash", "symptom": "nan-inf-loss", "host": None}],
            "why": "debug_nans raised FloatingPointError on all four hosts in the same step; exit 1 fails the JobSet at once. "
            "A numerical failure of the whole program has no culprit host. tokenizer-svc's crash loop is another workload.",
        }
    )


def pathways_worker_host_error() -> None:
    inc = Incident("pathways-worker-host-error", "pw-train", T0 + timedelta(days=2, hours=6), 407)
    cpu = node_name("cpu-head-pool", "a90b2e44", "h7cq")
    head = f"pw-train-pathways-head-0-0-{inc.suffix()}"
    workers = inc.make_slice("pw-train", 0, "v5p-pw-pool", 4, replicated="worker")
    serve_head = f"pw-serve-pathways-head-0-0-{inc.suffix()}"
    inc.noise(0, 900)
    inc.container(
        5,
        head,
        cpu,
        "I1122 proxy_server.cc:125] IFRT proxy server started with status OK",
        jobset="pw-train",
        container="pathways-proxy",
    )
    inc.container(
        6,
        head,
        cpu,
        "I1122 server_lib.cc:1473] Pathways Server serving on [::]:29001",
        jobset="pw-train",
        container="pathways-rm",
    )
    inc.container(
        40,
        head,
        cpu,
        "I1122 multi_job_allocator.cc:1063] *** 1/1 Pathways Slices Now Ready ***",
        jobset="pw-train",
        container="pathways-rm",
    )
    inc.container(
        45,
        serve_head,
        cpu,
        "W1122 client.cc:88] UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
        jobset="pw-serve",
        container="jax-client",
        severity="WARNING",
    )
    for pod, node in zip(workers.pods, workers.nodes):
        inc.container(
            8,
            pod,
            node,
            "I1122 server_lib.cc:1473] Pathways Server serving on [::]:29001",
            jobset="pw-train",
            container="pathways-worker",
        )
    step = 0
    t = 60.0
    while t < 640:
        inc.container(
            t,
            head,
            cpu,
            f"completed step: {step}, seconds: 24.9{step % 10}, loss: {4.2 - step * 0.01:.3f}",
            jobset="pw-train",
            container="jax-client",
            stream="stdout",
        )
        step += 1
        t += 25
    bad = workers.nodes[3]
    inc.gce_audit(650, bad, "compute.instances.hostError", "Instance terminated by Compute Engine.")
    inc.node_event(
        690, bad, "NodeNotReady", f"Node {bad} status is now: NodeNotReady", "node-controller"
    )
    inc.container(
        662,
        head,
        cpu,
        "Traceback (most recent call last):",
        jobset="pw-train",
        container="jax-client",
        severity="ERROR",
    )
    inc.container(
        662.1,
        head,
        cpu,
        "jax.errors.JaxRuntimeError: DATA_LOSS: Slice 0 is unhealthy: lost connection to worker "
        f"{workers.pods[3]}.pw-train:29001",
        jobset="pw-train",
        container="jax-client",
        severity="ERROR",
    )
    inc.container(
        663,
        head,
        cpu,
        "E1122 rpc_helper.cc:56] Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
        jobset="pw-train",
        container="jax-client",
        severity="ERROR",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "host-error",
            "culprit_hosts": [bad],
            "failures": [{"kind": "crash", "symptom": "host-error", "host": bad}],
            "why": "A host error terminated the VM of Pathways worker 3; the client's DATA_LOSS (slice lost) and the terminated "
            "proxy session follow it. pw-serve's GetTopologyForDevices warning is benign.",
        }
    )


def megascale_network_digest() -> None:
    inc = Incident("megascale-network-two-hosts", "ms-pretrain", T0 + timedelta(days=3), 408)
    sl = [inc.make_slice("ms-pretrain", j, f"v5p-ms-{j}", 4) for j in range(2)]
    other = inc.make_slice("ms-pretrain-ablation", 0, "v5p-ms-9", 4)
    inc.noise(0, 1500)
    for s in sl:
        inc.startup(s, 10)
        inc.training(s, 60, 800, every=30)
    inc.startup(other, 20)
    inc.training(other, 80, 1500, every=45)
    a, b = sl[0].nodes[1], sl[1].nodes[3]
    inc.container(
        1110,
        sl[0].pods[0],
        sl[0].nodes[0],
        "E1123 megascale_hang_detector.cc:412] Megascale hang detected: Timed out waiting for 6 graphs to complete at "
        "launch_id 25 Already completed: 24. StepGloballyInProgress: true. Timeout: 5m",
        jobset="ms-pretrain",
        severity="ERROR",
    )
    inc.container(
        1112,
        sl[0].pods[0],
        sl[0].nodes[0],
        "E1123 megascale_hang_detector.cc:530] Megascale detects a hang that is likely caused by a networking issue. "
        "Please examine the underlying networking stack for the following hosts.",
        jobset="ms-pretrain",
        severity="ERROR",
    )
    # The digest is one glog write: the logging agent stamps its lines microseconds apart.
    inc.container(
        1112.00002,
        sl[0].pods[0],
        sl[0].nodes[0],
        "Potential cause: Networking issue",
        jobset="ms-pretrain",
        severity="ERROR",
    )
    inc.container(
        1112.00004,
        sl[0].pods[0],
        sl[0].nodes[0],
        f"Potential culprit workers: {a}, {b}",
        jobset="ms-pretrain",
        severity="ERROR",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "megascale-hang-network",
            "culprit_hosts": sorted([a, b]),
            "failures": [{"kind": "hang", "symptom": "megascale-hang-network", "host": None}],
            "why": "Steps stop at 800 s on both slices; the Megascale digest on slice 0 worker 0 blames the network between two "
            "named workers. ms-pretrain-ablation keeps training on its own pool.",
        }
    )


def kueue_preemption_among_queues() -> None:
    inc = Incident(
        "kueue-preempted-by-priority", "exp-lowpri", T0 + timedelta(days=3, hours=5), 409
    )
    sl = inc.make_slice("exp-lowpri", 0, "v5e-shared", 4)
    inc.noise(0, 800)
    inc.startup(sl, 10)
    inc.training(sl, 60, 500, every=20)
    for k in range(5):
        inc.pod_event(
            30 + k * 120,
            "jobset-team-b-eval-3c9f1",
            "Pending",
            "couldn't assign flavors to pod set slice-job: insufficient unused quota for google.com/tpu in flavor "
            "v5p-flavor, 16 more needed",
            kind="Workload",
            component="kueue-admission",
            namespace="team-b",
        )
    inc.pod_event(
        505,
        "jobset-exp-lowpri-8b21d",
        "Preempted",
        "Preempted to accommodate a workload (UID: 5d1f0c2e-6a8e-4b55-9e0e-0c1b2a3c4d5e, JobUID: "
        "b0e3a8f1-2c4d-4e6f-8a9b-1c2d3e4f5a6b) due to prioritization in the ClusterQueue",
        kind="Workload",
        component="kueue-admission",
    )
    for pod, node in zip(sl.pods, sl.nodes):
        inc.pod_event(506, pod, "Killing", "Stopping container jax-tpu", host=node, severity="INFO")
        inc.sigterm(pod, node, 506.4, "exp-lowpri")
    inc.pod_event(
        520,
        "jobset-prod-hipri-02a7e",
        "QuotaReserved",
        "Quota reserved in ClusterQueue shared-v5e, wait time since queued was 412s",
        kind="Workload",
        component="kueue-admission",
        severity="INFO",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "kueue-preemption",
            "culprit_hosts": [],
            "failures": [{"kind": "preemption", "symptom": "kueue-preemption", "host": None}],
            "why": "Kueue evicted exp-lowpri's Workload for prod-hipri (priority); the SIGTERMs are the eviction. team-b's "
            "pending Workload is another queue's quota problem.",
        }
    )


def coordinator_segfault_with_other_cascade() -> None:
    inc = Incident("coordinator-segfault-leader-lost", "vit-huge", T0 + timedelta(days=4), 410)
    sl = [inc.make_slice("vit-huge", j, f"v6e-vh-{j}", 4) for j in range(2)]
    other = inc.make_slice("vit-huge-distill", 0, "v6e-vh-7", 4)
    inc.noise(0, 900)
    for s in sl:
        inc.startup(s, 10)
        inc.training(s, 60, 640, every=30)
    inc.startup(other, 12)
    inc.training(other, 62, 600, every=30)
    inc.container(
        601,
        other.pods[2],
        other.nodes[2],
        "F1124 tpu_program.cc:201] Check failed: status.ok() Failed to load program",
        jobset="vit-huge-distill",
        severity="CRITICAL",
    )
    inc.heartbeat_cascade(survivors_of([other], {2}), 700, 2)
    inc.restart_jobset(706, "vit-huge-distill", "vit-huge-distill-slice-job-0")
    coord = sl[0].nodes[0]
    inc.container(
        650,
        sl[0].pods[0],
        coord,
        "*** SIGSEGV (@(nil)), see gl__________41#s15 received by PID 11743 (TID 12350) on cpu 17; stack trace: ***",
        jobset="vit-huge",
        severity="ERROR",
    )
    inc.container(
        650.2,
        sl[0].pods[0],
        coord,
        "Fatal Python error: Segmentation fault",
        jobset="vit-huge",
        severity="ERROR",
    )
    for jobset, pod, node in survivors_of(sl, {0}):
        inc.container(
            662,
            pod,
            node,
            "F1124 client.h:77] Terminating process because the JAX distributed service detected fatal "
            "errors. This most likely indicates that another task died; see the other task logs for more details. "
            "absl::Status: UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was "
            "preempted/died/restarted unexpectedly or this task is experiencing network issues. Check earlier logs "
            "from 1) this task, 2) the leader (usually slice 0 task 0), and 3) cluster scheduler to debug further.",
            jobset=jobset,
            severity="CRITICAL",
        )
        inc.container(
            662.1,
            pod,
            node,
            ':UNKNOWN:Error received from peer  {grpc_message:"Socket closed", grpc_status:14}',
            jobset=jobset,
            severity="CRITICAL",
        )
    inc.restart_jobset(668, "vit-huge", "vit-huge-slice-job-0")
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "process-segfault",
            "culprit_hosts": [coord],
            "failures": [{"kind": "crash", "symptom": "process-segfault", "host": coord}],
            "why": "vit-huge's task 0 (the coordinator) segfaulted; all other tasks lost the leader. The heartbeat cascade "
            "naming task 2 and the Check failure belong to vit-huge-distill.",
        }
    )


def vfio_busy_one_host() -> None:
    inc = Incident("vfio-busy-after-leftover", "llm-sft", T0 + timedelta(days=4, hours=7), 411)
    sl = inc.make_slice("llm-sft", 0, "v5p-sft", 4)
    other = inc.make_slice("llm-sft-dpo", 0, "v5p-dpo", 4)
    inc.noise(0, 700)
    inc.startup(other, 5)
    inc.training(other, 40, 700, every=30)
    inc.startup(sl, 100)
    bad = sl.nodes[2]
    # A plain JobSet (restartPolicy OnFailure): host 2's container restarts in place and fails the same way
    # each time while the other hosts wait at the connect barrier until it times out.
    for t in (112.0, 141.0, 196.0, 301.0):
        inc.container(
            t,
            sl.pods[2],
            bad,
            "Traceback (most recent call last):",
            jobset="llm-sft",
            severity="ERROR",
        )
        inc.container(
            t + 0.2,
            sl.pods[2],
            bad,
            "jaxlib._jax.XlaRuntimeError: UNKNOWN: TPU initialization failed: "
            "open(/dev/vfio/2): Device or resource busy: Device or resource busy; Couldn't open iommu group "
            "/dev/vfio/2",
            jobset="llm-sft",
            severity="ERROR",
        )
        inc.pod_event(
            t + 1,
            sl.pods[2],
            "BackOff",
            f"Back-off restarting failed container jax-tpu in pod {sl.pods[2]}",
            host=bad,
        )
    for host in (0, 1, 3):
        inc.container(
            400 + host * 0.1,
            sl.pods[host],
            sl.nodes[host],
            "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. "
            "Timed out task names: /job:jax_worker/replica:0/task:2",
            jobset="llm-sft",
            severity="ERROR",
        )
    inc.pod_event(
        404,
        "llm-sft-slice-job-0",
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
        kind="Job",
        component="job-controller",
    )
    inc.jobset_event(405, "llm-sft", "FailedJobs", "jobset failed due to one or more job failures")
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "tpu-vfio-busy",
            "culprit_hosts": [bad],
            "failures": [{"kind": "crash", "symptom": "tpu-vfio-busy", "host": bad}],
            "why": "Host 2's TPU was still held (vfio group busy) by a leftover process, and every in-place restart failed "
            "the same way; the other hosts' connect-barrier timeouts name task 2 and are part of that one disruption, "
            "not a second failure. llm-sft-dpo trains normally on another pool.",
        }
    )


def image_pull_all_hosts() -> None:
    inc = Incident("image-pull-bad-tag", "qwen-ft", T0 + timedelta(days=5), 412)
    sl = inc.make_slice("qwen-ft", 0, "v6e-qf", 4)
    other = inc.make_slice("qwen-ft-eval", 0, "v6e-qe", 4)
    inc.noise(0, 600)
    inc.startup(other, 5)
    inc.training(other, 30, 600, every=30)
    image = "us-docker.pkg.dev/ml-prod-4417/trainers/qwen-ft:2026-11-25-rc3"
    for k in range(3):
        for pod, node in zip(sl.pods, sl.nodes):
            inc.pod_event(
                50 + k * 120,
                pod,
                "Failed",
                f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to '
                f'pull and unpack image "{image}": failed to resolve reference "{image}": {image}: not found',
                host=node,
            )
            inc.pod_event(
                51 + k * 120, pod, "BackOff", f'Back-off pulling image "{image}"', host=node
            )
    inc.pod_event(
        200,
        "dash-ui-5f6d7c8b9-kp2mz",
        "Failed",
        'Failed to pull image "nginx:1.27-alpine-typo": ErrImagePull',
        host=node_name("cpu-n2-pool", "44ab91c0", "m3pd"),
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "image-pull-failure",
            "culprit_hosts": [],
            "failures": [{"kind": "scheduling", "symptom": "image-pull-failure", "host": None}],
            "why": "The image tag does not exist: every qwen-ft pod fails to pull the same image, so no host is to blame. "
            "qwen-ft-eval runs; dash-ui's pull error is another deployment.",
        }
    )


def healthy_noisy() -> None:
    inc = Incident("healthy-noisy-benign", "t5-xxl", T0 + timedelta(days=5, hours=8), 413)
    sl = inc.make_slice("t5-xxl", 0, "v5e-t5", 4)
    inc.noise(0, 1500, every=25)
    inc.startup(sl, 10)
    inc.training(sl, 60, 1500, every=50)
    inc.node_log(
        300,
        sl.nodes[1],
        "[Hardware Error]: event severity: corrected",
        log="kernel",
        severity="WARNING",
    )
    inc.node_log(
        301,
        sl.nodes[1],
        "[Hardware Error]:  Error 0, type: corrected",
        log="kernel",
        severity="WARNING",
    )
    inc.container(
        20,
        sl.pods[0],
        sl.nodes[0],
        "W1125 tpu_version_flag.cc:57] Using TPU_ACCELERATOR_TYPE=v5litepod-16 from environment",
        jobset="t5-xxl",
        severity="WARNING",
    )
    inc.container(
        700,
        sl.pods[0],
        sl.nodes[0],
        "WARNING:absl:Checkpoint save took 41.2 s, longer than the 30 s target",
        jobset="t5-xxl",
        severity="WARNING",
    )
    inc.node_log(
        900,
        sl.nodes[3],
        'E1125 containerd[812]: level=error msg="ExecSync for \\"9c1f\\" failed" error="context deadline exceeded"',
        log="container-runtime",
        severity="ERROR",
    )
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "Steps advance to the end of the window; a corrected CPER record is informational, the rest is routine "
            "kube-system and runtime chatter.",
        }
    )


def mldiag_webhook_training_fine() -> None:
    inc = Incident("mldiag-not-injected-training-fine", "diag-demo", T0 + timedelta(days=6), 414)
    sl = inc.make_slice("diag-demo", 0, "v6e-dd", 4)
    inc.noise(0, 900)
    inc.startup(sl, 10)
    for host, (pod, node) in enumerate(zip(sl.pods, sl.nodes)):
        inc.container(
            30 + host * 0.1,
            pod,
            node,
            "WARNING:google_cloud_mldiagnostics:GKE_DIAGON_IDENTIFIER environment variable not set.",
            jobset="diag-demo",
            severity="WARNING",
        )
        inc.container(
            30.05 + host * 0.1,
            pod,
            node,
            "WARNING:google_cloud_mldiagnostics:Could not generate GKE workload identifier due to missing workload "
            "details. This might be because environment variables 'GKE_DIAGON_IDENTIFIER' or 'GKE_DIAGON_METADATA' "
            "are not set or are incomplete. Please ensure you are running SDK in a GKE environment with the GKE "
            "diagon operator webhook enabled.",
            jobset="diag-demo",
            severity="WARNING",
        )
    inc.training(sl, 60, 900, every=30)
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "Decision: training runs normally, so there is no failure to diagnose; the missing ML Diagnostics injection is "
            "a set-up gap (profiling will not be registered) that belongs in next steps, not in a failure table.",
        }
    )


def ephemeral_eviction() -> None:
    inc = Incident("ephemeral-storage-eviction", "sd-xl", T0 + timedelta(days=6, hours=5), 415)
    sl = inc.make_slice("sd-xl", 0, "v5p-sd", 4)
    cpu = node_name("cpu-n2-pool", "44ab91c0", "r8vb")
    inc.noise(0, 900)
    inc.startup(sl, 10)
    inc.training(sl, 60, 610, every=30)
    inc.pod_event(
        300,
        "etl-worker-7d9c6b5f4-lm3qa",
        "Evicted",
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 71244Ki. Container etl was "
        "using 11Gi, request is 2Gi, has larger consumption of memory.",
        host=cpu,
    )
    bad = sl.nodes[3]
    inc.pod_event(
        612,
        sl.pods[3],
        "Evicted",
        "The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 3812Mi. Container "
        "jax-tpu was using 91Gi, request is 0, has larger consumption of ephemeral-storage.",
        host=bad,
    )
    inc.pod_event(
        612.5, sl.pods[3], "Killing", "Stopping container jax-tpu", host=bad, severity="INFO"
    )
    inc.sigterm(sl.pods[3], bad, 612.8, "sd-xl")
    crash_and_restart(inc, [sl], (0, 3), 720)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "pod-evicted-node-pressure",
            "culprit_hosts": [bad],
            "failures": [{"kind": "eviction", "symptom": "pod-evicted-node-pressure", "host": bad}],
            "why": "kubelet evicted host 3's pod for ephemeral-storage (XLA dumps on local disk); survivors name task 3. The "
            "memory eviction on the CPU pool hit etl-worker, another workload.",
        }
    )


def kernel_mce_then_notready() -> None:
    inc = Incident("kernel-mce-node-notready", "palm-lite", T0 + timedelta(days=7), 416)
    sl = [inc.make_slice("palm-lite", j, f"v5p-pl-{j}", 4) for j in range(2)]
    inc.noise(0, 1000)
    for s in sl:
        inc.startup(s, 10)
        inc.training(s, 60, 520, every=30)
    inc.node_log(
        200,
        node_name("v5p-pl-9", "e0e1f2a3", "c0rr"),
        "[Hardware Error]: event severity: corrected",
        log="kernel",
        severity="WARNING",
    )
    bad = sl[1].nodes[2]
    inc.node_log(
        521,
        bad,
        "mce: [Hardware Error]: CPU 37: Machine Check Exception: 5 Bank 12: be00000000800400",
        log="kernel",
        severity="ERROR",
    )
    inc.node_log(
        521.1, bad, "[Hardware Error]: event severity: fatal", log="kernel", severity="ERROR"
    )
    inc.node_event(
        600, bad, "NodeNotReady", f"Node {bad} status is now: NodeNotReady", "node-controller"
    )
    inc.node_event(
        601,
        bad,
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
        "node-lifecycle-controller",
    )
    crash_and_restart(inc, sl, (1, 2), 625)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "kernel-hardware-error",
            "culprit_hosts": [bad],
            "failures": [{"kind": "crash", "symptom": "kernel-hardware-error", "host": bad}],
            "why": "A fatal machine check on palm-lite slice 1 host 2 (task 6), then NotReady; survivors name task 6. The corrected "
            "CPER on a node of another pool is informational.",
        }
    )


def restore_fails_after_preemption() -> None:
    inc = Incident(
        "preemption-then-restore-fails", "llama3-70b", T0 + timedelta(days=7, hours=6), 417
    )
    sl = [inc.make_slice("llama3-70b", j, f"v5p-spot-{j}", 4) for j in range(2)]
    other = inc.make_slice("sdxl-lora", 0, "v5e-lora", 4)
    inc.noise(0, 1500)
    inc.startup(other, 5)
    inc.training(other, 40, 1500, every=45)
    crash_and_restart(inc, [other], (0, 1), 1200)
    for s in sl:
        inc.startup(s, 10)
        inc.training(s, 60, 600, every=30, step0=4000)
    victim = sl[0].nodes[3]
    inc.gce_audit(610, victim, "compute.instances.preempted", "Instance was preempted.")
    inc.pod_event(
        611,
        sl[0].pods[3],
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        host=victim,
    )
    crash_and_restart(inc, sl, (0, 3), 720)
    sl = [inc.respawn(s) for s in sl]
    for s in sl:
        inc.startup(s, 1000)
        for host, (pod, node) in enumerate(zip(s.pods, s.nodes)):
            inc.container(
                1040 + host * 0.05,
                pod,
                node,
                "Restoring checkpoint from gs://ml-prod-4417-ckpt/llama3-70b/checkpoints/4010",
                jobset="llama3-70b",
            )
            inc.container(
                1052 + host * 0.05,
                pod,
                node,
                'ValueError: NOT_FOUND: Error opening "zarr" driver: Metadata at '
                "gs://ml-prod-4417-ckpt/llama3-70b/checkpoints/4010/state/params.decoder.layers.mlp.wi_0.kernel/.zarray does not exist",
                jobset="llama3-70b",
                severity="ERROR",
            )
    inc.pod_event(
        1055,
        "llama3-70b-slice-job-0",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{sl[0].pods[0]} failed with exit code 1 matching FailJob rule at index 0",
        kind="Job",
        component="job-controller",
    )
    inc.jobset_event(
        1056,
        "llama3-70b",
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: llama3-70b-slice-job-0)",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "checkpoint-restore-failure",
            "culprit_hosts": [],
            "failures": [
                {"kind": "preemption", "symptom": "spot-preemption", "host": victim},
                {"kind": "crash", "symptom": "checkpoint-restore-failure", "host": None},
            ],
            "why": "First disruption: slice 0 host 3's Spot VM was preempted (checkpoint 4010 left half-written). After the "
            "restart every host fails to restore it, exit 1 fails the JobSet. sdxl-lora's restart is unrelated."
            " Relabelled to the headline contract (#14): the run ends with every host failing to restore the checkpoint at once: that common-mode disruption ended it, so the headline is checkpoint-restore-failure with no single culprit host (the preemption stays row 1).",
        }
    )


def trainer2_compile_oom() -> None:
    inc = Incident("trainer-2-compile-oom-trainer-noisy", "trainer-2", T0 + timedelta(days=8), 418)
    t2 = inc.make_slice("trainer-2", 0, "v6e-pool-b", 4)
    tr = inc.make_slice("trainer", 0, "v6e-pool-a", 4)
    inc.noise(0, 700)
    inc.startup(tr, 5)
    inc.training(tr, 40, 700, every=40)
    inc.container(
        300,
        tr.pods[1],
        tr.nodes[1],
        "WARNING:absl:Checkpoint save took 61.0 s",
        jobset="trainer",
        severity="WARNING",
    )
    inc.startup(t2, 100)
    for host, (pod, node) in enumerate(zip(t2.pods, t2.nodes)):
        inc.container(
            190 + host * 0.3,
            pod,
            node,
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile "
            "permanent error. Ran out of memory in memory space hbm. Used 41.72G of 31.25G hbm. Exceeded hbm capacity "
            "by 10.47G.",
            jobset="trainer-2",
            severity="ERROR",
        )
    inc.pod_event(
        195,
        "trainer-2-slice-job-0",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{t2.pods[0]} failed with exit code 1 matching FailJob rule at index 0",
        kind="Job",
        component="job-controller",
    )
    inc.jobset_event(
        196,
        "trainer-2",
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: trainer-2-slice-job-0)",
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "hbm-oom-compile",
            "culprit_hosts": [],
            "failures": [{"kind": "crash", "symptom": "hbm-oom-compile", "host": None}],
            "why": "All four trainer-2 hosts fail the same compile with HBM exhaustion: a config problem with no culprit host. "
            "trainer is a different JobSet.",
        }
    )


def daemonset_oom_on_target_node() -> None:
    inc = Incident("daemonset-oom-on-target-node", "gemma-ft", T0 + timedelta(days=8, hours=4), 419)
    sl = inc.make_slice("gemma-ft", 0, "v6e-gf", 4)
    inc.noise(0, 1000)
    inc.startup(sl, 10)
    inc.training(sl, 60, 1000, every=30)
    node = sl.nodes[2]
    exporter = f"tpu-metrics-exporter-{inc.suffix()}"
    inc.node_log(
        400,
        node,
        "Memory cgroup out of memory: Killed process 3312 (metrics-export) total-vm:2211480kB, "
        "anon-rss:524100kB, file-rss:11020kB, shmem-rss:0kB, UID:65534 pgtables:1232kB oom_score_adj:999",
        log="kernel",
        severity="ERROR",
    )
    inc.pod_event(
        401,
        exporter,
        "BackOff",
        f"Back-off restarting failed container exporter in pod {exporter}",
        host=node,
        namespace="monitoring",
    )
    inc.container(
        420,
        exporter,
        node,
        'level=info msg="exporter restarted" scrape_interval=1s',
        container="exporter",
        namespace="monitoring",
    )
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "TPU nodes are exclusive to one workload pod, but DaemonSets still run there: the OOM kill hit the monitoring "
            "exporter's cgroup (limit-bound, oom_score_adj 999), not python. gemma-ft keeps training on that node.",
        }
    )


def liveness_restart_incarnation() -> None:
    """One pod's container is restarted by its liveness probe; the peers see a new incarnation."""
    inc = Incident("liveness-restart-incarnation", "gpt-moe", T0 + timedelta(days=9), 420)
    sl = [inc.make_slice("gpt-moe", j, f"v5p-moe-{j}", 4) for j in range(2)]
    web = f"gpt-moe-dashboard-6c7d8e9f0-{inc.suffix()}"
    cpu = node_name("cpu-n2-pool", "44ab91c0", "m3pd")
    inc.noise(0, 1100)
    for s in sl:
        inc.startup(s, 10)
        inc.training(s, 60, 700, every=30)
    for k in range(6):
        inc.pod_event(
            100 + k * 150,
            web,
            "Unhealthy",
            "Readiness probe failed: HTTP probe failed with statuscode: 503",
            host=cpu,
        )
    pod, bad = sl[1].pods[1], sl[1].nodes[1]
    for k in range(3):
        inc.pod_event(
            640 + k * 20,
            pod,
            "Unhealthy",
            'Liveness probe failed: Get "http://10.8.3.14:8080/healthz": context deadline exceeded',
            host=bad,
        )
    inc.pod_event(
        681,
        pod,
        "Killing",
        "Container jax-tpu failed liveness probe, will be restarted",
        host=bad,
        severity="INFO",
    )
    inc.sigterm(pod, bad, 681.3, "gpt-moe")
    for jobset, other, node in survivors_of(sl, {sl[1].task(1)}):
        inc.container(
            745,
            other,
            node,
            f"E1129 coordination_service.cc:612] /job:jax_worker/replica:0/task:{sl[1].task(1)} "
            "Heartbeat: Incarnation ID mismatch: expecting 8034261917201121114 but got 1406120386914830921. The task "
            "has restarted and likely crashed earlier - check for any earlier errors or any scheduler events (e.g. "
            "preemption, eviction) to debug further.",
            jobset=jobset,
            severity="ERROR",
        )
    inc.restart_jobset(760, "gpt-moe", "gpt-moe-slice-job-1")
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "liveness-probe-restart",
            "culprit_hosts": [bad],
            "failures": [{"kind": "restart", "symptom": "liveness-probe-restart", "host": bad}],
            "why": "kubelet restarted slice 1 host 1's container after three failed liveness probes (a long step blocked the "
            "health endpoint); the peers' incarnation mismatch names task 5. The dashboard's readiness failures are "
            "another Deployment (whose name extends gpt-moe).",
        }
    )


def shutdown_barrier_at_end() -> None:
    """A finished run whose hosts did not leave together: the error line is noise, the run succeeded."""
    inc = Incident(
        "shutdown-barrier-after-success", "whisper-ft", T0 + timedelta(days=9, hours=6), 421
    )
    sl = inc.make_slice("whisper-ft", 0, "v6e-wf", 4)
    inc.noise(0, 800)
    inc.startup(sl, 10)
    step = inc.training(sl, 60, 600, every=30, step0=9980)
    for host, (pod, node) in enumerate(zip(sl.pods, sl.nodes)):
        inc.container(
            612 + host * 0.1,
            pod,
            node,
            f"Saved final checkpoint at step {step - 1} to gs://ml-prod-4417-ckpt/whisper-ft/",
            jobset="whisper-ft",
        )
        inc.container(615 + host * 0.1, pod, node, "Training finished.", jobset="whisper-ft")
    for host in (0, 1, 2):
        inc.container(
            680 + host * 0.1,
            sl.pods[host],
            sl.nodes[host],
            "E1129 coordination_service_agent.cc:540] Shutdown barrier has failed.\nBarrier result: 'DEADLINE_EXCEEDED: "
            "Barrier timed out. Id: Shutdown::1'",
            jobset="whisper-ft",
            severity="ERROR",
        )
    inc.jobset_event(700, "whisper-ft", "AllJobsCompleted", "jobset completed successfully")
    inc.write(
        {
            "status": "no_failure",
            "root_cause": None,
            "culprit_hosts": [],
            "failures": [],
            "why": "Decision: the run reached its last step, saved the final checkpoint on every host and the JobSet completed; "
            "the shutdown barrier only shows host 3 left before the others. Nothing to repair, so no failure.",
        }
    )


def window_misses_start() -> None:
    """The export starts after the crash: only the cascades and the restart are in the window."""
    inc = Incident("window-misses-root", "code-lm", T0 + timedelta(days=10), 422)
    sl = inc.make_slice("code-lm", 0, "v5p-cl", 4)
    other = inc.make_slice("code-lm-rm", 0, "v5p-rm", 4)
    inc.noise(0, 400)
    bad = sl.nodes[3]
    crash_and_restart(inc, [sl], (0, 3), 12)
    inc.training(other, 5, 400, every=30)
    inc.node_event(
        120,
        other.nodes[0],
        "OOMKilling",
        "Out of memory: Killed process 7781 (python3) total-vm:402112000kB, "
        "anon-rss:390002210kB, file-rss:0kB, shmem-rss:0kB",
        "kernel-monitor",
    )
    crash_and_restart(inc, [other], (0, 0), 230)
    sl2 = inc.respawn(sl)
    inc.startup(sl2, 300)
    inc.write(
        {
            "status": "inconclusive",
            "root_cause": None,
            "culprit_hosts": [bad],
            "failures": [{"kind": "crash", "symptom": None, "host": bad}],
            "why": "The window opens after code-lm's task 3 died: only the survivors' cascades naming task 3 and the restart "
            "are here. Say inconclusive and point at task 3's node; the OOM kill belongs to code-lm-rm."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its coordination-heartbeat-cascade lines stay in its evidence).",
        }
    )


def stockout_own_pool() -> None:
    inc = Incident(
        "stockout-own-pool-quota-elsewhere", "mamba-3b", T0 + timedelta(days=10, hours=5), 423
    )
    pods = [f"mamba-3b-slice-job-0-{c}-{inc.suffix()}" for c in range(4)]
    other = inc.make_slice("mamba-3b-sweep", 0, "v5e-sweep", 4)
    inc.noise(0, 1200)
    inc.startup(other, 10)
    inc.training(other, 50, 1200, every=40)
    for k in range(4):
        for pod in pods:
            inc.pod_event(
                30 + k * 240,
                pod,
                "FailedScheduling",
                "0/9 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 4 Insufficient "
                "google.com/tpu, 2 node(s) had untolerated taint {components.gke.io/gke-managed-components: true}. "
                "preemption: 0/9 nodes are available: 9 Preemption is not helpful for scheduling.",
                component="default-scheduler",
            )
        inc.autoscaler_noscaleup(
            40 + k * 240, "v5p-mamba", "scale.up.error.out.of.resources", pods[0]
        )
        inc.autoscaler_noscaleup(
            45 + k * 240, "a3-gpu-pool", "scale.up.error.quota.exceeded", "vllm-gpu-0"
        )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "capacity-stockout-or-quota",
            "culprit_hosts": [],
            "failures": [
                {"kind": "scheduling", "symptom": "capacity-stockout-or-quota", "host": None}
            ],
            "why": "mamba-3b's pods stay Pending because its v5p pool cannot scale up (zone out of resources); FailedScheduling "
            "is the visible effect. The quota error is about a GPU pool serving another workload.",
        }
    )


INCIDENTS = (
    oom_while_neighbour_preempted,
    neighbour_prefix_segfault,
    preempted_node_never_used,
    maintenance_after_schedule,
    other_jobset_restart,
    nan_with_crashlooping_deployment,
    pathways_worker_host_error,
    megascale_network_digest,
    kueue_preemption_among_queues,
    coordinator_segfault_with_other_cascade,
    vfio_busy_one_host,
    image_pull_all_hosts,
    healthy_noisy,
    mldiag_webhook_training_fine,
    ephemeral_eviction,
    kernel_mce_then_notready,
    restore_fails_after_preemption,
    trainer2_compile_oom,
    daemonset_oom_on_target_node,
    liveness_restart_incarnation,
    shutdown_barrier_at_end,
    window_misses_start,
    stockout_own_pool,
)


def main() -> None:
    for build in INCIDENTS:
        build()


if __name__ == "__main__":
    main()
