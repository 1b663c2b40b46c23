"""A scripted replay of `/troubleshoot WORKLOAD` as `_agents/skills/troubleshoot/SKILL.md` and the
role files in `_agents/roles/` describe it, with the CLI in-process:

- router: `mlwiki troubleshoot W --bundle B --format json --out findings.json` and
  `mlwiki match W --bundle B --format json`; candidates ranked root-on-the-culprit first;
- practitioner: each failure's workflow with `--dry-run`, then for real; the verdict;
- reviewer: `mlwiki verify findings.json --bundle B` exits 0;
- advisor: the next steps name workflows and approval-gated actions that exist; a change is only
  shown to the user (its exact command), never run;
- the report (findings.md) names the root cause and the culprit host with its evidence.

Two incidents: the demo bundle (an OOM kill, then a Spot preemption) and a generated
single-host segfault, whose remedy is an approval-gated action (cordon the node).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mlwiki.engine.audit import AuditLog
from mlwiki.wiki import Wiki, load_wiki
from tests.conftest import WIKI_ROOT, run_cli
from tests.scenarios import single_host_crash

ROLE_ORDER = {"root": 0, "symptom": 1, "consequence": 2, "cascade": 3}


@dataclass
class Incident:
    bundle: Path
    expected: dict[str, Any]  # the bundle's expected.json (the answer key)

    @property
    def workload(self) -> str:
        return str(self.expected["workload"])


@pytest.fixture(scope="module")
def wiki() -> Wiki:
    return load_wiki(WIKI_ROOT)


@pytest.fixture(params=["demo-oom-then-preemption", "generated-segfault"])
def incident(request: pytest.FixtureRequest, wiki: Wiki, tmp_path: Path) -> Incident:
    if request.param == "demo-oom-then-preemption":
        bundle = WIKI_ROOT / "examples" / "llm-pretrain-oom"
    else:
        bundle = single_host_crash(wiki, "process-segfault", tmp_path / "incident", seed=3)
    return Incident(bundle, json.loads((bundle / "expected.json").read_text()))


def router(incident: Incident, out: Path, wiki: Wiki) -> tuple[dict[str, Any], list[str]]:
    """Collect and triage: the findings, and the candidate symptoms best first."""
    diagnosis = run_cli(
        "troubleshoot", incident.workload, "--bundle", str(incident.bundle),
        "--format", "json", "--out", str(out),
    )  # fmt: skip
    assert diagnosis.code == 0, diagnosis.stderr
    findings = json.loads(out.read_text())
    assert findings == diagnosis.json()
    matched = run_cli(
        "match", incident.workload, "--bundle", str(incident.bundle), "--format", "json"
    )
    assert matched.code == 0, matched.stderr
    rows = matched.json()["matches"]
    # Every cited entry is one the matcher found; the cascades name the culprit's JAX task.
    assert {e["insertId"] for e in findings["evidence"]} <= {r["insertId"] for r in rows}
    tasks = {str(c["task"]) for c in findings["culprit_hosts"] if "task" in c}
    assert any(r["role"] == "cascade" and r["captures"].get("task") in tasks for r in rows)
    # Rank as the router's role file says: root matches on the hosts the cascades point to,
    # then other roots by time, then symptom matches; cascades only say where to look.
    culprits = {c["host"] for c in findings["culprit_hosts"]}
    ranked = sorted(
        (r for r in rows if r["role"] in ("root", "symptom")),
        key=lambda r: (ROLE_ORDER[r["role"]], r["host"] not in culprits, r["timestamp"]),
    )
    candidates = list(dict.fromkeys(r["symptom"] for r in ranked))
    for symptom in candidates:
        assert wiki.symptoms[symptom].workflow in wiki.workflows
    return findings, candidates


def practitioner(incident: Incident, failure: dict[str, Any], wiki: Wiki) -> dict[str, Any]:
    """Verify one failure with its symptom's workflow: the plan first, then the run."""
    workflow = wiki.workflows[wiki.symptoms[failure["symptom"]].workflow]
    known = {"workload": incident.workload, "node": failure["host"]}
    params = [
        f"{name}={known[name]}"
        for name, spec in workflow.params.items()
        if spec.get("required") and name in known
    ]
    argv = ["run", workflow.id, *(a for p in params for a in ("--param", p))]
    argv += ["--bundle", str(incident.bundle), "--format", "json"]
    plan = run_cli(*argv, "--dry-run")
    assert plan.code == 0, plan.stderr
    planned = plan.json()
    assert planned["dry_run"] is True and planned["verdict"] is None and planned["entries"] == []
    assert all(
        s.get("filter") or s.get("command") for s in planned["steps"] if s["status"] == "dry_run"
    )
    done = run_cli(*argv)
    assert done.code == 0, done.stderr
    return done.json()


def advisor(findings: dict[str, Any], wiki: Wiki, culprit: dict[str, Any]) -> list[list[str]]:
    """Next steps: workflows and actions that exist; each change only shown, as its exact command."""
    steps = findings["next_steps"]
    assert steps and all(s["step"] for s in steps)
    for step in steps:
        if "workflow" in step:
            assert step["workflow"] in wiki.workflows
    remedies = {
        r["action"]
        for failure in findings["failures"]
        for r in wiki.symptoms[failure["symptom"]].remedies
        if r.get("action")
    }
    proposed = [s for s in steps if s.get("action")]
    assert {s["action"] for s in proposed} == remedies
    values = {"node": culprit["host"], "pod": culprit.get("pod", "")}
    commands = []
    for step in proposed:
        action = wiki.actions[step["action"]]
        assert action.requires_approval and step["requires_approval"] is True
        assert action.data.get("risk")
        params = [f"{n}={values[n]}" for n, spec in action.params.items() if spec.get("required")]
        shown = run_cli(
            "action", action.id, *(a for p in params for a in ("--param", p)),
            "--dry-run", "--format", "json",
        )  # fmt: skip
        assert shown.code == 0, shown.stderr
        result = shown.json()
        assert result["status"] == "dry_run" and result["mutating"] is True
        commands.append(result["command"])
    return commands


def test_troubleshoot_flow_ends_in_a_verified_report_naming_the_culprit(
    incident: Incident, wiki: Wiki, tmp_path: Path
) -> None:
    out = tmp_path / "findings.json"
    expected = incident.expected

    # 1. Router
    findings, candidates = router(incident, out, wiki)
    root = findings["root_cause"]["symptom"]
    assert findings["status"] == expected["status"] == "diagnosed"
    assert candidates[0] == root == expected["root_cause"]
    assert [c["host"] for c in findings["culprit_hosts"]] == expected["culprit_hosts"]
    assert [(f["kind"], f["symptom"], f["host"]) for f in findings["failures"]] == [
        (f["kind"], f["symptom"], f["host"]) for f in expected["failures"]
    ]

    # 2. Practitioner: every disruption's root cause, confirmed on its host
    for failure in findings["failures"]:
        assert failure["symptom"] in candidates
        run = practitioner(incident, failure, wiki)
        assert run["verdict"] == "confirmed", run["summary"]
        assert run["awaiting_approval"] == [] and run["entries"]
        assert failure["host"] in run["summary"] or failure["host"] in json.dumps(run["outputs"])

    # 3. Reviewer
    for role in {wiki.symptoms[f["symptom"]].role for f in findings["failures"]} | {
        wiki.symptoms[root].role
    }:
        assert role == "root"
    review = run_cli("verify", str(out), "--bundle", str(incident.bundle))
    assert review.code == 0, review.stdout + review.stderr
    assert review.stdout.strip().splitlines()[-1].startswith("PASS")

    # 4. Advisor: changes proposed with their exact command, for the user to approve
    culprit = findings["culprit_hosts"][0]
    commands = advisor(findings, wiki, culprit)
    for command in commands:
        assert culprit["host"] in command or culprit.get("pod") in command
    audit = AuditLog().read()
    assert not [r for r in audit if r["event"] == "approval"]
    shown = [r["rendered"] for r in audit if r.get("mutating")]
    assert shown == commands  # each change was only shown (a dry run), none ran
    assert all(r["dry_run"] for r in audit if r.get("mutating"))

    # 5. The verified report names the root cause and the culprit host with its evidence
    report = out.with_suffix(".md").read_text()
    assert f"`{root}`" in report and culprit["host"] in report
    for evidence_id in culprit["evidence"]:
        assert evidence_id in report
    cited = {e["id"]: e for e in findings["evidence"]}
    assert cited[findings["root_cause"]["evidence"][0]]["host"] == culprit["host"]
