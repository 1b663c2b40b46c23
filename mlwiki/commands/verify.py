"""`mlwiki verify FINDINGS` — the reviewer's citation check."""

from __future__ import annotations

import argparse
from pathlib import Path

from mlwiki.errors import EXIT_FINDING, EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check that every conclusion of a findings file cites entries actually fetched",
        description=(
            "Check FINDINGS (findings.json): valid against the schema; root cause, culprit hosts "
            "and failure rows each cite evidence ids that exist; every evidence item's insertId "
            "AND timestamp are in the bundle you name (--bundle; never one the findings name "
            "themselves, which forged findings could point at a forged file) or in Cloud Logging "
            "(--project, else the project the findings were read from; looked up by insertId "
            "within the findings' window), and its quote is in that entry's text. Says which "
            "evidence it checked. Exit 0 when all good, 1 listing each problem, 2 on bad input."
        ),
    )
    parser.add_argument("findings", type=Path, metavar="FINDINGS")
    parser.add_argument("--bundle", type=Path, help="the bundle the findings were made from")
    parser.add_argument(
        "--project",
        help="look the cited entries up in this project's Cloud Logging (default: the project "
        "the findings were read from, when they came from Cloud Logging)",
    )
    parser.add_argument("--format", choices=("json", "text"), default="text")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.diagnose.verify import load_findings, verify_findings
    from mlwiki.output import emit_json
    from mlwiki.wiki import find_wiki_root, load_wiki

    findings = load_findings(args.findings)
    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    problems, source = verify_findings(wiki, findings, bundle=args.bundle, project=args.project)
    status = "FAIL" if problems else "PASS"
    if args.format == "json":
        emit_json(
            {
                "status": status,
                "problems": problems,
                "evidence": len(findings.get("evidence") or []),
                "checked_against": source,
            }
        )
    else:
        for problem in problems:
            print(problem)
        print(
            f"{status}: {len(problems)} problem(s), "
            f"{len(findings.get('evidence') or [])} evidence item(s) checked against {source}"
        )
    return EXIT_FINDING if problems else EXIT_OK
