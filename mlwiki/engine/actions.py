"""Running one action: validate its parameters, render it, pass the approval gate, run, audit.

- `log_query`: the rendered filter goes to the run's log session (`session.query(filter)`, see
  `LogSource`), and the result carries the standard outputs: `count`, `hosts` (node names),
  `pods`, `first_timestamp`, `last_timestamp`, `first_host`, `first_text` (its first
  FIRST_TEXT_CHARS characters: it goes into verdict summaries), and one list per
  `extract` name (every match of its one RE2 group over each entry's message text, first-seen
  order, without repeats).
- `metric_query`: the rendered Cloud Monitoring filter, the action's `aggregation` and the run's
  window (`start`/`end`) go to the run's metric source (`mlwiki.metrics.source`: a bundle's
  `metrics/` or Cloud Monitoring); the outputs are those of `mlwiki.metrics.summary` (`count`,
  `min`, `max`, `last`, `flat_since`, `low_since`, `low_hosts`, `high_hosts`, `by_host`, …) over
  the returned series, judged against the action's `threshold` and `tolerance`. No metric source,
  or a source that could not answer fully, makes the result partial with the reason.
- `kubectl` / `gcloud`: the rendered argument list runs through a `CommandRunner` (the real
  program on PATH by default; a bundle's recordings offline); outputs `exit_code`, `stdout`,
  `stderr`, `json` (parsed stdout, or None), `items_count` (len of `json.items` when present).

A mutating action (`requires_approval: true`, or a command that `mlwiki.mutations` judges
mutating — the gate does not trust a wiki file that forgot the flag) runs only after the gate
approves it; the approval is written to the audit log first, and if that write fails the action does
not run. Without an approval the result is `awaiting_approval` and nothing ran. Every run — dry,
read-only or mutating — is audited.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Union

import re2

from mlwiki.engine import params as param_types
from mlwiki.engine.approval import (
    Approval,
    ApprovalGate,
    ApprovalRequest,
    approve_flag,
    argv_digest,
)
from mlwiki.engine.audit import AuditLog, AuditLogError, output_digest
from mlwiki.engine.render import render_command, render_filter, render_metric_filter
from mlwiki.errors import BadInput
from mlwiki.kube import CommandResult, CommandRunner, RecordedRunner, run_command
from mlwiki.logs.entry import entry_host, entry_pod, entry_text
from mlwiki.mutations import classify
from mlwiki.wiki import Action, Wiki

# Parameters the run context fills when an action declares them and the caller left them out.
CONTEXT_PARAMS = ("project", "start", "end", "workload")
FILTER_KINDS = ("log_query", "metric_query")
DEFAULT_TIMEOUT = 120
FIRST_TEXT_CHARS = 1000


class LogQueryResult(Protocol):
    entries: list[dict[str, Any]]
    count: int
    partial: bool
    reason: Optional[str]


class LogSource(Protocol):
    """What a log query needs from a run's log data (an offline bundle or Cloud Logging)."""

    def query(self, filter_text: str) -> LogQueryResult: ...


@dataclass(frozen=True)
class RunContext:
    """Values from the command line (`--project`, the window, the workload) for context params."""

    project: Optional[str] = None
    start: Optional[str] = None
    end: Optional[str] = None
    workload: Optional[str] = None

    def values(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in CONTEXT_PARAMS if getattr(self, name)}

    def merged(self, params: Mapping[str, Any]) -> RunContext:
        """This context with the same-named values of `params` taking precedence."""
        given = {name: str(params[name]) for name in CONTEXT_PARAMS if params.get(name)}
        return RunContext(**{**self.values(), **given})


@dataclass
class ActionResult:
    action: str
    kind: str
    status: str  # ok | failed | awaiting_approval | dry_run
    params: dict[str, Any] = field(default_factory=dict)
    rendered: Union[list[str], str, None] = None  # argv, or the filter
    outputs: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    partial: bool = False
    reason: Optional[str] = None
    error: Optional[str] = None
    mutating: bool = False
    approval: Optional[Approval] = None
    risk: str = ""
    series: list[dict[str, Any]] = field(default_factory=list)  # metric_query: REST JSON
    aggregation: Optional[dict[str, Any]] = None
    threshold: float = 0.0  # metric_query: what counts as low

    def to_dict(self, with_entries: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "action": self.action,
            "kind": self.kind,
            "status": self.status,
            "params": self.params,
            "mutating": self.mutating,
        }
        data["filter" if self.kind in FILTER_KINDS else "command"] = self.rendered
        if self.kind == "metric_query":
            data["aggregation"] = self.aggregation
        if self.kind == "metric_query" and self.status == "ok":
            if with_entries:
                data["series"] = self.series
            data["partial"] = self.partial
            data["reason"] = self.reason
        if self.kind == "log_query" and self.status == "ok":
            if with_entries:
                data["entries"] = self.entries
            data["count"] = len(self.entries)
            data["partial"] = self.partial
            data["reason"] = self.reason
        data["outputs"] = {k: v for k, v in self.outputs.items() if k != "entries"}
        if self.approval:
            data["approval"] = self.approval.to_dict()
        if self.error:
            data["error"] = self.error
        return data


def resolve_action_params(
    action: Action,
    given: Mapping[str, Any],
    context: Optional[RunContext] = None,
    where: Callable[[str], str] = lambda name: f"--param {name}",
) -> dict[str, Any]:
    """Validated parameters of `action`; declared context params are filled from `context`."""
    specs = param_types.specs_of(action.params)
    fill = {k: v for k, v in (context or RunContext()).values().items() if k in specs}
    return param_types.resolve(specs, given, fill=fill, where=where, owner=f"action {action.id}")


def render(action: Action, values: Mapping[str, Any], wiki: Wiki) -> Union[list[str], str]:
    if action.kind == "log_query":
        return render_filter(action, values, wiki)
    if action.kind == "metric_query":
        return render_metric_filter(action, values)
    if action.kind in ("kubectl", "gcloud"):
        return render_command(action, values)
    raise BadInput(f"{action.path}: action {action.id}: unknown kind {action.kind!r}")


def is_mutating(action: Action, rendered: Union[list[str], str]) -> bool:
    if action.requires_approval:
        return True
    if isinstance(rendered, list) and (not rendered or rendered[0] != action.kind):
        return True  # `/tmp/kubectl`: not the tool found on PATH, so not known to only read
    if isinstance(rendered, list):
        verdict = classify(rendered)
        return verdict is None or verdict.mutating
    return False


def log_outputs(action: Action, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The standard outputs of a log query over `entries` (already in timestamp order)."""
    hosts = [entry_host(e) for e in entries]
    outputs: dict[str, Any] = {
        "count": len(entries),
        "hosts": sorted({h for h in hosts if h}),
        "pods": sorted({p for p in (entry_pod(e) for e in entries) if p}),
        "first_timestamp": entries[0].get("timestamp") if entries else None,
        "last_timestamp": entries[-1].get("timestamp") if entries else None,
        "first_host": next((h for h in hosts if h), None),
        "first_text": entry_text(entries[0])[:FIRST_TEXT_CHARS] if entries else None,
    }
    extract = action.data.get("extract") or {}
    texts = [entry_text(e) for e in entries] if extract else []
    for name, pattern in extract.items():
        try:
            compiled = re2.compile(pattern)
        except re2.error as error:
            raise BadInput(
                f"{action.path}: action {action.id}: extract.{name}: invalid RE2: {error}"
            ) from None
        values: dict[str, None] = {}
        for text in texts:
            for match in compiled.finditer(text):
                if match.group(1):
                    values.setdefault(match.group(1), None)
        outputs[name] = list(values)
    return outputs


def command_outputs(result: CommandResult) -> dict[str, Any]:
    try:
        parsed = json.loads(result.stdout) if result.stdout.strip() else None
    except ValueError:
        parsed = None
    items = parsed.get("items") if isinstance(parsed, dict) else None
    return {
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "json": parsed,
        "items_count": len(items) if isinstance(items, list) else None,
    }


@dataclass
class Executor:
    """What runs actions for one CLI invocation or one workflow run."""

    wiki: Wiki
    session: Optional[LogSource] = None
    runner: Optional[CommandRunner] = None  # default: the real program on PATH
    gate: ApprovalGate = field(default_factory=ApprovalGate)
    audit: AuditLog = field(default_factory=AuditLog)
    dry_run: bool = False
    metrics: Optional[Any] = None  # a mlwiki.metrics.source.MetricSource
    _audit_warned: bool = False

    @property
    def offline(self) -> bool:
        return isinstance(self.runner, RecordedRunner)

    def run(
        self,
        action: Action,
        values: dict[str, Any],
        *,
        approval_key: Optional[str] = None,
        workflow: Optional[str] = None,
        step: Optional[str] = None,
    ) -> ActionResult:
        """Run `action` with already validated `values` (see `resolve_action_params`)."""
        rendered = render(action, values, self.wiki)
        result = ActionResult(
            action.id,
            action.kind,
            "dry_run",
            dict(values),
            rendered,
            mutating=is_mutating(action, rendered),
            risk=str(action.data.get("risk", "")),
        )
        record = {"action": action.id, "workflow": workflow, "step": step, "kind": action.kind}
        if self.dry_run:
            self._audit({**record, **self._run_fields(result)}, sync=False)
            return result
        if result.mutating and not self._approve(action, result, approval_key or action.id, record):
            return result
        if action.kind == "log_query":
            self._query(result)
        elif action.kind == "metric_query":
            self._metric_query(action, result)
        else:
            self._command(action, result)
        self._audit({**record, **self._run_fields(result)}, sync=result.mutating)
        return result

    def _approve(
        self, action: Action, result: ActionResult, key: str, record: dict[str, Any]
    ) -> bool:
        assert isinstance(result.rendered, list)
        if self.offline:
            result.status = "failed"
            result.error = "a mutating action cannot run against an offline bundle"
            return False
        target = ", ".join(f"{k}={v}" for k, v in result.params.items())
        request = ApprovalRequest(key, action.id, result.rendered, result.risk, target)
        approval = self.gate.decide(request)
        if approval is None:
            result.status = "awaiting_approval"
            result.error = (
                f"needs approval: not run; rerun with {approve_flag(request, record['workflow'] is not None)} to run exactly this "
                "command" + (f" ({self.gate.refusal})" if self.gate.refusal else "")
            )
            return False
        if approval.argv_sha256 != argv_digest(result.rendered):
            raise BadInput(f"action {action.id}: the approved command is not the one about to run")
        result.approval = approval
        # On disk before the step runs; AuditLogError propagates and nothing runs.
        self.audit.write(
            {
                **record,
                "event": "approval",
                "rendered": result.rendered,
                "argv_sha256": approval.argv_sha256,
                "params": result.params,
                "approval": approval.to_dict(),
                "mutating": True,
                "risk": result.risk,
            },
            sync=True,
        )
        return True

    def _query(self, result: ActionResult) -> None:
        assert isinstance(result.rendered, str)
        if self.session is None:
            result.status = "failed"
            result.error = "a log query needs log data: give --bundle PATH or --project P"
            return
        from mlwiki.logs.query import compile_filter

        compile_filter(result.rendered, f"action {result.action}: filter")
        found = self.session.query(result.rendered)
        result.entries = list(found.entries)
        result.partial = bool(found.partial)
        result.reason = found.reason
        result.outputs = log_outputs(self.wiki.actions[result.action], result.entries)
        result.status = "ok"

    def _metric_query(self, action: Action, result: ActionResult) -> None:
        assert isinstance(result.rendered, str)
        from mlwiki.metrics.aggregate import Aggregation
        from mlwiki.metrics.filter import compile_filter
        from mlwiki.metrics.series import response_json
        from mlwiki.metrics.summary import node_or_pod, summarize
        from mlwiki.timewindow import Window, parse_timestamp

        where = f"{action.path}: action {action.id}"
        compile_filter(result.rendered, f"{where}: filter")
        aggregation = Aggregation.from_spec(action.data.get("aggregation"), f"{where}: aggregation")
        result.aggregation = aggregation.to_spec()
        start, end = result.params.get("start"), result.params.get("end")
        if not start or not end:
            raise BadInput(f"{where}: a metric query needs its window: params start and end")
        window = Window(parse_timestamp(str(start), "start"), parse_timestamp(str(end), "end"))
        if self.metrics is None:
            result.status = "failed"
            result.error = "a metric query needs metrics: give --bundle PATH or --project P"
            return
        found = self.metrics.query(result.rendered, aggregation, window)
        result.series = response_json(found.series)["timeSeries"]
        result.partial, result.reason = found.partial, found.reason
        result.threshold = float(action.data.get("threshold", 0))
        result.outputs = summarize(
            found.series,
            threshold=result.threshold,
            tolerance=float(action.data.get("tolerance", 0)),
            host_of=node_or_pod(getattr(self.metrics, "pod_nodes", None)),
        )
        result.outputs["partial"] = found.partial
        result.status = "ok"

    def _command(self, action: Action, result: ActionResult) -> None:
        assert isinstance(result.rendered, list)
        runner = self.runner or run_command
        timeout = action.data.get("timeout_seconds") or DEFAULT_TIMEOUT
        try:
            done = runner(result.rendered, timeout)
        except BadInput as error:  # program missing, not recorded in the bundle
            result.status = "failed"
            result.error = str(error)
            return
        result.outputs = command_outputs(done)
        if done.exit_code == 0:
            result.status = "ok"
        else:
            result.status = "failed"
            first = next((line for line in done.stderr.splitlines() if line.strip()), "")
            code = "timed out" if done.exit_code is None else f"exit code {done.exit_code}"
            result.error = f"{result.rendered[0]} {code}: {first}".rstrip(": ")

    def _run_fields(self, result: ActionResult) -> dict[str, Any]:
        output: Any = result.entries if result.kind == "log_query" else result.outputs.get("stdout")
        if result.kind == "metric_query":
            output = result.series
        return {
            "event": "run",
            "rendered": result.rendered,
            "argv_sha256": argv_digest(result.rendered)
            if isinstance(result.rendered, list)
            else None,
            "params": result.params,
            "approval": result.approval.to_dict() if result.approval else None,
            "status": result.status,
            "exit_code": result.outputs.get("exit_code"),
            "count": result.outputs.get("count"),
            "output_sha256": output_digest(output or ""),
            "dry_run": result.status == "dry_run",
            "mutating": result.mutating,
            "error": result.error,
        }

    def _audit(self, record: dict[str, Any], *, sync: bool) -> None:
        # The approval of a mutating step is written (and must succeed) in `_approve`, before the
        # step runs; a run record that cannot be written afterwards cannot undo the run, so warn.
        try:
            self.audit.write(record, sync=sync)
        except AuditLogError as error:
            if not self._audit_warned:
                print(f"mlwiki: warning: {error}", file=sys.stderr)
                self._audit_warned = True


def run_action(
    wiki: Wiki,
    action_id: str,
    params: Mapping[str, Any],
    session: Optional[LogSource] = None,
    *,
    context: Optional[RunContext] = None,
    gate: Optional[ApprovalGate] = None,
    dry_run: bool = False,
    runner: Optional[CommandRunner] = None,
    audit: Optional[AuditLog] = None,
    metrics: Optional[Any] = None,
) -> ActionResult:
    """Run one action by id (the library form of `mlwiki action`).

    `params` are raw values (validated here: BadInput names `--param NAME`); `context` fills
    `project`/`start`/`end`/`workload` when the action declares them. A mutating action needs
    `gate` to approve the action id (default: nothing is approved → `awaiting_approval`).
    """
    action = wiki.action(action_id)
    values = resolve_action_params(action, params, context)
    executor = Executor(
        wiki,
        session,
        runner,
        gate or ApprovalGate(),
        audit or AuditLog(),
        dry_run,
        metrics,
    )
    return executor.run(action, values)
