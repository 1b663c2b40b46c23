#!/usr/bin/env python3
"""Lint the wiki this file belongs to: `python3 _wiki/wiki_linter.py [--format json|text|sarif]`.

Same as `mlwiki lint` run on this wiki: prints {"status": "PASS"|"FAIL", "errors", "warnings",
"stats"} as JSON by default; exit 0 PASS, 1 FAIL, 2 cannot run. Works from any directory. If the
running Python lacks the dependencies and the wiki's venv (_wiki/.venv) exists, it re-runs itself
with the venv's Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

WIKI_ROOT = Path(__file__).resolve().parent
REPO_ROOT = WIKI_ROOT.parent
VENV_PYTHON = WIKI_ROOT / ".venv" / "bin" / "python"


def main() -> int:
    sys.path.insert(0, str(REPO_ROOT))
    try:
        import argparse

        # The registry imports every rule, and so every third-party package the linter needs.
        import mlwiki.lint.registry  # noqa: F401
        from mlwiki.commands.lint import add_arguments, run
        from mlwiki.errors import MlwikiError
    except ImportError as error:
        # Compare environments, not executables: the venv's python is a symlink to the base one.
        if (
            VENV_PYTHON.exists()
            and Path(sys.prefix).resolve() != VENV_PYTHON.parent.parent.resolve()
        ):
            os.execv(
                str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve()), *sys.argv[1:]]
            )
        print(
            f"wiki_linter: cannot import the linter ({error}); install it with "
            f"`python3 -m venv _wiki/.venv && _wiki/.venv/bin/pip install -r requirements.txt`",
            file=sys.stderr,
        )
        return 2
    parser = argparse.ArgumentParser(prog="wiki_linter.py", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args()
    try:
        return run(WIKI_ROOT, args)
    except MlwikiError as error:
        print(f"wiki_linter: {error}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
