"""The approval gate: a mutating step runs only after an explicit approval of THAT step.

Approvals come from the person running the tool, never from data: a `--approve` flag naming the
step (for `mlwiki run`) or the action (`mlwiki action --approve`), or — only when stdin and stderr
are both terminals — an answer typed at a prompt that shows the exact command, its target and its
risk. No environment variable, wiki file or log line can approve anything, and a run that is not
interactive and has no matching flag fails closed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Callable, Optional, TextIO

from mlwiki.engine.audit import current_user


@dataclass(frozen=True)
class Approval:
    """How a step was approved: `how` is "flag" or "prompt"; `by` the user."""

    how: str
    by: str

    def to_dict(self) -> dict[str, str]:
        return {"how": self.how, "by": self.by}


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user is asked to approve."""

    key: str  # the step id (workflow) or the action id (single action)
    action: str
    command: list[str]
    risk: str
    target: str  # e.g. "node=gke-tpu-1, context=prod"

    def describe(self) -> str:
        from shlex import join

        lines = [
            f"Step {self.key!r} runs action {self.action!r}, which CHANGES the cluster or a VM:",
            f"  command: {join(self.command)}",
            f"  target:  {self.target or '(none)'}",
            f"  risk:    {self.risk or '(not stated by the action)'}",
        ]
        return "\n".join(lines)


def stdio_is_interactive() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def ask_on_stderr(prompt: str) -> str:
    """Like `input()`, but the prompt goes to stderr so that stdout stays machine-readable."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


@dataclass
class ApprovalGate:
    """Decides whether a mutating step may run.

    `approved`: keys (step ids or action ids) approved by flag. `interactive`: whether a prompt
    may be shown (the CLI passes `stdio_is_interactive()`; library callers default to False).
    """

    approved: frozenset[str] = frozenset()
    interactive: bool = False
    ask: Callable[[str], str] = field(default=ask_on_stderr)
    stream: Optional[TextIO] = None

    @classmethod
    def from_flags(cls, approved: Iterable[str], interactive: bool = False) -> ApprovalGate:
        return cls(frozenset(approved), interactive)

    def decide(self, request: ApprovalRequest) -> Optional[Approval]:
        if request.key in self.approved:
            return Approval("flag", current_user())
        if not self.interactive:
            return None
        stream = self.stream or sys.stderr
        print(request.describe(), file=stream)
        try:
            answer = self.ask(f"Type 'yes' or the step id ({request.key}) to run it: ")
        except EOFError:
            return None
        if answer.strip() in ("yes", request.key):
            return Approval("prompt", current_user())
        print("Not approved; the step was not run.", file=stream)
        return None
