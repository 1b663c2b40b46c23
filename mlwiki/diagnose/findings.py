"""Findings (`_wiki/schemas/findings.schema.json`) from the triaged disruptions.

Every conclusion cites evidence ids; every evidence item quotes, verbatim, the entry it names.
The headline is one disruption: the one that ended the run when the run ended in failure
(`disruptions.ending_disruption`: its Job(Set) failed, it reached max restarts, nothing ran
after it), else the first that has a root cause. `root_cause` is the headline's root cause —
none, and the status `inconclusive`, when the disruption that ended the run has none, whatever
the run survived before — and `culprit_hosts` are the headline's culprits (for an unexplained
headline, the hosts its lines point to). The failure table holds every disruption, each row with
its own host; an unexplained row has no symptom (its cascade lines stay in its evidence).
The findings are validated against the schema before anyone sees them.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.diagnose.clock import iso
from mlwiki.diagnose.disruptions import Disruption, ending_disruption
from mlwiki.diagnose.match import Hit, Scan
from mlwiki.errors import MlwikiError
from mlwiki.schemas import FINDINGS, error_path, errors
from mlwiki.wiki import Wiki

CONFIDENCE_ORDER = ("low", "medium", "high")
MAX_POINTER_EVIDENCE = 3


@dataclass
class Evidence:
    """Evidence ids handed out in citation order; one id per (entry, symptom)."""

    items: list[dict[str, Any]] = field(default_factory=list)
    hits: dict[str, Hit] = field(default_factory=dict)
    _ids: dict[tuple[int, str], str] = field(default_factory=dict)

    def cite(self, hit: Hit) -> str:
        key = (hit.index, hit.symptom)
        if key not in self._ids:
            evidence_id = f"E{len(self.items) + 1}"
            self._ids[key] = evidence_id
            self.hits[evidence_id] = hit
            self.items.append(
                {
                    "id": evidence_id,
                    "insertId": hit.insert_id,
                    "timestamp": hit.timestamp,
                    "logName": hit.log_name,
                    "host": hit.host,
                    "pod": hit.pod,
                    "symptom": hit.symptom,
                    "quote": hit.quote,
                }
            )
            if hit.record:
                self.items[-1]["record"] = list(hit.record)
            if hit.excerpt and hit.excerpt != hit.quote:
                self.items[-1]["excerpt"] = hit.excerpt
        return self._ids[key]

    def cite_all(self, hits: list[Hit]) -> list[str]:
        ids: list[str] = []
        for hit in hits:
            evidence_id = self.cite(hit)
            if evidence_id not in ids:
                ids.append(evidence_id)
        return ids


@dataclass
class Context:
    workload: str
    project: Optional[str]
    window: tuple[float, float]
    sources: list[str]
    partial: bool
    reasons: list[str]


def build_findings(
    wiki: Wiki, scan: Scan, disruptions: list[Disruption], context: Context, missing: list[str]
) -> tuple[dict[str, Any], Evidence]:
    evidence = Evidence()
    failures = [_failure(d, evidence) for d in disruptions]
    observations = _observations(wiki, scan, disruptions, evidence)
    ending = ending_disruption(disruptions, scan.topology)
    headline = (
        ending
        or next((d for d in disruptions if d.diagnosed), None)
        or next(iter(disruptions), None)
    )
    main = headline if headline is not None and headline.diagnosed else None
    culprit_hosts = _culprit_hosts(headline, evidence)
    root_cause = None
    if main is not None and main.root is not None:
        page = wiki.symptoms.get(main.root.symptom)
        root_hits = [main.root] + [h for c in main.culprits for h in c.hits if h.role == "root"]
        root_cause = {
            "symptom": main.root.symptom,
            "summary": _root_summary(main, page.page.title if page else main.root.symptom),
            "layer": main.root.layer,
            "confidence": main.confidence,
            "evidence": evidence.cite_all(_unique(root_hits)),
        }
        if root_cause["layer"] not in ("infra", "orchestrator", "framework", "application"):
            root_cause["layer"] = "application"
    if not disruptions:
        status = "inconclusive" if context.partial else "no_failure"
    elif main is None or context.partial:
        status = "inconclusive"
    else:
        status = "diagnosed"
    if status == "inconclusive" and root_cause is not None:
        root_cause["confidence"] = "low"
    findings: dict[str, Any] = {
        "schema_version": 1,
        "workload": context.workload,
        "project": context.project,
        "window": {"start": iso(context.window[0]), "end": iso(context.window[1])},
        "status": status,
        "summary": _summary(status, disruptions, headline, ending, context, missing),
        "root_cause": root_cause,
        "culprit_hosts": culprit_hosts,
        "failures": failures,
        "evidence": evidence.items,
        "actions_run": [],
        "approvals": [],
        "next_steps": _next_steps(
            wiki, disruptions, [o["symptom"] for o in observations], _run_options(context)
        ),
        "observations": observations,
        "data": {
            "sources": context.sources,
            "entries": scan.count,
            "matched_entries": len(scan.entries),
            "signatures": len(scan.signatures),
            "partial": context.partial,
            "missing": list(context.reasons) + missing,
        },
    }
    return findings, evidence


def _culprit_hosts(headline: Optional[Disruption], evidence: Evidence) -> list[dict[str, Any]]:
    """The headline disruption's culprits, in order, each with its evidence (the pod and task
    of its first hits)."""
    by_host: dict[str, dict[str, Any]] = {}
    for culprit in headline.culprits if headline is not None else []:
        item = by_host.get(culprit.host)
        if item is None:
            item = by_host[culprit.host] = {"host": culprit.host, "evidence": []}
            if culprit.pod:
                item["pod"] = culprit.pod
            if culprit.task is not None:
                item["task"] = culprit.task
        for evidence_id in evidence.cite_all(culprit.hits):
            if evidence_id not in item["evidence"]:
                item["evidence"].append(evidence_id)
    return list(by_host.values())


def validate_findings(wiki: Wiki, findings: dict[str, Any]) -> list[str]:
    """Schema problems of a findings document, as `field: message` lines."""
    found = errors(wiki.root / "schemas", FINDINGS, findings)
    return [f"{error_path(e)}: {e.message}" for e in found]


def ensure_valid(wiki: Wiki, findings: dict[str, Any]) -> None:
    problems = validate_findings(wiki, findings)
    if problems:  # a bug in the diagnosis, not the user's input: say so plainly
        raise MlwikiError(
            "internal error: findings do not match the schema: " + "; ".join(problems)
        )


def _failure(disruption: Disruption, evidence: Evidence) -> dict[str, Any]:
    hits: list[Hit] = []
    if disruption.root is not None:
        hits.append(disruption.root)
    for culprit in disruption.culprits:
        hits.extend(culprit.hits)
    hits.extend(_first_by_role(disruption.seeds))
    host = disruption.culprits[0].host if disruption.culprits else None
    summary = disruption.reasoning
    if not disruption.diagnosed:
        summary = f"inconclusive: {summary}"
    return {
        "time": iso(disruption.time),
        "kind": disruption.kind,
        "symptom": disruption.symptom if disruption.diagnosed else None,
        "host": host,
        "summary": summary,
        "evidence": evidence.cite_all(_unique(hits)),
    }


def _first_by_role(seeds: list[Hit]) -> list[Hit]:
    """The first seed of each symptom (the restart event, the first cascade line, …)."""
    seen: set[str] = set()
    chosen: list[Hit] = []
    for hit in sorted(seeds, key=lambda h: (h.time, h.insert_id)):
        if hit.symptom not in seen:
            seen.add(hit.symptom)
            chosen.append(hit)
    return chosen[:MAX_POINTER_EVIDENCE]


def _unique(hits: list[Hit]) -> list[Hit]:
    seen: set[tuple[int, str]] = set()
    out = []
    for hit in hits:
        if (hit.index, hit.symptom) not in seen:
            seen.add((hit.index, hit.symptom))
            out.append(hit)
    return out


def _root_summary(disruption: Disruption, title: str) -> str:
    if disruption.common_mode:
        return f"{title}, the same on many hosts at once (no single culprit host)"
    if not disruption.culprits:
        return f"{title}, not tied to any node by the logs"
    return f"{title} on " + ", ".join(c.host for c in disruption.culprits)


def _summary(
    status: str,
    disruptions: list[Disruption],
    headline: Optional[Disruption],
    ending: Optional[Disruption],
    context: Context,
    missing: list[str],
) -> str:
    if status == "no_failure":
        return f"No disruption of {context.workload} in the window: no failure, cascade or restart."
    parts = [f"{len(disruptions)} disruption(s) of {context.workload}."]
    for number, disruption in enumerate(disruptions, start=1):
        where = ", ".join(c.host for c in disruption.culprits) or "no single host"
        verdict = "root cause" if disruption.diagnosed else "unexplained; evidence"
        parts.append(
            f"#{number} at {iso(disruption.time)} ({disruption.kind}): {verdict} "
            f"{disruption.symptom} on {where}."
        )
    if len(disruptions) > 1 and ending is not None:
        parts.append(f"#{len(disruptions)} ended the run.")
    if status == "inconclusive":
        gaps = list(context.reasons) + missing
        reasons = []
        if context.partial:
            reasons.append("the data is partial (" + "; ".join(gaps) + ").")
        if headline is not None and not headline.diagnosed:
            if any(d.diagnosed for d in disruptions):  # what the run survived was explained
                number = disruptions.index(headline) + 1
                reasons.append(
                    f"No root cause was found in the logs for #{number}, the disruption that "
                    "ended the run."
                )
            else:
                reasons.append("No root cause was found in the logs.")
        parts.append("Inconclusive: " + " ".join(reasons))
    return " ".join(part for part in parts if part)


def _observations(
    wiki: Wiki, scan: Scan, disruptions: list[Disruption], evidence: Evidence
) -> list[dict[str, Any]]:
    """Set-up faults (root pages with no failure kind, e.g. ML Diagnostics not injecting) seen in
    the workload's logs that disrupted nothing: worth fixing, never a failure row."""
    explained = {d.root.symptom for d in disruptions if d.root is not None}
    by_symptom: dict[str, list[Hit]] = {}
    for hit in scan.relevant_hits():
        page = wiki.symptoms.get(hit.symptom)
        setup_fault = hit.role == "root" and page is not None and page.failure_kind is None
        if setup_fault and hit.symptom not in explained and not hit.shadowed:
            by_symptom.setdefault(hit.symptom, []).append(hit)
    observations = []
    for symptom, hits in sorted(by_symptom.items()):
        page = wiki.symptoms[symptom]
        hosts = sorted({h.host for h in hits if h.host})
        observations.append(
            {
                "symptom": symptom,
                "summary": f"{page.page.title} — seen on {len(hosts)} host(s); the run was not "
                "disrupted by it",
                "hosts": hosts,
                "evidence": evidence.cite_all(hits[:3]),
            }
        )
    return observations


def _run_options(context: Context) -> str:
    """The `mlwiki run` options that point a workflow at the data this diagnosis read."""
    workload = shlex.quote(context.workload)
    bundles = [s for s in context.sources if not s.startswith("projects/")]
    if len(bundles) == 1:
        return f"--param workload={workload} --bundle {shlex.quote(bundles[0])}"
    start, end = iso(context.window[0]), iso(context.window[1])
    project = shlex.quote(context.project or "PROJECT_ID")
    return f"--param workload={workload} --project {project} --start {start} --end {end}"


def _next_steps(
    wiki: Wiki, disruptions: list[Disruption], observed: list[str], run_options: str
) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    seen: set[str] = set()
    pages = [(wiki.symptoms.get(d.symptom), d) for d in disruptions]
    pages += [(wiki.symptoms.get(symptom), None) for symptom in observed]
    for page, disruption in pages:
        if page is None or page.id in seen:
            continue
        seen.add(page.id)
        if page.workflow:
            steps.append(
                {
                    "step": f"Verify {page.id} with its workflow: "
                    f"mlwiki run {page.workflow} {run_options}",
                    "symptom": page.id,
                    "workflow": page.workflow,
                }
            )
        for remedy in page.remedies:
            item: dict[str, Any] = {"step": str(remedy.get("step", "")), "symptom": page.id}
            action_id = remedy.get("action")
            if action_id:
                action = wiki.actions.get(str(action_id))
                item["action"] = str(action_id)
                item["requires_approval"] = bool(action and action.requires_approval)
            steps.append(item)
        if disruption is not None and not disruption.diagnosed:
            for culprit in disruption.culprits:
                steps.append(
                    {
                        "step": f"Collect the logs of node {culprit.host}"
                        + (f" (pod {culprit.pod})" if culprit.pod else "")
                        + " and its VM's system events for this window: the cascades point there",
                        "symptom": page.id,
                    }
                )
    return steps
