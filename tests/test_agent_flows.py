"""The three flows through the agent files' own commands, with the limits a real host imposes.

- /troubleshoot: the walk of `tests/agent_walk.py` (the skill's and role files' commands, run as
  an agent's shell runs them), on the demo and on a 100k-entry bundle: every command within
  30,000 characters, the whole walk within 60,000, honest verdicts, the reviewer's
  `verify --report` PASS on the report and REJECT (with the exact line) on a planted wrong quote;
  each MCP result within 20,000 bytes.
- /handoff: findings → package with the cited entries found from the findings alone; a rerun
  with more evidence completes the same package; watching an unknown key is bad input.
- The hooks of both agents, as their settings run them, from the repository root, `.agents/`
  and a subdirectory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.agent_walk import DEMO, MLWIKI, REPO_ROOT, Walk, troubleshoot_walk, write_report
from tests.conftest import WIKI_ROOT, run_cli
from tests.fakes.gcs import BUCKET, GcsEmulator

CLI_CAP = 30_000
WALK_CAP = 60_000
pytestmark = pytest.mark.skipif(not MLWIKI.exists(), reason="the venv's mlwiki is not built")


def _source_text(step: Any) -> str:
    return " ".join((REPO_ROOT / step.source).read_text(encoding="utf-8").split())


def assert_walk_holds(walk: Walk) -> None:
    for step in walk.steps:
        assert step.chars <= CLI_CAP, f"{step.what}: {step.chars} characters"
        assert step.code in (None, 0), f"{step.what}: exit {step.code}: {step.output[-300:]}"
        # The walk follows the agent files: what each step does is written in its file.
        assert " ".join(step.template.split()) in _source_text(step), (step.source, step.template)
    assert walk.total <= WALK_CAP, walk.table()


def test_troubleshoot_walk_on_the_demo_reads_under_60000_characters(tmp_path: Path) -> None:
    walk = troubleshoot_walk(DEMO, "llm-pretrain", tmp_path)
    assert_walk_holds(walk)
    findings = json.loads((tmp_path / "findings.json").read_text())
    assert findings["status"] == "diagnosed"
    assert {r["verdict"] for r in findings["actions_run"]} == {"confirmed"}
    assert not [s for s in walk.steps if s.role == "practitioner"], "nothing was left open"
    review = next(s for s in walk.steps if s.what.startswith("mlwiki verify"))
    assert review.output.splitlines()[-1].startswith("PASS: ")
    print(walk.table())


def test_a_planted_wrong_quote_is_rejected_with_its_line(tmp_path: Path) -> None:
    walk = troubleshoot_walk(DEMO, "llm-pretrain", tmp_path)
    report = tmp_path / "report.md"
    text = report.read_text()
    wrong = text.replace("Killed process 41872", "Killed process 41873", 1)
    assert wrong != text
    report.write_text(wrong)
    line = 1 + wrong[: wrong.index("Killed process 41873")].count("\n")
    rejected = subprocess.run(
        [str(MLWIKI), "verify", str(tmp_path / "findings.json"), "--bundle", str(DEMO),
         "--report", str(report)],
        cwd=REPO_ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert rejected.returncode == 1
    (problem,) = [p for p in rejected.stdout.splitlines() if p.startswith("REJECT ")]
    assert f"{report}:{line}: quote is in no fetched entry" in problem
    assert wrong.splitlines()[line - 1].strip() in problem
    # The one defined path: fix the named line from the findings' evidence, check once more.
    write_report(json.loads((tmp_path / "findings.json").read_text()), report)
    fixed = run_cli(
        "verify", str(tmp_path / "findings.json"), "--bundle", str(DEMO), "--report", str(report)
    )
    assert fixed.code == 0 and "PASS" in fixed.stdout.splitlines()[-1]
    assert walk.total <= WALK_CAP


def test_an_inconclusive_run_sends_the_practitioner_to_the_host_it_points_to(
    tmp_path: Path,
) -> None:
    from tests.scenarios import culprit_logs_missing

    bundle = culprit_logs_missing(tmp_path / "dark")
    walk = troubleshoot_walk(bundle, "dark-host", tmp_path)
    assert_walk_holds(walk)
    findings = json.loads((tmp_path / "findings.json").read_text())
    assert findings["status"] == "inconclusive"
    looked = [s for s in walk.steps if s.role == "practitioner"]
    assert looked and findings["failures"][0]["host"] in looked[0].what
    assert looked[0].json()["page"]["total"] == 0  # the host left no root line: say so


@pytest.fixture(scope="module")
def big_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """256 hosts, 100k+ entries: one host's HBM OOM, every survivor dying loudly (cascade lines,
    abort banners), as `gcloud logging read --format=json` writes it."""
    from tests.scenarios import loud_hbm_oom

    run, _ = loud_hbm_oom("bench-run", 64, 4, threads=1, rounds=400)
    path = tmp_path_factory.mktemp("big") / "logs.json"
    path.write_text(json.dumps(sorted(run.entries, key=lambda e: e["timestamp"], reverse=True)))
    return path


@pytest.fixture(scope="module")
def big_walk(big_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Walk:
    """The /troubleshoot walk on the 100k bundle, walked once: its findings.json and report.md
    (in `walk.workdir`) are read, never written, by the tests that use it."""
    return troubleshoot_walk(big_bundle, "bench-run", tmp_path_factory.mktemp("big-walk"))


@pytest.mark.slow
def test_troubleshoot_and_handoff_on_100k_entries_stay_within_the_caps(
    big_walk: Walk, tmp_path: Path, gcs: GcsEmulator
) -> None:
    assert_walk_holds(big_walk)
    findings_path = big_walk.workdir / "findings.json"
    findings = json.loads(findings_path.read_text())
    assert findings["status"] == "diagnosed"
    assert findings["data"]["entries"] >= 100_000
    # /handoff as its skill runs it: the cited entries come from the bundle the findings name.
    done = _handoff(tmp_path, "bench-run", "--bucket", BUCKET, "--findings", str(findings_path),
                    "--no-watch")  # fmt: skip
    assert done.code == 0, done.stderr
    assert done.json()["evidence"]["entries"] == len(findings["evidence"])
    assert len(done.stdout) + len(done.stderr) <= CLI_CAP


# Every agent-facing command on the 100k-entry bundle, as an agent runs it (nothing redirected to
# a file), with the largest `--limit` an agent might ask for.
BIG_COMMANDS = {
    "troubleshoot md": ["troubleshoot", "bench-run"],
    "troubleshoot json": ["troubleshoot", "bench-run", "--format", "json", "--limit", "100000"],
    "match json": ["match", "bench-run", "--format", "json", "--limit", "100000"],
    "match text": ["match", "bench-run", "--limit", "100000"],
    "run json": ["run", "verify-hbm-oom-runtime", "--param", "workload=bench-run",
                 "--format", "json", "--limit", "100000"],
    "run text": ["run", "verify-hbm-oom-runtime", "--param", "workload=bench-run",
                 "--format", "text"],
    "action json": ["action", "find-hbm-oom-runtime", "--param", "workload=bench-run",
                    "--format", "json", "--limit", "100000"],
}  # fmt: skip


@pytest.mark.slow
def test_every_agent_command_on_100k_entries_prints_at_most_30000_characters(
    big_bundle: Path,
) -> None:
    sizes = {}
    for name, argv in BIG_COMMANDS.items():
        done = subprocess.run(
            [str(MLWIKI), *argv, "--bundle", str(big_bundle)],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (name, done.stderr[-500:])
        sizes[name] = len(done.stdout) + len(done.stderr)
    print(sizes)
    assert max(sizes.values()) <= CLI_CAP, sizes


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.slow
@pytest.mark.anyio
async def test_every_mcp_result_stays_within_20000_bytes_on_100k_entries(
    big_bundle: Path, big_walk: Walk
) -> None:
    """Each tool (the run's entries alone are 1.5 MB of JSON before output sizing) and the largest
    resource, the wiki index, with the largest limits a tool takes."""
    pytest.importorskip("mcp")
    from mcp import Client

    from mlwiki.mcp_server import MAX_ROWS, build_server

    walked = big_walk.workdir  # the walk's findings.json and report.md
    bundle = str(big_bundle)
    calls = [
        ("match_logs", {"bundle": bundle, "workload": "bench-run", "limit": MAX_ROWS}),
        ("troubleshoot", {"workload": "bench-run", "bundle": bundle, "limit": MAX_ROWS}),
        ("run_workflow", {"workflow_id": "verify-hbm-oom-runtime",
                          "params": {"workload": "bench-run"}, "bundle": bundle,
                          "limit": MAX_ROWS}),
        ("verify_findings", {"findings_path": str(walked / "findings.json"), "bundle": bundle,
                             "report_path": str(walked / "report.md")}),
        ("list_symptoms", {"limit": MAX_ROWS}),
        ("search_wiki", {"query": "Ran out of memory in memory space hbm", "limit": 100}),
        ("read_page", {"page_id": "hbm-oom-runtime"}),
    ]  # fmt: skip
    sizes = {}
    async with Client(build_server(str(WIKI_ROOT))) as client:
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            assert result.is_error is False, (tool, result.content)
            text = "".join(getattr(block, "text", "") for block in result.content)
            sizes[tool] = len(text.encode())
            assert len(json.dumps(result.structured_content, indent=2).encode()) <= 20_000, tool
        index = await client.read_resource("mlwiki://index")
        sizes["index resource"] = sum(len(c.text.encode()) for c in index.contents)
    print(sizes)
    assert max(sizes.values()) <= 20_000, sizes


# -- /handoff -----------------------------------------------------------------------------------


def _handoff(tmp_path: Path, *args: str) -> Any:
    return run_cli("handoff", *args, "--download-dir", str(tmp_path / "local"), "--format", "json")


def test_handoff_flow_finds_the_bundle_completes_on_rerun_and_knows_its_keys(
    tmp_path: Path, gcs: GcsEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO_ROOT)
    bundle = tmp_path / "bundle"
    shutil.copytree(DEMO, bundle)
    findings = tmp_path / "findings.json"
    # /troubleshoot as the router runs it; then /handoff as the skill runs it (no --bundle).
    done = run_cli("troubleshoot", "llm-pretrain", "--bundle", str(bundle), "--format", "json",
                   "--out", str(findings))  # fmt: skip
    assert done.code == 0, done.stderr
    cited = len(json.loads(findings.read_text())["evidence"])
    first = _handoff(tmp_path, "llm-pretrain", "42", "--bucket", BUCKET, "--findings",
                     str(findings), "--no-watch")  # fmt: skip
    assert first.code == 0, first.stderr
    key = first.json()["storage_key"]
    assert first.json()["evidence"]["entries"] == cited and not first.json()["warnings"]

    # The same findings read somewhere the bundle is not: an incomplete package, said so …
    elsewhere = tmp_path / "moved" / "findings.json"
    elsewhere.parent.mkdir()
    data = json.loads(findings.read_text())
    data["data"]["sources"] = ["gone/bundle"]
    elsewhere.write_text(json.dumps(data))
    thin = _handoff(tmp_path, "llm-pretrain", "43", "--bucket", BUCKET, "--findings",
                    str(elsewhere), "--no-watch")  # fmt: skip
    assert thin.code == 0, thin.stderr
    assert "holds no log entries" in thin.stderr
    thin_key = thin.json()["storage_key"]
    old_evidence = gcs.bucket().blob(f"{thin_key}/evidence.jsonl").download_as_bytes()
    assert old_evidence == b""
    # … and the rerun with the bundle completes that very package, never a dead end.
    full = _handoff(tmp_path, "llm-pretrain", "43", "--bucket", BUCKET, "--findings",
                    str(elsewhere), "--bundle", str(bundle), "--no-watch")  # fmt: skip
    assert full.code == 0, full.stderr
    assert full.json()["storage_key"] == thin_key and "Completed the package" in full.stderr
    bucket = gcs.bucket()
    manifest = json.loads(bucket.blob(f"{thin_key}/manifest.json").download_as_bytes())
    assert manifest["version"] == 2
    replaced = manifest["completes"]["replaced"]
    assert {"evidence.jsonl", "metadata.json", "manifest.json"} <= set(replaced)
    kept = replaced["evidence.jsonl"]["kept_as"]
    assert bucket.blob(f"{thin_key}/{kept}").download_as_bytes() == old_evidence
    lines = bucket.blob(f"{thin_key}/evidence.jsonl").download_as_bytes().splitlines()
    assert len(lines) == cited
    assert kept in manifest["files"]
    # A rerun of the complete package changes nothing; the kept copies are not "replies".
    again = _handoff(tmp_path, "llm-pretrain", "43", "--bucket", BUCKET, "--findings",
                     str(elsewhere), "--bundle", str(bundle), "--no-watch")  # fmt: skip
    assert again.code == 0 and again.json()["uploaded"] == 0
    watch = _handoff(tmp_path, "--watch", thin_key, "--bucket", BUCKET, "--once")
    assert watch.code == 0 and watch.json()["updates"] == []
    # A typo in the key is bad input, not "no new updates".
    typo = _handoff(tmp_path, "--watch", key[:-1] + "x", "--bucket", BUCKET, "--once")
    assert typo.code == 2 and "holds no handoff" in typo.stderr


def test_a_rerun_that_would_take_evidence_away_is_refused(tmp_path: Path, gcs: GcsEmulator) -> None:
    findings = tmp_path / "findings.json"
    assert run_cli("troubleshoot", "llm-pretrain", "--bundle", str(DEMO), "--out",
                   str(findings)).code == 0  # fmt: skip
    first = _handoff(tmp_path, "llm-pretrain", "--bucket", BUCKET, "--findings", str(findings),
                     "--no-watch")  # fmt: skip
    assert first.code == 0, first.stderr
    key = first.json()["storage_key"]
    fewer = tmp_path / "fewer"
    fewer.mkdir()
    entries = json.loads((DEMO / "logs.json").read_text())
    cited = {e["insertId"] for e in json.loads(findings.read_text())["evidence"]}
    dropped = next(iter(sorted(cited)))
    (fewer / "logs.json").write_text(json.dumps([e for e in entries if e["insertId"] != dropped]))
    before = gcs.bucket().blob(f"{key}/evidence.jsonl").download_as_bytes()
    less = _handoff(tmp_path, "llm-pretrain", "--bucket", BUCKET, "--findings", str(findings),
                    "--bundle", str(fewer), "--no-watch")  # fmt: skip
    assert less.code == 2 and "never change or remove what it holds" in less.stderr
    assert gcs.bucket().blob(f"{key}/evidence.jsonl").download_as_bytes() == before


# -- the hooks ----------------------------------------------------------------------------------


def _hook_commands() -> dict[str, str]:
    settings = json.loads((REPO_ROOT / ".claude" / "settings.json").read_text())
    claude = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    agents = json.loads((REPO_ROOT / "_agents" / "hooks.json").read_text())
    antigravity = agents["mlwiki-mutation-gate"]["PreToolUse"][0]["hooks"][0]["command"]
    return {"claude": claude, "antigravity": antigravity}


@pytest.mark.parametrize("workdir", [".", ".agents", "_wiki/symptoms"])
@pytest.mark.parametrize("agent", ["claude", "antigravity"])
def test_both_hooks_hold_from_both_working_directories(agent: str, workdir: str) -> None:
    from mlwiki.doctor_agents import decision_of, payload

    command = _hook_commands()[agent]
    cwd = REPO_ROOT / workdir
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    env["PWD"] = str(cwd)
    for sender in ("claude", "antigravity"):
        for probe, stop in (
            ("kubectl --context=prod drain gke-tpu-node-1 --ignore-daemonsets", True),
            ("mlwiki action cordon-node --param node=gke-tpu-node-1 --approve", True),
            ("mlwiki handoff llm-pretrain --bucket cc-share --findings findings.json", True),
            ("mlwiki troubleshoot llm-pretrain --bundle b --format json", False),
        ):
            done = subprocess.run(
                ["sh", "-c", command], input=json.dumps(payload(sender, probe, cwd, REPO_ROOT)),
                cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            decision, form = decision_of(done.stdout)
            if stop:
                assert (decision, form) == ("ask", sender), (sender, probe, done.stdout)
            else:
                assert decision in (None, "allow"), (sender, probe, done.stdout)


@pytest.mark.slow
def test_doctor_agents_passes_on_the_repository() -> None:
    done = subprocess.run(
        [str(MLWIKI), "doctor", "--agents", "--format", "json"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert done.returncode == 0, [c for c in report["checks"] if c["status"] != "ok"]
    names = {c["name"] for c in report["checks"]}
    assert {"claude hook", "antigravity hook", "permissions: no shadowed allow"} <= names


# -- /dashboard ---------------------------------------------------------------------------------


def test_dashboard_flow_shows_why_a_jobset_failed_and_where_each_workload_runs(
    tmp_path: Path,
) -> None:
    """The skill's command (`mlwiki dashboard TARGET --no-browser`, here on a snapshot): a failed
    JobSet shows its Failed condition even when a warning came later, and every workload its
    accelerator and topology, also one whose template selects nodes by affinity or not at all."""
    import urllib.request

    from tests.fakes.tpu_cluster import realistic_cluster

    snapshot = realistic_cluster().write_snapshot(tmp_path / "cluster")
    events = json.loads((snapshot / "events.json").read_text())
    later = json.loads(json.dumps(events["items"][0]))
    later["metadata"]["name"] += "-later"
    later.update(
        reason="BackOff",
        message="Back-off restarting failed container",
        lastTimestamp="2025-06-01T23:59:00Z",
        firstTimestamp="2025-06-01T23:59:00Z",
    )
    pods = json.loads((snapshot / "pods.json").read_text())["items"]
    pod = next(p for p in pods if p["metadata"]["name"].startswith("spot-finetune-"))
    later["involvedObject"].update(kind="Pod", name=pod["metadata"]["name"])
    events["items"].append(later)
    (snapshot / "events.json").write_text(json.dumps(events))
    jobsets = json.loads((snapshot / "jobsets.json").read_text())
    for jobset in jobsets["items"]:
        if jobset["metadata"]["name"] == "eval-sweep":  # no nodeSelector: the nodes tell
            for replicated in jobset["spec"]["replicatedJobs"]:
                replicated["template"]["spec"]["template"]["spec"].pop("nodeSelector", None)
    (snapshot / "jobsets.json").write_text(json.dumps(jobsets))

    server = subprocess.Popen(
        [str(MLWIKI), "dashboard", "--no-browser", "--snapshot", str(snapshot), "--port", "0"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        url = server.stdout.readline().rsplit(" ", 1)[-1].strip()
        assert url.startswith("http://127.0.0.1:"), url
        base = url.split("/?", 1)[0].rstrip("/")
        with urllib.request.urlopen(f"{base}/api/summary", timeout=30) as response:
            summary = json.loads(response.read())
    finally:
        server.terminate()
        server.wait(timeout=30)
    workloads = {w["name"]: w for w in summary["workloads"]}
    failed = workloads["spot-finetune"]
    assert failed["status"] == "Failed"
    assert failed["reason"].startswith("JobSet failed: ReachedMaxRestarts: jobset failed due to")
    for workload in workloads.values():
        assert workload["accelerator"].startswith("tpu-"), workload["name"]
        assert workload["topology"], workload["name"]
