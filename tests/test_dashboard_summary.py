"""The dashboard's numbers, from a recorded snapshot of a realistic TPU cluster (no server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlwiki.dashboard.state import SnapshotSource, load_snapshot
from mlwiki.dashboard.summary import summarise
from mlwiki.errors import BadInput
from tests.fakes.tpu_cluster import HOSTILE_MESSAGE, realistic_cluster


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    return realistic_cluster().write_snapshot(tmp_path / "tpu-cluster")


def _by(rows: list[dict], key: str) -> dict:
    return {row[key]: row for row in rows}


def test_capacity_per_accelerator_and_topology(snapshot: Path) -> None:
    data = summarise([load_snapshot(snapshot)]).to_json()
    capacity = {(r["accelerator"], r["topology"]): r for r in data["capacity"]}
    assert set(capacity) == {
        ("tpu-v4-podslice", "2x2x2"),
        ("tpu-v5-lite-podslice", "2x4"),
        ("tpu-v5p-slice", "2x2x4"),
        ("tpu-v6e-slice", "4x4"),
    }
    # Two v5p slices of 4 hosts × 4 chips, all held by llm-pretrain; one host NotReady.
    v5p = capacity[("tpu-v5p-slice", "2x2x4")]
    assert (v5p["nodes"], v5p["chips_total"], v5p["chips_used"], v5p["chips_free"]) == (
        8,
        32,
        32,
        0,
    )
    assert v5p["nodes_not_ready"] == 1
    # Spot v6e: the failed JobSet holds nothing; one host has the impending-termination taint,
    # so its 4 chips are unavailable rather than free.
    v6e = capacity[("tpu-v6e-slice", "4x4")]
    assert (v6e["chips_total"], v6e["chips_used"], v6e["chips_free"], v6e["chips_unavailable"]) == (
        16,
        0,
        12,
        4,
    )
    assert (v6e["spot_nodes"], v6e["nodes_maintenance"]) == (4, 1)
    # Single-host v5e: 3 hosts × 8 chips, crash-looping pods still hold them; one in maintenance.
    v5e = capacity[("tpu-v5-lite-podslice", "2x4")]
    assert (v5e["nodes"], v5e["chips_total"], v5e["chips_used"], v5e["nodes_maintenance"]) == (
        3,
        24,
        24,
        1,
    )
    # The CPU pool is no TPU capacity.
    assert sum(r["nodes"] for r in data["capacity"]) == 16
    assert data["clusters"][0]["project"] == "demo-proj"  # from the nodes' providerID


def test_node_pools_are_slices_with_health(snapshot: Path) -> None:
    pools = _by(summarise([load_snapshot(snapshot)]).to_json()["node_pools"], "name")
    assert pools["v5p-slice-a"]["health"] == "healthy"
    assert pools["v5p-slice-a"]["issues"] == []
    assert (pools["v5p-slice-a"]["nodes"], pools["v5p-slice-a"]["expected_nodes"]) == (4, 4)
    assert pools["v5p-slice-b"]["health"] == "degraded"
    assert pools["v5p-slice-b"]["issues"] == ["1 node not ready"]
    assert pools["v4-slice"]["issues"] == ["1/2 nodes of the slice"]
    assert pools["v5e-single"]["expected_nodes"] == 1  # single-host: any number of nodes is fine
    assert pools["v5e-single"]["issues"] == ["1 node under maintenance or terminating"]
    assert pools["v6e-spot"]["spot"] is True
    assert "default-pool" not in pools


def test_workloads_status_restarts_reason_and_command(snapshot: Path) -> None:
    workloads = _by(summarise([load_snapshot(snapshot)]).to_json()["workloads"], "name")
    assert set(workloads) == {"llm-pretrain", "spot-finetune", "eval-sweep"}  # data-prep has no TPU
    failed = workloads["spot-finetune"]
    assert (failed["status"], failed["restarts"]) == ("Failed", 3)
    assert "ReachedMaxRestarts" in failed["reason"]
    assert failed["troubleshoot"] == "/troubleshoot spot-finetune"
    crashing = workloads["eval-sweep"]
    assert crashing["status"] == "Failing"
    assert crashing["reason"].startswith("Error (exit 139) in pod eval-sweep-slice-job-0-0-")
    running = workloads["llm-pretrain"]
    assert (running["status"], running["restarts"], running["pods_running"], running["chips"]) == (
        "Running",
        1,
        8,
        32,
    )
    assert running["cli"] == "mlwiki troubleshoot llm-pretrain --project demo-proj"


def test_events_are_warnings_newest_first_and_limited(snapshot: Path) -> None:
    events = summarise([load_snapshot(snapshot)], events_limit=2).to_json()["events"]
    assert len(events) == 2
    assert events[0]["message"] == HOSTILE_MESSAGE  # kept verbatim; escaping is the page's job
    assert events[0]["time"] > events[1]["time"]
    everything = summarise([load_snapshot(snapshot)]).to_json()["events"]
    assert all(e["reason"] != "Pulled" for e in everything)  # Normal events are left out


@pytest.mark.parametrize(
    ("target", "kind", "workloads", "accelerators"),
    [
        ("demo-proj", "project", 3, 4),
        ("tpu-cluster", "cluster", 3, 4),
        ("llm-pretrain", "workload", 1, 1),
        ("eval-sweep", "workload", 1, 1),
    ],
)
def test_target_selects_project_cluster_or_workload(
    snapshot: Path, target: str, kind: str, workloads: int, accelerators: int
) -> None:
    data = summarise([load_snapshot(snapshot)], target=target).to_json()
    assert data["target_kind"] == kind
    assert len(data["workloads"]) == workloads
    assert len(data["capacity"]) == accelerators
    assert data["notice"] == ""


def test_workload_target_shows_its_pools_and_events(snapshot: Path) -> None:
    data = summarise([load_snapshot(snapshot)], target="spot-finetune").to_json()
    assert [p["name"] for p in data["node_pools"]] == ["v6e-spot"]
    assert [e["reason"] for e in data["events"]] == ["RestartJobSetFailurePolicyAction"]


def test_unknown_target_says_so(snapshot: Path) -> None:
    data = summarise([load_snapshot(snapshot)], target="no-such-thing").to_json()
    assert data["workloads"] == [] and data["capacity"] == []
    assert "no-such-thing" in data["notice"]


def test_snapshot_errors_name_the_file(tmp_path: Path, snapshot: Path) -> None:
    (snapshot / "pods.json").write_text('{"items": [\n  {"a": 1},\n  oops]}', encoding="utf-8")
    with pytest.raises(BadInput, match=r"pods\.json:3: not JSON"):
        load_snapshot(snapshot)
    (snapshot / "pods.json").write_text('{"items": 5}', encoding="utf-8")
    with pytest.raises(BadInput, match=r"pods\.json: field 'items'"):
        load_snapshot(snapshot)
    (snapshot / "pods.json").unlink()
    with pytest.raises(BadInput, match=r"pods\.json: missing"):
        load_snapshot(snapshot)
    with pytest.raises(BadInput, match="not a directory"):
        load_snapshot(tmp_path / "nowhere")


def test_snapshot_without_jobsets_or_events_still_loads(snapshot: Path) -> None:
    (snapshot / "jobsets.json").unlink()
    (snapshot / "events.json").unlink()
    data = summarise([load_snapshot(snapshot)]).to_json()
    assert data["workloads"] == [] and data["events"] == []
    assert len(data["capacity"]) == 4


def test_snapshot_source_rereads_on_refresh(snapshot: Path) -> None:
    source = SnapshotSource(snapshot)
    nodes = json.loads((snapshot / "nodes.json").read_text())
    nodes["items"] = nodes["items"][:1]
    (snapshot / "nodes.json").write_text(json.dumps(nodes))
    assert len(source.states()[0].nodes) == 18
    assert len(source.states(refresh=True)[0].nodes) == 1
