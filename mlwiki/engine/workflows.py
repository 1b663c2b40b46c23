"""Running a workflow: steps in order with conditions, outputs, approvals and a verdict.

Library entry point (used by `mlwiki run`, `mlwiki troubleshoot` and the MCP server)::

    run = run_workflow(wiki, "verify-hbm-oom", {"workload": "llm-pretrain"}, session,
                       context=RunContext(start=..., end=...))
    run.verdict, run.summary, run.steps, run.outputs, run.entries

Semantics:
- Workflow params are validated first (`--param NAME: …` errors, exit 2). The run context
  (`--project`, the window, the workload) fills declared `project`/`start`/`end`/`workload`
  params; a step's action gets those four from `with`, else from the workflow's params of that
  name, else from the context.
- A step runs when its `if` is true. An `if` or a `with` template that needs an output an earlier
  step did not produce (skipped, failed) skips the step, with a note saying why.
- A step whose action fails stops the run (later steps `skipped`, verdict `inconclusive`) unless
  it has `continue_on_error: true`. A mutating step without an approval of that step id is
  `awaiting_approval`: nothing ran, the run stops, and `run.awaiting_approval` names it.
- Conclusions are tried in order; the first whose `if` is true (or that has none) gives the
  verdict and its rendered summary. A conclusion whose `if` needs a missing output does not apply.
- `refuted` says the evidence is absent, and absence is evidence only where the source could have
  shown it. So before a run says `refuted`, every log query that came back empty is checked for
  sight: its data must be complete (not partial); its window must hold log entries of the
  workload (or, without a workload, any entries); and, in an offline bundle (an export that may
  lack whole sources), the sources a signature query looks through must be in the export at all
  (the query rendered with its `symptom_match` clauses passing everything, at any time; Cloud
  Logging holds the project's every log, so there the query itself is its sight). A blind query turns the verdict
  into `inconclusive`, and the summary says what each one could not see (`WorkflowRun.blind`).
- `dry_run=True` runs nothing: each step shows its exact rendered command or filter; values that
  depend on earlier steps stay as their template and are listed in the step's `unresolved`.
- `run.entries` are the log entries the run's queries returned (the evidence conclusions cite),
  without repeats; `run.partial` is true when any query's data was partial.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from mlwiki.engine import params as param_types
from mlwiki.engine.actions import (
    CONTEXT_PARAMS,
    FILTER_KINDS,
    Executor,
    LogSource,
    RunContext,
    render,
    resolve_action_params,
)
from mlwiki.engine.approval import Approval, ApprovalGate, parse_approvals
from mlwiki.engine.audit import AuditLog
from mlwiki.engine.expressions import (
    Unresolved,
    Where,
    compile_expression,
    evaluate,
    has_template,
    is_true,
    references,
    render_text,
)
from mlwiki.engine.render import render_filter
from mlwiki.errors import BadInput
from mlwiki.kube import CommandRunner
from mlwiki.timewindow import format_timestamp
from mlwiki.wiki import Action, Wiki, Workflow

VERDICTS = ("confirmed", "refuted", "inconclusive")
# The widest window timestamps accept (`mlwiki.timewindow`: 1970 up to, not including, 3000).
EARLIEST, LATEST = "1970-01-01T00:00:00Z", "2999-12-31T23:59:59Z"


@dataclass
class StepRun:
    id: str
    uses: str
    kind: str = ""
    status: str = "skipped"  # ok | skipped | failed | awaiting_approval | dry_run
    params: dict[str, Any] = field(default_factory=dict)
    rendered: Union[list[str], str, None] = None
    outputs: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    partial: bool = False
    mutating: bool = False
    approval: Optional[Approval] = None
    error: Optional[str] = None
    note: Optional[str] = None
    unresolved: list[str] = field(default_factory=list)

    def scope(self) -> dict[str, Any]:
        return {"status": self.status, "outputs": self.outputs}

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "uses": self.uses,
            "kind": self.kind,
            "status": self.status,
            "params": self.params,
            ("filter" if self.kind in FILTER_KINDS else "command"): self.rendered,
            "outputs": self.outputs,
            "mutating": self.mutating,
        }
        if self.kind in FILTER_KINDS and self.status == "ok":
            data["partial"] = self.partial
        for name in ("error", "note"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        if self.unresolved:
            data["unresolved"] = self.unresolved
        if self.approval:
            data["approval"] = self.approval.to_dict()
        return data


@dataclass
class WorkflowRun:
    workflow: str
    symptom: Optional[str]
    params: dict[str, Any]
    steps: list[StepRun] = field(default_factory=list)
    verdict: Optional[str] = None  # None on a dry run
    summary: str = ""
    outputs: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    partial: bool = False
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)
    blind: list[str] = field(default_factory=list)  # why a `refuted` could not be said

    @property
    def awaiting_approval(self) -> list[str]:
        return [s.id for s in self.steps if s.status == "awaiting_approval"]

    def step(self, step_id: str) -> StepRun:
        return next(s for s in self.steps if s.id == step_id)

    def to_dict(self, with_entries: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "workflow": self.workflow,
            "symptom": self.symptom,
            "params": self.params,
            "dry_run": self.dry_run,
            "verdict": self.verdict,
            "summary": self.summary,
            "steps": [s.to_dict() for s in self.steps],
            "outputs": self.outputs,
            "partial": self.partial,
            "awaiting_approval": self.awaiting_approval,
            "notes": self.notes,
        }
        if self.blind:
            data["blind"] = self.blind
        if with_entries:
            data["entries"] = self.entries
        return data


def _expressions(workflow: Workflow) -> Iterable[tuple[str, str, bool, int]]:
    """(place, source, is_template, index of the last step it may read) for every expression."""
    steps = workflow.steps
    for index, step in enumerate(steps):
        sid = step.get("id", f"#{index}")
        if isinstance(step.get("if"), str):
            yield f"step {sid}: if", step["if"], False, index
        for name, value in (step.get("with") or {}).items():
            if isinstance(value, str) and has_template(value):
                yield f"step {sid}: with.{name}", value, True, index
        for name, source in (step.get("outputs") or {}).items():
            yield f"step {sid}: outputs.{name}", source, False, index + 1
    for number, conclusion in enumerate(workflow.data.get("conclusions") or []):
        if isinstance(conclusion.get("if"), str):
            yield f"conclusions[{number}]: if", conclusion["if"], False, len(steps)
        yield (
            f"conclusions[{number}]: summary",
            str(conclusion.get("summary", "")),
            True,
            len(steps),
        )
    for name, source in (workflow.data.get("outputs") or {}).items():
        yield f"outputs.{name}", source, False, len(steps)


def check_workflow(wiki: Wiki, workflow: Workflow) -> None:
    """Authoring errors a run would hit, as one BadInput naming the file, step and expression
    (once per distinct workflow and actions: `mlwiki.wiki_check.check_once`)."""
    from mlwiki.wiki_check import check_once

    check_once(wiki, "run", workflow, lambda: _check_workflow(wiki, workflow))


def _check_workflow(wiki: Wiki, workflow: Workflow) -> None:
    file = workflow.path.name
    ids = [str(step.get("id")) for step in workflow.steps]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise BadInput(f"{file}: steps: duplicate step id {', '.join(duplicates)}")
    for step in workflow.steps:
        action = wiki.action(str(step.get("uses")))
        unknown = sorted(set(step.get("with") or {}) - set(action.params))
        if unknown:
            raise BadInput(
                f"{file}: step {step.get('id')}: with.{unknown[0]}: action {action.id} has no "
                f"parameter {unknown[0]} (it has: {', '.join(sorted(action.params)) or 'none'})"
            )
    for place, source, template, visible in _expressions(workflow):
        where = Where(file, place)
        if not template:
            compile_expression(source, where)
        for scope, name in sorted(references(source, template=template)):
            if scope == "params" and name not in workflow.params:
                raise BadInput(f"{where}: {source!r} uses params.{name}, which is not declared")
            if scope == "steps" and name not in ids[:visible]:
                raise BadInput(
                    f"{where}: {source!r} uses steps.{name}, which is not an earlier step"
                )


def _uses_steps(source: str, template: bool = False) -> bool:
    return any(scope == "steps" for scope, _ in references(source, template=template))


@dataclass
class _Run:
    """The state of one run while its steps execute."""

    wiki: Wiki
    workflow: Workflow
    executor: Executor
    context: RunContext
    result: WorkflowRun
    stopped: Optional[str] = None  # why later steps do not run

    @property
    def file(self) -> str:
        return self.workflow.path.name

    def scope(self, **extra: Any) -> dict[str, Any]:
        steps = {s.id: s.scope() for s in self.result.steps}
        return {"params": self.result.params, "steps": steps, **extra}

    def run_step(self, step: dict[str, Any]) -> StepRun:
        run = StepRun(str(step["id"]), str(step["uses"]))
        action = self.wiki.action(run.uses)
        run.kind = action.kind
        if self.stopped:
            run.note = self.stopped
            return run
        condition = step.get("if")
        if isinstance(condition, str):
            where = Where(self.file, f"step {run.id}: if")
            if self.executor.dry_run and _uses_steps(condition):
                run.note = f"runs only if {condition} (depends on earlier steps)"
            else:
                try:
                    if not is_true(condition, self.scope(), where):
                        run.note = f"condition is false: {condition}"
                        return run
                except Unresolved as missing:
                    run.note = f"condition cannot be evaluated: {missing}"
                    return run
        given = self.with_values(step, run)
        if given is None:
            return run
        where_param = lambda name: f"{self.file}: step {run.id}: with.{name}"  # noqa: E731
        context = self.context.merged(
            {k: v for k, v in self.result.params.items() if k in CONTEXT_PARAMS}
        )
        try:
            if run.unresolved:
                values = self.dry_values(action, given, run.unresolved, context, where_param)
                run.params = values
                run.rendered = render(action, values, self.wiki)
                run.status = "dry_run"
                return run
            values = resolve_action_params(action, given, context, where_param)
            run.params = dict(values)
            done = self.executor.run(
                action, values, approval_key=run.id, workflow=self.workflow.id, step=run.id
            )
        except BadInput as error:
            if self.executor.dry_run:
                raise
            run.status, run.error = "failed", str(error)
            return self.after_failure(step, run)
        run.status, run.rendered, run.mutating = done.status, done.rendered, done.mutating
        run.approval, run.error, run.partial = done.approval, done.error, done.partial
        run.entries = done.entries
        run.outputs = dict(done.outputs)
        if done.status == "ok":
            self.step_outputs(step, run, {**done.outputs, "entries": done.entries})
        elif done.status == "awaiting_approval":
            self.stopped = f"not run: step {run.id} awaits approval"
        elif done.status == "failed":
            return self.after_failure(step, run)
        return run

    def with_values(self, step: dict[str, Any], run: StepRun) -> Optional[dict[str, Any]]:
        """The step's `with` values, templates rendered; None when the step cannot run."""
        values: dict[str, Any] = {}
        for name, value in (step.get("with") or {}).items():
            if not (isinstance(value, str) and has_template(value)):
                values[name] = value
                continue
            where = Where(self.file, f"step {run.id}: with.{name}")
            if self.executor.dry_run and _uses_steps(value, template=True):
                values[name] = value
                run.unresolved.append(name)
                continue
            try:
                values[name] = render_text(value, self.scope(), where)
            except Unresolved as missing:
                run.note = f"not run: {missing}"
                return None
        return values

    @staticmethod
    def dry_values(
        action: Action,
        given: dict[str, Any],
        unresolved: list[str],
        context: RunContext,
        where: Callable[[str], str],
    ) -> dict[str, Any]:
        """Validated values, with unresolved templates kept as their text (dry runs only)."""
        specs = param_types.specs_of(action.params)
        plain = {k: v for k, v in given.items() if k not in unresolved}
        fill = {k: v for k, v in context.values().items() if k in specs}
        resolved = param_types.resolve_partial(specs, plain, fill=fill, where=where)
        return {**resolved.values, **{k: given[k] for k in unresolved}}

    def step_outputs(self, step: dict[str, Any], run: StepRun, result: dict[str, Any]) -> None:
        for name, source in (step.get("outputs") or {}).items():
            where = Where(self.file, f"step {run.id}: outputs.{name}")
            try:
                run.outputs[name] = evaluate(source, self.scope(result=result), where)
            except Unresolved as missing:
                run.outputs[name] = None
                self.result.notes.append(str(missing))

    def after_failure(self, step: dict[str, Any], run: StepRun) -> StepRun:
        if not step.get("continue_on_error"):
            self.stopped = f"not run: step {run.id} failed"
        return run

    def conclude(self) -> None:
        result = self.result
        if result.dry_run:
            result.summary = "dry run: nothing was run, no verdict"
            return
        if self.stopped:
            failed = next(s for s in result.steps if s.status in ("failed", "awaiting_approval"))
            result.verdict = "inconclusive"
            result.summary = f"step {failed.id} {failed.status.replace('_', ' ')}: {failed.error}"
            return
        for number, conclusion in enumerate(self.workflow.data.get("conclusions") or []):
            condition = conclusion.get("if")
            where = Where(self.file, f"conclusions[{number}]")
            try:
                if isinstance(condition, str) and not is_true(condition, self.scope(), where):
                    continue
                summary = render_text(str(conclusion.get("summary", "")), self.scope(), where)
            except Unresolved as missing:
                result.notes.append(f"conclusion does not apply: {missing}")
                continue
            verdict = conclusion.get("verdict")
            result.verdict = verdict if verdict in VERDICTS else "inconclusive"
            result.summary = summary
            if result.verdict == "refuted":
                self.withhold_refutation()
            return
        result.verdict = "inconclusive"
        result.summary = "no conclusion of the workflow applied to what the steps found"

    def withhold_refutation(self) -> None:
        """`refuted` only where the empty queries could have seen the evidence (module docstring)."""
        result = self.result
        for step in result.steps:
            if step.kind != "log_query" or step.status != "ok":
                continue
            if step.partial:
                result.blind.append(f"step {step.id}: the data it read is partial")
            elif not step.entries:
                reason = self.blind_spot(step)
                if reason:
                    result.blind.append(reason)
        if result.blind:
            result.verdict = "inconclusive"
            result.summary = (
                "Inconclusive, not refuted: the logs looked at could not have shown it — "
                + "; ".join(result.blind)
                + ". Widen the window (--start/--end/--since) or check the log source."
            )

    def blind_spot(self, step: StepRun) -> Optional[str]:
        """Why an empty log query saw nothing of the workload, or None when it could have."""
        from mlwiki.engine.render import time_window, workload_selector

        session = self.executor.session
        start, end = step.params.get("start"), step.params.get("end")
        if session is None or not (start and end):
            return None
        workload = step.params.get("workload") or self.result.params.get("workload")
        sight = str(time_window(str(start), str(end)))
        if workload:
            sight += f" AND {workload_selector(str(workload))}"
        if not session.query(sight).count:
            whose = f"of workload {workload} " if workload else ""
            return (
                f"step {step.id} looked at {start} → {end}, which holds no log entries {whose}"
                "at all"
            )
        action = self.wiki.action(step.uses)
        report = _export_report(session)
        if report is not None and "symptom_match" in (action.filter or ""):
            # At any time read: a source exported for other hours was exported for these too.
            always = {**step.params, "start": EARLIEST, "end": LATEST}
            looked_through = render_filter(action, always, self.wiki, coverage=True)
            if not session.query(looked_through).count:
                read = (
                    f"between {format_timestamp(report.window.start)} and "
                    f"{format_timestamp(report.window.end)} (the part of the bundle read)"
                    if report.window
                    else "at all"
                )
                return (
                    f"step {step.id}: the bundle holds none of the entries {action.id} reads: "
                    f"its log sources are not in the export {read}"
                )
        return None

    def workflow_outputs(self) -> None:
        for name, source in (self.workflow.data.get("outputs") or {}).items():
            try:
                self.result.outputs[name] = evaluate(
                    source, self.scope(), Where(self.file, f"outputs.{name}")
                )
            except Unresolved as missing:
                self.result.outputs[name] = None
                self.result.notes.append(str(missing))


def _export_report(session: Any) -> Any:
    """The source report when the run reads an offline bundle (which may lack whole sources)."""
    inner = getattr(session, "session", session)  # a LazySession opens on first use
    report = getattr(inner, "report", None)
    return report if getattr(report, "source", None) == "bundle" else None


def _evidence(steps: list[StepRun]) -> list[dict[str, Any]]:
    seen: set[tuple[Any, Any, Any]] = set()
    entries = []
    for step in steps:
        for entry in step.entries:
            key = (entry.get("logName"), entry.get("timestamp"), entry.get("insertId"))
            if key not in seen:
                seen.add(key)
                entries.append(entry)
    return entries


def run_workflow(
    wiki: Wiki,
    workflow_id: str,
    params: Mapping[str, Any],
    session: Optional[LogSource] = None,
    *,
    context: Optional[RunContext] = None,
    approvals: Iterable[str] = (),
    gate: Optional[ApprovalGate] = None,
    dry_run: bool = False,
    runner: Optional[CommandRunner] = None,
    audit: Optional[AuditLog] = None,
    metrics: Optional[Any] = None,
) -> WorkflowRun:
    """Run workflow `workflow_id` (see the module docstring); raises BadInput on bad params.

    `approvals` are `STEP=DIGEST` flags (each must name a step; the digest binds the step's
    exact command, see `mlwiki.engine.approval`); `gate` replaces them when
    an interactive prompt is wanted. `session` answers log queries; `metrics` (a
    `mlwiki.metrics.source.MetricSource`) answers metric queries; `runner` runs commands (default:
    the real kubectl/gcloud; `mlwiki.kube.RecordedRunner(bundle)` for offline bundles).
    """
    workflow = wiki.workflow(workflow_id)
    check_workflow(wiki, workflow)
    step_ids = [str(step["id"]) for step in workflow.steps]
    approved = {**parse_approvals(approvals), **(gate.approved if gate else {})}
    for step_id in sorted(set(approved) - set(step_ids)):
        raise BadInput(
            f"--approve {step_id}: workflow {workflow.id} has no step {step_id!r} "
            f"(steps: {', '.join(step_ids)})"
        )
    context = context or RunContext()
    specs = param_types.specs_of(workflow.params)
    fill = {k: v for k, v in context.values().items() if k in specs}
    values = param_types.resolve(specs, params, fill=fill, owner=f"workflow {workflow.id}")
    if session is None and not dry_run:
        queries = [
            str(step.get("id"))
            for step in workflow.steps
            if getattr(wiki.actions.get(str(step.get("uses"))), "kind", None) == "log_query"
        ]
        if queries:
            raise BadInput(
                f"--bundle or --project: workflow {workflow.id} queries logs (steps "
                f"{', '.join(queries)}); say where the log entries are"
            )
    if gate is None:
        gate = ApprovalGate(approved)
    executor = Executor(wiki, session, runner, gate, audit or AuditLog(), dry_run, metrics)
    result = WorkflowRun(workflow.id, workflow.symptom, dict(values), dry_run=dry_run)
    state = _Run(wiki, workflow, executor, context, result)
    for step in workflow.steps:
        result.steps.append(state.run_step(step))
    result.entries = _evidence(result.steps)
    result.partial = any(s.partial for s in result.steps)
    state.conclude()
    if not dry_run:
        state.workflow_outputs()
    return result
