"""`mlwiki match`: every symptom match the diagnosis sees, verbatim quotes, any bundle form."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mlwiki.logs.entry import entry_text
from tests.conftest import REPO_ROOT, run_cli

DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"


def test_matches_have_required_keys_and_verbatim_quotes(tmp_path: Path) -> None:
    out = tmp_path / "matches.json"
    result = run_cli("match", "--bundle", str(DEMO), "--format", "json", "--out", str(out))
    assert result.code == 0, result.stderr
    view = result.json()
    matches = json.loads(out.read_text())["matches"]  # every row; stdout shows the first ones
    assert view["count"] == len(matches) == view["page"]["total"] > view["page"]["shown"]
    assert view["matches"] == matches[: view["page"]["shown"]]
    assert {s["symptom"] for s in view["symptoms"]} == {m["symptom"] for m in matches}
    assert view["output"]["full"] == str(out)
    entries = {e["insertId"]: e for e in json.loads((DEMO / "logs.json").read_text())}
    assert {"host-oom-killed", "spot-preemption", "coordination-heartbeat-cascade"} <= {
        m["symptom"] for m in matches
    }
    for match in matches:
        assert {"insertId", "timestamp", "symptom", "role", "host", "quote"} <= set(match)
        assert match["quote"] in entry_text(entries[match["insertId"]])
    step_lines = [e for e in entries.values() if "completed step" in entry_text(e)]
    assert step_lines and not {e["insertId"] for e in step_lines} & {m["insertId"] for m in matches}


def test_gzipped_jsonl_gives_the_same_matches(tmp_path: Path) -> None:
    entries = json.loads((DEMO / "logs.json").read_text())
    target = tmp_path / "logs.jsonl.gz"
    with gzip.open(target, "wt") as stream:
        stream.writelines(json.dumps(e) + "\n" for e in entries)
    original = run_cli("match", "llm-pretrain", "--bundle", str(DEMO), "--format", "json").json()
    again = run_cli("match", "llm-pretrain", "--bundle", str(tmp_path), "--format", "json").json()
    assert again == original


def test_workload_filter_keeps_only_its_pods(tmp_path: Path) -> None:
    rows = run_cli("match", "someone-else", "--bundle", str(DEMO), "--format", "json").json()
    assert rows["matches"] == []
    text = run_cli("match", "--bundle", str(DEMO))
    assert text.code == 0 and "match(es)" in text.stdout


def test_no_source_is_bad_input() -> None:
    assert run_cli("match", "--format", "json").code == 2
