"""Verification: the candidate symptoms' read-only workflows, run on the diagnosis' own data.

For each disruption, the workflow of its symptom (the root cause, or what the evidence points to)
runs through the engine against the same log session (for a bundle: its recorded kubectl
outputs). Nothing is approved: a mutating step stays `awaiting_approval` and never runs. Verdicts
are evidence in `actions_run` and move confidence one step: `confirmed` up, `refuted` down.
A workflow looks at `MARGIN` around its disruption, inside the window the session read: nothing
outside it was read (a bundle holds nothing outside it either), so a live run spends no request
on a step's margin past either end of the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from mlwiki.diagnose.clock import iso
from mlwiki.diagnose.disruptions import Disruption
from mlwiki.diagnose.findings import CONFIDENCE_ORDER
from mlwiki.errors import MlwikiError
from mlwiki.wiki import Wiki

MARGIN = 600.0  # seconds around a disruption the workflow looks at


@dataclass
class WorkflowVerifier:
    wiki: Wiki
    session: Any  # mlwiki.logs.session.LogSession
    workload: str
    project: Optional[str]
    bundle: Optional[Path] = None
    metrics: Any = None  # mlwiki.metrics.source: the diagnosis' own metric source

    def __call__(self, findings: dict[str, Any], disruptions: list[Disruption]) -> None:
        from mlwiki.engine.actions import RunContext
        from mlwiki.engine.workflows import run_workflow
        from mlwiki.kube import RecordedRunner

        runner = RecordedRunner(self.bundle) if self.bundle is not None else None
        done: set[tuple[str, Optional[str]]] = set()
        for number, disruption in enumerate(disruptions):
            page = self.wiki.symptoms.get(disruption.symptom)
            if page is None or not page.workflow or page.workflow not in self.wiki.workflows:
                continue
            host = disruption.culprits[0].host if disruption.culprits else None
            if (page.workflow, host) in done:
                continue
            done.add((page.workflow, host))
            declared = self.wiki.workflows[page.workflow].params
            params = {k: v for k, v in {"node": host, "host": host}.items() if k in declared and v}
            context = RunContext(
                project=self.project,
                start=iso(
                    _clipped(
                        self.session,
                        disruption.window_start
                        if disruption.window_start > 0
                        else disruption.start - MARGIN,
                    )
                ),
                end=iso(_clipped(self.session, disruption.end + MARGIN)),
                workload=self.workload,
            )
            record: dict[str, Any] = {
                "workflow": page.workflow,
                "symptom": page.id,
                "disruption": number + 1,
            }
            try:
                run = run_workflow(
                    self.wiki,
                    page.workflow,
                    params,
                    self.session,
                    context=context,
                    runner=runner,
                    metrics=self.metrics,
                )
            except MlwikiError as error:
                record.update(verdict="error", summary=str(error), steps=[])
            else:
                record.update(
                    verdict=run.verdict or "inconclusive",
                    summary=run.summary,
                    params=run.params,
                    steps=[{"id": s.id, "status": s.status} for s in run.steps],
                )
                _adjust(findings, disruption, record["verdict"])
            findings["actions_run"].append(record)


def _clipped(session: Any, instant: float) -> float:
    """`instant`, inside the window the session read: nothing outside it was read, offline or
    live, so a step asking beyond it would only cost a live run requests (and find nothing a
    bundle of that window holds)."""
    report = getattr(session, "report", None)
    window = getattr(report, "window", None)
    if window is None:
        return instant
    return min(max(instant, window.start.timestamp()), window.end.timestamp())


def _adjust(findings: dict[str, Any], disruption: Disruption, verdict: str) -> None:
    root = findings.get("root_cause")
    if (
        disruption.root is None
        or not isinstance(root, dict)
        or root["symptom"] != disruption.root.symptom
    ):
        return
    step = {"confirmed": 1, "refuted": -1}.get(verdict, 0)
    if step and findings["status"] == "diagnosed":
        index = CONFIDENCE_ORDER.index(root["confidence"]) + step
        root["confidence"] = CONFIDENCE_ORDER[max(0, min(index, len(CONFIDENCE_ORDER) - 1))]
