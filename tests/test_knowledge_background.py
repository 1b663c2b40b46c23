"""Guards for the background knowledge: concept and entity pages (`_wiki/concepts`, `_wiki/entities`).

These pages carry no signatures, so nothing else checks their substance: here every page must
validate against its frontmatter schema, cite sources (frontmatter and a `## Sources` section that
lists the same URLs), point only at pages and files that exist, be reachable from another page,
and keep the concrete facts an on-call engineer looks them up for (label values, label keys).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from mlwiki.index import INDEX_NAME
from mlwiki.lint.markdown import MarkdownDoc, parse_markdown, resolve_link
from mlwiki.schemas import FRONTMATTER, validator
from mlwiki.wiki import Page, Wiki, load_wiki, read_text
from tests.conftest import WIKI_ROOT, run_cli

BACKGROUND_TYPES = ("concept", "entity")
URL = re.compile(r"^https?://")

# Ids other pages already point at (symptom `related` lists, links) or the issue asks for.
EXPECTED = {
    "concept": (
        "libtpu-program-lifecycle",
        "goodput-and-badput",
        "monitoring-workload-progress",
        "multi-host-slices",
        "multislice-dcn-megascale",
        "jobset-restart-semantics",
        "jax-fate-sharing",
        "coordination-service",
        "root-cause-vs-cascade",
        "cloud-logging-for-gke",
        "evidence-and-citations",
        "maintenance-and-interruption-events",
    ),
    "entity": (
        "tpu",
        "tpu-v4",
        "tpu-v5e",
        "tpu-v5p",
        "tpu-v6e",
        "tpu7x",
        "gpu",
        "jax",
        "xla",
        "libtpu",
        "pathways",
        "jobset",
        "kueue",
        "gke-tpu-node-pools",
        "compute-engine-vms",
        "cloud-logging",
        "ml-diagnostics",
    ),
}

# Facts a page exists to give: if an edit drops one, the page stopped doing its job.
REQUIRED_FACTS = {
    "tpu-v4": ("tpu-v4-podslice", "ct4p-hightpu-4t"),
    "tpu-v5e": ("tpu-v5-lite-podslice", "ct5lp-hightpu-4t", "16 GB"),
    "tpu-v5p": ("tpu-v5p-slice", "ct5p-hightpu-4t", "95 GiB"),
    "tpu-v6e": ("tpu-v6e-slice", "ct6e-standard-4t", "32 GB"),
    "tpu7x": ("`tpu7x`", "tpu7x-standard-4t", "192 GiB"),
    "cloud-logging-for-gke": (
        "k8s-pod/jobset_sigs_k8s_io/jobset-name",
        "k8s-pod/jobset.sigs.k8s.io/jobset-name",
        "compute.googleapis.com/resource_name",
        "k8s_container",
        "gce_instance",
        "cloudaudit.googleapis.com/system_event",
    ),
    "gke-tpu-node-pools": (
        "cloud.google.com/gke-tpu-accelerator",
        "cloud.google.com/gke-tpu-topology",
        "google.com/tpu",
        "cloud.google.com/impending-node-termination",
    ),
    "jobset-restart-semantics": (
        "podFailurePolicy",
        "maxRestarts",
        "jobset.sigs.k8s.io/restart-attempt",
        "first failed job",
        "143",
    ),
    "pathways": ("resource manager", "IFRT proxy", "workers"),
    "ml-diagnostics": (
        "Diagon daemon",
        "injection-webhook",
        "connection-operator",
        "cert-manager",
        "managed-mldiagnostics-gke=true",
        "XProf",
    ),
}


@cache
def wiki() -> Wiki:
    return load_wiki(WIKI_ROOT)


def background_pages() -> list[Page]:
    return sorted(
        (p for p in wiki().pages.values() if p.type in BACKGROUND_TYPES), key=lambda p: p.id
    )


@cache
def markdown(page_id: str) -> MarkdownDoc:
    page = wiki().pages[page_id]
    return parse_markdown(page.body, page.body_line)


def page_ids() -> list[str]:
    return [p.id for p in background_pages()]


def sources_section_urls(page_id: str) -> list[str]:
    """The URLs linked between the page's `## Sources` heading and the next H2 (or the end)."""
    doc = markdown(page_id)
    h2 = [h for h in doc.headings if h.level == 2]
    start = next((h.line for h in h2 if h.text.strip() == "Sources"), None)
    if start is None:
        return []
    end = min((h.line for h in h2 if h.line > start), default=float("inf"))
    return [link.href for link in doc.links if start < link.line < end and URL.match(link.href)]


def test_enough_concepts_and_entities() -> None:
    counts = {kind: len(wiki().pages_of_type(kind)) for kind in BACKGROUND_TYPES}
    assert counts["concept"] >= 10, counts
    assert counts["entity"] >= 15, counts


@pytest.mark.parametrize(
    ("kind", "page_id"),
    [(kind, page_id) for kind, ids in EXPECTED.items() for page_id in ids],
)
def test_expected_page_exists_with_its_type(kind: str, page_id: str) -> None:
    page = wiki().pages.get(page_id)
    assert page is not None, f"{kind} page {page_id} is missing"
    assert page.type == kind


@pytest.mark.parametrize("page_id", page_ids())
def test_frontmatter_validates(page_id: str) -> None:
    page = wiki().pages[page_id]
    check = validator(WIKI_ROOT / "schemas", FRONTMATTER, page.type)
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in check.iter_errors(page.meta)]
    assert problems == []


@pytest.mark.parametrize("page_id", page_ids())
def test_sources_cited_in_frontmatter_and_section(page_id: str) -> None:
    cited = [s["url"] for s in wiki().pages[page_id].meta.get("sources") or []]
    listed = sources_section_urls(page_id)
    assert cited, "frontmatter lists no sources"
    assert listed, "no '## Sources' section with at least one URL"
    assert set(cited) <= set(listed), f"sources missing from ## Sources: {set(cited) - set(listed)}"


@pytest.mark.parametrize("page_id", page_ids())
def test_related_ids_exist(page_id: str) -> None:
    related = wiki().pages[page_id].meta.get("related") or []
    assert related, "a background page should point to related pages"
    assert page_id not in related
    assert [r for r in related if r not in wiki().pages] == []


@pytest.mark.parametrize("page_id", page_ids())
def test_relative_links_resolve(page_id: str) -> None:
    page = wiki().pages[page_id]
    broken = []
    for link in markdown(page_id).links:
        if URL.match(link.href):
            continue
        target = resolve_link(page.path, link.href)
        if target is not None and target.path is not None and not target.path.exists():
            broken.append((link.line, link.href))
    assert broken == []


def test_every_page_is_reachable_from_another_page_or_the_index() -> None:
    linked: set[Path] = set()
    for page in wiki().pages.values():
        for link in markdown(page.id).links:
            target = resolve_link(page.path, link.href)
            if target is not None and target.path is not None and target.path != page.path:
                linked.add(target.path.resolve())
        linked.update(
            wiki().pages[r].path.resolve()
            for r in page.meta.get("related") or []
            if r in wiki().pages and r != page.id
        )
    index_text, _ = read_text(WIKI_ROOT / INDEX_NAME)
    index = parse_markdown(index_text or "")
    for link in index.links:
        target = resolve_link(WIKI_ROOT / INDEX_NAME, link.href)
        if target is not None and target.path is not None:
            linked.add(target.path.resolve())
    orphans = [p.id for p in background_pages() if p.path.resolve() not in linked]
    assert orphans == []


@pytest.mark.parametrize(("page_id", "facts"), sorted(REQUIRED_FACTS.items()))
def test_page_keeps_its_key_facts(page_id: str, facts: tuple[str, ...]) -> None:
    body = wiki().pages[page_id].body
    assert [fact for fact in facts if fact not in body] == []


def test_tpu_overview_links_every_generation_page() -> None:
    targets = {link.href for link in markdown("tpu").links}
    generations = [pid for pid in EXPECTED["entity"] if pid.startswith("tpu") and pid != "tpu"]
    assert [g for g in generations if f"{g}.md" not in targets] == []


def test_linter_reports_nothing_in_background_pages() -> None:
    result = run_cli("--wiki", str(WIKI_ROOT), "lint", "--format", "json")
    report = result.json()
    ours = [
        finding
        for finding in report["errors"] + report["warnings"]
        if finding["file"].startswith(("_wiki/concepts/", "_wiki/entities/"))
    ]
    assert ours == []
