"""The approval gate with the real kubectl against the fake API server, and the audit log."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mlwiki.engine.approval import ApprovalGate, ApprovalRequest, argv_digest
from mlwiki.engine.audit import AuditLog
from mlwiki.engine.workflows import run_workflow
from mlwiki.wiki import load_wiki
from tests.conftest import run_cli
from tests.fakes.kube_api import (  # noqa: F401 - kube_api_fixture registers `kube_api`
    FakeKubeApi,
    kube_api_fixture,
    make_node,
)
from tests.test_engine_workflow import make_wiki

pytestmark = pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not on PATH")

CORDON_DIGEST = argv_digest(["kubectl", "cordon", "gke-a"])[:16]
HOSTILE = ["a;rm -rf /", "--all", "$(id)", "`id`", "two words", "a\nb", "-n kube-system"]


@pytest.fixture
def wiki(tmp_path: Path) -> str:
    return str(make_wiki(tmp_path))


def cordon(wiki: str, *extra: str):
    return run_cli("--wiki", wiki, "action", "cordon-node", "--param", "node=gke-a", *extra)


def test_unapproved_mutation_exits_3_and_runs_nothing(kube_api: FakeKubeApi, wiki: str) -> None:
    kube_api.add(make_node("gke-a"))
    result = cordon(wiki)
    assert result.code == 3
    assert "kubectl cordon gke-a" in result.stderr and "--approve" in result.stderr
    assert result.json()["status"] == "awaiting_approval"
    assert kube_api.requests == []
    assert AuditLog().read() == []


def test_approved_mutation_runs_once_and_is_audited(kube_api: FakeKubeApi, wiki: str) -> None:
    kube_api.add(make_node("gke-a"))
    result = cordon(wiki, "--approve", CORDON_DIGEST)
    assert result.code == 0, result.stderr
    assert len(kube_api.requests_by("PATCH")) == 1
    assert kube_api.get("nodes", "gke-a")["spec"]["unschedulable"] is True
    approval, run = AuditLog().read()
    assert approval["event"] == "approval" and run["event"] == "run"
    for record in (approval, run):
        assert record["rendered"] == ["kubectl", "cordon", "gke-a"]
        assert record["argv_sha256"] == argv_digest(["kubectl", "cordon", "gke-a"])
        assert record["approval"]["how"] == "flag" and record["approval"]["by"]
        assert record["mutating"] is True
    assert run["exit_code"] == 0 and run["status"] == "ok" and len(run["output_sha256"]) == 64


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_exit_2_and_run_nothing(
    kube_api: FakeKubeApi, wiki: str, value: str
) -> None:
    result = run_cli(
        "--wiki", wiki, "action", "cordon-node", "--param", f"node={value}", "--approve"
    )
    assert result.code == 2
    assert "--param node" in result.stderr
    assert kube_api.requests == []
    assert AuditLog().read() == []


def test_unwritable_audit_log_blocks_the_mutation(
    kube_api: FakeKubeApi, wiki: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() == 0:
        # root ignores permission bits; a path under a regular file can never be created.
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("")
        monkeypatch.setenv("MLWIKI_AUDIT_LOG", str(blocker / "audit.jsonl"))
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        monkeypatch.setenv("MLWIKI_AUDIT_LOG", str(locked / "audit.jsonl"))
    kube_api.add(make_node("gke-a"))
    result = cordon(wiki, "--approve", CORDON_DIGEST)
    assert result.code == 2
    assert "audit log" in result.stderr and "cannot write" in result.stderr
    assert kube_api.requests_by("PATCH") == []
    assert kube_api.get("nodes", "gke-a")["spec"].get("unschedulable") is None


def test_workflow_step_needs_its_own_approval(kube_api: FakeKubeApi, wiki: str) -> None:
    kube_api.add(make_node("gke-a"))
    args = ("--wiki", wiki, "run", "remedy-demo", "--param", "node=gke-a")
    waiting = run_cli(*args, "--approve", "look")  # approving another step does not count
    assert waiting.code == 3
    steps = {s["id"]: s["status"] for s in waiting.json()["steps"]}
    assert steps == {"look": "ok", "cordon": "awaiting_approval"}
    assert f"--approve cordon={CORDON_DIGEST}" in waiting.stderr
    assert kube_api.requests_by("PATCH") == []
    assert run_cli(*args, "--approve", "cordon").code == 3  # the step's name alone is not enough

    done = run_cli(*args, "--approve", f"cordon={CORDON_DIGEST}")
    assert done.code == 0, done.stderr
    assert done.json()["summary"] == "done: ok"
    assert len(kube_api.requests_by("PATCH")) == 1
    records = [(r["event"], r["step"]) for r in AuditLog().read()]
    assert records[-2:] == [("approval", "cordon"), ("run", "cordon")]


def test_environment_cannot_approve(
    kube_api: FakeKubeApi, wiki: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("MLWIKI_APPROVE", "MLWIKI_APPROVE_ALL", "CI", "YES"):
        monkeypatch.setenv(name, "1")
    kube_api.add(make_node("gke-a"))
    assert cordon(wiki).code == 3
    assert kube_api.requests == []


def test_interactive_prompt_shows_command_and_risk(kube_api: FakeKubeApi, wiki: str) -> None:
    import io

    kube_api.add(make_node("gke-a"))
    shown = io.StringIO()
    answers = iter(["no\n", "cordon\n"])
    gate = ApprovalGate(interactive=True, ask=lambda _prompt: next(answers), stream=shown)
    loaded = load_wiki(Path(wiki))
    refused = run_workflow(loaded, "remedy-demo", {"node": "gke-a"}, gate=gate)
    assert refused.awaiting_approval == ["cordon"]
    assert "command: kubectl cordon gke-a" in shown.getvalue()
    assert "risk:    No new pod lands on the node." in shown.getvalue()
    accepted = run_workflow(loaded, "remedy-demo", {"node": "gke-a"}, gate=gate)
    assert accepted.step("cordon").status == "ok"
    assert accepted.step("cordon").approval.how == "prompt"
    assert len(kube_api.requests_by("PATCH")) == 1


def test_gate_without_terminal_fails_closed() -> None:
    request = ApprovalRequest("cordon", "cordon-node", ["kubectl", "cordon", "n"], "", "node=n")
    assert ApprovalGate().decide(request) is None
    assert ApprovalGate({"other": argv_digest(request.command)}).decide(request) is None
    assert ApprovalGate({"cordon": ""}).decide(request) is None  # no digest, no approval
    assert ApprovalGate({"cordon": "0" * 16}).decide(request) is None  # another command's
    digest = argv_digest(["kubectl", "cordon", "n"])
    assert ApprovalGate({"cordon": digest[:12]}).decide(request).how == "flag"


def test_offline_bundle_never_runs_a_mutation(tmp_path: Path, wiki: str) -> None:
    from tests.test_engine_workflow import make_bundle

    bundle = make_bundle(tmp_path)
    result = run_cli(
        "--wiki", wiki, "action", "cordon-node", "--param", "node=gke-a", "--approve",
        "--bundle", str(bundle),
    )  # fmt: skip
    assert result.code == 1
    assert "cannot run against an offline bundle" in result.stderr
