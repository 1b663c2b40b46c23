"""The approval gate: a mutating step runs only after a person approved THAT exact command.

An approval binds the exact rendered argv, through its digest (`argv_digest`: sha256 of the argv
as canonical JSON; the first 16 hex characters are shown, 12 or more are accepted). Two ways:

- a flag naming the step and the digest: `mlwiki run WF --approve STEP=DIGEST`,
  `mlwiki action ID --approve DIGEST`. A run that reaches a mutating step without a matching
  digest stops with `awaiting_approval` and prints the exact command and its digest; if the
  command changes — another parameter, another culprit host read from the logs, an edited
  action file — the digest no longer matches and it asks again;
- an answer typed at a prompt on a terminal a person drives (`mlwiki.engine.terminal`: the
  controlling terminal, stdin on it, not a pseudo-terminal an automated program opened). The
  prompt shows the command, target, risk and digest; the command that runs is the one shown.

No environment variable, wiki file or log line can approve anything, and a run with no matching
flag and no person at a terminal fails closed. Every approval is written to the audit log with
the argv's full digest before the step runs.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from shlex import join
from typing import Callable, Optional, TextIO

from mlwiki.engine.audit import current_user
from mlwiki.errors import BadInput

SHOWN_DIGEST = 16
MIN_DIGEST = 12
_HEX = re.compile(r"[0-9a-f]+")


def argv_digest(argv: Sequence[str]) -> str:
    """sha256 of an argv (canonical JSON), the identity an approval is bound to."""
    canonical = json.dumps(list(argv), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def parse_approvals(values: Iterable[str], default_key: Optional[str] = None) -> dict[str, str]:
    """`--approve` values → {step: digest prefix}; `STEP` alone (no digest) approves nothing.

    With `default_key` (`mlwiki action ID`), a value is the digest of that action's command.
    """
    approvals: dict[str, str] = {}
    for value in values:
        if default_key is not None and "=" not in value:
            key, digest = default_key, value
        else:
            key, _, digest = value.partition("=")
        digest = digest.strip().lower()
        if digest and (len(digest) < MIN_DIGEST or not _HEX.fullmatch(digest)):
            raise BadInput(
                f"--approve {value}: the digest is the {SHOWN_DIGEST} hex characters printed with the "
                f"command (at least {MIN_DIGEST})"
            )
        approvals[key] = digest
    return approvals


@dataclass(frozen=True)
class Approval:
    """How a step was approved: `how` is "flag" or "prompt"; `by` the user; the argv's digest."""

    how: str
    by: str
    argv_sha256: str = ""
    terminal: str = ""  # the terminal a prompt was answered on, and who holds it

    def to_dict(self) -> dict[str, str]:
        data = {"how": self.how, "by": self.by, "argv_sha256": self.argv_sha256}
        if self.terminal:
            data["terminal"] = self.terminal
        return data


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user is asked to approve."""

    key: str  # the step id (workflow) or the action id (single action)
    action: str
    command: list[str]
    risk: str
    target: str  # e.g. "node=gke-tpu-1, context=prod"

    @property
    def digest(self) -> str:
        return argv_digest(self.command)

    @property
    def short_digest(self) -> str:
        return self.digest[:SHOWN_DIGEST]

    def describe(self) -> str:
        lines = [
            f"Step {self.key!r} runs action {self.action!r}, which CHANGES the cluster or a VM:",
            f"  command: {join(self.command)}",
            f"  target:  {self.target or '(none)'}",
            f"  risk:    {self.risk or '(not stated by the action)'}",
            f"  digest:  {self.short_digest} (sha256 of this exact command)",
        ]
        return "\n".join(lines)


def approve_flag(request: ApprovalRequest, step: bool) -> str:
    """The flag that approves exactly this request: `--approve STEP=DIGEST` for a workflow's
    step, `--approve DIGEST` for a single action (`mlwiki action`)."""
    if not step:
        return f"--approve {request.short_digest}"
    return f"--approve {request.key}={request.short_digest}"


Prompter = Callable[[str], str]


@dataclass
class ApprovalGate:
    """Decides whether a mutating step may run.

    `approved`: {step or action id: digest prefix} from `--approve` flags (a bare id approves
    nothing: the digest binds the command). `interactive`: whether a prompt may be offered; it is
    shown only on a terminal a person drives. `ask` replaces that terminal (for tests and
    programs that embed the engine with their own trusted prompt); `stream` receives the text.
    """

    approved: Mapping[str, str] = field(default_factory=dict)
    interactive: bool = False
    ask: Optional[Prompter] = None
    stream: Optional[TextIO] = None
    refusal: str = ""  # why the last prompt was not offered (for the awaiting_approval message)

    @classmethod
    def from_flags(cls, approved: Iterable[str], interactive: bool = False) -> ApprovalGate:
        return cls(parse_approvals(approved), interactive)

    def decide(self, request: ApprovalRequest) -> Optional[Approval]:
        digest = request.digest
        given = self.approved.get(request.key, "")
        if given and digest.startswith(given):
            return Approval("flag", current_user(), digest)
        if not self.interactive:
            return None
        if self.ask is not None:
            return self._prompt(request, self.ask, self.stream or sys.stderr, "")
        from mlwiki.engine.terminal import NotAPerson, open_human_terminal

        try:
            terminal = open_human_terminal()
        except NotAPerson as why:
            self.refusal = f"no prompt: {why}"
            return None
        try:
            stream: TextIO = _TerminalStream(terminal.write)  # type: ignore[assignment]
            where = terminal.device + (f" held by {terminal.holder}" if terminal.holder else "")
            return self._prompt(request, terminal.ask, stream, where)
        finally:
            terminal.close()

    def _prompt(
        self, request: ApprovalRequest, ask: Prompter, stream: TextIO, where: str
    ) -> Optional[Approval]:
        print(request.describe(), file=stream)
        try:
            answer = ask(f"Type 'yes' or the step id ({request.key}) to run exactly this: ")
        except EOFError:
            return None
        if answer.strip() in ("yes", request.key):
            return Approval("prompt", current_user(), request.digest, where)
        print("Not approved; the step was not run.", file=stream)
        return None


class _TerminalStream:
    """A minimal text stream over the terminal, so the prompt never goes to stdout."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write

    def write(self, text: str) -> int:
        self._write(text)  # the terminal's own line discipline turns \n into \r\n
        return len(text)

    def flush(self) -> None:
        return None
