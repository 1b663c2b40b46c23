"""`mlwiki troubleshoot` — the whole diagnosis, no LLM needed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_OK, BadInput
from mlwiki.output import add_output_options

# Upper bounds of the collection flags: beyond them a value is a typo, not a plan (a day of
# entries.list at the 60/min quota is 86,400 calls; 10^8 entries is far past memory).
MAX_LOG_CALLS = 100_000
MAX_ENTRIES = 100_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "troubleshoot",
        help=SUMMARIES["troubleshoot"],
        description=(
            "Diagnose WORKLOAD_ID (a JobSet name) from an offline bundle or Cloud Logging: one "
            "pass of every symptom signature over the entries, cause vs cascade per disruption, "
            "the TPU duty cycle per host (the bundle's metrics/, or Cloud Monitoring with "
            "--project) for stalls and wedged hosts the logs are silent about, HBM or host "
            "memory before an HBM OOM or OOM kill (cited, never changing the verdict), the "
            "candidates' "
            "read-only verification workflows, findings with cited evidence. "
            "Cloud Logging is read by the live plan: platform sources first, a small job whole, "
            "a large one's evidence pushed into server-side filters with progress sampled, then "
            "the culprits' context; requests paced under the read quota and fetched pages cached "
            "for later commands. Prints Markdown (default) or the findings JSON. Exit 0 whatever "
            "the status; 2 on bad input."
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
        help="at most N Cloud Logging entries.list requests, pages and retries included "
        "(default 50; paced under the read quota of 60 a minute; a partial run's next_steps "
        "name the N that completes it)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither reuse nor keep fetched Cloud Logging pages (~/.cache/mlwiki/logging)",
    )
    parser.add_argument(
        "--as-live",
        action="store_true",
        help="with --bundle: read the bundle the way the live plan reads Cloud Logging (the "
        "same filters, pages, samples and budget), to reproduce what an online run sees",
    )
    parser.add_argument(
        "--max-entries",
        type=int,
        metavar="N",
        help="keep at most N entries (default 500000); more makes the result partial",
    )
    parser.add_argument(
        "--format",
        choices=("md", "json"),
        default="md",
        help="Markdown report (default) or the findings JSON; both bounded for an agent",
    )
    add_output_options(
        parser,
        out="write the full findings JSON to FILE and the full Markdown report beside it (FILE "
        "with .md); stdout keeps the bounded view",
        filters=("host", "symptom"),
        limit_help="show at most N failure rows, culprit hosts and observations, with the "
        "evidence they cite (default %(default)s)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.diagnose.collect import collection_for
    from mlwiki.diagnose.pipeline import analyse
    from mlwiki.engine.params import ParamSpec, validate
    from mlwiki.wiki import find_wiki_root, load_wiki

    if args.bundle is None and args.project is None:
        raise BadInput("--bundle or --project: say where the log entries are")
    if args.as_live and args.bundle is None:
        raise BadInput("--as-live: reads a --bundle the way the live plan reads Cloud Logging")
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
    collection = collection_for(args.workload, args, wiki)
    result = analyse(wiki, args.workload, collection, project=args.project)
    for problem in result.findings["data"].get("problems", []):
        print(f"mlwiki troubleshoot: warning: {problem}", file=sys.stderr)
    deliver(args, result.findings, result.healthy, result.cited_entries)
    return EXIT_OK


def deliver(
    args: argparse.Namespace, findings: dict, healthy: list[str], cited: dict[str, dict]
) -> None:
    """The bounded view on stdout; with --out the full findings and report (both redacted unless
    --no-redact) in FILE and FILE.md."""
    from mlwiki.diagnose.report import render_report
    from mlwiki.output import CLI, dumps, fit_text, present, redact, selection_from, write_file

    out = args.out
    hint = "the full findings and report are in " + (
        f"{out} and {report_path(out)}" if out else "--out FILE (and FILE.md)"
    )
    presented = present(
        "findings",
        findings,
        selection_from(args),
        redacted=not args.no_redact,
        full_at=str(out) if out else None,
        hint=hint + "; --host/--symptom/--offset/--limit choose the rows shown",
        cited=cited,
    )
    healthy, _ = redact(healthy, not args.no_redact)
    if out is not None:
        inputs = [args.bundle]
        write_file(out, dumps(presented.full) + "\n", inputs=inputs)
        write_file(report_path(out), render_report(presented.full, healthy), inputs=inputs)
        print(
            f"mlwiki troubleshoot: the full findings are in {out}, the report in "
            f"{report_path(out)}",
            file=sys.stderr,
        )
    if args.format == "json":
        print(dumps(presented.view))
        return
    view = presented.view
    if "evidence" not in view:  # fit() fell back to a bare status line
        print(fit_text(dumps(view), CLI, hint=hint), end="")
        return
    text = render_report(view, healthy)
    if presented.clipped:
        text += (
            "\n> This report shows part of the findings (see `output` in --format json); "
            + hint
            + ".\n"
        )
    print(fit_text(text, CLI, hint=hint), end="")


def report_path(out: Path) -> Path:
    """The Markdown report beside `--out FILE`: FILE with `.md` (never FILE itself)."""
    return out.with_suffix(".md") if out.suffix != ".md" else out.with_name(out.name + ".md")
