"""`mlwiki doctor --agents`: do the agents' guard rails hold, from any working directory?

A mutation gate that does not run is worse than none: it looks like protection. So this runs the
hooks exactly as the agents do and checks their answers:

- **Hooks.** The PreToolUse command of Claude Code (`.claude/settings.json`, run by `sh -c` with
  and without `$CLAUDE_PROJECT_DIR`) and of Antigravity (`_agents/hooks.json`, run by `sh -c`), each
  fed the payloads of both agents (Claude Code's `tool_input.command`, Antigravity's
  `toolCall.args.CommandLine`), from the repository root, from `.agents/` (where Antigravity was
  seen to run hooks) and from a subdirectory. A mutating probe must come back "ask" (or "deny") in
  the format of the agent that sent it, a read-only probe must not.
- **Permissions** (`.claude/settings.json`): no allow rule is shadowed by an ask or deny rule
  (Claude Code tries deny, then ask, then allow: an ask that matches wins), every read-only
  `mlwiki` command the skills and role files name is allowed without a prompt, and every
  `--approve` asks. A command that matches no rule prompts (Claude Code's default).
- **Files.** The generated agent files are in sync with `_agents/` (`_agents/sync.py --check`),
  and both MCP configurations start an `mlwiki` that exists.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Optional

from mlwiki.doctor import MISSING, OK, Check

FAILED = MISSING  # a guard rail that does not hold counts as missing (exit 1)
TIMEOUT = 20

# (command, whether the gate must ask). The gate's own red-team suites test its judgement in
# depth; these probes test that the gate is wired and answers at all.
PROBES = (
    ("kubectl cordon gke-tpu-node-1", True),
    ("env KUBECONFIG=/tmp/k kubectl --context=prod delete pod trainer-0", True),
    ("_wiki/.venv/bin/mlwiki action cordon-node --param node=gke-tpu-node-1 --approve", True),
    ("mlwiki run remedy --param node=gke-tpu-node-1 --approve cordon", True),
    ("mlwiki handoff llm-pretrain 12345 --bucket cc-share --findings findings.json", True),
    ("mlwiki troubleshoot llm-pretrain --bundle b --format json --out findings.json", False),
    ("mlwiki handoff --watch KEY --bucket cc-share --once", False),
    ("kubectl get pods -A -o wide", False),
    ("ls -la", False),
)
# The working directories the hooks must hold from (relative to the repository).
WORKDIRS = (".", ".agents", "_wiki/symptoms")
BACKTICKED = re.compile(r"`(?:_wiki/\.venv/bin/)?(mlwiki [^`]+)`")


@dataclass(frozen=True)
class Hook:
    agent: str  # "claude" | "antigravity"
    command: str
    env: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        extra = " with $CLAUDE_PROJECT_DIR" if self.env else ""
        return f"{self.agent} hook{extra}"


def payload(agent: str, command: str, cwd: Path, repo: Path) -> dict[str, Any]:
    """A PreToolUse payload as each agent sends it."""
    if agent == "claude":
        return {
            "session_id": "mlwiki-doctor",
            "transcript_path": "",
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "doctor probe"},
            "tool_use_id": "doctor",
        }
    return {
        "conversationId": "mlwiki-doctor",
        "workspacePaths": [str(repo)],
        "hookEventName": "PreToolUse",
        "toolCall": {"name": "run_command", "args": {"CommandLine": command, "Cwd": str(cwd)}},
    }


def decision_of(stdout: str) -> tuple[Optional[str], Optional[str]]:
    """(decision, the format it came in) from a hook's stdout; (None, None) for no opinion."""
    if not stdout.strip():
        return None, None
    try:
        answer = json.loads(stdout)
    except ValueError:
        return "unreadable", None
    if not isinstance(answer, dict) or not answer:
        return None, None
    special = answer.get("hookSpecificOutput")
    if isinstance(special, dict) and special.get("permissionDecision"):
        return str(special["permissionDecision"]), "claude"
    if answer.get("decision"):
        return str(answer["decision"]), "antigravity"
    return None, None


def hooks(repo: Path) -> list[Hook]:
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    found: list[Hook] = []
    for group in (settings.get("hooks") or {}).get("PreToolUse") or []:
        if group.get("matcher") == "Bash":
            for handler in group.get("hooks") or []:
                command = handler.get("command", "")
                if handler.get("args"):  # the exec form: older builds run only `command`
                    command = " ".join([command, *map(str, handler["args"])])
                found.append(Hook("claude", command, (("CLAUDE_PROJECT_DIR", str(repo)),)))
                found.append(Hook("claude", command))
    config = json.loads((repo / "_agents" / "hooks.json").read_text(encoding="utf-8"))
    for events in config.values():
        for group in (events or {}).get("PreToolUse") or []:
            if group.get("matcher") == "run_command":
                for handler in group.get("hooks") or []:
                    found.append(Hook("antigravity", handler.get("command", "")))
    return found


def run_hook(hook: Hook, agent: str, command: str, cwd: Path, repo: Path) -> tuple[str, str]:
    """Run `hook` as its agent does (`sh -c`, in `cwd`) on `agent`'s payload for `command`."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    env.update(hook.env, PWD=str(cwd))
    try:
        done = subprocess.run(
            ["sh", "-c", hook.command],
            input=json.dumps(payload(agent, command, cwd, repo)),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return "", f"did not run: {error}"
    return done.stdout, (done.stderr.strip().splitlines() or [""])[-1]


def check_hooks(repo: Path) -> list[Check]:
    cases = []
    for hook in hooks(repo):
        for workdir in WORKDIRS:
            cwd = (repo / workdir).resolve() if workdir != ".agents" else repo / ".agents"
            for agent in ("claude", "antigravity"):
                probes = PROBES if workdir == "." and agent == hook.agent else PROBES[::4]
                cases += [(hook, workdir, cwd, agent, command, ask) for command, ask in probes]
    if not cases:
        return [Check("agent hooks", MISSING, "no PreToolUse hook configured", _HOOK_FIX)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda c: run_hook(c[0], c[3], c[4], c[2], repo), cases))
    problems: dict[str, list[str]] = {}
    for (hook, workdir, _, agent, command, ask), (stdout, stderr) in zip(cases, answers):
        decision, form = decision_of(stdout)
        where = f"from {workdir}, {agent} payload"
        if ask and decision not in ("ask", "deny"):
            why = f" ({stderr})" if stderr else ""
            problems.setdefault(hook.label, []).append(
                f"{where}: {command!r} was not stopped (answer {decision!r}){why}"
            )
        elif ask and form != agent:
            problems.setdefault(hook.label, []).append(
                f"{where}: answered in {form}'s format, which {agent} does not read"
            )
        elif not ask and decision in ("ask", "deny", "unreadable"):
            problems.setdefault(hook.label, []).append(f"{where}: {command!r} was stopped")
    checks = []
    for hook in dict.fromkeys(h for h, *_ in cases):
        trouble = problems.get(hook.label, [])
        runs = sum(1 for c in cases if c[0] == hook)
        if trouble:
            shown = "; ".join(trouble[:3]) + (
                f"; … {len(trouble) - 3} more" if len(trouble) > 3 else ""
            )
            checks.append(Check(hook.label, FAILED, shown, _HOOK_FIX))
        else:
            checks.append(
                Check(
                    hook.label, OK, f"{runs} probes from {', '.join(WORKDIRS)} with both payloads"
                )
            )
    return checks


_HOOK_FIX = (
    "keep the hook command of .claude/settings.json and _agents/hooks.json as the repository ships "
    "it (it finds .claude/hooks/mutation-gate from any directory), make mutation-gate executable, "
    "and build the venv: python3 -m venv _wiki/.venv && _wiki/.venv/bin/pip install -r requirements.txt"
)


# -- permissions ---------------------------------------------------------------------------------


def _rule_pattern(rule: str) -> Optional[str]:
    match = re.fullmatch(r"Bash\((.*)\)", rule)
    return match.group(1) if match else None


def rule_matches(rule: str, command: str) -> bool:
    """Claude Code's Bash rule: a glob where `*` spans anything; `X *` also matches `X` alone."""
    pattern = _rule_pattern(rule)
    if pattern is None:
        return False
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + " *"
    if fnmatchcase(command, pattern):
        return True
    return pattern.endswith(" *") and fnmatchcase(command, pattern[:-2])


def permission(settings: dict[str, Any], command: str) -> str:
    """deny, ask or allow (the first list with a matching rule), else prompt (no rule)."""
    rules = settings.get("permissions") or {}
    for decision in ("deny", "ask", "allow"):
        if any(rule_matches(rule, command) for rule in rules.get(decision) or []):
            return decision
    return "prompt"


def shadowed_allows(settings: dict[str, Any]) -> list[str]:
    """Allow rules whose every use an ask or deny rule catches first (tried on a sample: each
    `*` stands for one word)."""
    rules = settings.get("permissions") or {}
    found = []
    for rule in rules.get("allow") or []:
        pattern = _rule_pattern(rule)
        if pattern is None:
            continue
        sample = pattern.replace("*", "x")
        for decision in ("deny", "ask"):
            blocker = next((r for r in rules.get(decision) or [] if rule_matches(r, sample)), None)
            if blocker:
                found.append(f"{rule} (shadowed by {decision} {blocker})")
                break
    return found


def agent_commands(repo: Path) -> list[tuple[str, str]]:
    """(file, command) for every `mlwiki …` command the skills and role files name."""
    files = sorted([*repo.glob("_agents/skills/*/SKILL.md"), *repo.glob("_agents/roles/*.md")])
    found = []
    for path in files:
        for match in BACKTICKED.finditer(path.read_text(encoding="utf-8")):
            found.append((str(path.relative_to(repo)), match.group(1).strip()))
    return found


def _needs_the_user(command: str) -> bool:
    words = command.split()
    approve = any(w == "--approve" or w.startswith("--approve=") for w in words)
    upload = len(words) > 1 and words[1] == "handoff" and "--watch" not in words
    return approve or upload


def check_permissions(repo: Path) -> list[Check]:
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    checks = []
    shadowed = shadowed_allows(settings)
    checks.append(
        Check("permissions: no shadowed allow", FAILED, "; ".join(shadowed), _PERMISSION_FIX)
        if shadowed
        else Check("permissions: no shadowed allow", OK, "every allow rule can apply")
    )
    prompts, silent = [], []
    commands = agent_commands(repo) + [(".claude/settings.json", c) for c, _ in PROBES]
    for source, command in commands:
        for program in ("mlwiki", "_wiki/.venv/bin/mlwiki"):
            spelled = command if not command.startswith("mlwiki ") else program + command[6:]
            decided = permission(settings, spelled)
            if _needs_the_user(spelled) and decided == "allow":
                silent.append(f"{source}: {spelled}")
            elif (
                spelled.split()[0].endswith("mlwiki")
                and not _needs_the_user(spelled)
                and decided != "allow"
            ):
                prompts.append(f"{source}: {spelled} ({decided})")
    checks.append(
        Check("permissions: read-only commands", FAILED, "; ".join(prompts[:5]), _PERMISSION_FIX)
        if prompts
        else Check(
            "permissions: read-only commands",
            OK,
            f"every read-only mlwiki command of the skills and roles runs without a prompt "
            f"({len(commands)} checked, both spellings)",
        )
    )
    checks.append(
        Check("permissions: approvals and uploads", FAILED, "; ".join(silent[:5]), _PERMISSION_FIX)
        if silent
        else Check("permissions: approvals and uploads", OK, "every --approve and upload asks")
    )
    return checks


_PERMISSION_FIX = (
    "edit permissions in .claude/settings.json: Claude Code tries deny, then ask, then allow, so an "
    "ask rule that matches a read-only command shadows its allow rule"
)


def check_files(repo: Path) -> list[Check]:
    checks = []
    sync = subprocess.run(
        [sys.executable, str(repo / "_agents" / "sync.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    checks.append(
        Check("generated agent files", OK, "in sync with _agents/")
        if sync.returncode == 0
        else Check(
            "generated agent files", FAILED, sync.stderr.strip(), "run python3 _agents/sync.py"
        )
    )
    for name, path in ((".mcp.json", repo / ".mcp.json"), ("_agents/mcp_config.json", repo / "_agents" / "mcp_config.json")):  # fmt: skip
        server = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["mlwiki"]
        program = str(server["command"]).replace("${CLAUDE_PROJECT_DIR:-.}/", "")
        target = repo / program if not Path(program).is_absolute() else Path(program)
        checks.append(
            Check(f"MCP server in {name}", OK, f"{program} {' '.join(server.get('args', []))}")
            if target.exists()
            else Check(f"MCP server in {name}", MISSING, f"{target} does not exist", _HOOK_FIX)
        )
    return checks


def run_agent_checks(repo: Path) -> list[Check]:
    return [*check_hooks(repo), *check_permissions(repo), *check_files(repo)]
