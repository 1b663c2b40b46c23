"""`mlwiki doctor --agents` finds the guard rails that do not hold: a hook that does not run from
the workspace root, an allow rule an ask rule shadows, a read-only command that would prompt."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mlwiki.doctor import OK
from mlwiki.doctor_agents import (
    check_hooks,
    check_permissions,
    decision_of,
    permission,
    rule_matches,
    shadowed_allows,
)
from tests.conftest import REPO_ROOT


def test_rules_match_as_claude_code_matches_them() -> None:
    assert rule_matches("Bash(mlwiki run *)", "mlwiki run verify-x --param a=b")
    assert rule_matches("Bash(mlwiki doctor *)", "mlwiki doctor")
    assert rule_matches("Bash(mlwiki * --approve *)", "mlwiki run x --approve cordon")
    assert rule_matches("Bash(npm run test:*)", "npm run test unit")
    assert not rule_matches("Bash(mlwiki run *)", "mlwiki runner")
    assert not rule_matches("Read(./**/*.pem)", "mlwiki run x")
    settings = {
        "permissions": {"allow": ["Bash(mlwiki run *)"], "ask": ["Bash(mlwiki * --approve)"]}
    }
    assert permission(settings, "mlwiki run x") == "allow"
    assert permission(settings, "mlwiki run x --approve") == "ask"
    assert permission(settings, "kubectl get pods") == "prompt"


def test_a_shadowed_allow_is_named() -> None:
    settings = {
        "permissions": {
            "allow": ["Bash(mlwiki run * --dry-run *)", "Bash(mlwiki verify *)"],
            "ask": ["Bash(mlwiki run *)"],
        }
    }
    (shadowed,) = shadowed_allows(settings)
    assert "mlwiki run * --dry-run *" in shadowed and "ask Bash(mlwiki run *)" in shadowed


def test_decisions_are_read_in_each_agents_format() -> None:
    claude = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}
    assert decision_of(json.dumps(claude)) == ("ask", "claude")
    assert decision_of('{"decision": "deny", "reason": "x"}') == ("deny", "antigravity")
    assert decision_of("") == (None, None) and decision_of("{}") == (None, None)
    assert decision_of("Traceback") == ("unreadable", None)


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """The repository's agent files in a scratch copy (the engine and venv linked in)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in (".claude", "_agents", "AGENTS.md", "CLAUDE.md", ".mcp.json"):
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, symlinks=True)
        else:
            shutil.copy(source, repo / name)
    (repo / ".agents").symlink_to("_agents")
    (repo / "mlwiki").symlink_to(REPO_ROOT / "mlwiki")
    (repo / "_wiki").mkdir()
    (repo / "_wiki" / "symptoms").mkdir()
    venv = REPO_ROOT / "_wiki" / ".venv"
    if venv.exists():
        (repo / "_wiki" / ".venv").symlink_to(venv)
    return repo


def test_the_shipped_permissions_hold() -> None:
    assert [c.status for c in check_permissions(REPO_ROOT)] == [OK, OK, OK]


def test_a_hook_that_only_works_from_agents_is_caught(repo_copy: Path) -> None:
    hooks = json.loads((repo_copy / "_agents" / "hooks.json").read_text())
    handler = hooks["mlwiki-mutation-gate"]["PreToolUse"][0]["hooks"][0]
    handler["command"] = "python3 ../.claude/hooks/mutation_gate.py"  # the old, cwd-bound form
    (repo_copy / "_agents" / "hooks.json").write_text(json.dumps(hooks))
    checks = {c.name: c for c in check_hooks(repo_copy)}
    broken = checks["antigravity hook"]
    assert (
        broken.status != OK and "from ., " in broken.detail and "was not stopped" in broken.detail
    )
    assert checks["claude hook"].status == OK


def test_an_ask_rule_over_a_read_only_command_is_caught(repo_copy: Path) -> None:
    path = repo_copy / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["permissions"]["ask"].append("Bash(mlwiki run *)")
    path.write_text(json.dumps(settings))
    checks = {c.name: c for c in check_permissions(repo_copy)}
    assert checks["permissions: no shadowed allow"].status != OK
    assert "mlwiki run" in checks["permissions: read-only commands"].detail
