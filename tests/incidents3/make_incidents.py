"""Generate the third held-out incident set (red team round 3): larger, noisier runs.

Each incident is a folder with a log bundle (a `gcloud logging read --format=json` array, newest
first, or JSONL) and `expected.json` (what a senior TPU engineer concludes). The style differs on
purpose from the earlier sets: 32–64 hosts, benign noise (step lines, checkpoint saves, retried
warnings, healthy coordination/Megascale INFO), per-host clock skew of a few seconds, entries
without insertId, duplicated entries (overlapping exports), JSON-logging pods, JobSets whose
replicated jobs are not XPK's `slice-job`, and events that only say BackOff/Killing/Unhealthy.

Deterministic: every incident seeds its own random generator from its name.

    python -m tests.incidents3.make_incidents [OUT_DIR]
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "ml-train-prod-5512"
LOCATION = "us-central2-b"
CLUSTER = "tpu-main"
ALNUM = string.ascii_lowercase + string.digits

# The real line shapes below come from /work/shared/reference/tpu-failure-modes.md (sources there).


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class Run:
    """One JobSet's logs, built entry by entry on a clock of seconds since `start`."""

    name: str
    workload: str
    slices: int
    hosts: int
    rjob: str = "slice-job"
    label_style: str = "dots"
    json_logs: bool = False
    accelerator_pool: str = "v5p"
    start: datetime = datetime(2025, 6, 12, 8, 0, 0, tzinfo=timezone.utc)
    entries: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(hashlib.sha256(self.name.encode()).hexdigest())
        self._pool_hex: dict[int, str] = {}
        self.nodes = [[self._node(s) for _ in range(self.hosts)] for s in range(self.slices)]
        self.skew = {n: self.rng.uniform(-3.0, 3.0) for row in self.nodes for n in row}
        # placement[attempt][(slice, index)] = node; attempt 0 is the identity
        self.placement: dict[int, dict[tuple[int, int], str]] = {0: self._identity()}
        self.pod_names: dict[tuple[int, int, int], str] = {}

    # -- names -------------------------------------------------------------------------------
    def _rand(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def _node(self, slice_index: int) -> str:
        pool_hex = self._pool_hex.setdefault(slice_index, self._rand(8, "0123456789abcdef"))
        return f"gke-{CLUSTER}-{self.accelerator_pool}-np-{slice_index}-{pool_hex}-{self._rand(4)}"

    def _identity(self) -> dict[tuple[int, int], str]:
        return {(s, i): self.nodes[s][i] for s in range(self.slices) for i in range(self.hosts)}

    def all_nodes(self) -> list[str]:
        return [n for row in self.nodes for n in row]

    def job(self, slice_index: int) -> str:
        return f"{self.workload}-{self.rjob}-{slice_index}"

    def pod(self, slice_index: int, index: int, attempt: int = 0) -> str:
        key = (slice_index, index, attempt)
        if key not in self.pod_names:
            self.pod_names[key] = f"{self.job(slice_index)}-{index}-{self._rand(5)}"
        return self.pod_names[key]

    def node_of(self, slice_index: int, index: int, attempt: int = 0) -> str:
        table = self.placement.get(attempt) or self.placement[0]
        return table[(slice_index, index)]

    def reshuffle(self, attempt: int, slice_index: int) -> None:
        """Attempt `attempt` places slice `slice_index`'s pods on its nodes in another order."""
        table = dict(self.placement.get(attempt - 1, self.placement[0]))
        # a rotation, so that every pod of the slice moves to another node
        shift = self.rng.randint(1, self.hosts - 1)
        for i in range(self.hosts):
            table[(slice_index, i)] = self.nodes[slice_index][(i + shift) % self.hosts]
        self.placement[attempt] = table

    def task(self, slice_index: int, index: int) -> int:
        return slice_index * self.hosts + index

    # -- clock -------------------------------------------------------------------------------
    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)

    def glog(self, level: str, seconds: float, source: str) -> str:
        """A glog prefix such as `E0612 08:10:02.123456    4123 file.cc:123] `."""
        moment = self.at(seconds)
        return f"{level}{moment:%m%d %H:%M:%S.%f} {self.rng.randint(40, 9000):>7} {source}] "

    # -- entries -----------------------------------------------------------------------------
    def _add(self, seconds: float, entry: dict[str, Any]) -> dict[str, Any]:
        moment = self.at(seconds)
        entry["timestamp"] = _stamp(moment)
        entry["insertId"] = self._rand(16)
        self.entries.append(entry)
        return entry

    def _pod_labels(self, slice_index: int, index: int, attempt: int, node: str) -> dict[str, str]:
        prefix = {
            "dots": ("jobset.sigs.k8s.io", "batch.kubernetes.io"),
            "underscores": ("jobset_sigs_k8s_io", "batch_kubernetes_io"),
        }[self.label_style]
        js, batch = prefix
        return {
            "compute.googleapis.com/resource_name": node,
            f"k8s-pod/{js}/jobset-name": self.workload,
            f"k8s-pod/{js}/replicatedjob-name": self.rjob,
            f"k8s-pod/{js}/job-index": str(slice_index),
            f"k8s-pod/{js}/restart-attempt": str(attempt),
            f"k8s-pod/{batch}/job-completion-index": str(index),
        }

    def container(
        self,
        seconds: float,
        slice_index: int,
        index: int,
        text: str,
        severity: str = "INFO",
        attempt: int = 0,
        stream: str = "stderr",
    ) -> dict[str, Any]:
        node = self.node_of(slice_index, index, attempt)
        pod = self.pod(slice_index, index, attempt)
        entry: dict[str, Any] = {
            "logName": f"projects/{PROJECT}/logs/{stream}",
            "resource": {
                "type": "k8s_container",
                "labels": {
                    "project_id": PROJECT,
                    "location": LOCATION,
                    "cluster_name": CLUSTER,
                    "namespace_name": "default",
                    "pod_name": pod,
                    "container_name": "jax-tpu",
                },
            },
            "severity": severity,
            "labels": self._pod_labels(slice_index, index, attempt, node),
        }
        if self.json_logs:
            entry["jsonPayload"] = {"message": text, "severity": severity, "logger": "train"}
        else:
            entry["textPayload"] = text
        return self._add(seconds + self.skew[node], entry)

    def lines(
        self,
        seconds: float,
        slice_index: int,
        index: int,
        text: str,
        severity: str,
        attempt: int = 0,
        gap: float = 0.001,
    ) -> None:
        """A multi-line message (stack trace) as GKE writes it: one entry per line."""
        for n, line in enumerate(text.split("\n")):
            self.container(seconds + n * gap, slice_index, index, line, severity, attempt)

    def _event(
        self,
        seconds: float,
        resource: dict[str, Any],
        reason: str,
        message: str,
        obj: dict[str, Any],
        kind: str = "Warning",
        component: str = "kubelet",
        host: Optional[str] = None,
    ) -> dict[str, Any]:
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        return self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": resource,
                "severity": "WARNING" if kind == "Warning" else "INFO",
                "jsonPayload": {
                    "kind": "Event",
                    "apiVersion": "v1",
                    "type": kind,
                    "reason": reason,
                    "message": message,
                    "involvedObject": obj,
                    "source": source,
                    "count": 1,
                },
            },
        )

    def pod_event(
        self,
        seconds: float,
        slice_index: int,
        index: int,
        reason: str,
        message: str,
        attempt: int = 0,
        kind: str = "Warning",
        component: str = "kubelet",
    ) -> None:
        pod = self.pod(slice_index, index, attempt)
        node = self.node_of(slice_index, index, attempt)
        resource = {
            "type": "k8s_pod",
            "labels": {
                "project_id": PROJECT,
                "location": LOCATION,
                "cluster_name": CLUSTER,
                "namespace_name": "default",
                "pod_name": pod,
            },
        }
        obj = {"kind": "Pod", "name": pod, "namespace": "default", "apiVersion": "v1"}
        self._event(
            seconds,
            resource,
            reason,
            message,
            obj,
            kind,
            component,
            node if component == "kubelet" else None,
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
        resource = {
            "type": "k8s_node",
            "labels": {
                "project_id": PROJECT,
                "location": LOCATION,
                "cluster_name": CLUSTER,
                "node_name": node,
            },
        }
        self._event(
            seconds,
            resource,
            reason,
            message,
            {"kind": "Node", "name": node, "uid": node},
            kind,
            component,
            node,
        )

    def object_event(
        self,
        seconds: float,
        kind_name: tuple[str, str],
        reason: str,
        message: str,
        component: str,
        kind: str = "Warning",
        api: str = "jobset.x-k8s.io/v1alpha2",
    ) -> None:
        resource = {
            "type": "k8s_cluster",
            "labels": {"project_id": PROJECT, "location": LOCATION, "cluster_name": CLUSTER},
        }
        obj = {
            "kind": kind_name[0],
            "name": kind_name[1],
            "namespace": "default",
            "apiVersion": api,
        }
        self._event(seconds, resource, reason, message, obj, kind, component)

    def gce_audit(self, seconds: float, node: str, method: str, status: str) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": LOCATION,
                        "instance_id": str(self.rng.randint(10**17, 10**18)),
                    },
                },
                "severity": "NOTICE",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "status": {"message": status},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{LOCATION}/instances/{node}",
                    "request": {"@type": f"type.googleapis.com/{method}"},
                },
            },
        )

    # -- common stories ----------------------------------------------------------------------
    def scheduled(self, seconds: float, attempt: int = 0) -> None:
        for s in range(self.slices):
            self.object_event(
                seconds,
                ("Job", self.job(s)),
                "SuccessfulCreate",
                f"Created pod: {self.pod(s, 0, attempt)}",
                "job-controller",
                "Normal",
                "batch/v1",
            )
            for i in range(self.hosts):
                self.pod_event(
                    seconds + 1 + 0.01 * i,
                    s,
                    i,
                    "Scheduled",
                    f"Successfully assigned default/{self.pod(s, i, attempt)} to {self.node_of(s, i, attempt)}",
                    attempt,
                    "Normal",
                    "default-scheduler",
                )

    def startup(self, seconds: float, attempt: int = 0, coordinator_port: int = 8482) -> None:
        """Healthy start-up chatter on every host."""
        for s in range(self.slices):
            for i in range(self.hosts):
                t = seconds + self.rng.uniform(0, 4)
                if i and self.rng.random() < 0.6:
                    continue
                self.container(
                    t,
                    s,
                    i,
                    f"jax.distributed.initialize: connecting to coordinator "
                    f"{self.workload}-{self.rjob}-0-0.{self.workload}:{coordinator_port} as process "
                    f"{self.task(s, i)} of {self.slices * self.hosts}",
                    attempt=attempt,
                )
                if self.rng.random() < 0.3:
                    self.container(
                        t + 2,
                        s,
                        i,
                        self.glog("I", t + 2, "coordination_service_agent.cc:378")
                        + "Coordination agent has successfully connected.",
                        attempt=attempt,
                    )
                if self.rng.random() < 0.3:
                    self.container(
                        t + 3, s, i, "The JAX preemption service is disabled.", "WARNING", attempt
                    )
        if self.slices > 1:
            self.container(
                seconds + 9,
                0,
                0,
                self.glog("I", seconds + 9, "megascale_client.cc:302")
                + f"Megascale: all {self.slices} slices connected over DCN; "
                f"transport initialised with {self.slices * self.hosts} peers",
                attempt=attempt,
            )

    def steps(
        self,
        seconds: float,
        first: int,
        count: int,
        every: float = 12.0,
        attempt: int = 0,
        hosts: Optional[list[tuple[int, int]]] = None,
        loss: float = 3.2,
        loss_at: Optional[Callable[[int], str]] = None,
    ) -> float:
        """Step lines; by default from worker 0 of each slice plus a few random hosts."""
        chosen = hosts or [(s, 0) for s in range(self.slices)]
        t = seconds
        for n in range(first, first + count):
            value = loss_at(n) if loss_at else f"{loss - 0.0008 * n:.3f}"
            for s, i in chosen:
                if (s, i) != (0, 0) and n % 5:
                    continue  # other hosts print the same line; keep a sample of them
                if n % 2 and n < first + count - 3:
                    continue  # the trainer logs every other step (log_period=2) but the last ones
                self.container(
                    t + self.rng.uniform(0, 0.4),
                    s,
                    i,
                    f"completed step: {n}, seconds: {every + self.rng.uniform(-0.2, 0.2):.3f}, "
                    f"TFLOP/s/device: {self.rng.uniform(180, 196):.3f}, Tokens/s/device: "
                    f"{self.rng.uniform(4100, 4300):.3f}, total_weights: 1572864, loss: {value}",
                    attempt=attempt,
                    stream="stdout",
                )
            if n and n % 50 == 0:
                self.checkpoint(t + 1, n, attempt)
            if self.rng.random() < 0.15:
                s = self.rng.randrange(self.slices)
                i = self.rng.randrange(self.hosts)
                self.container(t + 2, s, i, self.rng.choice(BENIGN), "WARNING", attempt)
            t += every
        return t

    def checkpoint(self, seconds: float, step: int, attempt: int = 0) -> None:
        for s in range(self.slices):
            self.container(
                seconds,
                s,
                0,
                f"Started an asynchronous checkpoint save for step {step} to "
                f"gs://{self.workload}-ckpt/checkpoints/{step}",
                attempt=attempt,
            )
        self.container(
            seconds + 30,
            0,
            0,
            f"Finished asynchronous save (blocking + background) in 29.71 seconds "
            f"to gs://{self.workload}-ckpt/checkpoints/{step}",
            attempt=attempt,
        )

    def heartbeat_cascade(
        self,
        seconds: float,
        dead_task: int,
        attempt: int = 0,
        skip: Optional[set[tuple[int, int]]] = None,
        split: bool = True,
    ) -> None:
        """§2.1 of the reference: task 0 notices the dead task, everyone else terminates naming it."""
        skip = skip or set()
        self.container(
            seconds,
            0,
            0,
            self.glog("E", seconds, "coordination_service.cc:1104")
            + f"Task /job:jax_worker/replica:0/task:{dead_task} heartbeat timeout. This indicates that "
            "the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs "
            "for an earlier error or scheduler events (e.g. preemption, eviction) to debug further.",
            "ERROR",
            attempt,
        )
        for s in range(self.slices):
            for i in range(self.hosts):
                if (s, i) in skip:
                    continue
                t = seconds + self.rng.uniform(0.5, 3.0)
                if self.rng.random() < 0.25:
                    self.container(
                        t,
                        s,
                        i,
                        self.glog("E", t, "coordination_service_agent.cc:332")
                        + "Polled an error from coordination service (this can be an error from this or "
                        "another task).",
                        "ERROR",
                        attempt,
                    )
                head = (
                    self.glog("F", t + 0.001, "client.h:77")
                    + "Terminating process because the JAX distributed service detected fatal errors. This "
                    "most likely indicates that another task died; see the other task logs for more details. "
                    "Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. "
                    "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):"
                )
                tail = (
                    f"/job:jax_worker/replica:0/task:{dead_task}\nThe tasks have crashed. Check the task logs "
                    "for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further."
                )
                if split and self.rng.random() < 0.4:
                    self.lines(t + 0.001, s, i, head + "\n" + tail, "CRITICAL", attempt)
                else:
                    self.container(t + 0.001, s, i, head + "\n" + tail, "CRITICAL", attempt)

    def jobset_restart(
        self,
        seconds: float,
        first_failed_slice: int,
        attempt_killed: int,
        skip: Optional[set[tuple[int, int]]] = None,
    ) -> None:
        self.object_event(
            seconds,
            ("JobSet", self.workload),
            "RestartJobSetFailurePolicyAction",
            f"applying RestartJobSet failure policy action (first failed job: "
            f"{self.job(first_failed_slice)})",
            "jobset-controller",
        )
        skip = skip or set()
        for s in range(self.slices):
            for i in range(self.hosts):
                if (s, i) in skip or self.rng.random() < 0.6:
                    continue
                self.pod_event(
                    seconds + 1,
                    s,
                    i,
                    "Killing",
                    "Stopping container jax-tpu",
                    attempt_killed,
                    "Normal",
                )

    def noise(self, seconds: float, span: float, count: int, attempt: int = 0) -> None:
        for _ in range(count):
            t = seconds + self.rng.uniform(0, span)
            s, i = self.rng.randrange(self.slices), self.rng.randrange(self.hosts)
            text = self.rng.choice(INFO_NOISE)
            self.container(t, s, i, text, "INFO", attempt)

    # -- output ------------------------------------------------------------------------------
    def write(
        self,
        folder: Path,
        expected: dict[str, Any],
        *,
        jsonl: bool = False,
        duplicates: float = 0.0,
        drop_insert_id: float = 0.0,
    ) -> None:
        entries = list(self.entries)
        for entry in list(entries):
            if self.rng.random() < drop_insert_id:
                entry.pop("insertId", None)
        entries += [dict(e) for e in entries if self.rng.random() < duplicates]
        entries.sort(key=lambda e: (e["timestamp"], e.get("insertId", "")), reverse=True)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("logs.*"):
            old.unlink()
        if jsonl:
            text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)
            (folder / "logs.jsonl").write_text(text, encoding="utf-8")
        else:
            (folder / "logs.json").write_text(
                json.dumps(entries, separators=(",", ":")), encoding="utf-8"
            )
        (folder / "expected.json").write_text(
            json.dumps(expected, indent=2) + "\n", encoding="utf-8"
        )


BENIGN = [
    "Retrying google.cloud.storage.blob.Blob.reload in 1.3 seconds as it raised ServiceUnavailable: 503 GET "
    "https://storage.googleapis.com/storage/v1/b/train-data/o/shard-00412: Backend Error",
    "WARNING:urllib3.connectionpool:Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) "
    "after connection broken by 'ProtocolError('Connection aborted.', RemoteDisconnected('Remote end closed "
    "connection without response'))': /metadata/v1/instance/attributes/",
    "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
    "tpunetd either not supported or disabled, falling back to Slice Builder",
    "Input pipeline: prefetch buffer refilled after 0.84s wait (shard 17/256)",
]
INFO_NOISE = [
    "Grain: DataLoader worker 3 read 4096 records from gs://train-data/c4/en/3.0.1/c4-train.array_record-00117",
    "metrics: step_time_ema=12.04s hbm_peak_gib=81.2 host_rss_gib=143.7",
    "goodput: productive_time=0.972 badput(data_loading)=0.011",
    "I/O: tokenizer cache hit ratio 0.998",
    "Megascale: DCN collective latency p50=1.8ms p99=7.4ms (healthy)",
    "coordination_service_agent: heartbeat ok (interval 10s)",
]


def expected(
    run: Run,
    status: str,
    root: Optional[str],
    culprits: list[str],
    failures: list[tuple[str, Optional[str], Optional[str]]],
    why: str,
) -> dict[str, Any]:
    return {
        "workload": run.workload,
        "status": status,
        "root_cause": root,
        "culprit_hosts": sorted(culprits),
        "failures": [{"kind": k, "symptom": s, "host": h} for k, s, h in failures],
        "why": why,
    }


INCIDENTS: dict[str, Callable[[Path], None]] = {}


def incident(fn: Callable[[Path], None]) -> Callable[[Path], None]:
    INCIDENTS[fn.__name__.replace("_", "-")] = fn
    return fn


def _killed_by_restart(run: Run, t: float, attempt: int, skip: set[tuple[int, int]]) -> None:
    """A few healthy pods print the SIGTERM the JobSet restart sends them."""
    for s in range(run.slices):
        for i in range(run.hosts):
            if (s, i) not in skip and run.rng.random() < 0.15:
                run.container(
                    t + run.rng.uniform(0, 2),
                    s,
                    i,
                    f"*** SIGTERM received by PID {run.rng.randint(7, 90)} (TID {run.rng.randint(7, 90)}) "
                    f"on cpu {run.rng.randint(0, 200)} from PID 0; stack trace: ***",
                    "ERROR",
                    attempt,
                )


@incident
def preempt_64host_jsonl(out: Path) -> None:
    run = Run("preempt-64host-jsonl", "gpt-pretrain-64", slices=4, hosts=16)
    run.scheduled(0)
    run.startup(20)
    t = run.steps(120, 1, 25, hosts=[(s, 0) for s in range(4)] + [(1, 7)])
    run.noise(100, t - 100, 50)
    victim = run.nodes[2][5]
    run.gce_audit(t + 5, victim, "compute.instances.preempted", "Instance was preempted.")
    run.pod_event(
        t + 6, 2, 5, "Terminated", "Pod was terminated in response to imminent node shutdown."
    )
    run.node_event(t + 50, victim, "NodeNotReady", f"Node {victim} status is now: NodeNotReady")
    run.heartbeat_cascade(t + 106, run.task(2, 5), skip={(2, 5)})
    run.jobset_restart(t + 112, 2, 0, skip={(2, 5)})
    run.scheduled(t + 180, 1)
    run.startup(t + 200, 1)
    run.steps(t + 300, 41, 12, attempt=1)
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "spot-preemption",
            [victim],
            [("preemption", "spot-preemption", victim)],
            "GCE preempted one Spot VM of slice 2; the heartbeat cascade names its task (2*16+5=37) and the "
            "JobSet restart names slice-job-2. Infra event on the named host wins.",
        ),
        jsonl=True,
        drop_insert_id=0.05,
    )


@incident
def hostoom_then_maintenance(out: Path) -> None:
    run = Run("hostoom-then-maintenance", "llama-ft", slices=2, hosts=16, label_style="underscores")
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 30, hosts=[(0, 0), (1, 0), (1, 9)])
    run.noise(90, t - 90, 40)
    oom = run.node_of(1, 9)
    run.container(t, 1, 9, "Loading data shard 0412 into host memory buffer (prefetch=64)")
    run.node_event(
        t + 4,
        oom,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 18834 (python3) total-vm:498126332kB, "
        "anon-rss:421877120kB, file-rss:1536kB, shmem-rss:0kB, UID:0 pgtables:903412kB oom_score_adj:-997",
        "kernel-monitor",
    )
    run.heartbeat_cascade(t + 104, run.task(1, 9), skip={(1, 9)})
    run.jobset_restart(t + 110, 1, 0, skip={(1, 9)})
    _killed_by_restart(run, t + 111, 0, {(1, 9)})
    run.scheduled(t + 170, 1)
    run.startup(t + 190, 1)
    t2 = run.steps(t + 300, 31, 20, attempt=1, hosts=[(0, 0), (1, 0)])
    run.noise(t + 300, t2 - t - 300, 30, 1)
    maint = run.node_of(0, 3, 1)
    run.node_event(
        t2 - 600,
        maint,
        "NodeScheduledMaintenance",
        f"Node {maint} has scheduled maintenance; taint cloud.google.com/impending-node-termination "
        "will be applied",
        "gke-maintenance-handler",
        "Normal",
    )
    run.gce_audit(
        t2 + 3,
        maint,
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    run.pod_event(
        t2 + 4, 0, 3, "Terminated", "Pod was terminated in response to imminent node shutdown.", 1
    )
    run.heartbeat_cascade(t2 + 104, run.task(0, 3), 1, skip={(0, 3)})
    run.jobset_restart(t2 + 110, 0, 1, skip={(0, 3)})
    run.scheduled(t2 + 200, 2)
    run.startup(t2 + 215, 2)
    run.steps(t2 + 330, 71, 5, attempt=2)
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "host-oom-killed",
            [oom],
            [("crash", "host-oom-killed", oom), ("preemption", "host-maintenance", maint)],
            "Two disruptions: the kernel OOM-killed the trainer on the host of task 25 (cascade names it, "
            "first failed job slice-job-1); after the restart a host-maintenance termination took out task 3's VM."
            " Relabelled to the headline contract (#14): training went on after both disruptions, so the headline is the first's and only its host is a culprit (the maintenance row keeps its own).",
        ),
        duplicates=0.04,
    )


@incident
def hosterror_audit_hours_before(out: Path) -> None:
    run = Run("hosterror-audit-hours-before", "mt-7b-trainer", slices=2, hosts=16, rjob="trainer")
    run.scheduled(0)
    run.startup(15)
    t = run.steps(90, 1, 25, hosts=[(0, 0), (1, 0)], every=30)
    victim = run.node_of(1, 12)
    run.gce_audit(
        t, victim, "compute.instances.hostError", "Instance terminated by Compute Engine."
    )
    run.heartbeat_cascade(t + 101, run.task(1, 12), skip={(1, 12)})
    run.jobset_restart(t + 108, 1, 0, skip={(1, 12)})
    run.scheduled(t + 400, 1)
    run.startup(t + 420, 1)
    # hours of healthy training after the restart
    t2 = run.steps(t + 600, 26, 60, attempt=1, hosts=[(0, 0)], every=180)
    run.noise(t + 600, t2 - t - 600, 60, 1)
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "host-error",
            [victim],
            [("crash", "host-error", victim)],
            "The VM of task 28 (trainer-1, index 12) died of a host error; its container wrote nothing. The only "
            "trace is the GCE system_event entry ~3 hours before the bundle ends; cascades name task 28.",
        ),
        drop_insert_id=0.03,
    )


@incident
def segfault_task_replaced(out: Path) -> None:
    run = Run("segfault-task-replaced", "dlrm-xl", slices=2, hosts=16, rjob="workers")
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 20, hosts=[(0, 0), (1, 0)])
    first = run.node_of(0, 5)
    trace = (
        "*** SIGSEGV (@(nil)), see gl__________41#s15 received by PID 2191 (TID 2907) on cpu 61; stack trace: ***\n"
        "PC: @     0x7f3a91c2e1b4  (unknown)  tpu::TpuExecutor::EnqueueInfeed()\n"
        "    @     0x7f3a8e21b9f0       1024  (unknown)\n"
        "    @     0x7f3ab1a0f520  (unknown)  (unknown)\n"
        "https://symbolize.stripped_domain/r/?trace=7f3a91c2e1b4,7f3ab1a0f520&map=\n"
        "E0612 08:05:12.881 2907 process_state.cc:1133] RAW: Raising signal 11 with default behavior"
    )
    run.lines(t, 0, 5, trace, "ERROR")
    run.heartbeat_cascade(t + 102, 5, skip={(0, 5)})
    run.jobset_restart(t + 108, 0, 0, skip={(0, 5)})
    run.reshuffle(1, 0)
    run.scheduled(t + 160, 1)
    run.startup(t + 180, 1)
    t2 = run.steps(t + 300, 21, 15, attempt=1, hosts=[(0, 0), (1, 0)])
    second = run.node_of(0, 5, 1)
    run.lines(t2, 0, 5, trace.replace("2191", "2244").replace("2907", "3011"), "ERROR", 1)
    run.heartbeat_cascade(t2 + 101, 5, 1, skip={(0, 5)})
    run.jobset_restart(t2 + 107, 0, 1, skip={(0, 5)})
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "process-segfault",
            [second],
            [("crash", "process-segfault", first), ("crash", "process-segfault", second)],
            "Task 5 segfaulted twice; after the first restart its pod (restart-attempt 1) landed on another node "
            "of the slice, so the second cascade's task:5 points to the new node, not the old pod's."
            " Relabelled to the headline contract (#14): the second segfault ended the run, so only its node (the task's attempt-1 node) is the culprit; each row keeps its own host.",
        ),
    )


@incident
def pathways_head_reports_worker(out: Path) -> None:
    run = Run("pathways-head-reports-worker", "pw-gemma", slices=2, hosts=8, rjob="worker")
    head = Run(
        "pathways-head-reports-worker-head",
        "pw-gemma",
        slices=1,
        hosts=1,
        rjob="pathways-head",
        accelerator_pool="cpu",
    )
    head.nodes = [[f"gke-{CLUSTER}-cpu-np-a3c9e1f0-{head._rand(4)}"]]
    head.skew = {head.nodes[0][0]: 0.4}
    head.placement = {0: head._identity()}
    head.entries = run.entries  # one bundle
    head.container(
        5,
        0,
        0,
        head.glog("I", 5, "proxy_server.cc:125") + "IFRT proxy server started with status OK",
    )
    head.container(
        20,
        0,
        0,
        head.glog("I", 20, "multi_job_allocator.cc:1063") + "*** 2/2 Pathways Slices Now Ready ***",
    )
    for s in range(2):
        for i in range(8):
            run.container(
                10 + i,
                s,
                i,
                run.glog("I", 10 + i, "server_lib.cc:1473")
                + "Pathways Server serving on [::]:29001",
            )
    t = head.steps(60, 1, 30, every=20)
    head.container(
        62,
        0,
        0,
        "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
        "WARNING",
    )
    victim = run.node_of(1, 6)
    run.gce_audit(t, victim, "compute.instances.preempted", "Instance was preempted.")
    run.pod_event(
        t + 1, 1, 6, "Terminated", "Pod was terminated in response to imminent node shutdown."
    )
    head.lines(
        t + 25,
        0,
        0,
        'Traceback (most recent call last):\n  File "/app/train.py", line 412, in train_loop\n'
        "    state, metrics = p_train_step(state, batch)\n"
        "jax.errors.JaxRuntimeError: DATA_LOSS: Slice 1 of the Pathways job is unavailable: worker "
        "pw-gemma-worker-1-6.pw-gemma:29001 stopped responding; buffers on it are lost",
        "ERROR",
    )
    head.container(
        t + 27,
        0,
        0,
        head.glog("E", t + 27, "rpc_helper.cc:56")
        + "Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
        "ERROR",
    )
    run.object_event(
        t + 40,
        ("JobSet", "pw-gemma"),
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action (first failed job: pw-gemma-pathways-head-0)",
        "jobset-controller",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "spot-preemption",
            [victim],
            [("preemption", "spot-preemption", victim)],
            "The Pathways head logs DATA_LOSS for slice 1 worker 6 and the proxy session ends; the head is only the "
            "reporter. The worker's VM was preempted seconds earlier (GCE audit), which is the root.",
        ),
        duplicates=0.03,
    )


@incident
def megascale_network_digest(out: Path) -> None:
    run = Run("megascale-network-digest", "gemma-ms", slices=2, hosts=16)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 40, hosts=[(0, 0), (1, 0), (0, 11)])
    run.noise(100, t - 100, 80)
    a, b = run.node_of(0, 11), run.node_of(1, 4)
    for s in range(2):
        run.container(
            t + 300,
            s,
            0,
            run.glog("W", t + 300, "megascale_hang_detector.cc:412")
            + "Megascale hang detected: Timed out waiting for 3 graphs to complete at launch_id 4811. "
            "Already completed: 4808. StepGloballyInProgress: true. Timeout: 5m",
            "WARNING",
        )
    run.lines(
        t + 305,
        0,
        0,
        "Megascale detects a hang that is likely caused by a networking issue. Please examine the underlying "
        "networking stack for the following hosts.\nPotential cause: Networking issue\n"
        f"Potential culprit workers: {a}, {b}",
        "ERROR",
    )
    run.container(t + 306, 0, 0, "Aborting because --megascale_abort_on_hangs=true", "CRITICAL")
    run.object_event(
        t + 330,
        ("JobSet", run.workload),
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {run.job(0)})",
        "jobset-controller",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "megascale-hang-network",
            [a, b],
            [("hang", "megascale-hang-network", a)],
            "A DCN hang; the Megascale digest on slice 0 worker 0 (the reporter, not a culprit) names the two hosts "
            "of the bad link. Row host: the first named.",
        ),
        drop_insert_id=0.04,
    )


@incident
def nan_failjob_json(out: Path) -> None:
    run = Run("nan-failjob-json", "sft-moe", slices=2, hosts=16, json_logs=True)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 30, hosts=[(0, 0), (1, 0)])
    t = run.steps(
        t, 31, 3, hosts=[(0, 0), (1, 0)], loss_at=lambda n: {31: "7.912", 32: "41.07", 33: "nan"}[n]
    )
    for s in range(2):
        for i in range(16):
            run.lines(
                t + 2 + run.rng.uniform(0, 1),
                s,
                i,
                'Traceback (most recent call last):\n  File "/app/train.py", line 377, in <module>\n'
                "FloatingPointError: invalid value (nan) encountered in jit(train_step). Because "
                "jax_config.debug_nans.value and/or config.jax_debug_infs is set, the de-optimized function (i.e., "
                "the function as if the `jit` decorator were removed) was called in an attempt to get a more "
                "precise error message.",
                "ERROR",
            )
    run.pod_event(
        t + 6,
        1,
        2,
        "BackOff",
        f"Back-off restarting failed container jax-tpu in pod {run.pod(1, 2)}_default",
    )  # a kubelet BackOff flutter; Job is failing anyway
    run.object_event(
        t + 7,
        ("Job", run.job(1)),
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{run.pod(1, 2)} failed with exit code 1 matching FailJob rule "
        "at index 0",
        "job-controller",
        api="batch/v1",
    )
    run.object_event(
        t + 8,
        ("JobSet", run.workload),
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {run.job(1)})",
        "jobset-controller",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "nan-inf-loss",
            [],
            [("crash", "nan-inf-loss", None)],
            "Loss diverged to NaN; debug_nans raised FloatingPointError on every host at once (exit 1), XPK's "
            "podFailurePolicy failed the Job and the JobSet without restart. Identical on all hosts: no culprit.",
        ),
    )


@incident
def restore_fails_after_preempt(out: Path) -> None:
    run = Run("restore-fails-after-preempt", "llm-ckpt", slices=2, hosts=16)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 60, hosts=[(0, 0), (1, 0)])
    victim = run.node_of(1, 14)
    run.gce_audit(t - 20, victim, "compute.instances.preempted", "Instance was preempted.")
    run.container(
        t - 19,
        0,
        0,
        "Started an asynchronous checkpoint save for step 60 to gs://llm-ckpt-ckpt/checkpoints/60",
    )
    run.node_event(t + 20, victim, "NodeNotReady", f"Node {victim} status is now: NodeNotReady")
    run.heartbeat_cascade(t + 81, run.task(1, 14), skip={(1, 14)})
    run.jobset_restart(t + 88, 1, 0, skip={(1, 14)})
    run.scheduled(t + 200, 1)
    run.startup(t + 220, 1)
    for s in range(2):
        for i in range(16):
            run.lines(
                t + 300 + run.rng.uniform(0, 3),
                s,
                i,
                "Restoring checkpoint from gs://llm-ckpt-ckpt/checkpoints/60\n"
                'ValueError: NOT_FOUND: Error opening "ocdbt" driver: Error reading '
                '"gs://llm-ckpt-ckpt/checkpoints/60/state/manifest.ocdbt": Object does not exist',
                "ERROR",
                1,
            )
    run.object_event(
        t + 310,
        ("Job", run.job(0)),
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{run.pod(0, 0, 1)} failed with exit code 1 matching FailJob "
        "rule at index 0",
        "job-controller",
        api="batch/v1",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "checkpoint-restore-failure",
            [],
            [
                ("preemption", "spot-preemption", victim),
                ("crash", "checkpoint-restore-failure", None),
            ],
            "First disruption: Spot preemption of task 30's VM during an async save. Second: every host fails to "
            "restore the half-written step-60 checkpoint (identical everywhere, no single culprit)."
            " Relabelled to the headline contract (#14): the run ends with every host failing to restore the checkpoint at once: that common-mode disruption ended it, so the headline is checkpoint-restore-failure with no single culprit host (the preemption stays row 1).",
        ),
        jsonl=True,
    )


@incident
def gcs_429_checkpoint(out: Path) -> None:
    run = Run("gcs-429-checkpoint", "t5x-xxl", slices=2, hosts=16, label_style="underscores")
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 49, hosts=[(0, 0), (1, 0)])
    for k in range(3):  # retried-and-recovered 429s elsewhere are noise
        run.container(
            t - 400 + k * 90,
            1,
            3 + k,
            "Retrying upload of gs://t5x-xxl-ckpt/tmp/obj.part after 429 "
            "Too Many Requests (attempt 1/10)",
            "WARNING",
        )
    run.checkpoint(t, 50)
    culprit = run.node_of(0, 7)
    run.lines(
        t + 45,
        0,
        7,
        "Traceback (most recent call last):\n"
        "tensorstore.AbortedError: All 10 retry attempts failed. The last failure: Error executing an HTTP "
        'request: HTTP response code 429 with body \'{"error":{"code":429,"message":"The rate of change '
        "requests to the object t5x-xxl-ckpt/checkpoints/50/_METADATA exceeds the rate limit. Please reduce "
        "the rate of create, update, and delete requests.\"}}'",
        "ERROR",
    )
    run.object_event(
        t + 50,
        ("Job", run.job(0)),
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{run.pod(0, 7)} failed with exit code 1 matching FailJob rule "
        "at index 0",
        "job-controller",
        api="batch/v1",
    )
    run.object_event(
        t + 51,
        ("JobSet", run.workload),
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {run.job(0)})",
        "jobset-controller",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "gcs-throttling",
            [culprit],
            [("crash", "gcs-throttling", culprit)],
            "Checkpoint save on task 7 gave up after 10 retries on HTTP 429 (object mutation rate) and raised; "
            "the Job failed by FailJob. Earlier retried 429 warnings recovered and are noise.",
        ),
        duplicates=0.05,
    )


@incident
def liveness_unhealthy_only(out: Path) -> None:
    run = Run("liveness-unhealthy-only", "rl-policy", slices=2, hosts=16, rjob="trainer")
    run.scheduled(0)
    run.startup(15)
    victim = run.node_of(1, 3)
    for k, base in enumerate((400, 760)):
        for j in range(3):
            run.pod_event(
                base + 10 * j,
                1,
                3,
                "Unhealthy",
                'Liveness probe failed: Get "http://10.8.3.17:8080/healthz": context deadline exceeded',
            )
        run.pod_event(
            base + 25, 1, 3, "Killing", "Container jax-tpu failed liveness probe, will be restarted"
        )
        run.container(base + 26, 1, 3, "Compiling train_step (this can take several minutes)...")
        if k == 1:
            run.pod_event(
                base + 60,
                1,
                3,
                "BackOff",
                f"Back-off restarting failed container jax-tpu in pod "
                f"{run.pod(1, 3)}_default({run._rand(8, '0123456789abcdef')})",
            )
    for s, i in ((0, 0), (0, 9), (1, 11)):
        run.container(
            440 + i,
            s,
            i,
            run.glog("E", 440 + i, "coordination_service.cc:612")
            + f"/job:jax_worker/replica:0/task:{run.task(1, 3)} Heartbeat: Incarnation ID mismatch: expecting "
            "5120938111 but got 81723001. The task has restarted and likely crashed earlier - check for any "
            "earlier errors or any scheduler events (e.g. preemption, eviction) to debug further.",
            "ERROR",
        )
    run.noise(20, 900, 60)
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "liveness-probe-restart",
            [victim],
            [("restart", "liveness-probe-restart", victim)],
            "The compile outlasts the liveness probe on trainer-1 index 3: kubelet kills it twice (events only say "
            "Unhealthy/Killing/BackOff); peers report incarnation mismatches for task 19. No step ever completed "
            "between the kills: one disruption.",
        ),
    )


@incident
def ephemeral_eviction_json(out: Path) -> None:
    run = Run("ephemeral-eviction-json", "vit-giant", slices=2, hosts=16, json_logs=True)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 30, hosts=[(0, 0), (1, 0)])
    victim = run.node_of(0, 13)
    run.container(t - 200, 0, 13, "Dumping HLO to /tmp/xla_dump (xla_dump_to set)", "WARNING")
    run.node_event(
        t - 30, victim, "EvictionThresholdMet", "Attempting to reclaim ephemeral-storage", "kubelet"
    )
    run.pod_event(
        t,
        0,
        13,
        "Evicted",
        "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 6812Mi. "
        "Container jax-tpu was using 91Gi, request is 0, has larger consumption of ephemeral-storage. ",
    )
    run.pod_event(t + 1, 0, 13, "Killing", "Stopping container jax-tpu", kind="Normal")
    run.heartbeat_cascade(t + 102, run.task(0, 13), skip={(0, 13)})
    run.jobset_restart(t + 108, 0, 0, skip={(0, 13)})
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "pod-evicted-node-pressure",
            [victim],
            [("eviction", "pod-evicted-node-pressure", victim)],
            "XLA dumps filled the node's disk; kubelet evicted the pod of task 13; cascades name task 13.",
        ),
        drop_insert_id=0.06,
    )


@incident
def mce_then_notready(out: Path) -> None:
    run = Run("mce-then-notready", "palm-lite", slices=2, hosts=16)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 35, hosts=[(0, 0), (1, 0)])
    run.noise(100, t - 100, 30)
    victim = run.node_of(1, 1)
    run.node_event(
        t,
        victim,
        "CperHardwareErrorFatal",
        "kernel: {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0\n"
        "{1}[Hardware Error]: event severity: fatal",
        "kernel-monitor",
    )
    run.node_event(t + 45, victim, "NodeNotReady", f"Node {victim} status is now: NodeNotReady")
    run.node_event(t + 46, victim, "NodeStatusUnknown", "Kubelet stopped posting node status.")
    run.heartbeat_cascade(t + 100, run.task(1, 1), skip={(1, 1)})
    run.jobset_restart(t + 106, 1, 0, skip={(1, 1)})
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "kernel-hardware-error",
            [victim],
            [("crash", "kernel-hardware-error", victim)],
            "Fatal CPER/MCE on one node, then it went NotReady; cascades name task 17 on it.",
        ),
        duplicates=0.03,
    )


@incident
def core_halted_64host(out: Path) -> None:
    run = Run("core-halted-64host", "llm-405b", slices=1, hosts=64)
    run.scheduled(0)
    run.startup(20)
    t = run.steps(150, 1, 20, hosts=[(0, 0), (0, 17), (0, 41), (0, 63)])
    run.noise(150, t - 150, 100)
    victim = run.node_of(0, 41)
    run.lines(
        t,
        0,
        41,
        "jax.errors.JaxRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted "
        "prematurely, perhaps due to an on-device check-failure. Node 2 halted unexpectedly at tag:pc "
        "TensorCoreSequencer:1:0x1a2f (from TensorCoreSequencer:1:0x1b04): no debugging message found for this "
        "tag:pc.\n*** A program or fatal error occurred, all pending programs will fail, and results may be "
        "corrupted. This is likely an XLA compiler bug or your job hit a bad TPU hardware. Physical location: "
        "tpu2:pe1:3",
        "ERROR",
    )
    run.heartbeat_cascade(t + 101, 41, skip={(0, 41)}, split=False)
    run.jobset_restart(t + 108, 0, 0, skip={(0, 41)})
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "tpu-hardware-fault",
            [victim],
            [("crash", "tpu-hardware-fault", victim)],
            "One host of a 64-host v5p slice reports a halted TPU core; everyone else dies naming task 41.",
        ),
        jsonl=True,
    )


@incident
def vfio_busy_at_start(out: Path) -> None:
    run = Run("vfio-busy-at-start", "mx-vision", slices=2, hosts=16, rjob="workers")
    run.scheduled(0)
    victim = run.node_of(1, 10)
    run.startup(15)
    run.container(
        30,
        1,
        10,
        "jaxlib._jax.XlaRuntimeError: UNKNOWN: TPU initialization failed: open(/dev/vfio/3): "
        "Device or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/3",
        "ERROR",
    )
    run.pod_event(
        34,
        1,
        10,
        "BackOff",
        f"Back-off restarting failed container jax-tpu in pod {run.pod(1, 10)}_default",
    )
    for s in range(2):
        for i in range(0, 16, 3):
            if (s, i) != (1, 10):
                run.container(
                    80 + i,
                    s,
                    i,
                    "UserWarning: TPU backend initialization is taking more than 60.0 seconds. "
                    "Did you run your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/"
                    "multi_process.html for more information.",
                    "WARNING",
                )
    run.container(
        330,
        0,
        0,
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        f"PjRT_Client_Connect. Timed out task names: /job:jax_worker/replica:0/task:{run.task(1, 10)}",
        "ERROR",
    )
    run.object_event(
        335,
        ("JobSet", run.workload),
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {run.job(1)})",
        "jobset-controller",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "tpu-vfio-busy",
            [victim],
            [("crash", "tpu-vfio-busy", victim)],
            "A leftover process of the previous attempt still holds /dev/vfio on one node; that host never joins, "
            "the others wait at PjRT_Client_Connect naming task 26.",
        ),
    )


@incident
def libtpu_mismatch_all(out: Path) -> None:
    run = Run("libtpu-mismatch-all", "maxtext-v6e", slices=2, hosts=16, accelerator_pool="v6e")
    run.scheduled(0)
    for s in range(2):
        for i in range(16):
            t = 25 + run.rng.uniform(0, 5)
            run.container(
                t,
                s,
                i,
                run.glog("E", t, "pjrt_c_api_helpers.cc:258") + "Unexpected error status "
                "Unexpected PJRT_Plugin_Attributes_Args size: expected 40, got 32. The plugin is likely "
                "built with a later version than the framework.",
                "ERROR",
            )
            run.container(
                t + 0.2,
                s,
                i,
                "RuntimeError: Unable to initialize backend 'tpu': INTERNAL: Failed to "
                "initialize the TPU PJRT plugin (set JAX_PLATFORMS='' to automatically choose an available "
                "backend)",
                "ERROR",
            )
    run.object_event(
        40,
        ("Job", run.job(0)),
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{run.pod(0, 0)} failed with exit code 1 matching FailJob rule "
        "at index 0",
        "job-controller",
        api="batch/v1",
    )
    run.object_event(
        41,
        ("JobSet", run.workload),
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {run.job(0)})",
        "jobset-controller",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "libtpu-version-mismatch",
            [],
            [("crash", "libtpu-version-mismatch", None)],
            "The image's libtpu plugin is newer than its jaxlib: same error on all 32 hosts, no culprit host.",
        ),
        duplicates=0.05,
    )


@incident
def coordinator_abort_leader_lost(out: Path) -> None:
    run = Run("coordinator-abort-leader-lost", "ul2-trainer", slices=2, hosts=16, rjob="trainer")
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 25, hosts=[(0, 0), (1, 0)])
    victim = run.node_of(0, 0)
    run.lines(
        t,
        0,
        0,
        run.glog("F", t, "hlo_instruction.cc:2291")
        + "Check failed: operand_count() == 2 (3 vs. 2)\n*** Check failure stack trace: ***\n"
        "    @     0x7f0c3f2a8c44  absl::log_internal::LogMessageFatal::~LogMessageFatal()\n"
        "*** SIGABRT received by PID 611 (TID 1187) on cpu 12 from PID 611; stack trace: ***",
        "CRITICAL",
    )
    for s in range(2):
        for i in range(16):
            if (s, i) == (0, 0):
                continue
            tt = t + run.rng.uniform(2, 9)
            run.lines(
                tt,
                s,
                i,
                run.glog("F", tt, "client.h:77")
                + "Terminating process because the JAX distributed service detected fatal errors. This most likely "
                "indicates that another task died; see the other task logs for more details. Disable Python "
                "buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: "
                "UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was "
                "preempted/died/restarted unexpectedly or this task is experiencing network issues. Check earlier "
                "logs from 1) this task, 2) the leader (usually slice 0 task 0), and 3) cluster scheduler to debug "
                "further.\nAdditional GRPC error information from remote target coordination_service while calling "
                "/tensorflow.CoordinationService/PollForError:\n:UNKNOWN:Error received from peer  "
                '{grpc_message:"Socket closed", grpc_status:14}',
                "CRITICAL",
            )
    run.jobset_restart(t + 15, 0, 0, skip={(0, 0)})
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "process-abort",
            [victim],
            [("crash", "process-abort", victim)],
            "Task 0 (trainer-0 index 0, the coordinator) hit a Check failure and aborted; every other task reports "
            "the lost leader (cascade, points at task 0).",
        ),
        drop_insert_id=0.04,
    )


@incident
def shutdown_barrier_after_success(out: Path) -> None:
    run = Run("shutdown-barrier-after-success", "eval-sweep", slices=2, hosts=16)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 100, hosts=[(0, 0), (1, 0)])
    run.noise(100, t - 100, 40)
    run.container(
        t,
        0,
        0,
        "Training finished: 100 steps; final checkpoint written to gs://eval-sweep-ckpt/checkpoints/100",
    )
    for s, i in ((0, 4), (1, 8)):
        run.container(
            t + 40,
            s,
            i,
            run.glog("E", t + 40, "coordination_service_agent.cc:692")
            + "Shutdown barrier has failed.\nBarrier result: 'DEADLINE_EXCEEDED: Barrier timed out. Id: "
            "Shutdown::2212. # of tasks that reached the barrier: 31/32.",
            "ERROR",
        )
    for s in range(2):
        run.object_event(
            t + 70,
            ("Job", run.job(s)),
            "Completed",
            "Job completed",
            "job-controller",
            "Normal",
            "batch/v1",
        )
    run.object_event(
        t + 72,
        ("JobSet", run.workload),
        "AllJobsCompleted",
        "jobset completed",
        "jobset-controller",
        "Normal",
    )
    run.write(
        out,
        expected(
            run,
            "no_failure",
            None,
            [],
            [],
            "All 100 steps ran, the final checkpoint was written and every Job completed. The shutdown barrier "
            "timeout at teardown (one task left late) lost no work: no failure to report.",
        ),
    )


@incident
def image_pull_one_node(out: Path) -> None:
    run = Run("image-pull-one-node", "bert-mlperf", slices=2, hosts=16, label_style="underscores")
    run.scheduled(0)
    victim = run.node_of(0, 12)
    image = "us-docker.pkg.dev/ml-train-prod-5512/train/bert:2025-06-11"
    run.pod_event(
        3,
        0,
        12,
        "Failed",
        f'Failed to pull image "{image}": rpc error: code = Unknown desc = failed to '
        f'pull and unpack image "{image}": failed to resolve reference "{image}": failed to do request: '
        'Head "https://us-docker.pkg.dev/v2/...": dial tcp: lookup us-docker.pkg.dev: i/o timeout',
    )
    run.pod_event(4, 0, 12, "Failed", "Error: ErrImagePull")
    for k in range(4):
        run.pod_event(
            20 + 60 * k, 0, 12, "BackOff", f'Back-off pulling image "{image}"', kind="Normal"
        )
    run.startup(30)
    for s in range(2):
        for i in range(0, 16, 4):
            if (s, i) != (0, 12):
                run.container(
                    95 + i,
                    s,
                    i,
                    "UserWarning: TPU backend initialization is taking more than 60.0 seconds. "
                    "Did you run your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/"
                    "multi_process.html for more information.",
                    "WARNING",
                )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "image-pull-failure",
            [victim],
            [("scheduling", "image-pull-failure", victim)],
            "One node cannot reach Artifact Registry (DNS timeout), its pod stays in ImagePullBackOff and the "
            "other 31 hosts wait at TPU init. Window ends with the job still stuck.",
        ),
    )


@incident
def kueue_preemption_running(out: Path) -> None:
    run = Run("kueue-preemption-running", "research-lowpri", slices=2, hosts=16)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 40, hosts=[(0, 0), (1, 0)])
    run.object_event(
        t,
        ("Workload", f"jobset-{run.workload}-3f2a1"),
        "Preempted",
        "Preempted to accommodate a workload (UID: 7c1e2f4a-55c1-4d8e-9a63-0b9d4d7f2c11, JobUID: "
        "a3c0e8b2-0f6e-4b75-8d2e-6f1c9a7e5d40) due to prioritization in the ClusterQueue",
        "kueue-admission",
        api="kueue.x-k8s.io/v1beta1",
    )
    run.object_event(
        t + 1,
        ("JobSet", run.workload),
        "Suspended",
        "jobset suspended",
        "jobset-controller",
        "Normal",
    )
    for s in range(2):
        for i in range(16):
            run.pod_event(t + 2, s, i, "Killing", "Stopping container jax-tpu", kind="Normal")
    _killed_by_restart(run, t + 3, 0, set())
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "kueue-preemption",
            [],
            [("preemption", "kueue-preemption", None)],
            "Kueue evicted the running low-priority workload for a higher-priority one; no host is at fault.",
        ),
    )


@incident
def mldiag_warning_healthy(out: Path) -> None:
    run = Run("mldiag-warning-healthy", "profile-demo", slices=2, hosts=16, json_logs=True)
    run.scheduled(0)
    run.startup(15)
    for s in range(2):
        for i in range(16):
            run.container(
                40 + run.rng.uniform(0, 3),
                s,
                i,
                "GKE_DIAGON_IDENTIFIER environment variable not set.",
                "WARNING",
            )
    run.container(
        45,
        0,
        0,
        "Could not generate GKE workload identifier due to missing workload details. This might "
        "be because environment variables 'GKE_DIAGON_IDENTIFIER' or 'GKE_DIAGON_METADATA' are not set or "
        "are incomplete. Please ensure you are running SDK in a GKE environment with the GKE diagon operator "
        "webhook enabled.",
        "WARNING",
    )
    t = run.steps(100, 1, 60, hosts=[(0, 0), (1, 0)])
    run.noise(100, t - 100, 30)
    run.write(
        out,
        expected(
            run,
            "no_failure",
            None,
            [],
            [],
            "Training ran normally; only the ML Diagnostics SDK warns that the webhook did not inject its "
            "environment (profiling unavailable). A set-up note for next steps, not a disruption.",
        ),
    )


@incident
def healthy_48host_noisy(out: Path) -> None:
    run = Run(
        "healthy-48host-noisy",
        "c4-pretrain",
        slices=3,
        hosts=16,
        json_logs=True,
        label_style="underscores",
    )
    run.scheduled(0)
    run.startup(15)
    t = run.steps(120, 1, 70, hosts=[(0, 0), (1, 0), (2, 0)])
    run.noise(100, t - 100, 90)
    for k in range(4):
        run.container(
            300 + 150 * k,
            k % 3,
            5,
            "Retrying google.cloud.storage.blob.Blob.upload_from_file in 2.1 "
            "seconds as it raised TooManyRequests: 429 POST https://storage.googleapis.com/upload/storage/v1/"
            "b/c4-pretrain-logs/o: rate limit exceeded",
            "WARNING",
        )
    run.write(
        out,
        expected(
            run,
            "no_failure",
            None,
            [],
            [],
            "A healthy 48-host run with retried-and-recovered warnings, checkpoints and benign JAX/Pathways "
            "warnings; nothing disrupted it.",
        ),
        duplicates=0.04,
        drop_insert_id=0.04,
    )


@incident
def window_misses_root(out: Path) -> None:
    run = Run("window-misses-root", "ctx-extend", slices=2, hosts=16, rjob="trainer")
    culprit = run.node_of(0, 12)
    run.heartbeat_cascade(3, run.task(0, 12), skip={(0, 12)})
    run.jobset_restart(10, 0, 0, skip={(0, 12)})
    run.scheduled(70, 1)
    run.startup(90, 1)
    run.steps(200, 1201, 30, attempt=1, hosts=[(0, 0), (1, 0)])
    run.write(
        out,
        expected(
            run,
            "inconclusive",
            None,
            [culprit],
            [("crash", None, culprit)],
            "The bundle starts seconds after task 12 died: only the cascades naming it and the restart are in the "
            "window. No root line is visible; say inconclusive and point at task 12's node."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its coordination-heartbeat-cascade lines stay in its evidence).",
        ),
    )


@incident
def window_ends_mid_hang(out: Path) -> None:
    run = Run("window-ends-mid-hang", "gemma-27b", slices=2, hosts=16)
    run.scheduled(0)
    run.startup(15)
    t = run.steps(100, 1, 40, hosts=[(0, 0), (1, 0)])
    run.noise(100, t - 100, 30)
    bad = run.node_of(1, 7)
    run.container(
        t - 200,
        1,
        7,
        "Grain: DataLoader worker 0 read 4096 records from gs://train-data/shard-00731",
    )
    run.container(
        t + 300,
        0,
        0,
        run.glog("W", t + 300, "megascale_hang_detector.cc:412")
        + "Megascale hang detected: Timed out waiting for 2 graphs to complete at launch_id 9921. Already "
        "completed: 9919. StepGloballyInProgress: true. Timeout: 5m",
        "WARNING",
    )
    run.lines(
        t + 303,
        0,
        0,
        "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts. Please remove the "
        "hosts from the fleet and restart the workload. If problem persists please contact Megascale XLA team.\n"
        f"The host that have bad TPUs are: {bad}\nPotential cause: Bad TPU chips",
        "ERROR",
    )
    run.write(
        out,
        expected(
            run,
            "diagnosed",
            "megascale-hang-bad-chip",
            [bad],
            [("hang", "megascale-hang-bad-chip", bad)],
            "The run hangs; the digest names one host with bad chips. The bundle ends before any abort or restart.",
        ),
    )


def generate(root: Path = HERE) -> list[str]:
    for name, build in INCIDENTS.items():
        build(root / name)
    return list(INCIDENTS)


if __name__ == "__main__":
    print("\n".join(generate(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)))
