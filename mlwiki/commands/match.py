"""`mlwiki match` — the router's step alone: what any symptom signature matches, as the diagnosis
sees it (each written record that GKE split into one entry per line matched once: see
`mlwiki.diagnose.continuation`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mlwiki.commands import SUMMARIES
from mlwiki.errors import BadInput
from mlwiki.output import add_output_options

ROWS = 25  # rows shown by default: about 15,000 characters of JSON


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "match",
        help=SUMMARIES["match"],
        description=(
            "Read log entries (an offline bundle, or Cloud Logging) once and print every "
            "symptom match the diagnosis sees: insertId, timestamp, symptom, role, host, quote "
            "(plus pod, layer, captures). A written record that GKE split into one entry per "
            "line (a traceback, a JSON error body, glog continuation lines, a wrapped message) "
            "is matched once, as one text: its row cites the decisive line, and `record` says "
            "how many entries the record holds (first and last insertId) with an excerpt of "
            "the lines around it. With WORKLOAD, only matches about that JobSet's pods and "
            "nodes. Prints one summary line per symptom (role, count, hosts, first and last "
            "time) and the first --limit rows after the filters; --offset pages on, --out FILE "
            "keeps every row."
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
    add_output_options(parser, limit_help="show at most N matching rows (default 25)")
    parser.set_defaults(handler=handle, limit=ROWS)


def match_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    from mlwiki.diagnose import match
    from mlwiki.diagnose.collect import collection_for
    from mlwiki.wiki import find_wiki_root, load_wiki
    from mlwiki.wiki_check import check_symptoms

    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    check_symptoms(wiki)
    collection = collection_for(args.workload, args)
    rows, problems = match.match_rows(
        wiki.symptoms.values(), collection.entries, args.workload, store=collection.store
    )
    for problem in problems:
        print(f"mlwiki match: warning: {problem}", file=sys.stderr)
    return rows


def handle(args: argparse.Namespace) -> int:
    from mlwiki.engine.params import ParamSpec, validate
    from mlwiki.output import cli_result, print_text, print_view

    if args.bundle is None and args.project is None:
        raise BadInput("--bundle or --project: say where the log entries are")
    if args.bundle is not None and args.project is not None:
        raise BadInput("--bundle and --project: match reads one of them; give either")
    if args.workload is not None:
        validate(ParamSpec("workload", "k8s_name"), args.workload, "WORKLOAD")
    if args.project is not None:
        validate(ParamSpec("project", "project_id"), args.project, "--project")
    rows = match_rows(args)
    presented = cli_result("match", "matches", {"matches": rows}, args)
    if args.format == "json":
        print_view(presented)
        return 0
    view = presented.view
    lines = [
        f"{s['symptom']} ({s['role']}): {s['count']} match(es) on {s['hosts']} host(s), "
        f"{s['first']} → {s['last']}"
        for s in view.get("symptoms") or []
    ]
    for row in view.get("matches") or []:
        quote = " ".join(str(row.get("quote") or "").split())
        record = row.get("record")
        lines.append(
            f"{row['timestamp']}  {row['symptom']} ({row['role']})  {row.get('host') or '-'}  "
            f"{row.get('insertId')}  {quote!r}"
            + (f"  (record of {record['entries']} entries)" if isinstance(record, dict) else "")
        )
    page = view.get("page") or {}
    more = (
        f"; more with --offset {page['next_offset']}" if page.get("next_offset") is not None else ""
    )
    lines.append(
        f"{view.get('count', len(rows))} match(es); showing {page.get('shown', 0)} from "
        f"{page.get('offset', 0)}{more}"
    )
    print_text("\n".join(lines) + "\n", hint="use --limit/--offset/--host/--symptom/--role")
    return 0
