"""The code stays one style: ruff lint and ruff format are part of the tests."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff")
    command = [exe] if exe else [sys.executable, "-m", "ruff"]
    return subprocess.run(
        [*command, *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("args", [("check", "."), ("format", "--check", ".")])
def test_ruff(args: tuple[str, ...]) -> None:
    result = _ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr
