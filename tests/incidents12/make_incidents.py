"""Deterministic generator of the round-12 held-out incidents (`python make_incidents.py [OUT_DIR]`).

Ten root modes were drawn with `random.Random(1212).sample(<root ids of TAXONOMY.md>, 10)`; each
incident below is written by hand for one of them, at a random scale, log layout and label
spelling, with one benign line from another failure family on a host that kept training.
Lines follow the real wording quoted in /work/shared/reference/tpu-failure-modes.md, with
natural variation (pids, times, names, sizes).
"""

from __future__ import annotations

import gzip
import json
import random
import string
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "tpu-research-prod"
ZONE = "us-east5-a"
REGION = "us-east5"


def _rand_hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _rand_alnum(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(n))


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"


def _glog(t: datetime, level: str, pid: int, where: str, text: str) -> str:
    """A glog/absl line prefix as libtpu and XLA print it."""
    return f"{level}{t:%m%d %H:%M:%S.%f} {pid:>8} {where}] {text}"


@dataclass
class Host:
    slice_index: int
    worker: int
    task: int
    node: str
    pod: str
    pid: int


@dataclass
class Incident:
    """One scenario being built: cluster shape, naming and the entries written so far."""

    name: str
    workload: str
    rng: random.Random
    slices: int
    hosts_per_slice: int
    start: datetime
    pool_kind: str = "tpu-v5p"
    dotted_labels: bool = False
    replicated_job: str = "slice-job"
    cluster: str = "tpu-cluster"
    namespace: str = "default"
    container: str = "jax-tpu"
    entries: list[dict[str, Any]] = field(default_factory=list)
    hosts: list[Host] = field(default_factory=list)

    def __post_init__(self) -> None:
        for j in range(self.slices):
            pool_hex = _rand_hex(self.rng, 8)
            for c in range(self.hosts_per_slice):
                node = f"gke-{self.cluster}-{self.pool_kind}-s{j}-{pool_hex}-{_rand_alnum(self.rng, 4)}"
                pod = f"{self.workload}-{self.replicated_job}-{j}-{c}-{_rand_alnum(self.rng, 5)}"
                task = j * self.hosts_per_slice + c
                self.hosts.append(Host(j, c, task, node, pod, self.rng.randint(7, 4000)))

    # --- entry shapes -------------------------------------------------------------------
    def _id(self) -> str:
        return _rand_alnum(self.rng, 16)

    def pod_labels(self, host: Host, restart: int = 0) -> dict[str, str]:
        prefix = (
            "k8s-pod/jobset.sigs.k8s.io/" if self.dotted_labels else "k8s-pod/jobset_sigs_k8s_io/"
        )
        return {
            "compute.googleapis.com/resource_name": host.node,
            prefix + "jobset-name": self.workload,
            prefix + "replicatedjob-name": self.replicated_job,
            prefix + "job-index": str(host.slice_index),
            prefix + "restart-attempt": str(restart),
            "k8s-pod/batch_kubernetes_io/job-completion-index": str(host.worker),
            "k8s-pod/xpk_google_com/workload": self.workload,
        }

    def log(
        self,
        t: datetime,
        host: Host,
        text: str,
        severity: str = "INFO",
        stream: str = "stderr",
        container: Optional[str] = None,
        restart: int = 0,
    ) -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/{stream}",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                        "namespace_name": self.namespace,
                        "pod_name": host.pod,
                        "container_name": container or self.container,
                    },
                },
                "timestamp": _stamp(t),
                "receiveTimestamp": _stamp(t + timedelta(seconds=1.3)),
                "severity": severity,
                "textPayload": text,
                "labels": self.pod_labels(host, restart),
            }
        )

    def system_log(
        self, t: datetime, node: str, pod: str, container: str, text: str, severity: str = "ERROR"
    ) -> None:
        """A kube-system container (device plugin) on a node."""
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/stderr",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                        "namespace_name": "kube-system",
                        "pod_name": pod,
                        "container_name": container,
                    },
                },
                "timestamp": _stamp(t),
                "severity": severity,
                "textPayload": text,
                "labels": {
                    "compute.googleapis.com/resource_name": node,
                    "k8s-pod/k8s-app": container,
                },
            }
        )

    def pod_event(
        self,
        t: datetime,
        host: Host,
        reason: str,
        message: str,
        kind: str = "Warning",
        component: str = "kubelet",
    ) -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_pod",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                        "namespace_name": self.namespace,
                        "pod_name": host.pod,
                    },
                },
                "timestamp": _stamp(t),
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "apiVersion": "v1",
                    "kind": "Event",
                    "reason": reason,
                    "message": message,
                    "type": kind,
                    "involvedObject": {
                        "kind": "Pod",
                        "name": host.pod,
                        "namespace": self.namespace,
                    },
                    "source": {"component": component, "host": host.node},
                },
            }
        )

    def pending_pod_event(
        self, t: datetime, pod: str, reason: str, message: str, component: str = "default-scheduler"
    ) -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_pod",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                        "namespace_name": self.namespace,
                        "pod_name": pod,
                    },
                },
                "timestamp": _stamp(t),
                "severity": "WARNING",
                "jsonPayload": {
                    "reason": reason,
                    "message": message,
                    "type": "Warning",
                    "involvedObject": {"kind": "Pod", "name": pod, "namespace": self.namespace},
                    "source": {"component": component},
                },
            }
        )

    def node_event(
        self,
        t: datetime,
        node: str,
        reason: str,
        message: str,
        component: str,
        kind: str = "Warning",
    ) -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_node",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                        "node_name": node,
                    },
                },
                "timestamp": _stamp(t),
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "reason": reason,
                    "message": message,
                    "type": kind,
                    "involvedObject": {"kind": "Node", "name": node},
                    "source": {"component": component, "host": node},
                },
            }
        )

    def jobset_event(self, t: datetime, reason: str, message: str) -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                    },
                },
                "timestamp": _stamp(t),
                "severity": "WARNING",
                "jsonPayload": {
                    "reason": reason,
                    "message": message,
                    "type": "Warning",
                    "involvedObject": {
                        "kind": "JobSet",
                        "name": self.workload,
                        "namespace": self.namespace,
                        "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    },
                    "source": {"component": "jobset-controller-manager"},
                },
            }
        )

    def job_event(self, t: datetime, job: str, reason: str, message: str) -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": self.cluster,
                    },
                },
                "timestamp": _stamp(t),
                "severity": "WARNING",
                "jsonPayload": {
                    "reason": reason,
                    "message": message,
                    "type": "Warning",
                    "involvedObject": {"kind": "Job", "name": job, "namespace": self.namespace},
                    "source": {"component": "job-controller"},
                },
            }
        )

    def gce_event(self, t: datetime, node: str, method: str) -> None:
        self.entries.append(
            {
                "insertId": f"-{_rand_alnum(self.rng, 12)}",
                "severity": "INFO",
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": ZONE,
                        "instance_id": str(self.rng.randint(10**18, 10**19)),
                    },
                },
                "timestamp": _stamp(t),
                "operation": {
                    "id": f"systemevent-{self.rng.randint(10**12, 10**13)}",
                    "producer": method,
                    "first": True,
                    "last": True,
                },
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "status": {"message": "Instance terminated by Compute Engine."},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{node}",
                    "request": {"@type": "type.googleapis.com/compute.instances.hostError"},
                },
            }
        )

    # --- common stretches of a run --------------------------------------------------------
    def job_name(self, host: Host) -> str:
        return f"{self.workload}-{self.replicated_job}-{host.slice_index}"

    def startup(self, t: datetime, restart: int = 0) -> datetime:
        for h in self.hosts:
            dt = timedelta(seconds=self.rng.uniform(0, 4))
            self.log(
                t + dt,
                h,
                f"Starting {self.workload} on worker {h.task} "
                f"(slice {h.slice_index}, host {h.worker})",
                stream="stdout",
                restart=restart,
            )
            self.log(
                t + dt + timedelta(seconds=6),
                h,
                _glog(
                    t + dt + timedelta(seconds=6),
                    "I",
                    h.pid,
                    "coordination_service_agent.cc:371",
                    "Coordination agent has successfully connected.",
                ),
                restart=restart,
            )
        return t + timedelta(seconds=40)

    def steps(
        self,
        t: datetime,
        first: int,
        count: int,
        every: float = 11.0,
        hosts: Optional[list[Host]] = None,
        restart: int = 0,
    ) -> datetime:
        """Step lines: MaxText-style on task 0 only, a per-host throughput line on the others."""
        for i in range(count):
            s = first + i
            when = t + timedelta(seconds=i * every)
            for h in hosts or self.hosts:
                if h.task == 0:
                    loss = 2.9 - 0.0004 * s + self.rng.uniform(-0.02, 0.02)
                    self.log(
                        when,
                        h,
                        f"completed step: {s}, seconds: {every - 0.2:.3f}, "
                        f"TFLOP/s/device: {self.rng.uniform(180, 195):.3f}, "
                        f"Tokens/s/device: {self.rng.uniform(3900, 4100):.3f}, "
                        f"total_weights: 524288, loss: {loss:.3f}",
                        stream="stdout",
                        restart=restart,
                    )
                elif i % 4 == 0:
                    self.log(
                        when + timedelta(milliseconds=self.rng.randint(1, 900)),
                        h,
                        f"step {s}: host {h.task} input pipeline queue 32/32",
                        stream="stdout",
                        restart=restart,
                    )
        return t + timedelta(seconds=count * every)

    def heartbeat_cascade(self, t: datetime, dead: Host, restart: int = 0) -> None:
        """What the survivors print once task `dead` stopped heart-beating."""
        leader = self.hosts[0]
        if dead is not leader:
            self.log(
                t,
                leader,
                _glog(
                    t,
                    "E",
                    leader.pid,
                    "coordination_service.cc:617",
                    f"Task /job:jax_worker/replica:0/task:{dead.task} heartbeat timeout. This "
                    "indicates that the remote task has failed, got preempted, or crashed "
                    "unexpectedly. Check the task logs for an earlier error or scheduler events "
                    "(e.g. preemption, eviction) to debug further.",
                ),
                "ERROR",
                restart=restart,
            )
        for h in self.hosts:
            if h is dead:
                continue
            when = t + timedelta(seconds=self.rng.uniform(0.5, 3))
            self.log(
                when,
                h,
                _glog(
                    when,
                    "E",
                    h.pid,
                    "coordination_service_agent.cc:332",
                    "Polled an error from coordination service (this can be an error from this "
                    "or another task).",
                ),
                "ERROR",
                restart=restart,
            )
            self.log(
                when,
                h,
                _glog(
                    when,
                    "F",
                    h.pid,
                    "client.h:77",
                    "Terminating process because the JAX distributed service detected fatal "
                    "errors. This most likely indicates that another task died; see the other "
                    "task logs for more details. Disable Python buffering, i.e. `python -u`, to "
                    "be sure to see all the previous output. absl::Status: UNAVAILABLE: The "
                    "following tasks are unhealthy (stopped sending heartbeats):\n"
                    f"/job:jax_worker/replica:0/task:{dead.task}\nThe tasks have crashed. Check "
                    "the task logs for an earlier error, or scheduler events (e.g. preemption, "
                    "eviction) to debug further.",
                ),
                "CRITICAL",
                restart=restart,
            )
            self.log(
                when,
                h,
                f"*** SIGABRT received by PID {h.pid} (TID {h.pid}) on cpu "
                f"{self.rng.randint(0, 200)} from PID {h.pid}; stack trace: ***",
                "ERROR",
                restart=restart,
            )

    def leader_lost(self, t: datetime, leader: Host) -> None:
        """What the other tasks print once task 0 (the coordination service) is gone."""
        for h in self.hosts:
            if h is leader:
                continue
            when = t + timedelta(seconds=self.rng.uniform(0.2, 2))
            self.log(
                when,
                h,
                _glog(
                    when,
                    "F",
                    h.pid,
                    "client.h:77",
                    "Terminating process because the JAX distributed service detected fatal "
                    "errors. This most likely indicates that another task died; see the other "
                    "task logs for more details. absl::Status: UNAVAILABLE: Failed to send RPC to "
                    "coordination service. Either the leader task was preempted/died/restarted "
                    "unexpectedly or this task is experiencing network issues. Check earlier logs "
                    "from 1) this task, 2) the leader (usually slice 0 task 0), and 3) cluster "
                    "scheduler to debug further.\nAdditional GRPC error information from remote "
                    "target coordination_service while calling /tensorflow.CoordinationService/"
                    'PollForError:\n:UNKNOWN:Error received from peer  {grpc_message:"Socket '
                    'closed", grpc_status:14}',
                ),
                "CRITICAL",
            )

    def jobset_restart(self, t: datetime, first_failed: Host, attempt: int) -> None:
        self.jobset_event(
            t,
            "RestartJobSetFailurePolicyAction",
            "applying RestartJobSet failure policy action (first failed job: "
            f"{self.job_name(first_failed)})",
        )
        for h in self.hosts:
            when = t + timedelta(seconds=self.rng.uniform(0.5, 2))
            self.pod_event(when, h, "Killing", f"Stopping container {self.container}", "Normal")
        del attempt

    def fail_job(self, t: datetime, host: Host, code: int) -> None:
        self.job_event(
            t,
            self.job_name(host),
            "PodFailurePolicy",
            f"Container {self.container} for pod {self.namespace}/{host.pod} failed with "
            f"exit code {code} matching FailJob rule at index 0",
        )
        self.jobset_event(
            t + timedelta(seconds=1),
            "FailJobSetFailurePolicyAction",
            f"applying FailJobSet failure policy action (first failed job: {self.job_name(host)})",
        )

    def other(self, exclude: list[Host]) -> Host:
        return self.rng.choice([h for h in self.hosts if h not in exclude])

    # --- output ---------------------------------------------------------------------------
    def write(self, out: Path, expected: dict[str, Any], layout: str) -> int:
        folder = out / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("logs.*"):
            old.unlink()
        entries = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        if layout == "array":
            data = json.dumps(entries, indent=2).encode()
            (folder / "logs.json").write_bytes(data)
        elif layout == "jsonl":
            data = "".join(json.dumps(e) + "\n" for e in reversed(entries)).encode()
            (folder / "logs.jsonl").write_bytes(data)
        else:
            data = gzip.compress(json.dumps(entries).encode(), mtime=0)
            (folder / "logs.json.gz").write_bytes(data)
        expected = {"workload": self.workload, **expected}
        (folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
        return len(entries)


def _new(name: str, seed: int, workload: str, **kw: Any) -> Incident:
    rng = random.Random(seed)
    slices = kw.pop("slices", rng.randint(1, 8))
    hosts = kw.pop("hosts_per_slice", rng.choice([1, 2, 4, 8, 16]))
    start = datetime(
        2026, 3, rng.randint(1, 28), rng.randint(0, 22), rng.randint(0, 59), tzinfo=timezone.utc
    )
    return Incident(
        name, workload, rng, slices, hosts, start, dotted_labels=rng.random() < 0.5, **kw
    )


def failure(kind: str, symptom: str, host: Optional[str]) -> dict[str, Any]:
    return {"kind": kind, "symptom": symptom, "host": host}


# --- the ten incidents ------------------------------------------------------------------------
def slice_failure() -> tuple[Incident, dict[str, Any]]:
    inc = _new(
        "01-slice-failure-chip-driver",
        1201,
        "gemma-ft-v6e",
        slices=1,
        hosts_per_slice=4,
        pool_kind="tpu-v6e",
    )
    t = inc.startup(inc.start)
    t = inc.steps(t, 0, 25)
    bad = inc.hosts[2]
    leader = inc.hosts[0]
    # Benign: one missed health check of a healthy worker that answered the next probe.
    ok = inc.hosts[3]
    w = t - timedelta(seconds=90)
    inc.log(
        w,
        leader,
        _glog(
            w,
            "W",
            leader.pid,
            "session_master.cc:539",
            f"The task with address {inc.workload}-slice-job-0-{ok.worker}.{inc.workload}:8471 "
            "missed 1 health checks.The most recent health check failed with the following error: "
            "DEADLINE_EXCEEDED: Deadline Exceeded",
        ),
        "WARNING",
    )
    addr = f"{inc.workload}-slice-job-0-{bad.worker}.{inc.workload}:8471"
    inc.log(
        t,
        leader,
        _glog(
            t,
            "W",
            leader.pid,
            "session_master.cc:539",
            f"The task with address {addr} missed 3 health checks.The most recent health check "
            "failed with the following error: UNAVAILABLE: failed to connect to all addresses; last "
            "error: UNKNOWN: ipv4:10.8.3.17:8471: Failed to connect to remote host: Connection "
            "refused",
        ),
        "WARNING",
    )
    t2 = t + timedelta(milliseconds=210)
    inc.log(
        t2,
        leader,
        _glog(
            t2,
            "E",
            leader.pid + 1,
            "session_master.cc:505",
            "Session is failing with the following status: Session master detected TPU session "
            f"error from worker {addr}. The reporting TPU chip locations are:tpu7:pe1:2,",
        ),
        "ERROR",
    )
    inc.log(
        t2,
        leader,
        _glog(
            t2,
            "E",
            leader.pid + 1,
            "tpunetd_client.cc:311",
            f"Detected failure SLICE_FAILURE_CHIP_DRIVER_ERROR in session {_rand_hex(inc.rng, 16)}; "
            "Start failure handling",
        ),
        "ERROR",
    )
    t3 = t2 + timedelta(seconds=4)
    for h in inc.hosts:
        if h is bad:
            continue
        inc.log(
            t3,
            h,
            "jax.errors.JaxRuntimeError: INTERNAL: Slice failure detected; all pending "
            "programs have been cancelled.",
            "ERROR",
        )
        inc.log(
            t3,
            h,
            f"*** SIGABRT received by PID {h.pid} (TID {h.pid}) on cpu 3 from PID "
            f"{h.pid}; stack trace: ***",
            "ERROR",
        )
    inc.jobset_restart(t3 + timedelta(seconds=6), leader, 1)
    t4 = inc.startup(t3 + timedelta(seconds=90), restart=1)
    inc.steps(t4, 20, 8, restart=1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "slice-failure",
        "culprit_hosts": [bad.node],
        "failures": [failure("crash", "slice-failure", bad.node)],
        "why": "Worker 0's session master names the worker at slice-job-0-2 (headless-svc name) as the "
        "one that missed health checks and reported the TPU session error, then "
        "SLICE_FAILURE_CHIP_DRIVER_ERROR; the node running pod slice-job-0-2 is the culprit, "
        "not worker 0 which printed the lines. The single missed health check of worker 3 "
        "earlier recovered and is benign. The JobSet restart is the consequence.",
    }


def hlo_mismatch() -> tuple[Incident, dict[str, Any]]:
    inc = _new("02-megascale-hlo-mismatch", 1202, "mixtral-pt", slices=3, hosts_per_slice=2)
    t = inc.startup(inc.start)
    t = inc.steps(t, 0, 12)
    odd = inc.hosts[5]  # slice 2 worker 1 ran a differently traced program
    leader = inc.hosts[0]
    # Benign: a GCS 429 on the dataset reader that the client retried successfully.
    d = inc.hosts[3]
    w = t - timedelta(seconds=50)
    inc.log(
        w,
        d,
        "WARNING:absl:Retrying GCS read of gs://mixtral-data/shards/train-00417 after "
        "HTTP response code 429 (attempt 1 of 10); succeeded on attempt 2",
        "WARNING",
    )
    hang = t + timedelta(minutes=5)
    text = (
        "Megascale detects a hang that is likely caused by inconsistent HLO module compilation "
        "across workers. Please make sure all workers run the same program (same flags, same "
        "jax/libtpu versions, deterministic tracing).\nPotential cause: INCONSISTENT_TPU_PROGRAM\n"
        f"Potential culprit workers: {inc.workload}-slice-job-2-1\n"
        "Fingerprint of the program on slice 2 worker 1 differs from the other 5 workers."
    )
    inc.log(
        hang, leader, _glog(hang, "E", leader.pid, "rapid_eye_hang_detector.cc:412", text), "ERROR"
    )
    inc.log(
        hang,
        leader,
        "Timed out waiting for 1 graphs to complete on 6 workers; launch ids: [48211]",
        "ERROR",
    )
    end = hang + timedelta(seconds=8)
    for h in inc.hosts:
        inc.log(
            end,
            h,
            f"*** SIGTERM received by PID {h.pid} (TID {h.pid}) on cpu 11 from PID 1; "
            "stack trace: ***",
            "ERROR",
        )
    inc.jobset_restart(end - timedelta(seconds=2), leader, 1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "megascale-hang-hlo-mismatch",
        "culprit_hosts": [odd.node],
        "failures": [failure("hang", "megascale-hang-hlo-mismatch", odd.node)],
        "why": "The Megascale digest on slice 0 worker 0 says inconsistent HLO module compilation "
        "(INCONSISTENT_TPU_PROGRAM) and names slice-job-2-1 as the potential culprit worker, "
        "whose program fingerprint differs; that worker's node is where to look (its program "
        "differs), not the coordinator that printed the digest. The GCS 429 retry on another "
        "host succeeded and is benign.",
    }


def kernel_hw() -> tuple[Incident, dict[str, Any]]:
    inc = _new("03-kernel-mce-then-notready", 1203, "llama3-70b", slices=2, hosts_per_slice=8)
    t = inc.startup(inc.start)
    t = inc.steps(t, 1000, 15)
    bad = inc.hosts[11]
    inc.node_event(
        t,
        bad.node,
        "CperHardwareErrorFatal",
        "kernel: {1}[Hardware Error]: event severity: fatal",
        "kernel-monitor",
    )
    inc.node_event(
        t + timedelta(seconds=1),
        bad.node,
        "KernelOops",
        "kernel: BUG: unable to handle kernel NULL pointer dereference at 0000000000000048",
        "kernel-monitor",
    )
    # Benign: a device-plugin check on a healthy node that found its device the next round.
    calm = inc.other([bad, inc.hosts[0]])
    inc.system_log(
        t - timedelta(minutes=2),
        calm.node,
        f"tpu-device-plugin-{_rand_alnum(inc.rng, 5)}",
        "tpu-device-plugin",
        "health check: device /dev/vfio/3 re-enumerated after driver reload, marking Healthy",
        "INFO",
    )
    nr = t + timedelta(seconds=48)
    inc.node_event(
        nr,
        bad.node,
        "NodeNotReady",
        f"Node {bad.node} status is now: NodeNotReady",
        "node-controller",
    )
    inc.heartbeat_cascade(t + timedelta(seconds=100), bad)
    inc.jobset_restart(t + timedelta(seconds=110), inc.hosts[0], 1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "kernel-hardware-error",
        "culprit_hosts": [bad.node],
        "failures": [failure("crash", "kernel-hardware-error", bad.node)],
        "why": "node-problem-detector reports a fatal CPER hardware error and a kernel oops on one "
        "node, which then goes NotReady (a symptom); 100 s later every other task dies "
        "naming that host's task as the one that stopped heart-beating. The JobSet restart "
        "names slice-job-0 only because its pods aborted first. The device-plugin INFO line "
        "on another node is benign.",
    }


def gcs_429() -> tuple[Incident, dict[str, Any]]:
    inc = _new("04-gcs-429-checkpoint-save", 1204, "t5x-xxl", slices=1, hosts_per_slice=4)
    t = inc.startup(inc.start)
    t = inc.steps(t, 4990, 10)
    bad = inc.hosts[0]
    # Benign: a liveness probe timeout on another pod that passed the next probe.
    calm = inc.hosts[2]
    inc.pod_event(
        t - timedelta(minutes=1),
        calm,
        "Unhealthy",
        'Liveness probe failed: Get "http://10.8.1.9:8080/healthz": context deadline '
        "exceeded (Client.Timeout exceeded while awaiting headers)",
    )
    inc.log(
        t,
        bad,
        "Saving checkpoint for step 5000 to gs://t5x-ckpt/xxl/checkpoints/5000",
        stream="stdout",
    )
    lines = [
        "Traceback (most recent call last):",
        '  File "/app/t5x/train.py", line 611, in <module>',
        "    checkpoint_manager.save(step, items)",
        '  File "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/checkpoint_manager.py", '
        "line 1391, in save",
        "tensorstore.AbortedError: All 10 retry attempts failed. The last failure: Error executing an "
        'HTTP request: HTTP response code 429 with body \'{"error":{"code":429,"message":"The rate '
        "of change requests to the object t5x-ckpt/xxl/checkpoints/5000/_METADATA exceeds the rate "
        "limit. Please reduce the rate of create, update, and delete requests.\"}}'",
    ]
    for i, line in enumerate(lines):
        inc.log(t + timedelta(seconds=95, milliseconds=i), bad, line, "ERROR")
    inc.leader_lost(t + timedelta(seconds=96), bad)
    inc.fail_job(t + timedelta(seconds=97), bad, 1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "gcs-throttling",
        "culprit_hosts": [bad.node],
        "failures": [failure("crash", "gcs-throttling", bad.node)],
        "why": "Task 0 writes the checkpoint metadata; every retry hit HTTP 429 (object mutation rate "
        "limit) and the Python exception exited 1, which XPK's podFailurePolicy turns into "
        "FailJob/FailJobSet at once (no restart). The other tasks lost the leader (leader-lost cascade pointing at task 0). The "
        "single liveness-probe timeout on another pod passed on the next probe and is benign."
        " The disruption is a crash (exit 1, job failed at once), not a hang, although the wiki page says failure_kind hang.",
    }


def process_abort() -> tuple[Incident, dict[str, Any]]:
    inc = _new("05-check-failed-abort", 1205, "palm-sft", slices=1, hosts_per_slice=8)
    t = inc.startup(inc.start)
    t = inc.steps(t, 300, 20)
    bad = inc.hosts[5]
    # Benign: a corrected CPER record on a healthy node.
    calm = inc.other([bad])
    inc.node_event(
        t - timedelta(minutes=3),
        calm.node,
        "CperHardwareErrorCorrected",
        "kernel: {2}[Hardware Error]: event severity: corrected",
        "kernel-monitor",
    )
    inc.log(
        t,
        bad,
        _glog(
            t,
            "F",
            bad.pid,
            "hlo_sharding_util.cc:2285",
            "Check failed: sharding.IsTiled() && sharding.TiledDataRank() == 2 (0 vs. 1)",
        ),
        "CRITICAL",
    )
    inc.log(t, bad, "*** Check failure stack trace: ***", "CRITICAL")
    for i, frame in enumerate(
        [
            "    @     0x7f3a9c2d1e44  absl::log_internal::LogMessage::SendToLog()",
            "    @     0x7f3a9c2d1ab9  absl::log_internal::LogMessageFatal::~LogMessageFatal()",
            "    @     0x7f3a8e10f3c2  xla::hlo_sharding_util::ReshapeSharding()",
        ]
    ):
        inc.log(t + timedelta(milliseconds=i + 1), bad, frame, "CRITICAL")
    inc.log(
        t + timedelta(milliseconds=9),
        bad,
        f"*** SIGABRT received by PID {bad.pid} (TID "
        f"{bad.pid}) on cpu 44 from PID {bad.pid}; stack trace: ***",
        "ERROR",
    )
    inc.heartbeat_cascade(t + timedelta(seconds=101), bad)
    inc.jobset_restart(t + timedelta(seconds=2), bad, 1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "process-abort",
        "culprit_hosts": [bad.node],
        "failures": [failure("crash", "process-abort", bad.node)],
        "why": "One task hits an XLA `Check failed` and aborts; the JobSet restart names its job and "
        "100 s later the others print the heartbeat cascade naming its task (their own "
        "client.h:77 F-lines and SIGABRTs are cascade, not process-abort). The corrected CPER "
        "record on another node is informational.",
    }


def liveness() -> tuple[Incident, dict[str, Any]]:
    inc = _new("06-liveness-probe-during-restore", 1206, "dit-video", slices=2, hosts_per_slice=4)
    t = inc.startup(inc.start)
    t = inc.steps(t, 0, 6)
    bad = inc.hosts[6]
    # Benign: TPU backend init slow on a healthy host during startup.
    calm = inc.hosts[1]
    w = inc.start + timedelta(seconds=20)
    inc.log(
        w,
        calm,
        "UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did "
        "you run your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/"
        "multi_process.html for more information.",
        "WARNING",
    )
    for i in range(3):
        inc.pod_event(
            t + timedelta(seconds=10 * i),
            bad,
            "Unhealthy",
            "Liveness probe failed: HTTP probe failed with statuscode: 503",
        )
    k = t + timedelta(seconds=21)
    inc.pod_event(
        k,
        bad,
        "Killing",
        f"Container {inc.container} failed liveness probe, will be restarted",
        "Normal",
    )
    inc.log(
        k + timedelta(seconds=1),
        bad,
        f"*** SIGTERM received by PID {bad.pid} (TID {bad.pid}) "
        "on cpu 2 from PID 0; stack trace: ***",
        "ERROR",
    )
    r = k + timedelta(seconds=35)
    inc.log(
        r, bad, f"Starting {inc.workload} on worker {bad.task} (slice 1, host 2)", stream="stdout"
    )
    leader = inc.hosts[0]
    inc.log(
        r + timedelta(seconds=5),
        leader,
        _glog(
            r,
            "E",
            leader.pid,
            "coordination_service.cc:1160",
            f"/job:jax_worker/replica:0/task:{bad.task} unexpectedly tried to connect with a "
            "different incarnation. It has likely restarted.",
        ),
        "ERROR",
    )
    inc.log(
        r + timedelta(seconds=6),
        leader,
        _glog(
            r,
            "E",
            leader.pid,
            "coordination_service.cc:712",
            f"/job:jax_worker/replica:0/task:{bad.task} Heartbeat: Incarnation ID mismatch: expecting "
            "8813094611282340812 but got 1147302281990612230. The task has restarted and likely "
            "crashed earlier - check for any earlier errors or any scheduler events (e.g. preemption, "
            "eviction) to debug further.",
        ),
        "ERROR",
    )
    inc.heartbeat_cascade(r + timedelta(seconds=8), bad)
    inc.jobset_restart(r + timedelta(seconds=12), inc.hosts[0], 1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "liveness-probe-restart",
        "culprit_hosts": [bad.node],
        "failures": [failure("restart", "liveness-probe-restart", bad.node)],
        "why": "The kubelet restarted one container after three failed liveness probes; when it came "
        "back the coordinator saw a new incarnation of its task (cascade) and the rest of the "
        "job went down with it. The slow TPU-backend warning on another host at start-up "
        "cleared and that host trained.",
    }


def host_error() -> tuple[Incident, dict[str, Any]]:
    inc = _new("07-host-error-multislice", 1207, "grok-mini", slices=4, hosts_per_slice=2)
    t = inc.startup(inc.start)
    t = inc.steps(t, 77, 14)
    bad = inc.hosts[4]
    # Benign: an image pull retry of a sidecar on a healthy pod.
    calm = inc.other([bad])
    inc.pod_event(
        inc.start - timedelta(seconds=30),
        calm,
        "Failed",
        'Failed to pull image "us-docker.pkg.dev/cloud-tpu-images/stackdriver-agent:1.2": '
        "rpc error: code = Unavailable desc = connection reset by peer; will retry",
    )
    inc.gce_event(t, bad.node, "compute.instances.hostError")
    inc.node_event(
        t + timedelta(seconds=40),
        bad.node,
        "NodeNotReady",
        f"Node {bad.node} status is now: NodeNotReady",
        "node-controller",
    )
    inc.heartbeat_cascade(t + timedelta(seconds=100), bad)
    inc.jobset_restart(t + timedelta(seconds=103), inc.hosts[0], 1)
    t2 = inc.startup(t + timedelta(minutes=6), restart=1)
    inc.steps(t2, 60, 6, restart=1)
    return inc, {
        "status": "diagnosed",
        "root_cause": "host-error",
        "culprit_hosts": [bad.node],
        "failures": [failure("crash", "host-error", bad.node)],
        "why": "Compute Engine terminated one VM for a host error (system_event hostError); its node "
        "went NotReady and the other tasks died naming its task. After the JobSet restart "
        "the job trained again. The sidecar image pull retry before the run is unrelated.",
    }


def device_plugin() -> tuple[Incident, dict[str, Any]]:
    inc = _new(
        "08-device-plugin-device-gone",
        1208,
        "recsys-emb",
        slices=1,
        hosts_per_slice=2,
        pool_kind="tpu-v5e",
    )
    t = inc.startup(inc.start)
    t = inc.steps(t, 12000, 10)
    bad = inc.hosts[1]
    plugin = f"tpu-device-plugin-{_rand_alnum(inc.rng, 5)}"
    # Benign: Kueue's normal admission message (orchestrator family) before the run.
    inc.jobset_event(
        inc.start - timedelta(seconds=20),
        "QuotaReserved",
        "Quota reserved in ClusterQueue tpu-cq, wait time since queued was 41s",
    )
    for i in range(3):
        inc.system_log(
            t + timedelta(seconds=10 * i),
            bad.node,
            plugin,
            "tpu-device-plugin",
            f"E{t:%m%d %H:%M:%S} health_check.go:88] device /dev/vfio/{i % 2} does not exist",
        )
    c = t + timedelta(seconds=12)
    inc.log(
        c,
        bad,
        "jax.errors.JaxRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: "
        "run time error: lost connection to TPU device 1 on this host",
        "ERROR",
    )
    inc.log(c + timedelta(milliseconds=4), bad, "Process exiting with status 1", "ERROR")
    inc.fail_job(c + timedelta(seconds=2), bad, 1)
    inc.heartbeat_cascade(c + timedelta(seconds=100), bad)
    return inc, {
        "status": "diagnosed",
        "root_cause": "tpu-device-plugin-unhealthy",
        "culprit_hosts": [bad.node],
        "failures": [failure("crash", "tpu-device-plugin-unhealthy", bad.node)],
        "why": "The TPU device plugin on one node reports its vfio devices gone; the trainer on that "
        "node loses its TPU and exits 1 (FailJob, no restart) and its peer dies naming it. "
        "The Kueue QuotaReserved event is normal admission.",
    }


def pathways_proxy() -> tuple[Incident, dict[str, Any]]:
    inc = _new(
        "09-pathways-proxy-dns",
        1209,
        "pw-llm",
        slices=2,
        hosts_per_slice=4,
        replicated_job="worker",
        container="pathways-worker",
    )
    head_node = f"gke-{inc.cluster}-cpu-np-{_rand_hex(inc.rng, 8)}-{_rand_alnum(inc.rng, 4)}"
    head = Host(
        0, 0, -1, head_node, f"{inc.workload}-pathways-head-0-0-{_rand_alnum(inc.rng, 5)}", 1
    )
    t = inc.start
    for h in inc.hosts:
        inc.log(
            t + timedelta(seconds=3),
            h,
            _glog(t, "I", 1, "server_lib.cc:1473", "Pathways Server serving on [::]:29001"),
        )
    inc.log(
        t + timedelta(seconds=5),
        head,
        _glog(t, "I", 1, "server_lib.cc:1473", "Pathways Server serving on [::]:29001"),
        container="pathways-rm",
    )
    inc.log(
        t + timedelta(seconds=9),
        head,
        _glog(t, "I", 1, "multi_job_allocator.cc:1063", "*** 2/2 Pathways Slices Now Ready ***"),
        container="pathways-rm",
    )
    # Benign: a persistent-cache permission warning on a worker that fell back to local cache.
    w = inc.hosts[3]
    inc.log(
        t + timedelta(seconds=12),
        w,
        "W0000 persistent compilation cache write skipped: 403 "
        "Forbidden on gs://pw-llm-cache/xla (falling back to local cache)",
        "WARNING",
    )
    c = t + timedelta(seconds=70)
    lines = [
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 48, in <module>',
        "    jax.devices()",
        "RuntimeError: Unable to initialize backend 'proxy': UNAVAILABLE: Unable to establish "
        f"connection to ifrt_proxy server, please check provided address {inc.workload}-proxy-0-0."
        f"{inc.workload}.default.svc.cluster.local:38681'; detailed error: DNS resolution failed "
        "(set JAX_PLATFORMS='' to automatically choose an available backend)",
    ]
    for i, line in enumerate(lines):
        inc.log(c + timedelta(milliseconds=i), head, line, "ERROR", container="jax-client")
    inc.job_event(
        c + timedelta(seconds=3),
        f"{inc.workload}-pathways-head-0",
        "PodFailurePolicy",
        f"Container jax-client for pod {inc.namespace}/{head.pod} failed with exit code 1 "
        "matching FailJob rule at index 0",
    )
    inc.jobset_event(
        c + timedelta(seconds=4),
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {inc.workload}"
        "-pathways-head-0)",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "pathways-proxy-unreachable",
        "culprit_hosts": [head_node],
        "failures": [failure("crash", "pathways-proxy-unreachable", head_node)],
        "why": "Pathways RM and workers come up healthy, but the JAX client on the head pod cannot "
        "resolve the IFRT proxy address and exits 1; FailJobSet follows. The failure is "
        "reported on the head pod's node (the cause is the proxy service/DNS, not that "
        "node's hardware). The cache 403 warning on a worker fell back and is benign.",
    }


def stockout() -> tuple[Incident, dict[str, Any]]:
    inc = _new("10-stockout-multislice-pending", 1210, "maxtext-405b", slices=6, hosts_per_slice=16)
    t = inc.start
    # Slices 0-1 already exist; the autoscaler cannot create the rest.
    running = [h for h in inc.hosts if h.slice_index < 2]
    for h in running:
        inc.pod_event(
            t,
            h,
            "Scheduled",
            f"Successfully assigned {inc.namespace}/{h.pod} to {h.node}",
            "Normal",
            "default-scheduler",
        )
    pending = [h for h in inc.hosts if h.slice_index >= 2]
    for i in range(6):
        when = t + timedelta(seconds=30 + 60 * i)
        for h in pending[::8]:
            inc.pending_pod_event(
                when,
                h.pod,
                "FailedScheduling",
                f"0/{len(running) + 3} nodes are available: 3 node(s) didn't match "
                f"Pod's node affinity/selector, {len(running)} node(s) didn't have "
                "free google.com/tpu. preemption: 0/35 nodes are available: 35 "
                "Preemption is not helpful for scheduling.",
            )
        inc.pending_pod_event(
            when + timedelta(seconds=2),
            pending[0].pod,
            "NotTriggerScaleUp",
            "pod didn't trigger scale-up: 4 max node group size reached, 2 "
            "in backoff after failed scale-up",
            "cluster-autoscaler",
        )
        inc.entries.append(
            {
                "insertId": inc._id(),
                "timestamp": _stamp(when + timedelta(seconds=5)),
                "severity": "INFO",
                "logName": f"projects/{PROJECT}/logs/container.googleapis.com%2Fcluster-autoscaler-visibility",
                "resource": {
                    "type": "k8s_cluster",
                    "labels": {
                        "project_id": PROJECT,
                        "location": REGION,
                        "cluster_name": inc.cluster,
                    },
                },
                "jsonPayload": {
                    "resultInfo": {
                        "measureTime": str(1773000000 + i),
                        "results": [
                            {
                                "eventId": f"{_rand_hex(inc.rng, 8)}-{_rand_hex(inc.rng, 4)}",
                                "errorMsg": {
                                    "messageId": "scale.up.error.out.of.resources",
                                    "parameters": [
                                        f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/"
                                        f"zones/{ZONE}/instanceGroups/gke-{inc.cluster}-tpu-v5p-s"
                                        f"{2 + i % 4}-grp"
                                    ],
                                },
                            }
                        ],
                    }
                },
            }
        )
    # Benign: a retried GCS 429 while a scheduled pod pre-fetched its dataset index.
    calm = running[3]
    inc.log(
        t + timedelta(seconds=50),
        calm,
        "Waiting for all 6 slices to be scheduled before jax.distributed.initialize() ...",
        stream="stdout",
    )
    inc.log(
        t + timedelta(seconds=8),
        calm,
        "W0000 gcs_file_system.cc:214 HTTP response code 429 "
        "reading gs://maxtext-405b-data/index.json, retry 1/10 succeeded",
        "WARNING",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "capacity-stockout-or-quota",
        "culprit_hosts": [],
        "failures": [failure("scheduling", "capacity-stockout-or-quota", None)],
        "why": "Four of six slices' pods stay Pending: FailedScheduling for TPU chips is the symptom, "
        "the cluster autoscaler's scale.up.error.out.of.resources for the missing node pools "
        "is the cause (zone stockout). No host is at fault. A running pod's note that a "
        "retried GCS 429 that succeeded is benign.",
    }


INCIDENTS: list[Callable[[], tuple[Incident, dict[str, Any]]]] = [
    slice_failure,
    hlo_mismatch,
    kernel_hw,
    gcs_429,
    process_abort,
    liveness,
    host_error,
    device_plugin,
    pathways_proxy,
    stockout,
]


def main(out: Path = HERE) -> None:
    layouts = random.Random(12).choices(["array", "jsonl", "gzip"], k=len(INCIDENTS))
    for build, layout in zip(INCIDENTS, layouts):
        inc, expected = build()
        count = inc.write(out, expected, layout)
        print(f"{inc.name}: {count} entries, {layout}, {inc.slices}x{inc.hosts_per_slice}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
