"""Deterministic generator of the eighth held-out incident set (GitHub issue #5, round 8).

Theme: WHO IS WHO. Every incident is built so that the culprit node is found only by mapping
what the logs name (a JAX `task:K`, a headless-service address, a TPU_WORKER_HOSTNAMES entry,
a Megascale host name, a LeaderWorkerSet leader) to a pod and then to its node, across naming
schemes other than XPK's, big runs, multislice and restarts.

Run from the repository root: `python tests/incidents8/make_incidents.py`. Each scenario folder
gets `logs.json` (a JSON array, newest first, as `gcloud logging read --format=json` prints it)
and `expected.json` (the label a senior TPU engineer would give, with a `why`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

PROJECT = "ml-research-prod"
ZONE = "us-east5-b"
CLUSTER = "tpu-east"
HERE = Path(__file__).resolve().parent
T0 = datetime(2025, 3, 4, 9, 0, 0, tzinfo=timezone.utc)


def ts(seconds: float) -> str:
    moment = T0 + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}Z"


def glog(level: str, seconds: float, tid: int, where: str, text: str) -> str:
    """A glog/absl line prefix (`E0304 09:01:02.123456   1234 file.cc:12] text`)."""
    moment = T0 + timedelta(seconds=seconds)
    stamp = moment.strftime("%m%d %H:%M:%S.") + f"{moment.microsecond:06d}"
    return f"{level}{stamp} {tid:>7} {where}] {text}"


def node_name(pool: str, group: str, rng: random.Random) -> str:
    suffix = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))
    return f"gke-{CLUSTER}-{pool}-{group}-{suffix}"


def pod_suffix(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))


@dataclass
class Pod:
    name: str
    node: str
    labels: dict[str, str]
    container: str = "jax-tpu"
    namespace: str = "default"


@dataclass
class Bundle:
    """Collects log entries for one incident, in any order; written newest first."""

    seed: int
    entries: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.counter = 0

    def _insert_id(self) -> str:
        self.counter += 1
        return f"{self.seed:03d}{self.counter:05d}" + pod_suffix(self.rng)

    def container(
        self, pod: Pod, seconds: float, text: str, severity: str = "INFO", stream: str = "stderr"
    ) -> None:
        labels = {f"k8s-pod/{k}": v for k, v in pod.labels.items()}
        labels["compute.googleapis.com/resource_name"] = pod.node
        self.entries.append(
            {
                "insertId": self._insert_id(),
                "logName": f"projects/{PROJECT}/logs/{stream}",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": CLUSTER,
                        "namespace_name": pod.namespace,
                        "pod_name": pod.name,
                        "container_name": pod.container,
                    },
                },
                "timestamp": ts(seconds),
                "receiveTimestamp": ts(seconds + 1.3),
                "severity": severity,
                "textPayload": text,
                "labels": labels,
            }
        )

    def lines(self, pod: Pod, seconds: float, texts: list[str], severity: str = "ERROR") -> None:
        """A multi-line message (stack trace) split across entries, as the agent ships it."""
        for offset, text in enumerate(texts):
            self.container(pod, seconds + offset * 0.0004, text, severity)

    def pod_event(
        self,
        pod: Pod,
        seconds: float,
        reason: str,
        message: str,
        kind: str = "Normal",
        component: str = "kubelet",
    ) -> None:
        source: dict[str, str] = {"component": component}
        if component == "kubelet":
            source["host"] = pod.node
        self.entries.append(
            {
                "insertId": self._insert_id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_pod",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": CLUSTER,
                        "namespace_name": pod.namespace,
                        "pod_name": pod.name,
                    },
                },
                "timestamp": ts(seconds),
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "kind": "Event",
                    "apiVersion": "v1",
                    "type": kind,
                    "reason": reason,
                    "message": message,
                    "involvedObject": {
                        "kind": "Pod",
                        "name": pod.name,
                        "namespace": pod.namespace,
                        "apiVersion": "v1",
                    },
                    "source": source,
                    "reportingComponent": component,
                },
            }
        )

    def object_event(
        self, kind: str, name: str, seconds: float, reason: str, message: str, component: str
    ) -> None:
        self.entries.append(
            {
                "insertId": self._insert_id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {"project_id": PROJECT, "location": ZONE, "cluster_name": CLUSTER},
                },
                "timestamp": ts(seconds),
                "severity": "WARNING",
                "jsonPayload": {
                    "kind": "Event",
                    "type": "Warning",
                    "reason": reason,
                    "message": message,
                    "involvedObject": {"kind": kind, "name": name, "namespace": "default"},
                    "source": {"component": component},
                    "reportingComponent": component,
                },
            }
        )

    def node_event(
        self, node: str, seconds: float, reason: str, message: str, component: str
    ) -> None:
        self.entries.append(
            {
                "insertId": self._insert_id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_node",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": CLUSTER,
                        "node_name": node,
                    },
                },
                "timestamp": ts(seconds),
                "severity": "WARNING",
                "jsonPayload": {
                    "kind": "Event",
                    "type": "Warning",
                    "reason": reason,
                    "message": message,
                    "involvedObject": {"kind": "Node", "name": node, "uid": node},
                    "source": {"component": component, "host": node},
                    "reportingComponent": component,
                },
            }
        )

    def gce_event(self, node: str, seconds: float, method: str, message: str) -> None:
        self.entries.append(
            {
                "insertId": self._insert_id(),
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": ZONE,
                        "instance_id": str(self.rng.randrange(10**18, 10**19)),
                    },
                },
                "timestamp": ts(seconds),
                "severity": "NOTICE",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "status": {"message": message},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{node}",
                    "request": {"@type": "type.googleapis.com/compute.instances.preempted"},
                },
            }
        )

    def write(self, folder: Path, expected: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        ordered = sorted(self.entries, key=lambda e: (e["timestamp"], e["insertId"]), reverse=True)
        # one entry per line keeps the bundles small; still the JSON array gcloud prints
        body = ",\n".join(json.dumps(entry) for entry in ordered)
        (folder / "logs.json").write_text(f"[\n{body}\n]\n", encoding="utf-8")
        (folder / "expected.json").write_text(
            json.dumps(expected, indent=2) + "\n", encoding="utf-8"
        )


# --- workload shapes -----------------------------------------------------------------------


def jobset_labels(
    jobset: str, rjob: str, job_index: int, completion: int, attempt: int, dotted: bool
) -> dict[str, str]:
    prefix = "jobset.sigs.k8s.io" if dotted else "jobset_sigs_k8s_io"
    batch = "batch.kubernetes.io" if dotted else "batch_kubernetes_io"
    return {
        f"{prefix}/jobset-name": jobset,
        f"{prefix}/replicatedjob-name": rjob,
        f"{prefix}/job-index": str(job_index),
        f"{prefix}/restart-attempt": str(attempt),
        f"{batch}/job-completion-index": str(completion),
    }


def jobset_pods(
    bundle: Bundle,
    jobset: str,
    rjob: str,
    jobs: int,
    per_job: int,
    pool: str,
    attempt: int = 0,
    dotted: bool = False,
    nodes: Optional[list[str]] = None,
) -> list[Pod]:
    """Pods `<jobset>-<rjob>-<j>-<c>-<suffix>`, one per node, in (j, c) order."""
    pods = []
    for j in range(jobs):
        group = f"{bundle.rng.getrandbits(32):08x}"
        for c in range(per_job):
            index = j * per_job + c
            node = nodes[index] if nodes else node_name(f"{pool}-{j}", group, bundle.rng)
            name = f"{jobset}-{rjob}-{j}-{c}-{pod_suffix(bundle.rng)}"
            pods.append(Pod(name, node, jobset_labels(jobset, rjob, j, c, attempt, dotted)))
    return pods


def task_name(k: int) -> str:
    return f"/job:jax_worker/replica:0/task:{k}"


def startup(
    bundle: Bundle, pod: Pod, seconds: float, process_id: int, count: int, coordinator: str
) -> None:
    bundle.container(pod, seconds, f"Connecting to JAX distributed service on {coordinator}")
    bundle.container(
        pod,
        seconds + 2.1,
        f"jax.distributed initialized: process_id={process_id} num_processes={count} "
        f"local_devices=4",
    )


def steps(
    bundle: Bundle, pod: Pod, start: float, first: int, last: int, every: float, loss: float = 3.2
) -> None:
    for step in range(first, last + 1):
        value = loss - 0.004 * step + bundle.rng.uniform(-0.01, 0.01)
        bundle.container(
            pod,
            start + (step - first) * every + bundle.rng.uniform(0, 0.3),
            f"completed step: {step}, seconds: {every - 0.2 + bundle.rng.uniform(0, 0.4):.3f}, "
            f"TFLOP/s/device: {bundle.rng.uniform(180, 200):.3f}, "
            f"Tokens/s/device: {bundle.rng.uniform(4100, 4300):.3f}, "
            f"total_weights: 1572864, loss: {value:.3f}",
            stream="stdout",
        )


def heartbeat_cascade(
    bundle: Bundle,
    survivors: list[Pod],
    seconds: float,
    dead: list[int],
    coordinator: Optional[Pod] = None,
) -> None:
    """What every survivor prints when tasks `dead` stop sending heartbeats (§2.1 steps 4-5)."""
    if coordinator is not None:
        for k in dead:
            bundle.container(
                coordinator,
                seconds - 0.8,
                glog(
                    "E",
                    seconds - 0.8,
                    8871,
                    "coordination_service.cc:1412",
                    f"Task {task_name(k)} heartbeat timeout. This indicates that the remote task has "
                    "failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier "
                    "error or scheduler events (e.g. preemption, eviction) to debug further.",
                ),
                "ERROR",
            )
    names = "\n".join(task_name(k) for k in dead)
    for i, pod in enumerate(survivors):
        at = seconds + 0.05 * (i % 7) + bundle.rng.uniform(0, 0.02)
        tid = bundle.rng.randrange(1000, 9000)
        bundle.container(
            pod,
            at,
            glog(
                "E",
                at,
                tid,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or "
                "another task).",
            ),
            "ERROR",
        )
        bundle.lines(
            pod,
            at + 0.001,
            [
                glog(
                    "F",
                    at + 0.001,
                    tid,
                    "client.h:77",
                    "Terminating process because the JAX distributed service detected fatal errors. "
                    "This most likely indicates that another task died; see the other task logs for "
                    "more details. Disable Python buffering, i.e. `python -u`, to be sure to see all "
                    "the previous output. absl::Status: UNAVAILABLE: The following tasks are "
                    f"unhealthy (stopped sending heartbeats):\n{names}\nThe tasks have crashed. Check "
                    "the task logs for an earlier error, or scheduler events (e.g. preemption, "
                    "eviction) to debug further.",
                ),
                f"*** SIGABRT received by PID {bundle.rng.randrange(7, 90)} (TID {tid}) on cpu "
                f"{bundle.rng.randrange(0, 200)} from PID {bundle.rng.randrange(7, 90)}; stack trace: ***",
            ],
            "ERROR",
        )


def leader_lost(bundle: Bundle, survivors: list[Pod], seconds: float) -> None:
    for i, pod in enumerate(survivors):
        at = seconds + 0.07 * (i % 5)
        tid = bundle.rng.randrange(1000, 9000)
        bundle.lines(
            pod,
            at,
            [
                glog(
                    "E",
                    at,
                    tid,
                    "coordination_service_agent.cc:332",
                    "Polled an error from coordination service (this can be an error from this or "
                    "another task).",
                ),
                glog(
                    "F",
                    at + 0.001,
                    tid,
                    "client.h:77",
                    "Terminating process because the JAX distributed service detected fatal errors. "
                    "This most likely indicates that another task died; see the other task logs for "
                    "more details. Disable Python buffering, i.e. `python -u`, to be sure to see all "
                    "the previous output. absl::Status: UNAVAILABLE: Failed to send RPC to "
                    "coordination service. Either the leader task was preempted/died/restarted "
                    "unexpectedly or this task is experiencing network issues. Check earlier logs "
                    "from 1) this task, 2) the leader (usually slice 0 task 0), and 3) cluster "
                    "scheduler to debug further.\nAdditional GRPC error information from remote "
                    "target coordination_service while calling /tensorflow.CoordinationService/"
                    'PollForError:\n:UNKNOWN:Error received from peer  {grpc_message:"Socket '
                    'closed", grpc_status:14}',
                ),
            ],
            "ERROR",
        )


def restart_event(bundle: Bundle, jobset: str, seconds: float, failed_job: str) -> None:
    bundle.object_event(
        "JobSet",
        jobset,
        seconds,
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {failed_job})",
        "jobset-controller-manager",
    )


def sigterm(bundle: Bundle, pods: list[Pod], seconds: float) -> None:
    for pod in pods:
        pid = bundle.rng.randrange(7, 90)
        bundle.container(
            pod,
            seconds + bundle.rng.uniform(0, 0.5),
            f"*** SIGTERM received by PID {pid} (TID {pid}) on cpu "
            f"{bundle.rng.randrange(0, 200)} from PID 0; stack trace: ***",
            "ERROR",
        )


def segfault(bundle: Bundle, pod: Pod, seconds: float) -> None:
    pid = bundle.rng.randrange(7, 90)
    bundle.lines(
        pod,
        seconds,
        [
            f"*** SIGSEGV (@0x{bundle.rng.randrange(16, 4096):x}), see gl__________41#s15 received by "
            f"PID {pid} (TID {pid + 211}) on cpu {bundle.rng.randrange(0, 200)}; stack trace: ***",
            "PC: @     0x7f3a1c2b4e10  (unknown)  tsl::thread::EigenEnvironment::ExecuteTask()",
            "    @     0x7f3a1f0a2520  (unknown)  (unknown)",
            "    @     0x7f3a1c2b5d91  (unknown)  xla::PjRtStreamExecutorLoadedExecutable::Execute()",
            "https://symbolize.stripped_domain/r/?trace=7f3a1c2b4e10,7f3a1f0a2520&map=",
            "*** End stack trace ***",
        ],
        "ERROR",
    )


def expected(
    workload: str,
    status: str,
    root: Optional[str],
    culprits: list[str],
    failures: list[tuple[str, Optional[str], Optional[str]]],
    why: str,
) -> dict[str, Any]:
    return {
        "workload": workload,
        "status": status,
        "root_cause": root,
        "culprit_hosts": sorted(set(culprits)),
        "failures": [{"kind": k, "symptom": s, "host": h} for k, s, h in failures],
        "why": why,
    }


# --- the incidents -------------------------------------------------------------------------


def driver_workers(
    bundle: Bundle, jobset: str, workers: int, dotted: bool = False, attempt: int = 0
) -> tuple[Pod, list[Pod]]:
    cpu_group = f"{bundle.rng.getrandbits(32):08x}"
    driver = Pod(
        f"{jobset}-driver-0-0-{pod_suffix(bundle.rng)}",
        node_name("cpu-pool", cpu_group, bundle.rng),
        jobset_labels(jobset, "driver", 0, 0, attempt, dotted),
        container="driver",
    )
    pods = jobset_pods(bundle, jobset, "workers", 1, workers, "v5p-pool", attempt, dotted)
    return driver, pods


def inc01_driver_workers_silent(folder: Path) -> None:
    """Worker task ids count only `workers`; task:5 vanishes without a word."""
    b = Bundle(801)
    js = "rl-sweep"
    driver, pods = driver_workers(b, js, 8)
    coord = f"{js}-workers-0-0.{js}:8482"
    b.container(
        driver,
        5,
        "driver: workers use their own JAX cluster (num_processes=8); "
        "driver process does not join jax.distributed",
        stream="stdout",
    )
    for k, pod in enumerate(pods):
        startup(b, pod, 10 + k * 0.3, k, 8, coord)
        steps(b, pod, 120, 1, 14 if k != 5 else 12, 11.7)
    culprit = pods[5]
    # task 5 stops at step 12: no error line, no event (killed outside the container's view).
    heartbeat_cascade(b, pods[:5] + pods[6:], 120 + 12 * 11.7 + 100, [5], coordinator=pods[0])
    restart_event(b, js, 120 + 12 * 11.7 + 104, f"{js}-workers-0")
    b.write(
        folder,
        expected(
            js,
            "inconclusive",
            None,
            [culprit.node],
            [("crash", None, culprit.node)],
            "Every survivor names task:5 as stopped sending heartbeats. The startup lines say the "
            "driver does not join jax.distributed, so task 5 is workers-0-5, on its own node; that pod "
            "logged nothing after step 12 and no event explains it. Only cascades, no root: "
            "inconclusive, pointing at workers-0-5's node."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its coordination-heartbeat-cascade lines stay in its evidence).",
        ),
    )


def inc02_driver_first_kernel(folder: Path) -> None:
    """Driver is task 0; task:4 is workers-0-3. A corrected-CPER decoy sits on workers-0-4."""
    b = Bundle(802)
    js = "dpo-ft"
    driver, pods = driver_workers(b, js, 8, dotted=True)
    coord = f"{js}-driver-0-0.{js}:8482"
    startup(b, driver, 9, 0, 9, coord)
    b.container(
        driver,
        9.5,
        "driver joins the JAX cluster as process 0 (CPU only; coordination service host)",
        stream="stdout",
    )
    for c, pod in enumerate(pods):
        startup(b, pod, 10 + c * 0.2, c + 1, 9, coord)
        steps(b, pod, 100, 1, 20 if c != 3 else 17, 9.8)
    culprit, decoy = pods[3], pods[4]
    b.node_event(
        decoy.node,
        60,
        "CperHardwareErrorCorrected",
        "[Hardware Error]: event severity: corrected",
        "kernel-monitor",
    )
    t = 100 + 17 * 9.8 + 3
    b.node_event(
        culprit.node,
        t,
        "CperHardwareErrorFatal",
        "kernel: [Hardware Error]: event severity: fatal",
        "kernel-monitor",
    )
    b.node_event(
        culprit.node,
        t + 40,
        "NodeNotReady",
        f"Node {culprit.node} status is now: NodeNotReady",
        "node-controller",
    )
    heartbeat_cascade(b, [driver, *pods[:3], *pods[4:]], t + 100, [4], coordinator=driver)
    restart_event(b, js, t + 104, f"{js}-workers-0")
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "kernel-hardware-error",
            [culprit.node],
            [("crash", "kernel-hardware-error", culprit.node)],
            "The driver joins jax.distributed as process 0, so task:4 named by the cascades is "
            "workers-0-3. Its node logged a fatal CPER hardware error, then went NotReady. The "
            "'corrected' CPER on workers-0-4's node an hour earlier is informational, not a cause.",
        ),
    )


def inc03_indexed_job_oom(folder: Path) -> None:
    """A plain Indexed Job, no JobSet: trainer-<index>-<suffix>; task:11 OOM-killed by the kernel."""
    b = Bundle(803)
    job = "trainer"
    group = f"{b.rng.getrandbits(32):08x}"
    pods = []
    for i in range(16):
        pods.append(
            Pod(
                f"{job}-{i}-{pod_suffix(b.rng)}",
                node_name("v5e-pool", group, b.rng),
                {
                    "batch.kubernetes.io/job-completion-index": str(i),
                    "batch.kubernetes.io/job-name": job,
                    "job-name": job,
                },
                container="trainer",
            )
        )
    coord = f"{job}-0.{job}-svc:8482"
    for i, pod in enumerate(pods):
        startup(b, pod, 8 + i * 0.1, i, 16, coord)
        steps(b, pod, 90, 1, 9, 14.2)
    culprit = pods[11]
    t = 90 + 9 * 14.2 + 5
    b.node_event(
        culprit.node,
        t,
        "OOMKilling",
        "Out of memory: Killed process 3817 (python3) total-vm:398122340kB, "
        "anon-rss:371201112kB, file-rss:70212kB, shmem-rss:0kB, UID:0 pgtables:731220kB "
        "oom_score_adj:-997",
        "kernel-monitor",
    )
    heartbeat_cascade(b, pods[:11] + pods[12:], t + 100, [11], coordinator=pods[0])
    b.object_event(
        "Job",
        job,
        t + 130,
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
        "job-controller",
    )
    b.write(
        folder,
        expected(
            job,
            "diagnosed",
            "host-oom-killed",
            [culprit.node],
            [("crash", "host-oom-killed", culprit.node)],
            "Plain Indexed Job: task:11 is the pod with job-completion-index 11 (trainer-11-*). The "
            "kernel on that pod's node killed python3 for host RAM; the other 15 tasks then printed the "
            "heartbeat cascade naming task:11; the Job failure is the consequence.",
        ),
    )


def inc04_lws_leader_preempted(folder: Path) -> None:
    """LeaderWorkerSet: leader pod llama-lws-1 (task 0 of group 1) is on a preempted Spot VM."""
    b = Bundle(804)
    lws = "llama-lws"
    group = f"{b.rng.getrandbits(32):08x}"
    groups: list[list[Pod]] = []
    for g in range(2):
        members = []
        for i in range(4):
            name = f"{lws}-{g}" if i == 0 else f"{lws}-{g}-{i}"
            members.append(
                Pod(
                    f"{name}",
                    node_name("v6e-spot", group, b.rng),
                    {
                        "leaderworkerset.sigs.k8s.io/name": lws,
                        "leaderworkerset.sigs.k8s.io/group-index": str(g),
                        "leaderworkerset.sigs.k8s.io/worker-index": str(i),
                    },
                    container="vllm-tpu" if i == 0 else "worker",
                )
            )
        groups.append(members)
        for i, pod in enumerate(members):
            startup(b, pod, 20 + i, i, 4, f"{lws}-{g}.{lws}:8482")
    for g, members in enumerate(groups):
        for pod in members:
            for n in range(6):
                b.container(
                    pod,
                    200 + n * 60 + g,
                    f'INFO:     10.12.{g}.{n + 4}:51234 - "POST /v1/completions HTTP/1.1" 200 OK',
                    stream="stdout",
                )
    leader = groups[1][0]
    t = 600
    b.gce_event(leader.node, t, "compute.instances.preempted", "Instance was preempted.")
    b.pod_event(leader, t + 2, "Killing", "Stopping container vllm-tpu", "Normal")
    b.container(
        leader, t + 3, "Pod was terminated in response to imminent node shutdown.", "WARNING"
    )
    leader_lost(b, groups[1][1:], t + 35)
    b.write(
        folder,
        expected(
            lws,
            "diagnosed",
            "spot-preemption",
            [leader.node],
            [("preemption", "spot-preemption", leader.node)],
            "LeaderWorkerSet group 1: the leader pod llama-lws-1 is process 0 (coordination service). "
            "Its Spot VM was preempted; the three workers of group 1 then lost the leader. Group 0 is "
            "unaffected.",
        ),
    )


def inc05_big128_task97(folder: Path) -> None:
    """2 slices x 64 hosts; task:97 = slice 1, worker 33; every survivor also prints SIGABRT."""
    b = Bundle(805)
    js = "gemma-pt"
    pods = jobset_pods(b, js, "slice-job", 2, 64, "v5p-pool")
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(pods):
        startup(b, pod, 30 + k * 0.05, k, 128, coord)
    for k in range(0, 128, 9):
        steps(b, pods[k], 300, 1, 3, 21.0)
    culprit = pods[97]
    t = 300 + 3 * 21 + 10
    b.gce_event(
        culprit.node, t, "compute.instances.hostError", "Instance terminated by Compute Engine."
    )
    survivors = [p for i, p in enumerate(pods) if i != 97]
    heartbeat_cascade(b, survivors, t + 101, [97], coordinator=pods[0])
    restart_event(b, js, t + 106, f"{js}-slice-job-1")
    sigterm(b, survivors[::5], t + 107)
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "host-error",
            [culprit.node],
            [("crash", "host-error", culprit.node)],
            "128 tasks, 64 per slice: task:97 = slice 1, worker 33 = slice-job-1-33. Its VM had a "
            "Compute Engine host error; the 127 survivors then aborted (SIGABRT from the coordination "
            "fatal) and the JobSet restarted naming slice-job-1. The SIGABRT lines are the cascade.",
        ),
    )


def inc06_headless_address(folder: Path) -> None:
    """Session master on worker 0 names worker 6 by its headless-service address."""
    b = Bundle(806)
    js = "mixtral-ft"
    pods = jobset_pods(b, js, "slice-job", 1, 16, "v6e-pool", dotted=True)
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(pods):
        startup(b, pod, 12 + k * 0.1, k, 16, coord)
        steps(b, pod, 150, 1, 6, 8.4)
    leader, culprit = pods[0], pods[6]
    address = f"{js}-slice-job-0-6.{js}:8471"
    t = 150 + 6 * 8.4 + 4
    b.container(
        leader,
        t,
        glog(
            "W",
            t,
            914,
            "session_master.cc:539",
            f"The task with address {address} missed 1 health checks.The most recent health check "
            "failed with the following error: UNAVAILABLE: failed to connect to all addresses; last "
            "error: UNKNOWN: ipv4:10.64.7.19:8471: Failed to connect to remote host: Connection "
            "refused",
        ),
        "WARNING",
    )
    b.container(
        leader,
        t + 10,
        glog(
            "E",
            t + 10,
            915,
            "session_master.cc:505",
            "Session is failing with the following status: Session master detected TPU session error "
            f"from worker {address}. The reporting TPU chip locations are:tpu12:pe1:0,",
        ),
        "ERROR",
    )
    b.container(
        leader,
        t + 10.1,
        glog(
            "E",
            t + 10.1,
            915,
            "tpunetd_client.cc:311",
            "Detected failure SLICE_FAILURE_CHIP_DRIVER_ERROR in session 3f1b0e6a9c442d71; Start "
            "failure handling",
        ),
        "ERROR",
    )
    heartbeat_cascade(b, [p for i, p in enumerate(pods) if i != 6], t + 100, [6], leader)
    restart_event(b, js, t + 105, f"{js}-slice-job-0")
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "slice-failure",
            [culprit.node],
            [("crash", "slice-failure", culprit.node)],
            "The slice-failure lines are printed on worker 0 (session master) but NAME worker "
            f"{address}, i.e. pod slice-job-0-6; task:6 in the cascade agrees. The culprit is "
            "slice-job-0-6's node, not worker 0's.",
        ),
    )


def inc07_worker_hostnames(folder: Path) -> None:
    """Init barrier names task:2; TPU_WORKER_HOSTNAMES says task 2 is slice-job-0-2, stuck pulling."""
    b = Bundle(807)
    js = "vit-probe"
    pods = jobset_pods(b, js, "slice-job", 1, 4, "v5e-pool")
    hosts = ",".join(f"{js}-slice-job-0-{c}.{js}" for c in range(4))
    culprit = pods[2]
    for c, pod in enumerate(pods):
        if c == 2:
            continue
        b.container(pod, 20 + c, f"TPU_WORKER_HOSTNAMES={hosts} TPU_WORKER_ID={c}")
        b.container(
            pod, 22 + c, f"Connecting to JAX distributed service on {js}-slice-job-0-0.{js}:8482"
        )
    b.pod_event(
        culprit,
        15,
        "Pulling",
        'Pulling image "us-docker.pkg.dev/ml-research-prod/train/vit:2025-03-04b"',
    )
    b.pod_event(
        culprit,
        48,
        "Failed",
        'Failed to pull image "us-docker.pkg.dev/ml-research-prod/train/vit:2025-03-04b"'
        ': rpc error: code = NotFound desc = failed to pull and unpack image "us-docker.'
        'pkg.dev/ml-research-prod/train/vit:2025-03-04b": not found',
        "Warning",
    )
    b.pod_event(culprit, 49, "Failed", "Error: ErrImagePull", "Warning")
    for n in range(4):
        b.pod_event(
            culprit,
            70 + n * 60,
            "BackOff",
            'Back-off pulling image "us-docker.pkg.dev/ml-research-prod/train/vit:2025-03-04b"',
            "Normal",
        )
    for c, pod in enumerate(pods):
        if c == 2:
            continue
        b.container(
            pod,
            82 + c,
            "UserWarning: TPU backend initialization is taking more than "
            "60.0 seconds. Did you run your code on all TPU hosts? See https://jax."
            "readthedocs.io/en/latest/multi_process.html for more information.",
            "WARNING",
        )
        b.container(
            pod,
            322 + c,
            "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: "
            "Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names: "
            f"{task_name(2)}",
            "ERROR",
        )
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "image-pull-failure",
            [culprit.node],
            [("scheduling", "image-pull-failure", culprit.node)],
            "Three hosts wait at PjRT_Client_Connect for task:2; by TPU_WORKER_HOSTNAMES task 2 is "
            "slice-job-0-2, whose image tag does not exist (NotFound) on its node.",
        ),
    )


def inc08_same_node_two_attempts(folder: Path) -> None:
    """Attempt 0: task 3 OOM on node X. Attempt 1: node X now hosts task 1 and segfaults."""
    b = Bundle(808)
    js = "t5x-pt"
    first = jobset_pods(b, js, "slice-job", 1, 4, "v5p-pool", attempt=0)
    bad = first[3].node
    order = [first[0].node, first[3].node, first[2].node, first[1].node]
    second = jobset_pods(b, js, "slice-job", 1, 4, "v5p-pool", attempt=1, nodes=order)
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(first):
        startup(b, pod, 10, k, 4, coord)
        steps(b, pod, 60, 1, 8, 12.0)
    t = 60 + 8 * 12 + 2
    b.node_event(
        bad,
        t,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 2291 (python3) total-vm:"
        "402113228kB, anon-rss:388112044kB, file-rss:81220kB",
        "kernel-monitor",
    )
    heartbeat_cascade(b, first[:3], t + 100, [3], first[0])
    restart_event(b, js, t + 103, f"{js}-slice-job-0")
    sigterm(b, first[:3], t + 104)
    t2 = t + 300
    for k, pod in enumerate(second):
        startup(b, pod, t2, k, 4, coord)
        steps(b, pod, t2 + 60, 9, 12, 12.0)
    t3 = t2 + 60 + 4 * 12 + 1
    segfault(b, second[1], t3)
    heartbeat_cascade(b, [second[0], second[2], second[3]], t3 + 100, [1], second[0])
    restart_event(b, js, t3 + 102, f"{js}-slice-job-0")
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "process-segfault",
            [bad],
            [("crash", "host-oom-killed", bad), ("crash", "process-segfault", bad)],
            "Attempt 0: slice-job-0-3 on node X was OOM-killed (cgroup), cascades name task:3. After "
            "the restart the pods were placed differently: node X now runs slice-job-0-1, which "
            "segfaulted; cascades name task:1. Both disruptions land on the same node X (a bad host is "
            "suspect); task ids alone would point at two different nodes."
            " Relabelled to the headline contract (#14): the second attempt's segfault ended the run, so the headline is process-segfault (on the same node X).",
        ),
    )


def inc09_two_roots_one_second(folder: Path) -> None:
    """A caught, non-fatal HBM OOM on task 2 and, 0.5 s later, a fatal SIGSEGV on task 5."""
    b = Bundle(809)
    js = "llm-eval-pt"
    pods = jobset_pods(b, js, "slice-job", 1, 8, "v5p-pool")
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(pods):
        startup(b, pod, 10, k, 8, coord)
        steps(b, pod, 40, 1, 10, 10.0)
    t = 40 + 10 * 10 + 1
    noisy, culprit = pods[2], pods[5]
    b.lines(
        noisy,
        t,
        [
            "WARNING:absl:eval step skipped for batch 118 (will retry with smaller micro-batch): "
            "XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
            "allocate 6.12G. That was not possible. There are 4.07G free.; (0x0x0_HBM0)",
        ],
        "WARNING",
    )
    b.container(noisy, t + 0.2, "eval micro-batch reduced 32 -> 16", stream="stdout")
    segfault(b, culprit, t + 0.5)
    steps(b, noisy, t + 3, 11, 12, 10.0)
    heartbeat_cascade(b, [p for i, p in enumerate(pods) if i != 5], t + 100.5, [5], pods[0])
    restart_event(b, js, t + 104, f"{js}-slice-job-0")
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "process-segfault",
            [culprit.node],
            [("crash", "process-segfault", culprit.node)],
            "Two root-looking lines within a second: task 2's HBM allocation error was caught (eval "
            "retried with a smaller batch and task 2 kept logging steps); task 5 segfaulted and the "
            "cascades name only task:5. Root = task 5's segfault.",
        ),
    )


def inc10_evicted_pod_renamed(folder: Path) -> None:
    """Indexed Job: trainer-3-A evicted on node X, replaced by trainer-3-B on node Y; cascades say task:3."""
    b = Bundle(810)
    job = "trainer"
    group = f"{b.rng.getrandbits(32):08x}"
    pods = [
        Pod(
            f"{job}-{i}-{pod_suffix(b.rng)}",
            node_name("v5e-pool", group, b.rng),
            {
                "batch.kubernetes.io/job-completion-index": str(i),
                "batch.kubernetes.io/job-name": job,
            },
            container="trainer",
        )
        for i in range(8)
    ]
    spare = node_name("v5e-pool", group, b.rng)
    coord = f"{job}-0.{job}-svc:8482"
    for i, pod in enumerate(pods):
        startup(b, pod, 10, i, 8, coord)
        steps(b, pod, 50, 1, 7, 15.0)
    old = pods[3]
    t = 50 + 7 * 15 + 3
    b.pod_event(
        old,
        t,
        "Evicted",
        "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, "
        "available: 8123Mi. Container trainer was using 92Gi, request is 0, has larger "
        "consumption of ephemeral-storage. ",
        "Warning",
    )
    b.pod_event(old, t + 1, "Killing", "Stopping container trainer")
    new = Pod(f"{job}-3-{pod_suffix(b.rng)}", spare, dict(old.labels), container="trainer")
    b.pod_event(
        new,
        t + 8,
        "Scheduled",
        f"Successfully assigned default/{new.name} to {spare}",
        component="default-scheduler",
    )
    startup(b, new, t + 40, 3, 8, coord)
    heartbeat_cascade(b, [p for i, p in enumerate(pods) if i != 3], t + 100, [3], pods[0])
    b.write(
        folder,
        expected(
            job,
            "diagnosed",
            "pod-evicted-node-pressure",
            [old.node],
            [("eviction", "pod-evicted-node-pressure", old.node)],
            "Task 3's first pod was evicted for ephemeral storage on node X; the Job replaced it with "
            "a new pod (new name) on node Y. The cascades naming task:3 refer to the evicted "
            "incarnation, so the culprit is node X, not the replacement's node Y.",
        ),
    )


def inc11_multislice_megascale_host(folder: Path) -> None:
    """4 slices x 4 hosts; the Megascale digest names the pod host name of slice 3 worker 1."""
    b = Bundle(811)
    js = "palm-ms"
    pods = jobset_pods(b, js, "slice-job", 4, 4, "v6e-pool", dotted=True)
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(pods):
        startup(b, pod, 10 + k * 0.1, k, 16, coord)
        steps(b, pod, 80, 1, 5, 17.5)
    leader, culprit = pods[0], pods[13]
    t = 80 + 5 * 17.5 + 300
    for pod in pods:
        b.container(
            pod,
            t + b.rng.uniform(0, 2),
            glog(
                "E",
                t,
                812,
                "megascale_hang_detector.cc:221",
                "Megascale hang detected: Timed out waiting for 4 graphs to complete at launch_id "
                "612. Already completed: 88. StepGloballyInProgress: true. Timeout: 5m",
            ),
            "ERROR",
        )
    b.lines(
        leader,
        t + 20,
        [
            "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts. "
            "Please remove the hosts from the fleet and restart the workload. If problem persists "
            "please contact Megascale XLA team.",
            f"The host that have bad TPUs are: {js}-slice-job-3-1",
            "Potential cause: Bad TPU chips",
        ],
        "ERROR",
    )
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "megascale-hang-bad-chip",
            [culprit.node],
            [("hang", "megascale-hang-bad-chip", culprit.node)],
            "The digest is printed by slice 0 worker 0 but names host palm-ms-slice-job-3-1 (a pod "
            "host name = task 13 = slice 3 x 4 + worker 1); the culprit is that pod's node.",
        ),
    )


def inc12_pathways_maintenance(folder: Path) -> None:
    """Pathways: the head sees DATA_LOSS; a worker of slice 1 lost its VM to host maintenance."""
    b = Bundle(812)
    js = "pw-train"
    cpu_group = f"{b.rng.getrandbits(32):08x}"
    head = Pod(
        f"{js}-pathways-head-0-0-{pod_suffix(b.rng)}",
        node_name("cpu-np", cpu_group, b.rng),
        jobset_labels(js, "pathways-head", 0, 0, 0, False),
        container="jax-tpu",
    )
    workers = jobset_pods(b, js, "worker", 2, 4, "v5p-np")
    for w in workers:
        w.container = "pathways-worker"
        b.container(
            w, 30, glog("I", 30, 1, "server_lib.cc:1473", "Pathways Server serving on [::]:29001")
        )
    b.container(
        head,
        50,
        glog("I", 50, 1, "multi_job_allocator.cc:1063", "*** 2/2 Pathways Slices Now Ready ***"),
    )
    steps(b, head, 100, 1, 20, 9.0)
    culprit = workers[6]
    t = 100 + 20 * 9 + 4
    b.gce_event(
        culprit.node,
        t,
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    b.lines(
        head,
        t + 25,
        [
            "Traceback (most recent call last):",
            '  File "/app/train.py", line 311, in train_loop',
            "    state, metrics = p_train_step(state, batch)",
            "jax.errors.JaxRuntimeError: DATA_LOSS: Slice 1 is unavailable: worker "
            f"{js}-worker-1-2.{js}:29001 is not reachable",
        ],
        "ERROR",
    )
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "host-maintenance",
            [culprit.node],
            [("preemption", "host-maintenance", culprit.node)],
            "The head (CPU node) sees DATA_LOSS naming worker-1-2; that Pathways worker's VM was "
            "terminated for host maintenance seconds earlier. The head is not the culprit.",
        ),
    )


def inc13_driver_task0_oom(folder: Path) -> None:
    """Driver counted first is the coordinator; it is OOM-killed; workers lose the leader."""
    b = Bundle(813)
    js = "grpo-rl"
    driver, pods = driver_workers(b, js, 4)
    coord = f"{js}-driver-0-0.{js}:8482"
    startup(b, driver, 9, 0, 5, coord)
    for c, pod in enumerate(pods):
        startup(b, pod, 10 + c * 0.2, c + 1, 5, coord)
        steps(b, pod, 60, 1, 11, 13.0)
    t = 60 + 11 * 13 + 2
    b.node_event(
        driver.node,
        t,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 57 (python) total-vm:71220012kB, "
        "anon-rss:62110392kB, file-rss:10220kB",
        "kernel-monitor",
    )
    leader_lost(b, pods, t + 12)
    restart_event(b, js, t + 20, f"{js}-driver-0")
    b.write(
        folder,
        expected(
            js,
            "diagnosed",
            "host-oom-killed",
            [driver.node],
            [("crash", "host-oom-killed", driver.node)],
            "The driver (CPU pod) joins jax.distributed as process 0 and hosts the coordination "
            "service. It was OOM-killed; the four TPU workers then lost the leader. Task 0 is the "
            "driver's CPU node, not workers-0-0.",
        ),
    )


def inc14_healthy_big_noisy(folder: Path) -> None:
    """64 hosts, healthy: slow first init, corrected CPER, benign proxy warning, no failure."""
    b = Bundle(814)
    js = "llm-pretrain-64"
    pods = jobset_pods(b, js, "slice-job", 1, 64, "v5p-pool")
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(pods):
        startup(b, pod, 10 + k * 0.05, k, 64, coord)
        if k % 8 == 3:
            b.container(
                pod,
                75,
                "UserWarning: TPU backend initialization is taking more than "
                "60.0 seconds. Did you run your code on all TPU hosts? See https://jax."
                "readthedocs.io/en/latest/multi_process.html for more information.",
                "WARNING",
            )
    for k in range(0, 64, 4):
        steps(b, pods[k], 140, 1, 6, 19.0)
    b.node_event(
        pods[17].node,
        200,
        "CperHardwareErrorCorrected",
        "[Hardware Error]: event severity: corrected",
        "kernel-monitor",
    )
    b.container(
        pods[0],
        160,
        "Checkpoint manager: saving step 5 to gs://ml-research-prod-ckpt/llm-pretrain-64/5 (async)",
        stream="stdout",
    )
    b.container(
        pods[0],
        172,
        "Finished asynchronous save (blocking + background) in 11.82 "
        "seconds to gs://ml-research-prod-ckpt/llm-pretrain-64/5",
        stream="stdout",
    )
    b.write(
        folder,
        expected(
            js,
            "no_failure",
            None,
            [],
            [],
            "Slow first TPU init on some hosts resolved by itself (all 64 hosts then log steps); a "
            "corrected CPER is informational; checkpoint saved. Nothing failed.",
        ),
    )


def inc15_driver_first_silent(folder: Path) -> None:
    """Driver counted first; task:4 (= workers-0-3) goes silent; workers-0-4 is the wrong guess."""
    b = Bundle(815)
    js = "sft-mix"
    driver, pods = driver_workers(b, js, 6, dotted=True)
    coord = f"{js}-driver-0-0.{js}:8482"
    startup(b, driver, 9, 0, 7, coord)
    for c, pod in enumerate(pods):
        startup(b, pod, 10 + c * 0.2, c + 1, 7, coord)
        steps(b, pod, 100, 1, 15 if c != 3 else 13, 10.5)
    culprit = pods[3]
    t = 100 + 13 * 10.5 + 100
    heartbeat_cascade(b, [driver, *pods[:3], *pods[4:]], t, [4], coordinator=driver)
    restart_event(b, js, t + 4, f"{js}-workers-0")
    b.write(
        folder,
        expected(
            js,
            "inconclusive",
            None,
            [culprit.node],
            [("crash", None, culprit.node)],
            "The driver joins jax.distributed as process 0, so workers-0-c is task c+1 and task:4 is "
            "workers-0-3 (which stopped logging after step 13). No root line anywhere: inconclusive, "
            "pointing at workers-0-3's node — not workers-0-4's, which completion index 4 suggests."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its coordination-heartbeat-cascade lines stay in its evidence).",
        ),
    )


def inc16_multislice_silent_reshuffled(folder: Path) -> None:
    """4x4 multislice restarted once; in attempt 1 task:13 runs on a different node, then vanishes."""
    b = Bundle(816)
    js = "ul2-ms"
    first = jobset_pods(b, js, "slice-job", 4, 4, "v5e-pool", attempt=0)
    nodes = [p.node for p in first]
    # slice 3's nodes are handed to its pods in a different order after the restart
    nodes[12:16] = [nodes[15], nodes[14], nodes[12], nodes[13]]
    second = jobset_pods(b, js, "slice-job", 4, 4, "v5e-pool", attempt=1, nodes=nodes)
    coord = f"{js}-slice-job-0-0.{js}:8482"
    for k, pod in enumerate(first):
        startup(b, pod, 10, k, 16, coord)
        steps(b, pod, 60, 1, 4, 16.0)
    t = 60 + 4 * 16 + 3
    b.gce_event(first[6].node, t, "compute.instances.preempted", "Instance was preempted.")
    heartbeat_cascade(b, first[:6] + first[7:], t + 100, [6], first[0])
    restart_event(b, js, t + 104, f"{js}-slice-job-1")
    sigterm(b, first[:6] + first[7:], t + 105)
    t2 = t + 400
    for k, pod in enumerate(second):
        startup(b, pod, t2, k, 16, coord)
        steps(b, pod, t2 + 60, 5, 9 if k != 13 else 7, 16.0)
    culprit = second[13]
    t3 = t2 + 60 + 3 * 16 + 100
    heartbeat_cascade(b, second[:13] + second[14:], t3, [13], second[0])
    restart_event(b, js, t3 + 4, f"{js}-slice-job-3")
    b.write(
        folder,
        expected(
            js,
            "inconclusive",
            None,
            [culprit.node],
            [
                ("preemption", "spot-preemption", first[6].node),
                ("crash", None, culprit.node),
            ],
            "Disruption 1: task:6 (slice 1, worker 2) lost its Spot VM. Disruption 2 (restart "
            "attempt 1): cascades name task:13 = slice 3 worker 1, whose attempt-1 pod runs on a "
            "different node than slice-job-3-1 did in attempt 0; no root line for it, so that row is "
            "the cascade and its host is the attempt-1 node. Root cause = first disruption's."
            " Relabelled to the headline contract (#14): the second disruption ended the run and has no root line, so the run is inconclusive: no root cause, its culprit the host the cascades point to, its row's symptom null (the Spot preemption stays row 1).",
        ),
    )


INCIDENTS = {
    "01-driver-workers-silent-task": inc01_driver_workers_silent,
    "02-driver-first-kernel-error": inc02_driver_first_kernel,
    "03-indexed-job-node-oom": inc03_indexed_job_oom,
    "04-lws-leader-spot": inc04_lws_leader_preempted,
    "05-big128-host-error": inc05_big128_task97,
    "06-headless-address-slice-failure": inc06_headless_address,
    "07-worker-hostnames-image-pull": inc07_worker_hostnames,
    "08-same-node-two-attempts": inc08_same_node_two_attempts,
    "09-two-roots-one-second": inc09_two_roots_one_second,
    "10-evicted-pod-renamed": inc10_evicted_pod_renamed,
    "11-multislice-megascale-host": inc11_multislice_megascale_host,
    "12-pathways-worker-maintenance": inc12_pathways_maintenance,
    "13-driver-task0-oom": inc13_driver_task0_oom,
    "14-healthy-big-noisy": inc14_healthy_big_noisy,
    "15-driver-first-silent-task": inc15_driver_first_silent,
    "16-multislice-silent-reshuffled": inc16_multislice_silent_reshuffled,
}


def main() -> None:
    for name, build in INCIDENTS.items():
        build(HERE / name)


if __name__ == "__main__":
    main()
