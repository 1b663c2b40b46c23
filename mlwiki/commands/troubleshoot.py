"""`mlwiki troubleshoot` — the whole diagnosis, no LLM needed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mlwiki.errors import EXIT_OK, BadInput
from mlwiki.redact.output import add_no_redact

# Upper bounds of the collection flags: beyond them a value is a typo, not a plan (a day of
# entries.list at the 60/min quota is 86,400 calls; 10^8 entries is far past memory).
MAX_LOG_CALLS = 100_000
MAX_ENTRIES = 100_000_000


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
        help="write the findings JSON to FILE and the Markdown report beside it (FILE with .md); "
        "never over an input",
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
    for flag, value, most in (
        ("--max-log-calls", args.max_log_calls, MAX_LOG_CALLS),
        ("--max-entries", args.max_entries, MAX_ENTRIES),
    ):
        if value is not None and not 1 <= value <= most:
            raise BadInput(f"{flag} {str(value)[:20]}: must be at least 1 and at most {most:,}")
    from mlwiki.wiki_check import check_symptoms

    if args.out is not None:
        from mlwiki.outputs import check_outputs

        # Checked before the diagnosis runs: a wrong --out costs nothing and overwrites nothing.
        check_outputs([args.out, report_path(args.out)], [args.bundle], "--out")
    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    check_symptoms(wiki)
    collection = collection_for(args.workload, args)
    result = analyse(wiki, args.workload, collection, project=args.project)
    for problem in result.findings["data"].get("problems", []):
        print(f"mlwiki troubleshoot: warning: {problem}", file=sys.stderr)
    findings, report = redacted_diagnosis(result, args)
    text = dumps(findings)
    if args.out is not None:
        from mlwiki.outputs import write_atomically

        try:
            write_atomically(args.out, (text + "\n").encode())
            write_atomically(report_path(args.out), report.encode())
        except OSError as error:
            raise BadInput(f"--out: cannot write {args.out}: {error.strerror or error}") from None
    print(
        text if args.format == "json" else report,
        end="\n" if args.format == "json" else "",
    )
    return EXIT_OK


def report_path(out: Path) -> Path:
    """The Markdown report beside `--out FILE`: FILE with `.md` (never FILE itself)."""
    return out.with_suffix(".md") if out.suffix != ".md" else out.with_name(out.name + ".md")


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
