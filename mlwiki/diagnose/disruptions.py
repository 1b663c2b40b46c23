"""Disruptions: the moments a run broke, found from what marks a failure, grouped in time.

A *seed* is a hit that says "something broke here":
- every consequence (JobSet restart, max restarts, Job failed, a container's crash loop, a Kueue
  eviction after the PodsReady timeout) and every cascade ("another task died", leader lost, …)
  — healthy runs never print them, so a workload that shows one is never `no_failure`: it is
  diagnosed when a root explains it and `inconclusive`, naming the pod's node, when none does;
- a root match from the infrastructure (a node or VM event, or a Kubernetes event of a page whose
  failure kind is preemption or eviction) on one of the workload's nodes — what a workload
  container printed never counts as an infrastructure event, whatever words it holds;
- any other root or symptom match after which its pod wrote nothing more for `GRACE` seconds
  while the run went on (the process died there), or — when the run's logs end right after —
  a match of severity ERROR or worse; when the platform itself reports about a pod that its
  container died (an event or a controller's line of a crash-kind page: a terminated state with
  a non-zero exit code, an OOM kill, a start error), the pod staying silent afterwards is enough,
  however quiet the rest of the run: a container exit ≠ 0 without a later recovery is a break;
- a scheduling failure whose pod never logged afterwards (it stayed pending);
- the workload's last step line when its step lines stopped long before its containers stopped
  logging and nothing else broke after it (`stall_hit`: a hang found from absent lines).
A root match after which the pod kept logging (a retried warning), or after which the workload's
step lines went on (only process 0 may print steps: a silent worker is not a dead one), is not a
seed: it can still explain a disruption found from other seeds. Nor is anything but a
consequence that the workload's Job(Set) completing successfully followed, with no Job failure,
restart or new pod in between (a shutdown barrier that timed out, then every pod exited 0).

Seeds are grouped in time: a gap longer than `GAP` starts a new disruption — unless the seed
repeats a condition of the current group that never went away (the same pending or failing
state reported again with no training progress in between — no pod assignment, and no step
line once the workload's step line is known: Kubernetes repeats such events every few minutes,
and a container its liveness probe restarts before its first step fails the same way again; a
pod in a crash loop, whatever it reports next), or is the first consequence (Job failed,
JobSet restarted) of a group that had none, with no progress in between (a lost node's pod is
evicted, and its Job fails, minutes after the node went away) — and so does a seed from a newer restart
attempt once the current group holds a consequence (the restart closed it). An interruption
the infrastructure reported on one of the workload's nodes while the workload went on there (a
maintenance or preemption *notice*: nothing broke yet) is joined by the next seed on that node
within `ANNOUNCE_LEAD`, with no new pod in between — the notice and the interruption it announced
are one disruption.

`ending_disruption` says which disruption ended the run: the last one, when after it the run
neither completed nor made progress again (no step line, no new pod — with no step line known, no
container output) before its logs end: its Job(Set) failed, it reached max restarts, or nothing
was running any more. That disruption's cause is the run's headline (`findings`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from mlwiki.diagnose.instants import Instants
from mlwiki.diagnose.match import CASCADE, CONSEQUENCE, ROOT, SYMPTOM, Hit, Scan, insert_id_of
from mlwiki.diagnose.topology import ACTIVITY_BUCKET, Topology
from mlwiki.wiki import Symptom

GRACE = 60.0  # seconds a pod must keep logging after a match to count as still alive
GAP = 240.0  # seconds between seeds that separates two disruptions
LOOKBACK = 900.0  # seconds before the first seed searched for the root cause
INFRA_RESOURCES = ("gce_instance", "k8s_node", "gke_nodepool", "gke_cluster")
EVENTS_LOG = "/logs/events"  # Kubernetes events (pods, nodes, Jobs, JobSets, Kueue workloads)
SEVERE = ("ERROR", "CRITICAL", "ALERT", "EMERGENCY")
INTERRUPTION_KINDS = ("preemption", "eviction")
STALL_SYMPTOM = "training-stall"
# Event reasons with which the kubelet reports killing or holding back a container it restarts.
KUBELET_RESTART_REASONS = frozenset({"Killing", "BackOff"})
STALL_STEPS = 10  # step intervals without a step line …
STALL_MIN = 600.0  # … and at least this many seconds, while the containers still log
# Seconds an infrastructure notice may come before the interruption it announces (GKE gives TPU
# and GPU nodes up to an hour of graceful termination ahead of maintenance).
ANNOUNCE_LEAD = 3600.0


@dataclass
class Pointer:
    """A cascade, consequence or symptom line naming where the trouble is."""

    host: str
    pod: Optional[str]
    task: Optional[int]
    weight: float
    hit: Hit


@dataclass
class Culprit:
    host: str
    pod: Optional[str]
    task: Optional[int]
    hits: list[Hit]


@dataclass
class Disruption:
    """One moment the run broke: its seeds (in time order) and, after triage, what caused it.

    `start` and `end` (the first and last seed) are kept up to date by `add`: growing a
    disruption never rescans its seeds."""

    seeds: list[Hit]
    window_start: float = 0.0
    root: Optional[Hit] = None
    culprits: list[Culprit] = field(default_factory=list)
    pointers: list[Pointer] = field(default_factory=list)
    confidence: str = "low"
    kind: str = "crash"
    symptom: str = ""
    reasoning: str = ""
    common_mode: bool = False
    verdicts: dict[str, str] = field(default_factory=dict)
    start: float = field(init=False, default=float("inf"))
    end: float = field(init=False, default=float("-inf"))

    def __post_init__(self) -> None:
        seeds, self.seeds = self.seeds, []
        for seed in seeds:
            self.add(seed)

    def add(self, seed: Hit) -> None:
        self.seeds.append(seed)
        self.start = min(self.start, seed.time)
        self.end = max(self.end, seed.time)

    @property
    def time(self) -> float:
        return min(self.start, self.root.time) if self.root else self.start

    @property
    def diagnosed(self) -> bool:
        return self.root is not None


def from_infra_source(hit: Hit) -> bool:
    """Written by the platform (a VM, node, cluster or an event), never by a workload container."""
    return (
        hit.resource_type in INFRA_RESOURCES
        or hit.resource_type == "k8s_cluster"
        or hit.log_name.endswith(EVENTS_LOG)
    )


def is_infra(hit: Hit, symptoms: dict[str, Symptom]) -> bool:
    """An event about the node or VM itself, not what a container printed.

    A preemption or eviction counts only when the platform reports it: a container echoing
    `compute.instances.preempted` (a data record, a pasted query) is text, not an event.
    """
    if not from_infra_source(hit):
        return False
    kind = symptoms[hit.symptom].failure_kind if hit.symptom in symptoms else None
    return hit.resource_type in INFRA_RESOURCES or kind in INTERRUPTION_KINDS


def pod_alive_after(hit: Hit, topology: Topology) -> bool:
    """Whether the workload's pod went on logging after the hit; for a system pod's line (the
    device plugin on the node), whether the workload's pod on that node did."""
    info = topology.pods.get(hit.pod or "")
    if info is not None:
        return info.container_last > hit.time + GRACE
    if hit.host is None:
        return False
    # A pod that reached the node only later (the next restart attempt) says nothing about this.
    return any(
        i.first <= hit.time and i.container_last > hit.time + GRACE
        for i in topology.pods_on(hit.host)
    )


def training_went_on(hit: Hit, topology: Topology) -> bool:
    """Whether the workload's step lines went on right after the hit (within `GRACE` plus a few
    line intervals of it): training did not stop there, whatever the hit's own pod printed next
    (often only process 0 prints steps, so a silent worker is not a dead one)."""
    line = topology.progress.step_line()
    if line is None:
        return False
    start = hit.time + GRACE
    return line.lines_between(start, start + max(GRACE, 3 * line.line_interval))


def completed_after(hit: Hit, topology: Topology, consequences: Instants) -> bool:
    """Whether the workload's Job(Set) completed successfully after the hit with no Job failure,
    restart or new pod in between: what the hit reported did not break the run (a shutdown
    barrier that timed out while one task finished its upload, then every pod exited 0)."""
    done = topology.progress.finished_at
    return (
        done > hit.time
        and not consequences.any_between(hit.time, done, inclusive=True)
        and not topology.restarted_between(hit.time, done)
    )


def is_seed(hit: Hit, topology: Topology, symptoms: dict[str, Symptom]) -> bool:
    if hit.role in (CONSEQUENCE, CASCADE) or hit.inferred:
        return True
    if hit.shadowed or hit.role not in (ROOT, SYMPTOM):
        return False
    kind = symptoms[hit.symptom].failure_kind if hit.symptom in symptoms else None
    if kind == "scheduling":
        info = topology.pods.get(hit.pod or "")
        if info is None:
            # About no pod we know (a Kueue Workload waiting for quota): a break only if the
            # workload never got going afterwards (admitted minutes later and trained: a wait).
            return not topology.trained_between(hit.time, topology.last + 1)
        return info.container_last < hit.time
    went_on = pod_alive_after(hit, topology) or training_went_on(hit, topology)
    if hit.role == ROOT and is_infra(hit, symptoms):
        # A preemption or eviction of the workload's own pod or node breaks the run; one of a
        # pod that is not the workload's (a kube-system agent evicted on its node), or a
        # node-level crash line (an OOM kill, a kernel error), only when the workload on that
        # node did not go on (the OOM killer may have picked a DaemonSet's process beside it).
        own_interruption = kind in INTERRUPTION_KINDS and (
            hit.pod is None or hit.pod in topology.pods
        )
        return own_interruption or not went_on
    if kind == "crash" and hit.pod is not None and from_infra_source(hit) and not went_on:
        # The platform reports that the pod's container died (an event, a controller or kubelet
        # line: a terminated state with exit code 2, a start error, an OOM kill): that is the
        # failure itself, even after the rest of the run went quiet and whatever the event's
        # severity; only the pod going on afterwards (its next container logging) undoes it.
        return True
    if kind == "restart" and hit.reason in KUBELET_RESTART_REASONS:
        # The kubelet killed (or is backing off) the container: for a restart-kind page the
        # restart is the failure, whatever the new container in the same pod prints next.
        return True
    if hit.pod is None:
        # A node's trouble (NotReady…) on a node where the workload went on was a blip.
        if hit.resource_type in INFRA_RESOURCES:
            return not went_on
        return hit.severity in SEVERE
    if went_on:
        return False
    run_goes_on = topology.last > hit.time + GRACE
    return run_goes_on or hit.severity in SEVERE


def find_disruptions(
    hits: list[Hit], topology: Topology, symptoms: dict[str, Symptom]
) -> list[Disruption]:
    """The run's disruptions, in time order (see the module docstring); linear in the hits:
    each seed is compared with what the current group keeps, never with its seeds."""
    found = [hit for hit in hits if is_seed(hit, topology, symptoms)]
    consequences = Instants(hit.time for hit in found if hit.role == CONSEQUENCE)
    seeds = sorted(
        (
            h
            for h in found
            if h.role == CONSEQUENCE or not completed_after(h, topology, consequences)
        ),
        key=lambda hit: (hit.time, hit.insert_id),
    )
    groups: list[_Group] = []
    for seed in seeds:
        current = groups[-1] if groups else None
        if (
            current is None
            or (
                seed.time - current.disruption.end > GAP
                and not current.persists(seed)
                and not current.concludes(seed)
                and not current.announced(seed)
            )
            or current.restart_closed(seed)
        ):
            groups.append(_Group(Disruption([]), topology, symptoms))
        groups[-1].add(seed)
    previous_end = float("-inf")
    for group in groups:
        disruption = group.disruption
        disruption.window_start = max(previous_end, disruption.start - LOOKBACK)
        previous_end = disruption.end
    return [group.disruption for group in groups]


def ending_disruption(disruptions: list[Disruption], topology: Topology) -> Optional[Disruption]:
    """The disruption that ended the run, or None when the run did not end in failure: the last
    disruption, unless the workload completed successfully after it or made progress again (a
    new pod, a step line — or, with no step line known, container output — after `GRACE`)
    before its logs end."""
    if not disruptions:
        return None
    last = disruptions[-1]
    if topology.progress.finished_at > last.end or topology.restarted_between(
        last.end, topology.last
    ):
        return None
    after, until = last.end + GRACE, topology.last + 2 * ACTIVITY_BUCKET
    line = topology.progress.step_line()
    went_on = (
        line.lines_between(after, until)
        if line is not None
        else topology.progressed_between(after, until)
    )
    return None if went_on else last


def _interruption(hit: Hit, symptoms: dict[str, Symptom]) -> bool:
    """A preemption or eviction the infrastructure reported (not a workload's text)."""
    page = symptoms.get(hit.symptom)
    kind = page.failure_kind if page is not None else None
    return hit.role == ROOT and kind in INTERRUPTION_KINDS and is_infra(hit, symptoms)


def condition(hit: Hit, symptoms: dict[str, Symptom]) -> tuple[Optional[str], ...]:
    """What state a seed reports: pods waiting to run (any scheduling-kind page: Pending,
    FailedScheduling, quota, scale-up errors), else its kind, symptom and host."""
    kind = symptoms[hit.symptom].failure_kind if hit.symptom in symptoms else None
    if kind == "scheduling":
        return (kind,)
    return (kind, hit.symptom, hit.host)


def _restarts_in_place(hit: Hit, symptoms: dict[str, Symptom]) -> bool:
    """A consequence that restarts the pod's container in place (a crash loop): whatever that pod
    reports next, with no progress between, is the same failing state (the back-off between two
    attempts grows to five minutes, longer than `GAP`)."""
    page = symptoms.get(hit.symptom)
    return hit.role == CONSEQUENCE and page is not None and page.failure_kind == "restart"


@dataclass
class _Group:
    """A disruption being grown, with what the grouping rules ask of its seeds so far."""

    disruption: Disruption
    topology: Topology
    symptoms: dict[str, Symptom]
    conditions: set[tuple[Optional[str], ...]] = field(default_factory=set)
    has_consequence: bool = False
    newest_attempt: Optional[int] = None  # the newest restart attempt of its seeds' pods
    looping: set[str] = field(default_factory=set)  # pods a seed says restart in place
    # The node of a group that is only a notice so far: interruptions the infrastructure reported
    # on that one node while the workload went on there (see `announced`).
    notice_host: Optional[str] = None

    def add(self, seed: Hit) -> None:
        first = not self.disruption.seeds
        notice = (
            seed.host is not None
            and _interruption(seed, self.symptoms)
            and (pod_alive_after(seed, self.topology) or training_went_on(seed, self.topology))
        )
        same_node = first or seed.host == self.notice_host
        self.notice_host = seed.host if notice and same_node else None
        self.disruption.add(seed)
        self.conditions.add(condition(seed, self.symptoms))
        self.has_consequence = self.has_consequence or seed.role == CONSEQUENCE
        if seed.pod and _restarts_in_place(seed, self.symptoms):
            self.looping.add(seed.pod)
        attempt = _attempt(seed, self.topology)
        if attempt is not None and (self.newest_attempt is None or attempt > self.newest_attempt):
            self.newest_attempt = attempt

    def persists(self, seed: Hit) -> bool:
        """True when `seed` repeats a condition of the group that never went away: the same
        state reported again (events repeat every few minutes, a container restarted by its
        liveness probe fails the same way) with no training progress between (see
        `Topology.trained_between`)."""
        repeated = condition(seed, self.symptoms) in self.conditions or seed.pod in self.looping
        return repeated and not self.topology.trained_between(
            self.disruption.end + GRACE, seed.time
        )

    def concludes(self, seed: Hit) -> bool:
        """True when `seed` is the group's late consequence: a Job failed or the JobSet
        restarted after a group that had none yet, with no progress of the workload in between.
        When a node is lost, the taint manager evicts its pod only minutes later (5 by
        default), and only then does the Job fail: whatever the gap, that is the end of the
        same disruption."""
        return (
            seed.role == CONSEQUENCE
            and not self.has_consequence
            and not self.topology.progressed_between(self.disruption.end + GRACE, seed.time)
        )

    def announced(self, seed: Hit) -> bool:
        """True when the group is a notice on one node (see `notice_host`) and `seed`, on that
        node within `ANNOUNCE_LEAD` of it with no new pod in between, is the interruption it
        announced: the workload going on after a notice is no recovery."""
        return (
            self.notice_host is not None
            and seed.host == self.notice_host
            and seed.time - self.disruption.end <= ANNOUNCE_LEAD
            and not self.topology.restarted_between(self.disruption.end, seed.time)
        )

    def restart_closed(self, seed: Hit) -> bool:
        """True when `seed` comes from a newer restart attempt than a group that already
        restarted."""
        if seed.role == CONSEQUENCE or not self.has_consequence:
            return False
        attempt = _attempt(seed, self.topology)
        newest = self.newest_attempt
        return attempt is not None and newest is not None and attempt > newest


def _attempt(hit: Hit, topology: Topology) -> Optional[int]:
    info = topology.pods.get(hit.pod or "")
    return info.attempt if info else None


def stall_hit(scan: Scan, seeds: list[Hit], symptoms: dict[str, Symptom]) -> Optional[Hit]:
    """A `training-stall` seed at the workload's last step line, when its step lines stopped
    more than `max(STALL_STEPS × seconds per step, STALL_MIN)` before its containers stopped
    logging and no failure was found after it (nothing crashed: the run hangs)."""
    line = scan.progress.step_line()
    page = symptoms.get(STALL_SYMPTOM)
    if line is None or page is None or line.last_entry is None:
        return None
    last_log = max((i.container_last for i in scan.topology.pods.values()), default=float("-inf"))
    quiet = last_log - line.last[0]
    if quiet <= max(STALL_STEPS * (line.seconds_per_step or 0.0), STALL_MIN):
        return None
    if any(seed.time > line.last[0] for seed in seeds):
        return None  # a failure after the last step explains why the steps stopped
    if scan.progress.finished_at > line.last[0]:
        return None  # the run completed after its last step: a quiet final phase, not a hang
    entry = line.last_entry
    scan.entries.append(entry)
    return Hit(
        index=len(scan.entries) - 1,
        symptom=page.id,
        role=page.role,
        layer=page.layer,
        time=line.last[0],
        timestamp=str(entry.get("timestamp") or ""),
        insert_id=insert_id_of(entry),
        log_name=str(entry.get("logName") or ""),
        host=None,  # the whole run stopped progressing, not one host
        pod=None,
        quote=line.last_text,
        field="textPayload" if isinstance(entry.get("textPayload"), str) else "jsonPayload.message",
        captures={},
        severity=str(entry.get("severity") or "DEFAULT"),
        resource_type=str((entry.get("resource") or {}).get("type") or ""),
        inferred=True,
        namespace=((entry.get("resource") or {}).get("labels") or {}).get("namespace_name"),
    )
