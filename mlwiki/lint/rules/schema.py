"""Rules that hold each file to its JSON Schema in `_wiki/schemas/`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

from mlwiki import schemas
from mlwiki.lint.context import LintContext
from mlwiki.lint.fastschema import fast_is_valid
from mlwiki.lint.model import Finding
from mlwiki.lint.positions import line_of_path
from mlwiki.wiki import Action, JsonDoc, Page, Workflow


def _schema_findings(
    ctx: LintContext,
    path: Path,
    text: str,
    first_line: int,
    data: Any,
    name: str,
    definition: Optional[str] = None,
) -> Iterator[Finding]:
    is_valid = fast_is_valid(ctx.schema_dir.resolve(), name, definition)
    try:
        if is_valid is not None and is_valid(data):
            return
    except Exception:  # e.g. a YAML date object jsonschema-rs cannot take: let jsonschema judge
        pass
    validator = schemas.validator(ctx.schema_dir, name, definition)
    # Sorted by path so the report is stable.
    for error in sorted(
        validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        where = schemas.error_path(error)
        line = line_of_path(text, list(error.absolute_path), first_line) or first_line
        yield Finding(path, line, f"{where}: {_shorten(error.message)}")


def _shorten(message: str, limit: int = 300) -> str:
    """jsonschema quotes whole instances in some messages; keep a report line readable."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def frontmatter_schema(ctx: LintContext, page: Page) -> Iterator[Finding]:
    if page.path in ctx.broken_files:
        return
    yield from _schema_findings(
        ctx, page.path, page.frontmatter_text, 2, page.meta, schemas.FRONTMATTER, page.type
    )


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
    yield from _schema_findings(ctx, doc.path, doc.text, 1, doc.data, schema_name)


def action_schema(ctx: LintContext, action: Action) -> Iterator[Finding]:
    yield from _json_schema(ctx, action, schemas.ACTION)


def workflow_schema(ctx: LintContext, workflow: Workflow) -> Iterator[Finding]:
    yield from _json_schema(ctx, workflow, schemas.WORKFLOW)
