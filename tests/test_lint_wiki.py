"""The "done when" gate: the repository's wiki passes, and a copy with planted defects fails."""

from __future__ import annotations

import json
from pathlib import Path

from mlwiki.lint.runner import lint
from tests.conftest import WIKI_ROOT


def _describe(report) -> str:
    return "\n".join(f"{p.file}:{p.line}: {p.code} {p.rule} {p.message}" for p in report.errors)


def test_the_repository_wiki_passes() -> None:
    report = lint(WIKI_ROOT)
    assert report.status == "PASS", _describe(report)


def _first(folder: Path, suffix: str) -> Path | None:
    return next(iter(sorted(folder.glob(f"*{suffix}"))), None)


def test_planted_defects_fail_naming_each_file(wiki_copy: Path) -> None:
    wiki = wiki_copy
    planted: dict[str, str] = {}  # relative file -> rule code expected there

    # A broken link on an existing page (or a new one if the wiki has none yet).
    linked = wiki / "concepts" / "planted-link.md"
    existing = _first(wiki / "concepts", ".md") or _first(wiki / "symptoms", ".md")
    if existing is not None:
        linked = existing
        linked.write_text(linked.read_text() + "\nSee [this page](no-such-page-planted.md).\n")
    else:
        linked.parent.mkdir(exist_ok=True)
        linked.write_text(
            "---\ntitle: Planted\nsummary: A page with a broken link in it.\n---\n[x](nowhere.md)\n"
        )
    planted[linked.relative_to(wiki.parent).as_posix()] = "E301"

    # An invalid JSON workflow.
    (wiki / "workflows").mkdir(exist_ok=True)
    (wiki / "workflows" / "planted-broken.json").write_text(
        '{"id": "planted-broken", "steps": [,]}\n'
    )
    planted["_wiki/workflows/planted-broken.json"] = "E002"

    # A symptom page without frontmatter.
    symptom = _first(wiki / "symptoms", ".md") or wiki / "symptoms" / "planted-symptom.md"
    symptom.parent.mkdir(exist_ok=True)
    body = symptom.read_text().split("\n---\n", 1)[-1] if symptom.exists() else "# Planted\n"
    symptom.write_text(body)
    planted[symptom.relative_to(wiki.parent).as_posix()] = "E003"

    # A mutating action without requires_approval.
    (wiki / "actions").mkdir(exist_ok=True)
    action = {
        "id": "planted-cordon",
        "title": "Cordon without approval",
        "kind": "kubectl",
        "description": "Cordons a node and forgets to ask first.",
        "params": {"node": {"type": "k8s_name", "required": True, "description": "node"}},
        "command": ["kubectl", "cordon", "{{ node }}"],
    }
    (wiki / "actions" / "planted-cordon.json").write_text(json.dumps(action, indent=2))
    planted["_wiki/actions/planted-cordon.json"] = "E501"

    # An orphan page: valid, but linked from nowhere and not in INDEX.md.
    (wiki / "concepts").mkdir(exist_ok=True)
    (wiki / "concepts" / "planted-orphan.md").write_text(
        "---\ntitle: Planted orphan\nsummary: A page nothing links to.\n---\n# Orphan\n\nAlone.\n"
    )
    planted["_wiki/concepts/planted-orphan.md"] = "E702"

    report = lint(wiki)
    assert report.status == "FAIL"
    found = {(p.file, p.code) for p in report.errors}
    missing = {item for item in planted.items() if item not in found}
    assert not missing, f"not reported: {missing}\n{_describe(report)}"
