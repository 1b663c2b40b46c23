"""`mlwiki troubleshoot` — the whole diagnosis, no LLM needed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mlwiki.errors import EXIT_OK, BadInput
from mlwiki.redact.output import add_no_redact


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "troubleshoot",
        help="diagnose a workload: root cause, culprit hosts, failure table, cited evidence",
        description=(
            "Diagnose WORKLOAD_ID (a JobSet name) from an offline bundle or Cloud Logging: one "
            "pass of every symptom signature over the entries, cause vs cascade per disruption, "
            "the TPU duty cycle per host (the bundle's metrics/, or Cloud Monitoring with "
            "--project) for stalls and wedged hosts the logs are silent about, HBM or host "
            "memory before an HBM OOM or OOM kill (cited, never changing the verdict), the "
            "candidates' "
            "read-only verification workflows, findings with cited evidence. "
            "Prints Markdown (default) or the findings JSON. Exit 0 whatever the status; 2 on "
            "bad input."
        ),
    )
    parser.add_argument("workload", metavar="WORKLOAD_ID", help="JobSet (workload) name")
    parser.add_argument("--project", help="Cloud Logging project id")
    parser.add_argument("--start", help="window start (UTC YYYY-MM-DDTHH:MM:SSZ or relative)")
    parser.add_argument("--end", help="window end")
    parser.add_argument("--since", help='relative window, e.g. "24h"')
    parser.add_argument("--bundle", type=Path, help="offline bundle: file or directory")
    parser.add_argument(
        "--max-log-calls",
        type=int,
        metavar="N",
        help="at most N Cloud Logging entries.list calls (default 50; the read quota is 60/min)",
    )
    parser.add_argument(
        "--max-entries",
        type=int,
        metavar="N",
        help="keep at most N entries (default 500000); more makes the result partial",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="write the findings JSON to FILE and the Markdown report beside it (FILE with .md)",
    )
    parser.add_argument("--format", choices=("md", "json"), default="md")
    add_no_redact(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.diagnose.collect import collection_for
    from mlwiki.diagnose.pipeline import analyse
    from mlwiki.engine.params import ParamSpec, validate
    from mlwiki.output import dumps
    from mlwiki.wiki import find_wiki_root, load_wiki

    if args.bundle is None and args.project is None:
        raise BadInput("--bundle or --project: say where the log entries are")
    # The same checks as the MCP tool: a typo like "llm pretrain" is bad input, not a silent
    # "inconclusive", and a malformed project id is named before any credentials are looked up.
    validate(ParamSpec("workload", "k8s_name"), args.workload, "WORKLOAD_ID")
    if args.project is not None:
        validate(ParamSpec("project", "project_id"), args.project, "--project")
    for flag, value in (
        ("--max-log-calls", args.max_log_calls),
        ("--max-entries", args.max_entries),
    ):
        if value is not None and value < 1:
            raise BadInput(f"{flag} {value}: must be at least 1")
    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    collection = collection_for(args.workload, args)
    result = analyse(wiki, args.workload, collection, project=args.project)
    for problem in result.findings["data"].get("problems", []):
        print(f"mlwiki troubleshoot: warning: {problem}", file=sys.stderr)
    findings, report = redacted_diagnosis(result, args)
    text = dumps(findings)
    if args.out is not None:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(text + "\n", encoding="utf-8")
            args.out.with_suffix(".md").write_text(report, encoding="utf-8")
        except OSError as error:
            raise BadInput(f"--out: cannot write {args.out}: {error.strerror or error}") from None
    print(
        text if args.format == "json" else report,
        end="\n" if args.format == "json" else "",
    )
    return EXIT_OK


def redacted_diagnosis(result: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The findings and the Markdown report as printed: redacted unless --no-redact (each quote
    in the context of its entry, the report rendered from the redacted findings)."""
    from mlwiki.diagnose.pipeline import healthy_notes
    from mlwiki.diagnose.report import render_report
    from mlwiki.redact.output import OutputRedaction

    if getattr(args, "no_redact", False):
        return result.findings, result.report_markdown
    cited = result.cited_entries
    notes = healthy_notes(result.scan, result.disruptions) if result.scan else []
    redaction = OutputRedaction.of(args, [result.findings, list(cited.values()), notes])
    findings = redaction.findings(result.findings, cited)
    return findings, redaction.text(render_report(findings, redaction.obj(notes)))
