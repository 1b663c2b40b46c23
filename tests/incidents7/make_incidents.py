"""Deterministic generator of the round-7 held-out incidents (`tests/incidents7/<name>/`).

Each incident is a plausible on-call case written independently of the diagnosis code: a bundle
as `gcloud logging read --format=json` prints it (a JSON array, newest first) or as JSONL, plus
`expected.json` with what a senior TPU engineer concludes. Real line wording comes from
`/work/shared/reference/tpu-failure-modes.md` (sources cited there), with natural variation.

Run: `_wiki/.venv/bin/python tests/incidents7/make_incidents.py` (rewrites every folder).
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "acme-tpu-train"
ZONE = "us-central2-b"
CLUSTER = "ml-tpu-prod"
BENIGN = (
    "tpunetd either not supported or disabled, falling back to Slice Builder",
    "The JAX preemption service is disabled.",
    "UserWarning: Explicitly requested dtype float64 requested in zeros is not available",
)


@dataclass
class Host:
    node: str
    pod: str
    task: int
    job_index: int
    completion: int


@dataclass
class Incident:
    """One scenario being built: its entries, hosts and naming, with helpers per log shape."""

    name: str
    workload: str
    seed: int
    start: datetime
    dotted_labels: bool = True
    namespace: str = "default"
    entries: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # --- naming ---------------------------------------------------------------------------
    def token(self, n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz0123456789") -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def node_name(self, pool: str) -> str:
        return f"gke-{CLUSTER}-{pool}-{self.token(8, '0123456789abcdef')}-{self.token(4)}"

    def slice_hosts(
        self, pool: str, count: int, job_index: int = 0, rjob: str = "slice-job"
    ) -> list[Host]:
        prefix = f"gke-{CLUSTER}-{pool}-{self.token(8, '0123456789abcdef')}"
        return [
            Host(
                node=f"{prefix}-{self.token(4)}",
                pod=f"{self.workload}-{rjob}-{job_index}-{c}-{self.token(5)}",
                task=job_index * count + c,
                job_index=job_index,
                completion=c,
            )
            for c in range(count)
        ]

    def at(self, seconds: float) -> str:
        moment = self.start + timedelta(seconds=seconds)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"

    def glog_stamp(self, seconds: float) -> str:
        """The `MMDD HH:MM:SS.micros` part of a glog header for a moment of the incident."""
        return (self.start + timedelta(seconds=seconds)).strftime("%m%d %H:%M:%S.%f")

    def _add(self, seconds: float, body: dict[str, Any]) -> None:
        body.setdefault("insertId", self.token(16))
        body["timestamp"] = self.at(seconds)
        body["receiveTimestamp"] = self.at(seconds + 0.8)
        self.entries.append(body)

    # --- log shapes -----------------------------------------------------------------------
    def pod_labels(self, host: Host, restart: int, rjob: str) -> dict[str, str]:
        keys = {
            "jobset-name": self.workload,
            "replicatedjob-name": rjob,
            "job-index": str(host.job_index),
            "restart-attempt": str(restart),
        }
        sep = "." if self.dotted_labels else "_"
        labels = {f"k8s-pod/jobset{sep}sigs{sep}k8s{sep}io/{k}": v for k, v in keys.items()}
        labels[f"k8s-pod/batch{sep}kubernetes{sep}io/job-completion-index"] = str(host.completion)
        labels["compute.googleapis.com/resource_name"] = host.node
        return labels

    def log(
        self,
        seconds: float,
        host: Host,
        text: str,
        *,
        severity: str = "INFO",
        restart: int = 0,
        structured: bool = False,
        container: str = "jax-tpu",
        rjob: str = "slice-job",
    ) -> None:
        """One container line per physical line, as GKE splits a multi-line write."""
        for i, line in enumerate(text.split("\n")):
            body: dict[str, Any] = {
                "logName": f"projects/{PROJECT}/logs/{'stdout' if severity == 'INFO' else 'stderr'}",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": CLUSTER,
                        "namespace_name": self.namespace,
                        "pod_name": host.pod,
                        "container_name": container,
                    },
                },
                "severity": severity,
                "labels": self.pod_labels(host, restart, rjob),
            }
            if structured:
                body["jsonPayload"] = {"message": line, "logger": "absl", "process": 1}
            else:
                body["textPayload"] = line
            self._add(seconds + i * 0.001, body)

    def system_log(self, seconds: float, node: str, pod: str, container: str, text: str) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/stderr",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": ZONE,
                        "cluster_name": CLUSTER,
                        "namespace_name": "kube-system",
                        "pod_name": pod,
                        "container_name": container,
                    },
                },
                "severity": "ERROR",
                "textPayload": text,
                "labels": {"compute.googleapis.com/resource_name": node},
            },
        )

    def event(
        self,
        seconds: float,
        reason: str,
        message: str,
        *,
        kind: str = "Pod",
        name: str,
        host: Optional[str] = None,
        component: str = "kubelet",
        warning: bool = True,
    ) -> None:
        if kind == "Pod":
            resource = {
                "type": "k8s_pod",
                "labels": {"pod_name": name, "namespace_name": self.namespace},
            }
        elif kind == "Node":
            resource = {"type": "k8s_node", "labels": {"node_name": name}}
        else:
            resource = {"type": "k8s_cluster", "labels": {}}
        resource["labels"].update(
            {"project_id": PROJECT, "location": ZONE, "cluster_name": CLUSTER}
        )
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": resource,
                "severity": "WARNING" if warning else "INFO",
                "jsonPayload": {
                    "apiVersion": "v1",
                    "kind": "Event",
                    "type": "Warning" if warning else "Normal",
                    "reason": reason,
                    "message": message,
                    "involvedObject": {"kind": kind, "name": name, "namespace": self.namespace},
                    "source": source,
                    "reportingComponent": component,
                },
            },
        )

    def gce_audit(self, seconds: float, node: str, method: str, status: str) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": ZONE,
                        "instance_id": self.token(19, "0123456789"),
                    },
                },
                "severity": "NOTICE",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{node}",
                    "status": {"message": status},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                },
            },
        )

    def serial(self, seconds: float, node: str, text: str) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{PROJECT}/logs/serialconsole.googleapis.com%2Fserial_port_1_output",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": ZONE,
                        "instance_id": self.token(19, "0123456789"),
                    },
                },
                "severity": "DEFAULT",
                "textPayload": text,
                "labels": {"compute.googleapis.com/resource_name": node},
            },
        )

    # --- recurring stories ------------------------------------------------------------------
    def startup(
        self, seconds: float, hosts: list[Host], restart: int = 0, structured: bool = False
    ) -> None:
        for h in hosts:
            t = seconds + h.task * 0.37
            self.log(
                t,
                h,
                f"Starting JAX distributed client, process_id={h.task}",
                restart=restart,
                structured=structured,
            )
            self.log(
                t + 0.5,
                h,
                self.rng.choice(BENIGN),
                severity="WARNING",
                restart=restart,
                structured=structured,
            )
            self.log(
                t + 41.0,
                h,
                f"System Information: Jax Version: 0.6.2, Jaxlib Version: 0.6.2, Num local devices: 4, process index {h.task}",
                restart=restart,
                structured=structured,
            )

    def steps(
        self,
        seconds: float,
        host: Host,
        first: int,
        count: int,
        every: float = 12.0,
        restart: int = 0,
        structured: bool = False,
    ) -> float:
        """MaxText-style step lines on task 0; returns the time after the last one."""
        t = seconds
        for s in range(first, first + count):
            loss = 9.8 - 0.002 * s + self.rng.uniform(-0.03, 0.03)
            self.log(
                t,
                host,
                f"completed step: {s}, seconds: {every + self.rng.uniform(-0.2, 0.2):.3f}, "
                f"TFLOP/s/device: {188 + self.rng.uniform(-3, 3):.3f}, Tokens/s/device: 4211.{self.rng.randint(100, 999)}, "
                f"total_weights: 1572864, loss: {loss:.3f}",
                restart=restart,
                structured=structured,
            )
            t += every
        return t

    def heartbeat_cascade(
        self, seconds: float, survivors: list[Host], dead_task: int, restart: int = 0
    ) -> None:
        for h in survivors:
            t = seconds + self.rng.uniform(0, 1.5)
            pid = self.rng.randint(90, 400)
            stamp = self.glog_stamp(t)
            self.log(
                t,
                h,
                f"E{stamp} {pid:>8} coordination_service_agent.cc:332] Polled an error from coordination service (this can be an error from this or another task).",
                severity="ERROR",
                restart=restart,
            )
            self.log(
                t + 0.01,
                h,
                f"F{stamp} {pid:>8} client.h:77] Terminating process because the JAX distributed service detected fatal errors. "
                "This most likely indicates that another task died; see the other task logs for more details. Disable Python "
                "buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following "
                f"tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:{dead_task}\nThe tasks have "
                "crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further.",
                severity="ERROR",
                restart=restart,
            )
            self.log(
                t + 0.2,
                h,
                f"*** SIGABRT received by PID {pid} (TID {pid}) on cpu {self.rng.randint(0, 200)} from PID {pid}; stack trace: ***",
                severity="ERROR",
                restart=restart,
            )

    def sigterm_all(self, seconds: float, hosts: list[Host], restart: int = 0) -> None:
        for h in hosts:
            pid = self.rng.randint(90, 400)
            self.log(
                seconds + self.rng.uniform(0, 2),
                h,
                f"*** SIGTERM received by PID {pid} (TID {pid}) on cpu {self.rng.randint(0, 200)} from PID 0; stack trace: ***",
                severity="ERROR",
                restart=restart,
            )

    def jobset_restart(self, seconds: float, failed_job: str) -> None:
        self.event(
            seconds,
            "RestartJobSetFailurePolicyAction",
            f"applying RestartJobSet failure policy action (first failed job: {failed_job})",
            kind="JobSet",
            name=self.workload,
            component="jobset-controller",
        )

    def jobset_failjob(
        self, seconds: float, host: Host, exit_code: int = 1, container: str = "jax-tpu"
    ) -> None:
        job = f"{self.workload}-slice-job-{host.job_index}"
        self.event(
            seconds,
            "PodFailurePolicy",
            f"Container {container} for pod {self.namespace}/{host.pod} failed with exit code {exit_code} matching FailJob rule at index 0",
            kind="Job",
            name=job,
            component="job-controller",
        )
        self.event(
            seconds + 0.4,
            "FailJobSetFailurePolicyAction",
            f"applying FailJobSet failure policy action (first failed job: {job})",
            kind="JobSet",
            name=self.workload,
            component="jobset-controller",
        )

    def traceback(self, where: str, error: str) -> str:
        return (
            "Traceback (most recent call last):\n"
            '  File "/deps/MaxText/train.py", line 1087, in <module>\n'
            "    app.run(main)\n"
            '  File "/deps/MaxText/train.py", line 1083, in main\n'
            "    train_loop(config)\n"
            f'  File "/deps/MaxText/{where}", line {self.rng.randint(200, 900)}, in train_loop\n'
            "    state, metrics = p_train_step(state, example_batch, nextrng)\n"
            f"{error}"
        )

    # --- output ---------------------------------------------------------------------------
    def write(self, expected: dict[str, Any], fmt: str = "json") -> None:
        folder = HERE / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("logs.*"):
            old.unlink()
        newest_first = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        if fmt == "json":
            (folder / "logs.json").write_text(
                json.dumps(newest_first, indent=1) + "\n", encoding="utf-8"
            )
        else:
            text = "".join(json.dumps(e) + "\n" for e in reversed(newest_first))
            if fmt == "jsonl.gz":
                (folder / "logs.jsonl.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
            else:
                (folder / "logs.jsonl").write_text(text, encoding="utf-8")
        body = {"workload": self.workload, **expected}
        (folder / "expected.json").write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def t0(day: int, hour: int) -> datetime:
    return datetime(2025, 6, day, hour, 4, 11, 250000, tzinfo=timezone.utc)


def row(kind: str, symptom: Optional[str], host: Optional[str]) -> dict[str, Any]:
    return {"kind": kind, "symptom": symptom, "host": host}


# --- the incidents ----------------------------------------------------------------------------
def hbm_oom_runtime_one_host() -> None:
    """Long-context eval batch on one host needs more HBM than is free; it raises, others cascade."""
    inc = Incident("hbm-oom-runtime-one-host", "llama-ctx32k", 701, t0(2, 3))
    hosts = inc.slice_hosts("v5p-pool-a", 4)
    inc.startup(0, hosts)
    t = inc.steps(70, hosts[0], 0, 60)
    bad = hosts[2]
    inc.log(t, bad, "Running eval on long-context shard 17 (seq_len=32768, per_device_batch=2)")
    error = (
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.50G. "
        "That was not possible. There are 812.25M free.; (0x0x0_HBM0)"
    )
    inc.log(t + 4, bad, inc.traceback("eval.py", error), severity="ERROR")
    inc.heartbeat_cascade(t + 104, [h for h in hosts if h is not bad], bad.task)
    inc.jobset_failjob(t + 108, bad)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "hbm-oom-runtime",
            "culprit_hosts": [bad.node],
            "failures": [row("crash", "hbm-oom-runtime", bad.node)],
            "why": "Only task 2 failed to allocate a device buffer during a long-context eval batch; the heartbeat "
            "cascades on the other three name task:2, and its exit 1 failed the JobSet through the FailJob rule.",
        }
    )


def hbm_oom_program_load() -> None:
    """A bigger embedding table makes the program too large to load; every host fails alike."""
    inc = Incident(
        "hbm-oom-program-load-all-hosts", "recsys-dlrm-v2", 702, t0(3, 11), dotted_labels=False
    )
    hosts = inc.slice_hosts("v5e-pool-2", 4)
    inc.startup(0, hosts, structured=True)
    for h in hosts:
        t = 96 + h.task * 0.8
        inc.log(t, h, "Compiled jit_embedding_pipeline_step_fn in 41.2s", structured=True)
        inc.log(
            t + 3,
            h,
            "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to "
            f"reserve 14.{20 + h.task}G at the bottom of memory. That was not possible. There are 1.37G free, 0B reserved, "
            f"and 1.37G reservable. Scope: unknown..: while running replica 0 and partition {h.task * 4} of a replicated "
            "computation (other replicas may have failed as well).",
            severity="ERROR",
            structured=True,
        )
    inc.jobset_failjob(104, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "hbm-oom-program-load",
            "culprit_hosts": [],
            "failures": [row("crash", "hbm-oom-program-load", None)],
            "why": "Every host fails to reserve HBM for the same program within seconds: a model-size problem, "
            "not a bad host, so there is no single culprit.",
        }
    )


def input_mismatch_after_preemption() -> None:
    """Spot slice preempted; on restart the pods pull a new image whose sharding differs from the checkpoint."""
    inc = Incident("preempted-then-restore-input-mismatch", "gemma-sft-spot", 703, t0(4, 22))
    hosts = inc.slice_hosts("v6e-spot", 4)
    inc.startup(0, hosts)
    t = inc.steps(60, hosts[0], 3000, 50)
    victim = hosts[1]
    inc.gce_audit(t, victim.node, "compute.instances.preempted", "Instance was preempted.")
    for h in hosts:
        inc.event(
            t + 2,
            "Terminated",
            "Pod was terminated in response to imminent node shutdown.",
            name=h.pod,
            host=h.node,
        )
    inc.sigterm_all(t + 3, hosts)
    inc.jobset_restart(t + 40, f"{inc.workload}-slice-job-0")
    fresh = inc.slice_hosts("v6e-spot", 4)
    start = t + 400
    inc.startup(start, fresh, restart=1)
    for h in fresh:
        inc.log(
            start + 60,
            h,
            "Restoring checkpoint from gs://acme-sft-ckpt/gemma-sft-spot/checkpoints/3000",
            restart=1,
        )
        inc.log(
            start + 140 + h.task * 0.2,
            h,
            inc.traceback(
                "train.py",
                "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_train_step) expected parameter 311 "
                "of size 67108864 (bf16[8192,4096]{1,0:T(8,128)(2,1)}) but got buffer with incompatible size 16777216",
            ),
            severity="ERROR",
            restart=1,
        )
    inc.jobset_failjob(start + 146, fresh[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "executable-input-mismatch",
            "culprit_hosts": [],
            "failures": [
                row("preemption", "spot-preemption", victim.node),
                row("crash", "executable-input-mismatch", None),
            ],
            "why": "Two disruptions. First the Spot VM of worker 1 was preempted (GCE audit) and the JobSet restarted. "
            "After the restart every host restores step 3000 and fails identically on a parameter size mismatch "
            "(the restarted pods run a different sharding than the checkpoint), so the second has no culprit host.",
        },
        fmt="jsonl"
        " Relabelled to the headline contract (#14): the run ends with every host's restored executable rejecting its inputs at once: that common-mode disruption ended it, so the headline is executable-input-mismatch with no single culprit host (the preemption stays row 1).",
    )


def mosaic_kernel_compile() -> None:
    """A Pallas flash-attention block size that Mosaic cannot tile; identical on all 8 hosts."""
    inc = Incident("mosaic-kernel-compile-error", "mixtral-pallas", 704, t0(5, 7))
    hosts = inc.slice_hosts("v5p-pool-b", 8)
    inc.startup(0, hosts)
    for h in hosts:
        inc.log(
            80 + h.task * 0.3,
            h,
            inc.traceback(
                "train.py",
                "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: cannot statically "
                "prove that index in dimension 1 is a multiple of 128\n\n"
                "The MLIR operation involved:\n"
                '  %1422 = "vector.load"(%arg9, %c0, %1418) : (memref<1x640xf32, #tpu.memory_space<vmem>>, index, index) -> vector<1x128xf32>\n'
                "\nPlease report a bug at: https://github.com/google/jax/issues/new?assignees=apaszke",
            ),
            severity="ERROR",
        )
    inc.jobset_failjob(84, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "xla-compile-error",
            "culprit_hosts": [],
            "failures": [row("crash", "xla-compile-error", None)],
            "why": "The Mosaic compiler rejects the kernel's block size on every host at the same moment: a code bug, "
            "no culprit host.",
        }
    )


def vmem_oom_compile() -> None:
    inc = Incident(
        "vmem-oom-compile-sparsecore", "dlrm-sc-offload", 705, t0(6, 15), dotted_labels=False
    )
    hosts = inc.slice_hosts("v5p-pool-c", 4)
    inc.startup(0, hosts, structured=True)
    for h in hosts:
        inc.log(
            88 + h.task * 0.5,
            h,
            "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory "
            "in memory space vmem. Used 17.25M of 16.00M vmem. Exceeded vmem capacity by 1.25M.",
            severity="ERROR",
            structured=True,
        )
    inc.jobset_failjob(92, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "vmem-oom-compile",
            "culprit_hosts": [],
            "failures": [row("crash", "vmem-oom-compile", None)],
            "why": "Compile-time VMEM exhaustion, the same on every host: a kernel/config problem, no culprit host.",
        }
    )


def pjrt_check_failed() -> None:
    """A PJRT CHECK fires on task 5 mid-run; its SIGABRT (134) restarts the JobSet, which recovers."""
    inc = Incident("pjrt-check-failed-abort", "palm-1b-repro", 706, t0(7, 1))
    hosts = inc.slice_hosts("v4-pool", 8)
    inc.startup(0, hosts)
    t = inc.steps(60, hosts[0], 0, 40)
    bad = hosts[5]
    stamp = inc.glog_stamp(t)
    inc.log(
        t,
        bad,
        f"F{stamp}     2288 pjrt_stream_executor_client.cc:1984] Check failed: buffer->on_device_shape().IsTuple() "
        "== false (1 vs. 0)\n*** Check failure stack trace: ***\n    @     0x7f3e2b1c4a3d  absl::log_internal::LogMessageFatal::~LogMessageFatal()\n"
        "    @     0x7f3e27d1f0b2  xla::PjRtStreamExecutorBuffer::AcquireHold()\n"
        "*** SIGABRT received by PID 2288 (TID 2301) on cpu 61 from PID 2288; stack trace: ***",
        severity="ERROR",
    )
    inc.heartbeat_cascade(t + 101, [h for h in hosts if h is not bad], bad.task)
    inc.jobset_restart(t + 110, f"{inc.workload}-slice-job-0")
    fresh = inc.slice_hosts("v4-pool", 8)
    inc.startup(t + 300, fresh, restart=1)
    inc.steps(t + 380, fresh[0], 40, 30, restart=1)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "process-abort",
            "culprit_hosts": [bad.node],
            "failures": [row("crash", "process-abort", bad.node)],
            "why": "Task 5 hit a PJRT CHECK and aborted; the other seven print the coordination-service F-line "
            "(client.h:77, a cascade, not a process-abort) naming task:5. The JobSet restart recovered training.",
        }
    )


def core_halted_16_hosts() -> None:
    inc = Incident("core-halted-16-host-slice", "llm-70b-pretrain", 707, t0(8, 9))
    hosts = inc.slice_hosts("v5p-256", 16)
    inc.startup(0, hosts)
    t = inc.steps(70, hosts[0], 1200, 25)
    bad = hosts[11]
    inc.log(
        t,
        bad,
        inc.traceback(
            "train.py",
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device "
            "halted prematurely, perhaps due to an on-device check-failure. Node 2 halted unexpectedly at tag:pc "
            "TensorCoreSequencer:1:0x1b7 (from TensorCoreSequencer:1:0x1c4): no debugging message found for this tag:pc. "
            "HLO: all-reduce.412; HLO computation: main.9981",
        ),
        severity="ERROR",
    )
    inc.heartbeat_cascade(t + 100, [h for h in hosts if h is not bad], bad.task)
    inc.jobset_restart(t + 106, f"{inc.workload}-slice-job-0")
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "tpu-hardware-fault",
            "culprit_hosts": [bad.node],
            "failures": [row("crash", "tpu-hardware-fault", bad.node)],
            "why": "One of 16 hosts (task 11) reports a TensorCore halt; the fifteen others cascade naming task:11.",
        },
        fmt="jsonl.gz",
    )


def tpu_device_unavailable() -> None:
    """One v6e host of a fresh node pool cannot init its chips; the others wait and then time out."""
    inc = Incident("tpu-init-ret-check-one-host", "sd3-finetune", 708, t0(9, 18))
    hosts = inc.slice_hosts("v6e-16", 4)
    bad = hosts[3]
    inc.startup(0, hosts)
    inc.log(
        30,
        bad,
        "jax.errors.JaxRuntimeError: INTERNAL: TPU initialization failed: TPU_RET_CHECK failure "
        "(learning/45eac/tpu/runtime/hal/tpu_hal.cc:229) GetChip(i)->location().index_on_host() == i (0 vs. 1)",
        severity="ERROR",
    )
    for h in hosts[:3]:
        inc.log(
            95 + h.task,
            h,
            "UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run your code on all TPU "
            "hosts? See https://jax.readthedocs.io/en/latest/multi_process.html for more information.",
            severity="WARNING",
        )
    inc.jobset_failjob(34, bad)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "tpu-device-unavailable",
            "culprit_hosts": [bad.node],
            "failures": [row("crash", "tpu-device-unavailable", bad.node)],
            "why": "Only worker 3 fails TPU initialization (chip index RET_CHECK); the others' slow-init warnings are "
            "symptoms of that host missing. Its exit 1 fails the JobSet.",
        }
    )


def worker_topology_misconfig() -> None:
    """A hand-written JobSet sets TPU_WORKER_HOSTNAMES to a single host on a 4-host slice."""
    inc = Incident(
        "worker-hostnames-misconfig", "custom-jax-bench", 709, t0(10, 13), namespace="research"
    )
    hosts = inc.slice_hosts("v5e-4x4", 4)
    for h in hosts:
        inc.log(
            2 + h.task * 0.4,
            h,
            "TPU_WORKER_HOSTNAMES=custom-jax-bench-slice-job-0-0.custom-jax-bench",
        )
        inc.log(
            9 + h.task * 0.4,
            h,
            "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Invalid "
            "--7c41d0e_slice_builder_worker_addresses specified. Expected 4 worker addresses, got 1.",
            severity="ERROR",
        )
    inc.jobset_failjob(12, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "tpu-worker-topology-misconfig",
            "culprit_hosts": [],
            "failures": [row("crash", "tpu-worker-topology-misconfig", None)],
            "why": "All four workers reject the same one-entry worker host list: a manifest error, no culprit host.",
        }
    )


def coordinator_timeout_image_pull() -> None:
    """The image tag was pushed to one regional mirror only; the node in the other pool cannot pull it."""
    inc = Incident("connect-timeout-one-image-pull", "t5x-ul2", 710, t0(11, 6), dotted_labels=False)
    hosts = inc.slice_hosts("v5e-pool-x", 4)
    bad = hosts[2]
    image = "us-docker.pkg.dev/acme-tpu-train/mirror-eu/t5x:2025-06-10"
    inc.startup(0, [h for h in hosts if h is not bad])
    for k in range(4):
        inc.event(
            5 + k * 60,
            "Failed",
            f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image "{image}": not found',
            name=bad.pod,
            host=bad.node,
        )
        inc.event(
            6 + k * 60, "BackOff", f'Back-off pulling image "{image}"', name=bad.pod, host=bad.node
        )
    for h in hosts:
        if h is bad:
            continue
        inc.log(
            330 + h.task,
            h,
            "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: PjRT_Client_Connect. This "
            "usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs "
            "(both timed out and first task) to debug further.\n# of tasks that reached the barrier: 3/4.\n"
            "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:\n"
            f"/job:jax_worker/replica:0/task:{bad.task}",
            severity="ERROR",
        )
    inc.jobset_failjob(333, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "image-pull-failure",
            "culprit_hosts": [bad.node],
            "failures": [row("scheduling", "image-pull-failure", bad.node)],
            "why": "Worker 2's image cannot be pulled (NotFound), so task 2 never registers; the connect barrier "
            "timeouts on the others name task:2 and are symptoms.",
        }
    )


def barrier_slow_compile() -> None:
    """After a restart, task 6 recompiles without the persistent cache and misses a sync barrier. No root."""
    inc = Incident("barrier-timeout-one-slow-host", "gpt-moe-ft", 711, t0(12, 20))
    hosts = inc.slice_hosts("v5p-pool-m", 8)
    slow = hosts[6]
    inc.startup(0, hosts, restart=2)
    for h in hosts:
        if h is not slow:
            inc.log(
                70 + h.task, h, "Persistent compilation cache hit for 'jit_train_step'", restart=2
            )
    inc.log(
        70,
        slow,
        "Persistent compilation cache miss for 'jit_train_step'; compiling",
        severity="WARNING",
        restart=2,
    )
    for h in hosts:
        if h is slow:
            continue
        inc.log(
            672 + h.task * 0.1,
            h,
            inc.traceback(
                "checkpointing.py",
                "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
                f"multihost_broadcast_sync0. Timed out task names: /job:jax_worker/replica:0/task:{slow.task}",
            ),
            severity="ERROR",
            restart=2,
        )
    inc.jobset_failjob(676, hosts[0])
    inc.write(
        {
            "status": "inconclusive",
            "root_cause": None,
            "culprit_hosts": [slow.node],
            "failures": [row("crash", None, slow.node)],
            "why": "Seven tasks time out at a barrier naming task 6, which was still compiling after a cache miss. "
            "Nothing on task 6's host is a root failure mode, so the honest answer is inconclusive, pointing at it. "
            "The barrier threw and the job exited (FailJob), so the disruption is a crash, not a hang."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its barrier-timeout lines stay in its evidence).",
        }
    )


def gcs_throttling_restore() -> None:
    inc = Incident("gcs-429-during-restore", "llm-13b-resume", 712, t0(13, 4))
    hosts = inc.slice_hosts("v5e-pool-r", 4)
    slow = hosts[1]
    inc.startup(0, hosts, restart=1)
    for h in hosts:
        inc.log(
            60 + h.task,
            h,
            "Restoring checkpoint from gs://acme-llm-ckpt/llm-13b-resume/checkpoints/52000",
            restart=1,
        )
    for k in range(6):
        inc.log(
            75 + k * 31,
            slow,
            f"W{inc.glog_stamp(75 + k * 31)}     187 gcs_http.cc:411] Retrying GCS request after error: Error executing an HTTP "
            'request: HTTP response code 429 with body \'{"error":{"code":429,"message":"The rate of change requests '
            "to the object acme-llm-ckpt/llm-13b-resume/checkpoints/52000/_METADATA exceeds the rate limit. Please "
            "reduce the rate of create, update, and delete requests.\"}}'",
            severity="WARNING",
            restart=1,
        )
    for h in hosts:
        if h is slow:
            continue
        inc.log(
            370 + h.task * 0.1,
            h,
            "XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: CheckpointManager:restore_52000. "
            f"Timed out task names: /job:jax_worker/replica:0/task:{slow.task}",
            severity="ERROR",
            restart=1,
        )
    inc.jobset_failjob(374, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "gcs-throttling",
            "culprit_hosts": [slow.node],
            "failures": [row("crash", "gcs-throttling", slow.node)],
            "why": "Task 1's restore keeps getting HTTP 429 rate-limit errors; the others time out at the restore "
            "barrier naming task:1 (a symptom). Throttling on task 1 is the root. The timeouts threw and the "
            "JobSet failed (FailJob): the disruption is a crash, as for any barrier that timed out and raised.",
        }
    )


def checkpoint_permission() -> None:
    """Moved to a new namespace whose KSA is bound to a GSA without write access to the bucket."""
    inc = Incident("checkpoint-save-403", "vit-22b", 713, t0(14, 10), namespace="team-vision")
    hosts = inc.slice_hosts("v5p-pool-v", 4)
    inc.startup(0, hosts, structured=True)
    t = inc.steps(60, hosts[0], 0, 50, structured=True)
    for h in hosts:
        inc.log(
            t + 1 + h.task * 0.2,
            h,
            "Saving checkpoint for step 500 to gs://acme-vision-ckpt/vit-22b/500",
            structured=True,
        )
        inc.log(
            t + 3 + h.task * 0.2,
            h,
            "ValueError: PERMISSION_DENIED: Error writing to gs://acme-vision-ckpt/vit-22b/500.orbax-checkpoint-tmp-1718359512/"
            f"state/ocdbt.process_{h.task}/d/1f0e: HTTP response code 403 with body "
            '\'{"error":{"code":403,"message":'
            '"vision-train@acme-tpu-train.iam.gserviceaccount.com does not have storage.objects.create access to the '
            "Google Cloud Storage object. Permission 'storage.objects.create' denied on resource (or it may not exist).\"}}'",
            severity="ERROR",
            structured=True,
        )
    inc.jobset_failjob(t + 6, hosts[0])
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "checkpoint-gcs-permission",
            "culprit_hosts": [],
            "failures": [row("crash", "checkpoint-gcs-permission", None)],
            "why": "Every host's first checkpoint write is denied (403, missing storage.objects.create): an IAM "
            "problem of the workload identity, no culprit host.",
        }
    )


def pathways_cache_config() -> None:
    """Pathways head: the resource manager's persistent cache points at a bucket that does not exist."""
    inc = Incident("pathways-cache-bucket-missing", "pw-gemma-rl", 714, t0(15, 17))
    head = inc.slice_hosts("cpu-np", 1, rjob="pathways-head")[0]
    head.node = inc.node_name("cpu-np")
    workers = inc.slice_hosts("v5p-pool-pw", 4, rjob="worker")
    for w in workers:
        inc.log(
            1 + w.task,
            w,
            "I0615 17:04:12.967764       1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
            container="pathways-worker",
            rjob="worker",
        )
    inc.log(
        2,
        head,
        "I0615 17:04:13.110218       1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
        container="pathways-rm",
        rjob="pathways-head",
    )
    inc.log(
        9,
        head,
        "E0615 17:04:20.402913       1 persistent_cache.cc:212] Permanent error, with a last message of The specified "
        "bucket does not exist.; Error while initializing persistent cache storage gcs",
        severity="ERROR",
        container="pathways-rm",
        rjob="pathways-head",
    )
    inc.log(
        15,
        head,
        "E0615 17:04:26.772101      37 rpc_helper.cc:56] Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
        severity="ERROR",
        container="jax-client",
        rjob="pathways-head",
    )
    inc.event(
        18,
        "BackOff",
        "Back-off restarting failed container pathways-rm in pod " + head.pod,
        name=head.pod,
        host=head.node,
    )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "pathways-config-error",
            "culprit_hosts": [head.node],
            "failures": [row("crash", "pathways-config-error", head.node)],
            "why": "The Pathways resource manager on the head pod cannot initialise its persistent cache (bucket "
            "missing) and exits; the client's proxy-terminated line is the cascade. The root prints on the head's node.",
        }
    )


def vbar_agent_oom() -> None:
    inc = Incident(
        "vbar-agent-oom-slice-init", "serve-llama-v6e", 715, t0(16, 8), dotted_labels=False
    )
    hosts = inc.slice_hosts("v6e-2x4", 2)
    bad = hosts[1]
    inc.serial(
        3,
        bad.node,
        "[ 8123.551920] Memory cgroup out of memory: Killed process 48211 (vbar_control_ag) total-vm:6291456kB, anon-rss:3145728kB, file-rss:20480kB, shmem-rss:0kB, UID:0 pgtables:7344kB oom_score_adj:-998",
    )
    inc.startup(10, hosts)
    inc.log(
        40,
        bad,
        "E0616 08:04:51.413208      212 tpu_hal.cc:249] Failed to initialize TPU system with error: UNAVAILABLE: failed to connect to the TPU host agent",
        severity="ERROR",
    )
    inc.log(
        41,
        bad,
        "RuntimeError: Unable to initialize backend 'tpu': UNAVAILABLE: TPU initialization failed (set JAX_PLATFORMS='' to automatically choose an available backend)",
        severity="ERROR",
    )
    inc.jobset_failjob(44, bad)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "vbar-agent-oom",
            "culprit_hosts": [bad.node],
            "failures": [row("crash", "vbar-agent-oom", bad.node)],
            "why": "The serial console shows the TPU host agent (vbar_control_ag) OOM-killed on worker 1's node just "
            "before that worker's TPU init fails; the infra event on the node is preferred over the container error.",
        }
    )


def device_plugin_unhealthy() -> None:
    inc = Incident("device-plugin-chip-gone-midrun", "llm-8b-sweep", 716, t0(17, 2))
    hosts = inc.slice_hosts("v5e-pool-d", 4)
    bad = hosts[3]
    plugin = f"tpu-device-plugin-{inc.token(5)}"
    inc.startup(0, hosts)
    t = inc.steps(60, hosts[0], 0, 45)
    for k in range(3):
        inc.system_log(
            t + k * 10,
            bad.node,
            plugin,
            "tpu-device-plugin",
            f"E0617 health_check.go:88] device /dev/vfio/2 does not exist, marking unhealthy (check {k + 1})",
        )
    inc.log(
        t + 12,
        bad,
        "jax.errors.JaxRuntimeError: UNKNOWN: TPU execution failed: device 2 disappeared from the host",
        severity="ERROR",
    )
    inc.heartbeat_cascade(t + 110, hosts[:3], bad.task)
    inc.jobset_restart(t + 115, f"{inc.workload}-slice-job-0")
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "tpu-device-plugin-unhealthy",
            "culprit_hosts": [bad.node],
            "failures": [row("crash", "tpu-device-plugin-unhealthy", bad.node)],
            "why": "The TPU device plugin on worker 3's node reports a chip's device gone; the worker fails right "
            "after and the others cascade naming task:3.",
        }
    )


def maintenance_graceful_shutdown() -> None:
    inc = Incident("host-maintenance-graceful-shutdown", "llm-pretrain-b", 717, t0(18, 23))
    hosts = inc.slice_hosts("v5p-pool-0", 4)
    victim = hosts[0]
    inc.startup(0, hosts, structured=True)
    t = inc.steps(60, hosts[0], 8800, 40, structured=True)
    inc.event(
        t - 120,
        "NodeMaintenance",
        f"Node {victim.node} has upcoming maintenance; label cloud.google.com/active-node-maintenance=ONGOING set",
        kind="Node",
        name=victim.node,
        component="gke-maintenance-handler",
        warning=False,
    )
    inc.event(
        t,
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        name=victim.pod,
        host=victim.node,
    )
    inc.log(
        t + 1,
        victim,
        "*** SIGTERM received by PID 1 (TID 1) on cpu 3 from PID 0; stack trace: ***",
        severity="ERROR",
        structured=True,
    )
    inc.gce_audit(
        t + 30,
        victim.node,
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    inc.heartbeat_cascade(t + 101, hosts[1:], victim.task)
    inc.jobset_restart(t + 106, f"{inc.workload}-slice-job-0")
    fresh = inc.slice_hosts("v5p-pool-0", 4)
    inc.startup(t + 600, fresh, restart=1, structured=True)
    inc.steps(t + 680, fresh[0], 8800, 20, restart=1, structured=True)
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "host-maintenance",
            "culprit_hosts": [victim.node],
            "failures": [row("preemption", "host-maintenance", victim.node)],
            "why": "Worker 0's VM was terminated for host maintenance (GCE audit); its pod got the graceful node-shutdown "
            "termination first (a symptom), task 0's death cascaded, the JobSet restarted and training resumed.",
        },
        fmt="jsonl",
    )


def kueue_preemption() -> None:
    inc = Incident(
        "kueue-preempted-by-prod", "exp-ablation-17", 718, t0(19, 12), namespace="research"
    )
    hosts = inc.slice_hosts("v5e-pool-q", 4)
    inc.startup(0, hosts)
    t = inc.steps(60, hosts[0], 0, 70)
    wl = f"jobset-{inc.workload}-{inc.token(5, '0123456789abcdef')}"
    inc.event(
        t,
        "Preempted",
        "Preempted to accommodate a workload (UID: 5b1f6c0e-9a7d-4c1e-8f0b-2d3e4a5b6c7d, JobUID: 0e9d8c7b-6a5f-4e3d-2c1b-0a9f8e7d6c5b) "
        "due to prioritization in the ClusterQueue",
        kind="Workload",
        name=wl,
        component="kueue-admission",
    )
    inc.event(
        t + 0.5,
        "EvictedDueToPreempted",
        "Preempted to accommodate a higher priority workload",
        kind="Workload",
        name=wl,
        component="kueue-admission",
    )
    inc.sigterm_all(t + 2, hosts)
    for h in hosts:
        inc.event(
            t + 3, "Killing", "Stopping container jax-tpu", name=h.pod, host=h.node, warning=False
        )
    inc.write(
        {
            "status": "diagnosed",
            "root_cause": "kueue-preemption",
            "culprit_hosts": [],
            "failures": [row("preemption", "kueue-preemption", None)],
            "why": "Kueue evicted the running workload for a higher-priority one; every pod got SIGTERM. A scheduling "
            "decision, no culprit host.",
        }
    )


INCIDENTS: tuple[Callable[[], None], ...] = (
    hbm_oom_runtime_one_host,
    hbm_oom_program_load,
    input_mismatch_after_preemption,
    mosaic_kernel_compile,
    vmem_oom_compile,
    pjrt_check_failed,
    core_halted_16_hosts,
    tpu_device_unavailable,
    worker_topology_misconfig,
    coordinator_timeout_image_pull,
    barrier_slow_compile,
    gcs_throttling_restore,
    checkpoint_permission,
    pathways_cache_config,
    vbar_agent_oom,
    device_plugin_unhealthy,
    maintenance_graceful_shutdown,
    kueue_preemption,
)


def main() -> None:
    for make in INCIDENTS:
        make()


if __name__ == "__main__":
    main()
