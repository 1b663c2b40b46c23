"""Issue #3's acceptance test, through `mlwiki match`: every example line of every symptom page
matches its own page; the reference's benign lines match no root page; a page's counter-examples
(look-alikes, often another page's real line) never match that page; cascade examples never
match a root page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, match_all

BENIGN = [
    "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client",
    "tpunetd either not supported or disabled, falling back to Slice Builder",
    "The JAX preemption service is disabled.",
]
WIKI = load_wiki(REPO_ROOT / "_wiki")


def entry_for(number: int, line: str, field: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "insertId": f"ex-{number}",
        "timestamp": f"2025-01-01T00:{number // 60 % 60:02d}:{number % 60:02d}Z",
        "logName": "projects/p/logs/stdout",
        "resource": {"type": "k8s_container", "labels": {"pod_name": "w-slice-job-0-0-abcde"}},
    }
    if field and field.startswith(("protoPayload.", "jsonPayload.")):
        # The example's own field, nested as a LogEntry holds it (protoPayload.status.message).
        top, *path, leaf = field.split(".")
        node = entry.setdefault(top, {})
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = line
    elif field and field != "textPayload":
        entry["jsonPayload"] = {"message": line}
    elif line.startswith("compute.instances."):
        entry["protoPayload"] = {"methodName": line}
    else:
        entry["textPayload"] = line
    return entry


def matches_of(tmp_path: Path, lines: list[tuple[str, str | None]]) -> dict[str, set[str]]:
    bundle = tmp_path / "bundle.jsonl"
    bundle.write_text(
        "".join(json.dumps(entry_for(n, text, f)) + "\n" for n, (text, f) in enumerate(lines))
    )
    found: dict[str, set[str]] = {}
    for match in match_all("--bundle", str(bundle)):
        found.setdefault(match["insertId"], set()).add(match["symptom"])
    return found


@pytest.fixture(scope="module")
def examples() -> list[tuple[str, str, str | None, str]]:
    return [
        (page.id, example.line, example.field, page.role)
        for page in WIKI.symptoms.values()
        for example in page.examples
    ]


def test_every_example_matches_its_own_page(tmp_path: Path, examples) -> None:
    assert len(WIKI.symptoms) >= 50
    found = matches_of(tmp_path, [(line, field) for _, line, field, _ in examples])
    missed = [
        f"{page}: {line[:80]!r}"
        for n, (page, line, _, _) in enumerate(examples)
        if page not in found.get(f"ex-{n}", set())
    ]
    assert not missed, "\n".join(missed)


def test_cascade_examples_never_match_a_root_page(tmp_path: Path, examples) -> None:
    cascades = [(line, field) for _, line, field, role in examples if role == "cascade"]
    found = matches_of(tmp_path, cascades)
    roots = {s.id for s in WIKI.symptoms.values() if s.role == "root"}
    wrong = {key: hits & roots for key, hits in found.items() if hits & roots}
    assert not wrong, wrong


def test_benign_lines_and_counter_examples_stay_unmatched(tmp_path: Path) -> None:
    lines = [(line, None) for line in BENIGN]
    owners = [None] * len(BENIGN)
    for page in WIKI.symptoms.values():
        for counter in page.counter_examples:
            lines.append((counter.line, None))
            owners.append(page.id)
    found = matches_of(tmp_path, lines)
    roots = {s.id for s in WIKI.symptoms.values() if s.role == "root"}
    wrong = []
    for n, owner in enumerate(owners):
        hits = found.get(f"ex-{n}", set())
        # A counter-example may be another page's real line: it must only miss its own page.
        if (owner is None and hits & roots) or (owner and owner in hits):
            wrong.append(f"{owner or 'benign'}: {lines[n][0][:80]!r} → {sorted(hits)}")
    assert not wrong, "\n".join(wrong)
