"""Generate the round-6 held-out incidents (precision traps and near-misses), deterministically.

Run `python tests/incidents6/make_incidents.py` from the repository root: every scenario folder
under tests/incidents6/ is rewritten with its bundle (a `gcloud logging read --format=json` array,
newest first, or JSONL) and its `expected.json` label. The lines follow the wording of the real
lines in /work/shared/reference/tpu-failure-modes.md, with the natural variation seen in practice.
Each label says what a senior TPU engineer would conclude, and `why` explains it.
"""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
# The glog prefix of a C++ log line ("E1104 10:00:00.000300"): rewritten to the entry's own time.
GLOG_STAMP = re.compile(r"^([IWEF])[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}")
PROJECT = "acme-ml-training"
ZONE = "us-west4-a"
CLUSTER = "tpu-west"
JAX_VERSION = "0.6.2"


@dataclass
class Pod:
    jobset: str
    job: int
    index: int
    name: str
    node: str
    task: int
    replicated: str = "slice-job"
    dotted_labels: bool = False


@dataclass
class Incident:
    name: str
    workload: str
    seed: int
    start: datetime
    jsonl: bool = False
    entries: list[dict[str, Any]] = field(default_factory=list)
    label: dict[str, Any] = field(default_factory=dict)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # --- names ---------------------------------------------------------------------------
    def suffix(self, n: int) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase + string.digits) for _ in range(n))

    def pool_nodes(self, pool: str, count: int) -> list[str]:
        group = "".join(self.rng.choice("0123456789abcdef") for _ in range(8))
        return [f"gke-{CLUSTER}-{pool}-{group}-{self.suffix(4)}" for _ in range(count)]

    def slices(self, jobset: str, pools: list[str], hosts: int, dotted: bool = False) -> list[Pod]:
        pods = []
        for job, pool in enumerate(pools):
            for index, node in enumerate(self.pool_nodes(pool, hosts)):
                name = f"{jobset}-slice-job-{job}-{index}-{self.suffix(5)}"
                pods.append(
                    Pod(jobset, job, index, name, node, job * hosts + index, dotted_labels=dotted)
                )
        return pods

    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)

    # --- entries -------------------------------------------------------------------------
    def _add(
        self, t: float, resource: dict[str, Any], log: str, severity: str, **payload: Any
    ) -> None:
        stamp = self.at(t).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        entry = {
            "insertId": self.suffix(16),
            "logName": f"projects/{PROJECT}/logs/{log}",
            "resource": resource,
            "timestamp": stamp,
            "severity": severity,
            "receiveTimestamp": stamp,
        }
        entry.update(payload)
        self.entries.append(entry)

    def say(self, t: float, pod: Pod, text: str, severity: str = "INFO", attempt: int = 0) -> None:
        """One line of the trainer container's output."""
        keys = {
            "jobset-name": pod.jobset,
            "replicatedjob-name": pod.replicated,
            "job-index": str(pod.job),
            "restart-attempt": str(attempt),
        }
        sep = "jobset.sigs.k8s.io" if pod.dotted_labels else "jobset_sigs_k8s_io"
        labels = {f"k8s-pod/{sep}/{k}": v for k, v in keys.items()}
        labels["compute.googleapis.com/resource_name"] = pod.node
        labels["k8s-pod/batch_kubernetes_io/job-completion-index"] = str(pod.index)
        labels["k8s-pod/xpk_google_com/workload"] = pod.jobset
        resource = {
            "type": "k8s_container",
            "labels": {
                "project_id": PROJECT,
                "location": ZONE,
                "cluster_name": CLUSTER,
                "namespace_name": "default",
                "pod_name": pod.name,
                "container_name": "jax-tpu",
            },
        }
        stamp = self.at(t)
        text = GLOG_STAMP.sub(lambda m: m.group(1) + stamp.strftime("%m%d %H:%M:%S.%f"), text)
        log = "stderr" if severity in ("WARNING", "ERROR", "CRITICAL") else "stdout"
        self._add(t, resource, log, severity, textPayload=text, labels=labels)

    def lines(
        self, t: float, pod: Pod, block: str, severity: str = "ERROR", attempt: int = 0
    ) -> None:
        """A multi-line message (traceback) split one entry per line, as Cloud Logging stores it."""
        for i, line in enumerate(block.strip("\n").split("\n")):
            self.say(t + i * 0.0007, pod, line, severity, attempt)

    def event(
        self,
        t: float,
        kind: str,
        name: str,
        reason: str,
        message: str,
        component: str,
        warning: bool = False,
        host: Optional[str] = None,
    ) -> None:
        if kind == "Node":
            rtype, rlabels = "k8s_node", {"node_name": name}
        elif kind == "Pod":
            rtype, rlabels = "k8s_pod", {"namespace_name": "default", "pod_name": name}
        else:
            rtype, rlabels = "k8s_cluster", {}
        resource = {
            "type": rtype,
            "labels": {"project_id": PROJECT, "location": ZONE, "cluster_name": CLUSTER, **rlabels},
        }
        involved = {"kind": kind, "name": name}
        if kind != "Node":
            involved["namespace"] = "default"
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        payload = {
            "kind": "Event",
            "type": "Warning" if warning else "Normal",
            "reason": reason,
            "message": message,
            "involvedObject": involved,
            "source": source,
        }
        self._add(t, resource, "events", "WARNING" if warning else "INFO", jsonPayload=payload)

    def node_log(self, t: float, node: str, log: str, text: str, severity: str = "INFO") -> None:
        resource = {
            "type": "k8s_node",
            "labels": {
                "project_id": PROJECT,
                "location": ZONE,
                "cluster_name": CLUSTER,
                "node_name": node,
            },
        }
        self._add(
            t, resource, log, severity, jsonPayload={"MESSAGE": text, "SYSLOG_IDENTIFIER": log}
        )

    def gce(self, t: float, node: str, method: str, status: str) -> None:
        resource = {
            "type": "gce_instance",
            "labels": {
                "project_id": PROJECT,
                "zone": ZONE,
                "instance_id": str(self.rng.randrange(10**18, 10**19)),
            },
        }
        payload = {
            "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
            "authenticationInfo": {"principalEmail": "system@google.com"},
            "serviceName": "compute.googleapis.com",
            "methodName": method,
            "resourceName": f"projects/{PROJECT}/zones/{ZONE}/instances/{node}",
            "request": {"@type": f"type.googleapis.com/{method}"},
            "status": {"message": status} if status else {},
        }
        self._add(
            t, resource, "cloudaudit.googleapis.com%2Fsystem_event", "NOTICE", protoPayload=payload
        )

    # --- composite healthy behaviour ---------------------------------------------------------
    def schedule(self, t: float, pods: list[Pod]) -> None:
        for pod in pods:
            self.event(
                t,
                "Pod",
                pod.name,
                "Scheduled",
                f"Successfully assigned default/{pod.name} to {pod.node}",
                "default-scheduler",
            )
            self.event(
                t + 2,
                "Pod",
                pod.name,
                "Pulled",
                'Container image "us-docker.pkg.dev/acme-ml-training/trainers/maxtext:2026-11-02" '
                "already present on machine",
                "kubelet",
                host=pod.node,
            )
            self.event(
                t + 3,
                "Pod",
                pod.name,
                "Started",
                "Started container jax-tpu",
                "kubelet",
                host=pod.node,
            )

    def boot(self, t: float, pods: list[Pod], attempt: int = 0) -> None:
        leader = pods[0]
        n = len(pods)
        self.say(t, leader, "Starting JAX distributed service on [::]:8482", attempt=attempt)
        for pod in pods:
            base = t + 0.5 + self.rng.random()
            self.say(
                base,
                pod,
                f"System Information: Jax Version: {JAX_VERSION} | Jaxlib Version: {JAX_VERSION} | "
                "Jax Backend: PJRT C API",
                attempt=attempt,
            )
            self.say(
                base + 0.2,
                pod,
                f"Connecting to JAX distributed service on {leader.jobset}-slice-job-0-0."
                f"{leader.jobset}:8482",
                attempt=attempt,
            )
            self.say(
                base + 6,
                pod,
                f"Num_devices: {4 * n}, shape (1, 1, 1, {4 * n}, 1, 1, 1, 1, 1, 1, 1, 1)",
                attempt=attempt,
            )

    def steps(
        self,
        t0: float,
        t1: float,
        pods: list[Pod],
        first: int,
        every: float = 120.0,
        attempt: int = 0,
        loss: float = 3.2,
        only_leader: bool = False,
    ) -> int:
        """Step lines on every host (or the leader) from t0 to t1; returns the next step number."""
        step, t = first, t0
        while t < t1:
            seconds = 4.1 + self.rng.random() * 0.1
            value = loss - 0.0004 * step + self.rng.random() * 0.01
            for pod in pods[:1] if only_leader else pods:
                self.say(
                    t + self.rng.random() * 0.3,
                    pod,
                    f"completed step: {step}, seconds: {seconds:.3f}, TFLOP/s/device: "
                    f"{150 + self.rng.random() * 3:.3f}, Tokens/s/device: {6900 + self.rng.random() * 40:.3f}, "
                    f"total_weights: 4194304, loss: {value:.3f}",
                    attempt=attempt,
                )
            step += int(every / 4.1)
            t += every
        return step

    # --- output --------------------------------------------------------------------------
    def labelled(self, label: dict[str, Any]) -> Incident:
        self.label = label
        return self

    def write(self, root: Path) -> None:
        folder = root / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("logs.*"):
            old.unlink()
        ordered = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        if self.jsonl:
            text = "".join(json.dumps(e) + "\n" for e in ordered)
            (folder / "logs.jsonl").write_text(text, encoding="utf-8")
        else:
            (folder / "logs.json").write_text(json.dumps(ordered) + "\n", encoding="utf-8")
        expected = {"workload": self.workload, **self.label}
        (folder / "expected.json").write_text(
            json.dumps(expected, indent=2) + "\n", encoding="utf-8"
        )


def healthy(
    name: str,
    workload: str,
    seed: int,
    minute: int,
    jsonl: bool = False,
    pools: tuple[str, ...] = ("v5e-pool-0", "v5e-pool-1"),
    run: float = 1000.0,
):
    """A healthy two-slice run: scheduled, booted and stepping; returns the incident and its pods."""
    inc = Incident(
        name, workload, seed, datetime(2026, 11, 4, 9, minute, tzinfo=timezone.utc), jsonl
    )
    pods = inc.slices(workload, list(pools), 4, dotted=seed % 2 == 1)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    inc.steps(60, run, pods, 1)
    return inc, pods


NO_FAILURE = {"status": "no_failure", "root_cause": None, "culprit_hosts": [], "failures": []}


# --- traps: alarming-looking lines in healthy runs ------------------------------------------------
def t01_dataloader_worker_oom() -> Incident:
    inc, pods = healthy("t01-dataloader-worker-oom", "gemma-ft-a", 101, 0)
    victim = pods[5]
    pid = 48213
    inc.node_log(
        700,
        victim.node,
        "kernel",
        f"Memory cgroup out of memory: Killed process {pid} (python3) total-vm:31457280kB, "
        "anon-rss:24117248kB, file-rss:8192kB, shmem-rss:0kB, UID:0 pgtables:49152kB oom_score_adj:-997",
        "ERROR",
    )
    inc.event(
        700.5,
        "Node",
        victim.node,
        "OOMKilling",
        f"Memory cgroup out of memory: Killed process {pid} (python3) total-vm:31457280kB, "
        "anon-rss:24117248kB, file-rss:8192kB",
        "kernel-monitor",
        warning=True,
        host=victim.node,
    )
    inc.say(
        701.2,
        victim,
        f"WARNING:absl:Grain worker process 3 (pid {pid}) exited unexpectedly with signal 9 "
        "(SIGKILL); restarting worker and resuming from its last checkpointed record.",
        "WARNING",
    )
    inc.say(703.8, victim, "INFO:absl:Grain worker process 3 restarted (pid 48977).")
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The kernel OOM killer hit a Grain data-loader child (python3) inside "
            "the container; the loader respawned it and every host, including that node, kept logging "
            "step lines. No container died, no restart: nothing was disrupted.",
        }
    )


def t02_gcs_429_retried() -> Incident:
    inc, pods = healthy("t02-gcs-429-retried", "llama-pt-b", 102, 5, jsonl=True)
    for k, pod in enumerate(pods):
        t = 900 + k * 0.4
        inc.say(
            t,
            pod,
            "INFO:absl:Saving checkpoint for step 210 to gs://acme-ckpt/llama-pt-b/checkpoints/210",
        )
    for k in (1, 6):
        inc.say(
            903 + k,
            pods[k],
            "W1104 09:20:00.000000   1944 gcs_file_system.cc:1188] Retrying request "
            "(attempt 1 of 10) after error: HTTP response code 429 with body 'The rate of change requests "
            "to the object acme-ckpt/llama-pt-b/checkpoints/210/_METADATA exceeds the rate limit. Please "
            "reduce the rate of create, update, and delete requests.'",
            "WARNING",
        )
        inc.say(
            905 + k,
            pods[k],
            "W1104 09:20:00.000000   1944 gcs_file_system.cc:1188] Retrying request "
            "(attempt 2 of 10) after error: HTTP response code 429",
            "WARNING",
        )
    for k, pod in enumerate(pods):
        inc.say(
            918 + k * 0.3, pod, "INFO:absl:Finished saving checkpoint for step 210 (took 18.1s)."
        )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "Two hosts got HTTP 429 while writing checkpoint metadata, the GCS client "
            "retried and the save finished on every host; training went on. Throttling that was absorbed "
            "by retries is not a failure.",
        }
    )


def t03_nan_eval_metric() -> Incident:
    inc, pods = healthy("t03-nan-eval-metric", "t5x-mt-c", 103, 10)
    leader = pods[0]
    inc.say(600, leader, "INFO:absl:Running eval on 'wmt_dev_subset' for 32 steps.")
    inc.say(
        641,
        leader,
        "/usr/local/lib/python3.11/site-packages/numpy/core/_methods.py:118: RuntimeWarning: "
        "invalid value encountered in divide",
        "WARNING",
    )
    inc.say(
        641.4,
        leader,
        "INFO:absl:eval step 116: eval/bleu=27.41, eval/accuracy=0.6833, "
        "eval/ood_loss=nan (0 tokens in the out-of-domain split), eval/loss=2.017",
    )
    inc.say(
        642,
        leader,
        "WARNING:absl:Metric eval/ood_loss is NaN; skipping it in TensorBoard summary.",
        "WARNING",
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "A NaN in one eval metric over an empty split, not the training loss: "
            "train loss lines stay finite before and after, eval loss is finite and the run continues.",
        }
    )


def t04_benign_noise() -> Incident:
    inc, pods = healthy("t04-benign-noise", "mixtral-pt-d", 104, 15, jsonl=True)
    leader = pods[0]
    inc.say(
        9.2,
        leader,
        "I1104 09:15:09.204418    120 coordination_service.cc:578] Initializing "
        "CoordinationService; heartbeat_timeout: 100s, shutdown_on_destruction: true",
    )
    for pod in pods:
        inc.say(
            9.9,
            pod,
            "I1104 09:15:09.918003    142 coordination_service_agent.cc:380] Coordination agent "
            "has successfully connected; heartbeat thread started (interval 10s, timeout 100s).",
        )
        inc.say(
            40,
            pod,
            "I1104 09:15:40.001234    201 megascale_context.cc:412] Megascale: DCN transport "
            "ready; graph hang threshold 5m, --megascale_grpc_premap_memory_bytes=17179869184, "
            "abort_on_hangs=false",
        )
        inc.say(
            44,
            pod,
            "W1104 09:15:44.551212    201 tpu_compiler.cc:1030] Program uses 15.31G of 15.75G "
            "HBM (97.2%); little headroom left for fragmentation.",
            "WARNING",
        )
    inc.say(
        45,
        leader,
        "Total memory size: 15.3 GB, Output size: 2.1 GB, Temp size: 9.7 GB, Argument size: "
        "3.5 GB, Host temp size: 0.0 GB.",
    )
    inc.say(
        600,
        leader,
        "I1104 09:25:00.200100    201 megascale_hang_detector.cc:211] Megascale hang detector "
        "armed: no hang detected in the last 300s (timeout 5m).",
    )
    inc.say(
        610,
        pods[4],
        "W1104 09:25:10.003321    188 dcn_transport.cc:744] Slow DCN transfer from "
        f"{pods[1].jobset}-slice-job-0-1 took 212ms (timeout 30s), retry not needed.",
        "WARNING",
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "Configuration and health lines that merely contain 'heartbeat', "
            "'timeout' and 'hang', plus a compiler warning that HBM use is near the limit: none of them is "
            "an error, the program fit and every host kept stepping.",
        }
    )


def t05_selftest_check_failed() -> Incident:
    inc, pods = healthy("t05-selftest-check-failed", "vit-pt-e", 105, 20)
    for pod in pods:
        inc.say(
            20,
            pod,
            "[preflight] running device self-test in a subprocess (expect-death test of "
            "the TPU runtime watchdog)",
        )
        inc.lines(
            21,
            pod,
            """
F1104 09:20:21.330017    311 watchdog_test.cc:88] Check failed: deliberately_triggered == false (1 vs. 0) expected-death probe
*** Check failure stack trace: ***
    @     0x7f3b2c1a4b2d  absl::log_internal::LogMessageFatal::~LogMessageFatal()
    @     0x5581d9e0a1f2  RunWatchdogProbe()""",
            "ERROR",
        )
        inc.say(
            22,
            pod,
            "[preflight] self-test subprocess exited with code 0 (death test passed: 1/1); "
            "continuing with training",
        )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The `Check failed` and stack trace come from a preflight death-test "
            "subprocess that is meant to abort; the preflight reported exit code 0 and training started "
            "on every host right after.",
        }
    )


def t06_maintenance_notice() -> Incident:
    inc, pods = healthy("t06-maintenance-notice", "llama-sft-f", 106, 25)
    node = pods[2].node
    epoch = int((inc.at(0) + timedelta(days=3)).timestamp())
    inc.event(
        300,
        "Node",
        node,
        "UpcomingMaintenance",
        f"Node {node} has maintenance scheduled; label cloud.google.com/scheduled-maintenance-time="
        f"{epoch} set",
        "gke-maintenance-handler",
        host=node,
    )
    inc.node_log(
        301,
        node,
        "kubelet",
        f"Updated node labels: cloud.google.com/scheduled-maintenance-time={epoch}",
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "A notice of host maintenance three days away; no termination, no "
            "shutdown, no restart happened in the window and the node's host kept stepping.",
        }
    )


def t07_sigterm_after_completion() -> Incident:
    inc = Incident(
        "t07-sigterm-after-completion",
        "bert-pt-g",
        107,
        datetime(2026, 11, 4, 9, 30, tzinfo=timezone.utc),
    )
    pods = inc.slices("bert-pt-g", ["v5e-pool-2", "v5e-pool-3"], 4, dotted=True)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    last = inc.steps(60, 1200, pods, 1)
    for k, pod in enumerate(pods):
        inc.say(
            1210 + k * 0.2,
            pod,
            f"completed step: {last}, seconds: 4.122, TFLOP/s/device: 151.002, "
            "Tokens/s/device: 6921.300, total_weights: 4194304, loss: 2.611",
        )
        inc.say(1212 + k * 0.2, pod, f"INFO:absl:Saved final checkpoint for step {last}.")
        inc.say(
            1215 + k * 0.2, pod, "Training complete. Waiting for all hosts at the final sync point."
        )
    for job in range(2):
        inc.event(
            1230,
            "Job",
            f"bert-pt-g-slice-job-{job}",
            "Completed",
            "Job completed",
            "job-controller",
        )
    inc.event(
        1231, "JobSet", "bert-pt-g", "AllJobsCompleted", "jobset completed", "jobset-controller"
    )
    for k, pod in enumerate(pods):
        inc.event(
            1233, "Pod", pod.name, "Killing", "Stopping container jax-tpu", "kubelet", host=pod.node
        )
        pid = 61 + k
        inc.say(
            1233.4,
            pod,
            f"*** SIGTERM received by PID {pid} (TID {pid}) on cpu {k * 3} from PID 1; "
            "stack trace: ***",
            "ERROR",
        )
        inc.say(
            1233.5,
            pod,
            "E1104 09:50:33.501122      61 process_state.cc:771] RAW: Raising signal 15 "
            "with default behavior",
            "ERROR",
        )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "Every host finished the last step and saved the final checkpoint, "
            "both Jobs and the JobSet completed; the SIGTERM lines are the sidecar-holding pods being "
            "stopped after completion. A completed run is not a failure.",
        }
    )


def t08_other_jobset_restart() -> Incident:
    inc, _ = healthy("t08-other-jobset-restart", "llm-pt", 108, 35)
    other = inc.slices("llm-pt-ablation", ["v5e-pool-6"], 4)
    inc.schedule(0, other)
    inc.boot(8, other)
    inc.steps(60, 400, other, 1)
    bad = other[2]
    inc.event(
        410,
        "Node",
        bad.node,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 2231 (python3) total-vm:98566144kB, "
        "anon-rss:91226112kB, file-rss:4096kB",
        "kernel-monitor",
        warning=True,
        host=bad.node,
    )
    for pod in other:
        if pod is bad:
            continue
        inc.lines(
            520,
            pod,
            f"""
E1104 09:43:40.118220     402 coordination_service_agent.cc:332] Polled an error from coordination service (this can be an error from this or another task).
F1104 09:43:40.118530     402 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):
/job:jax_worker/replica:0/task:{bad.task}
The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further.""",
        )
    inc.event(
        530,
        "JobSet",
        "llm-pt-ablation",
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action (first failed job: llm-pt-ablation-slice-job-0)",
        "jobset-controller",
        warning=True,
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The OOM kill, heartbeat cascade and JobSet restart all belong to the "
            "JobSet llm-pt-ablation (its own jobset-name label, its own node pool), whose name merely "
            "starts with the workload's. llm-pt itself stepped without interruption.",
        }
    )


def t09_foreign_preemption_and_cper() -> Incident:
    inc, pods = healthy("t09-foreign-preemption", "gemma-pt-h", 109, 40, jsonl=True)
    stranger = inc.pool_nodes("v5e-spot-pool", 1)[0]
    inc.gce(500, stranger, "compute.instances.preempted", "Instance was preempted.")
    inc.event(
        530,
        "Node",
        stranger,
        "NodeNotReady",
        f"Node {stranger} status is now: NodeNotReady",
        "node-controller",
        warning=True,
    )
    own = pods[3].node
    inc.node_log(
        800, own, "kernel", "mce: [Hardware Error]: Machine check events logged", "WARNING"
    )
    inc.node_log(
        800.1,
        own,
        "kernel",
        "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0",
        "WARNING",
    )
    inc.node_log(800.2, own, "kernel", "{1}[Hardware Error]: event severity: corrected", "WARNING")
    inc.event(
        801,
        "Node",
        own,
        "CperHardwareErrorCorrected",
        "{1}[Hardware Error]: event severity: corrected",
        "kernel-monitor",
        warning=True,
        host=own,
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The preempted VM is in a Spot pool the workload never used (no pod of "
            "it ran there); the CPER event on the workload's own node is a corrected error, informational. "
            "All hosts kept stepping.",
        }
    )


def t10_liveness_once() -> Incident:
    inc, pods = healthy("t10-liveness-once", "sd-xl-i", 110, 45)
    pod = pods[6]
    inc.event(
        640,
        "Pod",
        pod.name,
        "Unhealthy",
        'Liveness probe failed: Get "http://10.92.3.14:8080/healthz": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)",
        "kubelet",
        warning=True,
        host=pod.node,
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "One liveness probe timed out (during a checkpoint write); the failure "
            "threshold was not reached, no Killing event, no restart, and the pod kept stepping.",
        }
    )


def t11_image_pull_resolved() -> Incident:
    inc = Incident(
        "t11-image-pull-resolved",
        "qwen-ft-j",
        111,
        datetime(2026, 11, 4, 9, 50, tzinfo=timezone.utc),
    )
    pods = inc.slices("qwen-ft-j", ["v5e-pool-4", "v5e-pool-5"], 4)
    image = "us-docker.pkg.dev/acme-ml-training/trainers/maxtext:2026-11-04"
    for pod in pods:
        inc.event(
            0,
            "Pod",
            pod.name,
            "Scheduled",
            f"Successfully assigned default/{pod.name} to {pod.node}",
            "default-scheduler",
        )
        inc.event(
            1, "Pod", pod.name, "Pulling", f'Pulling image "{image}"', "kubelet", host=pod.node
        )
    for pod in pods[:3]:
        inc.event(
            14,
            "Pod",
            pod.name,
            "Failed",
            f'Failed to pull image "{image}": rpc error: code = '
            "Unavailable desc = failed to pull and unpack image: failed to copy: httpReadSeeker: failed "
            "open: unexpected status code 503 Service Unavailable",
            "kubelet",
            warning=True,
            host=pod.node,
        )
        inc.event(
            14.2,
            "Pod",
            pod.name,
            "Failed",
            "Error: ErrImagePull",
            "kubelet",
            warning=True,
            host=pod.node,
        )
        inc.event(
            16,
            "Pod",
            pod.name,
            "BackOff",
            f'Back-off pulling image "{image}"',
            "kubelet",
            warning=True,
            host=pod.node,
        )
    for pod in pods:
        inc.event(
            55,
            "Pod",
            pod.name,
            "Pulled",
            f'Successfully pulled image "{image}" in 38.2s',
            "kubelet",
            host=pod.node,
        )
        inc.event(
            56, "Pod", pod.name, "Started", "Started container jax-tpu", "kubelet", host=pod.node
        )
    inc.boot(60, pods)
    inc.steps(120, 1000, pods, 1)
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "Three pods hit a transient 503 from the registry and backed off once; "
            "the pull succeeded 40 s later, every container started together and training ran. A start-up "
            "delay of under a minute is not a failure.",
        }
    )


def t12_kueue_pending_then_admitted() -> Incident:
    inc = Incident(
        "t12-kueue-pending-admitted",
        "llama-pt-k",
        112,
        datetime(2026, 11, 4, 10, 0, tzinfo=timezone.utc),
    )
    pods = inc.slices("llama-pt-k", ["v5e-pool-0", "v5e-pool-1"], 4, dotted=True)
    wl = "jobset-llama-pt-k-3c1f9"
    inc.event(
        0,
        "Workload",
        wl,
        "Pending",
        "couldn't assign flavors to pod set slice-job: insufficient "
        "unused quota for google.com/tpu in flavor v5e-16, 32 more needed",
        "kueue-admission",
        warning=True,
    )
    inc.event(
        60,
        "Workload",
        wl,
        "Pending",
        "couldn't assign flavors to pod set slice-job: insufficient "
        "unused quota for google.com/tpu in flavor v5e-16, 32 more needed",
        "kueue-admission",
        warning=True,
    )
    inc.event(
        121,
        "Workload",
        wl,
        "QuotaReserved",
        "Quota reserved in ClusterQueue cq-tpu, wait time since queued was 121s",
        "kueue-admission",
    )
    inc.event(
        121.5,
        "Workload",
        wl,
        "Admitted",
        "Admitted by ClusterQueue cq-tpu, wait time since reservation was 0s",
        "kueue-admission",
    )
    inc.schedule(125, pods)
    inc.boot(133, pods)
    inc.steps(190, 1000, pods, 1)
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The workload waited two minutes for quota, was admitted, and then "
            "ran healthy. Queueing that ended in admission is not a failure.",
        }
    )


def t13_kueue_preempts_other() -> Incident:
    inc = Incident(
        "t13-kueue-preempts-other",
        "llama-pt-r",
        113,
        datetime(2026, 11, 4, 10, 30, tzinfo=timezone.utc),
    )
    victim_wl = "jobset-batch-infer-s-77ad2"
    ours = "jobset-llama-pt-r-0b6e4"
    inc.event(
        0,
        "Workload",
        ours,
        "Pending",
        "couldn't assign flavors to pod set slice-job: insufficient unused "
        "quota for google.com/tpu in flavor v5e-16, 16 more needed",
        "kueue-admission",
        warning=True,
    )
    inc.event(
        2,
        "Workload",
        victim_wl,
        "Preempted",
        "Preempted to accommodate a workload (UID: "
        "0b6e4a51-5d0e-4f0b-9a53-2f3e1c7d8a90, JobUID: 6f1c2d3e-aa01-4b7e-8c11-d2e3f4a5b6c7) due to "
        "prioritization in the ClusterQueue",
        "kueue-admission",
        warning=True,
    )
    other = inc.slices("batch-infer-s", ["v5e-pool-1"], 4)
    for pod in other:
        inc.event(
            3, "Pod", pod.name, "Killing", "Stopping container jax-tpu", "kubelet", host=pod.node
        )
        inc.say(
            3.2,
            pod,
            "*** SIGTERM received by PID 40 (TID 40) on cpu 2 from PID 0; stack trace: ***",
            "ERROR",
        )
    inc.event(
        40,
        "Workload",
        ours,
        "QuotaReserved",
        "Quota reserved in ClusterQueue cq-tpu, wait time since queued was 40s",
        "kueue-admission",
    )
    inc.event(
        40.3,
        "Workload",
        ours,
        "Admitted",
        "Admitted by ClusterQueue cq-tpu, wait time since reservation was 0s",
        "kueue-admission",
    )
    pods = inc.slices("llama-pt-r", ["v5e-pool-0", "v5e-pool-1"], 4)
    inc.schedule(45, pods)
    inc.boot(53, pods)
    inc.steps(110, 1000, pods, 1)
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "Kueue preempted a lower-priority workload (batch-infer-s) to admit this "
            "one; the preemption and the SIGTERMs are the other workload's. llama-pt-r waited 40 s, was "
            "admitted and ran healthy.",
        }
    )


def t14_vfio_busy_retried() -> Incident:
    inc = Incident(
        "t14-vfio-busy-retried",
        "mistral-ft-t",
        114,
        datetime(2026, 11, 4, 10, 55, tzinfo=timezone.utc),
        jsonl=True,
    )
    pods = inc.slices("mistral-ft-t", ["v5e-pool-2", "v5e-pool-3"], 4, dotted=True)
    inc.schedule(0, pods)
    slow = pods[2]
    for k in range(2):
        inc.say(
            6 + k * 10,
            slow,
            f"W1104 10:55:{6 + k * 10:02d}.120331      17 tpu_init.py:61] TPU not ready "
            "(UNKNOWN: TPU initialization failed: open(/dev/vfio/0): Device or resource busy: Device or "
            "resource busy; Couldn't open iommu group /dev/vfio/0); the previous container is still "
            f"releasing the device, retrying in 10s (attempt {k + 1}/30)",
            "WARNING",
        )
    inc.say(
        26, slow, "I1104 10:55:26.404121      17 tpu_init.py:70] TPU device opened on attempt 3."
    )
    inc.boot(28, pods)
    inc.steps(90, 1000, pods, 1)
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "A start-up wrapper retried opening /dev/vfio/0 twice while the previous "
            "container released it; the third attempt succeeded 20 s later, all hosts booted together and "
            "trained. No container failed.",
        }
    )


def t15_daemon_segfault() -> Incident:
    inc, pods = healthy("t15-daemon-segfault", "gemma-pt-u", 115, 55)
    node = pods[1].node
    daemon = f"gke-metrics-agent-{inc.suffix(5)}"
    resource = {
        "type": "k8s_container",
        "labels": {
            "project_id": PROJECT,
            "location": ZONE,
            "cluster_name": CLUSTER,
            "namespace_name": "kube-system",
            "pod_name": daemon,
            "container_name": "gke-metrics-agent",
        },
    }
    for i, text in enumerate(
        [
            "*** SIGSEGV received by PID 1 (TID 33) on cpu 3; stack trace: ***",
            "PC: @     0x55d1a3c0f2e1  (unknown)  otelcol.(*Collector).Run",
            "F1104 10:00:00.002000       1 collector.go:211] Check failed: exporter != nullptr",
        ]
    ):
        inc._add(
            300 + i * 0.001,
            resource,
            "stderr",
            "ERROR",
            textPayload=text,
            labels={
                "compute.googleapis.com/resource_name": node,
                "k8s-pod/k8s-app": "gke-metrics-agent",
            },
        )
    inc.event(
        301,
        "Pod",
        daemon,
        "BackOff",
        f"Back-off restarting failed container gke-metrics-agent in pod {daemon}_kube-system",
        "kubelet",
        warning=True,
        host=node,
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The SIGSEGV and Check failed come from the kube-system metrics agent on a "
            "node the workload uses, not from the trainer; the trainer on that node kept stepping. A system "
            "daemon crash-looping is worth a ticket but did not disrupt this workload.",
        }
    )


def n06_vfio_busy_fatal() -> Incident:
    inc = Incident(
        "n06-vfio-busy-fatal",
        "mistral-ft-v",
        206,
        datetime(2026, 11, 4, 12, 30, tzinfo=timezone.utc),
    )
    pods = inc.slices("mistral-ft-v", ["v5e-pool-4", "v5e-pool-5"], 4)
    inc.schedule(0, pods)
    bad = pods[6]
    inc.boot(8, [p for p in pods if p is not bad])
    inc.lines(
        12,
        bad,
        """
Traceback (most recent call last):
  File "/deps/MaxText/train.py", line 1012, in <module>
    app.run(main)
  File "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py", line 1002, in backends
    backend = _init_backend(platform)
jaxlib._jax.XlaRuntimeError: UNKNOWN: TPU initialization failed: open(/dev/vfio/0): Device or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/0""",
    )
    inc.event(
        15,
        "Job",
        "mistral-ft-v-slice-job-1",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{bad.name} failed with exit code 1 matching FailJob rule at "
        "index 0",
        "job-controller",
        warning=True,
    )
    inc.event(
        16,
        "JobSet",
        "mistral-ft-v",
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: mistral-ft-v-slice-job-1)",
        "jobset-controller",
        warning=True,
    )
    for pod in pods:
        if pod is not bad:
            inc.event(
                17,
                "Pod",
                pod.name,
                "Killing",
                "Stopping container jax-tpu",
                "kubelet",
                host=pod.node,
            )
    return inc.labelled(
        {
            "status": "diagnosed",
            "root_cause": "tpu-vfio-busy",
            "culprit_hosts": [bad.node],
            "failures": [{"kind": "crash", "symptom": "tpu-vfio-busy", "host": bad.node}],
            "why": "Unlike the retried trap, JAX itself raised on the busy VFIO group on one host, the "
            "container exited 1 and XPK's FailJob rule failed the JobSet before training began.",
        }
    )


def t16_node_not_ready_blip() -> Incident:
    inc, pods = healthy("t16-node-not-ready-blip", "gemma-pt-w", 116, 0, jsonl=True)
    node = pods[4].node
    inc.node_log(500, node, "kubelet", "Started kubelet (restart after kubelet config update)")
    inc.event(
        512,
        "Node",
        node,
        "NodeNotReady",
        f"Node {node} status is now: NodeNotReady",
        "kubelet",
        warning=True,
        host=node,
    )
    inc.event(
        540,
        "Node",
        node,
        "NodeReady",
        f"Node {node} status is now: NodeReady",
        "kubelet",
        host=node,
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The kubelet on one of the workload's nodes restarted and the "
            "node reported NotReady for under 30 s, then Ready; containers are untouched by a "
            "kubelet restart and the pod on that node kept stepping through it.",
        }
    )


def t17_daemonset_evicted() -> Incident:
    inc, pods = healthy("t17-daemonset-evicted", "llama-pt-x", 117, 5)
    node = pods[7].node
    daemon = f"fluentbit-gke-{inc.suffix(5)}"
    resource = {
        "type": "k8s_pod",
        "labels": {
            "project_id": PROJECT,
            "location": ZONE,
            "cluster_name": CLUSTER,
            "namespace_name": "kube-system",
            "pod_name": daemon,
        },
    }
    inc._add(
        650,
        resource,
        "events",
        "WARNING",
        jsonPayload={
            "kind": "Event",
            "type": "Warning",
            "reason": "Evicted",
            "message": "The node was low on resource: ephemeral-storage. Threshold quantity: 10120387530, available: "
            "9712144Ki. Container fluentbit was using 3145728Ki, request is 0, has larger consumption of "
            "ephemeral-storage.",
            "involvedObject": {"kind": "Pod", "name": daemon, "namespace": "kube-system"},
            "source": {"component": "kubelet", "host": node},
        },
    )
    inc.event(
        651,
        "Node",
        node,
        "EvictionThresholdMet",
        "Attempting to reclaim ephemeral-storage",
        "kubelet",
        warning=True,
        host=node,
    )
    inc.event(
        700,
        "Node",
        node,
        "NodeHasNoDiskPressure",
        f"Node {node} status is now: NodeHasNoDiskPressure",
        "kubelet",
        host=node,
    )
    return inc.labelled(
        {
            **NO_FAILURE,
            "why": "The kubelet evicted the logging DaemonSet's pod (kube-system) to "
            "reclaim disk on one of the workload's nodes; the trainer pod there was not evicted and "
            "kept stepping, and disk pressure cleared within a minute.",
        }
    )


# --- near-misses: the same kind of line, but this time it breaks the run ------------------------------
def cascade(inc: Incident, t: float, pods: list[Pod], dead: Pod, attempt: int = 0) -> None:
    for pod in pods:
        if pod is dead:
            continue
        inc.lines(
            t + inc.rng.random(),
            pod,
            f"""
E1104 10:00:00.000000     402 coordination_service_agent.cc:332] Polled an error from coordination service (this can be an error from this or another task).
F1104 10:00:00.000300     402 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):
/job:jax_worker/replica:0/task:{dead.task}
The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further.""",
            attempt=attempt,
        )


def n01_trainer_oom() -> Incident:
    inc = Incident(
        "n01-trainer-oom-killed",
        "gemma-ft-m",
        201,
        datetime(2026, 11, 4, 10, 10, tzinfo=timezone.utc),
    )
    pods = inc.slices("gemma-ft-m", ["v5e-pool-0", "v5e-pool-1"], 4)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    inc.steps(60, 600, pods, 1)
    victim = pods[5]
    inc.say(
        598,
        victim,
        "WARNING:absl:Grain worker process 1 (pid 3301) exited unexpectedly with signal 9 "
        "(SIGKILL); restarting worker and resuming from its last checkpointed record.",
        "WARNING",
    )
    inc.node_log(
        610,
        victim.node,
        "kernel",
        "Memory cgroup out of memory: Killed process 77 (python3) "
        "total-vm:201326592kB, anon-rss:188743680kB, file-rss:12288kB, shmem-rss:0kB",
        "ERROR",
    )
    inc.event(
        610.4,
        "Node",
        victim.node,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 77 "
        "(python3) total-vm:201326592kB, anon-rss:188743680kB, file-rss:12288kB",
        "kernel-monitor",
        warning=True,
        host=victim.node,
    )
    others = [p for p in pods if p is not victim]
    inc.steps(602, 640, others, 145)
    cascade(inc, 715, pods, victim)
    inc.event(
        722,
        "JobSet",
        "gemma-ft-m",
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action (first failed job: gemma-ft-m-slice-job-1)",
        "jobset-controller",
        warning=True,
    )
    again = [
        Pod(
            p.jobset,
            p.job,
            p.index,
            f"gemma-ft-m-slice-job-{p.job}-{p.index}-{inc.suffix(5)}",
            p.node,
            p.task,
        )
        for p in pods
    ]
    inc.schedule(760, again)
    inc.boot(770, again, attempt=1)
    inc.steps(830, 1400, again, 120, attempt=1)
    return inc.labelled(
        {
            "status": "diagnosed",
            "root_cause": "host-oom-killed",
            "culprit_hosts": [victim.node],
            "failures": [{"kind": "crash", "symptom": "host-oom-killed", "host": victim.node}],
            "why": "This time the OOM killer took the trainer itself (pid 77, 188 GB RSS), not a loader "
            "child: task 5 stopped stepping, the other tasks named task:5 as dead and the JobSet "
            "restarted. Root cause on task 5's node.",
        }
    )


def n02_gcs_429_fatal() -> Incident:
    inc = Incident(
        "n02-gcs-429-fatal",
        "llama-pt-n",
        202,
        datetime(2026, 11, 4, 10, 40, tzinfo=timezone.utc),
        jsonl=True,
    )
    pods = inc.slices("llama-pt-n", ["v5e-pool-2", "v5e-pool-3"], 4, dotted=True)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    inc.steps(60, 900, pods, 1)
    for pod in pods:
        inc.say(
            900,
            pod,
            "INFO:absl:Saving checkpoint for step 210 to gs://acme-ckpt/llama-pt-n/checkpoints/210",
        )
    bad = pods[0]
    for attempt in range(1, 5):
        inc.say(
            900 + attempt * 6,
            bad,
            f"W1104 10:55:0{attempt}.551002   1944 gcs_file_system.cc:1188] Retrying "
            f"request (attempt {attempt} of 10) after error: HTTP response code 429",
            "WARNING",
        )
    inc.lines(
        1010,
        bad,
        """
Traceback (most recent call last):
  File "/deps/MaxText/train.py", line 1012, in <module>
    app.run(main)
  File "/deps/MaxText/checkpointing.py", line 341, in save_checkpoint
    checkpoint_manager.save(step, args=args)
tensorflow.python.framework.errors_impl.AbortedError: All 10 retry attempts failed. The last failure: Error executing an HTTP request: HTTP response code 429 with body '{"error":{"code":429,"message":"The rate of change requests to the object acme-ckpt/llama-pt-n/checkpoints/210/_CHECKPOINT_METADATA exceeds the rate limit. Please reduce the rate of create, update, and delete requests."}}'""",
    )
    inc.event(
        1014,
        "Job",
        "llama-pt-n-slice-job-0",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{bad.name} failed with exit code 1 matching FailJob rule "
        "at index 0",
        "job-controller",
        warning=True,
    )
    inc.event(
        1015,
        "JobSet",
        "llama-pt-n",
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: llama-pt-n-slice-job-0)",
        "jobset-controller",
        warning=True,
    )
    for pod in pods[1:]:
        inc.event(
            1016, "Pod", pod.name, "Killing", "Stopping container jax-tpu", "kubelet", host=pod.node
        )
    return inc.labelled(
        {
            "status": "diagnosed",
            "root_cause": "gcs-throttling",
            "culprit_hosts": [bad.node],
            "failures": [{"kind": "crash", "symptom": "gcs-throttling", "host": bad.node}],
            "why": "Task 0 writes the checkpoint metadata; its retries against the 429 rate limit were "
            "exhausted, it raised AbortedError and exited 1, which XPK's FailJob rule turns into a "
            "failed JobSet. Same 429 line as the trap, but here the retries did not absorb it.",
        }
    )


def n03_nan_loss_exit() -> Incident:
    inc = Incident(
        "n03-nan-loss-exit", "t5x-mt-o", 203, datetime(2026, 11, 4, 11, 5, tzinfo=timezone.utc)
    )
    pods = inc.slices("t5x-mt-o", ["v5e-pool-4", "v5e-pool-5"], 4)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    step = inc.steps(60, 700, pods, 1)
    for pod in pods:
        inc.say(
            700 + inc.rng.random(),
            pod,
            f"completed step: {step}, seconds: 4.131, TFLOP/s/device: 150.7, "
            "Tokens/s/device: 6911.4, total_weights: 4194304, loss: nan",
        )
        inc.lines(
            702 + inc.rng.random(),
            pod,
            f"""
Traceback (most recent call last):
  File "/app/train.py", line 388, in train_loop
    raise ValueError(f"Loss is NaN at step {{step}}; aborting so the last good checkpoint is kept.")
ValueError: Loss is NaN at step {step}; aborting so the last good checkpoint is kept.""",
        )
    inc.event(
        705,
        "Job",
        "t5x-mt-o-slice-job-0",
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{pods[0].name} failed with exit code 1 matching FailJob "
        "rule at index 0",
        "job-controller",
        warning=True,
    )
    inc.event(
        706,
        "JobSet",
        "t5x-mt-o",
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: t5x-mt-o-slice-job-0)",
        "jobset-controller",
        warning=True,
    )
    return inc.labelled(
        {
            "status": "diagnosed",
            "root_cause": "nan-inf-loss",
            "culprit_hosts": [],
            "failures": [{"kind": "crash", "symptom": "nan-inf-loss", "host": None}],
            "why": "The training loss itself went NaN on every host at the same step and the code exited "
            "1 deliberately; the JobSet failed without restart. Identical on all hosts, so no single "
            "culprit.",
        }
    )


def n04_maintenance_terminated() -> Incident:
    inc = Incident(
        "n04-maintenance-terminated",
        "llama-sft-p",
        204,
        datetime(2026, 11, 4, 11, 30, tzinfo=timezone.utc),
    )
    pods = inc.slices("llama-sft-p", ["v5e-pool-6", "v5e-pool-7"], 4, dotted=True)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    inc.steps(60, 800, pods, 1)
    node = pods[6].node
    epoch = int((inc.at(780)).timestamp())
    inc.event(
        200,
        "Node",
        node,
        "UpcomingMaintenance",
        f"Node {node} has maintenance scheduled; label cloud.google.com/scheduled-maintenance-time="
        f"{epoch} set",
        "gke-maintenance-handler",
        host=node,
    )
    inc.gce(
        790,
        node,
        "compute.instances.terminateOnHostMaintenance",
        "Instance terminated during Compute Engine maintenance.",
    )
    inc.event(
        791,
        "Pod",
        pods[6].name,
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        "kubelet",
        warning=True,
        host=node,
    )
    inc.say(
        791.5,
        pods[6],
        "*** SIGTERM received by PID 58 (TID 58) on cpu 12 from PID 1; stack trace: ***",
        "ERROR",
    )
    cascade(inc, 905, pods, pods[6])
    inc.event(
        912,
        "JobSet",
        "llama-sft-p",
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action (first failed job: llama-sft-p-slice-job-1)",
        "jobset-controller",
        warning=True,
    )
    return inc.labelled(
        {
            "status": "diagnosed",
            "root_cause": "host-maintenance",
            "culprit_hosts": [node],
            "failures": [{"kind": "preemption", "symptom": "host-maintenance", "host": node}],
            "why": "The maintenance notice this time came due inside the window: GCE terminated the VM "
            "for host maintenance, the pod got the node-shutdown SIGTERM, the others named its task "
            "and the JobSet restarted. The infra event on the named host is the root cause.",
        }
    )


def n05_liveness_restart() -> Incident:
    inc = Incident(
        "n05-liveness-restart", "sd-xl-q", 205, datetime(2026, 11, 4, 12, 0, tzinfo=timezone.utc)
    )
    pods = inc.slices("sd-xl-q", ["v5e-pool-0", "v5e-pool-1"], 4)
    inc.schedule(0, pods)
    inc.boot(8, pods)
    inc.steps(60, 700, [p for p in pods if p is not pods[3]], 1)
    inc.steps(60, 600, [pods[3]], 1)
    pod = pods[3]
    for k in range(3):
        inc.event(
            610 + k * 30,
            "Pod",
            pod.name,
            "Unhealthy",
            'Liveness probe failed: Get "http://10.92.1.7:8080/healthz": context deadline exceeded '
            "(Client.Timeout exceeded while awaiting headers)",
            "kubelet",
            warning=True,
            host=pod.node,
        )
    inc.event(
        671,
        "Pod",
        pod.name,
        "Killing",
        "Container jax-tpu failed liveness probe, will be restarted",
        "kubelet",
        host=pod.node,
    )
    inc.say(
        671.3,
        pod,
        "*** SIGTERM received by PID 64 (TID 64) on cpu 7 from PID 0; stack trace: ***",
        "ERROR",
    )
    inc.event(
        702, "Pod", pod.name, "Started", "Started container jax-tpu", "kubelet", host=pod.node
    )
    inc.say(
        705,
        pods[0],
        f"E1104 12:11:45.330112     120 coordination_service.cc:612] /job:jax_worker/replica:0/"
        f"task:{pod.task} unexpectedly tried to connect with a different incarnation. It has likely "
        "restarted.",
        "ERROR",
    )
    inc.say(
        705.2,
        pods[0],
        f"E1104 12:11:45.330400     120 coordination_service.cc:1003] /job:jax_worker/"
        f"replica:0/task:{pod.task} Heartbeat: Incarnation ID mismatch: expecting 7215009915130571377 but "
        "got 880132290841192 . The task has restarted and likely crashed earlier - check for any earlier "
        "errors or any scheduler events (e.g. preemption, eviction) to debug further.",
        "ERROR",
    )
    cascade(inc, 712, pods, pod)
    inc.event(
        720,
        "JobSet",
        "sd-xl-q",
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action (first failed job: sd-xl-q-slice-job-0)",
        "jobset-controller",
        warning=True,
    )
    return inc.labelled(
        {
            "status": "diagnosed",
            "root_cause": "liveness-probe-restart",
            "culprit_hosts": [pod.node],
            "failures": [
                {"kind": "restart", "symptom": "liveness-probe-restart", "host": pod.node}
            ],
            "why": "Unlike the single failed probe of the trap, three failures in a row made the kubelet "
            "kill and restart the container; the coordinator then reported the task's incarnation "
            "mismatch, the other tasks failed and the JobSet restarted. Root cause on that pod's node.",
        }
    )


ALL = [
    t01_dataloader_worker_oom,
    t02_gcs_429_retried,
    t03_nan_eval_metric,
    t04_benign_noise,
    t05_selftest_check_failed,
    t06_maintenance_notice,
    t07_sigterm_after_completion,
    t08_other_jobset_restart,
    t09_foreign_preemption_and_cper,
    t10_liveness_once,
    t11_image_pull_resolved,
    t12_kueue_pending_then_admitted,
    t13_kueue_preempts_other,
    t14_vfio_busy_retried,
    t15_daemon_segfault,
    t16_node_not_ready_blip,
    t17_daemonset_evicted,
    n06_vfio_busy_fatal,
    n01_trainer_oom,
    n02_gcs_429_fatal,
    n03_nan_loss_exit,
    n04_maintenance_terminated,
    n05_liveness_restart,
]


def generate(root: Path) -> list[str]:
    """Write every scenario folder under root; returns their names."""
    names = []
    for make in ALL:
        incident = make()
        incident.write(root)
        names.append(incident.name)
    return names


if __name__ == "__main__":
    generate(HERE)
