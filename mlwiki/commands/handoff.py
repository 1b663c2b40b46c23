"""`mlwiki handoff` — not built yet: it says so and exits 2."""

from __future__ import annotations

import argparse

from mlwiki.errors import BadInput


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("handoff", help="(not built yet)", description="Not built yet.")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    raise BadInput("this command is not built yet")
