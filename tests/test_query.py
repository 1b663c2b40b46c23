"""The Logging query language on hand-made entries, after the documented examples.

Examples from https://cloud.google.com/logging/docs/view/logging-query-language and
https://cloud.google.com/logging/docs/view/troubleshoot-lql.
"""

from __future__ import annotations

import pytest

from mlwiki.errors import BadInput
from mlwiki.logs.query import And, Compare, Global, Not, Or, compile_filter, quote

GCE_ERROR = {
    "insertId": "ABC-1",
    "logName": "projects/demo/logs/cloudaudit.googleapis.com%2Factivity",
    "resource": {"type": "gce_instance", "labels": {"instance_id": "42", "zone": "us-east1-b"}},
    "severity": "ERROR",
    "timestamp": "2024-05-01T12:00:00.123456789Z",
    "textPayload": "the Robot stopped",
}
CAT = {
    "insertId": "ABC-2",
    "logName": "projects/demo/logs/stdout",
    "resource": {"type": "k8s_container", "labels": {"pod_name": "llm-pretrain-0-0-x"}},
    "severity": "INFO",
    "timestamp": "2024-05-01T12:00:01Z",
    "labels": {
        "k8s-pod/jobset_sigs_k8s_io/jobset-name": "llm-pretrain",
        "compute.googleapis.com/resource_name": "gke-tpu-0",
    },
    "jsonPayload": {
        "cat": "Shorthair",
        "weight": 4.5,
        "lives": 9,
        "indoor": True,
        "owner": None,
        "toys": [{"name": "mouse"}, {"name": "ball"}],
        "message": "Completed step: 120, loss=2.5",
    },
}
NO_SEVERITY = {
    "insertId": "ABC-3",
    "logName": "projects/demo/logs/kubelet",
    "resource": {"type": "k8s_node", "labels": {"node_name": "gke-tpu-0"}},
    "timestamp": "2024-05-01T14:00:02+02:00",
}
ENTRIES = {"gce": GCE_ERROR, "cat": CAT, "bare": NO_SEVERITY}


def matching(text: str) -> set[str]:
    compiled = compile_filter(text)
    return {name for name, entry in ENTRIES.items() if compiled.matches(entry)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The documented example: Compute Engine, at least ERROR, no "robot" in textPayload.
        (
            'resource.type = "gce_instance" AND\nseverity >= "ERROR" AND\nNOT textPayload:robot',
            set(),
        ),
        ('resource.type = "gce_instance" AND severity >= ERROR', {"gce"}),
        ('resource.type = "gce_instance" OR resource.type = "k8s_node"', {"gce", "bare"}),
        ('resource.type = ("gce_instance" OR "k8s_node")', {"gce", "bare"}),
        ('resource.type = "gce_instance" AND (severity = "ERROR" OR "error")', {"gce"}),
        ('jsonPayload.cat = ("siamese" OR "shorthair")', {"cat"}),
        ("NOT textPayload:*", {"cat", "bare"}),
        ("textPayload:*", {"gce"}),
        # The pitfall: the first is insertId="ABC-1" OR a global restriction on "ABC-2".
        ('insertId = "ABC-1" OR "ABC-2"', {"gce", "cat"}),
        ('insertId = ("ABC-1" OR "ABC-2")', {"gce", "cat"}),
        ('insertId = "ABC-1" OR "robot"', {"gce"}),
        ('log_id("cloudaudit.googleapis.com/activity")', {"gce"}),
        ('log_id("stdout") OR log_id("kubelet")', {"cat", "bare"}),
        # Implicit AND across whitespace and newlines; comments.
        ('resource.type="k8s_container"\nseverity=INFO -- only info\n', {"cat"}),
        # Quoted path segments.
        ('labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"="llm-pretrain"', {"cat"}),
        ('labels."compute.googleapis.com/resource_name":"tpu"', {"cat"}),
        # Severity order, names and numbers; a missing severity is DEFAULT.
        ("severity>=WARNING", {"gce"}),
        ("severity>=200", {"gce", "cat"}),
        ("severity=DEFAULT", {"bare"}),
        ('severity<"info"', {"bare"}),
        # Case rules: = and : ignore case, regular expressions do not unless (?i).
        ('textPayload="THE ROBOT STOPPED"', {"gce"}),
        ('textPayload=~"Robot"', {"gce"}),
        ('textPayload=~"robot"', set()),
        ('textPayload=~"(?i)robot"', {"gce"}),
        ('textPayload!~"^the"', {"cat", "bare"}),
        # Numbers, booleans, null, lists.
        ("jsonPayload.weight > 4", {"cat"}),
        ("jsonPayload.weight < 4.5", set()),
        ("jsonPayload.lives = 9", {"cat"}),
        ("jsonPayload.indoor = true", {"cat"}),
        ("jsonPayload.owner = NULL_VALUE", {"cat"}),
        ("jsonPayload.owner:*", set()),
        ("jsonPayload.toys.name = ball", {"cat"}),
        ("jsonPayload.toys:mouse", {"cat"}),
        # Timestamps compare as instants, whatever the offset and precision.
        ('timestamp >= "2024-05-01T12:00:00Z" AND timestamp < "2024-05-01T12:00:01Z"', {"gce"}),
        ('timestamp = "2024-05-01T12:00:02Z"', {"bare"}),
        ('timestamp > "2024-05-01T13:00:00.5+01:00"', {"cat", "bare"}),
        # Global restrictions, NOT and '-'.
        ('"Robot"', {"gce"}),
        ("shorthair", {"cat"}),
        ("-shorthair", {"gce", "bare"}),
        ("NOT severity=ERROR", {"cat", "bare"}),
        # SEARCH: whole tokens, case-insensitive; backticks for an exact phrase.
        ('SEARCH("robot")', {"gce"}),
        ('SEARCH("rob")', set()),
        ('SEARCH(jsonPayload.message, "STEP 120")', {"cat"}),
        ('SEARCH("`step: 120`")', {"cat"}),
        ('SEARCH(textPayload, "shorthair")', set()),
        # Field names are case-insensitive; values given bare may hold '-', '.', '/'.
        ("RESOURCE.TYPE=k8s_container TextPayload:*", set()),
        ("resource.labels.zone=us-east1-b", {"gce"}),
        ("", {"gce", "cat", "bare"}),
    ],
)
def test_documented_forms(text: str, expected: set[str]) -> None:
    assert matching(text) == expected


def test_precedence_or_binds_tighter_than_and() -> None:
    tree = compile_filter('"a" OR NOT "b" AND NOT "c" OR "d"').tree
    a, b, c, d = (Global(compile_filter(f'"{x}"').tree.value) for x in "abcd")  # type: ignore[union-attr]
    assert tree == And((Or((a, Not(b))), Or((Not(c), d))))


def test_implicit_and_has_the_precedence_of_and() -> None:
    tree = compile_filter("a b OR c").tree
    assert isinstance(tree, And) and isinstance(tree.items[1], Or)


def test_keywords_must_be_uppercase() -> None:
    # A lower-case "or" is just a word to look for, ANDed with its neighbours.
    assert matching("textPayload:robot OR textPayload:nothing") == {"gce"}
    assert matching("textPayload:robot or textPayload:nothing") == set()


def test_value_group_expands_to_comparisons() -> None:
    tree = compile_filter('jsonPayload.cat = ("a" OR NOT "b")').tree
    assert isinstance(tree, Or)
    assert isinstance(tree.items[0], Compare) and isinstance(tree.items[1], Not)


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        'with "quotes"',
        "back\\slash\\",
        "new\nline\ttab\r",
        'x") OR ("y',
        "\x00\x1f\x7f",
        "ünï 😀",
        "",
    ],
)
def test_quote_round_trips_any_string(value: str) -> None:
    compiled = compile_filter(f"jsonPayload.v={quote(value)}")
    assert isinstance(compiled.tree, Compare)
    assert compiled.tree.value.text == value
    assert compiled.matches({"jsonPayload": {"v": value}})


def test_quoted_value_cannot_inject_a_clause() -> None:
    hostile = 'x" OR "shorthair'
    assert matching(f"textPayload={quote(hostile)}") == set()


def test_unknown_escapes_keep_their_backslash_for_regexes() -> None:
    assert matching(r'jsonPayload.message=~"step: \d+"') == {"cat"}


def test_prefilter_hints() -> None:
    compiled = compile_filter(
        'resource.type=("k8s_node" OR "K8S_POD") timestamp>="2024-05-01T00:00:00Z" '
        'timestamp<="2024-05-01T01:00:00Z"'
    )
    assert compiled.resource_types == {"k8s_node", "k8s_pod"}
    assert compiled.start_ns == 1714521600 * 10**9
    assert compiled.end_ns == 1714525200 * 10**9
    loose = compile_filter('resource.type="k8s_node" OR textPayload:x')
    assert loose.resource_types is None and loose.start_ns is None


def test_sample_keeps_a_deterministic_fraction_by_hash() -> None:
    entries = [{"insertId": f"id-{n}"} for n in range(20_000)]
    tenth = compile_filter("sample(insertId, 0.1)")
    kept = [e["insertId"] for e in entries if tenth(e)]
    assert 1800 < len(kept) < 2200
    assert kept == [e["insertId"] for e in entries if tenth(e)]  # the same entries every time
    # A smaller fraction keeps a subset of a larger one: widening a sample only adds entries.
    half = compile_filter("sample(insertId, 0.5)")
    assert all(half({"insertId": i}) for i in kept)
    assert all(compile_filter("sample(insertId, 1)")(e) for e in entries[:100])
    assert not tenth({"textPayload": "no insertId"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sample(insertId, 1.5)", "filter:1:1: sample() takes (FIELD, FRACTION)"),
        ('sample(insertId, "x")', "filter:1:1: sample() takes (FIELD, FRACTION)"),
        ('ip_in_net(jsonPayload.ip, "10.0.0.0/8")', "filter:1:1: unsupported function ip_in_net()"),
        ('a = "open', "filter:1:5: unterminated string"),
        ("insertId = abc:def", "filter:1:15: unexpected"),
        ("severity >= LOUD", "filter:1:13: 'LOUD' is not a severity"),
        ('textPayload =~ "(unclosed"', "filter:1:16: invalid RE2 regular expression"),
        ('textPayload =~ "(?=look)ahead"', "invalid RE2 regular expression"),
        ("(a OR b", "unexpected end of the query"),
        ("a = 'single'", "strings use double quotes"),
        ('timestamp >= "yesterday"', "is not an RFC 3339 timestamp"),
        ("jsonPayload.x > NULL_VALUE", "NULL_VALUE only works with '=' or '!='"),
        ("\n  a AND AND b", "filter:2:9: unexpected 'AND'"),
    ],
)
def test_errors_name_position_and_construct(text: str, message: str) -> None:
    with pytest.raises(BadInput) as raised:
        compile_filter(text)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
