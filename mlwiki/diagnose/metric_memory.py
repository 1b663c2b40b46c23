"""Memory before an OOM: the HBM or host-memory points that precede the crash, cited on its row.

The method is step 6 of `mlwiki.diagnose.metric_evidence` (documented there); this module does
it. `CHECKS` says, per root-cause page, which metric actions are read: the value measured against
its limit (HBM in use against HBM total; the containers' share of their memory limit), the bytes
shown beside a share, and the memory of the culprit's node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.diagnose.clock import iso
from mlwiki.diagnose.disruptions import Culprit, Disruption
from mlwiki.diagnose.metric_evidence import cite_point
from mlwiki.diagnose.topology import Topology
from mlwiki.errors import BadInput
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.series import Point, Series
from mlwiki.wiki import Wiki

GIB = float(2**30)
NEAR_LIMIT = 0.9  # share of the limit at or above which memory counts as at its limit
LOOKBACK = 900.0  # seconds before the crash in which the peak is looked for
CLIMB = 0.1  # an earlier point this much lower (share of the limit) shows the climb
CONTRAST = 0.1  # a peer this much lower than the culprit stands apart from it
MAX_HOSTS = 3  # culprit hosts per disruption whose memory is read


@dataclass(frozen=True)
class Reading:
    """One metric action a check reads, and how its values read in a sentence."""

    action: str
    what: str
    unit: str  # "bytes" | "share"
    nodes: bool = False  # asked for the culprit nodes (a node metric), else workload-wide
    limit: Optional[Reading] = None  # bytes: the limit they are measured against, per pod


@dataclass(frozen=True)
class Check:
    symptom: str
    event: str  # how the crash is named in a sentence
    value: Reading  # the memory measured against its limit
    beside: Optional[Reading] = None  # bytes shown beside a share, at the peak's instant
    node: Optional[Reading] = None


CHECKS = {
    "hbm-oom-runtime": Check(
        "hbm-oom-runtime",
        "the OOM",
        Reading(
            "query-tpu-hbm-used",
            "TPU HBM in use (the pod's fullest chip)",
            "bytes",
            limit=Reading("query-tpu-hbm-total", "TPU HBM per chip", "bytes"),
        ),
    ),
    "host-oom-killed": Check(
        "host-oom-killed",
        "the OOM kill",
        Reading(
            "query-container-memory-limit-utilization",
            "non-evictable memory of the pod's containers, share of their limit",
            "share",
        ),
        beside=Reading(
            "query-container-memory-used", "non-evictable memory of the pod's containers", "bytes"
        ),
        node=Reading(
            "query-node-memory-allocatable-utilization",
            "non-evictable memory of the node, share of its allocatable memory",
            "share",
            nodes=True,
        ),
    ),
}


@dataclass
class Answer:
    """What one reading's query returned (or why it returned nothing)."""

    reading: Reading
    metric: str = ""
    aggregation: Optional[Aggregation] = None
    series: list[Series] = field(default_factory=list)
    partial: bool = False
    reason: Optional[str] = None
    calls: int = 0

    _pods: Optional[dict[str, Series]] = None

    @property
    def period(self) -> int:
        return self.aggregation.period if self.aggregation else 60

    def of_pod(self, pod: Optional[str]) -> Optional[Series]:
        if self._pods is None:  # indexed once: peers are looked up for every host
            self._pods = {}
            for series in self.series:
                self._pods.setdefault(series.pod or "", series)
        return self._pods.get(pod) if pod else None


@dataclass
class Measure:
    """A point, with its share of the limit (and the limit's point, for bytes)."""

    series: Series
    point: Point
    share: Optional[float]
    limit: Optional[Point] = None

    def key(self) -> tuple[bool, float, float]:
        """Fuller first: by share of the limit, by value where the limit is unknown; then newer."""
        share = self.share is not None
        return (share, self.share if self.share is not None else self.point.value, self.point.time)


@dataclass
class Target:
    """One culprit host of one OOM disruption: where and when to look."""

    row: dict[str, Any]
    check: Check
    culprit: Culprit
    crash: float
    blamed: frozenset[str]  # every culprit host of the disruption: never a peer


def targets(findings: dict[str, Any], disruptions: list[Disruption]) -> list[Target]:
    """The culprit hosts of every disruption whose root cause has a memory check."""
    found = []
    for disruption, row in zip(disruptions, findings["failures"]):
        check = CHECKS.get(disruption.root.symptom) if disruption.root else None
        if check is None or row.get("symptom") != disruption.symptom:
            continue
        blamed = frozenset(c.host for c in disruption.culprits)
        for culprit in disruption.culprits[:MAX_HOSTS]:
            roots = [h.time for h in culprit.hits if h.role == "root"]
            crash = min(roots) if roots else disruption.time
            found.append(Target(row, check, culprit, crash, blamed))
    return found


class Reader:
    """The readings of one diagnosis, each asked once (one call, or one per page)."""

    def __init__(
        self, wiki: Wiki, metrics: Any, workload: str, window: tuple[float, float], nodes: list[str]
    ) -> None:
        self.wiki, self.metrics, self.workload = wiki, metrics, workload
        self.window, self.nodes = window, nodes
        self.answers: dict[str, Answer] = {}

    def read(self, reading: Optional[Reading]) -> Optional[Answer]:
        if reading is None or reading.action not in self.wiki.actions:
            return None
        if reading.action in self.answers:
            return self.answers[reading.action]
        from mlwiki.metrics.export import node_chunks, node_query, workload_query

        answer = self.answers[reading.action] = Answer(reading)
        if reading.nodes:  # one query per chunk of node names the action's parameter takes
            queries = [
                node_query(self.wiki, reading.action, c, self.window)
                for c in node_chunks(self.nodes)
            ]
        else:
            queries = [workload_query(self.wiki, reading.action, self.workload, self.window)]
        for text, answer.aggregation, answer.metric in queries:
            self._ask(answer, text)
        return answer

    def _ask(self, answer: Answer, text: str) -> None:
        from mlwiki.metrics.export import as_window

        assert answer.aggregation is not None
        try:
            found = self.metrics.query(text, answer.aggregation, as_window(self.window))
        except BadInput as error:  # permission denied, an API that refuses: a gap, not fatal
            answer.partial, answer.reason = True, str(error)
            return
        answer.series += [s for s in found.series if s.points]
        answer.calls += found.calls
        if found.partial:
            answer.partial, answer.reason = True, found.reason

    @property
    def calls(self) -> int:
        return sum(a.calls for a in self.answers.values())


def _near(series: Series, crash: float, period: int) -> list[Point]:
    """The points of the LOOKBACK before the crash, up to the period that holds it."""
    return [p for p in series.points if crash - LOOKBACK < p.time < crash + period]


def _at(series: Optional[Series], moment: float) -> Optional[Point]:
    if series is None:
        return None
    return next((p for p in series.points if p.time == moment), None)


class Assessor:
    """Finds, cites and words the memory of each target (see metric_evidence, step 6)."""

    def __init__(self, findings: dict[str, Any], reader: Reader, topology: Topology) -> None:
        self.findings, self.reader, self.topology = findings, reader, topology
        self.gaps: list[str] = []

    def host_of(self, series: Series) -> str:
        pod = series.pod or ""
        return series.node or self.topology.node_of(pod) or pod or "(unknown)"

    def series_of(self, answer: Optional[Answer], target: Target) -> Optional[Series]:
        """The culprit's series with points around the crash: its pod's, else its host's."""
        if answer is None:
            return None
        culprit = target.culprit
        mine = [s for s in answer.series if self.host_of(s) == culprit.host]
        mine.sort(key=lambda s: s.pod != culprit.pod)
        return next((s for s in mine if _near(s, target.crash, answer.period)), None)

    def measure(self, answer: Answer, series: Series, point: Point) -> Measure:
        if answer.reading.unit == "share":
            return Measure(series, point, point.value)
        limits = self.reader.read(answer.reading.limit)
        limit_series = limits.of_pod(series.pod) if limits else None
        if limit_series is None:
            return Measure(series, point, None)
        before = [p for p in limit_series.points if p.time <= point.time]
        bound = before[-1] if before else limit_series.points[0]
        share = point.value / bound.value if bound.value > 0 else None
        return Measure(series, point, share, bound)

    def peak(self, answer: Answer, series: Series, crash: float) -> Optional[Measure]:
        measures = [self.measure(answer, series, p) for p in _near(series, crash, answer.period)]
        return max(measures, key=Measure.key, default=None)

    def climb(self, answer: Answer, peak: Measure, crash: float) -> Optional[Measure]:
        """The oldest point of the lookback, when it is CLIMB or more below the peak."""
        first = _near(peak.series, crash, answer.period)[0]
        if first == peak.point or peak.share is None:
            return None
        start = self.measure(answer, peak.series, first)
        return start if start.share is not None and start.share <= peak.share - CLIMB else None

    def peer(self, answer: Answer, peak: Measure, target: Target) -> Optional[Measure]:
        """Of the hosts not to blame, the fullest at the peak's instant."""
        candidates = []
        for series in answer.series:
            point = _at(series, peak.point.time)
            if point is not None and self.host_of(series) not in target.blamed:
                candidates.append(self.measure(answer, series, point))
        return max(candidates, key=Measure.key, default=None)

    def cite(self, answer: Answer, series: Series, point: Point, symptom: str) -> str:
        assert answer.aggregation is not None
        reading = answer.reading
        value = (
            f"{_gib(point.value)} GiB ({point.value:.0f} bytes)"
            if reading.unit == "bytes"
            else f"{_pct(point.value)} ({point.value:g})"
        )
        who = f"node {series.node}" if reading.nodes else f"pod {series.pod}"
        return cite_point(
            self.findings,
            metric=answer.metric,
            aggregation=answer.aggregation,
            series=series,
            host=self.host_of(series),
            point=point,
            symptom=symptom,
            quote=f"{reading.what}: {value} at {iso(point.time)} ({who}; maximum over "
            f"{answer.aggregation.period} s periods)",
        )

    def cite_measure(self, answer: Answer, measure: Measure, symptom: str) -> list[str]:
        """The point, and for bytes the limit's point it was measured against."""
        ids = [self.cite(answer, measure.series, measure.point, symptom)]
        limits = self.reader.read(answer.reading.limit)
        limit_series = limits.of_pod(measure.series.pod) if limits else None
        if measure.limit is not None and limits is not None and limit_series is not None:
            ids.append(self.cite(limits, limit_series, measure.limit, symptom))
        return ids

    def gap(self, answer: Optional[Answer], target: Target, found: bool) -> None:
        if answer is None or (found and not answer.partial):
            return
        reading = answer.reading
        about = (
            f"{reading.what} ({reading.action}) of host {target.culprit.host} around "
            f"{target.check.event} at {iso(target.crash)}"
        )
        if answer.partial:
            reason = answer.reason or "read only in part"
            self.gaps.append(f"Cloud Monitoring: {about}: {reason}")
        else:
            self.gaps.append(
                f"Cloud Monitoring: {about}: no point in {self.reader.metrics.describe()} "
                "(the metric may not be exported for it, or the window misses it)"
            )

    def assess(self, target: Target) -> Optional[dict[str, Any]]:
        """Cite the target's decisive points; its item for `findings.metrics.memory`, or None
        when no point of it was read (the gap is named)."""
        check = target.check
        ids: list[str] = []
        peer_ids: list[str] = []
        parts: list[str] = []
        shares: list[float] = []
        value = self.reader.read(check.value)
        series = self.series_of(value, target)
        self.gap(value, target, series is not None)
        peak = self.peak(value, series, target.crash) if value and series else None
        if value is not None and peak is not None:
            ids += self.cite_measure(value, peak, check.symptom)
            climb = self.climb(value, peak, target.crash)
            if climb is not None:
                ids += self.cite_measure(value, climb, check.symptom)
            beside = self._beside(check, peak)
            if beside is not None:
                ids.append(beside[0])
            peer = self.peer(value, peak, target)
            if peer is not None:
                peer_ids += self.cite_measure(value, peer, check.symptom)
            parts.append(
                _value_story(
                    check,
                    target,
                    peak,
                    climb,
                    (self.host_of(peer.series), peer) if peer else None,
                    beside[1] if beside else None,
                    value.period,
                )
            )
            shares.append(peak.share or 0.0)
        node = self.reader.read(check.node)
        node_series = self.series_of(node, target)
        self.gap(node, target, node_series is not None)
        node_peak = self.peak(node, node_series, target.crash) if node and node_series else None
        if node is not None and node_peak is not None:
            ids += self.cite_measure(node, node_peak, check.symptom)
            parts.append(_node_story(target, node_peak, node.period))
            shares.append(node_peak.share or 0.0)
        if not parts:
            return None
        at_limit = max(shares) >= NEAR_LIMIT
        ending = (
            f"corroborates {check.symptom}"
            if at_limit
            else "no climb to a limit at one-minute sampling (an allocation larger than what "
            "was free, or a spike between samples); the log evidence stands"
        )
        return {
            "symptom": check.symptom,
            "host": target.culprit.host,
            "pod": target.culprit.pod,
            "time": iso(target.crash),
            "verdict": "at_limit" if at_limit else "below_limit",
            "summary": "Cloud Monitoring: " + "; ".join(parts) + f" — {ending}",
            "evidence": ids + peer_ids,
            "culprit_evidence": ids,
        }

    def _beside(self, check: Check, peak: Measure) -> Optional[tuple[str, float]]:
        answer = self.reader.read(check.beside)
        series = answer.of_pod(peak.series.pod) if answer else None
        point = _at(series, peak.point.time)
        if answer is None or series is None or point is None:
            return None
        return self.cite(answer, series, point, check.symptom), point.value


def _gib(value: float) -> str:
    text = f"{value / GIB:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _pct(share: float) -> str:
    percent = share * 100
    return f"{percent:.1f}%" if 99 <= percent < 100 else f"{percent:.0f}%"


def _when(point: Point, crash: float, event: str, period: int) -> str:
    """When, against the crash: a point stands for the period that ends at its time."""
    span = "minute" if period == 60 else f"{period} s period"
    lead = crash - point.time
    if lead >= 0:
        return f"{lead:.0f} s before {event} (the {span} ending {iso(point.time)})"
    return f"in the {span} of {event} (the {span} ending {iso(point.time)})"


def _value_story(
    check: Check,
    target: Target,
    peak: Measure,
    climb: Optional[Measure],
    peer: Optional[tuple[str, Measure]],
    beside: Optional[float],
    period: int,
) -> str:
    verb = "reached" if (peak.share or 0.0) >= NEAR_LIMIT else "peaked at"
    when = _when(peak.point, target.crash, check.event, period)
    host = target.culprit.host
    if check.value.unit == "bytes":
        amount = _gib(peak.point.value)
        if peak.limit is not None and peak.share is not None:
            amount += f" of {_gib(peak.limit.value)} GiB ({_pct(peak.share)})"
        else:
            amount += " GiB (no HBM total series: the limit is unknown)"
        text = f"HBM on host {host} {verb} {amount} {when}"
    else:
        used = f" ({_gib(beside)} GiB in use)" if beside is not None else ""
        text = (
            f"the memory of pod {peak.series.pod} on host {host} {verb} "
            f"{_pct(peak.point.value)} of its limit{used} {when}"
        )
    if climb is not None and climb.share is not None:
        earlier = (
            f"{_gib(climb.point.value)} GiB" if check.value.unit == "bytes" else _pct(climb.share)
        )
        text += f", up from {earlier} at {iso(climb.point.time)}"
    if peer is not None and peer[1].share is not None and peak.share is not None:
        other, share = peer[0], peer[1].share
        if share <= peak.share - CONTRAST:
            text += f"; the fullest other host then, {other}, was at {_pct(share)}"
        else:
            text += f"; other hosts were as full then ({other} at {_pct(share)}): not one host's"
    return text


def _node_story(target: Target, peak: Measure, period: int) -> str:
    share = peak.share if peak.share is not None else peak.point.value
    pressure = " — node memory pressure" if share >= NEAR_LIMIT else ""
    when = _when(peak.point, target.crash, target.check.event, period)
    return f"node {target.culprit.host} was at {_pct(share)} of its allocatable memory {when}{pressure}"


def amend_memory(
    wiki: Wiki,
    findings: dict[str, Any],
    disruptions: list[Disruption],
    metrics: Any,
    window: tuple[float, float],
    topology: Topology,
) -> None:
    """Step 6 of the method (metric_evidence): memory points on every OOM's row."""
    if metrics is None or not getattr(metrics, "available", True):
        return  # no metric source, or a bundle without metrics/: nothing was promised
    found = targets(findings, disruptions)
    if not found:
        return
    nodes = sorted({t.culprit.host for t in found})
    reader = Reader(wiki, metrics, findings["workload"], window, nodes)
    assessor = Assessor(findings, reader, topology)
    items = []
    for target in found:
        item = assessor.assess(target)
        if item is None:
            continue
        row = target.row
        row["evidence"].extend(i for i in item["evidence"] if i not in row["evidence"])
        row["summary"] = f"{row['summary']}; {item['summary']}"
        culprit = next(
            (c for c in findings["culprit_hosts"] if c["host"] == target.culprit.host), None
        )
        if culprit is not None:
            ids = item.pop("culprit_evidence")
            culprit["evidence"].extend(i for i in ids if i not in culprit["evidence"])
        else:
            item.pop("culprit_evidence")
        findings["summary"] += f" {item['summary']}."
        items.append(item)
    data = findings["data"]
    data["missing"].extend(g for g in assessor.gaps if g not in data["missing"])
    summary = data.setdefault("metrics", {"source": metrics.describe(), "calls": 0})
    summary["calls"] = summary.get("calls", 0) + reader.calls
    if items:
        findings.setdefault("metrics", {})["memory"] = items
