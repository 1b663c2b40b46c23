"""The `mlwiki` command line: a thin layer over library functions (one module per command)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence
from typing import Optional

from mlwiki import __version__
from mlwiki.commands import SUMMARIES
from mlwiki.errors import MlwikiError

# Each command is the module of its name under mlwiki.commands, with `register(subparsers)`,
# which adds its parser and sets `handler` (args -> exit code). A run imports only the module of
# the command it runs: `mlwiki --help` and `mlwiki lint` do not pay for the diagnosis, the
# dashboard or the Cloud clients.
COMMANDS = tuple(SUMMARIES)


WIKI_HELP = (
    "the wiki (repository or its _wiki/ folder); default: found from the current directory "
    "upward, or $MLWIKI_WIKI"
)


def build_parser(commands: Optional[Iterable[str]] = None) -> argparse.ArgumentParser:
    """The whole command line; with `commands`, only those commands' own parsers are built (and
    their modules imported) and every other command is listed by its one-line summary."""
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
    built = set(COMMANDS if commands is None else commands)
    for name in COMMANDS:
        if name in built:
            importlib.import_module(f"mlwiki.commands.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=SUMMARIES[name])
    # `mlwiki lint --wiki DIR` works too; SUPPRESS keeps a --wiki given before the command.
    for command_parser in subparsers.choices.values():
        command_parser.allow_abbrev = False
        command_parser.add_argument(
            "--wiki", metavar="DIR", default=argparse.SUPPRESS, help=WIKI_HELP
        )
    return parser


def command_of(argv: Sequence[str]) -> Optional[str]:
    """The command `argv` names: its first word that is not an option (nor --wiki's value)."""
    words = iter(argv)
    for word in words:
        if word == "--wiki":
            next(words, None)
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_of(argv)
    parser = build_parser([command] if command else [])
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
