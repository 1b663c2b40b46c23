"""The diagnosis method on the cases an independent red team found wrong (issue #5).

Each test builds a small bundle with the scenario generator's `Run` (real LogEntry JSON) and
checks one rule of the method through the public CLI.
"""

from __future__ import annotations

from pathlib import Path

from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, run_cli
from tests.scenarios import Run, expected

WIKI = load_wiki(REPO_ROOT / "_wiki")
ABORT = "F0314 {clock} 1 tpu_host.cc:412] Check failed: buffer->size() == expected_size (8 vs. 4)"


def findings_of(run: Run, folder: Path) -> dict:
    run.write(folder, expected("diagnosed", None, [], []))
    result = run_cli("troubleshoot", run.workload, "--bundle", str(folder), "--format", "json")
    assert result.code == 0, result.stderr
    return result.json()


def rows(findings: dict) -> list[tuple[str, str, str | None]]:
    return [(f["kind"], f["symptom"], f["host"]) for f in findings["failures"]]


def test_a_container_echoing_an_audit_method_is_not_an_infrastructure_event(tmp_path: Path) -> None:
    run = Run("echo-run", 1, 4, seed=21)
    run.start_attempt(0)
    run.train(10, 200)
    echo, dead = run.pods[(0, 1)], run.pods[(0, 2)]
    run.log(
        echo, 150, "WARNING:absl:bad record: 'compute.instances.preempted on this VM'", "WARNING"
    )
    run.log(dead, 205, ABORT, "CRITICAL")
    run.kill(dead, 206)
    run.cascade(dead, 260)
    findings = findings_of(run, tmp_path / "b")
    assert findings["root_cause"]["symptom"] == "process-abort"
    assert [c["host"] for c in findings["culprit_hosts"]] == [dead.node]
    matched = run_cli("match", "--bundle", str(tmp_path / "b"), "--format", "json").json()
    assert "spot-preemption" not in {m["symptom"] for m in matched["matches"]}
