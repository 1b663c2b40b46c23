"""Errors that map to the CLI's exit codes (see DESIGN.md, "Exit codes")."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDING = 1
EXIT_BAD_INPUT = 2
EXIT_NEEDS_APPROVAL = 3


class MlwikiError(Exception):
    """Base class; `exit_code` is what the CLI returns when this escapes a command."""

    exit_code = EXIT_BAD_INPUT


class BadInput(MlwikiError):
    """Input the user can fix: a file, line, field, flag or parameter is wrong.

    The message must name what is wrong and where (file:line, field or flag).
    """

    exit_code = EXIT_BAD_INPUT


class ApprovalRequired(MlwikiError):
    """A mutating step was reached without an explicit approval of that step."""

    exit_code = EXIT_NEEDS_APPROVAL


class WikiNotFound(BadInput):
    """No wiki root above the current directory and none given with --wiki / MLWIKI_WIKI."""
