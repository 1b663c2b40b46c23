"""Issue #3's red team: real log lines the wiki's pages were not written from, through `mlwiki match`.

`tests/data/heldout_lines.jsonl` holds lines collected from public issues, source format strings and
docs (each with its source URL), the field they appear in, and the page they belong to ("benign"
for look-alikes). Each line is put in the LogEntry shape its field implies (a container's stdout, a
Kubernetes event, a Compute Engine audit entry) and matched by the CLI in one bundle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, match_all

DATA = Path(__file__).parent / "data"
# heldout_lines.jsonl: issue #3's red team; heldout_lines_12.jsonl: real lines issue #12 set aside
# (a random 35% of what its search found, split off before the signatures were written);
# heldout_lines_12b.jsonl: real lines issue #12's second round gathered and kept out of the pages'
# examples (the families were written with most of them in view: a regression check);
# heldout_lines_12c.jsonl: real lines issue #12's third round found that the pages already matched
# before that round changed anything (29 of them; the 10 it found missed became page examples),
# with 5 benign lines from the same threads.
# Three "Liveness probe errored: …" lines (heldout_lines.jsonl and heldout_lines_12b.jsonl) were
# relabelled benign on 2026-12-01: the kubelet discards an errored probe's result, so it never
# restarts the container (the liveness-probe-restart page and tests/data/heldout/README.md say why).
# heldout_lines_12.jsonl's "ModuleNotFoundError: No module named 'kubernetes'" was relabelled
# python-dependency-error on 2026-12-02, when that page was written (it was application-exception).
FILES = sorted(DATA.glob("heldout_lines*.jsonl"))
WIKI = load_wiki(REPO_ROOT / "_wiki")
ROOTS = {page.id for page in WIKI.symptoms.values() if page.role == "root"}
NODE = "gke-tpu-pool-1a2b3c4d-0001"
POD = "heldout-slice-job-0-0-abcde"


def load_lines() -> list[dict[str, Any]]:
    return [
        json.loads(text) for path in FILES for text in path.read_text().splitlines() if text.strip()
    ]


LINES = load_lines()


def entry_for(number: int, line: str, field: str) -> dict[str, Any]:
    """A LogEntry shaped the way Cloud Logging stores a line found in `field`."""
    base: dict[str, Any] = {
        "insertId": f"held-{number}",
        "timestamp": f"2025-01-01T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}Z",
    }
    if field.startswith("protoPayload."):
        # Only the field the line was found in: a status message's own method is not known, and
        # stamping one (every audit row once read "compute.instances.preempted") would let the
        # spot-preemption page match any audit message, a maintenance notice among them.
        proto: dict[str, Any] = {
            "resourceName": f"projects/p/zones/us-central2-b/instances/{NODE}",
        }
        if field == "protoPayload.methodName":
            proto["methodName"] = line
        else:
            proto["status"] = {"message": line}
        return base | {
            "logName": "projects/p/logs/cloudaudit.googleapis.com%2Fsystem_event",
            "resource": {"type": "gce_instance", "labels": {"zone": "us-central2-b"}},
            "severity": "NOTICE",
            "protoPayload": proto,
        }
    if field == "jsonPayload.message":
        return base | {
            "logName": "projects/p/logs/events",
            "resource": {
                "type": "k8s_pod",
                "labels": {"pod_name": POD, "namespace_name": "default"},
            },
            "severity": "WARNING",
            "jsonPayload": {
                "message": line,
                "involvedObject": {"kind": "Pod", "name": POD, "namespace": "default"},
                "source": {"host": NODE},
            },
        }
    assert field == "textPayload", f"no entry shape for field {field!r}"
    return base | {
        "logName": "projects/p/logs/stderr",
        "resource": {"type": "k8s_container", "labels": {"pod_name": POD, "container_name": "jax"}},
        "labels": {"compute.googleapis.com/resource_name": NODE},
        "severity": "ERROR",
        "textPayload": line,
    }


@pytest.fixture(scope="module")
def matched(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """insertId → symptoms `mlwiki match --format json` found in the whole held-out bundle."""
    bundle = tmp_path_factory.mktemp("heldout") / "bundle.jsonl"
    bundle.write_text(
        "".join(
            json.dumps(entry_for(n, row["line"], row["field"])) + "\n"
            for n, row in enumerate(LINES)
        )
    )
    found: dict[str, set[str]] = {}
    for match in match_all("--bundle", str(bundle)):
        found.setdefault(match["insertId"], set()).add(match["symptom"])
    return found


def describe(number: int, hits: set[str]) -> str:
    row = LINES[number]
    return f"{row['expect']}: {row['line'][:90]!r} → {sorted(hits) or 'nothing'} ({row['source']})"


def test_data_is_well_formed() -> None:
    assert len(FILES) >= 2 and len(LINES) >= 160
    for row in LINES:
        assert set(row) == {"line", "field", "expect", "role_of_expect", "source"}, row
        assert row["source"].startswith("https://"), row
        if row["expect"] != "benign":
            assert row["expect"] in WIKI.symptoms, row
            assert WIKI.symptoms[row["expect"]].role == row["role_of_expect"], row
    assert sum(row["expect"] == "benign" for row in LINES) >= 20


def test_every_line_matches_its_expected_page(matched: dict[str, set[str]]) -> None:
    missed = [
        describe(n, matched.get(f"held-{n}", set()))
        for n, row in enumerate(LINES)
        if row["expect"] != "benign" and row["expect"] not in matched.get(f"held-{n}", set())
    ]
    assert not missed, "\n".join(missed)


def test_benign_lines_match_no_root_page(matched: dict[str, set[str]]) -> None:
    wrong = [
        describe(n, matched[f"held-{n}"])
        for n, row in enumerate(LINES)
        if row["expect"] == "benign" and matched.get(f"held-{n}", set()) & ROOTS
    ]
    assert not wrong, "\n".join(wrong)


def test_cascade_lines_match_no_root_page(matched: dict[str, set[str]]) -> None:
    wrong = [
        describe(n, matched[f"held-{n}"])
        for n, row in enumerate(LINES)
        if row["role_of_expect"] == "cascade" and matched.get(f"held-{n}", set()) & ROOTS
    ]
    assert not wrong, "\n".join(wrong)
