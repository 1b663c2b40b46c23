#!/usr/bin/env python3
"""PreToolUse hook for Claude Code and Antigravity: ask the user before any cluster-changing command.

Reads the hook payload on stdin, prints the decision as JSON on stdout and always exits 0 (Claude
Code does not block on exit 1, and Antigravity ignores exit codes). The logic is `mlwiki.guard`;
it parses shell with tree-sitter-bash, so when the Python that runs this hook lacks it and the
wiki's venv (_wiki/.venv) exists, the hook re-runs itself with the venv's Python (without the
parser, `mlwiki.guard` asks on every command rather than guess).
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


if __name__ == "__main__":
    if _parser_missing() and VENV_PYTHON.is_file() and not os.environ.get("MLWIKI_GUARD_REEXEC"):
        os.environ["MLWIKI_GUARD_REEXEC"] = "1"
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve())])
    try:
        from mlwiki.guard import run_hook
    except Exception as error:  # a broken or missing guard must ask, never fail open
        reason = f"mutation gate cannot load mlwiki.guard ({type(error).__name__}: {error})"
        sys.stdout.write(
            json.dumps(
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
        )
        sys.exit(0)
    sys.stdout.write(run_hook(sys.stdin.read()))
    sys.exit(0)
