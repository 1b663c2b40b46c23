"""The linter as users run it: `mlwiki lint`, `python3 _wiki/wiki_linter.py`, its formats and exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from mlwiki.lint.registry import RULES
from tests.conftest import REPO_ROOT, WIKI_ROOT
from tests.lint_fixtures.mini_wiki import MiniWiki

TEXT_LINE = re.compile(r"^_wiki/\S+:\d+: [EW]\d{3} [a-z-]+ .+$")

# The parts of SARIF 2.1.0 that GitHub code scanning reads (its upload rejects files without them).
SARIF_SHAPE = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription"],
                                            "properties": {"id": {"type": "string"}},
                                        },
                                    }
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "level", "message", "locations"],
                            "properties": {
                                "level": {"enum": ["error", "warning", "note", "none"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {
                                                            "uri": {
                                                                "type": "string",
                                                                "pattern": "^[^/]",
                                                            }
                                                        },
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {
                                                            "startLine": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            }
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


@pytest.fixture
def broken_wiki(tmp_path: Path) -> MiniWiki:
    wiki = MiniWiki.create(tmp_path)
    wiki.edit("TUTORIAL.md", "#what-it-is", "#nowhere")
    wiki.edit_json("actions/cordon-node.json", lambda d: d.pop("risk"))
    return wiki


def test_json_report_shape_and_exit_code(cli, broken_wiki: MiniWiki) -> None:
    result = cli("--wiki", str(broken_wiki.root), "lint")
    assert result.code == 1
    report = result.json()
    assert report["status"] == "FAIL"
    assert set(report) == {"status", "errors", "warnings", "stats"}
    for problem in report["errors"] + report["warnings"]:
        assert {"code", "rule", "file", "line", "message"} <= set(problem)
    assert [p["code"] for p in report["errors"]] == ["E302"]
    assert report["errors"][0]["file"] == "_wiki/TUTORIAL.md"
    assert [p["code"] for p in report["warnings"]] == ["W501"]
    assert report["stats"]["pages"] == 2 and report["stats"]["errors"] == 1


def test_pass_exits_zero(cli, tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    result = cli("--wiki", str(wiki.root), "lint", "--format", "text")
    assert result.code == 0
    assert result.stdout.startswith("PASS: 0 error(s), 0 warning(s)")


def test_text_format_is_one_line_per_problem(cli, broken_wiki: MiniWiki) -> None:
    result = cli("--wiki", str(broken_wiki.root), "lint", "--format", "text")
    lines = result.stdout.splitlines()
    assert all(TEXT_LINE.match(line) for line in lines[:-1]), lines
    assert lines[0].startswith("_wiki/TUTORIAL.md:3: E302 broken-anchor ")
    assert lines[-1].startswith("FAIL: 1 error(s), 1 warning(s)")


def test_sarif_is_what_code_scanning_reads(cli, broken_wiki: MiniWiki, tmp_path: Path) -> None:
    out = tmp_path / "lint.sarif"
    result = cli("--wiki", str(broken_wiki.root), "lint", "--format", "sarif", "--output", str(out))
    assert result.code == 1 and result.stdout == ""
    sarif = json.loads(out.read_text())
    jsonschema.validate(sarif, SARIF_SHAPE)
    run = sarif["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rule_ids == [rule.code for rule in RULES]
    results = {r["ruleId"]: r for r in run["results"]}
    assert set(results) == {"E302", "W501"}
    assert results["E302"]["level"] == "error" and results["W501"]["level"] == "warning"
    assert rule_ids[results["E302"]["ruleIndex"]] == "E302"
    location = results["E302"]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "_wiki/TUTORIAL.md"
    assert location["region"]["startLine"] == 3


def test_cannot_run_exits_two(cli, tmp_path: Path) -> None:
    assert cli("--wiki", str(tmp_path / "nowhere"), "lint").code == 2
    wiki = MiniWiki.create(tmp_path)
    wiki.write("schemas/action.schema.json", "{ not json")
    result = cli("--wiki", str(wiki.root), "lint")
    assert result.code == 2
    assert "action.schema.json" in result.stderr and "Traceback" not in result.stderr


def test_list_rules_prints_the_registry(cli) -> None:
    result = cli("lint", "--list-rules")
    assert result.code == 0
    for rule in RULES:
        assert f"| {rule.code} | `{rule.name}` |" in result.stdout


def _script(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_wiki_linter_script_lints_its_own_wiki_from_any_cwd(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path / "mini")
    script = wiki.path("wiki_linter.py")
    script.write_text((WIKI_ROOT / "wiki_linter.py").read_text())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = _script(script, cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "PASS"
    wiki.edit("TUTORIAL.md", "#what-it-is", "#nowhere")
    result = _script(script, "--format", "text", cwd=elsewhere)
    assert result.returncode == 1
    assert "_wiki/TUTORIAL.md:3: E302 broken-anchor" in result.stdout


def test_wiki_linter_script_of_the_repository_runs(tmp_path: Path) -> None:
    result = _script(REPO_ROOT / "_wiki" / "wiki_linter.py", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == ("PASS" if result.returncode == 0 else "FAIL")


def test_wiki_linter_script_moves_to_the_wiki_venv_from_a_bare_python3(tmp_path: Path) -> None:
    """`python3 _wiki/wiki_linter.py` with a python3 that lacks the dependencies (the system
    one, venv not activated) re-runs itself in _wiki/.venv instead of failing."""
    bare = Path(sys.base_prefix) / "bin" / "python3"
    venv = REPO_ROOT / "_wiki" / ".venv"
    if not bare.exists() or Path(sys.prefix).resolve() != venv.resolve():
        pytest.skip("needs the README's venv at _wiki/.venv and its base interpreter")
    probe = subprocess.run([str(bare), "-c", "import re2"], capture_output=True, check=False)
    if probe.returncode == 0:
        pytest.skip("the base interpreter has the dependencies itself")
    result = subprocess.run(
        [str(bare), str(REPO_ROOT / "_wiki" / "wiki_linter.py")],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["status"] in ("PASS", "FAIL")


def test_ci_workflow_and_pre_commit_hook_run_the_linter() -> None:
    import yaml

    workflow = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "wiki-lint.yml").read_text())
    steps = workflow["jobs"]["lint"]["steps"]
    runs = " ".join(str(step.get("run", "")) for step in steps)
    assert "_wiki/wiki_linter.py --format sarif --output wiki-lint.sarif" in runs
    assert "mlwiki index --check" in runs
    upload = next(
        step
        for step in steps
        if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif")
    )
    assert upload["with"]["sarif_file"] == "wiki-lint.sarif"
    assert workflow["permissions"]["security-events"] == "write"
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "mlwiki-lint")
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    assert hook["files"] == "^_wiki/" and hook["entry"].startswith("mlwiki lint")
