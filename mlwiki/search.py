"""Ranked search over the wiki's pages, actions and workflows (the MCP server's `search_wiki`).

Relevance is a weighted token match: each query word counts by how rare it is in the wiki (IDF,
so "the" weighs nothing and "vfio" a lot) times where it occurs — title or id (4), summary or
description (2), log signatures, aliases, filters and commands (2), body (1). Actions and
workflows count 0.8 of a page, so the page explaining a failure outranks the steps named after
it. A query that is
itself a log line matched by a symptom's signatures ranks that symptom first: pasting the line
that killed a job finds its page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from mlwiki.wiki import Wiki

_WORD = re.compile(r"[a-z0-9]+")
WEIGHTS = {"title": 4.0, "summary": 2.0, "signatures": 2.0, "body": 1.0}
STEP_FACTOR = 0.8  # actions and workflows against pages


@dataclass(frozen=True)
class Document:
    """One searchable item and its words per field."""

    id: str
    type: str  # concept | entity | symptom | playbook | tool | action | workflow
    title: str
    summary: str
    path: str  # relative to the repository root
    fields: dict[str, frozenset[str]]

    @property
    def words(self) -> frozenset[str]:
        return frozenset().union(*self.fields.values())


@dataclass(frozen=True)
class SearchHit:
    id: str
    type: str
    title: str
    summary: str
    path: str
    score: float
    signature_match: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "summary": self.summary,
            "path": self.path,
            "score": round(self.score, 3),
            "signature_match": self.signature_match,
        }


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _text(values: Iterable[Any]) -> str:
    return " ".join(str(value) for value in values if value)


def documents(wiki: Wiki) -> Iterator[Document]:
    """Every page, action and workflow of `wiki` as a search document."""
    root = wiki.repo_root
    for page in wiki.pages.values():
        meta = page.meta
        signatures = [s.get("pattern") for s in meta.get("signatures") or [] if isinstance(s, dict)]
        aliases = meta.get("aliases") if isinstance(meta.get("aliases"), list) else []
        yield Document(
            page.id,
            page.type,
            page.title,
            page.summary,
            str(page.path.relative_to(root)),
            {
                "title": words(f"{page.title} {page.id}"),
                "summary": words(page.summary),
                "signatures": words(_text([*signatures, *aliases])),
                "body": words(page.body),
            },
        )
    for action in wiki.actions.values():
        data = action.data
        yield Document(
            action.id,
            "action",
            action.title,
            str(data.get("description", "")),
            str(action.path.relative_to(root)),
            {
                "title": words(f"{action.title} {action.id}"),
                "summary": words(str(data.get("description", ""))),
                "signatures": words(_text([action.filter, *action.command])),
                "body": words(_text(data.get("symptoms") or [])),
            },
        )
    for workflow in wiki.workflows.values():
        data = workflow.data
        steps = [f"{s.get('id', '')} {s.get('uses', '')}" for s in workflow.steps]
        yield Document(
            workflow.id,
            "workflow",
            workflow.title,
            str(data.get("description", "")),
            str(workflow.path.relative_to(root)),
            {
                "title": words(f"{workflow.title} {workflow.id}"),
                "summary": words(str(data.get("description", ""))),
                "signatures": words(str(workflow.symptom or "")),
                "body": words(_text(steps)),
            },
        )


def search(wiki: Wiki, query: str, limit: int = 10) -> list[SearchHit]:
    """The `limit` best matches of `query`, best first (ties by id); only items that match."""
    from mlwiki.diagnose.signatures import SignatureSet

    docs = list(documents(wiki))
    wanted = words(query)
    frequency = {word: sum(1 for d in docs if word in d.words) for word in wanted}
    idf = {w: math.log((1 + len(docs)) / (1 + n)) + 1.0 for w, n in frequency.items() if n}
    by_line = {m.signature.symptom for m in SignatureSet(wiki.symptoms.values()).scan_text(query)}
    hits = []
    for doc in docs:
        score = sum(
            weight * idf[word]
            for name, weight in WEIGHTS.items()
            for word in doc.fields[name] & idf.keys()
        )
        if doc.type in ("action", "workflow"):
            score *= STEP_FACTOR
        matched = doc.type == "symptom" and doc.id in by_line
        if score > 0 or matched:
            hits.append(
                SearchHit(doc.id, doc.type, doc.title, doc.summary, doc.path, score, matched)
            )
    hits.sort(key=lambda h: (not h.signature_match, -h.score, h.id))
    return hits[:limit]
