"""Parse a Markdown file once into what the rules need: headings, anchors, links, prose.

markdown-it-py's inline pass is most of its cost, so it runs only on the inline blocks that can
hold a link, a code span, HTML or an escape; a plain paragraph is prose as it stands.

What a file parses to depends only on its text, where it starts, this module and markdown-it,
so `parse_many` keeps each result in the user cache (`mlwiki.wiki_cache.markdown_docs`, plain
data under the SHA-256 of all of them): a later lint parses only the files that changed (the
wiki's ~125 pages cost ~0.4 s to parse, ~10 ms to load).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import re
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Optional
from urllib.parse import unquote

import orjson
from markdown_it import MarkdownIt
from markdown_it.token import Token

from mlwiki.wiki_cache import markdown_docs

# Characters that can start inline syntax the rules care about (links, images, code spans,
# autolinks, HTML, escapes, entities). Headings are always parsed fully (their slug needs it).
_INLINE_TRIGGERS = re.compile(r"[\[`<\\&]")
# GitHub's heading slugs: lower-case, drop everything but letters, digits, _, - and spaces,
# then spaces become hyphens; repeated slugs get -1, -2, ...
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int
    empty: bool  # followed directly by a heading of the same or a higher level, or by the end


@dataclass(frozen=True)
class Link:
    href: str
    line: int


@dataclass
class MarkdownDoc:
    headings: list[Heading] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    prose: list[tuple[str, int]] = field(default_factory=list)  # (text, line), code excluded

    @cached_property
    def anchors(self) -> set[str]:
        return anchors_of([h.text for h in self.headings])


def slugify(text: str) -> str:
    return _SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")


def anchors_of(titles: list[str]) -> set[str]:
    seen: dict[str, int] = {}
    anchors: set[str] = set()
    for title in titles:
        base = slugify(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchors.add(base if count == 0 else f"{base}-{count}")
    return anchors


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


@dataclass(frozen=True)
class Target:
    """Where a relative link points."""

    path: Optional[Path]  # None for an anchor into the same file
    anchor: str


def resolve_link(source: Path, href: str) -> Optional[Target]:
    """Where a relative link points; None for external links (http:, mailto:, //host)."""
    if _SCHEME.match(href):
        return None
    raw_path, _, anchor = href.partition("#")
    raw_path = raw_path.split("?", 1)[0]
    if not raw_path:
        return Target(None, unquote(anchor))
    return Target(_join(source.parent, unquote(raw_path)), unquote(anchor))


@lru_cache(maxsize=65536)
def _join(folder: Path, relative: str) -> Path:
    """Normalise `folder/relative` lexically (no symlinks followed); pages share many targets."""
    return Path(os.path.normpath(os.path.join(folder, relative)))


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # The core "inline" rule is off: parse_markdown runs an inline parser only where it matters.
    return _keep_hrefs(MarkdownIt("commonmark").disable("inline"))


@lru_cache(maxsize=1)
def _links_parser() -> MarkdownIt:
    """Inline parsing for paragraphs: links, images, code spans, HTML, escapes; no emphasis
    (it cannot hide a link or a code span, and only heading slugs need its exact text)."""
    return _keep_hrefs(MarkdownIt("commonmark").disable(["inline", "emphasis", "fragments_join"]))


def _keep_hrefs(md: MarkdownIt) -> MarkdownIt:
    """Keep link targets as written: resolve_link decodes them itself, so markdown-it's
    percent-encoding pass (a large share of its time on link-heavy pages) is not needed."""
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    return md


def parse_markdown(text: str, first_line: int = 1) -> MarkdownDoc:
    """Parse `text`, whose first line is line `first_line` of its file."""
    md = _parser()
    env: dict[str, Any] = {}
    tokens = md.parse(text, env)
    doc = MarkdownDoc()
    open_headings: list[tuple[int, str, int, int]] = []  # (level, text, line, token index)
    block_starts: list[tuple[int, int]] = []  # (token index, heading level or 0) of block tokens
    for index, token in enumerate(tokens):
        if token.nesting >= 0 and token.level == 0 and token.type != "inline":
            block_starts.append((index, int(token.tag[1]) if token.type == "heading_open" else 0))
        if token.type != "inline" or token.map is None:
            continue
        line = first_line + token.map[0]
        is_heading = index > 0 and tokens[index - 1].type == "heading_open"
        if is_heading or _INLINE_TRIGGERS.search(token.content):
            children: list[Token] = []
            inline = md if is_heading else _links_parser()
            inline.inline.parse(token.content, inline, env, children)
            text_parts = _walk_inline(children, line, doc)
        else:
            doc.prose.append((token.content, line))
            text_parts = [token.content]
        if is_heading:
            level = int(tokens[index - 1].tag[1])
            open_headings.append((level, "".join(text_parts), line, index - 1))
    _mark_empty(open_headings, block_starts, doc)
    return doc


# Below this many files a worker pool costs more than it saves.
PARALLEL_MIN_FILES = 400


def _parse_job(job: tuple[str, int]) -> MarkdownDoc:
    return parse_markdown(*job)


def parse_many(jobs: list[tuple[str, int]]) -> list[MarkdownDoc]:
    """`parse_markdown` over many (text, first_line) jobs: those parsed before come from the
    user cache (module docstring), the others are parsed and kept."""
    cache = markdown_docs()
    docs = [_loaded(cache.get(str(first_line), text)) for text, first_line in jobs]
    missing = [index for index, doc in enumerate(docs) if doc is None]
    for index, doc in zip(missing, _parse_all([jobs[index] for index in missing])):
        docs[index] = doc
        text, first_line = jobs[index]
        cache.put(_dumped(doc), str(first_line), text)
    return [doc for doc in docs if doc is not None]


def _dumped(doc: MarkdownDoc) -> str:
    headings = [[h.level, h.text, h.line, h.empty] for h in doc.headings]
    links = [[link.href, link.line] for link in doc.links]
    prose = [list(item) for item in doc.prose]
    return orjson.dumps([headings, links, prose]).decode()


def _loaded(data: Optional[str]) -> Optional[MarkdownDoc]:
    if data is None:
        return None
    try:
        headings, links, prose = orjson.loads(data)
        return MarkdownDoc(
            [Heading(int(a), str(b), int(c), bool(d)) for a, b, c, d in headings],
            [Link(str(href), int(line)) for href, line in links],
            [(str(text), int(line)) for text, line in prose],
        )
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None  # not what `_dumped` writes: parsed again


def _parse_all(jobs: list[tuple[str, int]]) -> list[MarkdownDoc]:
    """`parse_markdown` over many jobs, on every core for a large wiki.

    Parsing Markdown is most of a large wiki's lint time and each file is independent, so big
    wikis are parsed in forked worker processes; small ones in this one, and so is any wiki when
    fork is unavailable or other threads run (forking a threaded process can deadlock).
    """
    workers = min(os.cpu_count() or 1, 8)
    serial = (
        len(jobs) < PARALLEL_MIN_FILES
        or workers < 2
        or threading.active_count() > 1
        or "fork" not in mp.get_all_start_methods()
    )
    if serial:
        return [parse_markdown(*job) for job in jobs]
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
        return list(pool.map(_parse_job, jobs, chunksize=max(1, len(jobs) // (workers * 4))))


def _walk_inline(children: list[Token], line: int, doc: MarkdownDoc) -> list[str]:
    """Collect links and prose from inline tokens; return the visible text (for heading slugs)."""
    visible: list[str] = []
    for child in children:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        elif child.type == "text":
            doc.prose.append((child.content, line))
            visible.append(child.content)
        elif child.type == "code_inline":
            visible.append(child.content)
        elif child.type == "link_open":
            doc.links.append(Link(str(child.attrs.get("href", "")), line))
        elif child.type == "image":
            doc.links.append(Link(str(child.attrs.get("src", "")), line))
            visible.append(child.content)
    return visible


def _mark_empty(
    headings: list[tuple[int, str, int, int]],
    block_starts: list[tuple[int, int]],
    doc: MarkdownDoc,
) -> None:
    next_block = {index: position for position, (index, _) in enumerate(block_starts)}
    for level, text, line, token_index in headings:
        position = next_block.get(token_index)
        if position is None:  # a heading nested in a list or quote: not a section of the page
            doc.headings.append(Heading(level, text, line, False))
            continue
        following = block_starts[position + 1] if position + 1 < len(block_starts) else None
        empty = following is None or 0 < following[1] <= level
        doc.headings.append(Heading(level, text, line, empty))
