"""Write the round-9 held-out incidents: jobs that never start, or start only after a long wait.

Each scenario folder gets `bundle.json` (a JSON array, newest first, as `gcloud logging read
--format=json` prints it) and `expected.json` (what a senior TPU engineer concludes). The output
is deterministic: run `python tests/incidents9/make_incidents.py` to regenerate.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
PROJECT = "tpu-train-prod-3317"
CLUSTER = "tpu-east5"
LOCATION = "us-east5"
ZONE = "us-east5-a"
NAMESPACE = "default"
T0 = datetime(2025, 11, 4, 7, 12, 0, tzinfo=timezone.utc)


def stamp(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class Bundle:
    """Log entries of one incident, built in any order and written newest first."""

    workload: str
    seed: int
    entries: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def suffix(self, size: int = 5) -> str:
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(size))

    def node(self, pool: str) -> str:
        return f"gke-{CLUSTER}-{pool}-{self.rng.getrandbits(32):08x}-{self.suffix(4)}"

    def pods(self, count: int, slice_index: int = 0) -> list[str]:
        return [
            f"{self.workload}-slice-job-{slice_index}-{c}-{self.suffix()}" for c in range(count)
        ]

    def add(
        self, at: float, resource: dict[str, Any], log: str, severity: str, **payload: Any
    ) -> None:
        self.entries.append(
            {
                "insertId": f"{self.rng.getrandbits(48):012x}",
                "logName": f"projects/{PROJECT}/logs/{log}",
                "receiveTimestamp": stamp(at + 0.4),
                "resource": resource,
                "severity": severity,
                "timestamp": stamp(at),
                **payload,
            }
        )

    def pod_event(
        self,
        at: float,
        pod: str,
        reason: str,
        message: str,
        *,
        component: str,
        host: str = "",
        kind: str = "Normal",
    ) -> None:
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        self.add(
            at,
            {"type": "k8s_pod", "labels": self._labels(pod_name=pod)},
            "events",
            "INFO" if kind == "Normal" else "WARNING",
            jsonPayload={
                "apiVersion": "v1",
                "kind": "Event",
                "type": kind,
                "reason": reason,
                "message": message,
                "involvedObject": {
                    "kind": "Pod",
                    "name": pod,
                    "namespace": NAMESPACE,
                    "apiVersion": "v1",
                },
                "source": source,
                "reportingComponent": component,
                "metadata": {"name": f"{pod}.{self.rng.getrandbits(60):x}", "namespace": NAMESPACE},
            },
        )

    def object_event(
        self,
        at: float,
        kind: str,
        name: str,
        reason: str,
        message: str,
        *,
        component: str,
        warn: bool = False,
    ) -> None:
        """An event about a JobSet, Job, Kueue Workload or ProvisioningRequest (cluster-level resource)."""
        self.add(
            at,
            {"type": "k8s_cluster", "labels": self._labels()},
            "events",
            "WARNING" if warn else "INFO",
            jsonPayload={
                "apiVersion": "v1",
                "kind": "Event",
                "type": "Warning" if warn else "Normal",
                "reason": reason,
                "message": message,
                "involvedObject": {"kind": kind, "name": name, "namespace": NAMESPACE},
                "source": {"component": component},
                "reportingComponent": component,
            },
        )

    def container(
        self,
        at: float,
        pod: str,
        host: str,
        text: str,
        *,
        container: str = "jax-tpu",
        stderr: bool = True,
        dotted: bool = False,
        severity: str = "INFO",
    ) -> None:
        key = "jobset.sigs.k8s.io" if dotted else "jobset_sigs_k8s_io"
        self.add(
            at,
            {
                "type": "k8s_container",
                "labels": self._labels(pod_name=pod, container_name=container),
            },
            "stderr" if stderr else "stdout",
            severity,
            textPayload=text,
            labels={
                "compute.googleapis.com/resource_name": host,
                f"k8s-pod/{key}/jobset-name": self.workload,
                f"k8s-pod/{key}/replicatedjob-name": "slice-job",
                "k8s-pod/xpk_google_com/workload": self.workload,
            },
        )

    def autoscaler(self, at: float, payload: dict[str, Any]) -> None:
        self.add(
            at,
            {
                "type": "k8s_cluster",
                "labels": {"project_id": PROJECT, "location": LOCATION, "cluster_name": CLUSTER},
            },
            "container.googleapis.com%2Fcluster-autoscaler-visibility",
            "DEFAULT",
            jsonPayload=payload,
        )

    def audit(
        self,
        at: float,
        method: str,
        resource_name: str,
        status: Optional[dict[str, Any]],
        severity: str,
    ) -> None:
        proto: dict[str, Any] = {
            "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
            "serviceName": "container.googleapis.com",
            "methodName": method,
            "resourceName": resource_name,
            "authenticationInfo": {
                "principalEmail": "ml-platform-ci@tpu-train-prod-3317.iam.gserviceaccount.com"
            },
        }
        if status:
            proto["status"] = status
        self.add(
            at,
            {
                "type": "gke_nodepool",
                "labels": {
                    "project_id": PROJECT,
                    "location": LOCATION,
                    "cluster_name": CLUSTER,
                    "nodepool_name": resource_name.rsplit("/", 1)[-1],
                },
            },
            "cloudaudit.googleapis.com%2Factivity",
            severity,
            protoPayload=proto,
        )

    def _labels(self, **extra: str) -> dict[str, str]:
        base = {"project_id": PROJECT, "location": LOCATION, "cluster_name": CLUSTER}
        if "pod_name" in extra:
            base["namespace_name"] = NAMESPACE
        return {**base, **extra}

    def write(self, folder: Path, expected: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        ordered = sorted(self.entries, key=lambda e: e["timestamp"], reverse=True)
        (folder / "bundle.json").write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
        (folder / "expected.json").write_text(
            json.dumps({"workload": self.workload, **expected}, indent=2) + "\n", encoding="utf-8"
        )


# ---------------------------------------------------------------- shared story fragments


def mig(pool: str) -> dict[str, str]:
    return {"name": f"gke-{CLUSTER}-{pool}-grp", "nodepool": pool, "zone": ZONE}


def sample_pod(b: Bundle, pod: str, count: int) -> dict[str, Any]:
    return {
        "samplePod": {
            "name": pod,
            "namespace": NAMESPACE,
            "controller": {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "name": f"{b.workload}-slice-job-0",
            },
        },
        "totalPodCount": count,
    }


def created(b: Bundle, at: float, pods: list[str], replicas: int = 1) -> None:
    """JobSet created its Jobs and the Jobs their pods: the opening of every story."""
    for j in range(replicas):
        b.object_event(
            at,
            "JobSet",
            b.workload,
            "SuccessfulCreate",
            f"Created job {b.workload}-slice-job-{j}",
            component="jobset-controller",
        )
    for i, pod in enumerate(pods):
        b.object_event(
            at + 0.3 + i * 0.05,
            "Job",
            f"{b.workload}-slice-job-0",
            "SuccessfulCreate",
            f"Created pod: {pod}",
            component="job-controller",
        )


def kueue_admitted(b: Bundle, at: float, wl: str, queue: str, waited: float) -> None:
    b.object_event(
        at,
        "Workload",
        wl,
        "QuotaReserved",
        f"Quota reserved in ClusterQueue {queue}, wait time since queued was {waited:.0f}s",
        component="kueue-admission",
    )
    b.object_event(
        at + 0.2,
        "Workload",
        wl,
        "Admitted",
        f"Admitted by ClusterQueue {queue}, wait time since reservation was 0s",
        component="kueue-admission",
    )


def pending_every(
    b: Bundle, start: float, end: float, every: float, pods: list[str], message: str
) -> None:
    t = start
    while t < end:
        for pod in pods:
            b.pod_event(
                t + b.rng.uniform(0, 2),
                pod,
                "FailedScheduling",
                message,
                component="default-scheduler",
                kind="Warning",
            )
        t += every


def runs_fine(
    b: Bundle,
    at: float,
    pods: list[str],
    hosts: list[str],
    image: str,
    steps: int,
    dotted: bool = False,
) -> None:
    """Pods bound, pulled, started, and training making steady progress."""
    for pod, host in zip(pods, hosts):
        b.pod_event(
            at,
            pod,
            "Scheduled",
            f"Successfully assigned {NAMESPACE}/{pod} to {host}",
            component="default-scheduler",
        )
        b.pod_event(
            at + 3, pod, "Pulling", f'Pulling image "{image}"', component="kubelet", host=host
        )
        b.pod_event(
            at + 41,
            pod,
            "Pulled",
            f'Successfully pulled image "{image}" in 37.912s (37.912s including waiting). '
            "Image size: 9113541230 bytes.",
            component="kubelet",
            host=host,
        )
        b.pod_event(
            at + 42, pod, "Created", "Created container: jax-tpu", component="kubelet", host=host
        )
        b.pod_event(
            at + 43, pod, "Started", "Started container jax-tpu", component="kubelet", host=host
        )
    for k, (pod, host) in enumerate(zip(pods, hosts)):
        b.container(
            at + 50,
            pod,
            host,
            f"I1104 jax._src.distributed: Connecting to JAX distributed service on "
            f"{b.workload}-slice-job-0-0.{b.workload}:8482",
            dotted=dotted,
        )
        b.container(
            at + 58,
            pod,
            host,
            f"jax.process_index()={k} jax.process_count()={len(pods)} "
            f"local_device_count=4 device_count={4 * len(pods)}",
            stderr=False,
            dotted=dotted,
        )
    lead_pod, lead_host = pods[0], hosts[0]
    b.container(
        at + 70,
        lead_pod,
        lead_host,
        "Compiling train_step for 1 devices ... this may take a while",
        stderr=False,
        dotted=dotted,
    )
    for step in range(steps):
        loss = 10.8 * (0.985**step) + b.rng.uniform(-0.02, 0.02)
        b.container(
            at + 190 + step * 6.1,
            lead_pod,
            lead_host,
            f"completed step: {step}, seconds: {6.1 + b.rng.uniform(-0.1, 0.1):.3f}, "
            f"TFLOP/s/device: {171.4 + b.rng.uniform(-2, 2):.2f}, loss: {loss:.3f}",
            stderr=False,
            dotted=dotted,
        )


EXPECT_PENDING = "scheduling"


def never_started(root: str, why: str) -> dict[str, Any]:
    """The label of a job that never started for one cluster-wide reason (no host to blame)."""
    return {
        "status": "diagnosed",
        "root_cause": root,
        "culprit_hosts": [],
        "failures": [{"kind": EXPECT_PENDING, "symptom": root, "host": None}],
        "why": why,
    }


# ---------------------------------------------------------------- the incidents


def quota_exceeded() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("gpt3-175b-v5p", 901)
    pods = b.pods(8)
    created(b, 0, pods)
    pending_every(
        b,
        2,
        1500,
        300,
        pods,
        "0/14 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, "
        "12 Insufficient google.com/tpu. preemption: 0/14 nodes are available: "
        "12 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
    )
    for k, at in enumerate(range(40, 1500, 300)):
        b.autoscaler(
            at,
            {
                "decision": {
                    "decideTime": str(1762240000 + at),
                    "eventId": f"6a1c-{k:04d}",
                    "scaleUp": {
                        "increasedMigs": [{"mig": mig("v5p-np-32"), "requestedNodes": 8}],
                        "triggeringPods": [{"name": pods[0], "namespace": NAMESPACE}],
                        "triggeringPodsTotalCount": 8,
                    },
                }
            },
        )
        b.autoscaler(
            at + 95,
            {
                "resultInfo": {
                    "measureTime": str(1762240095 + at),
                    "results": [
                        {
                            "eventId": f"6a1c-{k:04d}",
                            "errorMsg": {
                                "messageId": "scale.up.error.quota.exceeded",
                                "parameters": [
                                    f"Instance 'gke-{CLUSTER}-v5p-np-32-4f0e9a21-{b.suffix(4)}' creation failed: "
                                    f"Quota 'TPU_V5P_PODSLICE' exceeded.  Limit: 64.0 in region {LOCATION}."
                                ],
                            },
                        }
                    ],
                }
            },
        )
        for pod in pods:
            b.pod_event(
                at + 96,
                pod,
                "NotTriggerScaleUp",
                "pod didn't trigger scale-up: 1 in backoff after failed scale-up, "
                "1 node(s) didn't match Pod's node affinity/selector",
                component="cluster-autoscaler",
            )
    return b, never_started(
        "capacity-stockout-or-quota",
        "Eight pods Pending for 25 minutes with Insufficient google.com/tpu; every autoscaler scale-up of the "
        "v5p pool fails with scale.up.error.quota.exceeded (TPU_V5P_PODSLICE limit 64 in region). The "
        "FailedScheduling lines are the symptom of the quota; no node ever existed, so no culprit host.",
    )


def reservation_stockout() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("llama3-70b-sft", 902)
    pods = b.pods(4)
    created(b, 0, pods)
    b.audit(
        5,
        "google.container.v1.ClusterManager.UpdateNodePool",
        f"projects/{PROJECT}/locations/{LOCATION}/clusters/{CLUSTER}/nodePools/v6e-resv-16",
        None,
        "NOTICE",
    )
    pending_every(
        b,
        3,
        2400,
        400,
        pods,
        "0/6 nodes are available: 6 node(s) had untolerated taint {components.gke.io/gke-managed-components: "
        "true}. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
    )
    for k, at in enumerate(range(60, 2400, 400)):
        b.autoscaler(
            at + 120,
            {
                "resultInfo": {
                    "measureTime": str(1762240120 + at),
                    "results": [
                        {
                            "eventId": f"b77e-{k:04d}",
                            "errorMsg": {
                                "messageId": "scale.up.error.out.of.resources",
                                "parameters": [
                                    f"Instance 'gke-{CLUSTER}-v6e-resv-16-0a8d5be2-{b.suffix(4)}' creation failed: GCE_STOCKOUT: "
                                    f"Reservation 'projects/{PROJECT}/zones/{ZONE}/reservations/v6e-256-resv' does not have enough "
                                    "resources available to fulfill the request."
                                ],
                            },
                        }
                    ],
                }
            },
        )
        for pod in pods:
            b.pod_event(
                at + 121,
                pod,
                "FailedScaleUp",
                f"Node scale up in zones {ZONE} associated with this pod failed: GCE out of resources. "
                "Pod is at risk of not being scheduled.",
                component="cluster-autoscaler",
                kind="Warning",
            )
    return b, never_started(
        "capacity-stockout-or-quota",
        "The JobSet targets the reservation v6e-256-resv; every scale-up ends in GCE_STOCKOUT / "
        "scale.up.error.out.of.resources because the reservation is fully consumed. Pods never get a node "
        "(the only nodes are system nodes with a managed-components taint, which is noise).",
    )


def topology_not_offered() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("mixtral-8x22b-v5e", 903)
    pods = b.pods(8)
    created(b, 0, pods)
    pending_every(
        b,
        1,
        1800,
        360,
        pods,
        "0/9 nodes are available: 1 Insufficient google.com/tpu, 8 node(s) didn't match Pod's node "
        "affinity/selector. preemption: 0/9 nodes are available: 1 No preemption victims found for "
        "incoming pod, 8 Preemption is not helpful for scheduling.",
    )
    for at in range(30, 1800, 360):
        b.autoscaler(
            at,
            {
                "noDecisionStatus": {
                    "measureTime": str(1762240000 + at),
                    "noScaleUp": {
                        "unhandledPodGroups": [
                            {
                                "podGroup": sample_pod(b, pods[0], 8),
                                "rejectedMigs": [
                                    {
                                        "mig": mig("v5e-np-4x4"),
                                        "reason": {
                                            "messageId": "no.scale.up.mig.failing.predicate",
                                            "parameters": [
                                                "NodeAffinity",
                                                "node(s) didn't match Pod's node affinity/selector",
                                            ],
                                        },
                                    }
                                ],
                                "napFailureReasons": [
                                    {
                                        "messageId": "no.scale.up.nap.pod.tpu.no.matching.topology",
                                        "parameters": ["tpu-v5-lite-podslice", "8x8", ZONE],
                                    }
                                ],
                            }
                        ],
                        "unhandledPodGroupsTotalCount": 1,
                    },
                }
            },
        )
        for pod in pods:
            b.pod_event(
                at + 1,
                pod,
                "NotTriggerScaleUp",
                "pod didn't trigger scale-up: 1 node(s) didn't match Pod's node affinity/selector",
                component="cluster-autoscaler",
            )
    return b, never_started(
        "failed-scheduling-insufficient-tpu",
        "The pods select cloud.google.com/gke-tpu-topology=8x8 but the only v5e pool is 4x4 and node "
        "auto-provisioning cannot create 8x8 here; the autoscaler rejects the pool on NodeAffinity. A selector "
        "no node pool can satisfy: failed scheduling (not a stockout or a quota — nothing was even attempted).",
    )


def dws_expired() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("flux-dit-dws", 904)
    wl = f"jobset-{b.workload}-{b.suffix()}"
    pr = f"{wl}-dws-prov-1"
    b.object_event(
        0,
        "Workload",
        wl,
        "CreatedWorkload",
        f"Created Workload: {NAMESPACE}/{wl}",
        component="jobset-kueue-controller",
    )
    b.object_event(
        1,
        "ProvisioningRequest",
        pr,
        "ProvisioningRequestAccepted",
        "Provisioning Request was successfully queued.",
        component="cluster-autoscaler",
    )
    for k, at in enumerate(range(600, 14400, 1200)):
        b.autoscaler(
            at,
            {
                "resultInfo": {
                    "measureTime": str(1762240000 + at),
                    "results": [
                        {
                            "eventId": f"dws-{k:04d}",
                            "errorMsg": {
                                "messageId": "scale.up.error.out.of.resources",
                                "parameters": [
                                    f"Instance 'gke-{CLUSTER}-flex-v5e-16-7c1d09a4-{b.suffix(4)}' creation failed: "
                                    "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS: The zone 'projects/"
                                    + PROJECT
                                    + "/zones/"
                                    + ZONE
                                    + "' does not have enough resources available to fulfill the request. '(resource type:tpu)'."
                                ],
                            },
                        }
                    ],
                }
            },
        )
    b.object_event(
        14410,
        "ProvisioningRequest",
        pr,
        "ProvisioningRequestFailed",
        "Provisioning Request wasn't provisioned. Reason: capacity was not available within the "
        "maximum wait time (4h0m0s).",
        component="cluster-autoscaler",
        warn=True,
    )
    b.object_event(
        14411,
        "Workload",
        wl,
        "AdmissionCheckRejected",
        f"The workload has failed admission checks: dws-prov: ProvisioningRequest {pr} failed",
        component="kueue-admission",
        warn=True,
    )
    b.object_event(
        14412,
        "Workload",
        wl,
        "Deactivated",
        "The workload is deactivated due to rejected admission checks",
        component="kueue-admission",
    )
    b.object_event(
        14413, "JobSet", b.workload, "Suspended", "jobset suspended", component="jobset-controller"
    )
    return b, never_started(
        "capacity-stockout-or-quota",
        "Queued provisioning (DWS flex-start) waited the full 4h maxRunDuration window; each provisioning "
        "attempt hit ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS for TPUs, then the ProvisioningRequest expired "
        "and Kueue deactivated the Workload. Root: no TPU capacity in the zone; no pod or node ever existed.",
    )


def kueue_no_localqueue() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("gemma2-27b-dpo", 905)
    wl = f"jobset-{b.workload}-{b.suffix()}"
    b.object_event(
        0,
        "Workload",
        wl,
        "CreatedWorkload",
        f"Created Workload: {NAMESPACE}/{wl}",
        component="jobset-kueue-controller",
    )
    for at in range(2, 3600, 600):
        b.object_event(
            at,
            "Workload",
            wl,
            "Pending",
            "LocalQueue tpu-v5p-lq doesn't exist",
            component="kueue-admission",
            warn=True,
        )
    b.object_event(
        1, "JobSet", b.workload, "Suspended", "jobset suspended", component="jobset-controller"
    )
    return b, never_started(
        "kueue-admission-pending",
        "The JobSet names kueue.x-k8s.io/queue-name=tpu-v5p-lq, a LocalQueue that does not exist in the "
        "namespace; Kueue keeps the Workload Pending and the JobSet suspended for an hour. No pods at all.",
    )


def kueue_flavor_quota() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("t5x-xxl-pretrain", 906)
    wl = f"jobset-{b.workload}-{b.suffix()}"
    b.object_event(
        0,
        "Workload",
        wl,
        "CreatedWorkload",
        f"Created Workload: {NAMESPACE}/{wl}",
        component="jobset-kueue-controller",
    )
    for at in range(3, 5400, 900):
        b.object_event(
            at,
            "Workload",
            wl,
            "Pending",
            "couldn't assign flavors to pod set slice-job: insufficient quota for google.com/tpu in "
            "flavor v5p-spot, previously considered podsets requests (0) + current podset request "
            "(256) > maximum capacity (128)",
            component="kueue-admission",
            warn=True,
        )
    return b, never_started(
        "kueue-admission-pending",
        "The pod set asks for 256 google.com/tpu but the ClusterQueue's only flavor offers at most 128: the "
        "Workload can never be admitted (a request larger than the nominal quota, not a temporary wait).",
    )


def webhook_denied() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("qwen-72b-eval", 907)
    b.object_event(
        0,
        "JobSet",
        b.workload,
        "SuccessfulCreate",
        f"Created job {b.workload}-slice-job-0",
        component="jobset-controller",
    )
    for at in range(1, 1200, 97):
        b.object_event(
            at,
            "Job",
            f"{b.workload}-slice-job-0",
            "FailedCreate",
            'Error creating: admission webhook "validation.gatekeeper.sh" denied the request: '
            "[require-tpu-cost-center] pod is missing required label cost-center",
            component="job-controller",
            warn=True,
        )
    return b, {
        "status": "diagnosed",
        "root_cause": "admission-webhook-denied",
        "culprit_hosts": [],
        "failures": [{"kind": "scheduling", "symptom": "admission-webhook-denied", "host": None}],
        "why": "An admission webhook (Gatekeeper policy) rejects every pod the Job tries to create, so nothing "
        "is scheduled: the webhook denial is the cause (symptom page admission-webhook-denied, added after "
        "this set first found the gap). No pod ever reached a node, so no culprit host.",
    }


def taint_not_tolerated() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("vit-22b-finetune", 908)
    pods = b.pods(4)
    created(b, 0, pods)
    pending_every(
        b,
        2,
        1500,
        250,
        pods,
        "0/7 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 4 node(s) had "
        "untolerated taint {google.com/tpu: present}. preemption: 0/7 nodes are available: "
        "7 Preemption is not helpful for scheduling.",
    )
    for at in range(20, 1500, 250):
        b.autoscaler(
            at,
            {
                "noDecisionStatus": {
                    "measureTime": str(1762240000 + at),
                    "noScaleUp": {
                        "unhandledPodGroups": [
                            {
                                "podGroup": sample_pod(b, pods[0], 4),
                                "rejectedMigs": [
                                    {
                                        "mig": mig("v5p-np-16"),
                                        "reason": {
                                            "messageId": "no.scale.up.mig.failing.predicate",
                                            "parameters": [
                                                "TaintToleration",
                                                "node(s) had untolerated taint {google.com/tpu: present}",
                                            ],
                                        },
                                    }
                                ],
                            }
                        ],
                        "unhandledPodGroupsTotalCount": 1,
                    },
                }
            },
        )
    return b, never_started(
        "failed-scheduling-insufficient-tpu",
        "The four TPU nodes exist and are free, but the pod spec lacks the google.com/tpu toleration (a "
        "hand-written JobSet, not XPK); the autoscaler also refuses on TaintToleration. Scheduling failure.",
    )


def secret_missing() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("sdxl-distill", 909)
    pods = b.pods(4)
    hosts = [b.node("v6e-np-4x4") for _ in pods]
    created(b, 0, pods)
    image = "us-docker.pkg.dev/tpu-train-prod-3317/train/sdxl-distill:v0.9.2"
    for pod, host in zip(pods, hosts):
        b.pod_event(
            2,
            pod,
            "Scheduled",
            f"Successfully assigned {NAMESPACE}/{pod} to {host}",
            component="default-scheduler",
        )
        b.pod_event(
            40,
            pod,
            "Pulled",
            f'Successfully pulled image "{image}" in 36.2s (36.2s including waiting). '
            "Image size: 7712340811 bytes.",
            component="kubelet",
            host=host,
        )
        for k, at in enumerate(range(41, 1300, 120)):
            b.pod_event(
                at,
                pod,
                "Failed",
                'Error: secret "hf-token" not found',
                component="kubelet",
                host=host,
                kind="Warning",
            )
            if k:
                b.pod_event(
                    at + 1,
                    pod,
                    "Pulled",
                    f'Container image "{image}" already present on machine',
                    component="kubelet",
                    host=host,
                )
    return b, {
        "status": "diagnosed",
        "root_cause": "container-config-error",
        "culprit_hosts": [],
        "failures": [{"kind": "scheduling", "symptom": "container-config-error", "host": None}],
        "why": "Every pod sits in CreateContainerConfigError: the Secret hf-token referenced by env.valueFrom "
        "is missing in the namespace (symptom page container-config-error, added after this set first "
        "found the gap; it is not an image pull failure although the kubelet reason is also 'Failed'). "
        "Same on all hosts, so no culprit host.",
    }


def wrong_image_tag() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("maxtext-llama2-7b", 910)
    pods = b.pods(4)
    hosts = [b.node("v5e-np-2x4") for _ in pods]
    created(b, 0, pods)
    image = "us-central1-docker.pkg.dev/tpu-train-prod-3317/maxtext/maxtext_base_image:2025-11-0l"
    for pod, host in zip(pods, hosts):
        b.pod_event(
            1,
            pod,
            "Scheduled",
            f"Successfully assigned {NAMESPACE}/{pod} to {host}",
            component="default-scheduler",
        )
        for at in [3, 20, 48, 95, 190, 380, 680, 980]:
            b.pod_event(
                at, pod, "Pulling", f'Pulling image "{image}"', component="kubelet", host=host
            )
            b.pod_event(
                at + 1.2,
                pod,
                "Failed",
                f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and '
                f'unpack image "{image}": failed to resolve reference "{image}": '
                f"{image}: not found",
                component="kubelet",
                host=host,
                kind="Warning",
            )
            b.pod_event(
                at + 1.3,
                pod,
                "Failed",
                "Error: ErrImagePull",
                component="kubelet",
                host=host,
                kind="Warning",
            )
            b.pod_event(
                at + 2,
                pod,
                "BackOff",
                f'Back-off pulling image "{image}"',
                component="kubelet",
                host=host,
            )
            b.pod_event(
                at + 2.1,
                pod,
                "Failed",
                "Error: ImagePullBackOff",
                component="kubelet",
                host=host,
                kind="Warning",
            )
    return b, never_started(
        "image-pull-failure",
        "The image tag ends in '0l' (letter l, a typo for 01): NotFound on every node, then ImagePullBackOff. "
        "Identical on all four hosts, so no single culprit host.",
    )


def init_container_forbidden() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("whisper-v3-tpu", 911)
    pods = b.pods(4)
    hosts = [b.node("v5p-np-2x2x2") for _ in pods]
    created(b, 0, pods)
    bucket = "gs://speech-corpora-eu/tokenizers/whisper-v3/"
    for pod, host in zip(pods, hosts):
        b.pod_event(
            1,
            pod,
            "Scheduled",
            f"Successfully assigned {NAMESPACE}/{pod} to {host}",
            component="default-scheduler",
        )
        for at in [30, 60, 110, 200, 370, 690]:
            b.pod_event(
                at, pod, "Started", "Started container fetch-assets", component="kubelet", host=host
            )
            jitter = b.rng.uniform(0, 1)
            b.container(
                at + 2 + jitter,
                pod,
                host,
                f"Copying {bucket}tokenizer.json ...",
                container="fetch-assets",
            )
            lines = [
                "Traceback (most recent call last):",
                '  File "/app/fetch_assets.py", line 41, in <module>',
                "    blob.download_to_filename(dest)",
                '  File "/usr/local/lib/python3.11/site-packages/google/cloud/storage/blob.py", line 1307, '
                "in download_to_filename",
                "    self._handle_filename_and_download(",
                "google.api_core.exceptions.Forbidden: 403 GET https://storage.googleapis.com/download/storage/v1/"
                "b/speech-corpora-eu/o/tokenizers%2Fwhisper-v3%2Ftokenizer.json?alt=media: "
                f"trainer-sa@{PROJECT}.iam.gserviceaccount.com does not have storage.objects.get access to "
                "the Google Cloud Storage object. Permission 'storage.objects.get' denied on resource (or it "
                "may not exist).: ('Request failed with status code', 403, 'Expected one of', "
                "<HTTPStatus.OK: 200>, <HTTPStatus.PARTIAL_CONTENT: 206>)",
            ]
            for i, line in enumerate(lines):
                b.container(
                    at + 3 + jitter + i * 0.001,
                    pod,
                    host,
                    line,
                    container="fetch-assets",
                    severity="ERROR",
                )
            b.pod_event(
                at + 5,
                pod,
                "BackOff",
                f"Back-off restarting failed container fetch-assets in pod "
                f"{pod}_{NAMESPACE}({b.rng.getrandbits(64):016x})",
                component="kubelet",
                host=host,
                kind="Warning",
            )
    return b, never_started_crash(
        "checkpoint-gcs-permission",
        "The init container fetch-assets cannot read the tokenizer from a bucket in another project: 403 "
        "storage.objects.get denied for the workload's service account, on every pod, so the main container "
        "never starts (Init:CrashLoopBackOff). Same on all hosts: no single culprit.",
    )


def never_started_crash(root: str, why: str) -> dict[str, Any]:
    return {
        "status": "diagnosed",
        "root_cause": root,
        "culprit_hosts": [],
        "failures": [{"kind": "crash", "symptom": root, "host": None}],
        "why": why,
    }


def nap_limit_noscaleup() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("palm-lite-rlhf", 912)
    pods = b.pods(16)
    created(b, 0, pods)
    pending_every(
        b,
        2,
        1800,
        600,
        pods,
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: "
        "0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    )
    for at in range(15, 1800, 300):
        b.autoscaler(
            at,
            {
                "noDecisionStatus": {
                    "measureTime": str(1762240000 + at),
                    "noScaleUp": {
                        "unhandledPodGroups": [
                            {
                                "podGroup": sample_pod(b, pods[0], 16),
                                "napFailureReasons": [
                                    {
                                        "messageId": "no.scale.up.nap.pod.zonal.resources.exceeded",
                                        "parameters": [ZONE],
                                    }
                                ],
                            }
                        ],
                        "unhandledPodGroupsTotalCount": 1,
                    },
                }
            },
        )
        for pod in pods[:3]:
            b.pod_event(
                at + 1,
                pod,
                "NotTriggerScaleUp",
                "pod didn't trigger scale-up (it wouldn't fit if a new node is added): "
                "3 node(s) didn't match Pod's node affinity/selector",
                component="cluster-autoscaler",
            )
    return b, never_started(
        "failed-scheduling-insufficient-tpu",
        "No TPU node pool exists; node auto-provisioning would have to create a v5p 4x4x4 pool but the "
        "cluster's NAP resource limit for google.com/tpu is too low (no.scale.up.nap.pod.zonal.resources."
        "exceeded). Not a GCE quota or stockout: the cluster's own autoscaling limits; the pods fail to "
        "schedule on a selector no node matches.",
    )


def healthy_after_kueue_wait() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("llama3-8b-cpt", 913)
    wl = f"jobset-{b.workload}-{b.suffix()}"
    b.object_event(
        0,
        "Workload",
        wl,
        "CreatedWorkload",
        f"Created Workload: {NAMESPACE}/{wl}",
        component="jobset-kueue-controller",
    )
    for at in range(1, 2700, 450):
        b.object_event(
            at,
            "Workload",
            wl,
            "Pending",
            "couldn't assign flavors to pod set slice-job: insufficient unused quota for "
            "google.com/tpu in flavor v5e-reserved, 32 more needed",
            component="kueue-admission",
            warn=True,
        )
    kueue_admitted(b, 2730, wl, "tpu-v5e-cq", 2730)
    pods = b.pods(8)
    hosts = [b.node("v5e-np-4x8") for _ in pods]
    created(b, 2731, pods)
    runs_fine(
        b,
        2733,
        pods,
        hosts,
        "us-docker.pkg.dev/tpu-train-prod-3317/train/cpt:v3.1.0",
        60,
        dotted=True,
    )
    return b, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "45 minutes of Kueue 'insufficient unused quota' while another team's job held the flavor, then "
        "admitted, scheduled and training at a steady step time. Waiting in a queue that then admits the "
        "job is the queue working as designed: no failure.",
    }


def healthy_after_scaleup() -> tuple[Bundle, dict[str, Any]]:
    b = Bundle("deepseek-moe-16b", 914)
    pods = b.pods(4)
    created(b, 0, pods)
    pending_every(
        b,
        2,
        720,
        240,
        pods,
        "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. preemption: "
        "0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
    )
    hosts = [b.node("v6e-np-4x4") for _ in pods]
    b.autoscaler(
        30,
        {
            "decision": {
                "decideTime": "1762240030",
                "eventId": "c0de-0001",
                "scaleUp": {
                    "increasedMigs": [{"mig": mig("v6e-np-4x4"), "requestedNodes": 4}],
                    "triggeringPods": [{"name": p, "namespace": NAMESPACE} for p in pods],
                    "triggeringPodsTotalCount": 4,
                },
            }
        },
    )
    for pod in pods:
        b.pod_event(
            31,
            pod,
            "TriggeredScaleUp",
            f"pod triggered scale-up: [{{https://www.googleapis.com/compute/v1/projects/{PROJECT}/zones/"
            f"{ZONE}/instanceGroups/gke-{CLUSTER}-v6e-np-4x4-grp 0->4 (max: 4)}}]",
            component="cluster-autoscaler",
        )
    b.autoscaler(
        700, {"resultInfo": {"measureTime": "1762240700", "results": [{"eventId": "c0de-0001"}]}}
    )
    runs_fine(b, 760, pods, hosts, "us-docker.pkg.dev/tpu-train-prod-3317/train/moe:2025.11.02", 50)
    return b, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "The pool scales from 0 to 4 v6e nodes; the pods are Pending with FailedScheduling for the 12 "
        "minutes TPU VMs take to boot, then start and train normally. FailedScheduling while a triggered "
        "scale-up succeeds is expected, not a failure.",
    }


INCIDENTS: dict[str, Callable[[], tuple[Bundle, dict[str, Any]]]] = {
    "01-gce-quota-exceeded": quota_exceeded,
    "02-reservation-stockout": reservation_stockout,
    "03-topology-not-offered": topology_not_offered,
    "04-dws-queued-expired": dws_expired,
    "05-kueue-no-localqueue": kueue_no_localqueue,
    "06-kueue-flavor-too-small": kueue_flavor_quota,
    "07-webhook-denied": webhook_denied,
    "08-taint-not-tolerated": taint_not_tolerated,
    "09-secret-missing": secret_missing,
    "10-wrong-image-tag": wrong_image_tag,
    "11-init-container-forbidden": init_container_forbidden,
    "12-nap-limit-noscaleup": nap_limit_noscaleup,
    "13-healthy-after-kueue-wait": healthy_after_kueue_wait,
    "14-healthy-after-scaleup": healthy_after_scaleup,
}


def main() -> None:
    for name, build in INCIDENTS.items():
        bundle, expected = build()
        bundle.write(HERE / name, expected)


if __name__ == "__main__":
    main()
