"""Metrics as cited evidence: TPU duty cycle where the logs are silent (stalls, wedged hosts), and
memory before an OOM (HBM, host memory) where the logs already name the crash.

The method (applied after the log diagnosis, with the run's metric source: a bundle's `metrics/`
or Cloud Monitoring; every query is one of the wiki's metric actions over the diagnosis window,
with the aggregation `mlwiki.metrics.export` uses, so an exported bundle holds these answers):
1. Read the duty cycle of the workload's pods with the wiki's own `query-tpu-duty-cycle` action
   (mean over each pod's chips; the alignment period widened for long windows as
   `mlwiki.metrics.export` widens it, so an exported bundle holds this very answer), one call. Each pod's series is mapped to its node through the logs.
2. A host *stopped* when its series still reaches the end of the data, has been at or below
   `IDLE` % for at least `STALL_MIN` seconds to its newest point, and was busy before that
   (a pod that never computed did not stop; a series that ended belongs to a pod that went away,
   which the logs tell).
3. Patterns, judged on the hosts whose series reach the end:
   - *everyone at once*: every host stopped, all within `AT_ONCE` periods of the first — a
     stall of the whole run, no single culprit;
   - *first to stop*: every host stopped, but some (fewer than half) stopped at least `AT_ONCE`
     periods before the rest — the first are the culprits (their peers waited for them);
   - *wrong host*: some hosts stopped while the others stayed busy to the end — the stopped
     hosts are the culprits when they are fewer than half of the hosts.
4. Findings: the pattern's points are cited as evidence (`kind: "metric"`: metric type, series
   labels, aggregation, time, value), and
   - a run whose logs found no disruption gets a `hang` row at the onset, with the culprits as
     its host and culprit hosts; with no root-cause line in the logs the status is
     `inconclusive` (a hang is found, its cause is not), never `no_failure`, so the row's
     `symptom` is null like any inconclusive row's, and the stall (`training-stall`) is what its
     evidence, the cited points, show;
   - a `hang` row the logs found is corroborated: its evidence gains the points, and when it
     names no host the metric culprits become its host and culprit hosts.
5. Missing metrics never pass for health: when metrics were expected (Cloud Monitoring, or a
   bundle with a `metrics/` folder) but the duty cycle could not be read, or came back partial,
   and the logs alone found no disruption or only a hang with no host, the data is marked partial
   and the gap named. A diagnosis the logs make on their own is left as it is. A bundle without
   `metrics/` changes nothing.
6. Memory before an OOM (`mlwiki.diagnose.metric_memory`). For each disruption whose root
   cause is `hbm-oom-runtime` or `host-oom-killed`, and for each of its first `MAX_HOSTS`
   culprit hosts, the crash is the culprit's first root-cause line. Read, once per diagnosis and
   workload-wide (one call each, within the run's metric budget; a verification workflow's
   same query over an interval inside the window is answered from it): HBM in use (the pod's
   fullest chip) and HBM total per pod; or the containers' non-evictable memory as a share of
   their limit and in bytes per pod, plus the node's share of its allocatable memory for the
   culprit nodes. On the culprit's series (its pod's, else its node's), the *peak* is the
   fullest point in the `LOOKBACK` before the crash up to the period that holds it — by share
   of the limit (HBM in use over the same pod's HBM total at that instant). Cited as evidence
   (`kind: "metric"`): the peak and the limit it was measured against; where the lookback
   started, when it was `CLIMB` or more below (the climb); the bytes beside a share; the node's
   peak; and, for contrast, the fullest host not to blame at the peak's instant. The culprit's
   points go on its `culprit_hosts` entry, all of them on the crash's failure row, whose summary
   (and the findings' summary) gains one sentence ("HBM on host X reached 15.8 of 16 GiB (99%)
   in the minute of the OOM …"); `findings.metrics.memory` holds one item per culprit with a
   verdict: `at_limit` (the container, chip or node reached `NEAR_LIMIT` of its limit:
   corroborates) or `below_limit` (no climb visible at one-minute sampling: the log line stands).
   Metrics corroborate and never override: status, root cause, confidence and culprits are the
   logs'. A reading that fails, comes back partial or holds no point of the culprit is named in
   `data.missing` and changes nothing else; a bundle without `metrics/` changes nothing at all.
Every host's strip (a text sparkline per group of identical hosts) goes into `findings.metrics`
for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.diagnose.clock import iso
from mlwiki.diagnose.topology import Topology
from mlwiki.errors import BadInput
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.report import strip_rows
from mlwiki.metrics.series import Point, Series
from mlwiki.metrics.summary import low_start
from mlwiki.wiki import Wiki

DUTY_ACTION = "query-tpu-duty-cycle"
STALL_SYMPTOM = "training-stall"
IDLE = 1.0  # percent: at or below, the chips are not executing
STALL_MIN = 600.0  # seconds idle to the end before a host counts as stopped
AT_ONCE = 2  # alignment periods within which hosts stopping count as "at once"
MAX_CITED_HOSTS = 3
MINORITY = 0.5


@dataclass
class HostSeries:
    host: str
    pod: Optional[str]
    series: Series
    idle_since: Optional[float] = None  # set when the host stopped

    @property
    def newest(self) -> Point:
        return self.series.points[-1]


@dataclass
class DutyView:
    """What the duty-cycle query returned, per host."""

    source: str
    expected: bool  # metrics were to be had: Cloud Monitoring, or a bundle with metrics/
    metric: str = ""
    aggregation: Optional[Aggregation] = None
    hosts: list[HostSeries] = field(default_factory=list)
    partial: bool = False
    reason: Optional[str] = None
    calls: int = 0
    interval: tuple[float, float] = (0.0, 0.0)

    @property
    def end(self) -> float:
        return max((h.newest.time for h in self.hosts), default=0.0)


@dataclass
class Pattern:
    kind: str  # everyone_at_once | first_to_stop | wrong_host
    onset: float
    culprits: list[HostSeries]
    stopped: list[HostSeries]
    busy: list[HostSeries]


def read_duty(
    wiki: Wiki, metrics: Any, workload: str, window: tuple[float, float], topology: Topology
) -> Optional[DutyView]:
    """The duty cycle per host (None when there is no metric source or no duty-cycle action)."""
    if metrics is None or DUTY_ACTION not in wiki.actions:
        return None
    from mlwiki.metrics.export import as_window, workload_query

    expected = getattr(metrics, "available", True)
    view = DutyView(source=metrics.describe(), expected=bool(expected))
    if not expected:
        return view
    text, aggregation, view.metric = workload_query(wiki, DUTY_ACTION, workload, window)
    view.aggregation = aggregation
    try:
        found = metrics.query(text, aggregation, as_window(window))
    except BadInput as error:  # permission denied, an API that refuses: missing, not fatal
        view.partial, view.reason = True, f"TPU duty cycle could not be read: {error}"
        return view
    view.partial, view.reason, view.interval = found.partial, found.reason, found.interval
    view.calls = found.calls
    for series in found.series:
        if not series.points:
            continue
        pod = series.pod
        node = series.node or (topology.node_of(pod) if pod else None)
        view.hosts.append(HostSeries(node or pod or "(unknown)", pod, series))
    return view


def _stopped(view: DutyView) -> list[HostSeries]:
    period = view.aggregation.period if view.aggregation else 60
    end = view.end
    stopped = []
    for host in view.hosts:
        since = low_start(host.series, IDLE)
        if since is None or end - host.newest.time > period * AT_ONCE:
            continue
        was_busy = any(p.value > IDLE for p in host.series.points if p.time < since)
        if was_busy and host.newest.time - since >= STALL_MIN:
            host.idle_since = since
            stopped.append(host)
    return stopped


def find_pattern(view: DutyView) -> Optional[Pattern]:
    period = view.aggregation.period if view.aggregation else 60
    active = [h for h in view.hosts if view.end - h.newest.time <= period * AT_ONCE]
    stopped = _stopped(view)
    if not active or not stopped:
        return None
    busy = [h for h in active if h.newest.value > IDLE]
    ordered = sorted(stopped, key=lambda h: (h.idle_since or 0.0, h.host))
    onset = ordered[0].idle_since or 0.0
    if len(stopped) == len(active):
        first = [h for h in ordered if (h.idle_since or 0.0) - onset < period * AT_ONCE]
        if len(first) < len(active) * MINORITY:
            return Pattern("first_to_stop", onset, first, ordered, busy)
        return Pattern("everyone_at_once", onset, [], ordered, busy)
    if busy and len(stopped) < len(active) * MINORITY:
        return Pattern("wrong_host", onset, ordered, ordered, busy)
    return None


def _point_before(host: HostSeries, moment: float) -> Optional[Point]:
    before = [p for p in host.series.points if p.time < moment]
    return before[-1] if before else None


def _point_at(host: HostSeries, moment: float) -> Optional[Point]:
    return next((p for p in host.series.points if p.time == moment), None)


def cite_point(
    findings: dict[str, Any],
    *,
    metric: str,
    aggregation: Aggregation,
    series: Series,
    host: Optional[str],
    point: Point,
    symptom: str,
    quote: str,
) -> str:
    """Append a metric evidence item for `point` of `series` (once) and return its id."""
    labels = series.label_view()
    stamp = iso(point.time)
    for item in findings["evidence"]:
        if (
            item.get("kind") == "metric"
            and item.get("metric") == metric
            and item.get("timestamp") == stamp
            and item.get("labels") == labels
        ):
            return str(item["id"])
    evidence_id = f"E{len(findings['evidence']) + 1}"
    findings["evidence"].append(
        {
            "id": evidence_id,
            "kind": "metric",
            "metric": metric,
            "labels": labels,
            "aggregation": aggregation.to_spec(),
            "timestamp": stamp,
            "value": point.value,
            "host": host,
            "pod": series.pod,
            "symptom": symptom,
            "quote": quote,
        }
    )
    return evidence_id


def cite(findings: dict[str, Any], view: DutyView, host: HostSeries, point: Point) -> str:
    """Cite a duty-cycle point of `host`."""
    assert view.aggregation is not None
    return cite_point(
        findings,
        metric=view.metric,
        aggregation=view.aggregation,
        series=host.series,
        host=host.host,
        point=point,
        symptom=STALL_SYMPTOM,
        quote=f"TPU duty cycle {point.value:g}% at {iso(point.time)} "
        f"(pod {host.pod}: mean over its chips, {view.aggregation.period} s periods)",
    )


def _pattern_evidence(
    findings: dict[str, Any], view: DutyView, pattern: Pattern
) -> dict[str, list[str]]:
    """Evidence ids per host: for each cited stopped host its last busy point, the first idle
    point and the newest; for a wrong host also one busy peer's newest point."""
    cited: dict[str, list[str]] = {}
    hosts = pattern.culprits or pattern.stopped
    for host in hosts[:MAX_CITED_HOSTS]:
        since = host.idle_since or host.newest.time
        points = [_point_before(host, since), _point_at(host, since), host.newest]
        cited[host.host] = [cite(findings, view, host, p) for p in points if p is not None]
    for peer in pattern.busy[:1]:
        cited[peer.host] = [cite(findings, view, peer, peer.newest)]
    return cited


def _story(view: DutyView, pattern: Pattern) -> str:
    minutes = round((view.end - pattern.onset) / 60)
    count = len(pattern.stopped) + len([b for b in pattern.busy if b not in pattern.stopped])
    names = ", ".join(h.host for h in pattern.culprits[:MAX_CITED_HOSTS])
    if pattern.kind == "everyone_at_once":
        return (
            f"Cloud Monitoring: the TPU duty cycle of all {len(pattern.stopped)} hosts fell to "
            f"{IDLE:g}% or less at {iso(pattern.onset)} and stayed there for {minutes} min — "
            "the whole run stopped executing at once, with no error line in the logs"
        )
    if pattern.kind == "first_to_stop":
        return (
            f"Cloud Monitoring: the TPU duty cycle of {names} fell to {IDLE:g}% or less at "
            f"{iso(pattern.onset)}, before the other hosts' ({count} in all) — the first to stop "
            "is where the run hangs"
        )
    return (
        f"Cloud Monitoring: the TPU duty cycle of {names} has been {IDLE:g}% or less since "
        f"{iso(pattern.onset)} ({minutes} min) while {len(pattern.busy)} other host(s) stayed "
        "busy — that host is wedged or its process is stuck"
    )


def _add_culprits(findings: dict[str, Any], pattern: Pattern, cited: dict[str, list[str]]) -> None:
    known = {c["host"]: c for c in findings["culprit_hosts"]}
    for host in pattern.culprits:
        ids = cited.get(host.host) or []
        if not ids:
            continue
        item = known.get(host.host)
        if item is None:
            item = {"host": host.host, "evidence": []}
            if host.pod:
                item["pod"] = host.pod
            findings["culprit_hosts"].append(item)
            known[host.host] = item
        item["evidence"].extend(i for i in ids if i not in item["evidence"])


def _run_options(findings: dict[str, Any]) -> str:
    import shlex

    workload = shlex.quote(str(findings["workload"]))
    bundles = [
        s for s in findings["data"].get("sources") or [] if not str(s).startswith("projects/")
    ]
    if len(bundles) == 1:
        return f"--param workload={workload} --bundle {shlex.quote(str(bundles[0]))}"
    window = findings["window"]
    project = shlex.quote(findings.get("project") or "PROJECT_ID")
    return (
        f"--param workload={workload} --project {project} "
        f"--start {window['start']} --end {window['end']}"
    )


def amend(wiki: Wiki, findings: dict[str, Any], view: Optional[DutyView]) -> Optional[Pattern]:
    """Apply the method of the module docstring to the log diagnosis' findings."""
    if view is None or not view.expected:
        return None
    hang_rows = [r for r in findings["failures"] if r["kind"] == "hang"]
    only_silence = not findings["failures"] or (
        len(hang_rows) == len(findings["failures"]) and not any(r["host"] for r in hang_rows)
    )
    data = findings["data"]
    data["metrics"] = {
        "source": view.source,
        "metric": view.metric,
        "hosts": len(view.hosts),
        "calls": view.calls,
        "partial": view.partial,
    }
    gap = None
    if view.partial:
        gap = view.reason or "the TPU duty cycle was read only in part"
    elif not view.hosts:
        gap = (
            f"no TPU duty-cycle series of the workload's pods in {view.source} (GKE system "
            "metrics off, a runtime that exports none, other pod names, or a window too recent)"
        )
    if gap:
        data["missing"].append(gap)
        if only_silence:
            _mark_partial(findings, gap)
    pattern = find_pattern(view) if view.hosts else None
    if view.hosts:
        _strip(findings, view)
    if pattern is None:
        return None
    cited = _pattern_evidence(findings, view, pattern)
    ids = [i for host_ids in cited.values() for i in host_ids]
    story = _story(view, pattern)
    culprit = pattern.culprits[0].host if pattern.culprits else None
    if hang_rows:
        row = hang_rows[0]
        row["evidence"].extend(i for i in ids if i not in row["evidence"])
        row["summary"] = f"{row.get('summary', '')}; {story}".lstrip("; ")
        if row["host"] is None and culprit:
            row["host"] = culprit
            _add_culprits(findings, pattern, cited)
        findings["summary"] += f" {story}."
        return pattern
    if findings["failures"]:
        return pattern  # the logs found another kind of disruption: they explain the run
    findings["failures"].append(
        {
            "time": iso(pattern.onset),
            "kind": "hang",
            "symptom": None,  # inconclusive: the stall is what its evidence shows, not a cause
            "host": culprit,
            "summary": f"inconclusive: {story}",
            "evidence": ids,
        }
    )
    _add_culprits(findings, pattern, cited)
    where = ", ".join(h.host for h in pattern.culprits) or "no single host"
    findings["status"] = "inconclusive"
    findings["summary"] = (
        f"1 disruption(s) of {findings['workload']}. #1 at {iso(pattern.onset)} (hang): "
        f"unexplained; evidence {STALL_SYMPTOM} on {where}. {story}. Inconclusive: no "
        "root-cause line in the logs; the metrics show that and when the run stopped, not why."
    )
    page = wiki.symptoms.get(STALL_SYMPTOM)
    if page is not None and page.workflow:
        findings["next_steps"].insert(
            0,
            {
                "step": f"Verify {STALL_SYMPTOM} with its workflow: mlwiki run {page.workflow} "
                f"{_run_options(findings)}",
                "symptom": STALL_SYMPTOM,
                "workflow": page.workflow,
            },
        )
    return pattern


def _mark_partial(findings: dict[str, Any], gap: str) -> None:
    findings["data"]["partial"] = True
    if findings["status"] == "no_failure":
        findings["status"] = "inconclusive"
        findings["summary"] = (
            f"No disruption of {findings['workload']} found in the logs, but that is not health: "
            f"{gap}. Inconclusive: the data is partial."
        )


def _strip(findings: dict[str, Any], view: DutyView) -> None:
    assert view.aggregation is not None
    start, end = view.interval
    series = [h.series for h in view.hosts]
    hosts = {id(h.series): h.host for h in view.hosts}
    rows = strip_rows(series, start, end, host_of=lambda s: hosts.get(id(s)), threshold=IDLE)
    findings["metrics"] = {
        "duty_cycle": {
            "metric": view.metric,
            "source": view.source,
            "start": iso(start),
            "end": iso(end),
            "period_seconds": view.aggregation.period,
            "hosts": len(view.hosts),
            "rows": [r.to_dict() for r in rows],
        }
    }
