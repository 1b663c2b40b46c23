"""`mlwiki match` — the router's step alone: every entry matched by any symptom signature."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mlwiki.errors import BadInput
from mlwiki.redact.output import add_no_redact


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "match",
        help="match every log entry against every symptom signature",
        description=(
            "Read log entries (an offline bundle) once and print every entry × symptom match: "
            "insertId, timestamp, symptom, role, host, quote (plus pod, layer, captures). With "
            "WORKLOAD, only entries about that JobSet's pods and nodes."
        ),
    )
    parser.add_argument(
        "workload", nargs="?", metavar="WORKLOAD", help="JobSet name to restrict to (optional)"
    )
    parser.add_argument("--bundle", type=Path, help="offline bundle: file or directory of entries")
    parser.add_argument("--project", help="Cloud Logging project (with --start/--end/--since)")
    parser.add_argument("--start", help="window start (UTC YYYY-MM-DDTHH:MM:SSZ or relative)")
    parser.add_argument("--end", help="window end")
    parser.add_argument("--since", help='relative window, e.g. "24h"')
    parser.add_argument(
        "--format", choices=("json", "text"), default="text", help="output format (default text)"
    )
    add_no_redact(parser)
    parser.set_defaults(handler=handle)


def match_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    from mlwiki.diagnose import match
    from mlwiki.diagnose.collect import collection_for
    from mlwiki.wiki import find_wiki_root, load_wiki
    from mlwiki.wiki_check import check_symptoms

    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    check_symptoms(wiki)
    collection = collection_for(args.workload, args)
    rows, problems = match.match_rows(wiki.symptoms.values(), collection.entries, args.workload)
    for problem in problems:
        print(f"mlwiki match: warning: {problem}", file=sys.stderr)
    return rows


def handle(args: argparse.Namespace) -> int:
    from mlwiki.engine.params import ParamSpec, validate

    if args.bundle is None and args.project is None:
        raise BadInput("--bundle or --project: say where the log entries are")
    if args.bundle is not None and args.project is not None:
        raise BadInput("--bundle and --project: match reads one of them; give either")
    if args.workload is not None:
        validate(ParamSpec("workload", "k8s_name"), args.workload, "WORKLOAD")
    if args.project is not None:
        validate(ParamSpec("project", "project_id"), args.project, "--project")
    from mlwiki.redact.output import OutputRedaction

    rows = match_rows(args)
    redaction = OutputRedaction.of(args, [rows])
    rows = redaction.obj(rows)
    with redaction.stdout():
        _print(rows, args.format)
    return 0


def _print(rows: list[dict[str, Any]], format_: str) -> None:
    from mlwiki.output import emit_json

    if format_ == "json":
        emit_json({"matches": rows, "count": len(rows)})
        return
    for row in rows:
        quote = " ".join(row["quote"].split())
        print(
            f"{row['timestamp']}  {row['symptom']} ({row['role']})  {row['host'] or '-'}  {quote!r}"
        )
    print(f"{len(rows)} match(es)")
