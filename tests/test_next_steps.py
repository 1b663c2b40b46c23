"""The next steps a diagnosis prints are commands that run as written."""

from __future__ import annotations

import shlex

from tests.conftest import REPO_ROOT, run_cli

DEMO = "_wiki/examples/llm-pretrain-oom"


def test_the_verification_commands_in_next_steps_run_as_printed(monkeypatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    findings = run_cli("troubleshoot", "llm-pretrain", "--bundle", DEMO, "--format", "json").json()
    commands = [s["step"].split(": ", 1)[1] for s in findings["next_steps"] if "workflow" in s]
    assert len(commands) == 2
    for command in commands:
        words = shlex.split(command)
        assert words[:2] == ["mlwiki", "run"]
        result = run_cli(*words[1:], "--format", "json")
        assert result.code == 0, result.stderr
        assert result.json()["verdict"] == "confirmed", command
