"""`mlwiki verify FINDINGS` — the reviewer's citation check."""

from __future__ import annotations

import argparse
from pathlib import Path

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_FINDING, EXIT_OK
from mlwiki.output import add_output_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help=SUMMARIES["verify"],
        description=(
            "Check FINDINGS (findings.json): valid against the schema; root cause, culprit hosts "
            "and failure rows each cite evidence ids that exist; every evidence item's insertId "
            "AND timestamp are in the bundle you name (--bundle; never one the findings name "
            "themselves, which forged findings could point at a forged file) or in Cloud Logging "
            "(--project, else the project the findings were read from; looked up by insertId "
            "within the findings' window), and its quote is in that entry's text. Says which "
            "evidence it checked. With --report FILE, also the Markdown report the user reads: "
            "every evidence id, insertId, host and quote in it must resolve to entries of that "
            "same evidence, else REJECT with each line. Exit 0 when all good, 1 listing each "
            "problem, 2 on bad input."
        ),
    )
    parser.add_argument("findings", type=Path, metavar="FINDINGS")
    parser.add_argument("--bundle", type=Path, help="the bundle the findings were made from")
    parser.add_argument(
        "--project",
        help="look the cited entries up in this project's Cloud Logging (default: the project "
        "the findings were read from, when they came from Cloud Logging)",
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="also check this Markdown report (the one the user reads) against the fetched "
        "entries: E-ids, insertIds, hosts and quotes",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="look the cited entries up afresh: neither reuse nor keep fetched Cloud Logging pages",
    )
    parser.add_argument("--format", choices=("json", "text"), default="text")
    add_output_options(
        parser, out=None, filters=(), limit_help="list at most N×5 problems (default %(default)s)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.diagnose.verify import load_findings, verify_findings
    from mlwiki.output import cli_result, emit_json, print_text
    from mlwiki.wiki import find_wiki_root, load_wiki

    findings = load_findings(args.findings)
    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    problems, source = verify_findings(
        wiki, findings, bundle=args.bundle, project=args.project, cache=not args.no_cache
    )
    data = {
        "status": "FAIL" if problems else "PASS",
        "problems": problems,
        "evidence": len(findings.get("evidence") or []),
        "checked_against": source,
    }
    rejected = False
    if args.report is not None:
        data["report"] = _check_report(args, findings, source)
        rejected = data["report"]["status"] == "REJECT"
    view = cli_result("verify", "verify", data, args).view
    if args.format == "json":
        emit_json(view)
    else:
        lines = [str(problem) for problem in view["problems"]]
        lines.append(
            f"{view['status']}: {len(problems)} problem(s), "
            f"{view['evidence']} evidence item(s) checked against {source}"
        )
        report = view.get("report")
        if report:
            lines += [f"REJECT {report['path']}:{p['line']}: {p['problem']}: {p['text'].strip()}"
                      for p in report["problems"]]  # fmt: skip
            counted = ", ".join(f"{n} {kind}" for kind, n in sorted(report["claims"].items()))
            lines.append(
                f"{report['status']}: {report['path']}: {len(report['problems'])} problem(s) in "
                f"{counted or 'no claims'}"
            )
        print_text("\n".join(lines) + "\n", hint="use --format json")
    return EXIT_FINDING if problems or rejected else EXIT_OK


def _check_report(args: argparse.Namespace, findings: dict, source: str) -> dict:
    """The report checked against the same evidence as the findings (the bundle or project the
    caller chose, never one the findings name)."""
    from mlwiki.diagnose.verify import project_of
    from mlwiki.diagnose.verify_report import check_report

    bundle = args.bundle
    project = None if bundle is not None else project_of(findings, args.project)
    problems, claims = check_report(args.report, findings, bundle=bundle, project=project)
    return {
        "path": str(args.report),
        "status": "REJECT" if problems else "PASS",
        "problems": [p.to_dict() for p in problems],
        "claims": claims,
    }
