"""`mlwiki run WORKFLOW_ID --param k=v …` — run one workflow: steps, conditions, verdict."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mlwiki.errors import EXIT_NEEDS_APPROVAL, EXIT_OK
from mlwiki.redact.output import add_no_redact


def register(subparsers: argparse._SubParsersAction) -> None:
    from mlwiki.engine.options import add_run_options

    parser = subparsers.add_parser(
        "run",
        help="run one workflow (the diagnosis of one failure mode)",
        description=(
            "Run a workflow of the wiki (_wiki/workflows/ID.json): its steps in order, with "
            "their conditions, then the first conclusion that applies (confirmed, refuted or "
            "inconclusive). --dry-run prints each step's exact command or filter and runs "
            "nothing. A step that changes the cluster runs only with --approve STEP=DIGEST, the "
            "digest of its exact command that a run without it prints (or a 'yes' at the prompt "
            "on a terminal a person drives); a changed command asks again. Exit 0 done (whatever "
            "the verdict), 2 bad input, 3 a step awaits approval."
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
    add_no_redact(parser)
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
    source = run.report()
    if source:
        data["source"] = source
    from mlwiki.redact.output import OutputRedaction

    redaction = OutputRedaction.of(args, [data])
    with redaction.stdout():
        if args.format == "json":
            from mlwiki.output import emit_json

            emit_json(redaction.obj(data))
        else:
            _print_text(result)
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


def _print_text(result: Any) -> None:
    from mlwiki.engine.options import printable, shown

    print(f"workflow {result.workflow} (symptom {result.symptom})")
    for step in result.steps:
        print(f"  [{step.status}] {step.id} ({step.uses})")
        if step.rendered is not None:
            print(f"      {shown(step.rendered)}")
        if step.unresolved:
            print(f"      unresolved until earlier steps run: {', '.join(step.unresolved)}")
        for name in ("note", "error"):
            if getattr(step, name):
                print(f"      {name}: {printable(getattr(step, name))}")
        if step.status == "ok" and step.kind == "log_query":
            print(f"      {step.outputs.get('count', 0)} entries")
    if result.verdict:
        print(f"verdict: {result.verdict}: {printable(result.summary)}")
    else:
        print(result.summary)
