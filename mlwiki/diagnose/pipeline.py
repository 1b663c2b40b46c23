"""One diagnosis, end to end: collect → match (one pass) → disruptions → triage → findings →
metrics (`metric_evidence`: duty cycle where the logs are silent; memory before an OOM) → verify →
report.

Python's cycle collector stays paused for the whole diagnosis, not only the pass
(`collector_paused`), and what the diagnosis keeps (matched entries, hits: hundreds of thousands
of containers in a noisy run) is then aged into the oldest generation at once
(`gc.freeze()` + `gc.unfreeze()`). Otherwise the first collections after the pass walk every
object it kept, young generation after young generation: 0.4 s of a noisy run's 4 s. Nothing is
left frozen, so a long-lived caller (the MCP server) still collects the cycles it makes.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from mlwiki.diagnose.clock import iso
from mlwiki.diagnose.collect import (
    Collection,
    context_targets,
    from_bundle,
    from_cloud,
    record_windows,
    session_of,
)
from mlwiki.diagnose.context import apply_place, learn_place, settle_next_steps
from mlwiki.diagnose.continuation import read_records
from mlwiki.diagnose.disruptions import Disruption, find_disruptions, is_seed, stall_hit
from mlwiki.diagnose.findings import Context, build_findings, ensure_valid
from mlwiki.diagnose.match import Scan, collector_paused
from mlwiki.diagnose.metric_evidence import amend as amend_with_metrics
from mlwiki.diagnose.metric_evidence import read_duty
from mlwiki.diagnose.metric_memory import amend_memory
from mlwiki.diagnose.printed import cite_printed
from mlwiki.diagnose.report import render_report
from mlwiki.diagnose.signatures import signature_set
from mlwiki.diagnose.timeline import Timeline
from mlwiki.diagnose.topology import Topology
from mlwiki.diagnose.triage import triage
from mlwiki.diagnose.verify_workflows import WorkflowVerifier
from mlwiki.timewindow import Window
from mlwiki.wiki import Wiki, load_wiki

EVENT_LOG = "/logs/events"
GCE_AUDIT = "cloudaudit.googleapis.com%2Fsystem_event"


@dataclass
class Diagnosis:
    """The result of `diagnose`: findings (schema-valid dict), the Markdown report, the entries."""

    findings: dict[str, Any]
    cited_entries: dict[str, dict[str, Any]]  # evidence id → the full log entry it quotes
    disruptions: list[Disruption] = field(default_factory=list)
    scan: Optional[Scan] = None
    healthy: list[str] = field(default_factory=list)  # the report's "checked and found healthy"

    @functools.cached_property
    def report_markdown(self) -> str:
        """The full report, rendered when first asked for: the CLI and the MCP tools render
        their own (bounded, redacted) view of the findings instead."""
        return render_report(self.findings, self.healthy)


def analyse(
    wiki: Wiki,
    workload: str,
    source: Collection,
    *,
    project: Optional[str] = None,
    verify: bool = True,
) -> Diagnosis:
    """Diagnose `workload` from the entries of `source` (one pass over them)."""
    with collector_paused(age_survivors=True):
        return _analyse(wiki, workload, source, project=project, verify=verify)


def _analyse(
    wiki: Wiki,
    workload: str,
    source: Collection,
    *,
    project: Optional[str],
    verify: bool,
) -> Diagnosis:
    symptoms = wiki.symptoms
    scan = Scan(signature_set(symptoms.values()), Topology(workload), store=source.store)
    if verify:  # the verification queries' symptom_match clauses, answered by this pass
        source.store.answer_patterns(scan.signatures.query_patterns())
    scan.add_all(source.entries)
    scan.finish()
    read_records(scan, source.store)
    hits = scan.relevant_hits()
    stall = stall_hit(scan, [h for h in hits if is_seed(h, scan.topology, symptoms)], symptoms)
    if stall is not None:
        hits.append(stall)
    disruptions = find_disruptions(hits, scan.topology, symptoms)
    timeline, nearby = Timeline(hits), Timeline(scan.pool_hits())
    for disruption in disruptions:
        triage(disruption, timeline, scan.topology, symptoms, nearby)
    # When the live plan pushed its sources down: fetch the culprits' full context around each
    # disruption and the rest of the records unnamed matches belong to, then diagnose again
    # over everything read (liveness near a failure exact, cascades naming their task).
    if (
        source.follow_up is not None
        and disruptions
        and source.follow_up(context_targets(disruptions, scan), record_windows(scan))
    ):
        return analyse(wiki, workload, source.refreshed(), project=project, verify=verify)
    topology = scan.topology
    if source.window:
        window = source.window
    elif scan.count:
        window = (topology.first, topology.last)
    else:  # an empty bundle has no time range of its own: say when it was read
        window = (time.time(), time.time())
    missing = data_gaps(scan, disruptions)
    if not scan.count:
        missing.insert(0, "no log entries at all in the data read")
    if source.outside:
        count, first, last = source.outside
        missing.append(
            f"{int(count)} entries of the bundle fall outside the window (they span "
            f"{iso(first)} → {iso(last)}): widen --start/--end/--since"
        )
    partial, reasons = source.partial, list(source.reasons)
    if not disruptions and not any(
        i.container_last > float("-inf") for i in topology.pods.values()
    ):
        # Silence is not health: without the workload's own logs nothing can be called healthy.
        partial = True
    context = Context(workload, project, window, source.sources, partial, reasons)
    findings, evidence = build_findings(wiki, scan, disruptions, context, missing)
    metrics = source.metrics
    if metrics is not None:  # workflows' metric steps see the pods' nodes the logs name
        metrics.pod_nodes = {p: i.node for p, i in topology.pods.items() if i.node}
    amend_with_metrics(wiki, findings, read_duty(wiki, metrics, workload, window, topology))
    amend_memory(wiki, findings, disruptions, metrics, window, topology)
    if verify and disruptions:
        WorkflowVerifier(wiki, session_of(source), workload, project, source.bundle, metrics)(
            findings, disruptions
        )
    findings["data"]["problems"] = list(scan.signatures.problems)
    findings["data"]["sampled"] = [dict(item) for item in source.sampled]
    if source.session is not None and source.session.live is not None:
        findings["data"]["collection"] = collection_summary(source.session.report)
    if source.rerun:
        findings["next_steps"].insert(
            0,
            {
                "step": "Complete the partial log collection (pages already fetched come from "
                f"the page cache and cost no quota): {source.rerun}",
            },
        )
    printed = cite_printed(findings, scan, source.store)
    cited = {eid: scan.entries[hit.index] for eid, hit in evidence.hits.items()}
    cited.update(printed)
    place = learn_place([*cited.values(), *scan.entries.places()])
    apply_place(findings, place)
    settle_next_steps(wiki, findings, place)
    ensure_valid(wiki, findings)
    healthy = healthy_notes(scan, disruptions)
    return Diagnosis(findings, cited, disruptions, scan, healthy)


def collection_summary(report: Any) -> dict[str, Any]:
    """How the live plan read the logs, compact: requests sent and each query's pages."""
    return {
        "requests": report.calls,
        "pages": sum(q.pages for q in report.queries),
        "cached_pages": sum(q.cached for q in report.queries),
        "queries": [
            {
                "name": q.name,
                "phase": q.phase,
                "pages": q.pages,
                "entries": q.entries,
                "partial": q.partial,
            }
            for q in report.queries
        ],
    }


def data_gaps(scan: Scan, disruptions: list[Disruption]) -> list[str]:
    """What the data lacks that the diagnosis would have used."""
    topology = scan.topology
    gaps: list[str] = []
    containers = [i for i in topology.pods.values() if i.container_last > float("-inf")]
    if not containers:
        gaps.append(f"no container log entries of workload {topology.workload!r}")
    kinds = scan.resource_types
    if not (kinds.get("k8s_pod") or kinds.get("k8s_cluster")):
        gaps.append("no Kubernetes events (log events) for pods or the JobSet")
    if not kinds.get("k8s_node"):
        gaps.append("no node logs or node events (k8s_node)")
    if not kinds.get("gce_instance"):
        gaps.append("no Compute Engine system events (gce_instance audit log)")
    for disruption in disruptions:
        for culprit in disruption.culprits:
            node = topology.nodes.get(culprit.host)
            pod = topology.pods.get(culprit.pod or "")
            if (node is None or node.entries == 0) and (
                pod is None or pod.container_last == float("-inf")
            ):
                named = f"node {culprit.host}" + (f" (pod {culprit.pod})" if culprit.pod else "")
                gaps.append(f"no log entries at all from {named}, which the logs point to")
    return gaps


def healthy_notes(scan: Scan, disruptions: list[Disruption]) -> list[str]:
    topology = scan.topology
    blamed = {c.host for d in disruptions for c in d.culprits}
    nodes = {i.node for i in topology.pods.values() if i.node}
    matched_nodes = {hit.host for hit in scan.hits if hit.host and hit.role == "root"}
    clean = sorted(nodes - blamed - matched_nodes)
    notes = [
        f"{scan.count} log entries read in one pass against {len(scan.signatures)} signatures "
        f"of {len(scan.signatures.symptoms)} symptom pages; {len(scan.entries)} entries matched.",
        f"{len(topology.pods)} pods of the workload on {len(nodes)} nodes"
        + (
            f" ({topology.slices} slice(s) × {topology.hosts_per_slice()} hosts)"
            if topology.hosts_per_slice()
            else ""
        )
        + ".",
        f"{len(clean)} of {len(nodes)} nodes show no root-cause match at all.",
    ]
    kinds = ", ".join(f"{k or 'unknown'}: {v}" for k, v in sorted(scan.resource_types.items()))
    if kinds:
        notes.append(f"Entries by resource type — {kinds}.")
    return notes


def diagnose(
    workload: str,
    *,
    project: Optional[str] = None,
    window: Optional[Window] = None,
    bundle: Optional[Path | str] = None,
    wiki: Optional[Wiki] = None,
    verify: bool = True,
    max_log_calls: Optional[int] = None,
    max_entries: Optional[int] = None,
) -> Diagnosis:
    """Diagnose `workload` from an offline bundle or Cloud Logging (see the package docstring)."""
    wiki = wiki or load_wiki()
    if bundle is not None:
        collection = from_bundle(bundle, window)
    else:
        collection = from_cloud(
            workload,
            project,
            window,
            max_calls=max_log_calls,
            max_entries=max_entries,
            wiki=wiki,
        )
    return analyse(wiki, workload, collection, project=project, verify=verify)
