"""The agents' PreToolUse gate: find cluster-changing commands inside any shell command line.

Claude Code and Antigravity call `.claude/hooks/mutation_gate.py` before running a shell command.
This module decides. It looks inside compound commands (`;`, `&&`, `||`, `|`, `&`, newlines),
subshells (`$(…)`, backticks, parentheses), `bash -c`/`sh -c`/`eval` strings, and behind
wrappers (`VAR=x`, `env`, `sudo`, `timeout`, `nice`, `nohup`, `time`, `stdbuf`, `xargs`,
`watch`, `exec`, `command`, `find -exec`). A mutating kubectl/gcloud/helm command, an `mlwiki …
--approve`, or an `mlwiki handoff` upload makes it answer "ask", so the user approves it
themselves. It must never be the reason a command runs: it only ever adds a question.

Standard library only: the hook runs before any virtualenv is active.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.mutations import Verdict, classify

SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "\n", "{", "}", "!"})
REDIRECTS = re.compile(r"^[0-9]*(>>?|<<?<?|>&|<&|&>>?)$")
WRAPPERS = frozenset(
    {"sudo", "doas", "env", "timeout", "nice", "nohup", "time", "stdbuf", "xargs", "watch",
     "exec", "command", "builtin", "ionice", "chronic", "unbuffer", "then", "do", "else", "if", "while", "until"}
)  # fmt: skip
# Options of each wrapper that take a separate value (`sudo -u root`, `xargs -n 1`).
WRAPPER_VALUE_OPTIONS = {
    "sudo": frozenset({"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset({"-I", "-L", "-d", "-E", "-n", "-P", "-s", "-a", "-i"}),
    "watch": frozenset({"-n", "--interval"}),
}
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "su"})
MLWIKI_NAMES = frozenset({"mlwiki"})
PYTHONS = re.compile(r"^python[0-9.]*$")
_DURATION = re.compile(r"^[0-9.]+[smhd]?$")


@dataclass
class Decision:
    ask: bool
    reasons: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in SEPARATORS or set(token) <= set(";&|()\n"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _strip_prefixes(words: list[str]) -> list[str]:
    """Drop environment assignments, redirections and wrapper programs in front of the command."""
    index = 0
    while index < len(words):
        word = words[index]
        base = word.rsplit("/", 1)[-1]
        if REDIRECTS.match(word):
            index += 2
        elif (
            "=" in word and not word.startswith("-") and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word)
        ):
            index += 1
        elif base in WRAPPERS:
            index += 1
            value_options = WRAPPER_VALUE_OPTIONS.get(base, frozenset())
            while index < len(words):
                option = words[index]
                if option in value_options:
                    index += 2
                elif (
                    option.startswith("-")
                    or _DURATION.match(option)
                    or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", option)
                ):
                    index += 1
                else:
                    break
        else:
            break
    return words[index:]


def _embedded_scripts(words: list[str]) -> list[str]:
    """Command text hidden inside arguments: `bash -c "…"`, `eval "…"`, `$(…)`, backticks."""
    scripts: list[str] = []
    base = words[0].rsplit("/", 1)[-1] if words else ""
    if base in SHELLS:
        for position, word in enumerate(words[1:], start=1):
            if word == "-c" or (
                word.startswith("-") and "c" in word[1:] and not word.startswith("--")
            ):
                if position + 1 < len(words):
                    scripts.append(words[position + 1])
                break
    if base == "eval":
        scripts.append(" ".join(words[1:]))
    if base == "env":
        for position, word in enumerate(words[:-1]):
            if word in ("-S", "--split-string"):
                scripts.append(" ".join(words[position + 1 :]))
    return scripts


def _substitutions(command: str) -> list[str]:
    """The text of every `$(…)`, `<(…)`, `>(…)` and backtick substitution in a command line."""
    found = re.findall(r"`([^`]*)`", command)
    for match in re.finditer(r"[$<>]\(", command):
        depth, start = 1, match.end()
        for position in range(start, len(command)):
            depth += {"(": 1, ")": -1}.get(command[position], 0)
            if depth == 0:
                found.append(command[start:position])
                break
        else:
            found.append(command[start:])
    return found


def _find_exec(words: list[str]) -> list[list[str]]:
    """`find … -exec CMD … ;` and `-execdir`/`-ok` run CMD."""
    found = []
    for position, word in enumerate(words):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            found.append(words[position + 1 :])
    return found


def _judge_words(words: list[str]) -> Optional[str]:
    """A reason to ask for one simple command's words, or None."""
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    verdict: Optional[Verdict] = classify([program, *words[1:]])
    if verdict is not None:
        return f"{verdict.reason}: {' '.join(words)}" if verdict.mutating else None
    is_mlwiki = program in MLWIKI_NAMES or (
        PYTHONS.match(program) is not None and words[1:3] == ["-m", "mlwiki"]
    )
    if is_mlwiki:
        arguments = words[1:]
        if any(a == "--approve" or a.startswith("--approve=") for a in arguments):
            return f"mlwiki --approve runs a mutating step; the user must approve it: {' '.join(words)}"
        if "handoff" in arguments and "--watch" not in arguments:
            return f"mlwiki handoff uploads findings to a Cloud Storage bucket: {' '.join(words)}"
    return None


def judge(command: str, depth: int = 0) -> Decision:
    """Decide whether a shell command line needs the user's approval."""
    decision = Decision(ask=False)
    if depth > 5:
        return Decision(True, ["command nests too deeply to check"])
    for script in _substitutions(command):
        decision.reasons.extend(judge(script, depth + 1).reasons)
    try:
        tokens = _tokens(command)
    except ValueError as error:
        if re.search(r"\b(kubectl|gcloud|helm|mlwiki)\b", command):
            return Decision(
                True, [f"cannot parse the command ({error}); it mentions a cluster tool"]
            )
        return decision
    for words in _simple_commands(tokens):
        for script in _embedded_scripts(words):
            inner = judge(script, depth + 1)
            decision.reasons.extend(inner.reasons)
        for candidate in [_strip_prefixes(words), *(_strip_prefixes(w) for w in _find_exec(words))]:
            reason = _judge_words(candidate)
            if reason:
                decision.reasons.append(reason)
    decision.ask = bool(decision.reasons)
    return decision


def hook_response(payload: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The JSON answer for a hook payload from Claude Code or Antigravity (None: no opinion).

    Claude Code sends `tool_input.command` and reads `hookSpecificOutput`; Antigravity sends
    `toolCall.args.CommandLine` and reads `{"decision", "reason"}`. An exit code is never the
    signal: Claude Code ignores exit 1 and Antigravity ignores exit codes altogether.
    """
    tool_call = payload.get("toolCall")
    if isinstance(tool_call, dict):
        args = tool_call.get("args") or {}
        command = args.get("CommandLine") or args.get("command") or ""
        decision = judge(str(command))
        if decision.ask:
            return {"decision": "ask", "reason": decision.reason}
        return {}
    tool_input = payload.get("tool_input") or {}
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return None
    decision = judge(command)
    if not decision.ask:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": f"Changes cluster or shared state; approve only if intended. {decision.reason}",
        }
    }


def run_hook(stdin_text: str) -> str:
    """Hook entry point: stdin JSON in, stdout JSON out ('' for no opinion). Never raises."""
    try:
        payload = json.loads(stdin_text or "{}")
        if not isinstance(payload, dict):
            raise ValueError("payload is not a JSON object")
    except ValueError as error:
        # A payload we cannot read could hide anything: ask in both agents' formats.
        reason = f"mutation gate could not read the hook payload ({error})"
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
    response = hook_response(payload)
    return "" if response is None else json.dumps(response)
