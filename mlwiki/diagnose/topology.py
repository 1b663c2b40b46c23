"""Who is who in a run: pods, their nodes, JobSet coordinates, restart attempts, JAX tasks.

Learned in the same single pass as matching, from every entry, in any order:
- container entries: the node label (`compute.googleapis.com/resource_name`) and the pod labels GKE
  copies as `k8s-pod/…` (JobSet keys in both spellings), else the pod name
  `<jobset>-<replicatedjob>-<jobIndex>-<completionIndex>-<suffix>`;
- pod events: `Successfully assigned NS/POD to NODE`, `Created pod: POD`.
Then a JAX task K maps to the pod with job index K // hosts_per_slice and completion index
K % hosts_per_slice (tpu-failure-modes.md §1.2), and a worker address
`<jobset>-<rjob>-<j>-<c>.<service>` to the pod whose name it prefixes.
"""

from __future__ import annotations

import bisect
import heapq
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.diagnose.instants import Instants, Slots
from mlwiki.diagnose.progress import Progress
from mlwiki.logs.entry import NODE_LABEL, EntryFacts, Stream
from mlwiki.logs.workload import owned_by

_LABEL_PREFIXES = ("k8s-pod/jobset_sigs_k8s_io/", "k8s-pod/jobset.sigs.k8s.io/")
_JOBSET_NAME_KEYS = tuple(prefix + "jobset-name" for prefix in _LABEL_PREFIXES)
_RJOB_KEYS = tuple(prefix + "replicatedjob-name" for prefix in _LABEL_PREFIXES)
_NUMBER_KEYS = tuple(
    (prefix + key, attr)
    for prefix in _LABEL_PREFIXES
    for key, attr in (("job-index", "job_index"), ("restart-attempt", "attempt"))
)
_COMPLETION_KEYS = (
    "k8s-pod/batch_kubernetes_io/job-completion-index",
    "k8s-pod/batch.kubernetes.io/job-completion-index",
)
_POD_NAME = re.compile(
    r"^(?P<rjob>.+)-(?P<job>[0-9]+)-(?P<completion>[0-9]+)-(?P<suffix>[a-z0-9]{4,})$"
)
_ASSIGNED = re.compile(r"Successfully assigned (?:[^/\s]+/)?(?P<pod>\S+) to (?P<node>\S+)")
_CREATED = re.compile(r"Created pod: (?P<pod>\S+)")
# A JAX process saying which process it is (`process_id=3`, `process index: 3`, `process_index=3`):
# the task a coordination message names, whatever the pod's name says.
_PROCESS_ID = re.compile(r"\bprocess[_ ](?:id|index)\b\s*[=:]?\s*([0-9]+)\b")
ACTIVITY_BUCKET = 10.0  # seconds: the resolution of "did the workload run in between"
POOL_LOOKBACK = 3600.0
CAPACITY_WINDOW = 1800.0  # seconds between a capacity error and the pods it left unscheduled  # seconds: how far before a pool-level event its node's trouble may start


@dataclass
class PodInfo:
    name: str
    node: Optional[str] = None
    rjob: Optional[str] = None
    job_index: Optional[int] = None
    completion: Optional[int] = None
    attempt: Optional[int] = None  # jobset.sigs.k8s.io/restart-attempt, or inferred generation
    first: float = float("inf")
    last: float = float("-inf")
    container_last: float = float("-inf")  # last entry the pod's own containers wrote
    entries: int = 0
    process_id: Optional[int] = None  # the JAX process id the pod declared at start-up
    labels_read: int = 0  # how many labels the last entry whose labels were read had

    @property
    def coordinates(self) -> Optional[tuple[str, int, int]]:
        if self.rjob is None or self.job_index is None or self.completion is None:
            return None
        return (self.rjob, self.job_index, self.completion)


@dataclass
class NodeInfo:
    name: str
    first: float = float("inf")
    last: float = float("-inf")
    entries: int = 0
    warnings: Instants = field(default_factory=Instants)  # times of Warning events about the node


@dataclass
class Topology:
    workload: Optional[str] = None
    pods: dict[str, PodInfo] = field(default_factory=dict)
    nodes: dict[str, NodeInfo] = field(default_factory=dict)
    first: float = float("inf")
    last: float = float("-inf")
    # When the workload made progress: buckets of ACTIVITY_BUCKET seconds in which its containers
    # wrote, and the times its pods were assigned to nodes (compact whatever the entry count).
    activity: Slots = field(default_factory=Slots)
    assigned: Instants = field(default_factory=Instants)
    progress: Progress = field(default_factory=Progress)  # step lines and completion (the pass)
    # Other JobSets seen in the data (labels, JobSet events): a project-wide export holds them
    # too, and `llm-eval` must not be taken for a pod of `llm`.
    other_workloads: set[str] = field(default_factory=set)
    # Cluster-autoscaler scale-ups the workload's pods triggered: their results (a quota or
    # stockout error) name only an instance and the decision's eventId.
    scale_up_events: set[str] = field(default_factory=set)
    # When the scheduler reported the workload's pods unschedulable (FailedScheduling events).
    unschedulable: Instants = field(default_factory=Instants)
    _finished: bool = False
    _index: Optional[PodIndex] = None  # lookups over the pods, rebuilt after any change
    # Each stream's pod of the workload and node (see `_place`), learned once per stream.
    _places: dict[Stream, tuple[Optional[PodInfo], Optional[NodeInfo], bool]] = field(
        default_factory=dict, repr=False
    )

    # ---- the pass ---------------------------------------------------------------------------

    def observe(self, facts: EntryFacts) -> bool:
        """Learn what one entry says about pods, nodes and the other workloads; whether it is
        about a pod of the workload (by its own labels, else its pod's name: `belongs`)."""
        self._index = None
        when = facts.time
        if when < self.first:
            self.first = when
        if when > self.last:
            self.last = when
        stream = facts.stream
        pod = facts.pod
        # Neither the pod nor the host read from the payload: the place is the stream's.
        named = pod is stream.pod and facts.host is stream.host
        place = self._places.get(stream) if named else None
        if place is None:
            place = self._place(facts)
            if named:
                self._places[stream] = place
        info, node_info, is_container = place
        if info is not None:
            if when < info.first:
                info.first = when
            if when > info.last:
                info.last = when
            info.entries += 1
            if is_container:
                if when > info.container_last:
                    info.container_last = when
                self.activity.add(int(when // ACTIVITY_BUCKET))
                if info.process_id is None:
                    info.process_id = _declared_process(facts.message)
                labels = facts.labels
                node = labels.get(NODE_LABEL)
                if node:
                    info.node = str(node)
                # A pod's labels (restart attempt, job index…) are set when it is created: they
                # are read again only when an entry brings a different set of them.
                if labels and len(labels) != info.labels_read:
                    self._labels(info, labels)
                    info.labels_read = len(labels)
        if node_info is not None:
            if when < node_info.first:
                node_info.first = when
            if when > node_info.last:
                node_info.last = when
            node_info.entries += 1
        payload = facts.payload
        if payload is not None:
            self._payload(payload, facts, node_info, is_container)
        return info is not None

    def _payload(
        self,
        payload: dict[str, Any],
        facts: EntryFacts,
        node_info: Optional[NodeInfo],
        is_container: bool,
    ) -> None:
        """What an entry's `jsonPayload` says: a node's Warning event, the JobSets and scale-ups
        it names, an unschedulable pod of the workload, a pod's assignment or its node."""
        when, pod = facts.time, facts.pod
        if node_info is not None and payload.get("type") == "Warning" and not is_container:
            node_info.warnings.add(when)
        self._note_jobset(payload.get("involvedObject"))
        self._note_scale_up(payload.get("decision"))
        if payload.get("reason") == "FailedScheduling" and pod in self.pods:
            self.unschedulable.add(when)
        if isinstance(payload.get("message"), str):
            self._event(payload["message"], when)
        # The kubelet's events about a pod say which node it runs on (source.host): the only
        # trace of a pod whose own logs are missing.
        source = payload.get("source")
        source_host = source.get("host") if isinstance(source, dict) else None
        if pod in self.pods and not self.pods[pod].node and isinstance(source_host, str):
            self.pods[pod].node = source_host

    def _place(self, facts: EntryFacts) -> tuple[Optional[PodInfo], Optional[NodeInfo], bool]:
        """Which of the workload's pods (when it is one of them) and which node an entry is
        about, whether it is a container's, and the other JobSets its labels name: all of it
        follows from the pod, the host, the resource type and the labels, so when the entry's
        stream names its pod and host (`Stream`) it is learned once per stream (`_places`,
        emptied by `finish`, which may drop pods)."""
        is_container = facts.resource_type == "k8s_container"
        labels = facts.labels
        pod = facts.pod
        mine = bool(pod) and self.belongs(pod, labels)  # type: ignore[arg-type]
        info = (self.pods.get(pod) or self._pod(pod)) if mine else None  # type: ignore[arg-type]
        host = facts.host
        node_info = None
        if host and (is_container or facts.resource_type in ("k8s_node", "gce_instance")):
            node_info = self.nodes.get(host) or self.nodes.setdefault(host, NodeInfo(host))
        if not mine or self.workload is None:  # a pod of the workload names no other JobSet
            for key in _JOBSET_NAME_KEYS:
                name = labels.get(key)
                if name and name != self.workload:
                    self.other_workloads.add(str(name))
        return info, node_info, is_container

    def _note_scale_up(self, decision: Any) -> None:
        scale_up = decision.get("scaleUp") if isinstance(decision, dict) else None
        if not isinstance(scale_up, dict) or not decision.get("eventId"):
            return
        for pod in scale_up.get("triggeringPods") or []:
            name = pod.get("name") if isinstance(pod, dict) else None
            if isinstance(name, str) and self.belongs(name, {}):
                self.scale_up_events.add(str(decision["eventId"]))
                return

    def waiting_for_capacity(self, entry: dict[str, Any], when: float) -> bool:
        """Whether a cluster-wide autoscaler error (a stockout, a quota) names no other known
        workload and came while the workload's pods could not be scheduled (within 30 minutes):
        queued or multislice scale-ups often name only a node group."""
        if not self.unschedulable.any_between(
            when - CAPACITY_WINDOW, when + CAPACITY_WINDOW, inclusive=True
        ):
            return False
        text = str(entry.get("jsonPayload"))
        return not any(other in text for other in self.other_workloads)

    def triggered_by_workload(self, entry: dict[str, Any]) -> bool:
        """Whether an autoscaler result is about a scale-up the workload's pods triggered."""
        payload = entry.get("jsonPayload")
        result_info = payload.get("resultInfo") if isinstance(payload, dict) else None
        results = result_info.get("results") if isinstance(result_info, dict) else None
        return any(
            isinstance(r, dict) and str(r.get("eventId")) in self.scale_up_events
            for r in results or []
        )

    def _note_jobset(self, involved: Any) -> None:
        if isinstance(involved, dict) and involved.get("kind") == "JobSet":
            name = involved.get("name")
            if isinstance(name, str) and name and name != self.workload:
                self.other_workloads.add(name)

    def belongs(self, pod: str, labels: dict[str, Any]) -> bool:
        """Whether `pod` is the workload's: by an owner label (JobSet, Job, LeaderWorkerSet)
        when the entry has one, else by its name — exactly (a bare pod) or `WORKLOAD-…`
        (`mlwiki.logs.workload`; `finish` drops names of a longer known workload)."""
        if self.workload is None:
            return True
        return owned_by(self.workload, pod, labels)

    def longer_names(self) -> list[str]:
        """Known workloads whose names extend this one's (`llm-eval` for `llm`), longest first."""
        if not self.workload:
            return []
        prefix = self.workload + "-"
        return sorted(
            (o for o in self.other_workloads if o.startswith(prefix)), key=len, reverse=True
        )

    def mentions(self, text: str) -> bool:
        """Whether `text` names the workload itself, not a workload whose name extends it."""
        if not self.workload:
            return False
        for longer in self.longer_names():
            text = text.replace(longer, "")
        return self.workload in text

    def _pod(self, name: str) -> PodInfo:
        info = self.pods.get(name)
        if info is None:
            info = self.pods[name] = PodInfo(name)
            self._from_name(info)
        return info

    def _from_name(self, info: PodInfo) -> None:
        rest = info.name
        if self.workload and rest.startswith(self.workload + "-"):
            rest = rest[len(self.workload) + 1 :]
        match = _POD_NAME.match(rest)
        if match:
            info.rjob = match["rjob"]
            info.job_index = int(match["job"])
            info.completion = int(match["completion"])

    def _labels(self, info: PodInfo, labels: dict[str, Any]) -> None:
        for key in _RJOB_KEYS:
            rjob = labels.get(key)
            if rjob:
                info.rjob = str(rjob)
        for key, attr in _NUMBER_KEYS:
            value = labels.get(key)
            if value is not None and str(value).isdigit():
                setattr(info, attr, int(value))
        for key in _COMPLETION_KEYS:
            value = labels.get(key)
            if value is not None and str(value).isdigit():
                info.completion = int(value)

    def _event(self, message: str, when: float) -> None:
        if "Successfully assigned" in message:
            match = _ASSIGNED.search(message)
            if match and self.belongs(match["pod"], {}):
                info = self._pod(match["pod"])
                info.node = info.node or match["node"]
                info.first = min(info.first, when)
                self.assigned.add(when)
        elif "Created pod: " in message:
            match = _CREATED.search(message)
            if match and self.belongs(match["pod"], {}):
                self._pod(match["pod"]).first = min(self._pod(match["pod"]).first, when)

    # ---- after the pass ----------------------------------------------------------------------

    def finish(self) -> None:
        """Drop pods of longer-named workloads; infer restart generations for pods without the
        restart-attempt label."""
        if self._finished:
            return
        self._finished = True
        self._places.clear()
        for longer in self.longer_names():  # pods known only by name, of a longer-named workload
            for name in [n for n in self.pods if n.startswith(longer + "-")]:
                del self.pods[name]
        by_slot: dict[tuple[str, int, int], list[PodInfo]] = {}
        for info in self.pods.values():
            if info.coordinates:
                by_slot.setdefault(info.coordinates, []).append(info)
        for infos in by_slot.values():
            infos.sort(key=lambda i: i.first)
            for generation, info in enumerate(infos):
                if info.attempt is None:
                    info.attempt = generation
        self._index = None

    def pool_suspect(self, pool_prefix: str, when: float) -> Optional[str]:
        """The node of a GKE node pool (`gke-CLUSTER-POOL-`) to which a pool-level event at
        `when` (a repair, an upgrade) most likely points: among the pool's nodes the workload ran
        on, the one whose node Warning events started first in the hour before it."""
        candidates = []
        for info in self.index.pool_nodes(pool_prefix, self.nodes):
            first = info.warnings.first_after(when - POOL_LOOKBACK, inclusive=True)
            if first is not None and first <= when:
                candidates.append((first, info.name))
        return min(candidates)[1] if candidates else None

    def restarted_between(self, start: float, end: float) -> bool:
        """Whether a pod of the workload was assigned to a node between `start` and `end`."""
        return self.assigned.any_between(start, end)

    def trained_between(self, start: float, end: float) -> bool:
        """Whether the run moved on between `start` and `end`: a pod was assigned (a new attempt)
        or, once the workload's step line is known, a step line was written. Other output
        (restoring, connecting) is no progress: a loop that restarts before its first step
        prints plenty of it."""
        if self.restarted_between(start, end):
            return True
        line = self.progress.step_line()
        return line is not None and line.lines_between(start, end)

    def progressed_between(self, start: float, end: float) -> bool:
        """Whether the workload ran between `start` and `end`: a container wrote, or a pod was
        assigned to a node (a whole activity bucket inside the interval counts)."""
        if self.restarted_between(start, end):
            return True
        first = int(start // ACTIVITY_BUCKET) + 1
        last = int(end // ACTIVITY_BUCKET) - 1
        return self.activity.any_in(first, last)

    @property
    def index(self) -> PodIndex:
        """Lookups over the pods (by node, process id, coordinates, name prefix, Job), built
        once after the pass and again only if the pods change."""
        if self._index is None:
            self._index = PodIndex(self.pods)
        return self._index

    @property
    def main_rjob(self) -> Optional[str]:
        return self.index.main_rjob

    def hosts_per_slice(self, rjob: Optional[str] = None) -> Optional[int]:
        return self.index.hosts_per_slice(rjob or self.main_rjob)

    @property
    def slices(self) -> int:
        return self.index.slices

    def pods_on(self, node: str) -> list[PodInfo]:
        """The workload's pods on `node`, in no particular order."""
        return self.index.by_node.get(node, [])

    def pod_for_task(self, task: int, when: float, near: Optional[str] = None) -> Optional[PodInfo]:
        """The pod running JAX task `task` at `when` (same restart attempt as pod `near`): the
        pod that declared that process id at start-up, else by JobSet coordinates (job index ×
        hosts per slice + completion index), which assumes only the main job's pods are tasks."""
        index = self.index
        declared = index.group(index.by_process, task)
        if declared:
            return declared.pick(when, self._attempt_of(near))
        rjob = self.main_rjob
        per_slice = self.hosts_per_slice(rjob)
        if rjob is None or not per_slice:
            return None
        job_index, completion = divmod(task, per_slice)
        slot = index.group(index.by_coordinates, (rjob, job_index, completion))
        return slot.pick(when, self._attempt_of(near)) if slot else None

    def pod_for_address(
        self, address: str, when: float, near: Optional[str] = None
    ) -> Optional[PodInfo]:
        """The pod behind a worker address or hostname (`<jobset>-<rjob>-<j>-<c>.<svc>:port`)."""
        label = address.split(".", 1)[0].split(":", 1)[0]
        if label in self.pods:
            return self.pods[label]
        named = self.index.group(self.index.by_prefix, label)
        return named.pick(when, self._attempt_of(near)) if named else None

    def pods_of_job(self, job: str, when: float, near: Optional[str] = None) -> list[PodInfo]:
        """Pods of a Job named `<jobset>-<rjob>-<j>` (a JobSet's "first failed job")."""
        chosen = self.index.group(self.index.by_job, job)
        if not chosen:
            return []
        return chosen.of_attempt(chosen.attempt_near(when, self._attempt_of(near)))

    def _attempt_of(self, near: Optional[str]) -> tuple[bool, Optional[int]]:
        """(whether `near` is a known pod, its restart attempt)."""
        info = self.pods.get(near or "")
        return (info is not None, info.attempt if info is not None else None)

    def active_nodes(self, start: float, end: float) -> int:
        """How many nodes ran a pod of the workload whose life (first entry → last container
        entry) overlaps `start`…`end`."""
        return self.index.active_nodes(start, end)

    def node_of(self, name: str) -> Optional[str]:
        """A node name for `name`: a known node, a pod's node, or None."""
        if name in self.nodes:
            return name
        info = self.pods.get(name)
        return info.node if info else None


class PodGroup:
    """Pods named alike (one JobSet slot across restart attempts, one Job, one address), in
    the order of their first entry, for "which of them ran at that time"."""

    def __init__(self, infos: list[PodInfo]) -> None:
        self.infos = sorted(infos, key=lambda i: (i.first, i.name))
        self._firsts = [info.first for info in self.infos]
        self._attempts: dict[Optional[int], list[PodInfo]] = {}
        for info in infos:
            self._attempts.setdefault(info.attempt, []).append(info)

    def __len__(self) -> int:
        return len(self.infos)

    def of_attempt(self, attempt: Optional[int]) -> list[PodInfo]:
        return self._attempts.get(attempt, [])

    def attempt_near(self, when: float, near: tuple[bool, Optional[int]]) -> Optional[int]:
        """The restart attempt of pod `near` (see `Topology._attempt_of`) when the group has
        one, else that of the pod started last by `when` (else of the last to start)."""
        known, attempt = near
        if known and attempt in self._attempts:
            return attempt
        started = bisect.bisect_right(self._firsts, when + 1)
        return self.infos[started - 1 if started else -1].attempt

    def pick(self, when: float, near: tuple[bool, Optional[int]]) -> Optional[PodInfo]:
        """The pod of the group running at `when`, of the same attempt as `near` if possible."""
        same = self.of_attempt(self.attempt_near(when, near)) or self.infos
        return max(same, key=lambda i: (i.first if i.first <= when + 1 else float("-inf"), i.name))


class _ActiveSweep:
    """Counts the nodes with a pod alive in an interval: pods enter in the order of their first
    entry and leave after their last container entry, so a series of intervals moving forward
    in time (the disruptions, in order) costs one pass over the pods in all."""

    def __init__(self, pods: list[PodInfo]) -> None:
        self._pods = sorted((i for i in pods if i.node), key=lambda i: i.first)
        self._reset()

    def _reset(self) -> None:
        self._next = 0
        self._alive: list[tuple[float, int, str]] = []  # heap of (last container entry, n, node)
        self._per_node: dict[str, int] = {}
        self._asked = (float("-inf"), float("-inf"))

    def count(self, start: float, end: float) -> int:
        if start < self._asked[0] or end < self._asked[1]:
            self._reset()  # an interval back in time: sweep again from the start
        self._asked = (start, end)
        pods, per_node = self._pods, self._per_node
        while self._next < len(pods) and pods[self._next].first <= end:
            info = pods[self._next]
            heapq.heappush(self._alive, (info.container_last, self._next, info.node or ""))
            per_node[info.node or ""] = per_node.get(info.node or "", 0) + 1
            self._next += 1
        while self._alive and self._alive[0][0] < start:
            node = heapq.heappop(self._alive)[2]
            per_node[node] -= 1
            if not per_node[node]:
                del per_node[node]
        return len(per_node)


class PodIndex:
    """The pods of a topology looked up by what cascades and reporters name, each lookup a dict
    access instead of a scan of every pod (which would make triage grow with pointers × pods)."""

    def __init__(self, pods: dict[str, PodInfo]) -> None:
        self.by_node: dict[str, list[PodInfo]] = {}
        self.by_process: dict[int, list[PodInfo]] = {}
        self.by_coordinates: dict[tuple[str, int, int], list[PodInfo]] = {}
        self.by_prefix: dict[str, list[PodInfo]] = {}  # every `a-b-…` prefix before a `-`
        self.by_job: dict[str, list[PodInfo]] = {}  # `<job>-<completion>-<suffix>` → job
        completions: dict[Optional[str], int] = {}
        slots: dict[str, set[tuple[int, int]]] = {}
        job_indices: dict[Optional[str], set[int]] = {}
        for name, info in pods.items():
            if info.node:
                self.by_node.setdefault(info.node, []).append(info)
            if info.process_id is not None:
                self.by_process.setdefault(info.process_id, []).append(info)
            coordinates = info.coordinates
            if coordinates:
                self.by_coordinates.setdefault(coordinates, []).append(info)
                slots.setdefault(info.rjob or "", set()).add(coordinates[1:])
            position = name.find("-")
            while position >= 0:
                self.by_prefix.setdefault(name[:position], []).append(info)
                position = name.find("-", position + 1)
            parts = name.rsplit("-", 2)  # `<job>-<completion>-<suffix>`
            if len(parts) == 3 and parts[1].isdigit() and parts[2]:
                self.by_job.setdefault(parts[0], []).append(info)
            if info.completion is not None:
                completions[info.rjob] = max(completions.get(info.rjob, -1), info.completion)
            if info.job_index is not None:
                job_indices.setdefault(info.rjob, set()).add(info.job_index)
        self.main_rjob = max(slots, key=lambda r: (len(slots[r]), r)) if slots else None
        self._completions = completions
        self.slices = len(job_indices.get(self.main_rjob, ()))
        self._pools: dict[str, list[NodeInfo]] = {}
        self._groups: dict[tuple[int, object], PodGroup] = {}
        self._sweep = _ActiveSweep(list(pods.values()))

    def group(self, table: dict[Any, list[PodInfo]], key: object) -> Optional[PodGroup]:
        """The pods of `table` (`by_process`, `by_coordinates`, `by_prefix`, `by_job`) under
        `key` as a `PodGroup`, or None."""
        found = self._groups.get((id(table), key))
        if found is None:
            infos = table.get(key)
            if not infos:
                return None
            found = self._groups[(id(table), key)] = PodGroup(infos)
        return found

    def active_nodes(self, start: float, end: float) -> int:
        return self._sweep.count(start, end)

    def hosts_per_slice(self, rjob: Optional[str]) -> Optional[int]:
        last = self._completions.get(rjob)
        return last + 1 if last is not None else None

    def pool_nodes(self, pool_prefix: str, nodes: dict[str, NodeInfo]) -> list[NodeInfo]:
        """The known nodes whose names start with `pool_prefix` (one scan per pool)."""
        found = self._pools.get(pool_prefix)
        if found is None:
            found = self._pools[pool_prefix] = [
                info for name, info in nodes.items() if name.startswith(pool_prefix)
            ]
        return found


def _declared_process(text: Optional[str]) -> Optional[int]:
    if text is None or "process" not in text:
        return None
    match = _PROCESS_ID.search(text)
    return int(match.group(1)) if match else None
