"""`mlwiki snapshot [--context C] [--namespace N] --out DIR` — record cluster state with kubectl."""

from __future__ import annotations

import argparse
from pathlib import Path

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "snapshot",
        help=SUMMARIES["snapshot"],
        description=(
            "Record the cluster's nodes, pods, JobSets and events into DIR as nodes.json, "
            "pods.json, jobsets.json and events.json — each exactly what `kubectl get KIND -A "
            "-o json` prints (the kubectl on PATH, with your kubeconfig). Read-only. Without the "
            "JobSet CRD, jobsets.json is an empty List. Used by `mlwiki dashboard --snapshot` "
            "and in bundles."
        ),
    )
    parser.add_argument("--context", metavar="C", help="kubectl context (default: current)")
    parser.add_argument("--namespace", metavar="N", help="one namespace (default: all)")
    parser.add_argument("--out", metavar="DIR", required=True, help="folder to write into")
    parser.add_argument(
        "--format", choices=("json", "text"), default="text", help="report format (default text)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.errors import BadInput
    from mlwiki.snapshot import take_snapshot

    # Checked before kubectl runs, so a mistyped --out costs nothing.
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BadInput(f"--out {args.out}: is a file; give a folder to write the snapshot into")
    report = take_snapshot(Path(args.out), context=args.context, namespace=args.namespace)
    if args.format == "json":
        from mlwiki.output import emit_json

        emit_json(report.to_dict())
    else:
        for file, count in report.files.items():
            print(f"{report.out / file}: {count} items")
        for note in report.notes:
            print(f"note: {note}")
    return EXIT_OK
