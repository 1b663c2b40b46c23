"""`mlwiki run WORKFLOW_ID --param k=v …` — run one workflow: steps, conditions, verdict."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_NEEDS_APPROVAL, EXIT_OK
from mlwiki.output import add_output_options


def register(subparsers: argparse._SubParsersAction) -> None:
    from mlwiki.engine.options import add_run_options

    parser = subparsers.add_parser(
        "run",
        help=SUMMARIES["run"],
        description=(
            "Run a workflow of the wiki (_wiki/workflows/ID.json): its steps in order, with "
            "their conditions, then the first conclusion that applies (confirmed, refuted or "
            "inconclusive). --dry-run prints each step's exact command or filter and runs "
            "nothing. A step that changes the cluster runs only with --approve STEP=DIGEST, the "
            "digest of its exact command that a run without it prints (or a 'yes' at the prompt "
            "on a terminal a person drives); a changed command asks again. Exit 0 done (whatever "
            "the verdict), 2 bad input, 3 a step awaits approval. The JSON (default) is bounded "
            "for an agent: the verdict, the summary, the window used, each step's status and "
            "outputs, and the first --limit entries the run found (quotes of at most 500 "
            "characters); --out FILE keeps them all."
        ),
    )
    parser.add_argument("workflow_id", metavar="WORKFLOW_ID", help="workflow id (file name)")
    add_run_options(parser)
    parser.add_argument(
        "--approve",
        action="append",
        default=[],
        metavar="STEP=DIGEST",
        help="approve the mutating step STEP running exactly the command with this digest "
        "(repeatable; the digest is printed when the step awaits approval)",
    )
    parser.add_argument(
        "--no-entries",
        action="store_true",
        help="leave the cited log entries out of the JSON output",
    )
    add_output_options(
        parser,
        filters=("host",),
        limit_help="show at most N of the entries the run found (default %(default)s)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.engine.approval import ApprovalGate, parse_approvals
    from mlwiki.engine.options import setup
    from mlwiki.engine.workflows import run_workflow

    run = setup(args)
    gate = ApprovalGate(parse_approvals(args.approve), interactive=True)
    result = run_workflow(
        run.wiki,
        args.workflow_id,
        run.params,
        run.session,
        context=run.context,
        gate=gate,
        dry_run=args.dry_run,
        runner=run.runner,
        metrics=run.metrics,
    )
    data = result.to_dict(with_entries=not args.no_entries)
    if run.window:
        data["window"] = run.window
    source = run.report()
    if source:
        data["source"] = source
    _say_default_window(run.window)
    from mlwiki.output import cli_result, print_text, print_view

    presented = cli_result("run", "workflow", data, args)
    if args.format == "json":
        print_view(presented)
    else:
        print_text(_text(presented.view), hint="use --format json --out FILE for everything")
    if result.awaiting_approval:
        step = result.step(result.awaiting_approval[0])
        from mlwiki.engine.options import shown

        print(
            f"mlwiki run: step {step.id} changes the cluster or a VM and was not run: "
            f"{shown(step.rendered)}; {step.error or f'rerun with --approve {step.id}=DIGEST'}",
            file=sys.stderr,
        )
        return EXIT_NEEDS_APPROVAL
    return EXIT_OK


def _say_default_window(window: Any) -> None:
    if window and window.get("chosen", "").startswith("the last 24 hours"):
        print(
            f"mlwiki: window {window['start']} → {window['end']}: {window['chosen']}",
            file=sys.stderr,
        )


def _text(view: dict[str, Any]) -> str:
    from mlwiki.engine.options import printable, shown

    lines = [f"workflow {view['workflow']} (symptom {view['symptom']})"]
    if view.get("window"):
        window = view["window"]
        lines.append(f"  window {window['start']} → {window['end']} ({window['chosen']})")
    for step in view["steps"]:
        lines.append(f"  [{step['status']}] {step['id']} ({step['uses']})")
        rendered = step.get("filter", step.get("command"))
        if rendered is not None:
            lines.append(f"      {shown(rendered)}")
        if step.get("unresolved"):
            lines.append(
                f"      unresolved until earlier steps run: {', '.join(step['unresolved'])}"
            )
        for name in ("note", "error"):
            if step.get(name):
                lines.append(f"      {name}: {printable(step[name])}")
        if step["status"] == "ok" and step.get("kind") == "log_query":
            lines.append(f"      {(step.get('outputs') or {}).get('count', 0)} entries")
    if view.get("verdict"):
        lines.append(f"verdict: {view['verdict']}: {printable(view['summary'])}")
    else:
        lines.append(str(view["summary"]))
    return "\n".join(lines) + "\n"
