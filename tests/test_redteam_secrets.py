"""Red team: every secret kind of tests/data/secrets/kinds.jsonl, planted in log entries, must
never leave the machine — not in the uploaded handoff (GCS emulator), not in MCP results, not in
what `troubleshoot`, `match`, `run` and `action` print for agents (redacted by default).

Each case is a family of entries (one, or several for blocks split over entries) in a bundle of
the demo workload. A case *leaks* through a channel when one of its secret fragments appears in
anything that channel produced. Each channel's test lists the leaking cases; it passes with none.
`--no-redact` shows the human the real text (so the fragments are there: the check is real).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WIKI_ROOT, run_cli
from tests.fakes.gcs import BUCKET, GcsEmulator

DATA = Path(__file__).parent / "data" / "secrets"
CASES = [json.loads(line) for line in (DATA / "kinds.jsonl").read_text("utf-8").splitlines()]
TEMPLATE = json.loads((DATA / "incident" / "findings.json").read_text("utf-8"))
WORKLOAD = "llm-pretrain"
POD = "llm-pretrain-slice-0-worker-1-fghij"
NODE = "gke-tpu-node-b"
START, END = "2024-05-01T09:00:00Z", "2024-05-01T11:00:00Z"
# Makes a one-line entry a match of a symptom signature, so match/troubleshoot quote it.
OOM = " RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes."


def test_the_corpus_has_at_least_74_kinds() -> None:
    assert len({case["case"] for case in CASES}) == len(CASES) >= 74


def _timestamp(case_index: int, second: int) -> str:
    total = case_index * 10 + second
    return f"2024-05-01T10:{total // 60:02d}:{total % 60:02d}.000Z"


def _entry(case_index: int, number: int, part: dict[str, Any], oom: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "insertId": f"rt-{case_index:03d}-{number}",
        "logName": "projects/fake-proj/logs/stdout",
        "timestamp": _timestamp(case_index, part.get("second", number)),
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {
                "project_id": "fake-proj",
                "cluster_name": "tpu-cluster",
                "namespace_name": "default",
                "pod_name": POD,
                "container_name": "trainer",
            },
        },
        "labels": {
            "compute.googleapis.com/resource_name": NODE,
            "k8s-pod/jobset_sigs_k8s_io/jobset-name": WORKLOAD,
            **part.get("labels", {}),
        },
    }
    if "json" in part:
        entry["jsonPayload"] = copy.deepcopy(part["json"])
    else:
        text = part["text"]
        entry["textPayload"] = text + OOM if oom and text and "\n" not in text else text
    return entry


def entries_of(case_index: int, oom: bool = True) -> list[dict[str, Any]]:
    parts = CASES[case_index]["entries"]
    return [_entry(case_index, n, part, oom and len(parts) == 1) for n, part in enumerate(parts)]


def write_bundle(path: Path) -> Path:
    lines = [json.dumps(e) for i in range(len(CASES)) for e in entries_of(i)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _message(entry: dict[str, Any]) -> str:
    payload = entry.get("jsonPayload")
    return str(payload.get("message")) if isinstance(payload, dict) else entry["textPayload"]


def findings_citing_everything() -> dict[str, Any]:
    """Schema-valid findings that cite every entry; every other quote is cut inside a secret."""
    findings = copy.deepcopy(TEMPLATE)
    evidence = []
    for index, case in enumerate(CASES):
        for entry in entries_of(index):
            quote = _message(entry)
            fragment = next((s for s in case["secrets"] if s in quote), None)
            if fragment and len(evidence) % 2:
                quote = quote[: quote.index(fragment) + len(fragment) // 2]
            if not quote:
                continue
            evidence.append(
                {
                    "id": f"E{len(evidence) + 1}",
                    "insertId": entry["insertId"],
                    "timestamp": entry["timestamp"],
                    "logName": entry["logName"],
                    "host": NODE,
                    "pod": POD,
                    "symptom": "tpu-hbm-oom",
                    "quote": quote,
                }
            )
    findings["evidence"] = evidence
    findings["root_cause"]["evidence"] = ["E1"]
    for item in (*findings["culprit_hosts"], *findings["failures"]):
        item["evidence"] = ["E1"]
    return findings


def _variants(fragment: str) -> set[str]:
    return {fragment, json.dumps(fragment)[1:-1], json.dumps(json.dumps(fragment))[3:-3]}


def leaks(outputs: list[str], only: set[int] | None = None) -> list[str]:
    """The cases (by name) one of whose fragments appears in any of `outputs`."""
    text = "\n".join(outputs)
    found = []
    for index, case in enumerate(CASES):
        if only is not None and index not in only:
            continue
        if any(v in text for fragment in case["secrets"] for v in _variants(fragment)):
            found.append(case["case"])
    return found


def cases_shown(output: str) -> set[int]:
    """The cases whose entries (by insertId) appear in an output."""
    return {i for i in range(len(CASES)) if f"rt-{i:03d}-" in output}


def test_handoff_package_holds_no_secret_and_still_verifies(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    bundle = write_bundle(tmp_path / "bundle.jsonl")
    findings_path = tmp_path / "findings.json"
    findings_path.write_text(json.dumps(findings_citing_everything()), encoding="utf-8")
    result = run_cli(
        "--wiki", str(WIKI_ROOT), "handoff", WORKLOAD, "777",
        "--bucket", BUCKET, "--findings", str(findings_path), "--bundle", str(bundle),
        "--no-watch", "--format", "json", "--download-dir", str(tmp_path / "local"),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    key = result.json()["storage_key"]
    remote = {
        blob.name: blob.download_as_bytes().decode("utf-8")
        for blob in gcs.client().list_blobs(BUCKET, prefix=f"{key}/")
    }
    assert len(remote) == 6
    assert leaks([*remote.values(), result.stdout, result.stderr]) == []
    local = tmp_path / "local" / key
    assert len(cases_shown(remote[f"{key}/evidence.jsonl"])) == len(CASES)
    review = run_cli(
        "--wiki", str(WIKI_ROOT), "verify", str(local / "findings.json"),
        "--bundle", str(local / "evidence.jsonl"),
    )  # fmt: skip
    assert review.code == 0, review.stdout + review.stderr


def _cli(*args: str) -> str:
    result = run_cli("--wiki", str(WIKI_ROOT), *args)
    assert "Traceback" not in result.stderr
    assert result.code in (0, 3), result.stderr
    return result.stdout + result.stderr


WINDOW = ("--param", f"start={START}", "--param", f"end={END}")


@pytest.mark.parametrize(
    "command",
    [
        ("action", "query-workload-container-logs", "--param", f"workload={WORKLOAD}", *WINDOW,
         "--format", "json"),
        ("action", "query-workload-container-logs", "--param", f"workload={WORKLOAD}", *WINDOW),
        ("run", "verify-hbm-oom-runtime", "--param", f"workload={WORKLOAD}", *WINDOW,
         "--format", "json"),
        ("match", WORKLOAD, "--format", "json"),
        ("match", WORKLOAD),
        ("troubleshoot", WORKLOAD, "--format", "json"),
        ("troubleshoot", WORKLOAD),
    ],
    ids=["action-json", "action-text", "run-json", "match-json", "match-text",
         "troubleshoot-json", "troubleshoot-md"],
)  # fmt: skip
def test_agent_facing_cli_output_is_redacted_by_default(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    bundle = write_bundle(tmp_path / "bundle.jsonl")
    shown = _cli(*command, "--bundle", str(bundle))
    raw = _cli(*command, "--bundle", str(bundle), "--no-redact")
    exposed = cases_shown(raw) if "json" in command else None
    assert leaks([raw], exposed), "--no-redact shows the human the real text"
    assert leaks([shown]) == []


def test_the_json_channels_expose_most_cases(tmp_path: Path) -> None:
    """The channels really carry the planted entries (so 'no leak' means redaction worked)."""
    bundle = write_bundle(tmp_path / "bundle.jsonl")
    # stdout shows the first entries (it is sized for an agent); --out holds every one, and is
    # redacted by default like stdout.
    for redaction, out in (("--no-redact", tmp_path / "raw.json"), (None, tmp_path / "out.json")):
        _cli(
            "action", "query-workload-container-logs", "--param", f"workload={WORKLOAD}",
            *WINDOW, "--format", "json", "--bundle", str(bundle), "--out", str(out),
            *([redaction] if redaction else []),
        )  # fmt: skip
    assert len(cases_shown((tmp_path / "raw.json").read_text())) == len(CASES)
    assert len(cases_shown((tmp_path / "out.json").read_text())) == len(CASES)
    assert leaks([(tmp_path / "out.json").read_text()]) == []
    matched = tmp_path / "matched.json"
    _cli("match", WORKLOAD, "--format", "json", "--bundle", str(bundle), "--no-redact",
         "--out", str(matched))  # fmt: skip
    assert len(cases_shown(matched.read_text())) >= 70


@pytest.mark.anyio
async def test_mcp_results_hold_no_secret(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the MCP server needs Python 3.10+")
    from mcp import Client

    from mlwiki.mcp_server import build_server

    bundle = str(write_bundle(tmp_path / "bundle.jsonl"))
    outputs: list[str] = []
    async with Client(build_server(str(WIKI_ROOT))) as client:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("match_logs", {"bundle": bundle, "workload": WORKLOAD, "limit": 2000}),
            ("troubleshoot", {"workload": WORKLOAD, "bundle": bundle}),
        ]
        # Also in windows of 5 minutes, each run's entries a result of its own.
        for minute in range(0, 25, 5):
            window = {"start": f"2024-05-01T10:{minute:02d}:00Z"}
            window["end"] = f"2024-05-01T10:{minute + 4:02d}:59Z"
            params = {"workload": WORKLOAD, **window}
            calls.append(
                ("run_workflow", {"workflow_id": "verify-hbm-oom-runtime", "params": params,
                                  "bundle": bundle})
            )  # fmt: skip
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            assert result.is_error is False, (tool, result.content)
            outputs.append(json.dumps(result.structured_content))
            outputs.extend(getattr(part, "text", "") for part in result.content)
            # A result is sized for an agent; the rest is a resource, page by page: read it all.
            view = result.structured_content or {}
            for found in (view.get("output"), (view.get("findings") or {}).get("output")):
                if isinstance(found, dict) and found.get("full"):
                    first = str(found["full"])
                    for page in range(1, int(found["pages"]) + 1):
                        read = await client.read_resource(f"{first[:-1]}{page}")
                        outputs.append(read.contents[0].text)
    assert len(cases_shown("\n".join(outputs))) == len(CASES)
    assert leaks(outputs) == []
