#!/usr/bin/env python3
"""PreToolUse hook for Claude Code and Antigravity: ask the user before any cluster-changing command.

Reads the hook payload on stdin, prints the decision as JSON on stdout and always exits 0 (Claude
Code does not block on exit 1, and Antigravity ignores exit codes). The logic is `mlwiki.guard`;
it parses shell with tree-sitter-bash, so when the Python that runs this hook lacks it and the
wiki's venv (_wiki/.venv) exists, the hook re-runs itself with the venv's Python (without the
parser, `mlwiki.guard` asks on every command rather than guess). The agents run it through
`mutation-gate` beside it, which finds it (and the venv's Python) from any working directory. If
the guard cannot be loaded at all (a broken install), the answer is "ask" in both agents'
formats: the gate fails closed, never open.
"""

import json
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = REPO_ROOT / "_wiki" / ".venv" / "bin" / "python"

sys.path.insert(0, str(REPO_ROOT))


def _parser_missing() -> bool:
    try:
        import tree_sitter  # noqa: F401
        import tree_sitter_bash  # noqa: F401
    except ImportError:
        return True
    return False


def fail_closed(why: str) -> str:
    reason = f"the mlwiki mutation gate could not run ({why}); approve only if this is read-only"
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


def main() -> int:
    if _parser_missing() and VENV_PYTHON.is_file() and not os.environ.get("MLWIKI_GUARD_REEXEC"):
        os.environ["MLWIKI_GUARD_REEXEC"] = "1"
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve())])
    payload = sys.stdin.read()
    try:
        from mlwiki.guard import run_hook

        answer = run_hook(payload)
    except Exception as error:  # anything at all: fail closed, never open
        answer = fail_closed(f"{type(error).__name__}: {error}")
    sys.stdout.write(answer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
