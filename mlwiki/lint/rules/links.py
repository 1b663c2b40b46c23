"""Rules about links: relative Markdown links and anchors resolve, `related` ids exist."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from mlwiki.lint.context import LintContext
from mlwiki.lint.markdown import MarkdownDoc, parse_markdown
from mlwiki.lint.model import Finding
from mlwiki.wiki import Page, read_text

_LINE_ANCHOR = re.compile(r"^L\d+(-L\d+)?$")  # GitHub's line anchors on any file


def broken_link(ctx: LintContext, path: Path, doc: MarkdownDoc) -> Iterator[Finding]:
    for link, target in ctx.resolved_links(path, doc):
        if not link.href.strip():
            yield Finding(path, link.line, "empty link target")
            continue
        if target is None or target.path is None:
            continue
        if not ctx.in_repository(target.path):
            yield Finding(path, link.line, f"link '{link.href}' leaves the repository")
        elif not ctx.exists(target.path):
            yield Finding(
                path,
                link.line,
                f"link '{link.href}' points to {ctx.rel(target.path)}, which does not exist",
            )


def broken_anchor(ctx: LintContext, path: Path, doc: MarkdownDoc) -> Iterator[Finding]:
    for link, target in ctx.resolved_links(path, doc):
        if target is None or not target.anchor:
            continue
        target_path = target.path or path
        if target_path.suffix != ".md" or not ctx.exists(target_path):
            continue  # a missing file is broken-link's finding; other files have no headings
        anchors = _anchors(ctx, target_path)
        if (
            anchors is not None
            and target.anchor not in anchors
            and not _LINE_ANCHOR.match(target.anchor)
        ):
            where = "this page" if target.path is None else ctx.rel(target_path)
            yield Finding(path, link.line, f"anchor '#{target.anchor}' is not a heading of {where}")


def _anchors(ctx: LintContext, path: Path) -> Optional[set[str]]:
    doc = ctx.markdown_docs.get(path) or _outside_doc(path)
    return doc.anchors if doc else None


def _outside_doc(path: Path) -> Optional[MarkdownDoc]:
    """A Markdown file outside the wiki (e.g. the README) that a wiki page links into."""
    text, problem = read_text(path)
    return None if problem else parse_markdown(text or "")


def unknown_related(ctx: LintContext, page: Page) -> Iterator[Finding]:
    related = page.meta.get("related")
    if not isinstance(related, list):
        return
    for page_id in related:
        if isinstance(page_id, str) and page_id not in ctx.wiki.pages:
            yield Finding(
                page.path, page.line_of("related"), f"related page '{page_id}' does not exist"
            )
