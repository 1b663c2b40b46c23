"""Offline bundles into the entry store: windows, ordering, dedup, synthetic ids, bad input."""

from __future__ import annotations

import copy
import gzip
import json
import tracemalloc
from pathlib import Path

import orjson
import pytest

from mlwiki.errors import BadInput
from mlwiki.logs.bundle import load_bundle
from mlwiki.logs.query import compile_filter
from mlwiki.logs.session import LogSession
from mlwiki.logs.store import EntryStore, synthetic_insert_id
from mlwiki.timewindow import Window, timestamp_ns
from tests.fakes.log_entries import END, START, WORKLOAD, incident_entries


def write_array(path: Path, entries: list[dict]) -> Path:
    path.write_text(json.dumps(entries, indent=2))
    return path


def ordered_ids(entries: list[dict]) -> list[str]:
    return [
        e["insertId"]
        for e in sorted(entries, key=lambda e: (timestamp_ns(e["timestamp"]), e["insertId"]))
    ]


def test_array_and_gzipped_jsonl_directory_give_the_same_store(tmp_path: Path) -> None:
    entries = incident_entries()
    array = write_array(tmp_path / "logs.json", entries)
    folder = tmp_path / "bundle"
    (folder / "kubectl").mkdir(parents=True)
    (folder / "kubectl" / "pods.json").write_text('{"items": []}')
    half = len(entries) // 2
    with gzip.open(folder / "a.jsonl.gz", "wt") as stream:
        stream.writelines(json.dumps(e) + "\n" for e in entries[:half])
    (folder / "b.jsonl").write_text("\n".join(json.dumps(e) for e in entries[half:]) + "\n\n")
    store_a, report_a = load_bundle(array)
    store_b, report_b = load_bundle(folder)
    assert [e["insertId"] for e in store_a.entries()] == ordered_ids(entries)
    assert list(store_a.entries()) == list(store_b.entries())
    assert report_a.entries == report_b.entries == len(entries)
    assert report_b.sources == [str(folder / "a.jsonl.gz"), str(folder / "b.jsonl")]
    assert report_a.partial is False and report_a.to_dict()["source"] == "bundle"


def test_window_skips_and_counts_entries_outside(tmp_path: Path) -> None:
    entries = incident_entries()
    window = Window(START, END)
    store, report = load_bundle(write_array(tmp_path / "logs.json", entries), window)
    inside = [e for e in entries if window.contains_ns(timestamp_ns(e["timestamp"]))]
    assert len(store) == len(inside) == len(entries) - 2
    assert report.outside_window == 2
    assert report.to_dict()["window"] == {
        "start": "2024-05-01T10:00:00Z",
        "end": "2024-05-01T12:00:00Z",
    }


def test_duplicates_are_kept_once_and_ties_order_by_insert_id(tmp_path: Path) -> None:
    base = {"logName": "projects/p/logs/x", "timestamp": "2024-05-01T10:00:00Z", "textPayload": "t"}
    entries = [dict(base, insertId="b"), dict(base, insertId="a"), dict(base, insertId="b")]
    store, report = load_bundle(write_array(tmp_path / "logs.json", entries))
    assert [e["insertId"] for e in store.entries()] == ["a", "b"]
    assert report.duplicates == 1


def test_entries_without_insert_id_get_a_stable_synthetic_one(tmp_path: Path) -> None:
    entry = {
        "logName": "projects/p/logs/x",
        "timestamp": "2024-05-01T10:00:00Z",
        "textPayload": "no id",
    }
    expected = synthetic_insert_id(copy.deepcopy(entry))
    assert expected.startswith("mlwiki-") and len(expected) == len("mlwiki-") + 20
    path = write_array(tmp_path / "logs.json", [entry])
    first = next(load_bundle(path)[0].entries())
    second = next(load_bundle(path)[0].entries())
    assert first["insertId"] == second["insertId"] == expected


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "bad.jsonl",
            '{"timestamp": "2024-05-01T10:00:00Z"}\n{"timestamp": oops}\n',
            "bad.jsonl:2:15: invalid JSON",
        ),
        (
            "bad.json",
            '[\n{"timestamp": "2024-05-01T10:00:00Z"},\n{"timestamp": \n',
            "bad.json:4: invalid JSON",
        ),
        (
            "bad.json",
            '[\n{"timestamp": "2024-05-01T10:00:00Z"}\n{"x": 1}]',
            "bad.json:3: expected ',' or ']'",
        ),
        ("bad.jsonl", '{"textPayload": "no time"}\n', "bad.jsonl:1: log entry has no 'timestamp'"),
        (
            "bad.jsonl",
            '\n\n{"timestamp": "yesterday"}\n',
            "bad.jsonl:3: 'timestamp' 'yesterday' is not an RFC 3339",
        ),
        ("bad.jsonl", "[1]\n", "bad.json"),
    ],
)
def test_bad_bundles_name_file_and_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    (tmp_path / name).write_text(content)
    with pytest.raises(BadInput) as raised:
        load_bundle(tmp_path / name)
    assert message in str(raised.value)


def test_missing_bundle_and_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"--bundle: .* does not exist"):
        load_bundle(tmp_path / "nope")
    with pytest.raises(BadInput, match="no log files"):
        load_bundle(tmp_path)


@pytest.mark.parametrize(
    "text",
    [
        'resource.type="k8s_container" AND timestamp>="2024-05-01T10:30:00Z" AND timestamp<="2024-05-01T10:31:00Z"',
        'resource.type=("k8s_node" OR "gce_instance")',
        'log_id("events") jsonPayload.reason=("Killing" OR "Restarting")',
        f'labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"="{WORKLOAD}" textPayload=~"step: 29[0-9]"',
        'timestamp="2024-05-01T10:55:00.000000003Z"',
        # The host and pod indexes (case-insensitive, as Cloud Logging compares), alone and
        # with the other narrowing conditions.
        'labels."compute.googleapis.com/resource_name"="GKE-TPU-7f3a-2"',
        'resource.labels.node_name="gke-tpu-7f3a-2" OR resource.labels.node_name="gke-tpu-7f3a-0"',
        'resource.type="k8s_container" resource.labels.pod_name=("llm-pretrain-slice-1-0-x10q" '
        'OR "OTHER-job-0-0-abc") timestamp>="2024-05-01T10:30:00Z"',
        # The log index: log_id (an OR of them) and a logName equality.
        'log_id("events") jsonPayload.reason="Killing"',
        '(log_id("cloudaudit.googleapis.com/system_event") OR log_id("events")) '
        'timestamp>="2024-05-01T10:30:00Z"',
        'logName="PROJECTS/demo-proj/logs/cloudaudit.googleapis.com%2Fsystem_event"',
    ],
)
def test_store_query_equals_a_full_scan(text: str) -> None:
    entries = incident_entries()
    store = EntryStore()
    store.extend(copy.deepcopy(entries))
    compiled = compile_filter(text)
    expected = ordered_ids([e for e in entries if compiled.matches(e)])
    assert expected, "the example filter should match something"
    assert [e["insertId"] for e in store.query(compiled)] == expected


def test_session_from_bundle_answers_queries(tmp_path: Path) -> None:
    session = LogSession.from_bundle(
        write_array(tmp_path / "logs.json", incident_entries()), Window(START, END)
    )
    result = session.query(
        'log_id("cloudaudit.googleapis.com/system_event") protoPayload.methodName:preempted'
    )
    assert result.count == 1 and result.partial is False and result.reason is None
    assert result.entries[0]["protoPayload"]["resourceName"].endswith("/instances/gke-tpu-7f3a-2")
    assert session.store.hosts()[:2] == ["gke-other-1", "gke-tpu-7f3a-0"]


def test_store_is_compact() -> None:
    entries = [entry for _ in range(8) for entry in incident_entries()]
    for number, entry in enumerate(entries):
        entry["insertId"] = f"n{number}"
    json_size = sum(len(orjson.dumps(e)) for e in entries)
    blobs = [orjson.dumps(e) for e in entries]
    tracemalloc.start()
    store = EntryStore()
    for blob in blobs:
        store.add(orjson.loads(blob))
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(store) == len(entries)
    assert current < 2 * json_size, f"{current} bytes for {json_size} bytes of JSON"
