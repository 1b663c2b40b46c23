"""A filter over Cloud Logging's 20,000 characters goes out in parts that select the same entries
(`mlwiki.logs.split`), through the real client to the local Logging server, which refuses any
longer filter as the API does."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mlwiki.errors import BadInput
from mlwiki.logs.cloud import ENDPOINT_ENV
from mlwiki.logs.plan import MAX_FILTER_CHARS
from mlwiki.logs.query import compile_filter
from mlwiki.logs.session import LogSession
from mlwiki.logs.split import split_filter
from tests.fakes.log_entries import PREEMPTED, PROJECT, WORKLOAD, incident_entries
from tests.fakes.logging_server import serve_logging
from tests.test_cloud_logging import WINDOW, in_window, log_query_actions, no_sleep_policy, render

ENTRIES = in_window(incident_entries())
TRICKY = (
    'timestamp>="2024-05-01T10:00:00Z" -- a comment ( with a parenthesis\n'
    'AND (resource.type="k8s_node" OR resource.type="k8s_container")\n'
    'AND NOT severity<"DEFAULT"\n'
    'AND ((textPayload=~"a(b)|preempt" OR jsonPayload.message=~"c\\"\\\\(|Killing") '
    'OR (textPayload:"OOM" OR NOT (labels.x="y")) OR -textPayload:"e" '
    'OR resource.labels.node_name=("n-1" OR "n-2"))'
)


def matched(filter_text: str) -> set[str]:
    compiled = compile_filter(filter_text)
    return {e["insertId"] for e in ENTRIES if compiled.matches(copy.deepcopy(e))}


def union(parts: list[str]) -> set[str]:
    return set().union(*(matched(part) for part in parts))


def test_a_filter_that_fits_is_sent_as_it_is() -> None:
    assert split_filter(TRICKY, len(TRICKY)) == [TRICKY]


@pytest.mark.parametrize("limit", [300, 260, 200])
def test_parts_select_what_the_whole_selects_whatever_the_precedence(limit: int) -> None:
    parts = split_filter(TRICKY, limit)
    assert len(parts) > 1 and all(len(part) <= limit for part in parts)
    assert union(parts) == matched(TRICKY) and matched(TRICKY)


@pytest.mark.parametrize("action_id", log_query_actions())
def test_every_wiki_query_cut_small_selects_the_same_entries(action_id: str) -> None:
    whole = render(action_id)
    limit = max(len(whole) // 3, 1)
    try:
        parts = split_filter(whole, limit)
    except BadInput as error:  # one alternative longer than a third of the query: said so
        assert "shorten it" in str(error)
        return
    assert all(len(part) <= limit for part in parts)
    assert union(parts) == matched(whole)


def test_what_no_cut_brings_under_the_limit_is_a_clear_error() -> None:
    with pytest.raises(BadInput, match="no OR to split it at"):
        split_filter('textPayload=~"' + "x" * 300 + '"', 100, "step roots")
    with pytest.raises(BadInput, match=r"step roots: one alternative .* shorten it"):
        split_filter(
            'severity>=ERROR AND (textPayload:"a" OR textPayload=~"' + "x" * 300 + '")',
            100,
            "step roots",
        )


def long_filter() -> str:
    """The shape a workflow step's filter has (bounds, a scope, an OR of signature clauses),
    over the API's limit: the entries the incident holds on the preempted node, among filler
    alternatives that match nothing."""
    padding = "|".join(f"never printed {word}" for word in range(30))
    fillers = [f'textPayload=~"line {n:02d} ({padding})"' for n in range(40)]
    real = f'resource.labels.node_name="{PREEMPTED}"'
    clauses = [*fillers[:20], real, *fillers[20:]]
    return 'resource.type="k8s_node" OR resource.type="k8s_container"\nAND (' + (
        " OR ".join(clauses) + ")"
    )


def test_an_over_long_step_filter_reaches_cloud_logging_in_parts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    text = long_filter()
    assert len(text) > MAX_FILTER_CHARS
    expected = [e["insertId"] for e in ENTRIES if compile_filter(text).matches(copy.deepcopy(e))]
    assert expected
    with serve_logging(incident_entries()) as fake:
        monkeypatch.setenv(ENDPOINT_ENV, fake.url)
        online = LogSession.from_cloud(PROJECT, WINDOW, WORKLOAD, retry=no_sleep_policy([]))
        before = len(fake.requests)
        result = online.query(text)
        sent = fake.requests[before:]
    assert [e["insertId"] for e in result.entries] == expected
    assert result.partial is False
    assert len(sent) >= 2 and all(len(body["filter"]) <= MAX_FILTER_CHARS for body in sent)
    names = [q.name for q in online.report.queries if q.name.startswith("extra-")]
    assert names == [f"extra-1.{n}" for n in range(1, len(names) + 1)] and len(names) >= 2
