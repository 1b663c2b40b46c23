"""`mlwiki lint` — check the wiki's structure, schemas, links, references, safety and signatures."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_FINDING, EXIT_OK, BadInput


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lint",
        help=SUMMARIES["lint"],
        description=(
            "Lint the wiki: structure, frontmatter and JSON schemas, links and anchors, references "
            "between pages, actions and workflows, command safety, signatures, INDEX.md, "
            "placeholders. Prints {status, errors, warnings, stats} as JSON by default. Exit 0 "
            "PASS, 1 FAIL (any error; warnings never change the status), 2 cannot run. The rules "
            "are listed in _wiki/SCHEMA.md and by --list-rules."
        ),
    )
    add_arguments(parser)
    parser.set_defaults(handler=handle)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by `mlwiki lint` and `_wiki/wiki_linter.py`."""
    parser.add_argument(
        "--format",
        choices=("json", "text", "sarif"),
        default="json",
        help="json (default): the report; text: one 'file:line: CODE rule message' line per "
        "problem; sarif: SARIF 2.1.0 for GitHub code scanning",
    )
    parser.add_argument(
        "--output", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    parser.add_argument(
        "--list-rules",
        action="store_true",
        help="print the rule table (code, name, what it checks) as Markdown and exit",
    )


def handle(args: argparse.Namespace) -> int:
    from mlwiki.wiki import find_wiki_root

    return run(find_wiki_root(explicit=args.wiki), args)


def run(root: Path, args: argparse.Namespace) -> int:
    """Lint the wiki at `root` and print the report as `args` asks; return the exit code."""
    from mlwiki.lint.registry import RULES
    from mlwiki.lint.report import render
    from mlwiki.lint.runner import lint

    if args.list_rules:
        sys.stdout.write(rules_table())
        return EXIT_OK
    report = lint(root)
    text = render(report, args.format, RULES)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise BadInput(
                f"--output {args.output}: cannot write: {error.strerror or error}"
            ) from error
    else:
        sys.stdout.write(text)
    return EXIT_FINDING if report.errors else EXIT_OK


def rules_table() -> str:
    """The registry as the Markdown table SCHEMA.md carries."""
    from mlwiki.lint.registry import RULES

    rows = ["| code | name | checks |", "|---|---|---|"]
    rows += [f"| {r.code} | `{r.name}` | {r.description.replace('|', '&#124;')} |" for r in RULES]
    return "\n".join(rows) + "\n"
