from __future__ import annotations

import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mlwiki.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
WIKI_ROOT = REPO_ROOT / "_wiki"


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def load_benchmark(name: str) -> ModuleType:
    """`benchmarks/NAME.py` as a module (the benchmarks are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def assert_read_only_verification(wiki: Any, symptom_id: str) -> None:
    """A page's `verify-ID` workflow is valid, starts from its `find-ID` action, runs only
    read-only actions and ends on an unconditional `inconclusive` (the verdict when its evidence
    is missing)."""
    from mlwiki.engine.workflows import check_workflow

    workflow = wiki.workflows[f"verify-{symptom_id}"]
    check_workflow(wiki, workflow)
    assert workflow.data["conclusions"][-1]["verdict"] == "inconclusive"
    for step in workflow.steps:
        assert not wiki.actions[step["uses"]].requires_approval, step["uses"]
    assert f"find-{symptom_id}" in {step["uses"] for step in workflow.steps}


def assert_no_signature_matches(wiki: Any, symptom_ids: Iterable[str], lines: list[str]) -> None:
    """No signature of the pages SYMPTOM_IDS matches any of LINES (healthy lines that share
    words with the failures), each signature compiled on its own so that a failure names it."""
    import re2

    for sid in symptom_ids:
        for signature in wiki.symptoms[sid].signatures:
            regex = re2.compile(signature.pattern)
            for line in lines:
                assert not regex.search(line), (sid, signature.pattern, line)


def generated_and_committed(
    incidents: Path, out: Path
) -> tuple[dict[Path, bytes], dict[Path, bytes]]:
    """Every file `INCIDENTS/make_incidents.py OUT` writes (by path under OUT), and the committed
    file of the same path: a generated incident set is compared byte for byte with its source."""
    subprocess.run(
        [sys.executable, str(incidents / "make_incidents.py"), str(out)],
        check=True,
        capture_output=True,
    )
    made = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    return made, {p: (incidents / p).read_bytes() for p in made}


def eval_report(incidents: Path) -> dict[str, Any]:
    """`mlwiki eval INCIDENTS --format json`'s report on a committed incident set."""
    result = run_cli("eval", str(incidents), "--format", "json")
    assert result.code == 0, result.stderr
    return result.json()


def assert_labels_well_formed(incidents: Path, *, headline_hosts_in_rows: bool = True) -> None:
    """Every `expected.json` under INCIDENTS is a label the findings contract allows: a status, a
    reason, a root cause exactly when diagnosed, no failures when healthy, a culprit when
    inconclusive, and (unless a set's headlines name hosts its rows do not, e.g. both ends of a
    Megascale network digest) headline hosts that are hosts of its failure rows."""
    labels = sorted(incidents.glob("*/expected.json"))
    assert labels, incidents
    for expected in labels:
        data = json.loads(expected.read_text(encoding="utf-8"))
        assert data["status"] in {"diagnosed", "inconclusive", "no_failure"}, expected
        assert data["why"], expected
        assert (data["root_cause"] is None) == (data["status"] != "diagnosed"), expected
        if data["status"] == "no_failure":
            assert data["failures"] == [], expected
        if data["status"] == "inconclusive":
            assert data["culprit_hosts"], expected
        if headline_hosts_in_rows:
            hosts = {f["host"] for f in data["failures"] if f["host"]}
            assert set(data["culprit_hosts"]) <= hosts, expected


def load_generator(incidents: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """INCIDENTS/make_incidents.py as a module, registered in sys.modules for the test only
    (dataclasses resolve their module's string annotations through it)."""
    name = f"make_{incidents.name}"
    spec = importlib.util.spec_from_file_location(name, incidents / "make_incidents.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def run_cli(*argv: str) -> CliResult:
    """Run `mlwiki ARGV…` in-process, the way a user would, and capture what it prints."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse usage errors
            code = exit_.code if isinstance(exit_.code, int) else 2
    return CliResult(code, out.getvalue(), err.getvalue())


def troubleshoot_full(*argv: str) -> CliResult:
    """`mlwiki troubleshoot ARGV… --out FILE`: its stdout is the full findings of FILE (stdout
    itself shows an agent-sized view), the Markdown report of FILE.md in stderr's place."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "findings.json"
        result = run_cli("troubleshoot", *argv, "--out", str(out))
        if result.code != 0:
            return result
        report = out.with_suffix(".md").read_text()
        return CliResult(result.code, out.read_text(), report)


def match_all(*argv: str) -> list[dict[str, Any]]:
    """Every row `mlwiki match ARGV` finds: its `--out` file (stdout shows the first few)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "matches.json"
        result = run_cli("match", *argv, "--format", "json", "--out", str(out))
        assert result.code == 0, result.stderr
        return json.loads(out.read_text(encoding="utf-8"))["matches"]


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def wiki_copy(tmp_path: Path) -> Path:
    """A writable copy of the repository's wiki (its `_wiki` folder) for planting defects."""
    target = tmp_path / "repo" / "_wiki"
    shutil.copytree(WIKI_ROOT, target, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    return target


@pytest.fixture
def gcs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A running GCS emulator on 127.0.0.1 with $STORAGE_EMULATOR_HOST set (tests/fakes/gcs.py)."""
    from tests.fakes.gcs import running_emulator

    yield from running_emulator(tmp_path, monkeypatch)


@pytest.fixture(autouse=True, scope="session")
def _isolated_session_state(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Module- and session-scoped fixtures too never touch the user's state or caches."""
    root = tmp_path_factory.mktemp("session-state")
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_STATE_HOME", str(root / "state"))
    patch.setenv("XDG_CACHE_HOME", str(root / "cache"))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never write the user's audit log, quota state or page cache from a test."""
    monkeypatch.setenv("MLWIKI_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kubecache"))
    monkeypatch.delenv("MLWIKI_WIKI", raising=False)
    monkeypatch.delenv("MLWIKI_MONITORING_ENDPOINT", raising=False)
