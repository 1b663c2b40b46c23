"""The filters of the live collection plan, and the rule that says which filters they cover.

Cloud Logging allows about 60 entries.list calls a minute per project, 1,000 entries a page and
20,000 characters a filter, so a run's cost must follow the evidence, not the log volume. The
plan asks only for what the diagnosis uses (`mlwiki.logs.live` runs it, phase by phase):

- **platform** — the small, decisive sources, whole: Kubernetes events about the workload's
  objects and about nodes, the Compute Engine system-event audit log, the cluster autoscaler's
  visibility log, node-pool and cluster operations, and the batch controllers' lines that name
  the workload (JobSet, Kueue, LWS, KubeRay: `mlwiki.logs.namespaces`) (`platform_filter`).
- **big sources** — the workload's containers (`workload_containers`) and the infrastructure's
  text (`infrastructure_text`: node logs, system-namespace pods such as the TPU device plugin,
  serial consoles), selected by resource type, log id and namespace — never by lists of host
  names. Read whole while they fit their budget share; past it, *pushed down*:
- **evidence** — entries whose text fields match the wiki's signatures (the very RE2 patterns of
  the diagnosis' `SignatureSet`) or a start-up line that gives the task → pod → node map
  (`STARTUP_PATTERNS`), as `FIELD=~"p1|p2|…"` alternations packed by `pack_text_filters` into
  as few filters as the 20,000-character limit allows;
- **progress** — the workload's step lines (`STEP_PATTERN`, the template reader's own) and a
  uniform pulse of its lines, by server-side `sample(insertId, F)`, plus the newest page of each.
- **follow-up** — full context of a few culprit hosts around each disruption (`context_filter`),
  and which of the workload's pods ran on a host the platform flagged (`placement_filter`).

`workload_selector` renders the one rule of which entries are the workload's
(`mlwiki.logs.workload`).

**Coverage rule.** A filter is covered — answered from the fetched entries with no call — when
its time bounds lie inside the windows of sources that were read whole and the syntax shows that
it selects nothing those sources do not: the whole filter inside one source, or else each of its
cases — its first OR split term by term, again until each case is inside one source
(`_covered`, at most `MAX_SPLITS` splits; `within` compares as parsed, so spacing and quoting do
not matter). Anything else is fetched once with its own filter, bounded by the run's window,
counted in the report, and its entries are added to the store; the same filter is never fetched
twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import re2

from mlwiki.errors import BadInput
from mlwiki.logs.entry import NODE_LABEL
from mlwiki.logs.namespaces import CONTROLLER_NAMESPACES, SYSTEM_NAMESPACES
from mlwiki.logs.query import And, Call, Compare, Filter, Node, Not, Or, compile_filter, quote
from mlwiki.logs.workload import selector_clauses
from mlwiki.timewindow import Window

MAX_FILTER_CHARS = 20_000  # the API's limit, time bounds included
CLUSTER_LOG_IDS = (
    "cloudaudit.googleapis.com/system_event",
    "container.googleapis.com/cluster-autoscaler-visibility",
)
SERIAL_CONSOLE = "serialconsole.googleapis.com/serial_port_1_output"
# The message fields (`mlwiki.wiki.MESSAGE_FIELDS`) the pushed-down evidence searches. Not the
# structured loggers' `jsonPayload.msg`/`error`/`err`: they are the Go controllers' (JobSet,
# Kueue, controller-runtime), whose namespaces are neither big source, and each field searched
# costs as many filters again (about four per field for the wiki's ~600 patterns), which the
# evidence phase's share of the budget cannot pay; sources read whole are matched on them all.
CONTAINER_TEXT_FIELDS = ("textPayload", "jsonPayload.message")
NODE_TEXT_FIELDS = ("textPayload", "jsonPayload.MESSAGE", "jsonPayload.message")
# A JAX process declaring its id at start-up (`process_id=3`, `process index: 3`), and the
# distributed runtime starting: each pod's first lines, so even a pod that printed nothing the
# signatures know is placed (task → pod → node) — the topology reader's own process-id rule.
STARTUP_PATTERNS = (
    r"\bprocess[_ ](?:id|index)\b\s*[=:]?\s*[0-9]+",
    r"(?:Starting|Connecting to) JAX distributed service",
    r"jax\.distributed\.initialize",
)
# Seconds of a culprit's logs fetched before a disruption and after its last seed: the
# diagnosis' look-back for a root cause and the margin of the verification workflows, so their
# per-host steps are answered from this context with no call of their own.
CONTEXT_BEFORE = 900.0
CONTEXT_AFTER = 600.0


@dataclass(frozen=True)
class PlannedQuery:
    """A server-side query: a name for reports and its filter (without the time bounds)."""

    name: str
    filter: str


def _field(*parts: str) -> str:
    return ".".join(part if part.replace("_", "").isalnum() else quote(part) for part in parts)


def workload_selector(workload: str) -> str:
    """Entries of the workload, by the shared rule of `mlwiki.logs.workload` (owner labels in
    both spellings GKE writes, a pod named exactly like it or `WORKLOAD-…`): the same text the
    workflows' `workload_selector()` renders, so the plan's entries answer their queries."""
    return "(" + " OR ".join(selector_clauses(workload, quote)) + ")"


def workload_containers(workload: str) -> str:
    return f'resource.type="k8s_container" AND {workload_selector(workload)}'


def platform_filter(workload: str) -> str:
    """Events about the workload's objects (pods, Jobs, the JobSet, its Kueue Workload) and about
    nodes; the Compute Engine system events and the autoscaler's log; node-pool and cluster
    operations; the batch controllers' lines that name the workload. Small whatever the job's
    size; read whole, first."""
    events = (
        f'(log_id("events") OR resource.type="k8s_pod") AND '
        f"(jsonPayload.involvedObject.name:{quote(workload)} OR "
        f'{workload_selector(workload)} OR resource.type="k8s_node" OR '
        'jsonPayload.involvedObject.kind="Node")'
    )
    controllers = "(" + " OR ".join(quote(n) for n in CONTROLLER_NAMESPACES) + ")"
    clauses = [f"({events})", *(f"log_id({quote(i)})" for i in CLUSTER_LOG_IDS)]
    clauses.append('resource.type=("gke_nodepool" OR "gke_cluster")')
    clauses.append(
        f'(resource.type="k8s_container" AND resource.labels.namespace_name={controllers} '
        f"AND SEARCH({quote(workload)}))"
    )
    return " OR ".join(clauses)


def infrastructure_text() -> str:
    """What the nodes and the system pods on them print (kubelet, node-problem-detector, the TPU
    device plugin, serial consoles), project-wide: found by resource type, log id and namespace,
    so a thousand-node job needs no list of host names."""
    namespaces = "(" + " OR ".join(quote(n) for n in SYSTEM_NAMESPACES) + ")"
    return (
        'resource.type="k8s_node" OR '
        f'(resource.type="k8s_container" AND resource.labels.namespace_name={namespaces}) OR '
        f"log_id({quote(SERIAL_CONSOLE)})"
    )


# The template reader's step-number rule (`mlwiki.diagnose.progress`), for the server.
STEP_PATTERN = r"\b[Ss]tep\b\s*[:=#]?\s*[0-9]+"


def step_lines(workload: str) -> str:
    alternation = quote(STEP_PATTERN)
    return (
        f"{workload_containers(workload)} AND "
        + "("
        + " OR ".join(f"{path}=~{alternation}" for path in CONTAINER_TEXT_FIELDS)
        + ")"
    )


def fraction_text(fraction: float) -> str:
    """A fraction as the query language reads it: plain decimals, never `1e-05`."""
    text = f"{fraction:.9f}".rstrip("0").rstrip(".")
    return text if text not in ("", "0") else "0.000000001"


def sampled(filter_text: str, fraction: float) -> str:
    return f"({filter_text}) AND sample(insertId, {fraction_text(fraction)})"


def context_about(target: ContextTarget) -> str:
    """Everything a target's hosts (and pods) wrote or had written about them."""
    hosts = "(" + " OR ".join(quote(h) for h in target.hosts) + ")"
    about = [
        f"{_field('labels', NODE_LABEL)}={hosts}",
        f"resource.labels.node_name={hosts}",
        f"jsonPayload.involvedObject.name={hosts}",
    ]
    if target.pods:
        about.append(
            "resource.labels.pod_name=(" + " OR ".join(quote(p) for p in target.pods) + ")"
        )
    return " OR ".join(about)


def context_filter(targets: Sequence[ContextTarget]) -> str:
    """The culprit hosts' full context, each around its own disruption."""
    return " OR ".join(f"({t.window.to_filter()} AND ({context_about(t)}))" for t in targets)


@dataclass(frozen=True)
class ContextTarget:
    """A disruption's culprit hosts (node names) and pods, and the window around it; `placed`
    are hosts the platform flagged whose workload pod (if any) is still to be found."""

    hosts: tuple[str, ...]
    pods: tuple[str, ...]
    window: Window
    placed: tuple[str, ...] = ()
    failed_at: Optional[int] = None  # ns: the disruption's first seed (where progress is asked)


def placement_filter(workload: str, hosts: Sequence[str]) -> str:
    """The workload's container lines on these nodes: which of its pods ran there, if any."""
    group = "(" + " OR ".join(quote(h) for h in hosts) + ")"
    return f"{workload_containers(workload)} AND {_field('labels', NODE_LABEL)}={group}"


# --- signatures as server-side alternations ------------------------------------------------------


@dataclass(frozen=True)
class TextTarget:
    """A text field searched server-side, within the entries a scope selects."""

    scope: str
    field: str


def text_patterns(symptoms: Iterable[Any]) -> tuple[list[str], list[tuple[str, str]]]:
    """The signatures of `symptoms` (the diagnosis' `SignatureSet.symptoms.values()`) as RE2
    patterns for the server: those searched in every message field, and (field, pattern) pairs
    of those that name their own field. Group names are stripped (Cloud Logging ignores them);
    a pattern RE2 rejects is left out, as the signature set leaves it out."""
    from mlwiki.engine.render import strip_group_names

    anywhere: list[str] = []
    own_field: list[tuple[str, str]] = []
    for symptom in symptoms:
        for signature in symptom.signatures:
            try:
                re2.compile(signature.pattern)
            except re2.error:
                continue
            pattern = strip_group_names(signature.pattern)
            if signature.field:
                own_field.append((signature.field, pattern))
            elif pattern not in anywhere:
                anywhere.append(pattern)
    return anywhere, own_field


def _alternative(pattern: str) -> str:
    """One member of an alternation, in its own group so a `(?i)` stays local."""
    return f"(?:{pattern})"


@dataclass
class _Clause:
    prefix: str  # `(SCOPE) AND FIELD=~`
    patterns: list[str] = field(default_factory=list)
    size: int = 0  # characters of the quoted alternation, quotes included

    def text(self) -> str:
        alternation = "|".join(_alternative(p) for p in self.patterns)
        return f"({self.prefix}{quote(alternation)})"

    @staticmethod
    def cost(pattern: str, first: bool) -> int:
        # quote() escapes each character on its own: the escaped member's length, plus a `|`.
        return len(quote(_alternative(pattern))) - 2 + (0 if first else 1)


def pack_text_filters(
    targets: Sequence[TextTarget], patterns: Sequence[str], reserved: int
) -> list[str]:
    """Filters that together select every entry in which a target's field matches a pattern,
    each at most `MAX_FILTER_CHARS` once `reserved` characters (the time bounds) are added.

    Per field, the scopes that search it are OR'ed and the patterns are cut, in order, into
    `FIELD=~"(?:p1)|(?:p2)|…"` alternations as long as the limit allows; the clauses are then
    merged, first fit, into as few filters as the limit allows. A pattern too long for a filter
    on its own is a BadInput (the wiki's signature is unusable server-side).
    """
    by_field: dict[str, list[str]] = {}
    for target in targets:
        scopes = by_field.setdefault(target.field, [])
        if target.scope not in scopes:
            scopes.append(target.scope)
    room = MAX_FILTER_CHARS - reserved
    clauses: list[_Clause] = []
    for path, scopes in by_field.items():
        prefix = f"({' OR '.join(f'({s})' for s in scopes)}) AND {path}=~"
        current = _Clause(prefix)
        for pattern in patterns:
            extra = _Clause.cost(pattern, not current.patterns)
            if current.patterns and len(prefix) + 4 + current.size + extra > room:
                clauses.append(current)
                current = _Clause(prefix)
                extra = _Clause.cost(pattern, True)
            if len(prefix) + 4 + extra > room:
                raise BadInput(
                    f"signature {pattern[:80]!r}…: too long for a Cloud Logging filter "
                    f"({MAX_FILTER_CHARS} characters)"
                )
            current.patterns.append(pattern)
            current.size += extra
        if current.patterns:
            clauses.append(current)
    filters: list[list[str]] = []
    sizes: list[int] = []
    for clause in sorted(clauses, key=lambda c: -len(c.text())):
        text = clause.text()
        for number, size in enumerate(sizes):
            if size + 4 + len(text) <= room:
                filters[number].append(text)
                sizes[number] += 4 + len(text)
                break
        else:
            filters.append([text])
            sizes.append(len(text))
    packed = [" OR ".join(parts) for parts in filters]
    assert all(len(text) <= room for text in packed), "packing overran the filter limit"
    return packed


def own_field_filters(scope: str, pairs: Sequence[tuple[str, str]]) -> str:
    """Signatures that name their own field (a method name, an event reason), one clause each."""
    return (
        f"({scope}) AND ("
        + " OR ".join(f"{path}=~{quote(pattern)}" for path, pattern in pairs)
        + ")"
    )


def wrapped(window: Window, filter_text: str) -> str:
    """The filter as sent: explicit time bounds on both sides (the client otherwise adds a 24 h
    window of its own), then the query in parentheses."""
    return f"{window.to_filter()} AND (\n{filter_text}\n)"


# --- coverage ------------------------------------------------------------------------------------


def within(node: Node, clause: Node) -> bool:
    """Whether every entry `node` matches also matches `clause`, as far as the syntax shows: equal
    (as parsed), a term of an AND inside the clause, inside one term of an OR clause, inside every
    term of an AND clause, every term of an OR inside it, one log id inside `NOT` another, or a
    `field:"text"` / `field="text"` whose text contains the needle of a clause
    `field:"needle"`."""
    if node == clause:
        return True
    if isinstance(clause, Or) and any(within(node, item) for item in clause.items):
        return True
    if isinstance(clause, And) and all(within(node, item) for item in clause.items):
        return True
    if isinstance(node, And) and any(within(item, clause) for item in node.items):
        return True
    if isinstance(node, Or) and all(within(item, clause) for item in node.items):
        return True
    if isinstance(clause, Not) and isinstance(node, Call) and isinstance(clause.item, Call):
        # `log_id("kubelet")` selects nothing of `log_id("events")`: inside `NOT log_id("events")`.
        other = clause.item
        return node.name == other.name == "log_id" and node.args != other.args
    return (
        isinstance(node, Compare)
        and isinstance(clause, Compare)
        and node.op in (":", "=")
        and clause.op == ":"
        and node.path == clause.path
        and clause.value.text.lower() in node.value.text.lower()
    )


@dataclass
class Coverage:
    """What the fetched entries answer: each source read whole, inside the window it was read for."""

    window: Window
    _parts: list[tuple[Window, Node]] = field(default_factory=list)

    def add(self, query: PlannedQuery, window: Window | None = None) -> None:
        """Everything the query matches inside `window` (default the run's) is in the store."""
        self._parts.append((window or self.window, compile_filter(query.filter).tree))

    def covers(self, compiled: Filter) -> bool:
        """Whether every entry the filter selects is in the store, judged against the sources read
        whole for the filter's time bounds (`_covered`)."""
        low, high = compiled.start_ns, compiled.end_ns
        if low is None or high is None:
            return False
        trees = [
            tree for window, tree in self._parts if window.start_ns <= low and high <= window.end_ns
        ]
        return bool(trees) and _covered(compiled.tree, trees)


MAX_SPLITS = 256  # a filter needing more case splits to be judged is fetched, not analysed


def _covered(node: Node, trees: Sequence[Node]) -> bool:
    """Whether the filter is inside the union of `trees`: the filter inside one of them; else,
    splitting its first OR (an OR term by term, an AND by the cases of its first OR term), every
    case covered — lazily, so a workflow step ANDing the workload's selector (nine alternatives)
    with signature fields is judged in a few splits instead of spreading into hundreds of
    branches. Gives up (not covered) after `MAX_SPLITS` splits."""
    splits = [MAX_SPLITS]

    def covered(part: Node) -> bool:
        if any(within(part, tree) for tree in trees):
            return True
        splits[0] -= 1
        if splits[0] < 0:
            return False
        if isinstance(part, Or):
            return all(covered(item) for item in part.items)
        if isinstance(part, And):
            for index, item in enumerate(part.items):
                if isinstance(item, Or):
                    rest = part.items[:index], part.items[index + 1 :]
                    return all(covered(_and(*rest[0], case, *rest[1])) for case in item.items)
        return False

    return covered(node)


def _and(*items: Node) -> And:
    """An AND of `items`, nested ANDs spliced in (so their ORs are split like the others)."""
    flat: list[Node] = []
    for item in items:
        flat.extend(item.items if isinstance(item, And) else (item,))
    return And(tuple(flat))
