"""Training progress: the workload's own step lines, learned from the data, and when they stop.

A hang prints nothing: it is found from the absence of step lines (TAXONOMY.md E1). During the
single pass every workload container line holding a step number (`completed step: 14039`,
`step=4000 loss=…`, `Step 12/500`) is filed under its *template* — the text before the number
with digits blurred — and, per template, the first and last step seen with their times. The
template seen most often is the workload's step line. `disruptions.stall_hit` turns a step line
that stopped long before the containers did into a `training-stall` disruption.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.diagnose.instants import Slots
from mlwiki.diagnose.signatures import quote_of
from mlwiki.logs.entry import EntryFacts

MIN_STEP_LINES = 5  # fewer lines of a template do not make it the workload's step line
MAX_TEMPLATES = 64  # the pass keeps at most this many templates (memory stays flat)
MAX_KEYS = 4096  # cached raw prefixes (a prefix holding a clock never repeats: bounded)
_STEP = re.compile(r"\b[Ss]tep\b\s*[:=#]?\s*([0-9]+)")
_DIGITS = re.compile(r"[0-9]+")
TEMPLATE_CONTEXT = 40  # characters before the number that name the template
STEP_BUCKET = 10.0  # seconds: the resolution of "did a step line come in between"
MAX_STEPS = 1 << 16  # distinct step numbers kept per template (for its logging cadence)


@dataclass
class StepLine:
    count: int = 0
    first: tuple[float, int] = (float("inf"), 0)  # (time, step) of the earliest line
    last: tuple[float, int] = (float("-inf"), 0)  # (time, step) of the latest line
    last_facts: Optional[EntryFacts] = None  # of the latest line (its entry decoded if asked)
    last_text: str = ""
    slots: set[int] = field(default_factory=set)  # STEP_BUCKET-second slots holding a line
    steps: set[int] = field(default_factory=set)  # distinct step numbers seen (≤ MAX_STEPS)
    _cadence: Optional[tuple[Optional[int]]] = None  # `cadence`, until the next new step
    _buckets: Optional[Slots] = None  # `buckets`, until the next new slot

    @property
    def last_entry(self) -> Optional[dict[str, Any]]:
        """The latest line's entry."""
        return None if self.last_facts is None else self.last_facts.entry

    @property
    def buckets(self) -> Slots:
        """The slots holding a line, for range questions (built after the pass)."""
        if self._buckets is None:
            self._buckets = Slots(self.slots)
        return self._buckets

    def lines_between(self, start: float, end: float) -> bool:
        """Whether a line of this template was written in a whole slot between the two times."""
        first, last = int(start // STEP_BUCKET) + 1, int(end // STEP_BUCKET) - 1
        return self.buckets.any_in(first, last)

    @property
    def line_interval(self) -> float:
        """Seconds between two lines of the template, roughly (whatever the number of writers):
        seconds per step × the run's logging cadence (the commonest gap between consecutive step
        numbers seen). Read from the step numbers, it is the same whether every line was read or
        only a sample (the live plan samples long runs' step lines: a sample has fewer lines,
        not slower steps); without steady steps, the time covered per slot holding a line."""
        per_step = self.seconds_per_step
        cadence = self.cadence
        if per_step is None or cadence is None:
            return (self.last[0] - self.first[0]) / max(1, len(self.buckets))
        return per_step * cadence

    @property
    def cadence(self) -> Optional[int]:
        """The commonest positive gap between consecutive distinct step numbers (1 when every
        step is logged, 100 when every hundredth is): a geometric gap's mode under sampling."""
        if self._cadence is None:
            steps = sorted(self.steps)
            gaps = Counter(b - a for a, b in zip(steps, steps[1:]))
            self._cadence = (min(gaps, key=lambda gap: (-gaps[gap], gap)) if gaps else None,)
        return self._cadence[0]

    @property
    def seconds_per_step(self) -> Optional[float]:
        steps = self.last[1] - self.first[1]
        seconds = self.last[0] - self.first[0]
        return seconds / steps if steps > 0 and seconds > 0 else None


# Event reasons Kubernetes and the JobSet controller give when a Job or JobSet ends well.
COMPLETION_REASONS = frozenset({"Completed", "AllJobsCompleted", "SuccessfulCompletion"})


@dataclass
class Progress:
    templates: dict[str, StepLine] = field(default_factory=dict)
    _lines: dict[str, StepLine] = field(default_factory=dict)  # raw prefix → its line (a cache)
    finished_at: float = float("-inf")  # latest successful completion of the workload's Job(Set)
    _chosen: Optional[tuple[Optional[StepLine]]] = None  # step_line(), until the next line

    def observe_event(
        self, payload: Optional[dict[str, Any]], when: float, workload: Optional[str]
    ) -> None:
        """Note a Kubernetes event saying the workload's JobSet or one of its Jobs completed: a
        run that finished after its last step line did not hang (an evaluation or upload phase
        after training prints no steps)."""
        if not workload or payload is None:
            return
        if payload.get("reason") not in COMPLETION_REASONS:
            return
        involved = payload.get("involvedObject") or {}
        name = str(involved.get("name") or "") if isinstance(involved, dict) else ""
        if involved.get("kind") in ("JobSet", "Job") and (
            name == workload or name.startswith(f"{workload}-")
        ):
            self.finished_at = max(self.finished_at, when)

    def observe(self, facts: EntryFacts) -> None:
        """File one workload container entry if it is a step line (any arrival order)."""
        text = facts.message
        if text is None:
            return
        # A match starts one character before a `tep` (its `S` or `s`), so the regex is tried
        # from the first one on (its `\b` still sees the character before), not from every
        # character of a long prefix (a glog header, a launcher's timestamp).
        at = text.find("tep")
        if at < 0:
            return
        match = _STEP.search(text, at - 1 if at else 0)
        if match is None:
            return
        number = match.group(1)
        raw = text[max(0, match.start() - TEMPLATE_CONTEXT) : match.end() - len(number)]
        line = self._lines.get(raw)
        if line is None:
            line = self._line(raw)
            if line is None:
                return
        when = facts.time
        step = int(number)
        point = (when, step)
        self._chosen = None
        line.count += 1
        slot = int(when // STEP_BUCKET)
        if slot not in line.slots:
            line.slots.add(slot)
            line._buckets = None
        steps = line.steps
        if step not in steps and len(steps) < MAX_STEPS:
            steps.add(step)
            line._cadence = None
        # Ties in time go to the lower (first) or higher (last) step: whatever the input order.
        if point < line.first:
            line.first = point
        if point > line.last:
            line.last = point
            line.last_facts, line.last_text = facts, quote_of(text, *match.span())

    def _line(self, raw: str) -> Optional[StepLine]:
        """The template's line of a raw prefix not met yet (None: too many templates)."""
        key = _DIGITS.sub("#", raw)
        line = self.templates.get(key)
        if line is None:
            if len(self.templates) >= MAX_TEMPLATES:
                return None
            line = self.templates[key] = StepLine()
        if len(self._lines) < MAX_KEYS:  # most step lines repeat one literal prefix
            self._lines[raw] = line
        return line

    def step_line(self) -> Optional[StepLine]:
        """The workload's step line: the template seen most often, if it shows progress."""
        if self._chosen is None:
            self._chosen = (self._step_line(),)
        return self._chosen[0]

    def _step_line(self) -> Optional[StepLine]:
        lines = [
            (s.count, key, s) for key, s in self.templates.items() if s.count >= MIN_STEP_LINES
        ]
        best = max(lines, key=lambda item: item[:2], default=(0, "", None))[2]
        return best if best is not None and best.seconds_per_step else None
