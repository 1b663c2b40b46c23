"""The files agents read: frontmatter each tool documents, commands that exist, copies in sync."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mlwiki.cli import COMMANDS, build_parser
from tests.conftest import REPO_ROOT

AGENT_FILES = sorted(
    [
        REPO_ROOT / "AGENTS.md",
        REPO_ROOT / "CLAUDE.md",
        *REPO_ROOT.glob(".claude/**/*.md"),
        *REPO_ROOT.glob("_agents/**/*.md"),
        REPO_ROOT / "README.md",
    ]
)
ROLES = ("router", "practitioner", "reviewer", "advisor")
SKILLS = ("troubleshoot", "handoff", "dashboard")


def _frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path} has no frontmatter"
    return yaml.safe_load(text.split("---\n", 2)[1])


@pytest.mark.parametrize("role", ROLES)
def test_claude_subagents_have_documented_fields(role: str) -> None:
    meta = _frontmatter(REPO_ROOT / ".claude" / "agents" / f"{role}.md")
    assert meta["name"] == role
    assert len(meta["description"]) > 40
    tools = [t.strip() for t in meta["tools"].split(",")]
    assert set(tools) <= {"Read", "Grep", "Glob", "Bash"}
    assert meta["model"] in {"sonnet", "opus", "haiku", "inherit"}


@pytest.mark.parametrize("role", ROLES)
def test_antigravity_subagents_have_documented_fields(role: str) -> None:
    meta = _frontmatter(REPO_ROOT / "_agents" / "agents" / f"{role}.md")
    assert meta["name"] == role and meta["description"]
    assert isinstance(meta["tools"], list), "Antigravity drops agents whose tools are a string"
    assert set(meta["tools"]) <= {
        "view_file",
        "list_dir",
        "grep_search",
        "find_by_name",
        "run_command",
    }
    assert meta["model"] in {"flash", "pro", "inherit"}
    assert meta["subagent"] is True


def test_advisor_cannot_run_commands() -> None:
    assert "Bash" not in _frontmatter(REPO_ROOT / ".claude" / "agents" / "advisor.md")["tools"]
    assert (
        "run_command" not in _frontmatter(REPO_ROOT / "_agents" / "agents" / "advisor.md")["tools"]
    )


def test_generated_subagents_are_in_sync_with_roles() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "_agents" / "sync.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("skill", SKILLS)
def test_skills_follow_the_agent_skills_standard(skill: str) -> None:
    meta = _frontmatter(REPO_ROOT / "_agents" / "skills" / skill / "SKILL.md")
    assert meta["name"] == skill
    assert 1 <= len(meta["description"]) <= 1024
    assert set(meta) <= {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
    }


@pytest.mark.parametrize("command", SKILLS)
def test_claude_commands_point_at_the_shared_skill(command: str) -> None:
    path = REPO_ROOT / ".claude" / "commands" / f"{command}.md"
    meta = _frontmatter(path)
    assert meta["description"]
    assert f"@_agents/skills/{command}/SKILL.md" in path.read_text(encoding="utf-8")


def test_antigravity_finds_the_agents_folder() -> None:
    link = REPO_ROOT / ".agents"
    assert link.is_symlink() and link.resolve() == (REPO_ROOT / "_agents").resolve()
    hooks = json.loads((REPO_ROOT / "_agents" / "hooks.json").read_text())
    handler = hooks["mlwiki-mutation-gate"]["PreToolUse"][0]["hooks"][0]
    assert ".claude/hooks/mutation-gate" in handler["command"]  # found from any directory
    assert os.access(REPO_ROOT / ".claude" / "hooks" / "mutation-gate", os.X_OK)


def test_mcp_configs_start_the_engine() -> None:
    for path in (REPO_ROOT / ".mcp.json", REPO_ROOT / "_agents" / "mcp_config.json"):
        server = json.loads(path.read_text())["mcpServers"]["mlwiki"]
        assert server["command"].endswith("_wiki/.venv/bin/mlwiki") and server["args"] == ["mcp"]


def _mlwiki_invocations() -> list[tuple[Path, list[str]]]:
    """Every `mlwiki SUBCOMMAND …` written in a code span or fence of the agent-facing files."""
    found = []
    for path in AGENT_FILES:
        text = path.read_text(encoding="utf-8")
        code = re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.S) + re.findall(
            r"`([^`\n]+)`", text
        )
        for snippet in code:
            for match in re.finditer(r"(?:^|[\s/])mlwiki ([a-z][^\n`|;&]*)", snippet):
                found.append((path, match.group(1).split()))
    return found


def test_agent_files_name_only_existing_commands_and_options() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    problems = []
    invocations = _mlwiki_invocations()
    assert len(invocations) > 20
    for path, words in invocations:
        command = words[0]
        if command not in COMMANDS:
            if command.upper() != command:  # `mlwiki COMMAND` placeholders are fine
                problems.append(f"{path.relative_to(REPO_ROOT)}: unknown command mlwiki {command}")
            continue
        known = {o for action in subparsers[command]._actions for o in action.option_strings}
        for word in words[1:]:
            option = word.split("=", 1)[0]
            if option.startswith("--") and option not in known and option != "--help":
                problems.append(
                    f"{path.relative_to(REPO_ROOT)}: mlwiki {command} has no option {option}"
                )
    assert not problems, "\n".join(problems)
