"""The `--no-redact` flag of what the CLI prints for agents (`troubleshoot`, `match`, `run`,
`action`, `verify`): redaction is on by default, because agents read that output; `--no-redact`
shows a person on their own machine the log text as is.

The redaction itself is `mlwiki.output.redact`, the one path of agent-facing output (CLI and MCP)
into this package's API: one `Redactor.prepared` over everything printed together, findings'
quotes redacted in the context of their entries (`Redactor.findings`).
"""

from __future__ import annotations

import argparse

NO_REDACT_HELP = (
    "print secrets found in log text as they are (for a person on their own machine; by default "
    "they are shown as [REDACTED:kind], because agents read this output)"
)


def add_no_redact(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--no-redact", action="store_true", help=NO_REDACT_HELP)
