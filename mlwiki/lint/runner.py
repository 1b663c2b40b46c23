"""Run every rule of the registry over a wiki and collect a report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mlwiki import schemas
from mlwiki.errors import BadInput
from mlwiki.lint.context import LintContext
from mlwiki.lint.model import (
    ERROR,
    SCOPE_ACTION,
    SCOPE_JSON,
    SCOPE_MARKDOWN,
    SCOPE_PAGE,
    SCOPE_SYMPTOM,
    SCOPE_WIKI,
    SCOPE_WORKFLOW,
    Problem,
    Report,
    Rule,
)
from mlwiki.lint.registry import RULES
from mlwiki.wiki import PAGE_FOLDERS, SCHEMAS_DIR, load_wiki


def lint(root: Path, rules: tuple[Rule, ...] = RULES) -> Report:
    """Lint the wiki whose `_wiki` directory is `root`. Raises BadInput if it cannot run at all."""
    _check_schemas(root / SCHEMAS_DIR)
    ctx = LintContext(load_wiki(root))
    problems: set[Problem] = set()
    for rule in rules:
        problems.update(_run_rule(ctx, rule))
    report = Report(sorted(problems, key=lambda p: (p.file, p.line, p.code, p.message)))
    report.stats = _stats(ctx, report, len(rules))
    return report


def _check_schemas(schema_dir: Path) -> None:
    """The schemas are the linter's ground truth: without them it cannot run (exit 2)."""
    try:
        for page_type in PAGE_FOLDERS.values():
            schemas.validator(schema_dir, schemas.FRONTMATTER, page_type)
        schemas.validator(schema_dir, schemas.ACTION)
        schemas.validator(schema_dir, schemas.WORKFLOW)
    except Exception as error:  # any failure to read, parse or resolve them means we cannot run
        raise BadInput(
            f"cannot load the JSON Schemas in {schema_dir}: {type(error).__name__}: {error}"
        ) from error


def _run_rule(ctx: LintContext, rule: Rule) -> Iterator[Problem]:
    try:
        items = list(_items(ctx, rule.scope))
    except Exception as error:
        yield _crash(ctx, rule, ctx.root, error)
        return
    for file, args in items:
        try:
            findings = list(rule.check(ctx, *args))
        except Exception as error:  # a rule bug must not hide the rest of the report
            yield _crash(ctx, rule, file, error)
            continue
        for finding in findings:
            yield Problem(
                rule.code,
                rule.name,
                rule.severity,
                ctx.rel(finding.file),
                finding.line,
                finding.message,
                finding.column,
            )


def _items(ctx: LintContext, scope: str) -> Iterator[tuple[Path, tuple[Any, ...]]]:
    """(file, arguments after ctx) for each call of a rule of this scope."""
    wiki = ctx.wiki
    if scope == SCOPE_WIKI:
        yield ctx.root, ()
    elif scope == SCOPE_PAGE:
        yield from ((page.path, (page,)) for page in wiki.pages.values())
    elif scope == SCOPE_SYMPTOM:
        yield from ((s.page.path, (s,)) for s in wiki.symptoms.values())
    elif scope == SCOPE_ACTION:
        yield from ((a.path, (a,)) for a in wiki.actions.values())
    elif scope == SCOPE_WORKFLOW:
        yield from ((w.path, (w,)) for w in wiki.workflows.values())
    elif scope == SCOPE_JSON:
        yield from ((d.path, (d,)) for d in (*wiki.actions.values(), *wiki.workflows.values()))
    elif scope == SCOPE_MARKDOWN:
        yield from ((path, (path, doc)) for path, doc in ctx.markdown_docs.items())
    else:
        raise ValueError(f"unknown rule scope {scope!r}")


def _crash(ctx: LintContext, rule: Rule, file: Path, error: Exception) -> Problem:
    message = f"internal error in rule {rule.code} {rule.name}: {type(error).__name__}: {error}"
    return Problem(rule.code, rule.name, ERROR, ctx.rel(file), 0, message)


def _stats(ctx: LintContext, report: Report, rule_count: int) -> dict[str, int]:
    wiki = ctx.wiki
    stats = {
        f"pages_{page_type}": len(wiki.pages_of_type(page_type))
        for page_type in PAGE_FOLDERS.values()
    }
    stats.update(
        {
            "pages": len(wiki.pages),
            "actions": len(wiki.actions),
            "workflows": len(wiki.workflows),
            "signatures": sum(len(s.signatures) for s in wiki.symptoms.values()),
            "examples": sum(len(s.examples) for s in wiki.symptoms.values()),
            "markdown_files": len(ctx.markdown_docs),
            "rules": rule_count,
            "errors": len(report.errors),
            "warnings": len(report.warnings),
        }
    )
    return stats
