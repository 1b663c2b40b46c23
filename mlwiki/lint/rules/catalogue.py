"""INDEX.md is exactly what `mlwiki index` generates, and every page can be reached."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path

from mlwiki.index import index_path, render_index
from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.wiki import read_text


def index_stale(ctx: LintContext) -> Iterator[Finding]:
    path = index_path(ctx.wiki)
    if not path.is_file():
        return  # missing-required reports it
    current, problem = read_text(path)
    if problem:
        return  # unreadable-file reports it
    wanted = render_index(ctx.wiki)
    if current == wanted:
        return
    have, want = (current or "").splitlines(), wanted.splitlines()
    matcher = difflib.SequenceMatcher(a=have, b=want, autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    first_line = changes[0][1] + 1 if changes else 1
    missing = [line for tag, _, _, j1, j2 in changes if tag != "delete" for line in want[j1:j2]]
    extra = [line for tag, i1, i2, _, _ in changes if tag != "insert" for line in have[i1:i2]]
    detail = "; ".join(
        part
        for part in (
            f"{len(missing)} line(s) missing, first: {missing[0][:100]!r}" if missing else "",
            f"{len(extra)} line(s) not generated, first: {extra[0][:100]!r}" if extra else "",
        )
        if part
    )
    yield Finding(
        path,
        first_line,
        f"INDEX.md is not what `mlwiki index` generates ({detail}); run `mlwiki index`",
    )


def orphan_page(ctx: LintContext) -> Iterator[Finding]:
    """A page that no other file links to (INDEX.md included) and no other page lists as related."""
    reached: set[Path] = set()
    for source, doc in ctx.markdown_docs.items():
        for _, target in ctx.resolved_links(source, doc):
            if target is not None and target.path is not None and target.path != source:
                reached.add(target.path)
    for page in ctx.wiki.pages.values():
        related = page.meta.get("related")
        for page_id in related if isinstance(related, list) else []:
            other = ctx.wiki.pages.get(str(page_id))
            if other is not None and other is not page:
                reached.add(other.path)
    for page in ctx.wiki.pages.values():
        if page.path not in reached:
            yield Finding(
                page.path,
                1,
                f"page '{page.id}' is linked from no other page and not listed in INDEX.md",
            )
