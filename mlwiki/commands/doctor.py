"""`mlwiki doctor` — check the prerequisites of a live diagnosis, each with its fix."""

from __future__ import annotations

import argparse

from mlwiki.commands import SUMMARIES
from mlwiki.output import emit_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help=SUMMARIES["doctor"],
        description=(
            "Check Python, gcloud, kubectl, gke-gcloud-auth-plugin, application default credentials, "
            "the read roles on --project (Logs, Kubernetes Engine, Compute, Monitoring Viewer) and, "
            "with --bucket, object admin on the handoff bucket. With --agents instead: run the "
            "Claude Code and Antigravity hooks as those agents do, from the repository root, "
            "from .agents/ and from a subdirectory, on both agents' payloads, and check their "
            "answers and the permission rules. Exit 1 when something is missing."
        ),
    )
    parser.add_argument("--project", help="project whose read roles to test")
    parser.add_argument("--bucket", help="handoff bucket whose object-admin permissions to test")
    parser.add_argument(
        "--agents",
        action="store_true",
        help="self-test the agents' guard rails (hooks, permissions, generated files, MCP config)",
    )
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.doctor import as_report, run_checks
    from mlwiki.engine.params import ParamSpec, validate
    from mlwiki.handoff.gcs import check_bucket_name

    # Malformed names are bad input (exit 2), not a failed check; `gs://B` is accepted as B.
    if args.project is not None:
        validate(ParamSpec("project", "project_id"), args.project, "--project")
    bucket = check_bucket_name(args.bucket) if args.bucket is not None else None
    if args.agents:
        from mlwiki.doctor_agents import run_agent_checks
        from mlwiki.wiki import find_wiki_root

        checks = run_agent_checks(find_wiki_root(explicit=args.wiki).parent)
    else:
        checks = run_checks(args.project, bucket)
    report = as_report(checks)
    if args.format == "json":
        emit_json(report)
    else:
        for check in checks:
            line = f"[{check.status:>7}] {check.name}: {check.detail}"
            print(
                line
                + (f"\n          fix: {check.fix}" if check.fix and check.status != "ok" else "")
            )
    return 0 if report["ok"] else 1
