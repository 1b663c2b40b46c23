"""`mlwiki eval DIR` — score the diagnosis on labelled scenario folders."""

from __future__ import annotations

import argparse
from pathlib import Path

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_FINDING, EXIT_OK, BadInput


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval",
        help=SUMMARIES["eval"],
        description=(
            "Run the diagnosis on every folder under DIR holding expected.json (workload, status, "
            "root_cause, culprit_hosts, failures[kind, symptom, host]) and a bundle; print the "
            "accuracy table. Exit 0 with the table; with --min-accuracy X, exit 1 when the exact "
            "accuracy is below X (0..1)."
        ),
    )
    parser.add_argument("dir", type=Path, metavar="DIR")
    parser.add_argument("--format", choices=("json", "text"), default="text")
    parser.add_argument("--min-accuracy", type=float, metavar="X", help="gate: exit 1 below X")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.eval import evaluate, format_table
    from mlwiki.output import emit_json
    from mlwiki.wiki import find_wiki_root, load_wiki

    if args.min_accuracy is not None and not 0.0 <= args.min_accuracy <= 1.0:
        raise BadInput("--min-accuracy: give a number between 0 and 1")
    report = evaluate(load_wiki(find_wiki_root(explicit=args.wiki)), args.dir)
    if args.format == "json":
        emit_json(report.to_dict())
    else:
        print(format_table(report))
    if args.min_accuracy is not None and report.accuracy() < args.min_accuracy:
        return EXIT_FINDING
    return EXIT_OK
