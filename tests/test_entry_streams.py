"""Each stream's resource and labels are read once (`mlwiki.logs.entry.Stream`): the entries of
one stream share what was read, two streams alike by the values looked up first are never taken
for one, and a stream already seen never lets a broken entry through the bundle check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlwiki.errors import BadInput
from mlwiki.logs import limits
from mlwiki.logs.bundle import iter_facts, load_bundle
from mlwiki.logs.entry import NODE_LABEL, EntryFacts, Stream, facts_of
from mlwiki.logs.store import EntryStore

JOBSET = "k8s-pod/jobset.sigs.k8s.io/jobset-name"


def container(number: int, pod: str = "run-slice-0-0-abcd", **labels: str) -> dict:
    return {
        "insertId": f"id-{number}",
        "timestamp": f"2024-05-01T10:00:{number:02d}.5Z",
        "logName": "projects/p/logs/stdout",
        "resource": {
            "type": "k8s_container",
            "labels": {"namespace_name": "default", "pod_name": pod, "container_name": "jax"},
        },
        "labels": {NODE_LABEL: "gke-c-pool-1-abc-0001", JOBSET: "run", **labels},
        "textPayload": f"completed step: {number}",
    }


def write(tmp_path: Path, entries: list[dict]) -> Path:
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(entries, indent=2))
    return path


def read(path: Path) -> list[EntryFacts]:
    return list(iter_facts(path, EntryStore()))


def fresh(facts: EntryFacts) -> Stream:
    entry = facts.entry
    return Stream(entry.get("logName"), entry.get("resource"), entry.get("labels"))


FIELDS = ("log_name", "resource_type", "resource_labels", "labels", "host", "pod", "regular")


def same_as_fresh(facts: EntryFacts) -> None:
    made = fresh(facts)
    assert [getattr(facts.stream, f) for f in FIELDS] == [getattr(made, f) for f in FIELDS]
    assert (facts.host, facts.pod) == (made.host, made.pod)


def test_the_entries_of_one_stream_share_what_was_read_once(tmp_path: Path) -> None:
    found = read(write(tmp_path, [container(n) for n in range(5)]))
    assert len({id(f.stream) for f in found}) == 1
    for facts in found:
        same_as_fresh(facts)
    assert found[0].pod == "run-slice-0-0-abcd"
    assert found[0].host == "gke-c-pool-1-abc-0001"


def test_streams_alike_in_their_values_are_never_taken_for_one(tmp_path: Path) -> None:
    first = container(1)
    # The same resource label values under other names: the values looked up first are equal.
    swapped = container(2)
    swapped["resource"]["labels"] = {
        "pod_name": "default",
        "namespace_name": "run-slice-0-0-abcd",
        "container_name": "jax",
    }
    other_jobset = container(3, **{JOBSET: "other"})  # same node label, other owner label
    no_labels = container(4)
    del no_labels["labels"]
    found = read(write(tmp_path, [first, swapped, other_jobset, first | {"insertId": "again"}]))
    found.append(facts_of(no_labels))  # type: ignore[arg-type]
    assert [f.pod for f in found] == [
        "run-slice-0-0-abcd",
        "default",
        "run-slice-0-0-abcd",
        "run-slice-0-0-abcd",
        "run-slice-0-0-abcd",
    ]
    assert found[2].labels[JOBSET] == "other"
    assert found[4].host is None and found[4].labels == {}
    assert len({id(f.stream) for f in found[:3]}) == 3
    for facts in found:
        same_as_fresh(facts)


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (lambda e: e["labels"].update(extra=7), "field 'labels.extra' must be a string, not int"),
        (
            lambda e: e["resource"]["labels"].update(pod_name=["a"]),
            "field 'resource.labels.pod_name' must be a string, not list",
        ),
        (lambda e: e.update(resource=None), "field 'resource' must be an object, not NoneType"),
        (lambda e: e.update(deep=json.loads("[" * 70 + "]" * 70)), "nests deeper than 64"),
        (
            lambda e: e.update(jsonPayload=json.loads('{"a":' * 70 + "1" + "}" * 70)),
            "nests deeper than 64",
        ),
    ],
)
def test_a_stream_seen_before_lets_no_broken_entry_through(
    tmp_path: Path, broken: object, message: str
) -> None:
    good = [container(n) for n in range(3)]
    bad = container(3)
    broken(bad)  # type: ignore[operator]
    path = write(tmp_path, [*good, bad])
    with pytest.raises(BadInput) as raised:
        load_bundle(path)
    assert message in str(raised.value)
    starts = [n + 1 for n, text in enumerate(path.read_text().splitlines()) if text == "  {"]
    assert f"{path}:{starts[3]}:" in str(raised.value)  # the broken entry's own line


def test_the_bundle_check_and_the_plain_check_agree_on_stream_entries(tmp_path: Path) -> None:
    entries = [container(n) for n in range(3)]
    for entry in entries:
        assert limits.entry_problem(entry) is None
    store, report = load_bundle(write(tmp_path, entries))
    assert report.entries == 3
    assert sorted(e["insertId"] for e in store.entries()) == ["id-0", "id-1", "id-2"]


SLOTS = [name for name in EntryFacts.__slots__ if name not in ("stream", "entry")]


def same_facts(facts: EntryFacts, entry: dict) -> None:
    """`facts` read from a bundle hold what EntryFacts reads from the decoded entry itself."""
    made = EntryFacts(entry, facts.instant, facts.location)
    assert [getattr(facts, n) for n in SLOTS] == [getattr(made, n) for n in SLOTS]
    assert facts.entry == entry
    assert facts.record_line() == made.record_line()
    assert [facts.top(n) for n in ("textPayload", "labels", "jsonPayload", "split")] == [
        made.top(n) for n in ("textPayload", "labels", "jsonPayload", "split")
    ]
    made_stream = fresh(facts)
    assert [getattr(facts.stream, f) for f in FIELDS] == [getattr(made_stream, f) for f in FIELDS]


def test_text_lines_are_read_without_a_dict_and_hold_the_same_facts(tmp_path: Path) -> None:
    plain = container(1)
    no_node = container(2)
    del no_node["labels"][NODE_LABEL]
    no_labels = container(3)
    del no_labels["labels"]
    vm = {
        "insertId": "vm-1",
        "timestamp": "2024-05-01T10:00:04.123456789Z",
        "logName": "projects/p/logs/syslog",
        "resource": {"type": "gce_instance", "labels": {"instance_id": "1"}},
        "labels": {"instance_name": "gke-c-pool-1-abc-0002"},
        "textPayload": "kernel: Out of memory",
        "severity": "",
        "trace": "t",
        "receiveTimestamp": "2024-05-01T10:00:05Z",
    }
    entries = [plain, no_node, no_labels, vm, container(5) | {"severity": "ERROR"}]
    path = write(tmp_path, entries)
    found = read(path)
    assert [type(f).__name__ for f in found] == ["LineFacts"] * len(entries)
    for facts, entry in zip(found, entries):
        same_facts(facts, entry)
    assert found[3].host == "gke-c-pool-1-abc-0002" and found[3].severity == "DEFAULT"
    store = EntryStore()
    for facts in iter_facts(path, store):
        store.add_facts(facts)
    assert list(store.entries()) == sorted(entries, key=lambda e: e["timestamp"])


@pytest.mark.parametrize(
    "unusual",
    [
        {"severity": 400},  # an int severity: valid, read as a dict
        {"textPayload": ""},  # empty: not a line (and irregular)
        {"insertId": ""},  # given a synthetic id
        {"jsonPayload": {"message": "x"}},
        {"traceSampled": True},  # a field the line decoder does not know
        {"resource": {"type": "k8s_container", "labels": {}, "x": "y"}},  # an unusual stream
    ],
)
def test_an_entry_that_is_no_plain_line_is_read_as_a_dict(tmp_path: Path, unusual: dict) -> None:
    entry = container(1) | unusual
    found = read(write(tmp_path, [container(0), entry]))
    assert type(found[1]) is EntryFacts
    expected = json.loads(json.dumps(entry))
    expected["insertId"] = found[1].insert_id
    assert found[1].entry == expected


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        ({"textPayload": None}, "field 'textPayload' must be a string, not NoneType"),
        ({"logName": None}, "field 'logName' must be a string, not NoneType"),
        ({"severity": 1e30}, "field 'severity' must be a name like ERROR, not float"),
        ({"trace": 5}, "field 'trace' must be a string, not int"),
        ({"timestamp": "2024-05-01"}, "is not an RFC 3339 timestamp"),
    ],
)
def test_a_broken_line_is_named_as_before(tmp_path: Path, broken: dict, message: str) -> None:
    with pytest.raises(BadInput) as raised:
        load_bundle(write(tmp_path, [container(0), container(1) | broken]))
    assert message in str(raised.value)
