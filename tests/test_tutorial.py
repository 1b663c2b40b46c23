"""The tutorial shows the tool's actual output: its quoted report and verify line stay true."""

from __future__ import annotations

from tests.conftest import REPO_ROOT, run_cli

TUTORIAL = REPO_ROOT / "_wiki" / "TUTORIAL.md"
DEMO = "_wiki/examples/llm-pretrain-oom"


def test_the_quoted_report_is_what_troubleshoot_prints(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(REPO_ROOT)
    text = TUTORIAL.read_text(encoding="utf-8")
    opening = "The top of the report:\n\n````markdown\n"
    quoted = text[text.index(opening) + len(opening) : text.index("````\n\n## 3. How to read it")]
    report = run_cli(
        "troubleshoot", "llm-pretrain", "--bundle", DEMO, "--out", str(tmp_path / "f.json")
    )
    assert report.code == 0
    assert report.stdout.startswith(quoted.rstrip("\n")), "re-paste the report into TUTORIAL.md"
    verify = run_cli("verify", str(tmp_path / "f.json"), "--bundle", DEMO)
    assert verify.stdout.strip() in text, "re-paste the verify output into TUTORIAL.md"
