"""`mlwiki action ACTION_ID --param k=v …` — run one diagnostic (or, approved, mutating) action."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_FINDING, EXIT_OK, ApprovalRequired, BadInput
from mlwiki.output import add_output_options


def register(subparsers: argparse._SubParsersAction) -> None:
    from mlwiki.engine.options import add_run_options

    parser = subparsers.add_parser(
        "action",
        help=SUMMARIES["action"],
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
            "action failed, 2 bad input, 3 approval needed. Output is bounded for an agent: the "
            "first --limit entries (quotes of at most 500 characters) and stdout clipped; --out "
            "FILE keeps everything."
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
    add_output_options(
        parser,
        filters=("host",),
        limit_help="show at most N of the entries a log query found (default %(default)s)",
    )
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
    if run.window and action.kind == "log_query":
        data["window"] = run.window
    source = run.report()
    if source:
        data["source"] = source
    from mlwiki.commands.run import _say_default_window
    from mlwiki.output import cli_result

    if action.kind == "log_query":
        _say_default_window(run.window)
    _print(args.format, cli_result("action", "action", data, args).view, result, run.metrics)
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


def _print(format_: str, view: dict[str, Any], result: Any, metrics: Any = None) -> None:
    from mlwiki.engine.options import printable, shown
    from mlwiki.output import emit_json, print_text

    if format_ == "json":
        emit_json(view)
        return
    label = "filter" if view["kind"] in ("log_query", "metric_query") else "command"
    lines = [f"{view['action']} [{view['status']}] {label}: {shown(view.get(label))}"]
    if view["kind"] == "log_query" and view["status"] == "ok":
        for entry in view.get("entries") or []:
            text = printable(" ".join(str(entry.get("quote") or "").split()))
            lines.append(f"{entry.get('timestamp')} {printable(entry.get('host') or '-')} {text}")
        partial = f" (partial: {view.get('reason')})" if view.get("partial") else ""
        page = view.get("page") or {}
        shown_rows = page.get("shown", 0)
        more = (
            ""
            if shown_rows == view.get("count", 0)
            else f" (showing {shown_rows}; --out FILE for all)"
        )
        lines.append(f"{view.get('count', 0)} entries{partial}{more}")
    elif view["kind"] == "metric_query" and view["status"] == "ok":
        from mlwiki.metrics.report import host_strip_lines

        pod_nodes = getattr(metrics, "pod_nodes", None)
        strip = host_strip_lines(result.series, pod_nodes=pod_nodes, threshold=result.threshold)
        lines += [printable(line) for line in strip]
        partial = f" (partial: {view.get('reason')})" if view.get("partial") else ""
        lines.append(f"{(view.get('outputs') or {}).get('count')} series{partial}")
    elif view["status"] in ("ok", "failed") and view["kind"] not in ("log_query", "metric_query"):
        lines.append(printable((view.get("outputs") or {}).get("stdout", "")))
    print_text("\n".join(lines) + "\n", hint="use --format json --out FILE for everything")
