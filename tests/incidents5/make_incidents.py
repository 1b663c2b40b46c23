"""Generate the round-5 held-out incidents (deterministic): long, messy runs with several
disruptions of different kinds, Pathways head/worker layouts, structured JSON logging and
multi-line tracebacks. Run: `python tests/incidents5/make_incidents.py` (rewrites the folders)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"


@dataclass
class Pod:
    name: str
    node: str
    task: int
    job: int
    completion: int
    replicated: str = "slice-job"
    container: str = "jax-tpu"


@dataclass
class Incident:
    """One scenario's log bundle under construction."""

    name: str
    workload: str
    project: str
    cluster: str
    zone: str
    start: datetime
    seed: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    attempt: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # --- names -----------------------------------------------------------------
    def token(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def nodes(self, pool: str, count: int) -> list[str]:
        prefix = f"gke-{self.cluster}-{pool}-{self.token(8, '0123456789abcdef')}"
        return [f"{prefix}-{self.token(4)}" for _ in range(count)]

    def pods(self, slices: list[list[str]], replicated: str = "slice-job") -> list[Pod]:
        per = len(slices[0])
        return [
            Pod(
                f"{self.workload}-{replicated}-{j}-{c}-{self.token(5)}",
                node,
                j * per + c,
                j,
                c,
                replicated,
            )
            for j, nodes in enumerate(slices)
            for c, node in enumerate(nodes)
        ]

    def ts(self, seconds: float) -> str:
        moment = self.start + timedelta(seconds=seconds)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    # --- entries -----------------------------------------------------------------
    def _add(self, seconds: float, entry: dict[str, Any]) -> None:
        stamp = self.ts(seconds)
        entry.update(insertId=self.token(16), timestamp=stamp, receiveTimestamp=stamp)
        self.entries.append(entry)

    def _pod_labels(self, pod: Pod) -> dict[str, str]:
        # Both spellings of the JobSet label keys occur in real exports; alternate by attempt.
        sep = "_" if self.attempt % 2 == 0 else "."
        dom = f"jobset{sep}sigs{sep}k8s{sep}io"
        return {
            "compute.googleapis.com/resource_name": pod.node,
            f"k8s-pod/{dom}/jobset-name": self.workload,
            f"k8s-pod/{dom}/replicatedjob-name": pod.replicated,
            f"k8s-pod/{dom}/job-index": str(pod.job),
            f"k8s-pod/{dom}/restart-attempt": str(self.attempt),
            f"k8s-pod/batch{sep}kubernetes{sep}io/job-completion-index": str(pod.completion),
        }

    def _container_resource(self, pod: Pod, container: Optional[str]) -> dict[str, Any]:
        return {
            "type": "k8s_container",
            "labels": {
                "project_id": self.project,
                "location": self.zone,
                "cluster_name": self.cluster,
                "namespace_name": "default",
                "pod_name": pod.name,
                "container_name": container or pod.container,
            },
        }

    def text(
        self,
        seconds: float,
        pod: Pod,
        line: str,
        stream: str = "stderr",
        severity: str = "ERROR",
        container: Optional[str] = None,
    ) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{self.project}/logs/{stream}",
                "resource": self._container_resource(pod, container),
                "severity": severity,
                "textPayload": line,
                "labels": self._pod_labels(pod),
            },
        )

    def lines(self, seconds: float, pod: Pod, block: str, **kw: Any) -> None:
        """A traceback split line by line, as an unbuffered stderr stream is collected."""
        for i, line in enumerate(block.strip("\n").split("\n")):
            self.text(seconds + i * 0.001, pod, line, **kw)

    def structured(
        self, seconds: float, pod: Pod, message: str, severity: str, logger: str
    ) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{self.project}/logs/stdout",
                "resource": self._container_resource(pod, None),
                "severity": severity,
                "jsonPayload": {
                    "message": message,
                    "severity": severity,
                    "logger": logger,
                    "process": pod.task,
                },
                "labels": self._pod_labels(pod),
            },
        )

    def event(
        self,
        seconds: float,
        reason: str,
        message: str,
        kind: str,
        name: str,
        warning: bool = True,
        component: str = "kubelet",
        host: Optional[str] = None,
    ) -> None:
        if kind == "Node":
            resource = {"type": "k8s_node", "labels": {"node_name": name}}
        elif kind == "Pod":
            resource = {
                "type": "k8s_pod",
                "labels": {"namespace_name": "default", "pod_name": name},
            }
        else:
            resource = {"type": "k8s_cluster", "labels": {}}
        resource["labels"].update(
            project_id=self.project, location=self.zone, cluster_name=self.cluster
        )
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        self._add(
            seconds,
            {
                "logName": f"projects/{self.project}/logs/events",
                "resource": resource,
                "severity": "WARNING" if warning else "INFO",
                "jsonPayload": {
                    "kind": "Event",
                    "type": "Warning" if warning else "Normal",
                    "reason": reason,
                    "message": message,
                    "involvedObject": {"kind": kind, "name": name, "namespace": "default"},
                    "source": source,
                },
            },
        )

    def gce(self, seconds: float, method: str, node: str, status: str) -> None:
        self._add(
            seconds,
            {
                "logName": f"projects/{self.project}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                "resource": {
                    "type": "gce_instance",
                    "labels": {
                        "project_id": self.project,
                        "zone": self.zone,
                        "instance_id": str(self.rng.randrange(10**17, 10**18)),
                    },
                },
                "severity": "NOTICE",
                "protoPayload": {
                    "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                    "authenticationInfo": {"principalEmail": "system@google.com"},
                    "serviceName": "compute.googleapis.com",
                    "methodName": method,
                    "resourceName": f"projects/{self.project}/zones/{self.zone}/instances/{node}",
                    "status": {"message": status},
                },
            },
        )

    # --- recurring stories ---------------------------------------------------------------
    def launch(self, seconds: float, pods: list[Pod]) -> None:
        """Pods created, scheduled and starting up; the JAX client's usual start-up chatter."""
        for pod in pods:
            job = f"{self.workload}-{pod.replicated}-{pod.job}"
            self.event(
                seconds,
                "SuccessfulCreate",
                f"Created pod: {pod.name}",
                "Job",
                job,
                warning=False,
                component="job-controller",
            )
            self.event(
                seconds + 1,
                "Scheduled",
                f"Successfully assigned default/{pod.name} to {pod.node}",
                "Pod",
                pod.name,
                warning=False,
                component="default-scheduler",
            )
            self.event(
                seconds + 4,
                "Started",
                f"Started container {pod.container}",
                "Pod",
                pod.name,
                warning=False,
                host=pod.node,
            )
            self.text(
                seconds + 9, pod, "The JAX preemption service is disabled.", severity="WARNING"
            )
            self.text(
                seconds + 11,
                pod,
                f"Initialized jax.distributed: process {pod.task}, coordinator "
                f"{self.workload}-slice-job-0-0.{self.workload}:8482",
                stream="stdout",
                severity="INFO",
            )

    def steps(
        self,
        seconds: float,
        pod: Pod,
        first: int,
        count: int,
        every: float,
        loss: float,
        structured: bool = False,
    ) -> float:
        """MaxText-style step lines from one host; returns the time after the last."""
        for i in range(count):
            step = first + i
            line = (
                f"completed step: {step}, seconds: {every + self.rng.uniform(-0.4, 0.4):.3f}, "
                f"TFLOP/s/device: {self.rng.uniform(180, 196):.3f}, "
                f"Tokens/s/device: {self.rng.uniform(4100, 4300):.3f}, "
                f"total_weights: 1572864, loss: {loss - 0.0008 * step:.3f}"
            )
            at = seconds + i * every
            if structured:
                self.structured(at, pod, line, "INFO", "maxtext.train")
            else:
                self.text(at, pod, line, stream="stdout", severity="INFO")
        return seconds + count * every

    def heartbeat_cascade(
        self, seconds: float, pods: list[Pod], dead: int, joined: bool = True
    ) -> None:
        """What every surviving task prints once task `dead` stopped heart-beating."""
        coordinator = next(p for p in pods if p.task == 0)
        if dead != 0:
            self.text(
                seconds,
                coordinator,
                f"E0000 coordination_service.cc:1138] Task /job:jax_worker/replica:0/"
                f"task:{dead} heartbeat timeout. This indicates that the remote task has "
                "failed, got preempted, or crashed unexpectedly. Check the task logs for "
                "an earlier error or scheduler events (e.g. preemption, eviction) to "
                "debug further.",
            )
        for pod in pods:
            if pod.task == dead:
                continue
            at = seconds + 0.5 + pod.task * 0.05
            pid = self.rng.randint(20, 400)
            self.text(
                at,
                pod,
                f"E0000 {pid} coordination_service_agent.cc:332] Polled an error from "
                "coordination service (this can be an error from this or another task).",
            )
            fatal = (
                f"F0000 {pid} client.h:77] Terminating process because the JAX distributed "
                "service detected fatal errors. This most likely indicates that another "
                "task died; see the other task logs for more details. Disable Python "
                "buffering, i.e. `python -u`, to be sure to see all the previous output. "
                "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped "
                f"sending heartbeats):\n/job:jax_worker/replica:0/task:{dead}\nThe tasks "
                "have crashed. Check the task logs for an earlier error, or scheduler "
                "events (e.g. preemption, eviction) to debug further."
            )
            if joined or pod.task % 2:
                self.text(at + 0.01, pod, fatal)
            else:
                self.lines(at + 0.01, pod, fatal)
            self.text(
                at + 0.02,
                pod,
                f"*** SIGABRT received by PID {pid} (TID {pid}) on cpu "
                f"{self.rng.randint(0, 200)} from PID {pid}; stack trace: ***",
            )

    def restart(self, seconds: float, failed_job: str) -> None:
        self.event(
            seconds,
            "RestartJobSetFailurePolicyAction",
            f"applying RestartJobSet failure policy action (first failed job: {failed_job})",
            "JobSet",
            self.workload,
            component="jobset-controller",
        )

    def sigterm(self, seconds: float, pods: list[Pod]) -> None:
        for pod in pods:
            pid = self.rng.randint(20, 400)
            self.text(
                seconds + pod.task * 0.03,
                pod,
                f"*** SIGTERM received by PID {pid} (TID "
                f"{pid}) on cpu {self.rng.randint(0, 200)} from PID 0; stack trace: ***",
            )

    def node_down(self, seconds: float, node: str) -> None:
        self.event(
            seconds,
            "NodeNotReady",
            f"Node {node} status is now: NodeNotReady",
            "Node",
            node,
            component="node-controller",
        )

    def write(self, expected: dict[str, Any], jsonl: bool = False) -> None:
        folder = HERE / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("logs.json*"):
            old.unlink()
        ordered = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        if jsonl:
            text = "".join(json.dumps(e) + "\n" for e in reversed(ordered))
            (folder / "logs.jsonl").write_text(text, encoding="utf-8")
        else:
            (folder / "logs.json").write_text(
                json.dumps(ordered, indent=1) + "\n", encoding="utf-8"
            )
        body = {"workload": self.workload, **expected}
        (folder / "expected.json").write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------------------------
# Scenarios. Each returns (incident, expected-without-workload). Labels are what a senior TPU
# engineer concludes from the whole window; `why` records the judgement.
# ----------------------------------------------------------------------------------------------

T0 = datetime(2026, 3, 9, 7, 0, 0, tzinfo=timezone.utc)
HEX = "0123456789abcdef"


def new(name: str, workload: str, seed: int, cluster: str = "ml-tpu-prod") -> Incident:
    return Incident(name, workload, f"proj-{seed:03d}-tpu", cluster, "us-central2-b", T0, seed)


def row(kind: str, symptom: Optional[str], host: Optional[str]) -> dict[str, Any]:
    return {"kind": kind, "symptom": symptom, "host": host}


SEGV = """Fatal Python error: Segmentation fault

Thread 0x00007f3a2effd640 (most recent call first):
  File "/usr/local/lib/python3.10/site-packages/jax/_src/interpreters/pxla.py", line 1283 in __call__
  File "/deps/MaxText/train.py", line 822 in train_loop
  File "/deps/MaxText/train.py", line 967 in main"""


def preempt_restore_fail() -> tuple[Incident, dict[str, Any]]:
    inc = new("01-preempt-then-restore-fails-everywhere", "gemma-ft-v5p", 11)
    s0, s1 = inc.nodes("tpu-v5p-pool-0", 4), inc.nodes("tpu-v5p-pool-1", 4)
    pods = inc.pods([s0, s1])
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 50, 30.0, 2.9)
    victim = s1[2]
    inc.gce(t + 5, "compute.instances.preempted", victim, "Instance was preempted.")
    inc.text(
        t + 6,
        pods[6],
        "Pod was terminated in response to imminent node shutdown.",
        severity="WARNING",
    )
    inc.node_down(t + 40, victim)
    inc.heartbeat_cascade(t + 110, pods, dead=6)
    inc.restart(t + 118, f"{inc.workload}-slice-job-1")
    inc.sigterm(t + 119, pods)
    # GKE recreated the preempted slice: slice 1 comes back on new VMs.
    inc.attempt = 1
    s1b = inc.nodes("tpu-v5p-pool-1", 4)
    pods2 = inc.pods([s0, s1b])
    t2 = t + 420
    inc.launch(t2, pods2)
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/deps/MaxText/train.py", line 1012, in <module>\n'
        "    app.run(main)\n"
        '  File "/deps/MaxText/checkpointing.py", line 301, in load_state_if_possible\n'
        "    return checkpoint_manager.restore(latest_step, args=restore_args)\n"
        'ValueError: NOT_FOUND: Error opening "ocdbt" driver: Error reading '
        '"gs://gemma-ft-ckpt/run-0309/checkpoints/1500/items/manifest.ocdbt": '
        "Object does not exist"
    )
    for pod in pods2:
        inc.text(
            t2 + 30,
            pod,
            f"Restoring checkpoint from step 1500 (process {pod.task})",
            stream="stdout",
            severity="INFO",
        )
        inc.text(t2 + 44 + pod.task * 0.2, pod, trace)
    inc.event(
        t2 + 50,
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{pods2[0].name} failed with exit code 1 "
        "matching FailJob rule at index 0",
        "Job",
        f"{inc.workload}-slice-job-0",
        component="job-controller",
    )
    inc.event(
        t2 + 51,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {inc.workload}-slice-job-0)",
        "JobSet",
        inc.workload,
        component="jobset-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "checkpoint-restore-failure",
        "culprit_hosts": [],
        "failures": [
            row("preemption", "spot-preemption", victim),
            row("crash", "checkpoint-restore-failure", None),
        ],
        "why": "Spot preemption of slice-1 host 2 (task 6) came first, cascades name task 6. "
        "After the restart every host fails to open the step-1500 checkpoint at once "
        "(save interrupted by the preemption): a second disruption with no single host."
        " Relabelled to the headline contract (#14): the run ends with every host failing to open the checkpoint at once: that common-mode disruption ended it, so the headline is checkpoint-restore-failure with no single culprit host (the preemption stays row 1).",
    }


def three_disruptions() -> tuple[Incident, dict[str, Any]]:
    inc = new("02-segv-same-nodes-hosterror-corehalt-maxrestarts", "llama-70b-pt", 22)
    s0, s1 = inc.nodes("tpu-v5p-pool-a", 4), inc.nodes("tpu-v5p-pool-b", 4)
    pods = inc.pods([s0, s1])
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 30, 40.0, 3.1)
    bad = pods[2]
    inc.lines(t + 3, bad, SEGV)
    inc.event(
        t + 8,
        "BackOff",
        f"Back-off restarting failed container jax-tpu in pod {bad.name}",
        "Pod",
        bad.name,
        host=bad.node,
    )
    inc.heartbeat_cascade(t + 105, pods, dead=2, joined=False)
    inc.restart(t + 110, f"{inc.workload}-slice-job-0")
    inc.sigterm(t + 111, pods)
    # Restart 1: the same nodes (no infra change), then an hour of healthy training.
    inc.attempt = 1
    pods = inc.pods([s0, s1])
    t = t + 200
    inc.launch(t, pods)
    t = inc.steps(t + 60, pods[0], 30, 60, 60.0, 3.07)
    hit = s1[1]
    inc.gce(t + 10, "compute.instances.hostError", hit, "Instance terminated by Compute Engine.")
    inc.node_down(t + 50, hit)
    inc.heartbeat_cascade(t + 112, pods, dead=5)
    inc.restart(t + 118, f"{inc.workload}-slice-job-1")
    inc.sigterm(t + 119, pods)
    # Restart 2: slice b recreated on new VMs.
    inc.attempt = 2
    s1 = inc.nodes("tpu-v5p-pool-b", 4)
    pods = inc.pods([s0, s1])
    t = t + 600
    inc.launch(t, pods)
    t = inc.steps(t + 60, pods[0], 90, 20, 40.0, 3.0)
    halted = pods[7]
    inc.text(
        t + 2,
        halted,
        "jax.errors.JaxRuntimeError: INTERNAL: Core halted unexpectedly: "
        "INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device "
        "check-failure. Node 2 halted unexpectedly at tag:pc TensorCoreSequencer:1:0x1c4",
    )
    inc.heartbeat_cascade(t + 104, pods, dead=7)
    inc.restart(t + 110, f"{inc.workload}-slice-job-1")
    inc.event(
        t + 111,
        "ReachedMaxRestarts",
        "jobset failed due to reaching max number of restarts",
        "JobSet",
        inc.workload,
        component="jobset-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "tpu-hardware-fault",
        "culprit_hosts": [halted.node],
        "failures": [
            row("crash", "process-segfault", bad.node),
            row("crash", "host-error", hit),
            row("crash", "tpu-hardware-fault", halted.node),
        ],
        "why": "Three independent disruptions on three hosts: segfault (task 2), host error on "
        "slice-b VM (task 5) after an idle hour, core halted on the recreated slice "
        "(task 7); then ReachedMaxRestarts."
        " Relabelled to the headline contract (#14): the halted core on the recreated slice reached max restarts: that disruption ended the run, so the headline is tpu-hardware-fault on its host alone (every row keeps its own host).",
    }


def pathways_head(inc: Incident, head_node: str) -> dict[str, Pod]:
    name = f"{inc.workload}-pathways-head-0-0-{inc.token(5)}"
    return {
        c: Pod(name, head_node, 0, 0, 0, "pathways-head", c)
        for c in ("pathways-rm", "pathways-proxy", "jax-client")
    }


def pathways_slice_lost() -> tuple[Incident, dict[str, Any]]:
    inc = new("03-pathways-worker-preempted-error-on-head", "pw-sft-7b", 33, "pw-cluster")
    head = pathways_head(inc, inc.nodes("cpu-np", 1)[0])
    workers = inc.pods([inc.nodes("tpu-v6e-pool-0", 4), inc.nodes("tpu-v6e-pool-1", 4)], "worker")
    for c, pod in head.items():
        inc.event(
            0, "Started", f"Started container {c}", "Pod", pod.name, warning=False, host=pod.node
        )
    inc.text(
        20,
        head["pathways-rm"],
        "I0309 07:00:20.114231 1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
        severity="INFO",
    )
    inc.text(
        40,
        head["pathways-proxy"],
        "I0309 07:00:40.502114 1 proxy_server.cc:125] IFRT proxy server started with status OK",
        severity="INFO",
    )
    inc.text(
        70,
        head["pathways-rm"],
        "I0309 07:01:10.967764 1 multi_job_allocator.cc:1063] "
        "*** 2/2 Pathways Slices Now Ready ***",
        severity="INFO",
    )
    for w in workers:
        inc.text(
            30,
            w,
            "I0309 07:00:30.000000 1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
            severity="INFO",
            container="pathways-worker",
        )
    t = inc.steps(120, head["jax-client"], 0, 80, 45.0, 2.2, structured=True)
    victim = workers[5].node
    inc.gce(t + 4, "compute.instances.preempted", victim, "Instance was preempted.")
    inc.node_down(t + 45, victim)
    inc.text(
        t + 20,
        head["pathways-rm"],
        f"E0309 resource_manager.cc:812] Lost connection to "
        f"worker {workers[5].name}.{inc.workload}:29001 (slice 1); marking slice 1 "
        "unhealthy",
        severity="ERROR",
    )
    inc.text(
        t + 22,
        head["jax-client"],
        'Traceback (most recent call last):\n  File "/app/train.py", line 388, in '
        "<module>\n    state, metrics = p_train_step(state, batch)\n"
        "jax.errors.JaxRuntimeError: DATA_LOSS: Slice 1 is no longer available: worker "
        f"{workers[5].name} stopped responding",
    )
    inc.text(
        t + 23,
        head["jax-client"],
        "E0309 07:58:03.412001 41 rpc_helper.cc:56] Connection "
        "to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
    )
    inc.restart(t + 40, f"{inc.workload}-pathways-head-0")
    return inc, {
        "status": "diagnosed",
        "root_cause": "spot-preemption",
        "culprit_hosts": [victim],
        "failures": [row("preemption", "spot-preemption", victim)],
        "why": "The head's JAX client reports DATA_LOSS (slice lost) and the proxy session "
        "ends, but the cause is the Spot preemption of the worker VM in slice 1 that "
        "the resource manager names; the error is printed on the head, not the culprit.",
    }


def pathways_proxy_unreachable() -> tuple[Incident, dict[str, Any]]:
    inc = new("04-pathways-proxy-unreachable-jsonl", "pw-eval-2b", 44, "pw-cluster")
    node = inc.nodes("cpu-np", 1)[0]
    head = pathways_head(inc, node)
    for c, pod in head.items():
        inc.event(0, "Started", f"Started container {c}", "Pod", pod.name, warning=False, host=node)
    inc.text(
        15,
        head["pathways-rm"],
        "I0309 07:00:15.000000 1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
        severity="INFO",
    )
    inc.text(
        25,
        head["pathways-proxy"],
        "E0309 07:00:25.100000 1 proxy_server.cc:98] Failed to "
        "bind [::]:38676: Address already in use",
        severity="ERROR",
    )
    inc.text(
        61,
        head["jax-client"],
        'Traceback (most recent call last):\n  File "/app/eval.py", line 41, in <module>'
        "\n    jax.devices()\nRuntimeError: Unable to initialize backend 'proxy': "
        "UNAVAILABLE: Unable to establish connection to ifrt_proxy server, please check "
        f"provided address {inc.workload}-pathways-head-0-0.{inc.workload}.default.svc:38676'"
        "; detailed error: Connection refused (set JAX_PLATFORMS='' to automatically "
        "choose an available backend)",
    )
    inc.event(
        70,
        "BackOff",
        f"Back-off restarting failed container jax-client in pod {head['jax-client'].name}",
        "Pod",
        head["jax-client"].name,
        host=node,
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "port-already-in-use",
        "culprit_hosts": [node],
        "failures": [row("crash", "port-already-in-use", node)],
        "why": "The IFRT proxy in the client's own head pod could not bind its port (Address "
        "already in use), so the client cannot reach it; no TPU worker is involved. Relabelled "
        "2026-12-02 from pathways-proxy-unreachable: the bind failure has its own page now and "
        "is the deeper root of the unreachable proxy.",
    }


def hbm_oom_twice() -> tuple[Incident, dict[str, Any]]:
    inc = new("05-structured-hbm-oom-same-host-twice", "mixtral-pt", 55)
    s = [inc.nodes("tpu-v5e-pool", 4), inc.nodes("tpu-v5e-pool-2", 4)]
    t = 0.0
    pods: list[Pod] = []
    for attempt in range(2):
        inc.attempt = attempt
        pods = inc.pods(s)
        inc.launch(t, pods)
        t = inc.steps(t + 60, pods[0], 0, 25, 35.0, 2.6, structured=True)
        oom = pods[5]
        inc.structured(
            t + 1,
            oom,
            'Traceback (most recent call last):\n  File "/app/train.py"'
            ", line 512, in train_step\n    loss, grads = grad_fn(state.params, batch)"
            "\njaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error "
            "allocating device buffer: Attempting to allocate 3.91G. That was not "
            "possible. There are 1.27G free.; (0x0x0_HBM0)",
            "ERROR",
            "root",
        )
        inc.heartbeat_cascade(t + 103, pods, dead=5)
        inc.restart(t + 108, f"{inc.workload}-slice-job-1")
        inc.sigterm(t + 109, pods)
        t += 300
    inc.event(
        t - 190,
        "ReachedMaxRestarts",
        "jobset failed due to reaching max number of restarts",
        "JobSet",
        inc.workload,
        component="jobset-controller",
    )
    host = pods[5].node
    return inc, {
        "status": "diagnosed",
        "root_cause": "hbm-oom-runtime",
        "culprit_hosts": [host],
        "failures": [row("crash", "hbm-oom-runtime", host), row("crash", "hbm-oom-runtime", host)],
        "why": "Structured (jsonPayload) logging. Task 5 runs out of HBM at the same step on "
        "the same node in both attempts; data-dependent, the others cascade.",
    }


def segv_then_notready() -> tuple[Incident, dict[str, Any]]:
    inc = new("06-segv-then-later-notready", "bert-xl-v4", 66)
    s = [inc.nodes("tpu-v4-pool", 4)]
    pods = inc.pods(s)
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 40, 30.0, 3.3)
    bad = pods[3]
    inc.text(
        t + 1,
        bad,
        "*** SIGSEGV (@0x0), see go/stacktraces#s15 received by PID 412 (TID "
        "1093) on cpu 37; stack trace: ***",
    )
    inc.lines(
        t + 1.1,
        bad,
        "PC: @     0x7f0c41a2b3c1  (unknown)  tpu::TpuExecutor::Enqueue()\n"
        "    @     0x7f0c5e042520  (unknown)  (unknown)\n"
        "https://symbolize.stripped_domain/r/?trace=7f0c41a2b3c1",
    )
    inc.heartbeat_cascade(t + 102, pods, dead=3)
    inc.restart(t + 107, f"{inc.workload}-slice-job-0")
    inc.sigterm(t + 108, pods)
    # The node goes NotReady minutes later while pods are being torn down (kubelet wedged
    # cleaning up the crashed container) — after, not before, the crash.
    inc.node_down(t + 260, bad.node)
    inc.event(
        t + 320,
        "NodeReady",
        f"Node {bad.node} status is now: NodeReady",
        "Node",
        bad.node,
        warning=False,
        component="kubelet",
        host=bad.node,
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "process-segfault",
        "culprit_hosts": [bad.node],
        "failures": [row("crash", "process-segfault", bad.node)],
        "why": "The segfault came first; the NotReady on the same node 4 minutes later is not "
        "an infra cause (no GCE event, node recovers), so the container's error is root.",
    }


def mce_then_segv() -> tuple[Incident, dict[str, Any]]:
    inc = new("07-hardware-error-then-segv-then-notready", "t5x-ul2", 77)
    s = [inc.nodes("tpu-v5p-pool-3", 4), inc.nodes("tpu-v5p-pool-4", 4)]
    pods = inc.pods(s)
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 45, 40.0, 2.4)
    bad = pods[4]
    inc.event(
        t,
        "CperHardwareErrorFatal",
        "kernel: {1}[Hardware Error]: event severity: fatal",
        "Node",
        bad.node,
        component="kernel-monitor",
        host=bad.node,
    )
    inc.lines(t + 1.5, bad, SEGV)
    inc.node_down(t + 45, bad.node)
    inc.heartbeat_cascade(t + 101, pods, dead=4)
    inc.restart(t + 110, f"{inc.workload}-slice-job-1")
    inc.sigterm(t + 111, pods)
    return inc, {
        "status": "diagnosed",
        "root_cause": "kernel-hardware-error",
        "culprit_hosts": [bad.node],
        "failures": [row("crash", "kernel-hardware-error", bad.node)],
        "why": "A fatal CPER hardware error on the node precedes the trainer's segfault by "
        "1.5 s; the infra event on that node is the cause, the segfault its effect.",
    }


def megascale_network() -> tuple[Incident, dict[str, Any]]:
    inc = new("08-multislice-hang-network-then-finishes", "palm-ms-4x", 88)
    s = [inc.nodes(f"tpu-v5p-ms-{i}", 2) for i in range(4)]
    pods = inc.pods(s)
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 40, 30.0, 2.8)
    a, b = s[1][1], s[3][0]
    for pod in pods:
        inc.text(
            t + 300 + pod.task * 0.1,
            pod,
            "Megascale hang detected: Timed out waiting for 2 "
            "graphs to complete at launch_id 4127. Already completed: 40. "
            "StepGloballyInProgress: true. Timeout: 5m",
            severity="WARNING",
        )
    inc.lines(
        t + 305,
        pods[0],
        "Megascale detects a hang that is likely caused by a networking "
        "issue. Please examine the underlying networking stack for the following hosts.\n"
        "Potential cause: Networking issue\n"
        f"Potential culprit workers: {a}, {b}",
    )
    inc.restart(t + 330, f"{inc.workload}-slice-job-0")
    inc.sigterm(t + 331, pods)
    inc.attempt = 1
    pods = inc.pods(s)
    t += 500
    inc.launch(t, pods)
    t = inc.steps(t + 60, pods[0], 40, 60, 30.0, 2.77)
    inc.text(
        t + 5,
        pods[0],
        "Training complete; final checkpoint saved at step 99",
        stream="stdout",
        severity="INFO",
    )
    inc.event(
        t + 20,
        "Completed",
        "Job completed",
        "Job",
        f"{inc.workload}-slice-job-0",
        warning=False,
        component="job-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "megascale-hang-network",
        "culprit_hosts": sorted([a, b]),
        "failures": [row("hang", "megascale-hang-network", a)],
        "why": "Megascale digest names a DCN issue between two hosts of slices 1 and 3; one "
        "disruption (row names the first culprit), then the restarted run completes.",
    }


def nan_exit1() -> tuple[Incident, dict[str, Any]]:
    inc = new("09-nan-loss-every-host-failjob", "gpt-moe-lr", 99)
    pods = inc.pods([inc.nodes("tpu-v6e-pool", 4)])
    inc.launch(0, pods)
    for pod in pods:
        t = inc.steps(60, pod, 0, 30, 20.0, 2.1, structured=True)
        inc.structured(
            t,
            pod,
            "completed step: 30, seconds: 20.112, TFLOP/s/device: 187.220, "
            "Tokens/s/device: 4190.551, total_weights: 1572864, loss: nan",
            "INFO",
            "maxtext.train",
        )
        inc.structured(
            t + 0.2,
            pod,
            "Loss is NaN at step 30; aborting to keep the last good checkpoint (step 25)",
            "ERROR",
            "maxtext.train",
        )
    inc.event(
        t + 3,
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{pods[0].name} "
        "failed with exit code 1 matching FailJob rule at index 0",
        "Job",
        f"{inc.workload}-slice-job-0",
        component="job-controller",
    )
    inc.event(
        t + 4,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {inc.workload}-slice-job-0)",
        "JobSet",
        inc.workload,
        component="jobset-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "nan-inf-loss",
        "culprit_hosts": [],
        "failures": [row("crash", "nan-inf-loss", None)],
        "why": "Every host logs loss nan at step 30 and exits 1 deliberately; numerics, no "
        "host to blame; XPK's FailJob rule ends the JobSet without restart.",
    }


def evicted_then_kueue() -> tuple[Incident, dict[str, Any]]:
    inc = new("10-ephemeral-eviction-then-kueue-preemption", "diffusion-v5e", 110)
    s = [inc.nodes("tpu-v5e-16", 4)]
    pods = inc.pods(s)
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 40, 30.0, 1.9)
    bad = pods[1]
    inc.event(
        t,
        "Evicted",
        "The node was low on resource: ephemeral-storage. Threshold "
        "quantity: 10Gi, available: 8123456Ki. Container jax-tpu was using 88Gi, request "
        "is 0, has larger consumption of ephemeral-storage.",
        "Pod",
        bad.name,
        host=bad.node,
    )
    inc.heartbeat_cascade(t + 100, pods, dead=1)
    inc.restart(t + 106, f"{inc.workload}-slice-job-0")
    inc.sigterm(t + 107, pods)
    inc.attempt = 1
    pods = inc.pods(s)
    t += 300
    inc.launch(t, pods)
    t = inc.steps(t + 60, pods[0], 40, 70, 30.0, 1.85)
    inc.event(
        t,
        "Preempted",
        "Preempted to accommodate a workload (UID: 4f1c0e7a-1d2b-4c55-"
        "9d0e-5e8a3c2b1f00, JobUID: 77b1) due to prioritization in the ClusterQueue",
        "Workload",
        f"jobset-{inc.workload}-6b1f2",
        component="kueue-admission",
    )
    inc.sigterm(t + 2, pods)
    return inc, {
        "status": "diagnosed",
        "root_cause": "kueue-preemption",
        "culprit_hosts": [],
        "failures": [
            row("eviction", "pod-evicted-node-pressure", bad.node),
            row("preemption", "kueue-preemption", None),
        ],
        "why": "Task 1's pod filled the node's ephemeral storage (XLA dumps) and was evicted; "
        "35 min later Kueue preempted the whole workload for a higher-priority one."
        " Relabelled to the headline contract (#14): Kueue's preemption took the whole workload away and nothing ran after it: the headline is kueue-preemption, tied to no node (the eviction stays row 1).",
    }


def healthy_noisy() -> tuple[Incident, dict[str, Any]]:
    inc = new("11-healthy-with-benign-noise", "vit-g-v6e", 121)
    pods = inc.pods([inc.nodes("tpu-v6e-pool-9", 4)])
    inc.launch(0, pods)
    for pod in pods:
        inc.text(
            20,
            pod,
            "UserWarning: TPU backend initialization is taking more than 60.0 "
            "seconds. Did you run your code on all TPU hosts? See https://jax.readthedocs"
            ".io/en/latest/multi_process.html for more information.",
            severity="WARNING",
        )
        inc.text(
            25,
            pod,
            "W0309 07:00:25.000000 88 tpu_version_flag.cc:57] TPU version flag "
            "set explicitly; skipping autodetection",
            severity="WARNING",
        )
    inc.event(
        900,
        "CperHardwareErrorCorrected",
        "kernel: {3}[Hardware Error]: event severity: corrected",
        "Node",
        pods[2].node,
        warning=False,
        component="kernel-monitor",
        host=pods[2].node,
    )
    t = inc.steps(60, pods[0], 0, 90, 30.0, 2.0, structured=True)
    inc.text(
        t,
        pods[0],
        "Training complete; final checkpoint saved at step 89",
        stream="stdout",
        severity="INFO",
    )
    inc.event(
        t + 15,
        "Completed",
        "Job completed",
        "Job",
        f"{inc.workload}-slice-job-0",
        warning=False,
        component="job-controller",
    )
    return inc, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "Slow start warning resolved, a corrected (not fatal) CPER event, run completed.",
    }


def mldiag_not_injected() -> tuple[Incident, dict[str, Any]]:
    inc = new("12-mldiag-webhook-missing-training-fine", "llama-ft-diag", 132)
    pods = inc.pods([inc.nodes("tpu-v5p-pool-7", 2)])
    inc.launch(0, pods)
    for pod in pods:
        inc.structured(
            15,
            pod,
            "GKE_DIAGON_IDENTIFIER environment variable not set.",
            "WARNING",
            "google_cloud_mldiagnostics.utils.host_utils",
        )
        inc.structured(
            15.1,
            pod,
            "Could not generate GKE workload identifier due to missing "
            "workload details. This might be because environment variables "
            "'GKE_DIAGON_IDENTIFIER' or 'GKE_DIAGON_METADATA' are not set or are "
            "incomplete. Please ensure you are running SDK in a GKE environment "
            "with the GKE diagon operator webhook enabled.",
            "WARNING",
            "google_cloud_mldiagnostics.utils.host_utils",
        )
    t = inc.steps(60, pods[0], 0, 60, 30.0, 1.7)
    inc.event(
        t + 15,
        "Completed",
        "Job completed",
        "Job",
        f"{inc.workload}-slice-job-0",
        warning=False,
        component="job-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "mldiag-webhook-not-injecting",
        "culprit_hosts": [],
        "failures": [],
        "why": "Training is healthy and completes, but the ML Diagnostics SDK on every host "
        "reports the injection webhook env missing: a real set-up fault (no profiles), "
        "identical on all hosts, with no disruption row.",
    }


def shutdown_barrier() -> tuple[Incident, dict[str, Any]]:
    inc = new("13-shutdown-barrier-after-completed-run", "qwen-sft-v5e", 143)
    pods = inc.pods([inc.nodes("tpu-v5e-pool-4", 4)])
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 80, 25.0, 1.6)
    inc.text(
        t,
        pods[0],
        "Training complete; final checkpoint saved at step 79",
        stream="stdout",
        severity="INFO",
    )
    inc.lines(
        t + 330,
        pods[0],
        "E0309 coordination_service.cc:1310] Shutdown barrier has "
        "failed.\nBarrier result: 'DEADLINE_EXCEEDED: Barrier timed out. Id: "
        "Shutdown::3012. # of tasks that reached the barrier: 3/4. Some timed out task "
        "names:\n/job:jax_worker/replica:0/task:2'",
    )
    inc.event(
        t + 340,
        "Completed",
        "Job completed",
        "Job",
        f"{inc.workload}-slice-job-0",
        warning=False,
        component="job-controller",
    )
    return inc, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "The final step and checkpoint were written and the Job completed; task 2 was "
        "merely slow to exit. A shutdown-barrier error after completion is not a "
        "disruption of the run.",
    }


def window_misses_start() -> tuple[Incident, dict[str, Any]]:
    inc = new("14-window-starts-mid-cascade", "mt5-xxl", 154)
    s = [inc.nodes("tpu-v4-pool-q", 4), inc.nodes("tpu-v4-pool-r", 4)]
    pods = inc.pods(s)
    inc.attempt = 3
    # The window opens after task 6 already died: only the cascade and restart are visible.
    inc.heartbeat_cascade(2, pods, dead=6)
    inc.restart(9, f"{inc.workload}-slice-job-1")
    inc.sigterm(10, pods)
    inc.attempt = 4
    pods = inc.pods(s)
    inc.launch(200, pods)
    inc.steps(260, pods[0], 1200, 60, 30.0, 1.4)
    node = s[1][2]
    return inc, {
        "status": "inconclusive",
        "root_cause": None,
        "culprit_hosts": [node],
        "failures": [row("crash", None, node)],
        "why": "The window begins after task 6's death; only cascades point at its node. No "
        "root evidence in the bundle: inconclusive, naming that host."
        " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its coordination-heartbeat-cascade lines stay in its evidence).",
    }


def abort_then_vfio() -> tuple[Incident, dict[str, Any]]:
    inc = new("15-check-failed-then-vfio-busy-same-node", "recsys-sc-v5p", 165)
    s = [inc.nodes("tpu-v5p-pool-e", 4)]
    pods = inc.pods(s)
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 35, 30.0, 0.9)
    bad = pods[2]
    inc.text(
        t,
        bad,
        "F0309 07:18:31.220118     611 sparse_core_offload.cc:1442] Check failed: "
        "table_shard_count == num_sparse_cores (3 vs. 4)",
    )
    inc.text(t + 0.01, bad, "*** Check failure stack trace: ***")
    inc.text(
        t + 0.02,
        bad,
        "*** SIGABRT received by PID 611 (TID 611) on cpu 5 from PID 611; stack trace: ***",
    )
    inc.heartbeat_cascade(t + 101, pods, dead=2)
    inc.restart(t + 105, f"{inc.workload}-slice-job-0")
    inc.sigterm(t + 106, pods)
    inc.attempt = 1
    pods = inc.pods(s)
    t += 240
    inc.launch(t, pods)
    inc.text(
        t + 14,
        pods[2],
        "jaxlib._jax.XlaRuntimeError: UNKNOWN: TPU initialization "
        "failed: open(/dev/vfio/2): Device or resource busy: Device or resource busy; "
        "Couldn't open iommu group /dev/vfio/2",
    )
    inc.event(
        t + 20,
        "PodFailurePolicy",
        f"Container jax-tpu for pod default/{pods[2].name} "
        "failed with exit code 1 matching FailJob rule at index 0",
        "Job",
        f"{inc.workload}-slice-job-0",
        component="job-controller",
    )
    inc.event(
        t + 21,
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {inc.workload}-slice-job-0)",
        "JobSet",
        inc.workload,
        component="jobset-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "tpu-vfio-busy",
        "culprit_hosts": [bad.node],
        "failures": [
            row("crash", "process-abort", bad.node),
            row("crash", "tpu-vfio-busy", bad.node),
        ],
        "why": "Check failed + SIGABRT on task 2; the restarted pod on the SAME node finds the "
        "VFIO group still held by the aborted process and exits 1 (FailJobSet)."
        " Relabelled to the headline contract (#14): the VFIO-busy failure ended the run, so the headline is tpu-vfio-busy (same node; the Check failure stays row 1).",
    }


def leader_oom() -> tuple[Incident, dict[str, Any]]:
    inc = new("16-coordinator-host-oom-leader-lost", "gemma-pt-8s", 176)
    s = [inc.nodes("tpu-v5p-pool-l", 4), inc.nodes("tpu-v5p-pool-m", 4)]
    pods = inc.pods(s)
    inc.launch(0, pods)
    t = inc.steps(60, pods[0], 0, 50, 30.0, 2.5, structured=True)
    lead = pods[0]
    inc.event(
        t,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 2231 (python3) "
        "total-vm:412331008kB, anon-rss:398211044kB, file-rss:10240kB, shmem-rss:0kB",
        "Node",
        lead.node,
        component="kernel-monitor",
        host=lead.node,
    )
    for pod in pods[1:]:
        inc.text(
            t + 12 + pod.task * 0.05,
            pod,
            "F0309 client.h:77] Terminating process because "
            "the JAX distributed service detected fatal errors. This most likely indicates "
            "that another task died; see the other task logs for more details. "
            "absl::Status: UNAVAILABLE: Failed to send RPC to coordination service. Either "
            "the leader task was preempted/died/restarted unexpectedly or this task is "
            "experiencing network issues. Check earlier logs from 1) this task, 2) the "
            "leader (usually slice 0 task 0), and 3) cluster scheduler to debug further."
            "\nAdditional GRPC error information from remote target coordination_service "
            "while calling /tensorflow.CoordinationService/PollForError:\n:UNKNOWN:Error "
            'received from peer  {grpc_message:"Socket closed", grpc_status:14}',
        )
    inc.restart(t + 20, f"{inc.workload}-slice-job-0")
    inc.sigterm(t + 21, pods[1:])
    inc.attempt = 1
    pods = inc.pods(s)
    t += 260
    inc.launch(t, pods)
    t = inc.steps(t + 60, pods[0], 50, 50, 30.0, 2.46, structured=True)
    inc.event(
        t + 10,
        "Completed",
        "Job completed",
        "Job",
        f"{inc.workload}-slice-job-0",
        warning=False,
        component="job-controller",
    )
    return inc, {
        "status": "diagnosed",
        "root_cause": "host-oom-killed",
        "culprit_hosts": [lead.node],
        "failures": [row("crash", "host-oom-killed", lead.node)],
        "why": "The kernel OOM-killed task 0's python3 (coordinator); all other tasks print "
        "leader-lost cascades; after one restart the run completes.",
    }


SCENARIOS = [
    preempt_restore_fail,
    three_disruptions,
    pathways_slice_lost,
    pathways_proxy_unreachable,
    hbm_oom_twice,
    segv_then_notready,
    mce_then_segv,
    megascale_network,
    nan_exit1,
    evicted_then_kueue,
    healthy_noisy,
    mldiag_not_injected,
    shutdown_barrier,
    window_misses_start,
    abort_then_vfio,
    leader_oom,
]
JSONL = {"04-pathways-proxy-unreachable-jsonl"}


def main() -> None:
    for build in SCENARIOS:
        incident, expected = build()
        incident.write(expected, jsonl=incident.name in JSONL)


if __name__ == "__main__":
    main()
