"""`mlwiki action ACTION_ID --param k=v …` — run one diagnostic (or, approved, mutating) action."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mlwiki.errors import EXIT_FINDING, EXIT_OK, ApprovalRequired, BadInput
from mlwiki.redact.output import add_no_redact


def register(subparsers: argparse._SubParsersAction) -> None:
    from mlwiki.engine.options import add_run_options

    parser = subparsers.add_parser(
        "action",
        help="run one action (a log query, metric query, kubectl or gcloud step)",
        description=(
            "Run one action of the wiki (_wiki/actions/ID.json). A log query prints "
            '{"entries": [...], "count": N, "partial": false, ...}; a metric query (Cloud '
            "Monitoring of --project, or the bundle's metrics/) prints its series, its outputs "
            "(min, max, last, low_since, low_hosts, …) and partial (text: a per-host strip); "
            "kubectl/gcloud print their "
            "exit code, stdout and parsed JSON. Values are validated by the action's parameter "
            "types and stay single arguments. A mutating action needs --approve DIGEST, the "
            "digest of its exact command that a run without it prints (or a 'yes' at the prompt "
            "on a terminal a person drives), and is written to the audit log. Exit 0 ok, 1 the "
            "action failed, 2 bad input, 3 approval needed."
        ),
    )
    parser.add_argument("action_id", metavar="ACTION_ID", help="action id (file name)")
    add_run_options(parser)
    parser.add_argument(
        "--approve",
        nargs="?",
        const="",
        metavar="DIGEST",
        help="approve running exactly the command with this digest (printed when the action "
        "awaits approval) if it changes the cluster or a VM",
    )
    add_no_redact(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.engine.actions import Executor, resolve_action_params
    from mlwiki.engine.approval import ApprovalGate, parse_approvals
    from mlwiki.engine.audit import AuditLog
    from mlwiki.engine.options import setup

    run = setup(args)
    action = run.wiki.action(args.action_id)
    values = resolve_action_params(action, run.params, run.context)
    if action.kind == "metric_query" and run.metrics is None and not args.dry_run:
        raise BadInput(
            f"--bundle or --project: action {action.id} is a metric query; say where the metrics are"
        )
    if action.kind == "log_query" and run.session is None and not args.dry_run:
        # A forgotten source is the caller's input to fix (exit 2), not a failed action (exit 1).
        raise BadInput(
            f"--bundle or --project: action {action.id} is a log query; say where the log entries are"
        )
    approvals = parse_approvals([args.approve], action.id) if args.approve is not None else {}
    gate = ApprovalGate(approvals, interactive=True)
    executor = Executor(
        run.wiki, run.session, run.runner, gate, AuditLog(), args.dry_run, run.metrics
    )
    result = executor.run(action, values)
    data = result.to_dict()
    source = run.report()
    if source:
        data["source"] = source
    from mlwiki.redact.output import OutputRedaction

    redaction = OutputRedaction.of(args, [data])
    with redaction.stdout():
        _print(args.format, redaction.obj(data), result, run.metrics)
    if result.status == "awaiting_approval":
        from mlwiki.engine.options import shown

        raise ApprovalRequired(
            f"action {action.id} changes the cluster or a VM and was not run: "
            f"{shown(result.rendered)}; {result.error}"
        )
    if result.status == "failed":
        print(f"mlwiki action: {result.error}", file=sys.stderr)
        return EXIT_FINDING
    return EXIT_OK


def _print(format_: str, data: dict[str, Any], result: Any, metrics: Any = None) -> None:
    from mlwiki.engine.options import printable, shown
    from mlwiki.logs.entry import entry_host, entry_text
    from mlwiki.output import emit_json

    if format_ == "json":
        emit_json(data)
        return
    out = sys.stdout
    label = "filter" if result.kind in ("log_query", "metric_query") else "command"
    print(f"{result.action} [{result.status}] {label}: {shown(result.rendered)}", file=out)
    if result.kind == "log_query" and result.status == "ok":
        for entry in data.get("entries", result.entries):
            text = printable(entry_text(entry).splitlines()[0] if entry_text(entry) else "")
            host = entry_host(entry) or "-"
            print(f"{entry.get('timestamp')} {printable(host)} {text[:200]}", file=out)
        partial = f" (partial: {result.reason})" if result.partial else ""
        print(f"{len(result.entries)} entries{partial}", file=out)
    elif result.kind == "metric_query" and result.status == "ok":
        from mlwiki.metrics.report import host_strip_lines

        pod_nodes = getattr(metrics, "pod_nodes", None)
        lines = host_strip_lines(result.series, pod_nodes=pod_nodes, threshold=result.threshold)
        for line in lines:
            print(printable(line), file=out)
        partial = f" (partial: {result.reason})" if result.partial else ""
        print(f"{result.outputs.get('count')} series{partial}", file=out)
    elif result.status in ("ok", "failed") and result.kind not in ("log_query", "metric_query"):
        out.write(printable(str(data["outputs"].get("stdout", ""))))
