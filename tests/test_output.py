"""Output sized for an agent (`mlwiki.output`): the cap holds on any input, views say what they
left out, the full result goes to `--out`, filters and paging, redaction by default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.output import CLI, MCP, Selection, dumps, fit, fit_text, present
from tests.conftest import REPO_ROOT, run_cli

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"
CULPRIT = "gke-tpu-cluster-tpu-v5p-pool-2-39c20066-0emr"
OOM = "Memory cgroup out of memory: Killed process 41872 (python3)"
SECRET = "ya29.a0AfH6SMBxK3q9Zt7LwPq2Vd8sRfUe1MnB4cYo"


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value, {"k": value}] if depth < 30 else [value]
    return value


HOSTILE = {
    "a 400 KB string": {"summary": "x" * 400_000},
    "100k list items": {"rows": [{"quote": f"line {n}", "host": "h"} for n in range(100_000)]},
    "a 100k-key object": {"outputs": {f"k{n}": n for n in range(100_000)}},
    "non-ASCII text": {"summary": "机" * 50_000, "rows": ["💥" * 1000] * 50},
    "deep nesting": {"value": _deep(200)},
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("budget", [CLI, MCP], ids=["cli", "mcp"])
def test_fit_caps_any_shape(name: str, budget: Any) -> None:
    shown = fit(HOSTILE[name], budget, hint="see --out")
    assert budget.size(dumps(shown)) <= budget.limit
    assert shown.get("output", {}).get("clipped") or shown.get("output", {}).get("too_large")


def test_fit_leaves_what_fits_alone() -> None:
    small = {"verdict": "confirmed", "summary": "fine", "rows": [1, 2, 3]}
    assert fit(small, CLI) is small


def test_fit_text_cuts_at_a_line_and_says_so() -> None:
    text = "".join(f"line {n}\n" for n in range(20_000))
    cut = fit_text(text, CLI, hint="the full report is in FILE")
    assert len(cut) <= CLI.limit and cut.startswith("line 0\n")
    assert cut.rstrip().endswith("the full report is in FILE")
    assert "line 5000\n" not in cut


def test_present_pages_rows_with_filters() -> None:
    rows = [{"insertId": f"i{n}", "host": f"h{n % 3}", "symptom": "s", "role": "root", "quote": "q"}
            for n in range(40)]  # fmt: skip
    first = present("matches", {"matches": rows}, Selection(limit=5)).view
    assert first["page"] == {"total": 40, "offset": 0, "shown": 5, "next_offset": 5}
    second = present("matches", {"matches": rows}, Selection(limit=5, offset=5)).view
    assert [r["insertId"] for r in second["matches"]] == [f"i{n}" for n in range(5, 10)]
    on_h1 = present("matches", {"matches": rows}, Selection(limit=100, host="h1")).view
    assert {r["host"] for r in on_h1["matches"]} == {"h1"} and on_h1["page"]["total"] == 13
    last = present("matches", {"matches": rows}, Selection(limit=10, offset=35)).view
    assert last["page"]["next_offset"] is None and last["page"]["shown"] == 5


def test_present_redacts_view_and_full_unless_told_not_to() -> None:
    data = {"matches": [{"insertId": "a", "quote": f"Authorization: Bearer {SECRET}"}]}
    shown = present("matches", data, Selection())
    assert SECRET not in dumps(shown.view) and SECRET not in dumps(shown.full)
    assert shown.view["redacted"] and "[REDACTED:" in shown.view["matches"][0]["quote"]
    raw = present("matches", data, Selection(), redacted=False)
    assert SECRET in raw.view["matches"][0]["quote"] and "redacted" not in raw.view


@pytest.fixture(scope="module")
def huge_line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle with one 400 KB log line (an OOM kill followed by junk), plus the demo."""
    folder = tmp_path_factory.mktemp("huge")
    entries = json.loads((DEMO / "logs.json").read_text())
    for entry in entries:
        payload = entry.get("jsonPayload") or {}
        if OOM in str(payload.get("message") or ""):
            payload["message"] += " " + "y" * 400_000 + f" Authorization: Bearer {SECRET}"
    (folder / "logs.json").write_text(json.dumps(entries))
    return folder


COMMANDS = {
    "troubleshoot md": ["troubleshoot", "llm-pretrain"],
    "troubleshoot json": ["troubleshoot", "llm-pretrain", "--format", "json"],
    "match json": ["match", "--format", "json", "--limit", "2000"],
    "match text": ["match", "--limit", "2000"],
    "run json": ["run", "verify-host-oom-killed", "--param", "workload=llm-pretrain"],
    "run text": ["run", "verify-host-oom-killed", "--param", "workload=llm-pretrain",
                 "--format", "text"],
    "action json": ["action", "find-host-oom-killed", "--param", "workload=llm-pretrain",
                    "--limit", "2000"],
    "action text": ["action", "find-host-oom-killed", "--param", "workload=llm-pretrain",
                    "--format", "text"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_agent_command_stays_within_30000_characters(name: str, huge_line: Path) -> None:
    result = run_cli(*COMMANDS[name], "--bundle", str(huge_line))
    assert result.code == 0, result.stderr
    assert len(result.stdout) + len(result.stderr) <= CLI.limit
    assert SECRET not in result.stdout and SECRET[:12] not in result.stdout
    assert "y" * 1001 not in result.stdout  # a log line's text is never shown whole


def test_out_keeps_everything_and_stdout_says_where(tmp_path: Path, huge_line: Path) -> None:
    out = tmp_path / "run.json"
    result = run_cli(
        "run", "verify-host-oom-killed", "--param", "workload=llm-pretrain",
        "--bundle", str(huge_line), "--out", str(out),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    view = result.json()
    full = json.loads(out.read_text())
    assert view["output"]["full"] == str(out) and str(out) in result.stderr
    assert len(full["entries"]) == view["page"]["total"] > view["page"]["shown"]
    oom = next(e for e in full["entries"] if OOM in str(e.get("jsonPayload", {}).get("message")))
    assert len(oom["jsonPayload"]["message"]) > 400_000  # whole, but redacted
    assert SECRET not in out.read_text() and "[REDACTED:" in oom["jsonPayload"]["message"]
    raw = tmp_path / "raw.json"
    run_cli(
        "run", "verify-host-oom-killed", "--param", "workload=llm-pretrain",
        "--bundle", str(huge_line), "--out", str(raw), "--no-redact",
    )  # fmt: skip
    assert SECRET in raw.read_text()


def test_troubleshoot_view_filters_by_host(tmp_path: Path) -> None:
    result = run_cli(
        "troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--format", "json", "--host", CULPRIT
    )
    view = result.json()
    assert [f["host"] for f in view["failures"]] == [CULPRIT]
    assert {c["host"] for c in view["culprit_hosts"]} == {CULPRIT}
    assert view["evidence"] and all(e["host"] in (CULPRIT, None) for e in view["evidence"])
    assert view["output"]["clipped"]  # it says rows were left out


@pytest.mark.parametrize(
    "argv",
    [
        ("match", "--bundle", str(DEMO), "--limit", "0"),
        ("match", "--bundle", str(DEMO), "--offset", "-1"),
        ("run", "verify-host-oom-killed", "--limit", "many"),
    ],
)
def test_bad_paging_is_bad_input(argv: tuple[str, ...]) -> None:
    result = run_cli(*argv)
    assert result.code == 2 and "--" in result.stderr


def test_commands_without_a_view_are_capped_too_unless_redirected_to_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    from mlwiki.output import capped_stdout, emit_json

    piped = io.StringIO()
    monkeypatch.setattr(sys, "stdout", piped)
    with capped_stdout("metrics"):
        print("x" * 100_000)
    assert len(piped.getvalue()) <= CLI.limit
    assert "output cut after" in capsys.readouterr().err
    as_json = io.StringIO()
    monkeypatch.setattr(sys, "stdout", as_json)
    with capped_stdout("snapshot"):
        emit_json({"rows": [{"n": n, "text": "y" * 100} for n in range(10_000)]})
    shown = json.loads(as_json.getvalue())  # still valid JSON, and says what it left out
    assert len(as_json.getvalue()) <= CLI.limit and shown["output"]["clipped"]
    with (tmp_path / "out.txt").open("w") as kept:
        monkeypatch.setattr(sys, "stdout", kept)
        with capped_stdout("metrics"):
            print("x" * 100_000)
    assert len((tmp_path / "out.txt").read_text()) == 100_001
    watching = io.StringIO()
    monkeypatch.setattr(sys, "stdout", watching)
    with capped_stdout("handoff"):  # a watch prints news for as long as it runs
        print("x" * 100_000)
    assert len(watching.getvalue()) == 100_001
