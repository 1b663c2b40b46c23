"""The `mlwiki` command line: a thin layer over library functions (one module per command)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Optional

from mlwiki import __version__
from mlwiki.errors import MlwikiError

# Command name -> module under mlwiki.commands; each module has `register(subparsers)`,
# which adds its parser and sets `handler` (args -> exit code).
COMMANDS = {
    "lint": "lint",
    "index": "index",
    "troubleshoot": "troubleshoot",
    "match": "match",
    "run": "run",
    "action": "action",
    "verify": "verify",
    "handoff": "handoff",
    "dashboard": "dashboard",
    "eval": "eval",
    "snapshot": "snapshot",
    "metrics": "metrics",
    "doctor": "doctor",
    "mcp": "mcp",
}


WIKI_HELP = (
    "the wiki (repository or its _wiki/ folder); default: found from the current directory "
    "upward, or $MLWIKI_WIKI"
)


def build_parser() -> argparse.ArgumentParser:
    # No option abbreviations anywhere: `--appr` must never mean `--approve`.
    parser = argparse.ArgumentParser(
        prog="mlwiki",
        allow_abbrev=False,
        description=(
            "ML Workload Debugging Wiki: diagnose JAX/XLA/Pathways jobs on Cloud TPU in GKE from "
            "their logs. Exit codes: 0 success, 1 a finding to act on (lint/verify FAIL), "
            "2 bad input, 3 a step needs approval that was not given."
        ),
    )
    parser.add_argument("--version", action="version", version=f"mlwiki {__version__}")
    parser.add_argument(
        "--wiki",
        metavar="DIR",
        help=WIKI_HELP,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMANDS.values():
        importlib.import_module(f"mlwiki.commands.{module_name}").register(subparsers)
    # `mlwiki lint --wiki DIR` works too; SUPPRESS keeps a --wiki given before the command.
    for command_parser in subparsers.choices.values():
        command_parser.allow_abbrev = False
        command_parser.add_argument(
            "--wiki", metavar="DIR", default=argparse.SUPPRESS, help=WIKI_HELP
        )
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    from mlwiki.output import capped_stdout

    try:
        with capped_stdout(args.command):
            return int(args.handler(args) or 0)
    except MlwikiError as error:
        print(f"mlwiki {args.command}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print(f"mlwiki {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
