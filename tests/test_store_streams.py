"""`EntryStore.streams`: the record lookup's query shape, answered from the store's own order.

It must return exactly what `resource.type="…" AND timestamp>=… AND timestamp<=…` returns, grouped
by container stream (pod, logName), for the streams asked for and no other."""

from __future__ import annotations

import json
from pathlib import Path

from mlwiki.logs.bundle import load_bundle
from mlwiki.logs.entry import entry_pod
from mlwiki.logs.query import compile_filter
from mlwiki.timewindow import timestamp_ns
from tests.fakes.log_entries import incident_entries


def test_streams_are_the_query_grouped_by_stream(tmp_path: Path) -> None:
    entries = incident_entries()
    bundle = tmp_path / "logs.json"
    bundle.write_text(json.dumps(entries, indent=2))
    store, _ = load_bundle(bundle)
    stamps = sorted(e["timestamp"] for e in entries)
    low, high = stamps[len(stamps) // 4], stamps[3 * len(stamps) // 4]
    query = f'resource.type="K8S_CONTAINER" AND timestamp>="{low}" AND timestamp<="{high}"'
    expected: dict[tuple[str, str], list[dict]] = {}
    for entry in store.query(compile_filter(query, "test")):
        key = (entry_pod(entry) or "", entry.get("logName") or "")
        expected.setdefault(key, []).append(entry)
    assert len(expected) >= 2
    asked = set(list(expected)[:-1]) | {("no-such-pod", "projects/p/logs/stdout")}
    found = store.streams("k8s_container", asked, timestamp_ns(low), timestamp_ns(high))
    assert set(found) == asked & set(expected)
    for key, lines in found.items():
        assert [store.entry(index) for _, index in lines] == expected[key]
        assert [instant for instant, _ in lines] == [
            timestamp_ns(e["timestamp"]) for e in expected[key]
        ]
