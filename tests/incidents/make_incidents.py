"""Generate the held-out incident set in this folder (deterministic; run it to rebuild).

Each incident is a folder holding `bundle.json` — Cloud Logging entries the way
`gcloud logging read --format=json` prints them (a JSON array, newest first) — and
`expected.json`, the answer a senior on-call engineer would give (the shape `mlwiki eval` reads:
`workload`, `status`, `root_cause` (symptom id or null), `culprit_hosts`, `failures`
[{kind, symptom, host}] in time order) plus a `why` note that is not scored.

The incidents were written from the failure-mode reference (real log lines and their natural
variants, GKE/XPK field shapes), independently of the diagnosis and of `tests/scenarios.py`.
The labels stay TRUE: they are never tuned to what the tool answers.

    python tests/incidents/make_incidents.py            # rewrite every incident folder
"""

from __future__ import annotations

import json
import random
import shutil
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
NS = 1_000_000_000
MAIN_CONTAINER = "jax-tpu"

# The two spellings of the JobSet pod label seen on container entries (reference §1.1).
UNDERSCORE = "k8s-pod/jobset_sigs_k8s_io/"
DOTTED = "k8s-pod/jobset.sigs.k8s.io/"


@dataclass(frozen=True)
class Site:
    project: str
    cluster: str
    zone: str

    @property
    def region(self) -> str:
        return self.zone.rsplit("-", 1)[0]


@dataclass
class Host:
    """One worker pod of a JobSet and the node (VM) it runs on."""

    workload: str
    slice: int
    worker: int
    per_slice: int
    node: str
    pod: str
    attempt: int = 0

    @property
    def task(self) -> int:
        # jax cloud_tpu_cluster: process_id = slice_id * processes_per_slice + worker_id
        return self.slice * self.per_slice + self.worker

    @property
    def job(self) -> str:
        return f"{self.workload}-slice-job-{self.slice}"

    @property
    def dns(self) -> str:
        return f"{self.workload}-slice-job-{self.slice}-{self.worker}.{self.workload}"


@dataclass
class Incident:
    name: str
    site: Site
    workload: str
    start: datetime
    label_prefix: str = UNDERSCORE
    with_jobset_labels: bool = True
    namespace: str = "default"
    entries: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(zlib.crc32(self.name.encode()))
        self.t0 = int(self.start.timestamp()) * NS

    # -- identities -------------------------------------------------------------------------

    def token(self, n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz0123456789") -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def hexid(self, n: int) -> str:
        return self.token(n, "0123456789abcdef")

    def pool_nodes(self, pool: str, count: int) -> list[str]:
        group = self.hexid(8)
        return [f"gke-{self.site.cluster}-{pool}-{group}-{self.token(4)}" for _ in range(count)]

    def jobset(
        self, slices: int, per_slice: int, pool: str = "tpu-np", attempt: int = 0
    ) -> list[Host]:
        """Hosts of an XPK JobSet: one node pool per slice, one pod per VM."""
        hosts = []
        for s in range(slices):
            for w, node in enumerate(self.pool_nodes(f"{pool}-{s}", per_slice)):
                pod = f"{self.workload}-slice-job-{s}-{w}-{self.token(5)}"
                hosts.append(Host(self.workload, s, w, per_slice, node, pod, attempt))
        return hosts

    def restarted(self, hosts: list[Host], replace: Optional[dict[str, str]] = None) -> list[Host]:
        """The same JobSet after a restart: new pod names, maybe some replacement nodes."""
        replace = replace or {}
        return [
            Host(
                h.workload,
                h.slice,
                h.worker,
                h.per_slice,
                replace.get(h.node, h.node),
                f"{h.workload}-slice-job-{h.slice}-{h.worker}-{self.token(5)}",
                h.attempt + 1,
            )
            for h in hosts
        ]

    # -- time --------------------------------------------------------------------------------

    def at(self, seconds: float) -> int:
        """Nanoseconds since the epoch, `seconds` after the incident start, with jitter."""
        return self.t0 + int(seconds * NS) + self.rng.randrange(0, 900_000_000)

    @staticmethod
    def iso(ns: int) -> str:
        moment = datetime.fromtimestamp(ns // NS, tz=timezone.utc)
        return f"{moment:%Y-%m-%dT%H:%M:%S}.{ns % NS:09d}Z"

    @staticmethod
    def with_offset(ns: int, hours: int) -> str:
        """The same instant written with a UTC offset (`+02:00`), as some forwarders write it."""
        moment = datetime.fromtimestamp(ns // NS, tz=timezone.utc).astimezone(
            timezone(timedelta(hours=hours))
        )
        zone = f"{moment:%z}"
        return f"{moment:%Y-%m-%dT%H:%M:%S}.{ns % NS:09d}{zone[:3]}:{zone[3:]}"

    @staticmethod
    def glog(level: str, ns: int, tid: int, source: str, message: str) -> str:
        """A glog/absl header line: `E0314 09:12:33.481726  157988 file.cc:332] message`."""
        moment = datetime.fromtimestamp(ns // NS, tz=timezone.utc)
        micros = (ns % NS) // 1000
        return f"{level}{moment:%m%d %H:%M:%S}.{micros:06d} {tid:>7} {source}] {message}"

    # -- entries -----------------------------------------------------------------------------

    def _entry(
        self,
        ns: int,
        log: str,
        resource: dict[str, Any],
        severity: str,
        payload: dict[str, Any],
        labels: Optional[dict[str, str]] = None,
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {"_ns": ns, "insertId": self.token(16), **payload}
        if labels:
            entry["labels"] = labels
        entry.update(
            {
                "logName": f"projects/{self.site.project}/logs/{log}",
                "receiveTimestamp": self.iso(ns + self.rng.randrange(200, 4000) * 1_000_000),
                "resource": resource,
                "severity": severity,
                "timestamp": self.iso(ns),
            }
        )
        self.entries.append(entry)
        return entry

    def _k8s(self, kind: str, **labels: str) -> dict[str, Any]:
        base = {
            "cluster_name": self.site.cluster,
            "location": self.site.zone,
            "project_id": self.site.project,
        }
        return {"type": kind, "labels": {**base, **labels}}

    def pod_labels(self, host: Host) -> dict[str, str]:
        labels = {"compute.googleapis.com/resource_name": host.node}
        if not self.with_jobset_labels:
            return labels
        p = self.label_prefix
        batch = p.replace("jobset_sigs_k8s_io", "batch_kubernetes_io").replace(
            "jobset.sigs.k8s.io", "batch.kubernetes.io"
        )
        labels.update(
            {
                f"{batch}job-completion-index": str(host.worker),
                f"{p}job-index": str(host.slice),
                f"{p}jobset-name": host.workload,
                f"{p}replicatedjob-name": "slice-job",
                f"{p}restart-attempt": str(host.attempt),
                "k8s-pod/xpk_google_com/workload": host.workload,
            }
        )
        return labels

    def log(
        self,
        host: Host,
        ns: int,
        text: str,
        *,
        stream: str = "stderr",
        severity: Optional[str] = None,
        container: str = MAIN_CONTAINER,
    ) -> dict[str, Any]:
        """One line a container printed (textPayload, as GKE's agent records plain text)."""
        resource = self._k8s(
            "k8s_container",
            container_name=container,
            namespace_name=self.namespace,
            pod_name=host.pod,
        )
        level = severity or ("ERROR" if stream == "stderr" else "INFO")
        return self._entry(
            ns, stream, resource, level, {"textPayload": text}, self.pod_labels(host)
        )

    def system(self, node: str, pod: str, ns: int, text: str, container: str) -> dict[str, Any]:
        """A line from a kube-system container on `node` (no workload labels)."""
        resource = self._k8s(
            "k8s_container", container_name=container, namespace_name="kube-system", pod_name=pod
        )
        labels = {"compute.googleapis.com/resource_name": node}
        return self._entry(ns, "stderr", resource, "ERROR", {"textPayload": text}, labels)

    def lines(self, host: Host, ns: int, text: str, **kwargs: Any) -> None:
        """A multi-line write: GKE's agent stores each line as its own entry."""
        for offset, line in enumerate(text.split("\n")):
            self.log(host, ns + offset * 1000, line, **kwargs)

    def structured(
        self, host: Host, ns: int, message: str, severity: str, **extra: Any
    ) -> dict[str, Any]:
        """A JSON log line the agent parsed into jsonPayload (severity lifted to the entry)."""
        resource = self._k8s(
            "k8s_container",
            container_name=MAIN_CONTAINER,
            namespace_name=self.namespace,
            pod_name=host.pod,
        )
        payload = {"jsonPayload": {"message": message, **extra}}
        return self._entry(ns, "stdout", resource, severity, payload, self.pod_labels(host))

    def _event_payload(
        self,
        ns: int,
        kind: str,
        name: str,
        reason: str,
        message: str,
        component: str,
        host: Optional[str],
        warning: bool,
        namespace: Optional[str],
        api: str,
    ) -> dict[str, Any]:
        stamp = self.iso(ns).split(".")[0] + "Z"
        involved: dict[str, Any] = {"apiVersion": api, "kind": kind, "name": name}
        if namespace:
            involved["namespace"] = namespace
        involved["uid"] = f"{self.hexid(8)}-{self.hexid(4)}-{self.hexid(4)}-{self.hexid(12)}"
        source: dict[str, str] = {"component": component}
        if host:
            source["host"] = host
        return {
            "jsonPayload": {
                "apiVersion": "v1",
                "count": 1,
                "eventTime": None,
                "firstTimestamp": stamp,
                "involvedObject": involved,
                "kind": "Event",
                "lastTimestamp": stamp,
                "message": message,
                "metadata": {
                    "creationTimestamp": stamp,
                    "name": f"{name}.{self.hexid(16)}",
                    "namespace": namespace or "default",
                },
                "reason": reason,
                "reportingComponent": component,
                "reportingInstance": host or "",
                "source": source,
                "type": "Warning" if warning else "Normal",
            }
        }

    def pod_event(
        self,
        pod: str,
        ns: int,
        reason: str,
        message: str,
        *,
        component: str = "kubelet",
        node: Optional[str] = None,
        warning: bool = True,
    ) -> dict[str, Any]:
        payload = self._event_payload(
            ns, "Pod", pod, reason, message, component, node, warning, self.namespace, "v1"
        )
        resource = self._k8s("k8s_pod", namespace_name=self.namespace, pod_name=pod)
        return self._entry(ns, "events", resource, "WARNING" if warning else "INFO", payload)

    def node_event(
        self,
        node: str,
        ns: int,
        reason: str,
        message: str,
        *,
        component: str,
        warning: bool = True,
    ) -> dict[str, Any]:
        payload = self._event_payload(
            ns, "Node", node, reason, message, component, node, warning, None, "v1"
        )
        resource = self._k8s("k8s_node", node_name=node)
        return self._entry(ns, "events", resource, "WARNING" if warning else "INFO", payload)

    def object_event(
        self,
        kind: str,
        api: str,
        name: str,
        ns: int,
        reason: str,
        message: str,
        *,
        component: str,
        warning: bool = True,
    ) -> dict[str, Any]:
        """An event on a namespaced object other than a pod (Job, JobSet, Kueue Workload)."""
        payload = self._event_payload(
            ns, kind, name, reason, message, component, None, warning, self.namespace, api
        )
        return self._entry(
            ns, "events", self._k8s("k8s_cluster"), "WARNING" if warning else "INFO", payload
        )

    def gce_event(self, node: str, ns: int, method: str, status: str) -> dict[str, Any]:
        """A Compute Engine system_event audit entry for one VM."""
        resource = {
            "type": "gce_instance",
            "labels": {
                "instance_id": str(self.rng.randrange(10**18, 10**19)),
                "project_id": self.site.project,
                "zone": self.site.zone,
            },
        }
        payload = {
            "operation": {
                "first": True,
                "id": f"systemevent-{ns // 1_000_000}-{self.hexid(13)}-{self.hexid(8)}",
                "last": True,
                "producer": method,
            },
            "protoPayload": {
                "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
                "authenticationInfo": {"principalEmail": "system@google.com"},
                "methodName": method,
                "request": {"@type": f"type.googleapis.com/{method}"},
                "requestMetadata": {"callerIp": "0.0.0.0", "callerSuppliedUserAgent": ""},
                "resourceName": f"projects/{self.site.project}/zones/{self.site.zone}/instances/{node}",
                "serviceName": "compute.googleapis.com",
                "status": {"message": status},
            },
        }
        return self._entry(
            ns, "cloudaudit.googleapis.com%2Fsystem_event", resource, "INFO", payload
        )

    def autoscaler(self, ns: int, payload: dict[str, Any]) -> dict[str, Any]:
        return self._entry(
            ns,
            "container.googleapis.com%2Fcluster-autoscaler-visibility",
            self._k8s("k8s_cluster"),
            "NOTICE",
            {"jsonPayload": payload},
        )

    def kubelet(self, node: str, ns: int, text: str, severity: str = "INFO") -> dict[str, Any]:
        return self._entry(
            ns, "kubelet", self._k8s("k8s_node", node_name=node), severity, {"textPayload": text}
        )

    # -- output ------------------------------------------------------------------------------

    def write(self, root: Path, expected: dict[str, Any]) -> None:
        folder = root / self.name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        newest_first = sorted(self.entries, key=lambda e: e["_ns"], reverse=True)
        printed = [{k: v for k, v in e.items() if k != "_ns"} for e in newest_first]
        (folder / "bundle.json").write_text(json.dumps(printed, indent=2) + "\n")
        answer = {"workload": self.workload, **expected}
        (folder / "expected.json").write_text(json.dumps(answer, indent=2) + "\n")


# -- realistic pieces of a run (each used by several incidents) ---------------------------------


def tid(inc: Incident) -> int:
    return inc.rng.randrange(1000, 250000)


def startup(inc: Incident, hosts: list[Host], t: float, jax_version: str = "0.4.38") -> None:
    """What every worker prints while JAX starts: coordinator, devices, benign warnings."""
    coordinator = f"{hosts[0].dns}:8482"
    for h in hosts:
        ns = inc.at(t + h.task * 0.37)
        if h.task == 0:
            inc.log(h, ns, "INFO:absl:Starting JAX distributed service on [::]:8482")
        inc.log(h, ns + 2 * NS, f"INFO:absl:Connecting to JAX distributed service on {coordinator}")
        inc.log(
            h,
            ns + 3 * NS,
            "WARNING:absl:The JAX preemption service is disabled.",
            severity="WARNING",
        )
        if h.worker == 0:
            inc.log(
                h,
                ns + 9 * NS,
                inc.glog(
                    "I",
                    ns + 9 * NS,
                    tid(inc),
                    "tpu_initializer_helper.cc:275",
                    "tpunetd either not supported or disabled, falling back to Slice Builder",
                ),
                severity="INFO",
            )
            inc.log(
                h,
                ns + 14 * NS,
                f"System Information: Jax Version: {jax_version}",
                stream="stdout",
            )


def steps(
    inc: Incident,
    hosts: Iterable[Host],
    t: float,
    count: int,
    *,
    first: int,
    seconds: float = 11.6,
    loss: float = 2.41,
) -> float:
    """MaxText step lines on the given hosts; returns the time after the last step."""
    for k in range(count):
        when = t + k * seconds
        for h in hosts:
            dt = seconds + inc.rng.uniform(-0.05, 0.05)
            value = loss - 0.0021 * k + inc.rng.uniform(-0.01, 0.01)
            inc.log(
                h,
                inc.at(when + 0.02 * h.task),
                f"completed step: {first + k}, seconds: {dt:.3f}, TFLOP/s/device: "
                f"{194.5 + inc.rng.uniform(-1, 1):.3f}, Tokens/s/device: "
                f"{4221 + inc.rng.uniform(-9, 9):.3f}, total_weights: 1572864, loss: {value:.3f}",
                stream="stdout",
            )
    return t + count * seconds


def heartbeat_cascade(
    inc: Incident, hosts: list[Host], dead: Host, t: float, *, split: bool = False
) -> None:
    """§2.1 steps 4–5: the coordinator names the dead task, every survivor aborts."""
    leader = hosts[0]
    name = f"/job:jax_worker/replica:0/task:{dead.task}"
    if leader is not dead:
        ns = inc.at(t)
        inc.log(
            leader,
            ns,
            inc.glog(
                "E",
                ns,
                tid(inc),
                "coordination_service.cc:1127",
                f"Task {name} heartbeat timeout. This indicates that the remote task has failed, "
                "got preempted, or crashed unexpectedly. Check the task logs for an earlier error "
                "or scheduler events (e.g. preemption, eviction) to debug further.",
            ),
        )
    for h in hosts:
        if h is dead:
            continue
        ns = inc.at(t + 0.8 + inc.rng.uniform(0, 1.5))
        thread = tid(inc)
        inc.log(
            h,
            ns,
            inc.glog(
                "E",
                ns,
                thread,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or "
                "another task).",
            ),
        )
        fatal = (
            inc.glog(
                "F",
                ns + 190_000,
                thread,
                "client.h:77",
                "Terminating process because the JAX distributed service detected fatal errors. "
                "This most likely indicates that another task died; see the other task logs for "
                "more details. Disable Python buffering, i.e. `python -u`, to be sure to see all "
                "the previous output. absl::Status: UNAVAILABLE: The following tasks are "
                "unhealthy (stopped sending heartbeats):",
            )
            + f"\n{name}\nThe tasks have crashed. Check the task logs for an earlier error, or "
            "scheduler events (e.g. preemption, eviction) to debug further."
        )
        if split:
            inc.lines(h, ns + 190_000, fatal)
        else:
            inc.log(h, ns + 190_000, fatal)
        inc.log(
            h,
            ns + 400_000,
            f"*** SIGABRT received by PID 1 (TID {thread}) on cpu {inc.rng.randrange(0, 208)} "
            f"from PID 1; stack trace: ***",
        )


def jobset_restart(
    inc: Incident, hosts: list[Host], failed: Host, t: float, *, attempt: int
) -> None:
    """§2.1 step 6: the failed Job, the JobSet restart naming it, kubelet stopping the rest."""
    inc.object_event(
        "Job",
        "batch/v1",
        failed.job,
        inc.at(t),
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
        component="job-controller",
    )
    inc.object_event(
        "JobSet",
        "jobset.x-k8s.io/v1alpha2",
        failed.workload,
        inc.at(t + 0.4),
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {failed.job})",
        component="jobset",
    )
    for h in hosts:
        if h is failed:
            continue
        inc.pod_event(
            h.pod,
            inc.at(t + 1.2 + 0.05 * h.task),
            "Killing",
            f"Stopping container {MAIN_CONTAINER}",
            node=h.node,
            warning=False,
        )


def node_not_ready(inc: Incident, node: str, t: float) -> None:
    inc.node_event(
        node,
        inc.at(t),
        "NodeNotReady",
        f"Node {node} status is now: NodeNotReady",
        component="node-controller",
    )


def scheduled(inc: Incident, hosts: Iterable[Host], t: float) -> None:
    for h in hosts:
        inc.pod_event(
            h.pod,
            inc.at(t + 0.03 * h.task),
            "Scheduled",
            f"Successfully assigned {inc.namespace}/{h.pod} to {h.node}",
            component="default-scheduler",
            warning=False,
        )


def segv_trace(inc: Incident, h: Host, ns: int, library: str) -> None:
    """An absl failure-signal handler dump for SIGSEGV, one entry per line."""
    thread = tid(inc)
    frames = [
        f"*** SIGSEGV (@0x0), see gl__________41#s15 received by PID 1 (TID {thread}) on cpu "
        f"{inc.rng.randrange(0, 208)}; stack trace: ***",
        f"PC: @     0x7f{inc.hexid(10)}  (unknown)  {library}",
        f"    @     0x7f{inc.hexid(10)}       1888  (unknown)",
        f"    @     0x7f{inc.hexid(10)}  (unknown)  tpu::TpuExecutable::LoadProgramAndEnqueueToStream()",
        f"    @     0x7f{inc.hexid(10)}  (unknown)  xla::PjRtStreamExecutorLoadedExecutable::Execute()",
        inc.glog(
            "E",
            ns + 3_000_000,
            thread,
            "process_state.cc:1108",
            "RAW: Raising signal 11 with default behavior",
        ),
    ]
    for k, frame in enumerate(frames):
        inc.log(h, ns + k * 100_000, frame)


Expected = dict[str, Any]


def row(kind: str, symptom: Optional[str], host: Optional[str]) -> dict[str, Any]:
    return {"kind": kind, "symptom": symptom, "host": host}


def diagnosed(root: str, culprits: list[str], failures: list[dict[str, Any]], why: str) -> Expected:
    return {
        "status": "diagnosed",
        "root_cause": root,
        "culprit_hosts": sorted(culprits),
        "failures": failures,
        "why": why,
    }


def inconclusive(culprits: list[str], failures: list[dict[str, Any]], why: str) -> Expected:
    return {
        "status": "inconclusive",
        "root_cause": None,
        "culprit_hosts": sorted(culprits),
        "failures": failures,
        "why": why,
    }


INCIDENTS: list[Callable[[Path], None]] = []


def incident(build: Callable[[Path], None]) -> Callable[[Path], None]:
    INCIDENTS.append(build)
    return build


def build_all(root: Path = HERE) -> list[str]:
    """Write every incident folder under `root`; returns their names."""
    from tests.incidents import catalog  # noqa: F401  (importing it registers the incidents)

    for build in INCIDENTS:
        build(root)
    return sorted(p.parent.name for p in root.glob("*/expected.json"))


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(HERE.parent.parent))
    from tests.incidents.make_incidents import build_all as build_in_package

    print("\n".join(build_in_package()))
