"""Content rules: no placeholder text in prose, no empty or missing sections."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mlwiki.index import INDEX_NAME
from mlwiki.lint.context import LintContext
from mlwiki.lint.markdown import MarkdownDoc
from mlwiki.lint.model import Finding
from mlwiki.wiki import JsonDoc, Symptom

PLACEHOLDER = re.compile(r"\b(?:TODO|TBD|FIXME|XXX)\b|(?i:lorem ipsum)")
SYMPTOM_SECTIONS = (
    "What it is",
    "Log signature",
    "Where it shows up",
    "How to verify",
    "Cause or cascade",
    "Remedy",
    "Sources",
)
# Frontmatter fields written as prose (examples and signatures are data, not prose).
PROSE_FIELDS = ("title", "summary")


def placeholder_text(ctx: LintContext, path: Path, doc: MarkdownDoc) -> Iterator[Finding]:
    if path == ctx.root / INDEX_NAME:
        return  # generated from the pages, whose own findings say where the text is
    page = ctx.page_by_path.get(path)
    if page is not None:
        texts = [(page.meta.get(key), page.line_of(key)) for key in PROSE_FIELDS]
        remedies = page.meta.get("remedies")
        for remedy in remedies if isinstance(remedies, list) else []:
            texts.append(
                (remedy.get("step") if isinstance(remedy, dict) else None, page.line_of("remedies"))
            )
        for text, line in texts:
            yield from _placeholders(path, line, text)
    if PLACEHOLDER.search(
        "\n".join(text for text, _ in doc.prose)
    ):  # one scan for the usual clean page
        for text, line in doc.prose:
            yield from _placeholders(path, line, text)


def placeholder_field(ctx: LintContext, doc: JsonDoc) -> Iterator[Finding]:
    """Placeholders in an action's or workflow's prose: title, description, conclusion summaries."""
    for key in ("title", "description"):
        yield from _placeholders(doc.path, doc.line_of(key), doc.data.get(key))
    conclusions = doc.data.get("conclusions")
    for conclusion in conclusions if isinstance(conclusions, list) else []:
        if isinstance(conclusion, dict):
            yield from _placeholders(
                doc.path, doc.line_of("conclusions"), conclusion.get("summary")
            )


def _placeholders(path: Path, line: int, text: Any) -> Iterator[Finding]:
    if isinstance(text, str):
        for match in PLACEHOLDER.finditer(text):
            yield Finding(
                path, line, f"placeholder text '{match.group(0)}': write the real content"
            )


def missing_section(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    doc = ctx.markdown_docs.get(symptom.page.path)
    present = {h.text.strip() for h in doc.headings if h.level == 2} if doc else set()
    for title in SYMPTOM_SECTIONS:
        if title not in present:
            yield Finding(
                symptom.page.path,
                symptom.page.body_line,
                f"symptom page lacks the section '## {title}'",
            )


def empty_section(ctx: LintContext, path: Path, doc: MarkdownDoc) -> Iterator[Finding]:
    for heading in doc.headings:
        if heading.empty:
            yield Finding(path, heading.line, f"section '{heading.text}' is empty")
