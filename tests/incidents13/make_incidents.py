"""Deterministic generator of the round-13 incidents (`python make_incidents.py [OUT_DIR]`).

Generic Kubernetes workload failures of the kinds peer tools evaluate (a crash loop whose last
lines hold an application error, an entrypoint that does not exist, a readiness probe that never
passes, a claim that cannot bind, an image pull on a bare pod, an OOM-killed container, an
unreachable dependency, a crash loop with no explaining line, a traceback split over entries on a
TPU JobSet), written here from scratch as Cloud Logging bundles: container lines one entry per
printed line (as GKE's agent writes them, microseconds apart), kubelet and scheduler events,
node kernel lines. Wording follows the real messages cited on the wiki's symptom pages.
"""

from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "ml-platform-prod"
CLUSTER = "gke-ml-east"
LOCATION = "us-east5"
T0 = datetime(2026, 3, 2, 14, 0, 0, tzinfo=timezone.utc)


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"


class Bundle:
    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.entries: list[dict[str, Any]] = []
        self.count = 0

    def _id(self) -> str:
        self.count += 1
        return f"{self.name[:2]}{self.count:05d}{self.rng.randrange(16**6):06x}"

    def line(
        self,
        t: datetime,
        pod: str,
        node: str,
        text: str,
        *,
        namespace: str = "default",
        container: str = "main",
        labels: Optional[dict[str, str]] = None,
        stream: str = "stderr",
        severity: str = "ERROR",
    ) -> None:
        entry_labels = {"compute.googleapis.com/resource_name": node}
        for key, value in (labels or {}).items():
            entry_labels[f"k8s-pod/{key}"] = value
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/{stream}",
                "timestamp": _stamp(t),
                "receiveTimestamp": _stamp(t + timedelta(seconds=2)),
                "severity": severity,
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
                "labels": entry_labels,
                "textPayload": text,
            }
        )

    def lines(self, t: datetime, pod: str, node: str, texts: list[str], **kw: Any) -> datetime:
        """One write of several lines: GKE makes each an entry, microseconds apart."""
        for text in texts:
            self.line(t, pod, node, text, **kw)
            t += timedelta(microseconds=self.rng.randrange(20, 400))
        return t

    def event(
        self,
        t: datetime,
        reason: str,
        message: str,
        *,
        kind: str = "Pod",
        name: str,
        namespace: str = "default",
        component: str = "kubelet",
        host: Optional[str] = None,
        type_: str = "Warning",
        count: int = 1,
    ) -> None:
        resource = {
            "type": "k8s_pod" if kind == "Pod" else "k8s_cluster",
            "labels": {
                "project_id": PROJECT,
                "location": LOCATION,
                "cluster_name": CLUSTER,
                "namespace_name": namespace,
            },
        }
        if kind == "Pod":
            resource["labels"]["pod_name"] = name
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/events",
                "timestamp": _stamp(t),
                "severity": "WARNING" if type_ == "Warning" else "INFO",
                "resource": resource,
                "jsonPayload": {
                    "kind": "Event",
                    "type": type_,
                    "reason": reason,
                    "message": message,
                    "count": count,
                    "source": source,
                    "involvedObject": {"kind": kind, "name": name, "namespace": namespace},
                },
            }
        )

    def node(self, t: datetime, node: str, text: str, log: str = "kernel") -> None:
        self.entries.append(
            {
                "insertId": self._id(),
                "logName": f"projects/{PROJECT}/logs/{log}",
                "timestamp": _stamp(t),
                "severity": "ERROR",
                "resource": {
                    "type": "k8s_node",
                    "labels": {
                        "project_id": PROJECT,
                        "location": LOCATION,
                        "cluster_name": CLUSTER,
                        "node_name": node,
                    },
                },
                "textPayload": text,
            }
        )

    def write(self, out: Path, expected: dict[str, Any]) -> None:
        folder = out / self.name
        folder.mkdir(parents=True, exist_ok=True)
        self.entries.sort(key=lambda e: (e["timestamp"], e["insertId"]))
        (folder / "logs.json").write_text(json.dumps(self.entries, indent=1) + "\n")
        (folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")


def _node(rng: random.Random, pool: str = "default-pool") -> str:
    return f"gke-{CLUSTER}-{pool}-{rng.randrange(16**8):08x}-{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(4))}"


def _suffix(rng: random.Random, n: int = 5) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def _backoff(b: Bundle, t: datetime, pod: str, node: str, container: str, n: int) -> datetime:
    delay = 10
    for i in range(n):
        t += timedelta(seconds=delay)
        b.event(
            t,
            "BackOff",
            f"Back-off restarting failed container {container} in pod "
            f"{pod}_default({b.rng.randrange(16**8):08x})",
            name=pod,
            host=node,
            count=i + 1,
        )
        delay = min(delay * 2, 300)
    return t


def _started(b: Bundle, t: datetime, pod: str, node: str, container: str, image: str) -> None:
    b.event(
        t,
        "Scheduled",
        f"Successfully assigned default/{pod} to {node}",
        name=pod,
        component="default-scheduler",
        type_="Normal",
    )
    b.event(
        t + timedelta(seconds=2),
        "Pulled",
        f'Container image "{image}" already present on machine',
        name=pod,
        host=node,
        type_="Normal",
    )
    b.event(
        t + timedelta(seconds=3),
        "Created",
        f"Created container {container}",
        name=pod,
        host=node,
        type_="Normal",
    )
    b.event(
        t + timedelta(seconds=3),
        "Started",
        f"Started container {container}",
        name=pod,
        host=node,
        type_="Normal",
    )


def _retried_until_backoff_limit(
    b: Bundle,
    t: datetime,
    workload: str,
    pod: str,
    node: str,
    container: str,
    traceback: list[str],
    error: str,
) -> None:
    """A Job's container raising the same traceback and error line on each of three attempts (20,
    40, 60 s apart), then the Job controller giving up at its backoff limit."""
    for i in range(3):
        t = b.lines(t, pod, node, traceback, container=container, labels={"job-name": workload})
        t = b.lines(
            t + timedelta(milliseconds=1),
            pod,
            node,
            [error],
            container=container,
            labels={"job-name": workload},
        )
        t += timedelta(seconds=20 * (i + 1))
    b.event(
        t,
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
        kind="Job",
        name=workload,
        component="job-controller",
    )


def _jobset_policy(
    b: Bundle, t: datetime, workload: str, *, action: str = "Restart", job: str = "slice-job-0"
) -> None:
    """The JobSet controller applying its failure policy (`Restart` every job, or `Fail` the
    JobSet) after its job WORKLOAD-JOB failed."""
    b.event(
        t,
        f"{action}JobSetFailurePolicyAction",
        f"applying {action}JobSet failure policy action (first failed job: {workload}-{job})",
        kind="JobSet",
        name=workload,
        component="jobset-controller",
    )


def _diagnosed(
    b: Bundle, out: Path, workload: str, root: str, host: str, kind: str, why: str
) -> None:
    """Write the bundle with the label of one root cause on one culprit host."""
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": root,
            "culprit_hosts": [host],
            "failures": [{"kind": kind, "symptom": root, "host": host}],
            "why": why,
        },
    )


def crash_loop_app_error(out: Path) -> None:
    b = Bundle("01-crash-loop-app-error", 1301)
    workload, node = "payment-worker", _node(b.rng)
    pod = f"{workload}-6958c5bdd8-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "worker", "us-docker.pkg.dev/ml-platform-prod/apps/payment:1.4")
    t = T0 + timedelta(seconds=5)
    for attempt in range(4):
        b.line(
            t,
            pod,
            node,
            "INFO starting payment processing worker",
            severity="INFO",
            stream="stdout",
            container="worker",
            labels={"app": workload},
        )
        b.lines(
            t + timedelta(seconds=1),
            pod,
            node,
            [
                "Traceback (most recent call last):",
                '  File "/app/worker.py", line 41, in <module>',
                "    main()",
                '  File "/app/worker.py", line 12, in main',
                '    env = os.environ["DEPLOY_ENV"]',
                '  File "<frozen os>", line 679, in __getitem__',
                "KeyError: 'DEPLOY_ENV'",
            ],
            container="worker",
            labels={"app": workload},
        )
        t = _backoff(b, t + timedelta(seconds=2), pod, node, "worker", 1) + timedelta(
            seconds=5 * 2**attempt
        )
    _diagnosed(
        b,
        out,
        workload,
        "application-exception",
        node,
        "crash",
        "The Deployment's only pod raises KeyError: 'DEPLOY_ENV' at start-up on every attempt and the kubelet backs off: a crash loop whose last lines name an application error. Root: the uncaught exception (the traceback's last frame reads os.environ[\"DEPLOY_ENV\"]); the crash loop is the consequence.",
    )


def missing_entrypoint(out: Path) -> None:
    b = Bundle("02-missing-entrypoint", 1302)
    workload, node = "eval-runner", _node(b.rng)
    pod = f"{workload}-7c9f8d6b54-{_suffix(b.rng)}"
    b.event(
        T0,
        "Scheduled",
        f"Successfully assigned default/{pod} to {node}",
        name=pod,
        component="default-scheduler",
        type_="Normal",
    )
    t = T0 + timedelta(seconds=3)
    for i in range(5):
        b.event(
            t,
            "Pulled",
            'Container image "us-docker.pkg.dev/ml-platform-prod/apps/eval:2.0" already present on machine',
            name=pod,
            host=node,
            type_="Normal",
            count=i + 1,
        )
        b.event(
            t + timedelta(seconds=1),
            "Failed",
            'Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/run-eval.sh": stat /app/run-eval.sh: no such file or directory: unknown',
            name=pod,
            host=node,
            count=i + 1,
        )
        t = _backoff(b, t + timedelta(seconds=2), pod, node, "eval", 1) + timedelta(
            seconds=10 * 2**i
        )
    _diagnosed(
        b,
        out,
        workload,
        "container-start-error",
        node,
        "crash",
        "The pod template's command /app/run-eval.sh is not in the image: runc cannot start the process (StartError), the container never prints a line, and the kubelet backs off.",
    )


def readiness_never_passes(out: Path) -> None:
    b = Bundle("03-readiness-never-passes", 1303)
    workload, node = "model-server", _node(b.rng)
    pod = f"{workload}-5d8b7f9c6-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "server", "us-docker.pkg.dev/ml-platform-prod/apps/server:3.1")
    b.line(
        T0 + timedelta(seconds=6),
        pod,
        node,
        "INFO:     Uvicorn running on http://0.0.0.0:9000 (Press CTRL+C to quit)",
        container="server",
        severity="INFO",
        labels={"app": workload},
    )
    ip = f"10.{b.rng.randrange(40, 60)}.{b.rng.randrange(256)}.{b.rng.randrange(2, 250)}"
    t = T0 + timedelta(seconds=10)
    for i in range(40):
        b.event(
            t,
            "Unhealthy",
            f'Readiness probe failed: Get "http://{ip}:8080/healthz": dial tcp {ip}:8080: connect: connection refused',
            name=pod,
            host=node,
            count=i + 1,
        )
        if i % 10 == 0:
            b.line(
                t + timedelta(seconds=1),
                pod,
                node,
                f'INFO:     {ip.rsplit(".", 1)[0]}.1:51234 - "GET /metrics HTTP/1.1" 200 OK',
                container="server",
                severity="INFO",
                stream="stdout",
                labels={"app": workload},
            )
        t += timedelta(seconds=15)
    b.write(
        out,
        {
            "workload": workload,
            "status": "inconclusive",
            "root_cause": None,
            "culprit_hosts": [node],
            "failures": [{"kind": "hang", "symptom": None, "host": node}],
            "why": "The server listens on port 9000 while its readiness probe asks port 8080: the pod runs but never becomes Ready. No page explains a probe aimed at the wrong port, so the honest answer names the pod and stays inconclusive — never no_failure."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its readiness-probe-failure lines stay in its evidence).",
        },
    )


def pvc_unbound(out: Path) -> None:
    b = Bundle("04-pvc-unbound", 1304)
    workload = "dataset-cache"
    pod = f"{workload}-0"
    t = T0
    for i in range(6):
        b.event(
            t,
            "FailedScheduling",
            "0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
            name=pod,
            component="default-scheduler",
            count=i + 1,
        )
        b.event(
            t + timedelta(seconds=1),
            "ProvisioningFailed",
            'storageclass.storage.k8s.io "premium-rwo-retain" not found',
            kind="PersistentVolumeClaim",
            name=f"cache-{workload}-0",
            component="persistentvolume-controller",
            count=i + 1,
        )
        t += timedelta(seconds=60)
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "pvc-unbound",
            "culprit_hosts": [],
            "failures": [{"kind": "scheduling", "symptom": "pvc-unbound", "host": None}],
            "why": "The StatefulSet's claim names a StorageClass that does not exist, so it never binds and the scheduler keeps reporting unbound immediate PersistentVolumeClaims behind the usual 0/N frame. Not TPU capacity. No pod ever ran: no culprit host.",
        },
    )


def bare_pod_image_pull(out: Path) -> None:
    b = Bundle("05-bare-pod-image-pull", 1305)
    workload, node = "tokenizer-job", _node(b.rng)
    pod = workload  # a bare pod, named exactly like the workload
    b.event(
        T0,
        "Scheduled",
        f"Successfully assigned default/{pod} to {node}",
        name=pod,
        component="default-scheduler",
        type_="Normal",
    )
    t = T0 + timedelta(seconds=2)
    image = "us-docker.pkg.dev/ml-platform-prod/apps/tokenizer:2.7.1"
    for i in range(5):
        b.event(
            t,
            "Pulling",
            f'Pulling image "{image}"',
            name=pod,
            host=node,
            type_="Normal",
            count=i + 1,
        )
        b.event(
            t + timedelta(seconds=1),
            "Failed",
            f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve reference "{image}": {image}: not found',
            name=pod,
            host=node,
            count=i + 1,
        )
        b.event(
            t + timedelta(seconds=2),
            "BackOff",
            f'Back-off pulling image "{image}"',
            name=pod,
            host=node,
            count=i + 1,
        )
        t += timedelta(seconds=30 * (i + 1))
    _diagnosed(
        b,
        out,
        workload,
        "image-pull-failure",
        node,
        "scheduling",
        "A bare pod named exactly like the workload (no controller, no suffix) cannot pull its image: the tag does not exist. Selecting the workload must find the bare pod.",
    )


def oom_crash_loop(out: Path) -> None:
    b = Bundle("06-oom-crash-loop", 1306)
    workload, node = "feature-builder", _node(b.rng, "highmem-pool")
    pod = f"{workload}-84d9c7b6f-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "builder", "us-docker.pkg.dev/ml-platform-prod/apps/features:0.9")
    t = T0 + timedelta(seconds=5)
    for i in range(3):
        b.line(
            t,
            pod,
            node,
            "loading shard index into memory",
            container="builder",
            severity="INFO",
            stream="stdout",
            labels={"app": workload},
        )
        pid = b.rng.randrange(2000, 90000)
        b.node(
            t + timedelta(seconds=20),
            node,
            f"Memory cgroup out of memory: Killed process {pid} (python3) total-vm:{b.rng.randrange(9, 12)}123456kB, anon-rss:2097152kB, file-rss:10240kB, shmem-rss:0kB, UID:0 pgtables:4512kB oom_score_adj:999",
        )
        t = _backoff(b, t + timedelta(seconds=22), pod, node, "builder", 1) + timedelta(
            seconds=20 * 2**i
        )
    _diagnosed(
        b,
        out,
        workload,
        "host-oom-killed",
        node,
        "crash",
        "The container exceeds its memory limit while loading the shard index; the kernel OOM-kills python3 each time and the kubelet backs off. The trainer prints nothing about it: the kernel line on the node is the evidence.",
    )


def dependency_dns(out: Path) -> None:
    b = Bundle("07-dependency-dns", 1307)
    workload, node = "metrics-export", _node(b.rng)
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "export", "us-docker.pkg.dev/ml-platform-prod/apps/export:1.2")
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=4),
        workload,
        pod,
        node,
        "export",
        [
            "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.11/site-packages/urllib3/connection.py", line 203, in _new_conn',
            "    sock = connection.create_connection(",
            "socket.gaierror: [Errno -2] Name or service not known",
        ],
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='experiment-tracker.mlops', port=80): Max retries exceeded with url: /api/runs (Caused by NameResolutionError(\"<urllib3.connection.HTTPConnection object at 0x7f3a2c1b9d50>: Failed to resolve 'experiment-tracker.mlops' ([Errno -2] Name or service not known)\"))",
    )
    _diagnosed(
        b,
        out,
        workload,
        "dependency-unreachable",
        node,
        "crash",
        "The export Job cannot resolve the tracking service's name (it lives in another namespace under a different name); every attempt raises and the Job reaches its backoff limit.",
    )


def crash_loop_silent(out: Path) -> None:
    b = Bundle("08-crash-loop-silent", 1308)
    workload, node = "queue-consumer", _node(b.rng)
    pod = f"{workload}-66f5d4c8b9-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "consumer", "us-docker.pkg.dev/ml-platform-prod/apps/consumer:5.0")
    _backoff(b, T0 + timedelta(seconds=8), pod, node, "consumer", 7)
    b.write(
        out,
        {
            "workload": workload,
            "status": "inconclusive",
            "root_cause": None,
            "culprit_hosts": [node],
            "failures": [{"kind": "restart", "symptom": None, "host": node}],
            "why": "The container exits without printing anything and the kubelet keeps backing off: the workload is broken (never no_failure), but nothing in the logs says why — inconclusive, naming the looping pod's node."
            " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its container-crash-loop lines stay in its evidence).",
        },
    )


def jobset_split_traceback(out: Path) -> None:
    b = Bundle("09-jobset-split-traceback", 1309)
    workload = "llama-sft"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    for i, (pod, node) in enumerate(zip(pods, nodes)):
        labels = {
            "jobset_sigs_k8s_io/jobset-name": workload,
            "batch_kubernetes_io/job-completion-index": str(i),
        }
        _started(b, T0, pod, node, "jax", "us-docker.pkg.dev/ml-platform-prod/train/sft:4")
        for step in range(3):
            if i == 0:
                b.line(
                    T0 + timedelta(seconds=60 + 10 * step),
                    pod,
                    node,
                    f"completed step: {step}, seconds: 9.812, TFLOP/s/device: 180.2, loss: {2.91 - step * 0.01:.3f}",
                    container="jax",
                    severity="INFO",
                    stream="stdout",
                    labels=labels,
                )

    def labels_of(i: int) -> dict[str, str]:
        return {
            "jobset_sigs_k8s_io/jobset-name": workload,
            "batch_kubernetes_io/job-completion-index": str(i),
        }

    t = T0 + timedelta(seconds=95)
    b.lines(
        t,
        pods[2],
        nodes[2],
        [
            "Traceback (most recent call last):",
            '  File "/app/train.py", line 212, in <module>',
            "    batch = next(data_iter)",
            '  File "/app/data.py", line 88, in __next__',
            "FileNotFoundError: [Errno 2] No such file or directory: '/data/sft/shard-00007.arrayrecord'",
        ],
        container="jax",
        labels=labels_of(2),
    )
    for i in (0, 1, 3):  # the survivors
        b.line(
            t + timedelta(seconds=40, milliseconds=i),
            pods[i],
            nodes[i],
            "F0302 14:02:15.000000   37 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:2",
            container="jax",
            labels=labels_of(i),
        )
    _jobset_policy(b, t + timedelta(seconds=3), workload, action="Fail")
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "application-exception",
            "culprit_hosts": [nodes[2]],
            "failures": [{"kind": "crash", "symptom": "application-exception", "host": nodes[2]}],
            "why": "Task 2 raises FileNotFoundError for a missing data shard; GKE splits its traceback into five entries. Exit 1 is not restartable, so the JobSet fails; the survivors' heartbeat fatal names task 2.",
        },
    )


BUILDERS = [
    crash_loop_app_error,
    missing_entrypoint,
    readiness_never_passes,
    pvc_unbound,
    bare_pod_image_pull,
    oom_crash_loop,
    dependency_dns,
    crash_loop_silent,
    jobset_split_traceback,
]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
