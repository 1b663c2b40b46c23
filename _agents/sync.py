#!/usr/bin/env python3
"""Generate each agent's files from the one neutral definition of each in `_agents/`.

- Subagents: Claude Code and Antigravity want different formats (tool names, model names, list vs
  string), so the role files in `_agents/roles/` are the source of truth and this script writes
  `.claude/agents/<role>.md` and `_agents/agents/<role>.md`.
- Skills: `_agents/skills/<name>/SKILL.md` (standard frontmatter only, read by Antigravity) is
  copied to `.claude/skills/<name>/SKILL.md` with Claude Code's own fields added (`argument-hint`,
  `allowed-tools` for the read-only commands the skill runs), so Claude Code loads the skill when
  the user asks in prose, not only on `/name`.

`--check` exits 1 when a generated file is stale (the tests run it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

AGENTS_DIR = Path(__file__).resolve().parent
REPO = AGENTS_DIR.parent
ROLES = AGENTS_DIR / "roles"
NOTICE = (
    "<!-- Generated from _agents/roles/{name}.md by `python3 _agents/sync.py`; edit that file. -->"
)

CLAUDE_TOOLS = {"read": ["Read"], "search": ["Grep", "Glob"], "shell": ["Bash"]}
CLAUDE_MODELS = {"fast": "sonnet", "strong": "opus"}
ANTIGRAVITY_TOOLS = {
    "read": ["view_file", "list_dir"],
    "search": ["grep_search", "find_by_name"],
    "shell": ["run_command"],
}
ANTIGRAVITY_MODELS = {"fast": "flash", "strong": "pro"}
SKILLS = AGENTS_DIR / "skills"


def _read_only(*commands: str) -> str:
    """Claude Code `allowed-tools` for read-only mlwiki commands, both spellings of the program."""
    rules = [
        f"Bash({program} {command} *)"
        for program in ("mlwiki", "_wiki/.venv/bin/mlwiki")
        for command in commands
    ]
    return " ".join(rules)


# Claude Code's extra skill fields (https://code.claude.com/docs/en/skills); the upload of
# /handoff is left out of allowed-tools on purpose: it asks.
CLAUDE_SKILL_FIELDS = {
    "troubleshoot": {
        "argument-hint": "WORKLOAD_ID",
        "allowed-tools": _read_only("troubleshoot", "match", "run", "verify"),
    },
    "handoff": {
        "argument-hint": "WORKLOAD_ID [CASE_ID] [--bucket=BUCKET] [--findings=PATH] [--no-watch] "
        "| --watch STORAGE_KEY",
        "allowed-tools": _read_only("verify", "handoff --watch"),
    },
    "dashboard": {
        "argument-hint": "[TARGET]",
        "allowed-tools": _read_only("dashboard"),
    },
}
SKILL_NOTICE = (
    "<!-- Generated from _agents/skills/{name}/SKILL.md by `python3 _agents/sync.py`; edit that "
    "file. -->"
)


def _split(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body.lstrip("\n")


def _render(front: dict, body: str, name: str) -> str:
    header = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{header}---\n{NOTICE.format(name=name)}\n\n{body}"


def generated() -> dict[Path, str]:
    files: dict[Path, str] = {}
    for role in sorted(ROLES.glob("*.md")):
        meta, body = _split(role)
        name = meta["name"]
        claude = {
            "name": name,
            "description": meta["description"],
            "tools": ", ".join(t for tool in meta["tools"] for t in CLAUDE_TOOLS[tool]),
            "model": CLAUDE_MODELS[meta["model"]],
        }
        antigravity = {
            "name": name,
            "description": meta["description"],
            "tools": [t for tool in meta["tools"] for t in ANTIGRAVITY_TOOLS[tool]],
            "model": ANTIGRAVITY_MODELS[meta["model"]],
            "subagent": True,
            "mainAgent": False,
            "commandExecutionPolicy": "auto" if "shell" in meta["tools"] else "off",
        }
        files[REPO / ".claude" / "agents" / f"{name}.md"] = _render(claude, body, name)
        files[AGENTS_DIR / "agents" / f"{name}.md"] = _render(antigravity, body, name)
    for skill in sorted(SKILLS.glob("*/SKILL.md")):
        meta, body = _split(skill)
        name = meta["name"]
        claude = {
            "name": name,
            "description": meta["description"],
            **CLAUDE_SKILL_FIELDS.get(name, {}),
        }
        header = yaml.safe_dump(claude, sort_keys=False, allow_unicode=True, width=1000)
        notice = SKILL_NOTICE.format(name=name)
        files[REPO / ".claude" / "skills" / name / "SKILL.md"] = (
            f"---\n{header}---\n{notice}\n\n{body}"
        )
    return files


def main(argv: list[str]) -> int:
    stale = []
    for path, text in generated().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if "--check" in argv:
            stale.append(str(path.relative_to(REPO)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO)}")
    if stale:
        print("stale (run python3 _agents/sync.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
