"""The live collection: the plan's queries (`mlwiki.logs.plan`) run phase by phase, paced and
within a request budget, so a run's cost follows the evidence, not the log volume.

Phases, each with its share of the budget (`SHARES`; what a phase leaves unused goes to the
later ones, and a phase never takes what the later ones need to start):

1. **platform** — events, Compute Engine system events and VM operations, the autoscaler's log,
   node-pool and cluster operations, whole. Small and decisive: first, so a budget that runs out
   never starves them.
2. **sources** — the two big sources, the workload's containers and the infrastructure's text.
   Each is read oldest first while its estimated size (pages so far × window ÷ time covered)
   fits the phase's share and `WHOLE_PAGES` (about what pushing it down costs): a small job is
   read whole, exactly as before. A source that does not
   fit is cut at the last instant read; its remainder is *pushed down*:
3. **evidence** — the remainder's entries matching a signature or a start-up line (packed
   alternations, as few filters as the 20,000-character limit allows).
4. **progress** — for pushed-down containers: their newest page, the step lines (whole when
   they fit, else a `sample(insertId, F)` sized to `STEP_PAGES` pages, plus the newest step
   page, so the last step line is exact), and a pulse of all container lines sampled to
   `PULSE_PAGES` pages: each pod's activity, for the liveness and stall rules.
5. **follow-up** — after a first diagnosis (`follow_up`), the full context of at most a few
   culprit hosts around each disruption (`CONTEXT_BEFORE` … `CONTEXT_AFTER`), so liveness
   near a failure is exact and the report quotes what the culprit printed; and, for a host the
   platform flagged near a disruption that no entry read so far ties to the workload, the first
   page of the workload's lines on it (a quiet pod's start-up line says which pod ran there).
   Only for sources that were pushed down (a whole source already holds that context).

Every request carries explicit time bounds and pageSize 1000 (`mlwiki.logs.cloud`). A query cut
short (its share, the budget, the entry cap, retries exhausted) is reported with how far it got
and an estimate of the pages left, so `rerun_calls` can name the budget that completes the run
(pages already fetched come back from the page cache, free).

The same collection runs offline over a bundle (`LocalPager`, answering each request from the
bundle's entries exactly as Cloud Logging orders and pages them), so a bundle read "as the live
plan reads it" gives the very entries — and findings — of the live run.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol

from mlwiki.logs.cloud import NEWEST_FIRST, ORDER_BY, PAGE_SIZE, Incomplete, RequestBudget
from mlwiki.logs.local import LocalLogging
from mlwiki.logs.plan import (
    CONTAINER_TEXT_FIELDS,
    NODE_TEXT_FIELDS,
    STARTUP_PATTERNS,
    ContextTarget,
    Coverage,
    PlannedQuery,
    TextTarget,
    fraction_text,
    infrastructure_text,
    pack_text_filters,
    placement_filter,
    platform_filter,
    sampled,
    step_lines,
    workload_containers,
    wrapped,
)
from mlwiki.logs.report import QueryReport, SourceReport
from mlwiki.logs.store import EntryStore
from mlwiki.progress import Progress
from mlwiki.timewindow import Window, datetime_from_ns, timestamp_ns

PHASES = ("platform", "sources", "evidence", "progress", "follow-up")
SHARES = {"platform": 0.2, "sources": 0.3, "evidence": 0.2, "progress": 0.2, "follow-up": 0.1}
# Pages a big source is read whole for at most: about what pushing it down costs (its signature
# filters, the progress pages), so a larger source costs the same as pushed down, not more.
WHOLE_PAGES = 12
STEP_PAGES = 3  # pages of sampled step lines
PULSE_PAGES = 3  # pages of the sampled pulse of all the workload's container lines
WHOLE_FRACTION = 0.8  # a sample this large is read whole instead
MAX_TARGETS = 5  # disruptions whose culprits get a follow-up
MAX_HOSTS = 3  # culprit hosts per disruption in a follow-up (as many more the platform flagged)


class Pager(Protocol):
    """Where pages come from: Cloud Logging (`LoggingFetcher`) or a bundle (`LocalPager`)."""

    budget: RequestBudget
    page_size: int

    def page(
        self,
        full_filter: str,
        order: str,
        token: Optional[str],
        report: QueryReport,
        window: Window,
    ) -> tuple[list[dict[str, Any]], Optional[str]]: ...


@dataclass
class LocalPager:
    """Cloud Logging's answers computed from local entries: same filters, order, pages, budget."""

    logging: LocalLogging
    budget: RequestBudget = field(default_factory=RequestBudget)
    page_size: int = PAGE_SIZE

    def page(
        self,
        full_filter: str,
        order: str,
        token: Optional[str],
        report: QueryReport,
        window: Window,
    ) -> tuple[list[dict[str, Any]], Optional[str]]:
        if not self.budget.take():
            raise Incomplete(f"request budget of {self.budget.max_calls} calls used up")
        report.calls += 1
        report.pages += 1
        offset = int(token or 0)
        entries, more = self.logging.page(full_filter, order, offset, self.page_size)
        return entries, str(offset + self.page_size) if more else None


@dataclass
class _Read:
    """What one query read: entries in order, and whether it reached its end."""

    report: QueryReport
    entries: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False
    token: Optional[str] = None  # the next page's, while the query has more

    def times(self) -> list[int]:
        return [t for t in (timestamp_ns(e.get("timestamp")) for e in self.entries) if t]


@dataclass
class _BigSource:
    name: str
    scope: str
    fields: tuple[str, ...]
    whole: bool = True  # read whole up to `cut` (the end of the window when complete)
    cut: Optional[int] = None  # ns: everything before this instant was read whole
    probe: Optional[_Read] = None


def _rate(read: _Read) -> Optional[float]:
    """Entries per nanosecond over the read's pages, or None when it spans no time."""
    times = read.times()
    if len(times) < 2 or max(times) == min(times):
        return None
    return len(times) / (max(times) - min(times))


class LiveCollection:
    """One run's collection; `run()` reads phases 1–4, `follow_up()` phase 5."""

    def __init__(
        self,
        pager: Pager,
        workload: str,
        window: Window,
        patterns: Sequence[str],
        *,
        store: Optional[EntryStore] = None,
        report: Optional[SourceReport] = None,
        max_entries: Optional[int] = None,
        progress: Optional[Progress] = None,
    ) -> None:
        self.pager = pager
        self.workload = workload
        self.window = window
        self.patterns = [*patterns, *STARTUP_PATTERNS]
        self.store = store if store is not None else EntryStore()
        self.report = report if report is not None else SourceReport(source="cloud_logging")
        self.report.window = window
        self.coverage = Coverage(window)
        self.max_entries = max_entries
        self.progress = progress
        self.pushed_down = False
        self._phase = PHASES[0]
        self._cap = 0
        self._planned_not_run = 0
        self._sources: list[_BigSource] = []
        self._placed: set[str] = set()  # hosts whose placement was asked for already
        self._contexts: set[str] = set()  # follow-up filters already read
        self._steps_sampled = False  # the step lines were read as a sample

    # ---- budget --------------------------------------------------------------------------------

    @property
    def budget(self) -> RequestBudget:
        return self.pager.budget

    def _enter(self, phase: str) -> None:
        """Give `phase` its share of what is left (at least one call while any is left)."""
        self._phase = phase
        left = max(0, self.budget.max_calls - self.budget.calls)
        later = PHASES[PHASES.index(phase) :]
        share = SHARES[phase] / sum(SHARES[p] for p in later)
        self._cap = self.budget.calls + max(min(left, 1), math.floor(left * share))

    # ---- reading -------------------------------------------------------------------------------

    def _read(
        self,
        name: str,
        filter_text: str,
        window: Window,
        *,
        order: str = ORDER_BY,
        max_pages: Optional[int] = None,
        fraction: Optional[float] = None,
        stop: Optional[Any] = None,
        resume: Optional[_Read] = None,
    ) -> _Read:
        """Pages of one query into the store, until its end, `max_pages` (not partial: an edge
        page), the phase's share, the budget or the entry cap; `stop(read)` may end it early;
        `resume` goes on paging a read that stopped at `max_pages`."""
        full = wrapped(window, filter_text)
        if resume is not None:
            read, report, token = resume, resume.report, resume.token
        else:
            report = QueryReport(
                name=name,
                filter=full,
                phase=self._phase,
                order=order,
                sampled=fraction,
                window=window,
            )
            read, token = _Read(report), None
            self.report.queries.append(report)
        task = self.progress.task(f"Cloud Logging: {name}") if self.progress else None
        try:
            while True:
                if self.budget.calls >= self.budget.max_calls:
                    raise Incomplete(f"request budget of {self.budget.max_calls} calls used up")
                if self.budget.calls >= self._cap:
                    raise Incomplete(
                        f"its phase's share of the request budget ({self.budget.max_calls} "
                        "calls) is used up"
                    )
                batch, token = self.pager.page(full, order, token, report, window)
                capped = False
                if self.max_entries is not None:
                    room = max(0, self.max_entries - len(self.store))
                    capped = len(batch) > room or (bool(token) and len(batch) == room)
                    batch = batch[:room]
                read.entries.extend(batch)
                added = self.store.extend(batch)
                report.entries += len(batch)
                self.report.entries += added
                self.report.duplicates += len(batch) - added
                if task is not None:
                    task.advance(len(batch))
                if capped:
                    raise Incomplete(f"stopped at the cap of {self.max_entries} entries")
                if not token:
                    read.complete = True
                    break
                read.token = token
                if max_pages is not None and report.pages >= max_pages:
                    break
                if stop is not None and stop(read):
                    break
        except Incomplete as why:
            self._incomplete(read, window, str(why))
        finally:
            self.report.calls = self.budget.calls
            if task is not None:
                task.done()
        return read

    def _incomplete(self, read: _Read, window: Window, why: str) -> None:
        report = read.report
        report.partial = True
        report.reason = f"{report.name}: {why}"
        times = read.times()
        if times and report.order == ORDER_BY:
            first, last = min(times), max(times)
            report.reached = _iso(last)
            covered = max(1, last - first)
            report.pages_left = max(1, math.ceil(report.pages * (window.end_ns - last) / covered))
        else:
            report.pages_left = max(1, report.pages)
        self.report.mark_partial(
            f"{report.reason} (read {report.pages} page(s) of ~{report.pages + report.pages_left}"
            + (f", up to {report.reached}" if report.reached else "")
            + ")"
        )

    # ---- phases --------------------------------------------------------------------------------

    def run(self) -> None:
        self._enter("platform")
        platform = PlannedQuery("platform", platform_filter(self.workload))
        if self._read(platform.name, platform.filter, self.window).complete:
            self.coverage.add(platform)
        self._enter("sources")
        self._sources = [
            _BigSource("workload", workload_containers(self.workload), CONTAINER_TEXT_FIELDS),
            _BigSource("infrastructure", infrastructure_text(), NODE_TEXT_FIELDS),
        ]
        self._read_sources()
        pushed = [s for s in self._sources if not s.whole]
        if not pushed:
            return
        self.pushed_down = True
        self._enter("evidence")
        self._evidence(pushed)
        containers = self._sources[0]
        if not containers.whole:
            self._enter("progress")
            self._progress(containers)

    def _read_sources(self) -> None:
        """Probe each big source; read whole those whose estimated size fits the share."""
        for source in self._sources:
            source.probe = self._read(f"{source.name}", source.scope, self.window, max_pages=1)
        room = min(self._cap - self.budget.calls, WHOLE_PAGES)
        estimates = [self._pages_estimate(s.probe) for s in self._sources]
        for source, estimate in sorted(zip(self._sources, estimates), key=lambda item: item[1]):
            assert source.probe is not None
            probe = source.probe
            if probe.complete:
                self.coverage.add(PlannedQuery(source.name, source.scope))
                continue
            if probe.report.partial:  # the budget or retries ran out on the probe itself
                source.whole = False
                source.cut = self.window.start_ns
                continue
            if estimate - 1 <= room and max(probe.times()) < self.window.end_ns:
                rest = self._continue_whole(source, room)
                room -= rest.report.pages
                if rest.complete:
                    self.coverage.add(PlannedQuery(source.name, source.scope))
                    continue
            self._cut(source)

    def _pages_estimate(self, read: Optional[_Read]) -> float:
        if read is None or read.complete:
            return 1.0
        times = read.times()
        if len(times) < 2 or max(times) <= min(times):
            return math.inf
        return read.report.pages * (self.window.end_ns - min(times)) / (max(times) - min(times))

    def _continue_whole(self, source: _BigSource, room: int) -> _Read:
        """Read on from the probe's last instant while the estimate keeps fitting `room`."""
        assert source.probe is not None
        start = max(source.probe.times())
        window = Window(datetime_from_ns(start), self.window.end)
        first = min(source.probe.times())

        def too_big(read: _Read) -> bool:
            times = read.times()
            done = max(times) - first
            total = (self.window.end_ns - first) / done * (read.report.pages + 1)
            return total - 1 > room

        read = self._read(
            f"{source.name} (cont.)", source.scope, window, max_pages=room, stop=too_big
        )
        source.probe.entries.extend(read.entries)
        return read

    def _cut(self, source: _BigSource) -> None:
        assert source.probe is not None
        cut = max(source.probe.times())
        if cut >= self.window.end_ns:  # read up to the very end: nothing is left to push down
            self.coverage.add(PlannedQuery(source.name, source.scope))
            return
        source.whole = False
        source.cut = cut
        if cut > self.window.start_ns:
            self.coverage.add(
                PlannedQuery(source.name, source.scope),
                Window(self.window.start, datetime_from_ns(cut)),
            )

    def _remainder(self, source: _BigSource) -> Window:
        assert source.cut is not None
        return Window(datetime_from_ns(source.cut), self.window.end)

    def _evidence(self, pushed: list[_BigSource]) -> None:
        start = min(s.cut for s in pushed if s.cut is not None)
        window = Window(datetime_from_ns(start), self.window.end)
        targets = []
        for source in pushed:
            remainder = self._remainder(source)
            scope = f"{remainder.to_filter()} AND ({source.scope})"
            targets.extend(TextTarget(scope, path) for path in source.fields)
        reserved = len(wrapped(window, ""))
        for number, text in enumerate(pack_text_filters(targets, self.patterns, reserved), 1):
            self._read(f"signatures-{number}", text, window)

    def _progress(self, containers: _BigSource) -> None:
        assert containers.probe is not None
        remainder = self._remainder(containers)
        span = remainder.end_ns - remainder.start_ns
        newest = self._read(
            "workload (newest)", containers.scope, remainder, order=NEWEST_FIRST, max_pages=1
        )
        rates = [r for r in (_rate(containers.probe), _rate(newest)) if r]
        steps_filter = step_lines(self.workload)
        steps = self._read("steps", steps_filter, remainder, max_pages=1)
        step_estimate = 0.0
        if not steps.complete:
            last_steps = self._read(
                "steps (newest)", steps_filter, remainder, order=NEWEST_FIRST, max_pages=1
            )
            step_rates = [r for r in (_rate(steps), _rate(last_steps)) if r]
            step_estimate = _mean(step_rates) * span
        room = max(0, self._cap - self.budget.calls)
        step_pages = min(STEP_PAGES, room // 2) if step_estimate else 0
        pulse_pages = min(PULSE_PAGES, room - step_pages)
        if step_estimate:
            self._sampled("steps (sampled)", steps_filter, remainder, step_estimate, step_pages)
            self._steps_sampled = any(
                item["source"] == "steps (sampled)" for item in self.report.sampled
            )
        estimate = _mean(rates) * span
        self._sampled("pulse (sampled)", containers.scope, remainder, estimate, pulse_pages)

    def _sampled(
        self, name: str, filter_text: str, window: Window, estimate: float, pages: int
    ) -> None:
        """A sample of the query sized to `pages` pages (whole when that is nearly all of it).

        The fraction comes from `estimate` (entries in `window`, from the exact pages read); the
        sample's first page checks it: when it shows the sample would take more than half again
        the pages wanted, or that it holds under a third of them, the fraction is corrected
        once and the sample read again (samples nest: a smaller fraction keeps a subset)."""
        if pages <= 0:
            self.report.mark_partial(
                f"{name}: not read (its phase's share of the request budget "
                f"({self.budget.max_calls} calls) is used up)"
            )
            self._planned_not_run += 1
            return
        size = self.pager.page_size
        fraction = min(1.0, pages * size / estimate) if estimate > 0 else 1.0
        for attempt in range(2):
            if fraction >= WHOLE_FRACTION:
                self._read(name.replace(" (sampled)", " (whole)"), filter_text, window)
                return
            fraction = float(fraction_text(float(f"{fraction:.3g}")))
            text = sampled(filter_text, fraction)
            first = self._read(name, text, window, fraction=fraction, max_pages=1)
            expected = self._pages_in(first, window)
            if (
                attempt == 0
                and not first.report.partial
                and math.isfinite(expected)
                and (expected > 1.5 * pages or expected * 3 < pages)
            ):
                fraction = fraction * pages / max(expected, 1.0 / size)
                continue
            read = first
            if not first.complete and not first.report.partial:
                # The rest of the sample, however many pages it turns out to take within the
                # phase's share (cut short by the share, it is partial and says so).
                read = self._read(name, text, window, fraction=fraction, resume=first)
            break
        self.report.sampled.append(
            {
                "source": name,
                "filter": read.report.filter,
                "fraction": fraction,
                "entries": len(read.entries),
                "complete": read.complete,
            }
        )

    def _pages_in(self, read: _Read, window: Window) -> float:
        """Pages the whole query would take, judged from its first page."""
        if read.complete:
            return len(read.entries) / self.pager.page_size
        times = read.times()
        if len(times) < 2 or max(times) <= min(times):
            return math.inf
        return (window.end_ns - window.start_ns) / (max(times) - min(times))

    # ---- phase 5 -------------------------------------------------------------------------------

    def follow_up(self, targets: Sequence[ContextTarget], records: Sequence[Window] = ()) -> int:
        """Fetch, where the sources were pushed down, the full context of the targets' hosts and
        the workload's lines in `records` (the rest of multi-line records whose first line a
        signature matched); returns how many new entries it added."""
        from mlwiki.logs.plan import context_about, context_filter

        cut = min((s.cut for s in self._sources if not s.whole and s.cut), default=None)
        if cut is None or not (targets or records):
            return 0
        before = len(self.store)
        self._enter("follow-up")  # the last phase: everything that is left
        self._records(records, cut)
        clipped = []
        for target in targets[:MAX_TARGETS]:
            start = max(target.window.start_ns, cut)
            end = min(target.window.end_ns, self.window.end_ns)
            if start < end:
                window = Window(datetime_from_ns(start), datetime_from_ns(end))
                clipped.append(
                    ContextTarget(
                        target.hosts, target.pods, window, target.placed, target.failed_at
                    )
                )
        if not clipped:
            return len(self.store) - before
        window = Window(
            datetime_from_ns(min(t.window.start_ns for t in clipped)),
            datetime_from_ns(max(t.window.end_ns for t in clipped)),
        )
        text = context_filter(clipped)
        if text in self._contexts:
            return len(self.store) - before  # the same culprits: their context is read already
        self._contexts.add(text)
        rounds = 1 + sum(1 for q in self.report.queries if q.name.startswith("context-"))
        name = f"context-{rounds}"
        if self._read(name, text, window).complete:
            for target in clipped:
                self.coverage.add(PlannedQuery(name, context_about(target)), target.window)
        if self._steps_sampled:
            # Whether training went on right after a failure is read from the step lines: the
            # first page of them from each disruption on, exact where the sample is thin.
            probes = [
                Window(datetime_from_ns(max(t.failed_at, cut)), t.window.end)
                for t in clipped
                if t.failed_at is not None and max(t.failed_at, cut) < t.window.end_ns
            ]
            if probes:
                self._read(
                    f"steps-{rounds}",
                    f"({step_lines(self.workload)}) AND ("
                    + " OR ".join(f"({w.to_filter()})" for w in probes)
                    + ")",
                    Window(min(w.start for w in probes), max(w.end for w in probes)),
                    max_pages=1,
                )
        flagged = sorted({h for t in targets[:MAX_TARGETS] for h in t.placed} - self._placed)
        if flagged:
            # A host the platform flagged may run a quiet pod of the workload whose only line is
            # its start-up: its first page of container lines says which pod, if any.
            self._placed.update(flagged)
            remainder = Window(datetime_from_ns(cut), self.window.end)
            self._read(
                f"placement-{rounds}",
                placement_filter(self.workload, flagged),
                remainder,
                max_pages=1,
            )
        return len(self.store) - before

    def _records(self, records: Sequence[Window], cut: int) -> None:
        containers = self._sources[0]
        if containers.whole:
            return
        spans = [
            Window(datetime_from_ns(max(w.start_ns, cut)), w.end)
            for w in records
            if w.end_ns > cut and w.to_filter() not in self._contexts
        ]
        if not spans:
            return
        self._contexts.update(w.to_filter() for w in records)
        text = (
            f"{workload_containers(self.workload)} AND ("
            + " OR ".join(f"({w.to_filter()})" for w in spans)
            + ")"
        )
        window = Window(min(w.start for w in spans), max(w.end for w in spans))
        self._read(f"records-{len(self._contexts)}", text, window)

    def extra(self, name: str, filter_text: str, window: Window) -> None:
        """A filter the sources read whole do not cover (a workflow's step): all its pages, with
        whatever budget is left, into the store; what it read whole is covered from now on."""
        self._phase = "extra"
        self._cap = self.budget.max_calls
        if self._read(name, filter_text, window).complete:
            self.coverage.add(PlannedQuery(name, filter_text), window)

    # ---- what a partial run lacks ----------------------------------------------------------------

    def rerun_calls(self) -> Optional[int]:
        """The `--max-log-calls` that would complete a partial run (None when it is complete)."""
        if not self.report.partial:
            return None
        left = sum(q.pages_left for q in self.report.queries if q.partial)
        return self.budget.calls + left + self._planned_not_run * PULSE_PAGES + len(PHASES)

    def entries(self) -> Iterator[dict[str, Any]]:
        return self.store.entries()


def _mean(rates: list[float]) -> float:
    return sum(rates) / len(rates) if rates else math.inf


def _iso(instant: int) -> str:
    from mlwiki.timewindow import format_timestamp

    return format_timestamp(datetime_from_ns(instant))
