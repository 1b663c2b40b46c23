"""Cause versus cascade: the root cause (and culprit hosts) of one disruption.

TAXONOMY.md's triage rule, as a method:
1. Pointers: what the disruption's cascade, consequence and symptom lines name — the `task` of a
   heartbeat cascade (→ pod by JobSet coordinates → node), `host`s or worker addresses (a capture
   may list several, comma- or space-separated), a `pod`, the
   `job` of "first failed job" (→ its pods, each with a share of one vote), and for node- and
   pod-level symptom and consequence events (NotReady, graceful shutdown, a pod's crash loop)
   their own node. When a reporter (a page marked
   `reporter: true` in its frontmatter: a Megascale digest, a TPU session master) names the failed
   hosts, the "first failed job" pointers are dropped: that Job merely exited first.
2. Candidates: root matches in the disruption's window, except inside cascade lines and except
   what a host printed after it had already started to cascade (it was dying of someone else's
   death); infrastructure events always stay candidates. A reporter's line is about the hosts
   it (or its fellow lines) names, never about the host that printed it.
3. Choice: the candidate on the most-pointed host, an infrastructure event on that node before
   what its container printed, then the earliest. The same non-infrastructure root on at least
   half of the active hosts (and two or more) is a common-mode cause with no single culprit host.
   With nothing pointed, the earliest candidate wins (infrastructure first) at lower confidence;
   with pointers but no candidate on them, only a candidate that itself broke something (a seed)
   may explain the disruption — else the result is inconclusive and names the pointed hosts.
4. Explanation: when another candidate of the disruption explains the chosen root (the table in
   `explains`: a stockout, a missing slice, a device plugin short of chips or Kueue's quota
   explain pods that cannot be scheduled), it becomes the root cause on its own hosts; the
   disruption keeps the kind of the effect.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Optional

from mlwiki.diagnose.disruptions import (
    GRACE,
    INFRA_RESOURCES,
    INTERRUPTION_KINDS,
    Culprit,
    Disruption,
    Pointer,
    is_infra,
    is_seed,
)
from mlwiki.diagnose.explains import explanation
from mlwiki.diagnose.match import CONSEQUENCE, ROOT, SYMPTOM, Hit
from mlwiki.diagnose.timeline import Timeline
from mlwiki.diagnose.topology import PodInfo, Topology
from mlwiki.wiki import Symptom

COMMON_MODE_SHARE = 0.5
# A Python exception as printed when raised: `ValueError: …`, `jaxlib.xla_extension.XlaRuntimeError: …`.
RAISED = re.compile(r"(?m)^(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception): ")
_NAMES = re.compile(r"[^\s,]+")  # the names in a capture listing several hosts


def triage(
    disruption: Disruption,
    hits: Timeline,
    topology: Topology,
    symptoms: dict[str, Symptom],
    nearby: Optional[Timeline] = None,
) -> None:
    """Fill in the disruption's root, culprits, confidence, kind and symptom.

    `nearby` hits (nodes of the workload's node pools that ran none of its pods) may only
    explain the chosen root (see `explains`), never be a root on their own. The work is
    proportional to the hits of the disruption's window (the timelines are indexed).
    """
    end = disruption.end + GRACE
    window = hits.between(disruption.window_start, end)
    reporting = reporter_pages(symptoms)
    pointers = [p for hit in window if _points(hit) for p in pointers_of(hit, topology)]
    if any(p.hit.symptom in reporting for p in pointers):
        # A reporter naming the failed hosts knows better than the Job that happened to exit first.
        pointers = [p for p in pointers if "job" not in p.hit.captures]
    disruption.pointers = pointers
    votes: Counter[str] = Counter()
    for pointer in pointers:
        votes[pointer.host] += pointer.weight
    candidates = [
        hit
        for hit in window
        if hit.role == ROOT
        and not hit.shadowed
        and (
            is_infra(hit, symptoms)
            or hit.time < hits.cascading_since(hit, disruption.window_start, end)
        )
        and _not_transient(hit, topology, symptoms)
    ]
    about = _about_all(candidates, reporting, votes, topology)
    pointed = [h for h in candidates if any(votes[x] > 0 for x in about[id(h)])]

    def rank(hit: Hit) -> tuple[float, int, float]:
        return (
            -max((votes[x] for x in about[id(hit)]), default=0.0),
            0 if is_infra(hit, symptoms) else 1,
            hit.time,
        )

    commons = _common_modes(candidates, symptoms, topology, disruption)
    if pointed:
        root = min(pointed, key=rank)
        if root.symptom in commons:
            _set_common(disruption, candidates, root.symptom, "high")
        else:
            _set_root(disruption, root, candidates, about, votes, symptoms, topology, "high")
            disruption.reasoning = _pointer_story(pointers, about[id(root)])
    elif commons:
        _set_common(disruption, candidates, commons[0], "high")
    else:
        fatal = [h for h in candidates if is_seed(h, topology, symptoms)]
        pool = fatal if votes else candidates
        # Pods that never got to run: why they could not be placed (or why they were taken
        # away) comes before anything a running sibling printed while it waited for them.
        waiting = any(_page_kind(h, symptoms) == "scheduling" for h in disruption.seeds)
        placement = ("scheduling", *INTERRUPTION_KINDS)
        if pool:
            root = min(
                pool,
                key=lambda h: (
                    0 if waiting and _page_kind(h, symptoms) in placement else 1,
                    0 if is_infra(h, symptoms) else 1,
                    h.time,
                ),
            )
            confidence = "low" if votes or root not in fatal else "medium"
            _set_root(disruption, root, pool, about, votes, symptoms, topology, confidence)
            disruption.reasoning = (
                "nothing in the logs points to a host; the earliest root match in the window "
                "is taken" + (" although the cascades point elsewhere" if votes else "")
            )
        else:
            _set_inconclusive(disruption, window, votes, topology, symptoms)
    if disruption.root is not None:
        page = symptoms.get(disruption.root.symptom)
        root = disruption.root
        same = [h for h in window if h.symptom == root.symptom and h.host == root.host]
        disruption.kind = kind_of(page, disruption, symptoms, same)
        around = nearby.between(disruption.window_start, end) if nearby else []
        explainer = explanation(disruption.root, candidates + around)
        if explainer is not None and explainer.symptom in commons:
            _set_common(disruption, candidates, explainer.symptom, disruption.confidence)
        elif explainer is not None:
            _set_explained(disruption, explainer, topology)
        disruption.symptom = disruption.root.symptom


def kind_of(
    page: Optional[Symptom], disruption: Disruption, symptoms: dict[str, Symptom], lines: list[Hit]
) -> str:
    """What happened, not only what the page usually means: the page's failure kind (a crash
    when it has none), except that a nominal hang is a crash when a task raised an exception
    (the page's own lines, or any line that started the disruption) and the disruption holds
    a consequence of kind crash (the Job failed): a
    barrier or a save that timed out and threw did not hang, it exited. A hang detector that
    aborts every task (a Megascale digest, then SIGABRT) stays a hang."""
    kind = (page.failure_kind if page else None) or "crash"
    # The tasks that raised may be others than the root's host: a save stuck on throttling on
    # one task makes the others' barrier raise, and the Job fails.
    if (
        kind == "hang"
        and any(RAISED.search(line.quote) for line in [*lines, *disruption.seeds])
        and any(
            h.role == CONSEQUENCE and _page_kind(h, symptoms) == "crash" for h in disruption.seeds
        )
    ):
        return "crash"
    return kind


def _page_kind(hit: Hit, symptoms: dict[str, Symptom]) -> Optional[str]:
    page = symptoms.get(hit.symptom)
    return page.failure_kind if page else None


def _set_explained(disruption: Disruption, explainer: Hit, topology: Topology) -> None:
    """`explainer` is why the chosen root happened: it becomes the root cause, on its own hosts;
    the disruption keeps the kind of what broke."""
    effect = disruption.root
    disruption.root = explainer
    disruption.common_mode = False
    pointed = _by_host(disruption.pointers)
    disruption.culprits = [
        _culprit(host, [explainer], pointed, topology) for host in about_hosts(explainer, topology)
    ]
    disruption.reasoning = (
        f"{explainer.symptom} explains the {effect.symptom if effect else 'failure'} "
        "in the same disruption"
    )


def _points(hit: Hit) -> bool:
    """Whose lines can point elsewhere: cascades, consequences, symptoms, digests with hosts."""
    return hit.role != ROOT or bool(hit.captures)


def pointers_of(hit: Hit, topology: Topology) -> list[Pointer]:
    found: list[Pointer] = []
    captures = hit.captures
    if "task" in captures and captures["task"].isdigit():
        info = topology.pod_for_task(int(captures["task"]), hit.time, hit.pod)
        if info is not None and info.node:
            found.append(Pointer(info.node, info.name, int(captures["task"]), 1.0, hit))
    for key in ("host", "pod"):
        # A digest may name several hosts in one capture ("Potential culprit workers: a, b").
        for name in _NAMES.findall(captures.get(key, "")):
            resolved = resolve_host(name, hit, topology)
            if resolved:
                found.append(Pointer(resolved[0], resolved[1], None, 1.0, hit))
    if "job" in captures:
        pods = [i for i in topology.pods_of_job(captures["job"], hit.time, hit.pod) if i.node]
        found.extend(
            Pointer(i.node or "", i.name, task_of(i, topology), 1.0 / len(pods), hit) for i in pods
        )
    if (
        not found
        and not captures
        and hit.role in (SYMPTOM, CONSEQUENCE)
        and hit.host
        and (hit.resource_type in INFRA_RESOURCES or hit.resource_type == "k8s_pod")
    ):
        found.append(Pointer(hit.host, hit.pod, None, 1.0, hit))
    return found


def resolve_host(name: str, hit: Hit, topology: Topology) -> Optional[tuple[str, Optional[str]]]:
    """(node, pod) for a node name, pod name, hostname or worker address."""
    if name in topology.nodes:
        return name, None
    info = topology.pods.get(name) or topology.pod_for_address(name, hit.time, hit.pod)
    if info is not None:
        return (info.node, info.name) if info.node else None
    return name, None  # an unknown host: named as the log names it


def reporter_pages(symptoms: dict[str, Symptom]) -> set[str]:
    """Pages marked `reporter: true` (a Megascale digest, a session master): their lines are
    printed by a healthy reporter (often task 0) about someone else, so the host that printed
    them is never, by that fact, a culprit."""
    return {page.id for page in symptoms.values() if page.reporter}


def _about_all(
    candidates: list[Hit], reporting: set[str], votes: Counter[str], topology: Topology
) -> dict[int, list[str]]:
    """The hosts each candidate is about.

    A reporter's line that names nobody is about the hosts its fellow lines (same symptom, same
    disruption) name; failing those, the hosts the disruption's other lines point to most; else
    no host at all — never the reporter's own host for the mere fact of printing it. A line
    whose named hosts all went on working afterwards names nobody who broke, and is read the
    same way (a digest that captures its culprit list on its headline, as one record, is then
    read like a headline without one).
    """
    top = max(votes.values(), default=0.0)
    pointed = sorted(host for host, weight in votes.items() if top > 0 and weight == top)
    about = {id(hit): about_hosts(hit, topology) for hit in candidates if hit.captures}
    for hit in candidates:
        if hit.symptom in reporting and hit.captures:
            # A host a report named that went on working afterwards (a missed health check
            # that recovered) is not what broke.
            about[id(hit)] = [h for h in about[id(hit)] if not _worked_on(h, hit.time, topology)]
            if not about[id(hit)]:
                del about[id(hit)]  # it names nobody who broke: read below like an unnamed line
    named: dict[str, list[str]] = {}
    for hit in candidates:
        if hit.symptom in reporting and id(hit) in about:
            hosts = named.setdefault(hit.symptom, [])
            hosts.extend(h for h in about[id(hit)] if h not in hosts)
    for hit in candidates:
        if id(hit) not in about:
            own = [hit.host] if hit.host else []
            about[id(hit)] = (
                (named.get(hit.symptom) or pointed) if hit.symptom in reporting else own
            )
    return about


def _worked_on(host: str, when: float, topology: Topology) -> bool:
    """Whether a workload pod already on `host` at `when` went on logging well after it."""
    return any(
        info.first <= when and info.container_last > when + GRACE for info in topology.pods_on(host)
    )


def about_hosts(hit: Hit, topology: Topology) -> list[str]:
    """The hosts a root match is about: the hosts it names, else the host it came from."""
    named = [p.host for p in pointers_of(hit, topology)] if hit.captures else []
    return named or ([hit.host] if hit.host else [])


def task_of(info: PodInfo, topology: Topology) -> Optional[int]:
    per_slice = topology.hosts_per_slice(info.rjob)
    if info.rjob != topology.main_rjob or per_slice is None or info.coordinates is None:
        return None
    return info.coordinates[1] * per_slice + info.coordinates[2]


def _not_transient(hit: Hit, topology: Topology, symptoms: dict[str, Symptom]) -> bool:
    """A scheduling failure that resolved (the pod ran later) explains nothing."""
    page = symptoms.get(hit.symptom)
    if page is None or page.failure_kind != "scheduling":
        return True
    return is_seed(hit, topology, symptoms)


def _common_modes(
    candidates: list[Hit], symptoms: dict[str, Symptom], topology: Topology, disruption: Disruption
) -> list[str]:
    """The symptoms matched on at least half of the active hosts (and two or more), most hosts
    first, then the earliest first match: a deterministic order, whatever the input order."""
    hosts_by_symptom: dict[str, set[str]] = {}
    first: dict[str, tuple[float, str]] = {}
    for hit in candidates:
        if hit.host and not is_infra(hit, symptoms):
            hosts_by_symptom.setdefault(hit.symptom, set()).add(hit.host)
            first[hit.symptom] = min(
                first.get(hit.symptom, (hit.time, hit.insert_id)), (hit.time, hit.insert_id)
            )
    active = topology.active_nodes(disruption.window_start, disruption.end + GRACE)
    needed = max(2.0, COMMON_MODE_SHARE * max(active, 1))
    common = [s for s, hosts in hosts_by_symptom.items() if len(hosts) >= needed]
    return sorted(common, key=lambda s: (-len(hosts_by_symptom[s]), first[s], s))


def _pod_on(host: str, when: float, topology: Topology) -> Optional[PodInfo]:
    pods = [i for i in topology.pods_on(host) if i.first <= when + GRACE]
    return max(pods, key=lambda i: (i.first, i.name)) if pods else None


def _by_host(pointers: list[Pointer]) -> dict[str, list[Pointer]]:
    grouped: dict[str, list[Pointer]] = {}
    for pointer in pointers:
        grouped.setdefault(pointer.host, []).append(pointer)
    return grouped


def _culprit(
    host: str, hits: list[Hit], pointed: dict[str, list[Pointer]], topology: Topology
) -> Culprit:
    """The culprit on `host`, its pod and task from the pointers to it (`_by_host`) if any."""
    pointers = pointed.get(host, [])
    pointer = next((p for p in pointers if p.pod), None)
    when = hits[0].time if hits else (pointer.hit.time if pointer else 0.0)
    pod_name = pointer.pod if pointer else None
    if pod_name is None:  # a workload pod only: a system pod on the node is not the culprit pod
        pod_name = next((h.pod for h in hits if h.pod in topology.pods and h.host == host), None)
    info = topology.pods.get(pod_name or "") or _pod_on(host, when, topology)
    task = next((p.task for p in pointers if p.task is not None), None)
    if task is None and info is not None:
        task = task_of(info, topology)
    return Culprit(host, info.name if info else pod_name, task, hits)


def _set_root(
    disruption: Disruption,
    root: Hit,
    candidates: list[Hit],
    about: dict[int, list[str]],
    votes: Counter[str],
    symptoms: dict[str, Symptom],
    topology: Topology,
    confidence: str,
) -> None:
    disruption.root = root
    disruption.confidence = confidence
    infra = is_infra(root, symptoms)
    hosts: list[str] = list(about[id(root)])
    chosen = set(hosts)
    own: dict[str, list[Hit]] = {}  # each host's candidates of the root's symptom
    for hit in sorted(candidates, key=lambda h: h.time):
        if hit.symptom != root.symptom:
            continue
        for host in about[id(hit)]:
            own.setdefault(host, []).append(hit)
            if host not in chosen and (infra or votes[host] > 0):
                hosts.append(host)
                chosen.add(host)
    pointed = _by_host(disruption.pointers)
    disruption.culprits = []
    for host in hosts:
        pointer_hits = [p.hit for p in pointed.get(host, [])]
        evidence = _first(own.get(host, []), 1) + _first(pointer_hits, 2)
        disruption.culprits.append(_culprit(host, evidence, pointed, topology))


def _set_common(
    disruption: Disruption, candidates: list[Hit], symptom: str, confidence: str
) -> None:
    same = sorted((h for h in candidates if h.symptom == symptom), key=lambda h: h.time)
    disruption.root = same[0]
    disruption.common_mode = True
    disruption.confidence = confidence
    disruption.culprits = []
    hosts = {h.host for h in same}
    disruption.reasoning = (
        f"the same root match on {len(hosts)} hosts at once: a common cause, no single culprit host"
    )


def _set_inconclusive(
    disruption: Disruption,
    window: list[Hit],
    votes: Counter[str],
    topology: Topology,
    symptoms: dict[str, Symptom],
) -> None:
    disruption.root = None
    disruption.confidence = "low"
    top = max(votes.values(), default=0.0)
    chosen = [host for host, weight in votes.items() if weight == top and top > 0]
    by_host = _by_host(disruption.pointers)
    disruption.culprits = [
        _culprit(host, _first([p.hit for p in by_host[host]], 3), by_host, topology)
        for host in chosen
    ]
    pointed = set(chosen)
    on_pointed = [h for h in window if h.role == SYMPTOM and h.host in pointed]
    symptom_hits = on_pointed or [h for h in disruption.seeds if h.role == SYMPTOM]
    pointing = [p.hit for p in disruption.pointers if p.host in pointed]
    best = (symptom_hits or pointing or disruption.seeds)[0]
    if not symptom_hits and pointing:
        best = Counter(h.symptom for h in pointing).most_common(1)[0][0]
        best = next(h for h in pointing if h.symptom == best)
    disruption.symptom = best.symptom
    page = symptoms.get(best.symptom)
    same = [h for h in window if h.symptom == best.symptom and h.host == best.host]
    disruption.kind = kind_of(page, disruption, symptoms, same)
    named = ", ".join(chosen) if chosen else "no host"
    disruption.reasoning = (
        f"only {best.role} evidence: the lines point to {named}, where no root cause was found "
        "in the logs"
    )
    if best.inferred:
        disruption.reasoning = (
            "the step lines stop at the cited line while the containers keep logging, and "
            "nothing in the logs says why"
        )


def _pointer_story(pointers: list[Pointer], root_hosts: list[str]) -> str:
    on_host = [p for p in pointers if p.host in root_hosts]
    if not on_host:
        return "root cause on the host the logs point to"
    kinds = Counter(p.hit.symptom for p in on_host)
    named = ", ".join(f"{count} {symptom} line(s)" for symptom, count in kinds.most_common())
    return f"{named} point to this host; the earliest root match there is taken"


def _first(hits: Iterable[Hit], count: int) -> list[Hit]:
    return sorted(hits, key=lambda h: (h.time, h.insert_id))[:count]
