"""The bundle reader splits raw bytes at entry boundaries: every layout gives the same entries,
entries spanning read chunks are whole, the store keeps offsets into plain files, and the
indexes the diagnosis' pass builds answer queries exactly as a full scan does."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from mlwiki.diagnose.match import Scan
from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.diagnose.topology import Topology
from mlwiki.engine.render import symptom_clauses
from mlwiki.errors import BadInput
from mlwiki.logs import bundle, limits
from mlwiki.logs.bundle import iter_bundle, iter_facts, load_bundle
from mlwiki.logs.query import compile_filter
from mlwiki.logs.store import EntryStore
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT
from tests.fakes.log_entries import WORKLOAD, incident_entries

WIKI = load_wiki(REPO_ROOT / "_wiki")
TRICKY = {  # texts that look like entry boundaries once unescaped
    "insertId": "tricky-1",
    "timestamp": "2024-05-01T10:30:00.5Z",
    "logName": "projects/p/logs/stdout",
    "textPayload": 'a "quote", a brace }\n  },\n  {\n and ] the end',
    "labels": {"nested": "{}"},
}


def entries() -> list[dict]:
    return [*incident_entries(), TRICKY]


LAYOUTS = {
    "indent-2.json": lambda e: json.dumps(e, indent=2),
    "indent-4-newest-first.json": lambda e: json.dumps(e[::-1], indent=4),
    "tabs.json": lambda e: json.dumps(e, indent="\t"),
    "minified.json": lambda e: json.dumps(e),
    "crlf.jsonl": lambda e: "".join(json.dumps(x) + "\r\n" for x in e) + "\n\n",
    # An indented array whose later entries are written on one line: read on by the decoder.
    "mixed.json": lambda e: (
        "[\n  "
        + ",\n  ".join(
            json.dumps(x, indent=2).replace("\n", "\n  ") if i < 3 else json.dumps(x)
            for i, x in enumerate(e)
        )
        + "\n]\n"
    ),
}


def by_id(found: list[dict]) -> list[dict]:
    return sorted(found, key=lambda e: (e["insertId"], e["timestamp"]))


@pytest.mark.parametrize("chunk", [64, 1 << 20])
@pytest.mark.parametrize("name", sorted(LAYOUTS))
@pytest.mark.parametrize("compressed", [False, True])
def test_every_layout_gives_the_same_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, chunk: int, compressed: bool
) -> None:
    monkeypatch.setattr(bundle, "CHUNK_BYTES", chunk)  # entries then span many reads
    text = LAYOUTS[name](entries()).encode()
    path = tmp_path / (name + (".gz" if compressed else ""))
    path.write_bytes(gzip.compress(text) if compressed else text)
    assert by_id(list(iter_bundle(path))) == by_id(entries())
    store, report = load_bundle(path)
    assert report.entries == len(entries())
    assert by_id(list(store.entries())) == by_id(entries())


def test_a_plain_file_is_kept_as_offsets_and_read_again(tmp_path: Path) -> None:
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(entries(), indent=2))
    store, _ = load_bundle(path)
    assert all(blob is None for blob in store._blobs)  # offsets, no copies
    assert by_id(list(store.entries())) == by_id(entries())
    store.close()
    path.write_text(json.dumps(entries()[:2], indent=2))  # changed after it was read
    with pytest.raises(BadInput, match="changed while it was being read"):
        list(store.entries())


@pytest.mark.parametrize("chunk", range(1, 24))
def test_a_read_ending_anywhere_between_entries_keeps_the_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """Wherever a read ends (inside `},\n  {` too), every entry is split by its layout and kept
    as an offset: none is left to the streaming decoder and copied."""
    monkeypatch.setattr(bundle, "CHUNK_BYTES", chunk)
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(entries()[:4], indent=2))
    store, _ = load_bundle(path)
    assert all(blob is None for blob in store._blobs)
    assert by_id(list(store.entries())) == by_id(entries()[:4])


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "bad.json",
            '[\n  {\n    "timestamp": "2024-05-01T10:00:00Z"\n  },\n  {\n    "timestamp": oops\n  }\n]',
            "bad.json:6: invalid JSON",
        ),
        ("bad.json", '[\n  {\n    "x": 1\n  }\n]', "bad.json:2: log entry has no 'timestamp'"),
        (
            "bad.json",
            '[\n  {\n    "timestamp": "2024-05-01T10:00:00Z"\n  }\n  {\n  }\n]',
            "bad.json:5: expected ',' or ']'",
        ),
        (
            "bad.jsonl",
            '{"timestamp": "2024-05-01T10:00:00Z", "t": "\xff"}',
            "bad.jsonl: not valid UTF-8",
        ),
        (
            "bad.json",
            '[\n  {\n    "timestamp": "2024-05-01T10:00:00Z"\n  },',
            "bad.json:4: unexpected end",
        ),
    ],
)
def test_bad_input_names_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str, message: str
) -> None:
    monkeypatch.setattr(bundle, "CHUNK_BYTES", 16)
    path = tmp_path / name
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(BadInput) as raised:
        load_bundle(path)
    assert message in str(raised.value)


@pytest.mark.parametrize("name", ["big.json", "big.jsonl"])
def test_an_entry_larger_than_the_cap_is_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(bundle, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(limits, "MAX_ENTRY_BYTES", 4096)
    entry = {"timestamp": "2024-05-01T10:00:00Z", "textPayload": "x" * 10_000}
    text = json.dumps([entry], indent=2) if name.endswith(".json") else json.dumps(entry)
    (tmp_path / name).write_text(text)
    with pytest.raises(BadInput, match=rf"{name}:[12]: a log entry longer than"):
        load_bundle(tmp_path / name)


def odd_entries() -> list[dict]:
    """Entries whose message fields have shapes a query reads differently from the scan."""
    base = incident_entries()[0]
    odd = []
    for number, payload in enumerate(
        [
            {"jsonPayload": {"message": 12345}},
            {
                "jsonPayload": {
                    "message": [
                        "Error allocating device buffer: Attempting to allocate 1G. That was not possible"
                    ]
                }
            },
            {"protoPayload": {"status": "not an object"}},
        ]
    ):
        entry = copy.deepcopy(base)
        entry.pop("textPayload", None)
        entry.update(payload, insertId=f"odd-{number}")
        odd.append(entry)
    return odd


@pytest.mark.parametrize(
    "symptom", ["hbm-oom-runtime", "coordination-heartbeat-cascade", "spot-preemption"]
)
def test_the_pass_indexes_answer_like_a_full_scan(tmp_path: Path, symptom: str) -> None:
    data = [*incident_entries(), *odd_entries()]
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(data, indent=2))
    indexed = EntryStore()
    scan = Scan(SignatureSet(WIKI.symptoms.values()), Topology(WORKLOAD), store=indexed)
    indexed.answer_patterns(scan.signatures.query_patterns())
    scan.add_all(f for f in iter_facts(path, indexed) if indexed.add_facts(f))
    late = copy.deepcopy(incident_entries()[-1])  # stored after the pass: never read by it
    late["insertId"] = "late-1"
    indexed.add(late)
    plain, _ = load_bundle(path)
    plain.add(copy.deepcopy(late))
    found: set[str] = set()
    for text in (
        f"{symptom_clauses(WIKI, symptom)}",
        f'resource.type="k8s_container" AND {symptom_clauses(WIKI, symptom)}',
        'labels."compute.googleapis.com/resource_name"="gke-tpu-7f3a-2"',
        f'resource.labels.pod_name="{incident_entries()[0]["resource"]["labels"].get("pod_name", "x")}"',
    ):
        compiled = compile_filter(text)
        expected = [e["insertId"] for e in plain.query(compiled)]
        assert [e["insertId"] for e in indexed.query(compiled)] == expected, text
        found.update(expected)
    assert found & {"odd-1", "late-1"} or symptom != "hbm-oom-runtime", found
    assert len(found) > 1
