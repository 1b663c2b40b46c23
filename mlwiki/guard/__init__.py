"""The agents' PreToolUse gate: a shell command passes only when everything it would run only reads.

Claude Code and Antigravity call `.claude/hooks/mutation_gate.py` before running a shell
command; this package decides. The answer is "ask" (the user approves in the agent's UI) unless
every invocation in the command is a known read. It never allows anything the agent's own
permission rules would not: it only ever adds a question.

How a command is judged:
1. `shell.analyse` parses it with tree-sitter-bash and walks every command it would run —
   pipelines, lists, subshells, groups, loops, functions, `$(…)`, backquotes, `<(…)`/`>(…)`,
   here-documents, here-strings — each word either its literal value or DYNAMIC.
2. Each invocation is judged (`programs`): its program name must be literal and not a path
   outside the system or virtualenv bin directories; wrappers (`sudo`, `env`, `timeout`,
   `watch`, `xargs`, `flock`, `strace`, `ssh`, `find -exec`, `bash -c`…) are looked through to
   the command they run, which is judged the same way (scripts are parsed again, to a bounded
   depth); cluster tools go to `mlwiki.mutations`; `mlwiki` to `mlwiki_cli`.
3. Its environment prefixes and exports must be harmless (a changed PATH, KUBECONFIG, HOME,
   LD_PRELOAD, BASH_ENV, CLOUDSDK_* or HELM_* changes what runs or which cluster it reaches),
   and the files it writes (`>`, `tee`, `sort -o` …) must be new or existing plain files in the
   working directory or /tmp — not the repository's code, configuration or dot-directories.
4. Anything the guard cannot judge asks: unknown programs, interpreters with code (`python3
   -c`, `perl -e`), shells reading stdin, `eval`/`source`, computed command names, network
   clients, parse errors, and commands beyond the size, depth or time budgets.

Limits, honestly: the guard judges the command text, not files. A program that runs code from
files the agent can edit (the editable `mlwiki` package, `.git/config` hooks read by `git`,
a script on PATH, a kubeconfig's exec plugin already in place, user aliases and functions the
agent's shell loaded) is trusted as installed; protect those files with the agent's permission
rules. The shell parser is tree-sitter's bash grammar, not bash itself: where it parses with an
error the guard asks, but a construct both parse without error and differently would be missed.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from mlwiki.mutations import is_dynamic

MAX_DEPTH = 12  # scripts inside scripts (`bash -c "watch 'sh -c …'"`)
MAX_INVOCATIONS = 5_000
TIME_BUDGET_SECONDS = 3.0  # well within the agents' 10 s hook timeout
REPOSITORY = Path(__file__).resolve().parents[2]
# Environment variables a command may set without a question; any other UPPER_CASE name asks
# (PATH, HOME, KUBECONFIG, LD_PRELOAD, BASH_ENV, CLOUDSDK_CONFIG, HELM_PLUGINS, GIT_*, …).
SAFE_VARIABLES = frozenset(
    {
        "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
        "COLUMNS", "LINES", "TERM", "MLWIKI_WIKI", "CLOUDSDK_CORE_PROJECT",
        "CLOUDSDK_COMPUTE_ZONE", "CLOUDSDK_COMPUTE_REGION", "CLOUDSDK_CORE_DISABLE_PROMPTS",
        "GREP_COLOR", "GREP_COLORS", "JQ_COLORS", "PYTHONUNBUFFERED", "PYTHONIOENCODING",
        "PYTHONDONTWRITEBYTECODE",
    }
)  # fmt: skip
# Lower-case shell variables are the script's own, except these, which programs read.
UNSAFE_LOWERCASE = frozenset({"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"})
HARMLESS_TARGETS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2", "-"}
)
# Top-level entries of the repository a shell command must not write: code the hook or the
# engine runs, the wiki the engine executes, instructions and settings the agents load.
PROTECTED = frozenset(
    {
        "mlwiki", "_agents", "_wiki", "tests", "benchmarks", "pyproject.toml", "requirements.txt",
        "setup.py", "setup.cfg", "conftest.py", "AGENTS.md", "CLAUDE.md", "GEMINI.md", "README.md",
        "Makefile",
    }
)  # fmt: skip


@dataclass
class Decision:
    ask: bool
    reasons: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        shown = self.reasons[:6]
        more = len(self.reasons) - len(shown)
        return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def judge(
    command: str, cwd: Optional[str] = None, env: Optional[Mapping[str, str]] = None
) -> Decision:
    """Decide whether a shell command line needs the user's approval."""
    from mlwiki.guard.shell import parser_available

    problem = parser_available()
    if problem:
        return Decision(True, [f"{problem}; every command asks until it is installed"])
    judge_ = _Judge(cwd, dict(os.environ if env is None else env))
    judge_.script(command, 0)
    return Decision(bool(judge_.reasons), judge_.reasons)


class _Judge:
    def __init__(self, cwd: Optional[str], env: Mapping[str, str]) -> None:
        from mlwiki.guard.programs import Context

        self.context = Context(cwd, env)
        self.reasons: list[str] = []
        self.deadline = time.monotonic() + TIME_BUDGET_SECONDS
        self.invocations = 0

    def ask(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)

    def over_budget(self, depth: int) -> bool:
        if depth > MAX_DEPTH:
            self.ask(f"commands nest more than {MAX_DEPTH} scripts deep")
        elif time.monotonic() > self.deadline:
            self.ask("the command takes too long to check")
        elif self.invocations > MAX_INVOCATIONS:
            self.ask(f"the command runs more than {MAX_INVOCATIONS} commands")
        else:
            return False
        return True

    def script(self, text: str, depth: int) -> None:
        from mlwiki.guard.shell import analyse

        if self.over_budget(depth):
            return
        analysis = analyse(text)
        for concern in analysis.concerns:
            self.ask(concern)
        self.environment(analysis.assignments)
        self.writes(analysis.writes)
        for invocation in analysis.invocations:
            self.environment(invocation.assignments)
            self.writes(invocation.writes)
            if analysis.calls_function(invocation):
                continue  # the function's body is judged where it is defined
            self.argv(invocation.argv, depth)

    def argv(self, argv: list[str], depth: int) -> None:
        from mlwiki.guard.programs import judge_program, untrusted_path

        self.invocations += 1
        if not argv or self.over_budget(depth):
            return
        program = argv[0]
        if is_dynamic(program):
            self.ask("the command name is computed at run time (a variable, substitution or glob)")
            return
        if "/" in program:
            concern = untrusted_path(program)
            if concern:
                self.ask(concern)
                return
        effects = judge_program(argv, self.context)
        for reason in effects.reasons:
            self.ask(reason)
        self.environment(effects.assignments)
        self.writes(effects.writes)
        for inner in effects.argvs:
            self.argv(inner, depth + 1)
        for text in effects.scripts:
            if is_dynamic(text):
                self.ask("a script is computed at run time")
            else:
                self.script(text, depth + 1)

    def environment(self, assignments: list[tuple[str, str]]) -> None:
        for name, _ in assignments:
            if name in SAFE_VARIABLES or name.startswith("LC_"):
                continue
            if name == name.lower() and name not in UNSAFE_LOWERCASE:
                continue
            self.ask(f"sets {name}, which can change what programs run or which cluster they reach")

    def writes(self, targets: list[str]) -> None:
        for target in targets:
            concern = write_concern(target, self.context.cwd)
            if concern:
                self.ask(concern)


def write_concern(target: str, cwd: Optional[str]) -> Optional[str]:
    """Why writing `target` needs a question, or None for a plain file in the cwd or /tmp."""
    if is_dynamic(target):
        return "writes to a file whose name is computed at run time"
    if target in HARMLESS_TARGETS:
        return None
    if target.startswith("~") or ".." in PurePosixPath(target).parts:
        return f"writes {target}, outside the working directory"
    base = Path(cwd or os.getcwd())
    resolved = Path(os.path.realpath(base / target))
    for root in (
        Path(os.path.realpath(tempfile.gettempdir())),
        Path("/tmp"),
        Path(os.path.realpath(base)),
    ):
        try:
            relative = resolved.relative_to(root)
        except ValueError:
            continue
        if any(part.startswith(".") for part in relative.parts):
            return f"writes {target}, inside a dot-directory or dot-file (configuration)"
        for repository in {REPOSITORY, _repository_of(resolved)}:
            if repository is None:
                continue
            try:
                inside = resolved.relative_to(repository)
            except ValueError:
                continue
            if inside.parts and inside.parts[0] in PROTECTED:
                return f"writes {target}, part of the repository's code, wiki or agent instructions"
        return None
    return f"writes {target}, outside the working directory and the temporary directory"


def _repository_of(path: Path) -> Optional[Path]:
    for directory in path.parents:
        if (directory / "_wiki" / "schemas").is_dir():
            return directory
    return None


def hook_response(payload: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The JSON answer for a hook payload from Claude Code or Antigravity (None: no opinion).

    Claude Code sends `tool_input.command` (and `cwd`) and reads `hookSpecificOutput`;
    Antigravity sends `toolCall.args.CommandLine` (and `Cwd`) and reads `{"decision",
    "reason"}`. An exit code is never the signal: Claude Code ignores exit 1 and Antigravity
    ignores exit codes altogether.
    """
    tool_call = payload.get("toolCall")
    if isinstance(tool_call, dict):
        args = tool_call.get("args") or {}
        if not isinstance(args, dict):
            return {
                "decision": "ask",
                "reason": "mutation gate: the tool call's args are not an object",
            }
        command = args.get("CommandLine") or args.get("command") or ""
        cwd = args.get("Cwd") or _first_workspace(payload)
        decision = judge(str(command), _text_or_none(cwd))
        if decision.ask:
            return {"decision": "ask", "reason": decision.reason}
        return {}
    tool_input = payload.get("tool_input") or {}
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return None
    decision = judge(command, _text_or_none(payload.get("cwd")))
    if not decision.ask:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": f"Changes cluster or shared state, or cannot be checked; approve only if intended. {decision.reason}",
        }
    }


def _first_workspace(payload: dict[str, Any]) -> Optional[str]:
    paths = payload.get("workspacePaths")
    return paths[0] if isinstance(paths, list) and paths and isinstance(paths[0], str) else None


def _text_or_none(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None


def run_hook(stdin_text: str) -> str:
    """Hook entry point: stdin JSON in, stdout JSON out ('' for no opinion). Never raises."""
    try:
        payload = json.loads(stdin_text or "{}")
        if not isinstance(payload, dict):
            raise ValueError("payload is not a JSON object")
        response = hook_response(payload)
    except Exception as error:
        # A payload we cannot read (or a bug) could hide anything: ask in both agents' formats.
        reason = f"mutation gate could not judge the command ({type(error).__name__}: {error})"
        return json.dumps(
            {
                "decision": "ask",
                "reason": reason,
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "ask",
                    "permissionDecisionReason": reason,
                },
            }
        )
    return "" if response is None else json.dumps(response)
