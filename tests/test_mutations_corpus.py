"""The shared classifier against command shapes from each tool's reference, labelled by hand.

`tests/data/commands/TOOL.txt` holds lines `read|approve COMMAND` in groups, each group under the
`@source` reference page its shapes come from. `read` means the classifier must let it run
without approval; `approve` means it must not. Words are split as a shell would (shlex).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from mlwiki.mutations import DYNAMIC, READ, classify

CORPUS = Path(__file__).parent / "data" / "commands"
TOOLS = ("kubectl", "gcloud", "gsutil", "helm")


def _corpus(tool: str) -> list[tuple[str, str, str]]:
    rows, source = [], ""
    for number, line in enumerate((CORPUS / f"{tool}.txt").read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("@source "):
            source = line.split()[1]
            continue
        label, command = line.split(None, 1)
        assert label in ("read", "approve"), f"{tool}.txt:{number}: label {label!r}"
        assert source.startswith("https://"), f"{tool}.txt:{number}: no @source above"
        rows.append((label, command, f"{tool}.txt:{number}"))
    return rows


ROWS = [row for tool in TOOLS for row in _corpus(tool)]


@pytest.mark.parametrize("tool", TOOLS)
def test_each_tool_has_150_documented_shapes_of_both_kinds(tool: str) -> None:
    rows = _corpus(tool)
    assert len(rows) >= 150, f"{tool}: {len(rows)} shapes"
    labels = {label for label, _, _ in rows}
    assert labels == {"read", "approve"}


@pytest.mark.parametrize(("label", "command", "where"), ROWS, ids=[r[2] for r in ROWS])
def test_shape_is_classified_as_labelled(label: str, command: str, where: str) -> None:
    verdict = classify(shlex.split(command))
    assert verdict is not None, where
    assert verdict.mutating == (label == "approve"), f"{where}: {command} → {verdict}"
    assert (verdict.category == READ) == (label == "read")
    assert verdict.reason


def test_the_issues_bypasses_need_approval() -> None:
    for command in (
        "kubectl --selector get delete pods",
        "kubectl -l logs cordon",
        "gcloud --verbosity info compute instances delete vm-a",
        "gcloud secrets versions destroy 1 --secret s",
        "gcloud compute instances add-access-config NAME",
        "helm --registry-config status uninstall prod",
    ):
        assert classify(shlex.split(command)).mutating, command


@pytest.mark.parametrize("tool", TOOLS)
def test_a_run_time_word_anywhere_needs_approval(tool: str) -> None:
    read_shape = {
        "kubectl": "get pods",
        "gcloud": "compute zones list",
        "gsutil": "ls gs://b",
        "helm": "list",
    }
    words = read_shape[tool].split()
    for position in range(len(words) + 1):
        argv = [tool, *words[:position], DYNAMIC, *words[position:]]
        assert classify(argv).mutating, argv


def test_unknown_programs_are_not_judged_here() -> None:
    assert classify(["kubecolor", "get", "pods"]) is None
    assert classify([DYNAMIC, "get", "pods"]) is None
    assert classify([]) is None
    assert classify(["/usr/local/bin/kubectl", "get", "pods"]).mutating is False
