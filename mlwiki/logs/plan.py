"""The broad collection plan for one run, and the rule that says which filters it covers.

Cloud Logging allows about 60 list calls a minute per project, so a run never sends one query
per action. It fetches its window once with a few broad, server-side-filtered queries and then
evaluates every action's filter locally on the fetched entries:

1. `workload` — the workload's container logs and every event about its objects: the JobSet
   label in both spellings, a pod name starting with `WORKLOAD-`, or an event whose
   `involvedObject.name` contains the workload name (pods, Jobs, the JobSet, its Kueue Workload).
2. `nodes` — for the nodes learned from (1): node logs (`resource.labels.node_name`), node
   events (`involvedObject.name`), everything on those VMs (`labels."compute.googleapis.com/
   resource_name"`, e.g. the TPU device plugin and serial console, less the workload's own
   containers already fetched) and their Compute Engine audit entries (`protoPayload.resourceName`). Split into several queries when the host list would
   make a filter longer than the API's 20,000 characters.
3. `cluster` — Compute Engine system events (preemption, host error, maintenance) and the
   cluster autoscaler's visibility log, for the whole project.

**Coverage rule.** Each plan query is an OR of clauses. A filter is covered — answered from the
fetched entries with no call — when its time bounds lie inside the run's window and it is
implied by those clauses in a way that can be checked from its syntax: one of its top-level AND
terms is a plan clause (compared as parsed, so spacing and quoting do not matter), a
`field:"text"` or `field="text"` whose text contains the needle of a plan clause `field:"needle"`,
or an OR whose every term is covered. Anything else (e.g. a cluster-wide event search) is fetched once
with its own filter, bounded by the run's window, counted in the report, and its entries are
added to the store; the same filter is never fetched twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mlwiki.logs.entry import NODE_LABEL
from mlwiki.logs.query import And, Compare, Filter, Node, Or, compile_filter, quote
from mlwiki.logs.workload import selector_clauses
from mlwiki.timewindow import Window

MAX_FILTER_CHARS = 18_000  # the API's limit is 20,000; leave room for the time bounds
CLUSTER_LOG_IDS = (
    "cloudaudit.googleapis.com/system_event",
    "container.googleapis.com/cluster-autoscaler-visibility",
)


@dataclass(frozen=True)
class PlannedQuery:
    """A server-side query; `also_covers` names what it covers together with earlier queries."""

    name: str
    filter: str
    also_covers: str = ""


def _field(*parts: str) -> str:
    return ".".join(part if part.replace("_", "").isalnum() else quote(part) for part in parts)


def workload_query(workload: str) -> PlannedQuery:
    """The workload's entries by the shared rule of `mlwiki.logs.workload` (owner labels, a pod
    named exactly like it or `WORKLOAD-…`), plus every event whose object names it."""
    clauses = selector_clauses(workload, quote)
    clauses.append(f"jsonPayload.involvedObject.name:{quote(workload)}")
    return PlannedQuery("workload", " OR ".join(clauses))


def _node_query(name: str, hosts: list[str], workload: str) -> PlannedQuery:
    group = "(" + " OR ".join(quote(host) for host in hosts) + ")"
    on_vm = f"{_field('labels', NODE_LABEL)}={group}"
    # The workload's own containers on those VMs came with the workload query: not again.
    others_on_vm = f"({on_vm} AND NOT ({workload_query(workload).filter}))"
    clauses = [
        f"resource.labels.node_name={group}",
        f"jsonPayload.involvedObject.name={group}",
        f"protoPayload.resourceName:{group}",
        others_on_vm,
    ]
    return PlannedQuery(name, " OR ".join(clauses), also_covers=on_vm)


def node_queries(
    hosts: Iterable[str], workload: str, max_chars: int = MAX_FILTER_CHARS
) -> list[PlannedQuery]:
    """Queries for the nodes' own logs, as few as the filter-length limit allows."""
    chunks: list[list[str]] = []
    for host in sorted(set(hosts)):
        if chunks and len(_node_query("", [*chunks[-1], host], workload).filter) <= max_chars:
            chunks[-1].append(host)
        else:
            chunks.append([host])
    return [
        _node_query("nodes" if len(chunks) == 1 else f"nodes-{number}", chunk, workload)
        for number, chunk in enumerate(chunks, start=1)
    ]


def cluster_query() -> PlannedQuery:
    return PlannedQuery("cluster", " OR ".join(f"log_id({quote(i)})" for i in CLUSTER_LOG_IDS))


def _disjuncts(node: Node) -> Iterable[Node]:
    if isinstance(node, Or):
        for item in node.items:
            yield from _disjuncts(item)
    else:
        yield node


@dataclass
class Coverage:
    """What the fetched entries answer: the plan's clauses inside the run's window."""

    window: Window
    clauses: set[Node] = field(default_factory=set)
    # path -> lower-cased needles of covered `path:"needle"` clauses
    substrings: dict[tuple[str, ...], list[str]] = field(default_factory=dict)

    def add(self, query: PlannedQuery) -> None:
        """Everything the query matches (inside the window) is now in the store."""
        for text in (query.filter, query.also_covers):
            if text:
                tree = compile_filter(text).tree
                self.clauses.add(tree)
                for clause in _disjuncts(tree):
                    self.clauses.add(clause)
                    if isinstance(clause, Compare) and clause.op == ":":
                        needles = self.substrings.setdefault(clause.path, [])
                        needles.append(clause.value.text.lower())

    def _implied(self, node: Node) -> bool:
        if node in self.clauses:
            return True
        if isinstance(node, Compare) and node.op in (":", "="):
            # A field equal to, or containing, "llm-pretrain-slice-1" contains "llm-pretrain-".
            value = node.value.text.lower()
            return any(needle in value for needle in self.substrings.get(node.path, ()))
        if isinstance(node, And):
            return any(self._implied(item) for item in node.items)
        if isinstance(node, Or):
            return all(self._implied(item) for item in node.items)
        return False

    def covers(self, compiled: Filter) -> bool:
        inside = (
            compiled.start_ns is not None
            and compiled.end_ns is not None
            and compiled.start_ns >= self.window.start_ns
            and compiled.end_ns <= self.window.end_ns
        )
        return inside and self._implied(compiled.tree)
