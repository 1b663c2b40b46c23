"""Redaction of what the CLI prints (`troubleshoot`, `match`, `run`, `action`): on by default,
because agents read it; `--no-redact` shows a person on their own machine the log text as is.

`OutputRedaction.of(args, values)` prepares one redactor over everything the command will print
(so a secret found in one entry is hidden wherever it recurs, and blocks split over entries are
found), then: `obj(data)` for what is printed as JSON, `findings(findings, cited)` for findings
(each quote redacted in the context of its entry, so `verify` still passes), and `stdout()`, a
context that redacts every line written to stdout inside it (text and Markdown renderings).
The output-sizing layer calls the same functions (the `mlwiki.redact` API).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from typing import Any, Optional

from mlwiki.redact import Redactor

NO_REDACT_HELP = (
    "print secrets found in log text as they are (for a person on their own machine; by default "
    "they are shown as [REDACTED:kind], because agents read this output)"
)


def add_no_redact(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-redact", action="store_true", help=NO_REDACT_HELP)


@dataclass(frozen=True)
class OutputRedaction:
    redactor: Optional[Redactor]  # None: --no-redact

    @classmethod
    def of(cls, args: argparse.Namespace, values: Iterable[Any]) -> OutputRedaction:
        if getattr(args, "no_redact", False):
            return cls(None)
        return cls(Redactor().prepared(values))

    def obj(self, data: Any) -> Any:
        return data if self.redactor is None else self.redactor.obj(data)[0]

    def findings(
        self, findings: dict[str, Any], cited: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        return findings if self.redactor is None else self.redactor.findings(findings, cited)[0]

    def text(self, text: str) -> str:
        return text if self.redactor is None else self.redactor.text(text)[0]

    @contextmanager
    def stdout(self) -> Iterator[None]:
        if self.redactor is None:
            yield
            return
        buffer = io.StringIO()
        try:
            with redirect_stdout(buffer):
                yield
        finally:
            sys.stdout.write(self.text(buffer.getvalue()))
