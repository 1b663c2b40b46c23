"""Generate the held-out incident set of round 11 (deterministic: same output on every run).

Each incident is a folder holding `logs.json` (a `gcloud logging read --format=json` array, newest
first) and `expected.json` (what a senior TPU engineer concludes, with the reasoning in `why`).
Run: `python tests/incidents11/make_incidents.py` from the repository root.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "tpu-research-prod"
CLUSTER = "tpu-us-east5"
LOCATION = "us-east5"
FAILJOB_EXIT = "Container jax-tpu for pod {ns}/{pod} failed with exit code {code} matching FailJob rule at index 0"


def node_name(pool: str, rng: random.Random) -> str:
    """A GKE node name: gke-<cluster>-<pool>-<8 hex>-<4 chars>."""
    suffix = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))
    return f"gke-{CLUSTER}-{pool}-{rng.getrandbits(32):08x}-{suffix}"


def pod_suffix(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))


@dataclass
class Host:
    """One TPU VM and the pod of the workload running on it."""

    node: str
    pod: str
    job: str
    task: int


@dataclass
class Bundle:
    """The log entries of one incident, built in time order and written newest first."""

    workload: str
    namespace: str
    rng: random.Random
    entries: list[dict[str, Any]] = field(default_factory=list)

    def _add(self, at: datetime, entry: dict[str, Any]) -> None:
        entry["timestamp"] = at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        entry["receiveTimestamp"] = (at + timedelta(milliseconds=700)).strftime(
            "%Y-%m-%dT%H:%M:%S.%fZ"
        )
        entry["insertId"] = f"{self.rng.getrandbits(48):012x}"
        self.entries.append(entry)

    def log(
        self, at: datetime, host: Host, text: str, severity: str = "ERROR", stream: str = "stderr"
    ) -> None:
        # Half the workloads' entries use the dotted label spelling, as both exist in real exports.
        key = "jobset.sigs.k8s.io" if self.rng.random() < 0.5 else "jobset_sigs_k8s_io"
        self._add(
            at,
            {
                "logName": f"projects/{PROJECT}/logs/{stream}",
                "resource": {
                    "type": "k8s_container",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "namespace_name": self.namespace,
                        "pod_name": host.pod,
                        "container_name": "jax-tpu",
                    },
                },
                "labels": {
                    "compute.googleapis.com/resource_name": host.node,
                    f"k8s-pod/{key}/jobset-name": self.workload,
                    f"k8s-pod/{key}/replicatedjob-name": host.job.rsplit("-", 1)[0][
                        len(self.workload) + 1 :
                    ],
                    "k8s-pod/batch_kubernetes_io/job-completion-index": host.pod.rsplit("-", 2)[1],
                },
                "severity": severity,
                "textPayload": text,
            },
        )

    def lines(
        self, at: datetime, host: Host, text: str, step_ms: int = 1, severity: str = "ERROR"
    ) -> datetime:
        """A multi-line message split into one entry per line, as stderr arrives in Cloud Logging."""
        for line in text.strip("\n").split("\n"):
            self.log(at, host, line, severity)
            at += timedelta(milliseconds=step_ms)
        return at

    def event(
        self,
        at: datetime,
        kind: str,
        name: str,
        reason: str,
        message: str,
        component: str,
        host: Optional[str] = None,
        severity: str = "WARNING",
    ) -> None:
        resource = (
            {"type": "k8s_node", "labels": {"node_name": name}}
            if kind == "Node"
            else {"type": "k8s_pod", "labels": {"namespace_name": self.namespace, "pod_name": name}}
            if kind == "Pod"
            else {"type": "k8s_cluster", "labels": {}}
        )
        resource["labels"].update(
            {"project_id": PROJECT, "location": LOCATION, "cluster_name": CLUSTER}
        )
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        self._add(
            at,
            {
                "logName": f"projects/{PROJECT}/logs/events",
                "resource": resource,
                "severity": severity,
                "jsonPayload": {
                    "kind": "Event",
                    "apiVersion": "v1",
                    "reason": reason,
                    "message": message,
                    "type": "Normal" if severity == "INFO" else "Warning",
                    "involvedObject": {
                        "kind": kind,
                        "name": name,
                        **({} if kind == "Node" else {"namespace": self.namespace}),
                    },
                    "source": source,
                    "count": 1,
                },
            },
        )

    def gce_audit(self, at: datetime, node: str, method: str, message: str) -> None:
        self._add(
            at,
            {
                "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": PROJECT,
                        "zone": f"{LOCATION}-b",
                        "instance_id": str(self.rng.getrandbits(60)),
                    },
                },
                "severity": "INFO",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "methodName": method,
                    "resourceName": f"projects/{PROJECT}/zones/{LOCATION}-b/instances/{node}",
                    "serviceName": "compute.googleapis.com",
                    "status": {"message": message},
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                },
            },
        )

    def write(self, folder: Path, expected: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        newest_first = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        (folder / "logs.json").write_text(
            json.dumps(newest_first, separators=(",", ":")) + "\n", encoding="utf-8"
        )
        (folder / "expected.json").write_text(
            json.dumps(expected, indent=2) + "\n", encoding="utf-8"
        )


def xpk_hosts(bundle: Bundle, pool_prefix: str, slices: int, per_slice: int) -> list[Host]:
    """Pods of an XPK JobSet: `<jobset>-slice-job-<j>-<c>-<5char>`, one node pool per slice."""
    hosts = []
    for j in range(slices):
        pool = f"{pool_prefix}-{j}"
        for c in range(per_slice):
            node = node_name(pool, random.Random(f"{bundle.workload}-{j}-{c}"))
            pod = f"{bundle.workload}-slice-job-{j}-{c}-{pod_suffix(bundle.rng)}"
            hosts.append(Host(node, pod, f"{bundle.workload}-slice-job-{j}", j * per_slice + c))
    return hosts


def repod(bundle: Bundle, hosts: list[Host]) -> list[Host]:
    """The same nodes after a JobSet restart: new pod suffixes."""
    return [
        Host(h.node, h.pod.rsplit("-", 1)[0] + "-" + pod_suffix(bundle.rng), h.job, h.task)
        for h in hosts
    ]


def ms(t: datetime, n: float) -> datetime:
    return t + timedelta(milliseconds=n)


def glog(level: str, at: datetime, where: str, text: str, tid: int = 1) -> str:
    """An absl/glog-formatted line: `E0314 09:12:03.123456    1234 file.cc:42] text`."""
    return f"{level}{at:%m%d %H:%M:%S.%f} {tid:>8} {where}] {text}"


def startup(b: Bundle, hosts: list[Host], t: datetime, ckpt_step: Optional[int] = None) -> datetime:
    """Benign start-up lines every JAX worker prints."""
    for h in hosts:
        at = ms(t, b.rng.randint(0, 3000))
        b.log(at, h, glog("I", at, "tpu_initializer_helper.cc:94", "libtpu.so is loaded."), "INFO")
        b.log(ms(at, 40), h, "WARNING:absl:The JAX preemption service is disabled.", "WARNING")
        b.log(
            ms(at, 900),
            h,
            f"System Information: Jax Version: 0.6.2, Jaxlib Version: 0.6.2, process {h.task}",
            "INFO",
        )
        if ckpt_step is not None:
            b.log(
                ms(at, 4000),
                h,
                f"INFO:absl:Restoring checkpoint from gs://llm-ckpts-prod/{b.workload}/checkpoints/{ckpt_step}.",
                "INFO",
            )
    return ms(t, 9000)


def steps(
    b: Bundle, hosts: list[Host], t: datetime, first: int, count: int, seconds: float = 4.2
) -> datetime:
    """MaxText step lines on every host (healthy progress)."""
    loss = 3.1 - first * 0.0001
    for s in range(first, first + count):
        loss -= b.rng.uniform(0.0005, 0.003)
        for h in hosts:
            at = ms(t, b.rng.randint(0, 400))
            b.log(
                at,
                h,
                f"completed step: {s}, seconds: {seconds + b.rng.uniform(-0.05, 0.05):.3f}, "
                f"TFLOP/s/device: {191 + b.rng.uniform(-2, 2):.3f}, Tokens/s/device: {4210 + b.rng.uniform(-30, 30):.3f}, "
                f"total_weights: 1572864, loss: {loss:.3f}",
                "INFO",
                "stdout",
            )
        t += timedelta(seconds=seconds)
    return t


def heartbeat_cascade(b: Bundle, hosts: list[Host], dead: list[Host], t: datetime) -> datetime:
    """What the survivors print once the coordination service declares `dead` unhealthy."""
    names = "\n".join(f"/job:jax_worker/replica:0/task:{d.task}" for d in dead)
    coordinator = hosts[0]
    for d in dead:
        b.log(
            t,
            coordinator,
            glog(
                "E",
                t,
                "coordination_service.cc:1202",
                f"Task /job:jax_worker/replica:0/task:{d.task} heartbeat timeout. "
                "This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task "
                "logs for an earlier error or scheduler events (e.g. preemption, eviction) to debug further.",
            ),
        )
    for h in hosts:
        if h in dead:
            continue
        at = ms(t, b.rng.randint(5, 900))
        b.log(
            at,
            h,
            glog(
                "E",
                at,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or another task).",
            ),
        )
        b.lines(
            ms(at, 1),
            h,
            glog(
                "F",
                at,
                "client.h:77",
                "Terminating process because the JAX distributed service detected fatal errors. This most "
                "likely indicates that another task died; see the other task logs for more details. Disable Python buffering, "
                "i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks "
                "are unhealthy (stopped sending heartbeats):",
            )
            + f"\n{names}\nThe tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further.",
        )
        b.log(
            ms(at, 30),
            h,
            f"*** SIGABRT received by PID {b.rng.randint(7, 90)} (TID {b.rng.randint(100, 900)}) on cpu {b.rng.randint(0, 200)} from PID {b.rng.randint(7, 90)}; stack trace: ***",
        )
    return ms(t, 1500)


def leader_lost(b: Bundle, hosts: list[Host], t: datetime) -> datetime:
    for h in hosts[1:]:
        at = ms(t, b.rng.randint(0, 1200))
        b.log(
            at,
            h,
            glog(
                "E",
                at,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or another task).",
            ),
        )
        b.log(
            ms(at, 1),
            h,
            glog(
                "F",
                at,
                "client.h:77",
                "Terminating process because the JAX distributed service detected fatal errors. This most "
                "likely indicates that another task died; see the other task logs for more details. Disable Python buffering, "
                "i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: Failed to send RPC to "
                "coordination service. Either the leader task was preempted/died/restarted unexpectedly or this task is "
                "experiencing network issues. Check earlier logs from 1) this task, 2) the leader (usually slice 0 task 0), and "
                "3) cluster scheduler to debug further.\nAdditional GRPC error information from remote target "
                "coordination_service while calling /tensorflow.CoordinationService/PollForError:\n:UNKNOWN:Error received "
                'from peer  {grpc_message:"Socket closed", grpc_status:14}',
            ),
        )
    return ms(t, 1500)


def jobset_restart(b: Bundle, t: datetime, first_failed_job: str) -> None:
    b.event(
        t,
        "JobSet",
        b.workload,
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {first_failed_job})",
        "jobset-controller",
    )


def sigterm_all(b: Bundle, hosts: list[Host], t: datetime, skip: tuple[Host, ...] = ()) -> datetime:
    for h in hosts:
        if h in skip:
            continue
        at = ms(t, b.rng.randint(100, 2000))
        b.log(
            at,
            h,
            f"*** SIGTERM received by PID {b.rng.randint(7, 90)} (TID {b.rng.randint(7, 90)}) on cpu {b.rng.randint(0, 200)} from PID 0; stack trace: ***",
        )
        b.log(
            ms(at, 2),
            h,
            glog("E", at, "process_state.cc:771", "RAW: Raising signal 15 with default behavior"),
        )
    return ms(t, 3000)


def fail_jobset(b: Bundle, t: datetime, failed: Host, code: int) -> None:
    b.event(
        t,
        "Pod",
        failed.pod,
        "PodFailurePolicy",
        FAILJOB_EXIT.format(ns=b.namespace, pod=failed.pod, code=code),
        "job-controller",
    )
    b.event(
        ms(t, 300),
        "JobSet",
        b.workload,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {failed.job})",
        "jobset-controller",
    )


def expected(
    b: Bundle,
    status: str,
    root: Optional[str],
    culprits: list[str],
    failures: list[tuple[str, str, Optional[str]]],
    why: str,
) -> dict[str, Any]:
    return {
        "workload": b.workload,
        "status": status,
        "root_cause": root,
        "culprit_hosts": sorted(culprits),
        "failures": [{"kind": k, "symptom": s, "host": h} for k, s, h in failures],
        "why": why,
    }


T0 = datetime(2025, 3, 11, 2, 14, 5, tzinfo=timezone.utc)
Incident = Callable[[], tuple[Bundle, dict[str, Any]]]


def ambiguous_two_roots() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("gemma-ft-v5p", "ml-train", random.Random(1101))
    hosts = xpk_hosts(b, "v5p-128", 1, 8)
    t = startup(b, hosts, T0, ckpt_step=30000)
    t = steps(b, hosts, t, 30001, 12)
    oom, loader = hosts[3], hosts[5]
    # A grain data-loader child process segfaults 0.4 s BEFORE the real failure; the parent survives.
    b.log(
        t,
        loader,
        "*** SIGSEGV (@(nil)), see gl__________41#s15 received by PID 3117 (TID 3142) on cpu 71; stack trace: ***",
    )
    b.log(ms(t, 3), loader, "PC: @     0x7f3a1c2e1b40  (unknown)  __memmove_avx_unaligned_erms")
    b.log(
        ms(t, 60),
        loader,
        "WARNING:grain._src.python.grain_pool:Grain worker process 6 (pid 3117) exited with code -11; starting a replacement worker.",
        "WARNING",
    )
    at = ms(t, 400)
    at = b.lines(
        at,
        oom,
        """Traceback (most recent call last):
  File "/app/maxtext/train.py", line 1021, in train_loop
    state, metrics = p_train_step(state, example_batch, nextrng)
jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 3.13G. That was not possible. There are 2.87G free.; (0x0x3_HBM0)""",
    )
    dead_at = ms(at, 61000)
    heartbeat_cascade(b, hosts, [oom], dead_at)
    jobset_restart(b, ms(dead_at, 2500), oom.job)
    sigterm_all(b, hosts, ms(dead_at, 2600), skip=(oom,))
    return b, expected(
        b,
        "diagnosed",
        "hbm-oom-runtime",
        [oom.node],
        [("crash", "hbm-oom-runtime", oom.node)],
        "Two root-looking lines 0.4 s apart on different hosts. The SIGSEGV on task 5 is a Grain data-loader child (PID "
        "3117, replaced right after; task 5 keeps heartbeating and later prints the cascade itself). The coordinator's "
        "heartbeat timeout and every survivor name only task:3, whose host raised the runtime HBM OOM.",
    )


def traceback_middle() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("llama3-70b-sft", "research", random.Random(1102))
    hosts = xpk_hosts(b, "v5e-256", 1, 8)
    t = startup(b, hosts, T0 + timedelta(hours=3))
    t = steps(b, hosts, t, 0, 10)
    leader = hosts[0]
    tb = ["Traceback (most recent call last):"]
    frames = [
        (
            "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/_src/serialization/tensorstore_utils.py",
            412,
            "_write_array",
            "await t.write(value)",
        ),
        (
            "/usr/local/lib/python3.11/site-packages/tensorstore/__init__.py",
            88,
            "write",
            "return self._write(source)",
        ),
        (
            "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/_src/futures/future.py",
            201,
            "result",
            "return self._f.result()",
        ),
        (
            "/usr/lib/python3.11/concurrent/futures/_base.py",
            456,
            "result",
            "return self.__get_result()",
        ),
        (
            "/usr/lib/python3.11/concurrent/futures/_base.py",
            401,
            "__get_result",
            "raise self._exception",
        ),
    ]
    for path, line, fn, code in frames:
        tb += [f'  File "{path}", line {line}, in {fn}', f"    {code}"]
    tb.append(
        'ValueError: PERMISSION_DENIED: Error writing "params/decoder/layers_41/mlp/wi_0/kernel/0.2.0" in OCDBT '
        "database at gs://llama3-ckpts/sft-run-17/checkpoints/2000.orbax-checkpoint-tmp-1741667112/: Error executing an "
        'HTTP request: HTTP response code 403 with body \'{"error": {"code": 403, "message": '
        '"llama3-train@tpu-research-prod.iam.gserviceaccount.com does not have storage.objects.create access to the '
        "Google Cloud Storage object. Permission 'storage.objects.create' denied on resource (or it may not exist).\"}}'"
    )
    tb += [
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
    ]
    frames2 = [
        ("/app/maxtext/train.py", 1190, "<module>", "app.run(main)"),
        (
            "/usr/local/lib/python3.11/site-packages/absl/app.py",
            316,
            "run",
            "_run_main(main, args)",
        ),
        (
            "/usr/local/lib/python3.11/site-packages/absl/app.py",
            261,
            "_run_main",
            "sys.exit(main(argv))",
        ),
        ("/app/maxtext/train.py", 1186, "main", "train_loop(config)"),
        (
            "/app/maxtext/train.py",
            1052,
            "train_loop",
            "if save_checkpoint(checkpoint_manager, int(step), state, config.dataset_type, data_iterator):",
        ),
        (
            "/app/maxtext/checkpointing.py",
            402,
            "save_checkpoint",
            "return checkpoint_manager.save(step, args=orbax.checkpoint.args.Composite(**items))",
        ),
        (
            "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/checkpoint_manager.py",
            1371,
            "save",
            "self._checkpointer.save(save_directory, args=args)",
        ),
        (
            "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/async_checkpointer.py",
            331,
            "save",
            "self._async_manager.start_async_commit(directory, commit_futures)",
        ),
    ]
    for path, line, fn, code in frames2:
        tb += [f'  File "{path}", line {line}, in {fn}', f"    {code}"]
    tb.append(
        "RuntimeError: Checkpoint save of step 2000 failed on the primary host; see the chained exception above."
    )
    # Padding frames from absl's own exception printer follow in real logs; keep the total near 40 lines.
    tb += [
        "E0311 05:15:02.001200 140213 pjrt_client.cc:1133] PjRt client is being destroyed with outstanding work."
    ] * 2
    save_at = ms(t, 1500)
    for h in hosts:
        b.log(
            ms(save_at, b.rng.randint(0, 200)),
            h,
            f"INFO:absl:[process={h.task}] Saving checkpoint at step 2000",
            "INFO",
        )
    fail_at = b.lines(ms(save_at, 9000), leader, "\n".join(tb), step_ms=2)
    leader_lost(b, hosts, ms(fail_at, 4000))
    fail_jobset(b, ms(fail_at, 2000), leader, 1)
    return b, expected(
        b,
        "diagnosed",
        "checkpoint-gcs-permission",
        [leader.node],
        [("crash", "checkpoint-gcs-permission", leader.node)],
        "Task 0 (the Orbax primary host) raised a 403 storage.objects.create denial in the middle of a ~40-line chained "
        "traceback while committing checkpoint step 2000; the final lines (RuntimeError, PjRt client destroyed) are only "
        "its consequence. Every other task lost the leader (cascade pointing at task 0) and the exit-1 FailJob rule failed "
        "the JobSet without a restart.",
    )


def culprit_with_earlier_warning() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("mixtral-pt", "ml-train", random.Random(1103))
    hosts = xpk_hosts(b, "v5p-64", 2, 4)
    t = startup(b, hosts, T0 + timedelta(hours=6), ckpt_step=8800)
    victim = hosts[6]
    # Minutes before the crash the same node logged a corrected (non-fatal) CPER memory error.
    b.event(
        ms(t, 20000),
        "Node",
        victim.node,
        "CorrectableHardwareError",
        "[Hardware Error]: event severity: corrected",
        "kernel-monitor",
        victim.node,
    )
    t = steps(b, hosts, t, 8801, 30)
    pid = 188
    b.event(
        t,
        "Node",
        victim.node,
        "OOMKilling",
        f"Memory cgroup out of memory: Killed process {pid} (python3) total-vm:412733904kB, anon-rss:396114220kB, "
        "file-rss:90112kB, shmem-rss:0kB, UID:0 pgtables:790212kB oom_score_adj:-997",
        "kernel-monitor",
        victim.node,
    )
    b.event(
        ms(t, 1200),
        "Pod",
        victim.pod,
        "Killing",
        "Stopping container jax-tpu",
        "kubelet",
        victim.node,
        "INFO",
    )
    dead = ms(t, 100000)
    heartbeat_cascade(b, hosts, [victim], dead)
    jobset_restart(b, ms(dead, 2000), victim.job)
    sigterm_all(b, hosts, ms(dead, 2100), skip=(victim,))
    return b, expected(
        b,
        "diagnosed",
        "host-oom-killed",
        [victim.node],
        [("crash", "host-oom-killed", victim.node)],
        "The culprit node (task 6) shows a corrected CPER event minutes earlier; 'corrected' is informational and 30 "
        "healthy steps followed it. The disruption starts with the kernel OOM-killing python3 on that node; the "
        "heartbeat cascade names task 6; JobSet restart names slice-job-1.",
    )


def runtime_oom_multislice() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("t5x-xxl-ms", "ml-train", random.Random(1104))
    hosts = xpk_hosts(b, "v5e-64", 4, 4)
    t = startup(b, hosts, T0 + timedelta(days=1))
    t = steps(b, hosts, t, 0, 10, seconds=2.1)
    culprit = hosts[13]
    at = b.lines(
        t,
        culprit,
        """Traceback (most recent call last):
  File "/app/t5x/train.py", line 644, in train
    trainer.train(batch, num_steps=steps_per_epoch)
  File "/app/t5x/trainer.py", line 611, in train
    metrics_update = self._compiled_train_step(self.train_state, batch)
ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 512.00M. That was not possible. There are 311.25M free.; (0x0x1_HBM0)""",
    )
    # Every other host then fails with cascade wording: Megascale collectives see the slice vanish first.
    for h in hosts:
        if h is culprit:
            continue
        w = ms(at, b.rng.randint(30000, 31000))
        b.log(
            w,
            h,
            glog(
                "E",
                w,
                "megascale/runtime/collectives.cc:402",
                f"Megascale collective all-reduce.87 on slice {h.task // 4} failed: UNAVAILABLE: peer slice 3 host 1 "
                "closed the DCN connection (this task is healthy; see the peer's logs).",
            ),
        )
    heartbeat_cascade(b, hosts, [culprit], ms(at, 60000))
    jobset_restart(b, ms(at, 62000), culprit.job)
    sigterm_all(b, hosts, ms(at, 62100), skip=(culprit,))
    return b, expected(
        b,
        "diagnosed",
        "hbm-oom-runtime",
        [culprit.node],
        [("crash", "hbm-oom-runtime", culprit.node)],
        "16 hosts in 4 slices: 15 print DCN collective errors and the heartbeat cascade, all naming task 13 (slice 3, "
        "host 1), which alone raised the runtime HBM allocation failure 30 s earlier.",
    )


def one_host_bad_input() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("gemma2-27b-rl", "rl", random.Random(1105))
    hosts = xpk_hosts(b, "v5p-32", 1, 4)
    t = startup(b, hosts, T0 + timedelta(days=2), ckpt_step=4500)
    bad = hosts[2]
    at = b.lines(
        ms(t, 3000),
        bad,
        """Traceback (most recent call last):
  File "/app/rl/restore.py", line 88, in restore_state
    return mngr.restore(step, args=ocp.args.StandardRestore(abstract_state))
  File "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/_src/serialization/type_handlers.py", line 1201, in deserialize
    ret = await asyncio.gather(*deserialize_ops)
ValueError: NOT_FOUND: Error opening "zarr" driver: Metadata at "gs://rl-ckpt/gemma2-27b-rl/4500/state/params.layer_17.attn.q_einsum.w/.zarray" does not exist [source locations='tensorstore/driver/kvs_backed_chunk_driver.cc:1262\\ntensorstore/driver/driver.cc:114']""",
    )
    for h in hosts:
        if h is bad:
            continue
        w = ms(at, 2000 + b.rng.randint(0, 300))
        b.lines(
            w,
            h,
            f"""Traceback (most recent call last):
  File "/app/rl/restore.py", line 91, in restore_state
    multihost_utils.sync_global_devices("restore_done")
jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: restore_done. Timed out task names:
/job:jax_worker/replica:0/task:{bad.task}""",
        )
    fail_jobset(b, ms(at, 1000), bad, 1)
    return b, expected(
        b,
        "diagnosed",
        "checkpoint-restore-failure",
        [bad.node],
        [("crash", "checkpoint-restore-failure", bad.node)],
        "Looks like 'every host failed at restore', but only task 2 raised the restore error (one parameter shard's "
        "metadata missing); the other three failed 2 s later with a different error, a barrier timeout naming task 2.",
    )


def bad_hardware_three_restarts() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("palm-lite-v6e", "ml-train", random.Random(1106))
    hosts = xpk_hosts(b, "v6e-256", 1, 8)
    t = T0 + timedelta(days=3)
    bad_node = hosts[4].node
    rows = []
    for attempt in range(3):
        t = startup(b, hosts, t, ckpt_step=1200 if attempt else None)
        t = steps(b, hosts, t, 1200 + attempt * 7, 6 + attempt)
        bad = next(h for h in hosts if h.node == bad_node)
        b.lines(
            t,
            bad,
            f"""E{t:%m%d %H:%M:%S.%f}     912 tpu_program_runner.cc:501] *** A program or fatal error occurred, all pending programs will fail, and results may be corrupted. This is likely an XLA compiler bug or your job hit a bad TPU hardware.
Physical location: tpu{17 + 0}:pe1:{attempt % 2}
Traceback (most recent call last):
  File "/app/maxtext/train.py", line 1021, in train_loop
    state, metrics = p_train_step(state, example_batch, nextrng)
jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device check-failure. Node 0 halted unexpectedly at tag:pc TensorCoreSequencer:1:0x169 (from TensorCoreSequencer:1:0x24b): no debugging message found for this tag:pc.""",
        )
        b.log(
            ms(t, 40),
            bad,
            "*** SIGABRT received by PID 31 (TID 912) on cpu 44 from PID 31; stack trace: ***",
        )
        heartbeat_cascade(b, hosts, [bad], ms(t, 45000))
        if attempt < 2:
            jobset_restart(b, ms(t, 47000), bad.job)
        else:
            b.event(
                ms(t, 47000),
                "JobSet",
                b.workload,
                "ReachedMaxRestarts",
                "jobset failed due to reaching max number of restarts",
                "jobset-controller",
            )
        sigterm_all(b, hosts, ms(t, 47100), skip=(bad,))
        rows.append(("crash", "tpu-hardware-fault", bad_node))
        t = ms(t, 120000)
        hosts = repod(b, hosts)
        # The scheduler places task 4 elsewhere on restart 1; the bad node gets another task — same node every time.
        if attempt == 0:
            hosts[4], hosts[6] = (
                Host(hosts[6].node, hosts[4].pod, hosts[4].job, 4),
                Host(hosts[4].node, hosts[6].pod, hosts[6].job, 6),
            )
    return b, expected(
        b,
        "diagnosed",
        "tpu-hardware-fault",
        [bad_node],
        rows,
        "Three attempts, each killed by 'Core halted unexpectedly' on the SAME node (as task 4, then task 6 after the "
        "pods were reshuffled, then task 6 again) -> bad TPU hardware on one VM; three disruption rows, one culprit; "
        "the JobSet ended with ReachedMaxRestarts.",
    )


def bad_checkpoint_loop() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("llm-pt-410m", "ml-train", random.Random(1107))
    hosts = xpk_hosts(b, "v5e-16", 1, 4)
    t = T0 + timedelta(days=4)
    rows = []
    for attempt in range(3):
        t = startup(b, hosts, t, ckpt_step=96000)
        for h in hosts:
            at = ms(t, b.rng.randint(0, 500))
            b.lines(
                at,
                h,
                """Traceback (most recent call last):
  File "/app/train.py", line 310, in <module>
    state = ckptr.restore(latest, target=abstract_state)
  File "/usr/local/lib/python3.11/site-packages/orbax/checkpoint/_src/handlers/pytree_checkpoint_handler.py", line 781, in restore
    raise FileNotFoundError(
FileNotFoundError: NOT_FOUND: Error opening "ocdbt" driver: gs://pt-410m/ckpt/96000/state/manifest.ocdbt does not exist; the checkpoint directory has no commit_success.txt (incomplete save?)""",
            )
            b.log(ms(at, 50), h, "Fatal Python error: Aborted", "ERROR")
        if attempt < 2:
            jobset_restart(b, ms(t, 5000), hosts[0].job)
        else:
            b.event(
                ms(t, 5000),
                "JobSet",
                b.workload,
                "ReachedMaxRestarts",
                "jobset failed due to reaching max number of restarts",
                "jobset-controller",
            )
        rows.append(("crash", "checkpoint-restore-failure", None))
        t = ms(t, 90000)
        hosts = repod(b, hosts)
    return b, expected(
        b,
        "diagnosed",
        "checkpoint-restore-failure",
        [],
        rows,
        "Every attempt fails on every host at the same restore with the same error (incomplete checkpoint 96000: no "
        "commit marker): a common cause, not a host problem, so no culprit; three disruptions, the last ending in "
        "ReachedMaxRestarts.",
    )


def healthy_noisy() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("vit-22b-pt", "ml-train", random.Random(1108))
    hosts = xpk_hosts(b, "v5p-64", 1, 8)
    t = startup(b, hosts, T0 + timedelta(days=5))
    for h in hosts:
        b.log(
            ms(t, 10),
            h,
            glog(
                "I",
                t,
                "tpu_initializer.cc:241",
                "tpunetd either not supported or disabled, falling back to Slice Builder",
            ),
            "INFO",
        )
        b.log(
            ms(t, 20),
            h,
            "UserWarning: Explicitly requested dtype float64 requested in zeros is not available, and will be truncated to dtype float32.",
            "WARNING",
        )
        b.log(
            ms(t, 30),
            h,
            glog(
                "W",
                t,
                "pjrt_executable.cc:521",
                "Assume version compatibility. PjRt-IFRT does not track XLA executable versions.",
            ),
            "WARNING",
        )
    t = steps(b, hosts, t, 0, 10)
    for h in hosts:
        b.log(ms(t, 5), h, f"INFO:absl:[process={h.task}] Saving checkpoint at step 20", "INFO")
        b.log(
            ms(t, 4000),
            h,
            "INFO:absl:Finished asynchronous save (blocking + background) in 11.82 seconds to gs://vit22b/ckpt/20",
            "INFO",
        )
    t = steps(b, hosts, ms(t, 5000), 20, 15)
    return b, expected(
        b,
        "no_failure",
        None,
        [],
        [],
        "35 steps of steady progress on all 8 hosts with a successful checkpoint; the warnings (tpunetd fallback, dtype "
        "truncation, preemption service disabled, IFRT version assumption) are benign.",
    )


def healthy_window_mid_run() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("qwen-sft-v6e", "ml-train", random.Random(1109))
    hosts = xpk_hosts(b, "v6e-32", 1, 8)
    steps(b, hosts, T0 + timedelta(days=6), 41750, 30, seconds=3.3)
    return b, expected(
        b,
        "no_failure",
        None,
        [],
        [],
        "The window starts mid-run (step 41750): no start-up lines, but steady step lines with falling loss on all 8 hosts "
        "to the end of the window; missing start-up is not a failure.",
    )


def pathways_worker_preempted() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("pw-gemma-9b", "pathways", random.Random(1110))
    t = T0 + timedelta(days=7)
    head_node = node_name("cpu-np", random.Random("pw-head"))
    head = Host(
        head_node,
        f"{b.workload}-pathways-head-0-0-{pod_suffix(b.rng)}",
        f"{b.workload}-pathways-head-0",
        0,
    )
    workers = [
        Host(
            node_name(f"v5e-64-{j}", random.Random(f"pw-{j}-{c}")),
            f"{b.workload}-worker-{j}-{c}-{pod_suffix(b.rng)}",
            f"{b.workload}-worker-{j}",
            j * 4 + c,
        )
        for j in range(2)
        for c in range(4)
    ]
    b.log(
        t,
        head,
        glog("I", t, "proxy_server.cc:125", "IFRT proxy server started with status OK", 1),
        "INFO",
    )
    b.log(
        ms(t, 900),
        head,
        "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
        "WARNING",
    )
    t = steps(b, [head], ms(t, 5000), 0, 40, seconds=5.0)
    lost = workers[6]
    b.gce_audit(t, lost.node, "compute.instances.preempted", "Instance was preempted.")
    b.event(
        ms(t, 1500),
        "Pod",
        lost.pod,
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        "kubelet",
        lost.node,
    )
    b.event(
        ms(t, 40000),
        "Node",
        lost.node,
        "NodeNotReady",
        f"Node {lost.node} status is now: NodeNotReady",
        "node-controller",
    )
    at = b.lines(
        ms(t, 25000),
        head,
        """Traceback (most recent call last):
  File "/app/train.py", line 402, in train_loop
    loss = float(metrics["loss"])
jax.errors.JaxRuntimeError: DATA_LOSS: Slice 1 of 2 became unavailable during execution of jit_train_step: worker pw-gemma-9b-worker-1-2 stopped responding""",
    )
    for w in workers:
        if w is not lost:
            x = ms(at, b.rng.randint(100, 800))
            b.log(
                x,
                w,
                glog(
                    "E",
                    x,
                    "grpc_client_session.cc:260",
                    "Connection to IFRT proxy server was terminated: CANCELLED: Session closed by client",
                ),
            )
    jobset_restart(b, ms(at, 3000), lost.job)
    return b, expected(
        b,
        "diagnosed",
        "spot-preemption",
        [lost.node],
        [("preemption", "spot-preemption", lost.node)],
        "Pathways: the head's DATA_LOSS (slice lost) and the workers' proxy-session-terminated lines are symptoms/cascades; "
        "the GCE audit log shows worker-1-2's Spot VM preempted 25 s earlier (graceful-shutdown event, then NotReady).",
    )


def kueue_preempted() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("dpo-sweep-7", "research", random.Random(1111))
    hosts = xpk_hosts(b, "v5e-32", 1, 8)
    t = startup(b, hosts, T0 + timedelta(days=8))
    t = steps(b, hosts, t, 0, 15)
    b.event(
        t,
        "Workload",
        f"jobset-{b.workload}-3c1f2",
        "Preempted",
        "Preempted to accommodate a workload (UID: 5b7c9f1e-2a44-4b0e-9d51-0c6c3f2e8a17, JobUID: "
        "e1f0a7d2-9c3b-41aa-8f5e-77b2c1d4e6f9) due to prioritization in the ClusterQueue",
        "kueue-admission",
    )
    b.event(
        ms(t, 300),
        "Workload",
        f"jobset-{b.workload}-3c1f2",
        "EvictedDueToPreempted",
        "Preempted to accommodate a higher priority workload",
        "kueue-admission",
    )
    sigterm_all(b, hosts, ms(t, 800))
    return b, expected(
        b,
        "diagnosed",
        "kueue-preemption",
        [],
        [("preemption", "kueue-preemption", None)],
        "Kueue evicted the running workload for a higher-priority one; all pods got SIGTERM together. Not an infra "
        "preemption and not a host problem: no culprit host.",
    )


def mldiag_webhook_warning() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("gemma3-eval", "ml-train", random.Random(1112))
    hosts = xpk_hosts(b, "v6e-16", 1, 4)
    t = startup(b, hosts, T0 + timedelta(days=9))
    for h in hosts:
        b.log(
            ms(t, 50),
            h,
            "WARNING:google_cloud_mldiagnostics.utils.host_utils:GKE_DIAGON_IDENTIFIER environment variable not set.",
            "WARNING",
        )
        b.log(
            ms(t, 60),
            h,
            "WARNING:google_cloud_mldiagnostics.utils.host_utils:Could not generate GKE workload identifier due to "
            "missing workload details. This might be because environment variables 'GKE_DIAGON_IDENTIFIER' or 'GKE_DIAGON_METADATA' "
            "are not set or are incomplete. Please ensure you are running SDK in a GKE environment with the GKE diagon operator "
            "webhook enabled.",
            "WARNING",
        )
    steps(b, hosts, ms(t, 2000), 0, 30)
    return b, expected(
        b,
        "diagnosed",
        "mldiag-webhook-not-injecting",
        [],
        [],
        "Training ran 30 steps without a disruption (no failure rows), but the ML Diagnostics SDK warns on every host that "
        "the injection webhook did not set GKE_DIAGON_* — a real set-up problem (profiles and runs will not be recorded) "
        "that a senior engineer reports as the finding; it is the same on all hosts, so no culprit.",
    )


INCIDENTS: dict[str, Incident] = {
    "01-ambiguous-two-roots": ambiguous_two_roots,
    "02-root-mid-traceback": traceback_middle,
    "03-culprit-earlier-warning": culprit_with_earlier_warning,
    "04-runtime-oom-multislice": runtime_oom_multislice,
    "05-one-host-bad-shard": one_host_bad_input,
    "06-bad-hardware-three-restarts": bad_hardware_three_restarts,
    "07-bad-checkpoint-loop": bad_checkpoint_loop,
    "08-healthy-noisy": healthy_noisy,
    "09-healthy-window-mid-run": healthy_window_mid_run,
    "10-pathways-worker-preempted": pathways_worker_preempted,
    "11-kueue-preempted": kueue_preempted,
    "12-mldiag-webhook-warning": mldiag_webhook_warning,
}


def main() -> None:
    for name, make in INCIDENTS.items():
        bundle, labels = make()
        bundle.write(HERE / name, labels)


if __name__ == "__main__":
    main()
