"""Rules that hold each file to its JSON Schema in `_wiki/schemas/`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mlwiki import schemas
from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.lint.positions import line_of_path
from mlwiki.wiki import Action, JsonDoc, Page, Workflow


def _schema_findings(
    path: Path, text: str, first_line: int, data: Any, validator: Any
) -> Iterator[Finding]:
    # Sorted by path so the report is stable; the best match of a oneOf/anyOf is shown.
    for error in sorted(
        validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        where = schemas.error_path(error)
        line = line_of_path(text, list(error.absolute_path), first_line) or first_line
        yield Finding(path, line, f"{where}: {error.message}")


def frontmatter_schema(ctx: LintContext, page: Page) -> Iterator[Finding]:
    if page.path in ctx.broken_files:
        return
    validator = schemas.validator(ctx.schema_dir, schemas.FRONTMATTER, page.type)
    yield from _schema_findings(page.path, page.frontmatter_text, 2, page.meta, validator)


def page_type_mismatch(ctx: LintContext, page: Page) -> Iterator[Finding]:
    declared = page.meta.get("type")
    if declared is not None and declared != page.type:
        folder = page.path.parent.name
        yield Finding(
            page.path,
            page.line_of("type"),
            f"type '{declared}' does not match its folder {folder}/ ({page.type})",
        )


def _json_schema(ctx: LintContext, doc: JsonDoc, schema_name: str) -> Iterator[Finding]:
    validator = schemas.validator(ctx.schema_dir, schema_name)
    yield from _schema_findings(doc.path, doc.text, 1, doc.data, validator)


def action_schema(ctx: LintContext, action: Action) -> Iterator[Finding]:
    yield from _json_schema(ctx, action, schemas.ACTION)


def workflow_schema(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    yield from _json_schema(ctx, workflow, schemas.WORKFLOW)
