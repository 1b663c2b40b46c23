"""`mlwiki verify --report`: each claim of the report a person reads resolves to a fetched entry,
else REJECT naming the report's line (`mlwiki.diagnose.verify_report`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlwiki.diagnose.verify_report import check_report

NODE = "gke-tpu-pool-0-abcd1234-x1y2"
OTHER = "gke-tpu-pool-0-abcd1234-zzzz"
ENTRIES = [
    {"insertId": "id-oom", "timestamp": "2025-03-14T09:00:00Z", "severity": "ERROR",
     "resource": {"type": "k8s_node", "labels": {"node_name": NODE}},
     "textPayload": "Memory cgroup out of memory: Killed process 41872 (python3)"},
    {"insertId": "id-step", "timestamp": "2025-03-14T08:59:58Z", "severity": "INFO",
     "resource": {"type": "k8s_node", "labels": {"node_name": NODE}},
     "textPayload": "step 1200 loss 2.31"},
    {"insertId": "id-other", "timestamp": "2025-03-14T08:59:59Z", "severity": "INFO",
     "resource": {"type": "k8s_node", "labels": {"node_name": OTHER}},
     "textPayload": "prefetch buffer at 91%"},
]  # fmt: skip
FINDINGS = {
    "evidence": [
        {"id": "E1", "insertId": "id-oom", "quote": ENTRIES[0]["textPayload"]},
        {"id": "E2", "insertId": "id-step", "quote": ENTRIES[1]["textPayload"]},
    ]
}


def check(tmp_path: Path, report: str) -> list[str]:
    bundle = tmp_path / "logs.json"
    bundle.write_text(json.dumps(ENTRIES))
    path = tmp_path / "report.md"
    path.write_text(report)
    problems, _ = check_report(path, FINDINGS, bundle=bundle, project=None)
    return [str(p) for p in problems]


def test_a_cited_quote_of_its_entry_passes(tmp_path: Path) -> None:
    report = f"node `{NODE}`\n\nE1 · insertId `id-oom`\n\n```text\nKilled process 41872 …\n```\n"
    assert check(tmp_path, report) == []


@pytest.mark.parametrize(
    ("report", "problem"),
    [
        ("E1\n\n```text\nKilled process 41873 (python3)\n```\n",
         "line 4: quote is in no fetched entry: Killed process 41873 (python3)"),
        ("E2\n\n```text\nKilled process 41872 (python3)\n```\n",
         "line 4: quote is not in the entry cited above it (E2)"),
        ("See E9.\n", "line 1: E9 is not an evidence id of the findings: See E9."),
        ("insertId `id-nope`\n", "line 1: insertId id-nope is no fetched entry"),
        ("host gke-tpu-pool-0-abcd1234-q9\n",
         "line 1: host gke-tpu-pool-0-abcd1234-q9 is the host of no fetched entry"),
    ],
)  # fmt: skip
def test_a_claim_that_does_not_resolve_is_named_with_its_line(
    tmp_path: Path, report: str, problem: str
) -> None:
    (found,) = check(tmp_path, report)
    assert found.startswith(problem)


def test_a_block_may_quote_one_entry_per_line_but_each_line_must_hold(tmp_path: Path) -> None:
    lines = "step 1200 loss 2.31\nMemory cgroup out of memory: Killed process 41872 (python3)"
    assert check(tmp_path, f"Printed last (E2, E1):\n\n```text\n{lines}\n```\n") == []
    wrong = lines.replace("1200", "1201")
    assert check(tmp_path, f"Printed last (E2, E1):\n\n```text\n{wrong}\n```\n") == [
        "line 4: quote is in no fetched entry: step 1201 loss 2.31"
    ]
    # A line from an entry the block does not cite is not what it says it is.
    other = f"{lines}\nprefetch buffer at 91%"
    assert check(tmp_path, f"Printed last (E2, E1):\n\n```text\n{other}\n```\n") == [
        "line 6: quote is not in the entries cited above it (E1, E2): prefetch buffer at 91%"
    ]


def test_commands_are_not_quotes(tmp_path: Path) -> None:
    assert check(tmp_path, "```bash\nkubectl get pods\n```\n") == []
