"""Safety rules: writes are approval-gated, and commands are argument lists, never shell text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from mlwiki.lint.argv import SHELLS, is_mutating, mutating_reason, shell_syntax
from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.wiki import Action

PROGRAMS = {"kubectl": "kubectl", "gcloud": "gcloud"}


def unapproved_mutation(ctx: LintContext, action: Action) -> Iterator[Finding]:
    reason = mutating_reason(action.kind, action.command)
    if reason and not action.requires_approval:
        yield Finding(
            action.path,
            action.line_of("command"),
            f"'{reason}' changes the cluster or a VM: set \"requires_approval\": true",
        )


def shell_command(ctx: LintContext, action: Action) -> Iterator[Finding]:
    line = action.line_of("command")
    for index, element in enumerate(action.command):
        if not isinstance(element, str):
            continue
        if PurePosixPath(element).name in SHELLS:
            yield Finding(
                action.path,
                line,
                f"command[{index}] runs a shell ('{element}'): use an argument list",
            )
        found = shell_syntax(element)
        if found:
            yield Finding(
                action.path,
                line,
                f"command[{index}] contains shell syntax {found!r}: each element is one literal argument",
            )


def wrong_program(ctx: LintContext, action: Action) -> Iterator[Finding]:
    program = PROGRAMS.get(action.kind)
    if program and action.command and action.command[0] != program:
        yield Finding(
            action.path,
            action.line_of("command"),
            f"a {action.kind} action's command must start with '{program}', not '{action.command[0]}'",
        )


def missing_risk(ctx: LintContext, action: Action) -> Iterator[Finding]:
    if is_mutating(action) and not str(action.data.get("risk") or "").strip():
        yield Finding(
            action.path,
            action.line_of("requires_approval"),
            "a mutating action should say what it affects in 'risk'",
        )
