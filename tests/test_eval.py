"""`mlwiki eval` over the generated scenario suite: the diagnosis must get every one right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, run_cli
from tests.scenarios import build_suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("suite")
    build_suite(load_wiki(REPO_ROOT / "_wiki"), root)
    return root


def test_every_generated_scenario_is_diagnosed_exactly(suite: Path) -> None:
    result = run_cli("eval", str(suite), "--format", "json", "--min-accuracy", "1.0")
    report = result.json()
    misses = [r["scenario"] for r in report["results"] if not r["exact"]]
    assert result.code == 0 and not misses, misses
    assert report["scenarios"] >= 30
    assert report["accuracy"] == {f: 1.0 for f in report["accuracy"]}
    print(*(r["scenario"] for r in report["results"]))  # what was scored, shown with -s


def test_min_accuracy_gates_and_table_marks_the_miss(suite: Path, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    source = suite / "healthy-noise"
    wrong.mkdir()
    (wrong / "bundle.json").write_text((source / "bundle.json").read_text())
    expected = json.loads((source / "expected.json").read_text())
    (wrong / "expected.json").write_text(json.dumps({**expected, "status": "diagnosed"}))
    gated = run_cli("eval", str(tmp_path), "--min-accuracy", "0.5")
    assert gated.code == 1 and "MISS" in gated.stdout
    assert run_cli("eval", str(tmp_path)).code == 0


def test_bad_dir_exits_2(tmp_path: Path) -> None:
    assert run_cli("eval", str(tmp_path / "none")).code == 2
    assert run_cli("eval", str(tmp_path)).code == 2
