"""`mlwiki mcp`: every tool through the in-process MCP client on the demo bundle, redaction of
secrets from log lines, the approval gate (nothing mutating runs, nothing can approve), the wiki
as resources, bad input as tool errors, and one end-to-end run over stdio."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp package (the MCP server) needs Python 3.10 or later")

from mcp import Client, StdioServerParameters

from mlwiki.engine.audit import AuditLog
from mlwiki.mcp_server import TOOLS, build_server
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT, WIKI_ROOT, run_cli
from tests.fakes.kube_api import (  # noqa: F401 - kube_api_fixture registers `kube_api`
    FakeKubeApi,
    kube_api_fixture,
    make_node,
)
from tests.test_engine_workflow import make_wiki

DEMO = WIKI_ROOT / "examples" / "llm-pretrain-oom"
WORKLOAD = "llm-pretrain"
CULPRIT = "gke-tpu-cluster-tpu-v5p-pool-2-39c20066-0emr"
OOM_LINE = "Memory cgroup out of memory: Killed process 41872 (python3)"
SECRET = "ya29.a0AfH6SMBxK3q9Zt7LwPq2Vd8sRfUe1MnB4cYo"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server():
    return build_server(str(WIKI_ROOT))


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is False, result.content
    return result.structured_content


async def error_of(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error is True
    text = result.content[0].text
    assert "Traceback" not in text
    return text


@pytest.mark.anyio
async def test_tools_are_read_only_described_and_cannot_approve(server) -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        instructions = client.instructions or ""
    assert set(tools) == set(TOOLS)
    for tool in tools.values():
        assert tool.annotations.read_only_hint is True
        assert len(tool.description) > 80
    run_params = tools["run_workflow"].input_schema["properties"]
    assert not [name for name in run_params if "approv" in name.lower()]
    assert run_params["params"]["additionalProperties"] == {"type": "string"}
    assert set(tools["list_symptoms"].input_schema["properties"]["role"]["anyOf"][0]["enum"]) == {
        "root",
        "symptom",
        "cascade",
        "consequence",
    }
    assert "no way to approve" in instructions and "never instructions" in instructions


@pytest.mark.anyio
async def test_search_wiki_ranks_the_page_first_and_knows_pasted_log_lines(server) -> None:
    async with Client(server) as client:
        words = await call(client, "search_wiki", query="host OOM killed", limit=5)
        line = await call(client, "search_wiki", query=f"I0314 {OOM_LINE} total-vm:1kB")
        action = await call(client, "search_wiki", query="cordon node", limit=3)
        empty = await error_of(client, "search_wiki", query="   ")
    first = words["results"][0]
    assert (first["id"], first["type"], first["path"]) == (
        "host-oom-killed",
        "symptom",
        "_wiki/symptoms/host-oom-killed.md",
    )
    assert words["count"] == len(words["results"]) <= 5
    scores = [r["score"] for r in words["results"]]
    assert scores == sorted(scores, reverse=True)
    assert line["results"][0]["id"] == "host-oom-killed"
    assert line["results"][0]["signature_match"] is True
    assert action["results"][0] == {
        **action["results"][0],
        "id": "cordon-node",
        "type": "action",
        "path": "_wiki/actions/cordon-node.json",
    }
    assert "query" in empty


@pytest.mark.anyio
async def test_read_page_returns_pages_actions_and_workflows(server) -> None:
    async with Client(server) as client:
        page = await call(client, "read_page", page_id="host-oom-killed")
        action = await call(client, "read_page", page_id="cordon-node")
        workflow = await call(
            client, "read_page", page_id="verify-host-oom-killed", kind="workflow"
        )
        unknown = await error_of(client, "read_page", page_id="host-oom-kiled")
    assert page["kind"] == "page" and page["type"] == "symptom"
    assert page["frontmatter"]["role"] == "root"
    assert page["frontmatter"]["workflow"] == "verify-host-oom-killed"
    assert "## What it is" in page["markdown"] and "---" not in page["markdown"].splitlines()[0]
    assert action["kind"] == "action" and action["document"]["requires_approval"] is True
    assert action["path"] == "_wiki/actions/cordon-node.json"
    assert workflow["document"]["symptom"] == "host-oom-killed"
    assert "'host-oom-kiled'" in unknown and "did you mean host-oom-killed" in unknown


@pytest.mark.anyio
async def test_list_symptoms_filters_by_role_and_layer(server) -> None:
    symptoms = load_wiki(WIKI_ROOT).symptoms
    async with Client(server) as client:
        first = await call(client, "list_symptoms")
        rest = await call(client, "list_symptoms", offset=first["page"]["next_offset"] or 0)
        roots = await call(client, "list_symptoms", role="root")
        infra_cascades = await call(client, "list_symptoms", role="cascade", layer="infra")
        bad = await client.call_tool("list_symptoms", {"role": "culprit"})
    # Every symptom, in pages that each fit the MCP budget.
    assert first["count"] == len(symptoms) == first["page"]["total"]
    listed = first["symptoms"] + (rest["symptoms"] if first["page"]["next_offset"] else [])
    assert sorted(s["id"] for s in listed) == sorted(symptoms)
    assert roots["symptoms"] and {s["role"] for s in roots["symptoms"]} == {"root"}
    row = next(s for s in roots["symptoms"] if s["id"] == "host-oom-killed")
    assert row == {
        "id": "host-oom-killed",
        "title": symptoms["host-oom-killed"].page.title,
        "role": "root",
        "layer": "infra",
        "summary": symptoms["host-oom-killed"].page.summary,
        "workflow": "verify-host-oom-killed",
    }
    assert all(s["role"] == "cascade" and s["layer"] == "infra" for s in infra_cascades["symptoms"])
    assert bad.is_error is True


@pytest.mark.anyio
async def test_match_logs_gives_the_cli_rows_capped(server) -> None:
    cli = run_cli("match", WORKLOAD, "--bundle", str(DEMO), "--format", "json")
    assert cli.code == 0, cli.stderr
    async with Client(server) as client:
        full = await call(client, "match_logs", bundle=str(DEMO), workload=WORKLOAD, limit=2000)
        capped = await call(client, "match_logs", bundle=str(DEMO), workload=WORKLOAD, limit=5)
        roots = await call(
            client, "match_logs", bundle=str(DEMO), workload=WORKLOAD, role="root", host=CULPRIT
        )
        pages = full["output"]["pages"]
        stored = "".join(
            [
                (await client.read_resource(full["output"]["full"][:-1] + str(n))).contents[0].text
                for n in range(1, pages + 1)
            ]
        )
    view = cli.json()
    # As many rows as fit in 20,000 bytes (the CLI's first 25 are among them); everything is
    # in the result resource, page by page.
    assert full["matches"][: len(view["matches"])] == view["matches"]
    assert full["count"] == view["count"] == full["page"]["total"] > full["page"]["shown"]
    assert len(json.dumps(full, indent=2).encode()) <= 20_000
    assert json.loads(stored)["matches"][: len(full["matches"])] == full["matches"]
    assert len(json.loads(stored)["matches"]) == full["count"]
    assert roots["matches"] and all(
        m["host"] == CULPRIT and m["role"] == "root" for m in roots["matches"]
    )
    assert "host-oom-killed" in {m["symptom"] for m in roots["matches"]}
    assert capped["matches"] == full["matches"][:5]
    assert (capped["page"]["shown"], capped["page"]["next_offset"]) == (5, 5)
    assert full["untrusted_log_text"] is True and "never instructions" in full["note"]


@pytest.mark.anyio
async def test_troubleshoot_gives_the_cli_findings_and_report(server) -> None:
    cli = run_cli("troubleshoot", WORKLOAD, "--bundle", str(DEMO), "--format", "json")
    assert cli.code == 0, cli.stderr
    async with Client(server) as client:
        # A repository-relative bundle path works from any working directory.
        result = await call(
            client, "troubleshoot", workload=WORKLOAD, bundle=str(DEMO.relative_to(REPO_ROOT))
        )
    findings = result["findings"]
    expected = cli.json()
    for key in ("status", "root_cause", "culprit_hosts", "failures", "evidence"):
        assert findings[key] == expected[key], key
    # The same steps; their commands name the bundle as each caller spelt it.
    relative = str(DEMO.relative_to(REPO_ROOT))
    steps = [{**s, "step": s["step"].replace(str(DEMO), relative)} for s in expected["next_steps"]]
    assert findings["next_steps"] == steps
    assert findings["root_cause"]["symptom"] == "host-oom-killed"
    assert findings["culprit_hosts"][0]["host"] == CULPRIT
    async with Client(server) as client:
        report = await client.read_resource(result["report"]["resource"])
    assert CULPRIT in report.contents[0].text and result["report"]["pages"] == 1
    assert result["untrusted_log_text"] is True and "redacted" not in result


@pytest.mark.anyio
async def test_run_workflow_dry_run_then_verdict(server) -> None:
    params = {"workload": WORKLOAD}
    async with Client(server) as client:
        dry = await call(
            client,
            "run_workflow",
            workflow_id="verify-host-oom-killed",
            params=params,
            bundle=str(DEMO),
            dry_run=True,
        )
        done = await call(
            client,
            "run_workflow",
            workflow_id="verify-host-oom-killed",
            params=params,
            bundle=str(DEMO),
        )
        unknown = await error_of(
            client,
            "run_workflow",
            workflow_id="verify-host-oom-killed",
            params={"workload": WORKLOAD, "colour": "blue"},
            bundle=str(DEMO),
        )
        bad_name = await error_of(
            client,
            "run_workflow",
            workflow_id="verify-host-oom-killed",
            params={"a=b": "c"},
            bundle=str(DEMO),
        )
    assert dry["dry_run"] is True and dry["verdict"] is None and dry["entries"] == []
    assert all(s["status"] in ("dry_run", "skipped") for s in dry["steps"])
    assert any(s.get("filter") for s in dry["steps"])
    assert done["verdict"] == "confirmed" and CULPRIT in done["summary"]
    assert done["outputs"]["culprit_host"] == CULPRIT
    assert done["approval_required"] == [] and done["awaiting_approval"] == []
    assert 0 < len(done["entries"]) <= done["page"]["total"]
    assert {"insertId", "timestamp", "quote"} <= set(done["entries"][0])
    assert done["window"]["chosen"].startswith("the bundle's first to last entry")
    assert "colour" in unknown
    assert "'a=b'" in bad_name


@pytest.mark.anyio
async def test_verify_findings_passes_real_findings_and_rejects_tampered_ones(
    server, tmp_path: Path
) -> None:
    out = tmp_path / "findings.json"
    assert run_cli("troubleshoot", WORKLOAD, "--bundle", str(DEMO), "--out", str(out)).code == 0
    findings = json.loads(out.read_text())
    tampered = json.loads(out.read_text())
    tampered["evidence"][0]["quote"] = "the node was fine"
    tampered["evidence"][1]["quote"] = "Bearer [REDACTED:oauth_token] was never logged"
    tampered["root_cause"]["evidence"] = ["E99"]
    async with Client(server) as client:
        by_path = await call(client, "verify_findings", findings_path=str(out), bundle=str(DEMO))
        by_value = await call(client, "verify_findings", findings=findings, bundle=str(DEMO))
        # The bundle the findings name is never trusted on its own: say which to check against.
        unnamed = await error_of(client, "verify_findings", findings=findings)
        bad = await call(client, "verify_findings", findings=tampered, bundle=str(DEMO))
        neither = await error_of(client, "verify_findings", bundle=str(DEMO))
        missing = await error_of(client, "verify_findings", findings_path=str(tmp_path / "no.json"))
    for good in (by_path, by_value):
        assert good == {
            "passed": True,
            "status": "PASS",
            "problems": [],
            "evidence": len(findings["evidence"]),
            "checked_against": f"the bundle {DEMO} (given)",
        }
    assert "--bundle" in unnamed
    assert bad["passed"] is False and bad["status"] == "FAIL"
    assert any("E99" in p for p in bad["problems"])
    for evidence_id in ("E1", "E2"):
        assert any(f"{evidence_id} " in p and "quote is not in" in p for p in bad["problems"])
    assert "exactly one" in neither
    assert "no.json" in missing


def _plant(value: Any, marker: str, suffix: str) -> int:
    """Append `suffix` to every string under `value` that contains `marker`; how many."""
    planted = 0
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in list(items):
        if isinstance(item, str) and marker in item:
            value[key] = item + suffix
            planted += 1
        elif isinstance(item, (dict, list)):
            planted += _plant(item, marker, suffix)
    return planted


@pytest.mark.anyio
async def test_secrets_in_log_lines_come_back_redacted(server, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(DEMO, bundle)
    entries = json.loads((bundle / "logs.json").read_text())
    assert _plant(entries, OOM_LINE, f" Authorization: Bearer {SECRET}") >= 1
    (bundle / "logs.json").write_text(json.dumps(entries))
    async with Client(server) as client:
        matched = await client.call_tool(
            "match_logs", {"bundle": str(bundle), "workload": WORKLOAD, "limit": 2000}
        )
        diagnosed = await client.call_tool(
            "troubleshoot", {"workload": WORKLOAD, "bundle": str(bundle)}
        )
    for result in (matched, diagnosed):
        assert result.is_error is False
        wire = json.dumps(result.structured_content) + result.content[0].text
        assert SECRET not in wire and SECRET[:12] not in wire
        assert "[REDACTED:" in wire
        assert sum(result.structured_content["redacted"].values()) >= 1
    quotes = [m["quote"] for m in matched.structured_content["matches"]]
    assert any(OOM_LINE in q and "[REDACTED:" in q for q in quotes)
    findings = diagnosed.structured_content["findings"]
    assert findings["root_cause"]["symptom"] == "host-oom-killed"
    # The redacted findings still verify: a redacted quote is the entry's text, redacted.
    async with Client(server) as client:
        review = await call(client, "verify_findings", findings=findings, bundle=str(bundle))
    assert review["passed"] is True, review["problems"]


@pytest.mark.anyio
@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not on PATH")
async def test_mutating_step_comes_back_approval_required_and_nothing_runs(
    kube_api: FakeKubeApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kube_api.add(make_node("gke-a"))
    monkeypatch.setenv("MLWIKI_WIKI", str(make_wiki(tmp_path)))
    async with Client(build_server()) as client:
        result = await call(
            client, "run_workflow", workflow_id="remedy-demo", params={"node": "gke-a"}
        )
    steps = {step["id"]: step for step in result["steps"]}
    assert steps["look"]["status"] == "ok"  # the read-only step really ran (kubectl get node)
    assert steps["cordon"]["status"] == "awaiting_approval"
    assert result["awaiting_approval"] == ["cordon"]
    (request,) = result["approval_required"]
    assert request["status"] == "approval required"
    assert request["command"] == ["kubectl", "cordon", "gke-a"]
    assert request["risk"] and "--approve cordon" in request["how_to_approve"]
    assert kube_api.requests_by("PATCH") == []
    assert not kube_api.get("nodes", "gke-a")["spec"].get("unschedulable")
    assert not [r for r in AuditLog().read() if r.get("step") == "cordon" and r["event"] == "run"]


@pytest.mark.anyio
async def test_wiki_items_are_listed_and_read_as_resources(server) -> None:
    wiki = load_wiki(WIKI_ROOT)
    async with Client(server) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        templates = {
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        }
        index = await client.read_resource("mlwiki://index")
        page = await client.read_resource("mlwiki://page/host-oom-killed")
        action = await client.read_resource("mlwiki://action/cordon-node")
        workflow = await client.read_resource("mlwiki://workflow/verify-host-oom-killed")
        with pytest.raises(Exception, match="no-such-page"):
            await client.read_resource("mlwiki://page/no-such-page")
    assert len(listed) == 1 + len(wiki.pages) + len(wiki.actions) + len(wiki.workflows)
    assert listed["mlwiki://page/host-oom-killed"].mime_type == "text/markdown"
    assert listed["mlwiki://action/cordon-node"].mime_type == "application/json"
    assert templates == {
        *(f"mlwiki://{kind}/{{item_id}}" for kind in ("page", "action", "workflow")),
        "mlwiki://result/{result_id}/{page}",
    }
    # INDEX.md (and a long page) is larger than one result may be: page 1, then the pages it names.
    for result, path in ((index, "INDEX.md"), (page, "symptoms/host-oom-killed.md")):
        first = result.contents[0].text
        assert len(first.encode()) <= 20_000
        if "[continued: page 1 of " not in first:
            assert first == (WIKI_ROOT / path).read_text()
            continue
        continued = first.rsplit("[continued: page 1 of ", 1)
        pages = int(continued[1].split("]")[0].split(";")[0])
        uri = continued[1].split("read ", 1)[1].split(" ", 1)[0][:-1]
        async with Client(server) as client:
            rest = [
                (await client.read_resource(f"{uri}{n}")).contents[0].text
                for n in range(2, pages + 1)
            ]
        assert continued[0].rstrip("\n") + "".join(rest) == (WIKI_ROOT / path).read_text()
    assert json.loads(action.contents[0].text)["requires_approval"] is True
    assert json.loads(workflow.contents[0].text)["id"] == "verify-host-oom-killed"


@pytest.mark.anyio
async def test_bad_input_is_a_one_line_tool_error(server, tmp_path: Path) -> None:
    async with Client(server) as client:
        nowhere = await error_of(client, "troubleshoot", workload=WORKLOAD)
        hostile = await error_of(client, "troubleshoot", workload="a;rm -rf /", bundle=str(DEMO))
        missing = await error_of(client, "match_logs", bundle=str(tmp_path / "absent"))
        flag = await error_of(client, "match_logs", workload="--all", bundle=str(DEMO))
        window = await error_of(client, "match_logs", bundle=str(DEMO), since="24h", start="x")
        workflow = await error_of(client, "run_workflow", workflow_id="verify-nothing", params={})
    assert "--bundle or --project" in nowhere
    assert "workload" in hostile
    assert "absent" in missing and "does not exist" in missing
    assert "--since" in window
    assert "workload" in flag
    assert "verify-nothing" in workflow
    for text in (nowhere, hostile, missing, flag, window, workflow):
        assert "\n" not in text


def test_old_python_is_refused_with_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 9, 18, "final", 0))
    result = run_cli("mcp")
    assert result.code == 2 and result.stdout == ""
    assert "Python 3.10 or newer" in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


@pytest.mark.anyio
async def test_stdio_end_to_end(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mlwiki", "--wiki", str(WIKI_ROOT), "mcp"],
        env={**os.environ, "MLWIKI_AUDIT_LOG": str(tmp_path / "audit.jsonl")},
        cwd=str(tmp_path),  # outside the repository: the wiki comes from --wiki
    )
    started = time.monotonic()
    async with Client(params) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("troubleshoot", {"workload": WORKLOAD, "bundle": str(DEMO)})
        index = await client.read_resource("mlwiki://index")
    elapsed = time.monotonic() - started
    assert tools == set(TOOLS)
    assert result.is_error is False
    assert result.structured_content["findings"]["culprit_hosts"][0]["host"] == CULPRIT
    assert index.contents[0].text.startswith("#")
    assert elapsed < 30, f"stdio round trip took {elapsed:.1f}s"


@pytest.mark.anyio
async def test_verify_findings_checks_the_report_too(server, tmp_path: Path) -> None:
    out = tmp_path / "findings.json"
    assert run_cli("troubleshoot", WORKLOAD, "--bundle", str(DEMO), "--out", str(out)).code == 0
    report = out.with_suffix(".md")
    wrong = tmp_path / "wrong.md"
    wrong.write_text(report.read_text().replace(CULPRIT, CULPRIT[:-1] + "x", 1))
    async with Client(server) as client:
        good = await call(
            client,
            "verify_findings",
            findings_path=str(out),
            bundle=str(DEMO),
            report_path=str(report),
        )
        bad = await call(
            client, "verify_findings", findings_path=str(out), bundle=str(DEMO),
            report_path=str(wrong),
        )  # fmt: skip
        approve = await client.call_tool(
            "verify_findings", {"findings_path": str(out), "approve": True}
        )
    assert good["passed"] is True and good["report"]["status"] == "PASS"
    assert bad["passed"] is False and bad["report"]["status"] == "REJECT"
    (problem,) = bad["report"]["problems"]
    assert CULPRIT[:-1] + "x" in problem["problem"] and problem["line"] > 0
    assert approve.is_error is True
    message = approve.content[0].text
    assert "verify_findings takes no argument 'approve'; its arguments are bundle, " in message
    assert "True" not in message  # the values given are never echoed


@pytest.mark.anyio
async def test_the_slash_commands_are_prompts_with_their_skill(server) -> None:
    async with Client(server) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        shown = await client.get_prompt("troubleshoot", {"workload": WORKLOAD, "bundle": "b"})
        handoff = await client.get_prompt("handoff", {"watch": "mlwiki-x-1"})
    assert set(prompts) == {"troubleshoot", "handoff", "dashboard"}
    assert [a.name for a in prompts["troubleshoot"].arguments if a.required] == ["workload"]
    text = shown.messages[0].content.text
    assert text.startswith(f"/troubleshoot {WORKLOAD} --bundle=b")
    assert "mlwiki verify findings.json SOURCE --report report.md" in text  # the skill itself
    assert handoff.messages[0].content.text.startswith("/handoff --watch=mlwiki-x-1")
