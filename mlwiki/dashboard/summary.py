"""Turn cluster states into the dashboard's rows: capacity, node pools, workloads, warning events.

One pass over each kind of object; everything is indexed by name first so that a 2,000-node,
10,000-pod cluster summarises in well under a second.
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional

import re2

from mlwiki.dashboard import k8s
from mlwiki.dashboard.state import ClusterState

EVENTS_LIMIT = 50
# Waiting reasons that mean a container will not start by itself.
BAD_WAITING_REASONS = {
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "InvalidImageName",
}
# JobSet condition types that describe progress or a choice rather than trouble.
QUIET_CONDITIONS = {
    "Completed",
    "StartupPolicyCompleted",
    "StartupPolicyInProgress",
    "InOrder",
    "Suspended",
}


@dataclass
class CapacityRow:
    accelerator: str
    topology: str
    nodes: int = 0
    chips_total: int = 0
    chips_used: int = 0
    chips_free: int = 0
    chips_unavailable: int = 0
    nodes_not_ready: int = 0
    nodes_maintenance: int = 0
    spot_nodes: int = 0

    def percent(self, chips: int) -> float:
        """Share of the total, for the bars."""
        return round(100.0 * chips / self.chips_total, 2) if self.chips_total else 0.0


@dataclass
class NodePoolRow:
    cluster: str
    name: str
    accelerator: str
    topology: str
    nodes: int = 0
    expected_nodes: Optional[int] = None
    nodes_ready: int = 0
    chips_total: int = 0
    chips_used: int = 0
    spot: bool = False
    health: str = "healthy"
    issues: list[str] = field(default_factory=list)


@dataclass
class WorkloadRow:
    name: str
    namespace: str
    cluster: str
    project: str
    status: str
    restarts: int
    container_restarts: int
    pods: int
    pods_running: int
    chips: int
    accelerator: str
    topology: str
    reason: str
    reason_time: Optional[str]
    troubleshoot: Optional[str]  # None when the name is not a valid JobSet name (see copy_commands)
    cli: Optional[str]


@dataclass
class EventRow:
    time: str
    cluster: str
    namespace: str
    kind: str
    object: str
    reason: str
    message: str
    count: int


@dataclass
class ClusterRow:
    name: str
    project: str
    location: str
    context: str
    nodes: int
    tpu_nodes: int
    problem: Optional[str]


@dataclass
class Summary:
    capacity: list[CapacityRow]
    node_pools: list[NodePoolRow]
    workloads: list[WorkloadRow]
    events: list[EventRow]
    clusters: list[ClusterRow]
    generated_at: str
    source: str
    target: str = ""
    target_kind: str = ""
    notice: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _iso(moment: Optional[datetime]) -> Optional[str]:
    if moment is None or moment == k8s.EPOCH:
        return None
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Index:
    """One cluster's objects indexed the ways the rows need them."""

    state: ClusterState
    nodes: dict[str, dict[str, Any]]
    chips_used: dict[str, int]
    pools: dict[str, list[dict[str, Any]]]
    pods_by_jobset: dict[tuple[str, str], list[dict[str, Any]]]

    @classmethod
    def build(cls, state: ClusterState) -> _Index:
        nodes = {k8s.name(node): node for node in state.nodes if k8s.is_tpu_node(node)}
        chips_used: dict[str, int] = defaultdict(int)
        pods_by_jobset: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for pod in state.pods:
            if k8s.pod_holds_chips(pod):
                chips_used[k8s.pod_node(pod)] += k8s.pod_chips(pod)
            jobset = k8s.labels(pod).get(k8s.LABEL_JOBSET_NAME)
            if jobset:
                pods_by_jobset[(k8s.namespace(pod), jobset)].append(pod)
        pools: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for node_name, node in nodes.items():
            pools[k8s.labels(node).get(k8s.LABEL_NODEPOOL) or node_name].append(node)
        return cls(state, nodes, chips_used, pools, pods_by_jobset)


@dataclass
class _Scope:
    """What of one cluster the view shows: everything, or one workload and the pools it uses."""

    everything: bool = True
    pools: set[str] = field(default_factory=set)
    jobsets: set[tuple[str, str]] = field(default_factory=set)

    def has_pool(self, pool: str) -> bool:
        return self.everything or pool in self.pools

    def has_jobset(self, key: tuple[str, str]) -> bool:
        return self.everything or key in self.jobsets


# --- capacity and node pools -------------------------------------------------------------------


def _node_usable(node: dict[str, Any]) -> bool:
    return k8s.node_ready(node) and not k8s.node_cordoned(node) and not k8s.node_maintenance(node)


def _capacity(indexes: Iterable[tuple[_Index, _Scope]]) -> list[CapacityRow]:
    rows: dict[tuple[str, str], CapacityRow] = {}
    for index, scope in indexes:
        for pool, nodes in index.pools.items():
            if not scope.has_pool(pool):
                continue
            for node in nodes:
                node_labels = k8s.labels(node)
                key = (
                    node_labels.get(k8s.LABEL_ACCELERATOR, "unknown"),
                    node_labels.get(k8s.LABEL_TOPOLOGY, "-"),
                )
                row = rows.setdefault(key, CapacityRow(*key))
                total = k8s.node_tpu_chips(node)
                used = min(index.chips_used.get(k8s.name(node), 0), total)
                free = max(k8s.node_allocatable_chips(node) - used, 0) if _node_usable(node) else 0
                row.nodes += 1
                row.chips_total += total
                row.chips_used += used
                row.chips_free += free
                row.chips_unavailable += max(total - used - free, 0)
                row.nodes_not_ready += not k8s.node_ready(node)
                row.nodes_maintenance += k8s.node_maintenance(node)
                row.spot_nodes += k8s.node_spot(node)
    return sorted(rows.values(), key=lambda r: (r.accelerator, r.topology))


def _expected_nodes(topology: str, chips_per_node: int) -> Optional[int]:
    """Hosts in one slice of TOPOLOGY when each host has CHIPS_PER_NODE chips."""
    slice_chips = k8s.topology_chips(topology)
    if not slice_chips or not chips_per_node:
        return None
    return max(slice_chips // chips_per_node, 1)


def _node_pool(
    cluster: str, pool: str, nodes: list[dict[str, Any]], chips_used: dict[str, int]
) -> NodePoolRow:
    first = k8s.labels(nodes[0])
    row = NodePoolRow(
        cluster=cluster,
        name=pool,
        accelerator=first.get(k8s.LABEL_ACCELERATOR, "unknown"),
        topology=first.get(k8s.LABEL_TOPOLOGY, "-"),
        nodes=len(nodes),
        spot=any(k8s.node_spot(node) for node in nodes),
    )
    not_ready = maintenance = cordoned = lost_chips = 0
    for node in nodes:
        ready = k8s.node_ready(node)
        row.nodes_ready += ready
        not_ready += not ready
        maintenance += k8s.node_maintenance(node)
        cordoned += k8s.node_cordoned(node)
        chips = k8s.node_tpu_chips(node)
        lost_chips += k8s.node_allocatable_chips(node) < chips
        row.chips_total += chips
        row.chips_used += min(chips_used.get(k8s.name(node), 0), chips)
    row.expected_nodes = _expected_nodes(row.topology, max(k8s.node_tpu_chips(n) for n in nodes))
    # A multi-host slice is one pool and needs all its hosts; single-host pools hold any number.
    if row.expected_nodes and row.expected_nodes > 1 and row.nodes != row.expected_nodes:
        row.issues.append(f"{row.nodes}/{row.expected_nodes} nodes of the slice")
    for count, what in (
        (not_ready, "not ready"),
        (maintenance, "under maintenance or terminating"),
        (cordoned, "cordoned"),
        (lost_chips, "with fewer allocatable TPU chips than capacity"),
    ):
        if count:
            row.issues.append(f"{count} node{'s' if count > 1 else ''} {what}")
    if row.issues:
        row.health = "down" if row.nodes_ready == 0 else "degraded"
    return row


def _node_pools(indexes: Iterable[tuple[_Index, _Scope]]) -> list[NodePoolRow]:
    rows = [
        _node_pool(index.state.cluster, pool, nodes, index.chips_used)
        for index, scope in indexes
        for pool, nodes in index.pools.items()
        if scope.has_pool(pool)
    ]
    health_order = {"down": 0, "degraded": 1, "healthy": 2}
    return sorted(rows, key=lambda r: (health_order[r.health], r.cluster, r.name))


# --- workloads ---------------------------------------------------------------------------------


def _template_pod_specs(jobset: dict[str, Any]) -> Iterable[tuple[dict[str, Any], int]]:
    """Each replicated job's pod spec with how many pods it asks for."""
    for replicated in (jobset.get("spec") or {}).get("replicatedJobs") or []:
        job_spec = ((replicated.get("template") or {}).get("spec")) or {}
        pod_spec = ((job_spec.get("template") or {}).get("spec")) or {}
        pods = k8s.to_int(replicated.get("replicas", 1)) * k8s.to_int(
            job_spec.get("parallelism", 1)
        )
        yield pod_spec, pods


def _spec_selection(pod_spec: dict[str, Any]) -> Optional[tuple[str, str]]:
    """(accelerator, topology) a pod spec asks for: its nodeSelector, else the required node
    affinity's `In` expressions (how Kueue and some JobSet templates select TPU slices)."""
    chosen = dict(pod_spec.get("nodeSelector") or {})
    required = (((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {})  # fmt: skip
    for term in required.get("nodeSelectorTerms") or []:
        for expression in term.get("matchExpressions") or []:
            values = expression.get("values") or []
            if expression.get("operator") == "In" and len(values) == 1:
                chosen.setdefault(str(expression.get("key")), str(values[0]))
    if k8s.LABEL_ACCELERATOR not in chosen:
        return None
    return chosen[k8s.LABEL_ACCELERATOR], chosen.get(k8s.LABEL_TOPOLOGY, "")


def _template_selectors(jobset: dict[str, Any]) -> set[tuple[str, str]]:
    """(accelerator, topology) pairs the JobSet's pods select."""
    return {
        pair
        for pod_spec, _ in _template_pod_specs(jobset)
        if (pair := _spec_selection(pod_spec)) is not None
    }


def _placement(
    index: _Index, jobset: dict[str, Any], pods: list[dict[str, Any]]
) -> tuple[str, str]:
    """The workload's accelerator and topology: what its template selects, else what its pods
    select, else the labels of the nodes they run on."""
    pairs = _template_selectors(jobset)
    if not pairs:
        pairs = {p for pod in pods if (p := _spec_selection(pod.get("spec") or {})) is not None}
    if not pairs:
        for pod in pods:
            node = index.nodes.get(k8s.pod_node(pod) or "")
            node_labels = k8s.labels(node) if node else {}
            if k8s.LABEL_ACCELERATOR in node_labels:
                pairs.add(
                    (node_labels[k8s.LABEL_ACCELERATOR], node_labels.get(k8s.LABEL_TOPOLOGY, ""))
                )
    accelerators = sorted({a for a, _ in pairs if a})
    topologies = sorted({t for _, t in pairs if t})
    return ", ".join(accelerators), ", ".join(topologies)


def _pod_problem(pod: dict[str, Any]) -> Optional[tuple[datetime, str]]:
    """The pod's latest failure: a container that ended badly or cannot start, or an eviction."""
    found: list[tuple[datetime, str]] = []
    pod_name = k8s.name(pod)
    for status in k8s.container_statuses(pod):
        container = status.get("name", "")
        for state in (status.get("state") or {}, status.get("lastState") or {}):
            ended = state.get("terminated")
            if ended and (
                k8s.to_int(ended.get("exitCode")) != 0
                or ended.get("reason") not in (None, "Completed")
            ):
                text = f"{ended.get('reason') or 'Terminated'} (exit {ended.get('exitCode')}) in pod {pod_name}, container {container}"
                found.append((k8s.parse_time(ended.get("finishedAt")) or k8s.EPOCH, text))
        waiting = (status.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") in BAD_WAITING_REASONS:
            detail = f": {waiting['message']}" if waiting.get("message") else ""
            found.append(
                (
                    _pod_changed(pod),
                    f"{waiting['reason']} in pod {pod_name}, container {container}{detail}",
                )
            )
    pod_status = pod.get("status") or {}
    if pod_status.get("reason"):
        detail = f": {pod_status['message']}" if pod_status.get("message") else ""
        found.append((_pod_changed(pod), f"{pod_status['reason']} (pod {pod_name}){detail}"))
    return max(found, key=lambda item: item[0], default=None)


def _pod_changed(pod: dict[str, Any]) -> datetime:
    conditions = (pod.get("status") or {}).get("conditions") or []
    times = [k8s.parse_time(c.get("lastTransitionTime")) for c in conditions]
    return max((t for t in times if t), default=k8s.EPOCH)


def _failed_condition(jobset: dict[str, Any]) -> Optional[tuple[datetime, str]]:
    """The JobSet's Failed condition (e.g. `ReachedMaxRestarts` and its message), when true."""
    for condition in (jobset.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Failed" and condition.get("status") == "True":
            label = condition.get("reason") or "Failed"
            text = f"JobSet failed: {label}: {condition.get('message', '')}".rstrip(": ")
            return k8s.parse_time(condition.get("lastTransitionTime")) or k8s.EPOCH, text
    return None


def _jobset_problem(jobset: dict[str, Any]) -> Optional[tuple[datetime, str]]:
    found = []
    for condition in (jobset.get("status") or {}).get("conditions") or []:
        if condition.get("status") != "True" or condition.get("type") in QUIET_CONDITIONS:
            continue
        label = condition.get("reason") or condition.get("type")
        text = f"JobSet {label}: {condition.get('message', '')}".rstrip(": ")
        found.append((k8s.parse_time(condition.get("lastTransitionTime")) or k8s.EPOCH, text))
    return max(found, key=lambda item: item[0], default=None)


def _status(jobset: dict[str, Any], pods: list[dict[str, Any]], expected_pods: int) -> str:
    status = jobset.get("status") or {}
    true_conditions = {
        c.get("type") for c in status.get("conditions") or [] if c.get("status") == "True"
    }
    terminal = status.get("terminalState")
    if "Failed" in true_conditions or terminal == "Failed":
        return "Failed"
    if "Completed" in true_conditions or terminal == "Completed":
        return "Completed"
    if "Suspended" in true_conditions:
        return "Suspended"
    live = [pod for pod in pods if not (pod.get("metadata") or {}).get("deletionTimestamp")]
    if len(live) < len(pods):
        return "Restarting"
    if not live:
        return "Pending"
    if any(k8s.pod_phase(p) == "Failed" or _waits_badly(p) for p in live):
        return "Failing"
    running = sum(k8s.pod_phase(p) == "Running" for p in live)
    if running >= max(expected_pods, len(live)):
        return "Running"
    return "Starting" if running else "Pending"


def _waits_badly(pod: dict[str, Any]) -> bool:
    return any(
        ((s.get("state") or {}).get("waiting") or {}).get("reason") in BAD_WAITING_REASONS
        for s in k8s.container_statuses(pod)
    )


def _workload(
    index: _Index,
    jobset: dict[str, Any],
    pods: list[dict[str, Any]],
    events: list[tuple[datetime, str]],
) -> Optional[WorkloadRow]:
    templates = list(_template_pod_specs(jobset))
    template_chips = sum(k8s.pod_spec_chips(spec) * count for spec, count in templates)
    pod_chips = sum(k8s.pod_chips(pod) for pod in pods)
    if not template_chips and not pod_chips:
        return None  # not a TPU workload
    state = index.state
    jobset_name, jobset_namespace = k8s.name(jobset), k8s.namespace(jobset)
    attempts = [k8s.to_int(k8s.labels(pod).get(k8s.LABEL_RESTART_ATTEMPT)) for pod in pods]
    restarts = max([k8s.to_int((jobset.get("status") or {}).get("restarts")), *attempts])
    problems = [p for p in (_jobset_problem(jobset), *(_pod_problem(pod) for pod in pods)) if p]
    problems.extend(events)
    # A failed JobSet's reason is why it failed, not whatever happened to be logged last.
    failed = _failed_condition(jobset)
    reason_time, reason = failed or max(problems, key=lambda item: item[0], default=(None, ""))
    accelerator, topology = _placement(index, jobset, pods)
    troubleshoot, cli = copy_commands(jobset_name, state.project)
    return WorkloadRow(
        name=jobset_name,
        namespace=jobset_namespace,
        cluster=state.cluster,
        project=state.project,
        status=_status(jobset, pods, sum(count for _, count in templates)),
        restarts=restarts,
        container_restarts=sum(
            k8s.to_int(s.get("restartCount")) for pod in pods for s in k8s.container_statuses(pod)
        ),
        pods=len(pods),
        pods_running=sum(k8s.pod_phase(pod) == "Running" for pod in pods),
        chips=template_chips or pod_chips,
        accelerator=accelerator,
        topology=topology,
        reason=reason,
        reason_time=_iso(reason_time),
        troubleshoot=troubleshoot,
        cli=cli,
    )


_JOBSET_NAME = re2.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_PROJECT_ID = re2.compile(r"^(?:[a-z][a-z0-9.\-]{0,61}:)?[a-z][a-z0-9\-]{4,28}[a-z0-9]$")


def copy_commands(jobset: str, project: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """The texts of the copy buttons: only for a valid JobSet name (and project id), each part
    shell-quoted, so cluster text pasted into a terminal or an agent stays one inert argument
    (`--project demo; rm -rf ~ #` is never offered). None when the name is not valid."""
    if not _JOBSET_NAME.match(jobset):
        return None, None
    parts = ["mlwiki", "troubleshoot", jobset]
    if project and _PROJECT_ID.match(project):
        parts += ["--project", project]
    elif project:
        return f"/troubleshoot {shlex.quote(jobset)}", None
    return f"/troubleshoot {shlex.quote(jobset)}", " ".join(shlex.quote(p) for p in parts)


def _events_by_jobset(
    index: _Index, warnings: list[tuple[datetime, dict[str, Any]]]
) -> dict[tuple[str, str], list[tuple[datetime, dict[str, Any]]]]:
    """Warning events of each JobSet: on the JobSet itself, its Jobs and its pods (one pass)."""
    jobsets = {(k8s.namespace(j), k8s.name(j)) for j in index.state.jobsets}
    owners: dict[tuple[str, str, str], tuple[str, str]] = {}
    for key, pods in index.pods_by_jobset.items():
        owners.update(((key[0], "Pod", k8s.name(pod)), key) for pod in pods)
    owned: dict[tuple[str, str], list[tuple[datetime, dict[str, Any]]]] = defaultdict(list)
    for moment, event in warnings:
        involved = event.get("involvedObject") or event.get("regarding") or {}
        namespace = str(involved.get("namespace") or k8s.namespace(event))
        kind, obj = str(involved.get("kind") or ""), str(involved.get("name") or "")
        key = owners.get((namespace, kind, obj))
        if kind == "JobSet":
            key = (namespace, obj)
        elif kind == "Job":
            # Jobs are named `<jobset>-<replicated job>-<index>`: try each dash-separated prefix.
            parts = obj.split("-")
            prefixes = ("-".join(parts[:n]) for n in range(len(parts) - 1, 0, -1))
            key = next(((namespace, p) for p in prefixes if (namespace, p) in jobsets), None)
        if key in jobsets:
            owned[key].append((moment, event))
    return owned


# --- events ------------------------------------------------------------------------------------


def _event_row(cluster: str, event: dict[str, Any], moment: datetime) -> EventRow:
    involved = event.get("involvedObject") or event.get("regarding") or {}
    return EventRow(
        time=_iso(moment) or "",
        cluster=cluster,
        namespace=str(involved.get("namespace") or k8s.namespace(event)),
        kind=str(involved.get("kind") or ""),
        object=str(involved.get("name") or ""),
        reason=str(event.get("reason") or ""),
        message=str(event.get("message") or event.get("note") or ""),
        count=max(
            k8s.to_int(event.get("count")), k8s.to_int((event.get("series") or {}).get("count")), 1
        ),
    )


def _warnings(state: ClusterState) -> list[tuple[datetime, dict[str, Any]]]:
    return [(k8s.event_time(e), e) for e in state.events if e.get("type") == "Warning"]


def _node_warnings(
    index: _Index, scope: _Scope, warnings: list[tuple[datetime, dict[str, Any]]]
) -> list[tuple[datetime, dict[str, Any]]]:
    """Warnings about the nodes of the pools in SCOPE."""
    nodes = {k8s.name(n) for pool in scope.pools for n in index.pools[pool]}
    return [
        (t, e)
        for t, e in warnings
        if (e.get("involvedObject") or {}).get("kind") == "Node"
        and (e.get("involvedObject") or {}).get("name") in nodes
    ]


# --- target and assembly -----------------------------------------------------------------------


def _scope_for_workload(index: _Index, target: str) -> Optional[_Scope]:
    """The pools a workload runs on, or could run on by its node selector; None if it is absent."""
    jobsets = [j for j in index.state.jobsets if k8s.name(j) == target]
    if not jobsets:
        return None
    scope = _Scope(everything=False)
    for jobset in jobsets:
        key = (k8s.namespace(jobset), target)
        scope.jobsets.add(key)
        selectors = _template_selectors(jobset)
        hosts = {k8s.pod_node(pod) for pod in index.pods_by_jobset.get(key, [])}
        for pool, nodes in index.pools.items():
            first = k8s.labels(nodes[0])
            wanted = (first.get(k8s.LABEL_ACCELERATOR), first.get(k8s.LABEL_TOPOLOGY))
            if wanted in selectors or any(k8s.name(node) in hosts for node in nodes):
                scope.pools.add(pool)
    return scope


def _scopes(indexes: list[_Index], target: str) -> tuple[list[tuple[_Index, _Scope]], str]:
    """Which clusters (and which parts of them) TARGET selects, and what kind of name it is."""
    if not target:
        return [(index, _Scope()) for index in indexes], ""
    for kind in ("project", "cluster"):
        chosen = [(i, _Scope()) for i in indexes if getattr(i.state, kind) == target]
        if chosen:
            return chosen, kind
    chosen = []
    for index in indexes:
        scope = _scope_for_workload(index, target)
        if scope is not None:
            chosen.append((index, scope))
    return chosen, "workload" if chosen else ""


def summarise(
    states: list[ClusterState],
    target: str = "",
    source: str = "",
    events_limit: int = EVENTS_LIMIT,
    now: Optional[datetime] = None,
) -> Summary:
    indexes = [_Index.build(state) for state in states]
    scoped, target_kind = _scopes(indexes, target)
    workloads: list[WorkloadRow] = []
    events: list[tuple[datetime, EventRow]] = []
    for index, scope in scoped:
        warnings = _warnings(index.state)
        by_jobset = _events_by_jobset(index, warnings)
        shown = warnings if scope.everything else _node_warnings(index, scope, warnings)
        for jobset in index.state.jobsets:
            key = (k8s.namespace(jobset), k8s.name(jobset))
            if not scope.has_jobset(key):
                continue
            own = by_jobset.get(key, [])
            problems = [(t, f"{e.get('reason', '')}: {e.get('message', '')}") for t, e in own]
            row = _workload(index, jobset, index.pods_by_jobset.get(key, []), problems)
            if row:
                workloads.append(row)
            if not scope.everything:
                shown.extend(own)
        events.extend((t, _event_row(index.state.cluster, e, t)) for t, e in shown)
    events.sort(key=lambda item: item[0], reverse=True)
    status_order = {"Failed": 0, "Failing": 1, "Restarting": 2, "Pending": 3, "Starting": 4}
    workloads.sort(key=lambda w: (status_order.get(w.status, 9), w.cluster, w.namespace, w.name))
    notice = ""
    if target and not target_kind:
        notice = f"No project, cluster or TPU workload named {target!r} in the clusters scanned."
    return Summary(
        capacity=_capacity(scoped),
        node_pools=_node_pools(scoped),
        workloads=workloads,
        events=[row for _, row in events[:events_limit]],
        clusters=[
            ClusterRow(
                name=i.state.cluster,
                project=i.state.project,
                location=i.state.location,
                context=i.state.context,
                nodes=len(i.state.nodes),
                tpu_nodes=len(i.nodes),
                problem=i.state.problem,
            )
            for i, _ in (scoped if target_kind else [(i, None) for i in indexes])
        ],
        generated_at=_iso(now or datetime.now(timezone.utc)) or "",
        source=source,
        target=target,
        target_kind=target_kind,
        notice=notice,
    )
