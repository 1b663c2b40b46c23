"""Deterministic generator of the round-16 incidents (`python make_incidents.py [OUT_DIR]`).

Processes the operating system refuses, one incident each, written here as Cloud Logging bundles
with the round-13 bundle writer: a Pathways head whose IFRT proxy client cannot start another
thread under the pod's pids limit (the kernel's pids controller confirms it on the node); a TPU
trainer's data loader out of file descriptors, after which the other hosts' coordination agents
report the lost task; a JobSet restarted on hostNetwork TPU pods whose process 0 cannot bind the
JAX coordinator's port while its predecessor still holds it, the other hosts timing out; a TPU
serving pod whose libtpu cannot bind its runtime metric port, taken by a co-tenant's outbound
connection, crash-looping. Wording follows the real messages cited on the wiki's pages.
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.incidents13.make_incidents import (  # noqa: E402
    T0,
    Bundle,
    _diagnosed,
    _jobset_policy,
    _node,
    _started,
    _suffix,
)

IMAGE = "us-docker.pkg.dev/ml-platform-prod/train/maxtext:2026.05"


def _steps(
    b: Bundle, t: datetime, pod: str, node: str, steps: range, labels: dict[str, str]
) -> datetime:
    for step in steps:
        b.line(
            t,
            pod,
            node,
            f"completed step: {step}, seconds: 11.872, TFLOP/s/device: 191.4, loss: {3.4 - step / 300:.3f}",
            container="jax",
            severity="INFO",
            stream="stdout",
            labels=labels,
        )
        t += timedelta(seconds=11.9)
    return t


def pathways_thread_limit(out: Path) -> None:
    b = Bundle("01-pathways-thread-limit", 1601)
    workload = "rl-policy"
    head_node = _node(b.rng, "cpu-highmem-pool")
    head = f"{workload}-pathways-head-0-0-{_suffix(b.rng)}"
    labels = {"jobset.sigs.k8s.io/jobset-name": workload}
    _started(b, T0, head, head_node, "jax", IMAGE)
    t = b.lines(
        T0 + timedelta(seconds=8),
        head,
        head_node,
        [
            "I0601 08:00:08.114020    1 ifrt_proxy_client.cc:88] Connecting to IFRT proxy server at pathways-proxy:29000",
            "Loaded 291 safetensors shards (61.4 GiB) into host memory",
            "Transferring weights to 128 devices",
        ],
        container="jax",
        severity="INFO",
        stream="stdout",
        labels=labels,
    )
    t += timedelta(seconds=4)
    b.node(
        t,
        head_node,
        f"cgroup: fork rejected by pids controller in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{b.rng.randrange(16**8):08x}.slice",
    )
    b.lines(
        t + timedelta(milliseconds=3),
        head,
        head_node,
        [
            "F0601 08:00:12.409117     311 env.cc:74] Check failed: ret == 0 (11 vs. 0)Thread HostBufferStoreLookupsWorkQueue creation via pthread_create() failed.",
            "*** Check failure stack trace: ***",
            "Fatal Python error: Aborted",
        ],
        container="jax",
        labels=labels,
    )
    _jobset_policy(b, t + timedelta(seconds=20), workload, job="pathways-head-0")
    _diagnosed(
        b,
        out,
        workload,
        "os-resource-limit",
        head_node,
        "crash",
        "The IFRT proxy client starts one thread per concurrent host-buffer transfer; moving the weights to 128 devices at once exceeds the pod's pids limit, the kernel's pids controller rejects the clone, and TSL's CHECK aborts the head. The abort is the effect; the thread limit on the head's node is the cause, and the JobSet restart is its consequence.",
    )


def dataloader_open_files(out: Path) -> None:
    b = Bundle("02-dataloader-open-files", 1602)
    workload = "llm-pretrain"
    nodes = [_node(b.rng, "tpu-v5p-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    labels = {"jobset.sigs.k8s.io/jobset-name": workload}
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "jax", IMAGE)
    t = T0 + timedelta(seconds=30)
    for pod, node in zip(pods, nodes):
        end = _steps(b, t, pod, node, range(14), labels)
    culprit, culprit_node = pods[2], nodes[2]
    b.lines(
        end,
        culprit,
        culprit_node,
        [
            "Traceback (most recent call last):",
            '  File "/app/maxtext/input_pipeline/grain_loader.py", line 212, in __next__',
            "    shard = open(self._paths[index], 'rb')",
            "OSError: [Errno 24] Too many open files: '/data/c4/train-00421-of-01024.arrayrecord'",
        ],
        container="jax",
        labels=labels,
    )
    t = end + timedelta(seconds=95)
    for i, (pod, node) in enumerate(zip(pods, nodes)):
        if pod == culprit:
            continue
        b.line(
            t + timedelta(milliseconds=40 * i),
            pod,
            node,
            f"E0601 08:05:24.{i:06d}  {b.rng.randrange(100, 999)} coordination_service_agent.cc:332] Polled an error from coordination service (this can be an error from this or another task).",
            container="jax",
            labels=labels,
        )
    _jobset_policy(b, t + timedelta(seconds=10), workload)
    _diagnosed(
        b,
        out,
        workload,
        "os-resource-limit",
        culprit_node,
        "crash",
        "The input pipeline on host 2 keeps a shard file open per worker and never closes them; at the container's descriptor limit its next open() fails with EMFILE and the trainer dies. The other hosts' coordination agents only report the lost task (a cascade pointing at it); the restart follows.",
    )


def coordinator_port_after_restart(out: Path) -> None:
    b = Bundle("03-coordinator-port-after-restart", 1603)
    workload = "llm-pretrain-v5p"
    nodes = [_node(b.rng, "tpu-v5p-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    labels = {"jobset.sigs.k8s.io/jobset-name": workload}
    t = T0 + timedelta(seconds=25)
    for pod, node in zip(pods, nodes):
        _started(b, t, pod, node, "jax", IMAGE)
    t += timedelta(seconds=9)
    b.lines(
        t,
        pods[0],
        nodes[0],
        [
            "I0601 08:00:34.512201       1 distributed.py:112] Starting JAX distributed service on [::]:8476",
            "E0601 08:00:34.514377       1 add_port.cc:83] Failed to add port to server: No address added out of total 1 resolved for '[::]:8476'",
            "Traceback (most recent call last):",
            '  File "/app/maxtext/train.py", line 58, in <module>',
            "    jax.distributed.initialize()",
            "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to start RPC server",
        ],
        container="jax",
        labels=labels,
    )
    for i in (1, 2, 3):
        b.lines(
            t + timedelta(seconds=180, milliseconds=30 * i),
            pods[i],
            nodes[i],
            [
                "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:",
                "/job:jax_worker/replica:0/task:0",
            ],
            container="jax",
            labels=labels,
        )
    _jobset_policy(b, t + timedelta(seconds=190), workload)
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "port-already-in-use",
            "culprit_hosts": [nodes[0]],
            "failures": [{"kind": "crash", "symptom": "port-already-in-use", "host": nodes[0]}],
            "why": "The pods run with hostNetwork; recreated after an earlier restart (outside the window), process 0's new container starts while its predecessor on the same node still holds the coordinator's port 8476, so the JAX coordinator's gRPC server cannot bind and jax.distributed.initialize fails. The other hosts time out connecting to the coordinator that never started (the job sets jax.distributed.initialize(initialization_timeout=180); a symptom on their hosts), and the JobSet restarts again.",
        },
    )


def libtpu_metric_port_taken(out: Path) -> None:
    b = Bundle("04-libtpu-metric-port-taken", 1604)
    workload = "gemma-serve"
    node = _node(b.rng, "tpu-v6e-pool")
    pod = f"{workload}-{_suffix(b.rng, 10)}-{_suffix(b.rng)}"
    labels = {"app": workload}
    _started(b, T0, pod, node, "server", "us-docker.pkg.dev/ml-platform-prod/serve/jetstream:0.5")
    t = T0 + timedelta(seconds=6)
    delay = 10
    for attempt in range(4):
        t = b.lines(
            t,
            pod,
            node,
            [
                "INFO: Initializing TPU backend (libtpu 0.0.21)",
                "add_port.cc:83 Failed to add port to server: No address added out of total 1 resolved for '[::]:8431' (sockaddr '[::]:8431': Address already in use; '0.0.0.0:8431': Address already in use)",
                "Fatal Python error: Aborted",
            ],
            container="server",
            labels=labels,
        )
        b.event(
            t + timedelta(seconds=delay),
            "BackOff",
            f"Back-off restarting failed container server in pod {pod}_default({b.rng.randrange(16**8):08x})",
            name=pod,
            host=node,
            count=attempt + 1,
        )
        t += timedelta(seconds=delay + 2)
        delay *= 2
    _diagnosed(
        b,
        out,
        workload,
        "port-already-in-use",
        node,
        "crash",
        "libtpu binds its runtime metric service on the fixed host port 8431 at start-up; on this hostNetwork node a co-tenant's outbound connection was given 8431 from a widened ephemeral port range, so every start of the server aborts and the kubelet backs off (a crash loop, the consequence). The TPU device itself is free: no TPU-in-use line.",
    )


BUILDERS = [
    pathways_thread_limit,
    dataloader_open_files,
    coordinator_port_after_restart,
    libtpu_metric_port_taken,
]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
