"""Deterministic generator of the round-14 incidents (`python make_incidents.py [OUT_DIR]`).

Failure modes the wiki had no page for before issue #12's fifth round, one incident each, written
here from scratch as Cloud Logging bundles in the shape of the round-13 set (whose bundle writer
this reuses): a TPU JobSet whose pods the kube-scheduler preempts for a higher-priority serving
pod; a trainer that cannot verify its tracking server's certificate; a JobSet whose Cloud Storage
FUSE volume cannot mount because the pods lack the sidecar annotation; a LeaderWorkerSet that
recreates a group after its worker pod is OOM-killed; a KubeRay job whose actor dies after Ray's
memory monitor kills its worker. Wording follows the real messages cited on the wiki's pages.
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
    _retried_until_backoff_limit,
    _started,
    _suffix,
)

IMAGE = "us-docker.pkg.dev/ml-platform-prod/train/maxtext:2026.05"


def _steps(b: Bundle, t: datetime, pod: str, node: str, steps: range) -> datetime:
    for step in steps:
        b.line(
            t,
            pod,
            node,
            f"completed step: {step}, seconds: 12.402, TFLOP/s/device: 187.3, loss: {3.2 - step / 400:.3f}",
            container="jax",
            severity="INFO",
            stream="stdout",
            labels={"jobset.sigs.k8s.io/jobset-name": pod.split("-slice-job")[0]},
        )
        t += timedelta(seconds=12.4)
    return t


def scheduler_preemption(out: Path) -> None:
    b = Bundle("01-scheduler-preemption", 1401)
    workload = "llm-finetune"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-{i // 2}-{i % 2}-{_suffix(b.rng)}" for i in range(4)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "jax", IMAGE)
    t = T0 + timedelta(seconds=20)
    for pod, node in zip(pods, nodes):
        _steps(b, t, pod, node, range(10))
    t += timedelta(seconds=130)
    preemptor = "4b8e2c1d-93f7-4a6e-b0d2-7c5e1f9a3b64"
    for pod, node in zip(pods[2:], nodes[2:]):
        b.event(
            t,
            "Preempted",
            f"Preempted by pod {preemptor} on node {node}",
            name=pod,
            component="default-scheduler",
            type_="Normal",
        )
        b.event(
            t + timedelta(seconds=1),
            "Killing",
            "Stopping container jax",
            name=pod,
            host=node,
            type_="Normal",
        )
    _jobset_policy(b, t + timedelta(seconds=40), workload, job="slice-job-1")
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "pod-preempted-by-priority",
            "culprit_hosts": nodes[2:],
            "failures": [
                {"kind": "preemption", "symptom": "pod-preempted-by-priority", "host": nodes[2]}
            ],
            "why": "A higher-priority inference pod could not be placed; the kube-scheduler preempted both pods of slice 1 (its Preempted events name the preemptor's UID), and the JobSet restarted. Nothing in the trainer or the TPU failed, and it is not Kueue: Kueue's eviction is worded 'Preempted to accommodate a workload'.",
        },
    )


def tls_tracking_server(out: Path) -> None:
    b = Bundle("02-tls-tracking-server", 1402)
    workload, node = "eval-sweep", _node(b.rng, "cpu-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "eval", "us-docker.pkg.dev/ml-platform-prod/apps/eval:3.1")
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=6),
        workload,
        pod,
        node,
        "eval",
        [
            "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.11/site-packages/urllib3/connectionpool.py", line 467, in _make_request',
            "    self._validate_conn(conn)",
            "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)",
        ],
        "requests.exceptions.SSLError: HTTPSConnectionPool(host='tracking.mlops.internal', port=443): Max retries exceeded with url: /api/2.0/mlflow/runs/create (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))",
    )
    _diagnosed(
        b,
        out,
        workload,
        "tls-certificate-error",
        node,
        "crash",
        "The tracking server's certificate is issued by the company's private CA, which the image does not trust; every attempt raises SSLError at the handshake and the Job reaches its backoff limit. The uncaught exception is the effect, the certificate check the cause.",
    )


def gcsfuse_no_sidecar(out: Path) -> None:
    b = Bundle("03-gcsfuse-no-sidecar", 1403)
    workload = "data-prep"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(2)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(2)]
    for pod, node in zip(pods, nodes):
        b.event(
            T0,
            "Scheduled",
            f"Successfully assigned default/{pod} to {node}",
            name=pod,
            component="default-scheduler",
            type_="Normal",
        )
    t = T0 + timedelta(seconds=3)
    for attempt in range(5):
        for pod, node in zip(pods, nodes):
            b.event(
                t,
                "FailedMount",
                'MountVolume.SetUp failed for volume "training-data" : rpc error: code = FailedPrecondition desc = failed to find the sidecar container in Pod spec',
                name=pod,
                host=node,
                count=attempt + 1,
            )
        t += timedelta(seconds=2 * 2**attempt)
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "gcsfuse-mount-failure",
            "culprit_hosts": [],
            "failures": [{"kind": "scheduling", "symptom": "gcsfuse-mount-failure", "host": None}],
            "why": "The pod template mounts a Cloud Storage FUSE volume but lacks the gke-gcsfuse/volumes annotation, so no sidecar was injected; the CSI driver refuses the mount on every pod and nothing starts. The generic CSI refusal (container-config-error) is explained by the driver's reason. The same refusal on every pod is the pod template's fault, not a host's: no culprit host.",
        },
    )


def lws_group_oom(out: Path) -> None:
    b = Bundle("04-lws-group-oom", 1404)
    workload = "llm-serve"
    nodes = {
        f"{workload}-0": _node(b.rng, "tpu-v5e-pool"),
        f"{workload}-0-1": _node(b.rng, "tpu-v5e-pool"),
    }
    for pod, node in nodes.items():
        _started(
            b, T0, pod, node, "server", "us-docker.pkg.dev/ml-platform-prod/serve/jetstream:0.4"
        )
    t = T0 + timedelta(seconds=15)
    for k in range(12):
        for pod, node in nodes.items():
            b.line(
                t,
                pod,
                node,
                f"INFO: served batch {k}: 32 requests, p50 412 ms",
                container="server",
                severity="INFO",
                stream="stdout",
                labels={"leaderworkerset.sigs.k8s.io/name": workload},
            )
        t += timedelta(seconds=5)
    worker, worker_node = f"{workload}-0-1", nodes[f"{workload}-0-1"]
    b.node(
        t,
        worker_node,
        f"Memory cgroup out of memory: Killed process {b.rng.randrange(2000, 90000)} (python3) total-vm:96123456kB, anon-rss:81234567kB, file-rss:10240kB, shmem-rss:0kB, UID:0 pgtables:4512kB oom_score_adj:-997",
    )
    b.event(
        t + timedelta(seconds=2),
        "RecreateGroup",
        f"Worker pod {worker} failed, deleted leader pod {workload}-0 to recreate group 0",
        kind="LeaderWorkerSet",
        name=workload,
        component="lws-controller-manager",
        type_="Normal",
    )
    _diagnosed(
        b,
        out,
        workload,
        "host-oom-killed",
        worker_node,
        "crash",
        "The worker pod of group 0 exceeds its memory limit and is OOM-killed; the LeaderWorkerSet controller then recreates the whole group. The recreation is the consequence: its event names the worker pod, whose node holds the kernel's OOM line.",
    )


def ray_actor_oom(out: Path) -> None:
    b = Bundle("05-ray-actor-oom", 1405)
    workload = "rl-train"
    head_node, worker_node = _node(b.rng, "cpu-pool"), _node(b.rng, "tpu-v5e-pool")
    head = f"{workload}-raycluster-{_suffix(b.rng)}-head-{_suffix(b.rng)}"
    worker = f"{workload}-raycluster-{_suffix(b.rng)}-tpu-group-worker-{_suffix(b.rng)}"
    labels = {"ray.io/cluster": f"{workload}-raycluster"}
    _started(b, T0, head, head_node, "ray-head", "rayproject/ray:2.44.0-py311")
    _started(b, T0, worker, worker_node, "ray-worker", "rayproject/ray:2.44.0-py311")
    t = T0 + timedelta(seconds=30)
    for k in range(8):
        b.line(
            t,
            head,
            head_node,
            f"Iteration {k}: episode_reward_mean=0.{41 + k}",
            container="ray-head",
            severity="INFO",
            stream="stdout",
            labels=labels,
        )
        t += timedelta(seconds=9)
    b.line(
        t,
        worker,
        worker_node,
        f"(raylet) node_manager.cc:3040: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {b.rng.randrange(16**12):012x}, IP: 10.12.3.7) over the last time period.",
        container="ray-worker",
        labels=labels,
    )
    b.lines(
        t + timedelta(seconds=1),
        head,
        head_node,
        [
            "Traceback (most recent call last):",
            '  File "/home/ray/train.py", line 88, in <module>',
            "    results = ray.get(futures)",
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        ],
        container="ray-head",
        labels=labels,
    )
    _diagnosed(
        b,
        out,
        workload,
        "host-oom-killed",
        worker_node,
        "crash",
        "Ray's memory monitor on the TPU worker kills the rollout actor's worker process for memory pressure; the driver on the head then raises ActorDiedError. The actor's death (ray-worker-died) is a symptom; the raylet's OOM summary on the worker is the root.",
    )


BUILDERS = [
    scheduler_preemption,
    tls_tracking_server,
    gcsfuse_no_sidecar,
    lws_group_oom,
    ray_actor_oom,
]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
