"""Incidents with their Cloud Monitoring series: memory climbing before an OOM (issue #15).

`hbm_run` and `host_oom_run` give a `Run` (its log entries), the culprit pod, and the REST JSON
series GKE would export for it (per chip or per container, one sample a minute while a pod
lives), for the local Monitoring server or a bundle's `metrics/`.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any, Callable

from tests.fakes.monitoring_server import gauge
from tests.scenarios import CLUSTER, NAMESPACE, PROJECT, T0, ZONE, Pod, Run, loud_hbm_oom

GIB = 2**30
HBM_USED = "kubernetes.io/container/accelerator/memory_used"
HBM_TOTAL = "kubernetes.io/container/accelerator/memory_total"
MEM_SHARE = "kubernetes.io/container/memory/limit_utilization"
MEM_USED = "kubernetes.io/container/memory/used_bytes"
NODE_SHARE = "kubernetes.io/node/memory/allocatable_utilization"
START = T0.strftime("%Y-%m-%dT%H:%M:%SZ")
END = (T0 + timedelta(seconds=1800)).strftime("%Y-%m-%dT%H:%M:%SZ")
CHIPS = 4
SAMPLE_AT = 5  # seconds past each minute when GKE samples (deterministic, for exact phrases)


def _container(pod: Pod, container: str = "jax-tpu") -> dict[str, str]:
    return {
        "project_id": PROJECT,
        "location": ZONE,
        "cluster_name": CLUSTER,
        "namespace_name": NAMESPACE,
        "pod_name": pod.name,
        "container_name": container,
    }


def _samples(pod: Pod, value: Callable[[float], float]) -> list[tuple[float, float]]:
    """One sample a minute while the pod lives (a dead pod's series just ends)."""
    end = pod.end if pod.end is not None else 1800
    moments = [m * 60 + SAMPLE_AT for m in range(31)]
    return [(T0.timestamp() + t, value(t)) for t in moments if pod.start <= t < end]


def hbm_run(
    workload: str, *, climbs: bool = True, slices: int = 1, hosts: int = 4
) -> tuple[Run, Pod, list[dict[str, Any]]]:
    """A runtime HBM OOM on one host at 913 s; its chip 0's HBM climbs from 9 GiB to 15.8 of
    16 GiB (or stays at 8 GiB) while the other chips and hosts hold 10–11 GiB."""
    run, culprit = loud_hbm_oom(workload, slices, hosts, threads=1, rounds=90)
    rng = random.Random(7)
    series = []
    for pod in run.pods.values():
        for chip in range(CHIPS):
            labels = {"accelerator_id": f"{pod.node}-{chip}", "make": "cloud-tpu", "model": "v5e"}
            if pod is culprit and chip == 0:

                def used(t: float) -> float:
                    return round((9 + 6.8 * min(t, 905) / 905) * GIB) if climbs else 8 * GIB

            else:
                base = rng.uniform(10, 11)

                def used(t: float, base: float = base) -> float:
                    return round(base * GIB)

            series.append(
                gauge(HBM_USED, _container(pod), _samples(pod, used), metric_labels=labels)
            )
            series.append(
                gauge(
                    HBM_TOTAL,
                    _container(pod),
                    _samples(pod, lambda t: 16 * GIB),
                    metric_labels=labels,
                )
            )
    return run, culprit, series


def host_oom_run(workload: str) -> tuple[Run, Pod, list[dict[str, Any]]]:
    """An OOM kill of one of four hosts' containers at 605 s: its non-evictable working set climbs
    to 99.7 % of its 400 GiB limit; the others hold half; every node at 55–80 % of allocatable.
    The JobSet restarts and trains on."""
    run = Run(workload, 1, 4, seed=21, step_period=60)
    run.start_attempt(0)
    run.train(10, 600)
    oom = run.pods[(0, 1)]
    run.node_event(
        oom.node,
        605,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 41872 (python3) total-vm:412044880kB, "
        "anon-rss:398311424kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:790512kB "
        "oom_score_adj:-997",
    )
    run.pod_event(
        oom.name,
        606,
        "OOMKilled",
        f"Container jax-tpu in pod {oom.name} was OOMKilled (exit code 137)",
        "Warning",
    )
    run.kill(oom, 605)
    run.cascade(oom, 700)
    first = list(run.pods.values())
    run.restart(760)
    run.train(800, 1500, step0=10)
    series = []
    for pod in first + list(run.pods.values()):
        if pod is oom:

            def share(t: float) -> float:
                return round(0.6 + 0.397 * min(t, 545) / 545, 4)

        else:

            def share(t: float) -> float:
                return 0.5

        for memory_type, factor in (("non-evictable", 1.0), ("evictable", 0.1)):
            labels = {"memory_type": memory_type}
            series.append(
                gauge(
                    MEM_SHARE,
                    _container(pod),
                    _samples(pod, lambda t, f=factor: share(t) * f),
                    metric_labels=labels,
                    value_type="DOUBLE",
                )
            )
            series.append(
                gauge(
                    MEM_USED,
                    _container(pod),
                    _samples(pod, lambda t, f=factor: round(share(t) * f * 400 * GIB)),
                    metric_labels=labels,
                )
            )
    for node in sorted({p.node for p in first}):
        level = 0.8 if node == oom.node else 0.55
        whole = Pod("node", node, 0, 0, 0, 0.0)
        series.append(
            gauge(
                NODE_SHARE,
                {
                    "project_id": PROJECT,
                    "location": ZONE,
                    "cluster_name": CLUSTER,
                    "node_name": node,
                },
                _samples(whole, lambda t, v=level: v),
                metric_labels={"memory_type": "non-evictable", "component": "user"},
                resource_type="k8s_node",
                value_type="DOUBLE",
            )
        )
    return run, oom, series
