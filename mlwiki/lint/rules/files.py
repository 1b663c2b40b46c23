"""Rules about files as files: what could not be read or parsed, and what is where."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Callable

from mlwiki.lint.context import LintContext
from mlwiki.lint.model import Finding
from mlwiki.wiki import ACTIONS_DIR, PAGE_FOLDERS, SCHEMAS_DIR, WORKFLOWS_DIR

KEBAB_CASE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
REQUIRED_FILES = ("SCHEMA.md", "INDEX.md", "TUTORIAL.md")
EXAMPLES_DIR = "examples"
REQUIRED_DIRS = (SCHEMAS_DIR, *PAGE_FOLDERS, ACTIONS_DIR, WORKFLOWS_DIR, EXAMPLES_DIR)
# Top-level files that belong in _wiki/ besides the required ones.
ALLOWED_TOP_FILES = frozenset({*REQUIRED_FILES, "README.md", "wiki_linter.py", "requirements.txt"})
# Which file suffix each content folder holds.
FOLDER_SUFFIX = {**dict.fromkeys(PAGE_FOLDERS, ".md"), ACTIONS_DIR: ".json", WORKFLOWS_DIR: ".json"}
_IGNORED = frozenset({"__pycache__"})


_PARSE_KINDS = frozenset({"json", "frontmatter-missing", "yaml"})


def _load_problems(ctx: LintContext, wanted: Callable[[str], bool]) -> Iterator[Finding]:
    ctx.markdown_docs  # noqa: B018 - reading the guides records their load problems
    for problem in (*ctx.wiki.problems, *ctx.extra_problems):
        if wanted(problem.kind):
            yield Finding(problem.file, problem.line, problem.message, problem.column)


def unreadable_file(ctx: LintContext) -> Iterator[Finding]:
    """Unreadable, binary or non-UTF-8 files and symlink loops (any problem not about parsing)."""
    yield from _load_problems(ctx, lambda kind: kind not in _PARSE_KINDS)


def json_syntax(ctx: LintContext) -> Iterator[Finding]:
    yield from _load_problems(ctx, lambda kind: kind == "json")


def frontmatter_missing(ctx: LintContext) -> Iterator[Finding]:
    yield from _load_problems(ctx, lambda kind: kind == "frontmatter-missing")


def frontmatter_yaml(ctx: LintContext) -> Iterator[Finding]:
    yield from _load_problems(ctx, lambda kind: kind == "yaml")


def missing_required(ctx: LintContext) -> Iterator[Finding]:
    for name in REQUIRED_FILES:
        if not (ctx.root / name).is_file():
            yield Finding(ctx.root / name, 0, f"required file {name} is missing")
    for name in REQUIRED_DIRS:
        if not (ctx.root / name).is_dir():
            yield Finding(ctx.root / name, 0, f"required folder {name}/ is missing")


def misplaced_file(ctx: LintContext) -> Iterator[Finding]:
    for child in sorted(ctx.root.iterdir()):
        if child.name.startswith(".") or child.name in _IGNORED:
            continue
        if child.is_dir() and child.name not in REQUIRED_DIRS:
            yield Finding(
                child,
                0,
                f"unknown folder {child.name}/ in the wiki (allowed: {', '.join(REQUIRED_DIRS)})",
            )
        elif not child.is_dir() and child.name not in ALLOWED_TOP_FILES:
            yield Finding(child, 0, f"unknown file {child.name} at the top of the wiki")
    for folder, suffix in FOLDER_SUFFIX.items():
        directory = ctx.root / folder
        if not directory.is_dir():
            continue
        for child in sorted(directory.iterdir()):
            if child.name.startswith(".") or child.name in _IGNORED:
                continue
            if child.is_dir():
                yield Finding(
                    child, 0, f"{folder}/ must be flat: move the files out of {child.name}/"
                )
            elif child.suffix != suffix:
                yield Finding(
                    child, 0, f"{folder}/ holds only {suffix} files; {child.name} belongs elsewhere"
                )
    schemas = ctx.root / SCHEMAS_DIR
    if schemas.is_dir():
        for child in sorted(schemas.iterdir()):
            if not child.name.startswith(".") and not child.name.endswith(".schema.json"):
                yield Finding(child, 0, f"{SCHEMAS_DIR}/ holds only *.schema.json files")


def bad_file_name(ctx: LintContext) -> Iterator[Finding]:
    docs = [*ctx.wiki.pages.values(), *ctx.wiki.actions.values(), *ctx.wiki.workflows.values()]
    for doc in docs:
        if not KEBAB_CASE.match(doc.id):
            yield Finding(
                doc.path,
                0,
                f"file name '{doc.path.name}' is not kebab-case (e.g. my-page{doc.path.suffix})",
            )


def id_mismatch(ctx: LintContext) -> Iterator[Finding]:
    for doc in (*ctx.wiki.actions.values(), *ctx.wiki.workflows.values()):
        declared = doc.data.get("id")
        if declared is not None and declared != doc.id:
            yield Finding(
                doc.path, doc.line_of("id"), f"id '{declared}' must equal the file name '{doc.id}'"
            )


def duplicate_id(ctx: LintContext) -> Iterator[Finding]:
    for doc_id, first, second in ctx.wiki.duplicates:
        yield Finding(second, 0, f"id '{doc_id}' is already used by {ctx.rel(first)}")
