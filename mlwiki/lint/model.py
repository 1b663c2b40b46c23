"""The linter's data model: rules, what a rule reports, and the report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ERROR = "error"
WARNING = "warning"

# What a rule looks at; the runner calls a rule once per item of its scope so that an unexpected
# exception can be reported against the file being checked.
SCOPE_WIKI = "wiki"
SCOPE_PAGE = "page"
SCOPE_SYMPTOM = "symptom"
SCOPE_ACTION = "action"
SCOPE_WORKFLOW = "workflow"
SCOPE_JSON = "json"  # every action and workflow
SCOPE_MARKDOWN = "markdown"  # every Markdown file in the wiki, pages or not


@dataclass(frozen=True)
class Finding:
    """What a rule function yields: where and what; the runner adds code, rule and severity."""

    file: Path
    line: int
    message: str
    column: int = 0


RuleFunc = Callable[..., Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    code: str  # E### (error) or W### (warning); stable, never reused
    name: str  # kebab-case, e.g. broken-link
    scope: str
    description: str  # one line, shown in SCHEMA.md and SARIF
    check: RuleFunc

    @property
    def severity(self) -> str:
        return ERROR if self.code.startswith("E") else WARNING


@dataclass(frozen=True)
class Problem:
    code: str
    rule: str
    severity: str
    file: str  # relative to the repository root, POSIX separators
    line: int
    message: str
    column: int = 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code,
            "rule": self.rule,
            "file": self.file,
            "line": self.line,
            "message": self.message,
        }
        if self.column:
            data["column"] = self.column
        return data


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def status(self) -> str:
        return "FAIL" if self.errors else "PASS"
