"""Print a lint report: JSON (the contract), text (`file:line: CODE rule message`), SARIF 2.1.0."""

from __future__ import annotations

from typing import Any

from mlwiki import __version__
from mlwiki.lint.model import ERROR, Report, Rule
from mlwiki.output import dumps

FORMATS = ("json", "text", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "mlwiki-lint"


def render(report: Report, fmt: str, rules: tuple[Rule, ...]) -> str:
    if fmt == "json":
        return dumps(to_json(report)) + "\n"
    if fmt == "text":
        return to_text(report)
    if fmt == "sarif":
        return dumps(to_sarif(report, rules)) + "\n"
    raise ValueError(f"unknown format {fmt!r}")


def to_json(report: Report) -> dict[str, Any]:
    return {
        "status": report.status,
        "errors": [p.to_dict() for p in report.errors],
        "warnings": [p.to_dict() for p in report.warnings],
        "stats": report.stats,
    }


def to_text(report: Report) -> str:
    lines = [f"{p.file}:{p.line}: {p.code} {p.rule} {p.message}" for p in report.problems]
    lines.append(
        f"{report.status}: {len(report.errors)} error(s), {len(report.warnings)} warning(s) in "
        f"{report.stats.get('pages', 0)} pages, {report.stats.get('actions', 0)} actions, "
        f"{report.stats.get('workflows', 0)} workflows"
    )
    return "\n".join(lines) + "\n"


def to_sarif(report: Report, rules: tuple[Rule, ...]) -> dict[str, Any]:
    """SARIF 2.1.0 as GitHub code scanning reads it: rules with ids, results with locations."""
    index = {rule.code: position for position, rule in enumerate(rules)}
    results = []
    for problem in report.problems:
        region: dict[str, int] = {"startLine": max(problem.line, 1)}
        if problem.column:
            region["startColumn"] = problem.column
        result: dict[str, Any] = {
            "ruleId": problem.code,
            "level": "error" if problem.severity == ERROR else "warning",
            "message": {"text": f"{problem.rule}: {problem.message}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": problem.file, "uriBaseId": "%SRCROOT%"},
                        "region": region,
                    }
                }
            ],
        }
        if problem.code in index:
            result["ruleIndex"] = index[problem.code]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "rules": [_sarif_rule(rule) for rule in rules],
                    }
                },
                "originalUriBaseIds": {
                    "%SRCROOT%": {"description": {"text": "the repository root"}}
                },
                "results": results,
            }
        ],
    }


def _sarif_rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.description},
        "help": {
            "text": f"{rule.code} {rule.name}: {rule.description} (see _wiki/SCHEMA.md, Lint rules)"
        },
        "defaultConfiguration": {"level": "error" if rule.severity == ERROR else "warning"},
    }
