"""Deterministic generator of the round-15 incidents (`python make_incidents.py [OUT_DIR]`).

Control-plane failures the wiki had no page for before this round, written here from scratch as
Cloud Logging bundles in the shape of the round-13 set (whose bundle writer this reuses): a
JobSet Kueue admitted but whose controller, upgraded without its RBAC manifests, may not update
`jobs/status` and so never resumes it (its zap JSON line keeps the denial in `error`); a trainer
whose launcher lists its peer pods with the namespace's default service account and is refused
on each retry of its Job; a launcher that cannot reach the API server while a zonal cluster's
control plane is upgraded, with Kueue's lease renewal timing out in the same minutes. Wording
follows the real messages cited on the wiki's pages.
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.incidents13.make_incidents import (  # noqa: E402
    T0,
    Bundle,
    _diagnosed,
    _node,
    _retried_until_backoff_limit,
    _started,
    _suffix,
)

IMAGE = "us-docker.pkg.dev/ml-platform-prod/train/maxtext:2026.05"
JOBSET_LABEL = "jobset.sigs.k8s.io/jobset-name"


def _structured(
    b: Bundle,
    t: datetime,
    pod: str,
    node: str,
    payload: dict[str, Any],
    namespace: str,
    container: str = "manager",
) -> None:
    """A controller's zap/klog JSON line: GKE's agent keeps it as `jsonPayload`."""
    b.line(t, pod, node, "", namespace=namespace, container=container, severity="ERROR")
    entry = b.entries[-1]
    del entry["textPayload"]
    entry["jsonPayload"] = payload


def jobset_rbac_resume(out: Path) -> None:
    b = Bundle("01-jobset-rbac-resume", 1501)
    workload = "llm-pretrain"
    controller_node = _node(b.rng, "default-pool")
    controller = f"jobset-controller-manager-6c9f8d7b5-{_suffix(b.rng)}"
    b.event(
        T0,
        "Suspended",
        "Kueue suspended the JobSet until the workload is admitted",
        kind="JobSet",
        name=workload,
        component="kueue-admission",
        type_="Normal",
    )
    b.event(
        T0 + timedelta(seconds=4),
        "QuotaReserved",
        "Quota reserved in ClusterQueue tpu-v5p-queue, wait time since queued was 4s",
        kind="Workload",
        name=f"jobset-{workload}-3f2a1",
        component="kueue-admission",
        type_="Normal",
    )
    b.event(
        T0 + timedelta(seconds=4),
        "Admitted",
        "Admitted by ClusterQueue tpu-v5p-queue, wait time since reservation was 0s",
        kind="Workload",
        name=f"jobset-{workload}-3f2a1",
        component="kueue-admission",
        type_="Normal",
    )
    t = T0 + timedelta(seconds=5)
    delay = 1.0
    for attempt in range(6):
        job = f"{workload}-slice-job-{attempt % 2}"
        _structured(
            b,
            t,
            controller,
            controller_node,
            {
                "level": "error",
                "ts": round(t.timestamp(), 6),
                "logger": "jobset-controller",
                "msg": "resuming jobset",
                "controller": "jobset",
                "controllerGroup": "jobset.x-k8s.io",
                "controllerKind": "JobSet",
                "JobSet": {"name": workload, "namespace": "default"},
                "namespace": "default",
                "name": workload,
                "reconcileID": f"{b.rng.randrange(16**8):08x}-5c1d-4e2a-9b7f-{b.rng.randrange(16**12):012x}",
                "error": f'jobs.batch "{job}" is forbidden: User "system:serviceaccount:jobset-system:jobset-controller-manager" cannot update resource "jobs/status" in API group "batch" in the namespace "default"',
            },
            namespace="jobset-system",
        )
        t += timedelta(seconds=delay)
        delay *= 4
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "kube-rbac-forbidden",
            "culprit_hosts": [],
            "failures": [{"kind": "crash", "symptom": "kube-rbac-forbidden", "host": None}],
            "why": "The JobSet controller's image was upgraded without its RBAC manifests: when Kueue admits the JobSet, the controller must unsuspend its Jobs by updating jobs/status, which its ClusterRole does not grant. Each reconcile fails (the failure, on no host); the JobSet never gets a pod, and the only evidence is the controller's own zap line in jobset-system, with the denial in its error field. The node the controller runs on is not at fault.",
        },
    )


def launcher_lists_pods(out: Path) -> None:
    b = Bundle("02-launcher-lists-pods", 1502)
    workload, node = "rl-sweep", _node(b.rng, "cpu-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "launcher", IMAGE)
    body = (
        'HTTP response body: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        '"message":"pods is forbidden: User \\"system:serviceaccount:default:default\\" cannot '
        'list resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"","reason":'
        '"Forbidden","details":{"kind":"pods"},"code":403}'
    )
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=8),
        workload,
        pod,
        node,
        "launcher",
        [
            "Traceback (most recent call last):",
            '  File "/app/launch.py", line 41, in <module>',
            "    peers = v1.list_namespaced_pod(namespace, label_selector=selector).items",
            "kubernetes.client.exceptions.ApiException: (403)",
            "Reason: Forbidden",
            "HTTP response headers: HTTPHeaderDict({'Audit-Id': '5d0c8e4a-2b7f-4a61-9c3e-1f8b6d2a7e90', 'Cache-Control': 'no-cache, private', 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Content-Length': '285'})",
        ],
        body,
    )
    _diagnosed(
        b,
        out,
        workload,
        "kube-rbac-forbidden",
        node,
        "crash",
        "The launcher lists its peer pods to build the host list, but the Job runs as the namespace's default service account, which no Role lets list pods; the API server answers 403 on every attempt and the Job reaches its backoff limit. The Python exception is the effect, the missing Role the cause.",
    )


def apiserver_upgrade(out: Path) -> None:
    b = Bundle("03-apiserver-upgrade", 1503)
    workload, node = "eval-harness", _node(b.rng, "cpu-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    kueue_node = _node(b.rng, "default-pool")
    kueue = f"kueue-controller-manager-7b78c4484f-{_suffix(b.rng)}"
    t = T0
    for second in (0, 11, 21):
        _structured(
            b,
            t + timedelta(seconds=second),
            kueue,
            kueue_node,
            {
                "level": "info",
                "ts": round((t + timedelta(seconds=second)).timestamp(), 6),
                "msg": "failed to renew lease kueue-system/c1f6bfd2.kueue.x-k8s.io: context deadline exceeded",
            },
            namespace="kueue-system",
        )
    _started(b, T0 + timedelta(seconds=30), pod, node, "harness", IMAGE)
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=36),
        workload,
        pod,
        node,
        "harness",
        [
            "Traceback (most recent call last):",
            '  File "/app/harness.py", line 88, in discover_workers',
            "    return core.list_namespaced_pod(NAMESPACE, label_selector=SELECTOR)",
        ],
        "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='34.118.224.1', port=443): Max retries exceeded with url: /api/v1/namespaces/default/pods?labelSelector=app%3Deval-harness (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a9c2b1d50>: Failed to establish a new connection: [Errno 111] Connection refused'))",
    )
    _diagnosed(
        b,
        out,
        workload,
        "kube-apiserver-unavailable",
        node,
        "crash",
        "The zonal cluster's control plane was being upgraded, so its single API server refused connections for minutes: Kueue's lease renewals timed out, and the harness, which lists its workers through the API at start-up, failed on each attempt of its Job until the backoff limit. The connection refused is to the API server's own path, so it is the control plane, not a dependency of the job.",
    )


BUILDERS = [jobset_rbac_resume, launcher_lists_pods, apiserver_upgrade]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
