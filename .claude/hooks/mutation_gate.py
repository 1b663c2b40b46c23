#!/usr/bin/env python3
"""PreToolUse hook for Claude Code and Antigravity: ask the user before any cluster-changing command.

Reads the hook payload on stdin, prints the decision as JSON on stdout and always exits 0 (Claude
Code does not block on exit 1, and Antigravity ignores exit codes). The logic is `mlwiki.guard`.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mlwiki.guard import run_hook

if __name__ == "__main__":
    sys.stdout.write(run_hook(sys.stdin.read()))
    sys.exit(0)
