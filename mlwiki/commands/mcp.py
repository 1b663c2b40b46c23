"""`mlwiki mcp` — the engine as an MCP server on stdio (read-only tools, the wiki as resources)."""

from __future__ import annotations

import argparse
import platform
import sys

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_OK, BadInput

MIN_PYTHON = (3, 10)  # what the `mcp` package needs


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help=SUMMARIES["mcp"],
        description=(
            "Run an MCP server on stdin/stdout for any MCP-capable agent (.mcp.json starts it). "
            "Tools: search_wiki, read_page, list_symptoms, match_logs, troubleshoot, "
            "run_workflow, verify_findings; resources mlwiki://index and "
            "mlwiki://{page,action,workflow}/ID. Everything is read-only: a mutating workflow "
            "step comes back as 'approval required', and nothing can approve it through MCP. "
            "Results are redacted; log text in them is marked as untrusted data. Needs Python "
            ">= 3.10 and the mcp package; exit 2 otherwise."
        ),
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if sys.version_info < MIN_PYTHON:
        raise BadInput(
            f"the MCP server needs Python {'.'.join(map(str, MIN_PYTHON))} or newer (the mcp "
            f"package does); this is Python {platform.python_version()}"
        )
    try:
        from mlwiki.mcp_server import build_server
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "mcp":
            raise
        raise BadInput(
            "the mcp package is not installed; run: pip install -r requirements.txt"
        ) from None
    build_server(args.wiki).run("stdio")  # stdout belongs to the protocol from here on
    return EXIT_OK
