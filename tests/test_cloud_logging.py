"""The real google-cloud-logging client over a real socket to the local fake Logging server."""

from __future__ import annotations

import copy
import functools
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mlwiki.errors import BadInput
from mlwiki.logs.cache import PageCache
from mlwiki.logs.cloud import ENDPOINT_ENV, LoggingFetcher, RequestBudget, RetryPolicy, make_client
from mlwiki.logs.query import compile_filter
from mlwiki.logs.session import LogSession
from mlwiki.progress import Progress
from mlwiki.timewindow import Window, format_timestamp, timestamp_ns
from mlwiki.wiki import Wiki, load_wiki
from tests.conftest import WIKI_ROOT
from tests.fakes.log_entries import END, PREEMPTED, PROJECT, START, WORKLOAD, incident_entries
from tests.fakes.logging_server import FakeLoggingServer, serve_logging

WINDOW = Window(START, END)
BOUNDS = 'timestamp>="2024-05-01T10:00:00Z" AND timestamp<="2024-05-01T12:00:00Z"'


def no_sleep_policy(sleeps: list[float], **overrides: Any) -> RetryPolicy:
    return RetryPolicy(sleep=sleeps.append, random=lambda: 1.0, **overrides)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLoggingServer]:
    with serve_logging(incident_entries()) as fake:
        monkeypatch.setenv(ENDPOINT_ENV, fake.url)
        yield fake


def fetcher_for(server: FakeLoggingServer, sleeps: list[float], **kwargs: Any) -> LoggingFetcher:
    retry = kwargs.pop("retry", None) or no_sleep_policy(sleeps)
    return LoggingFetcher(client=make_client(PROJECT), project=PROJECT, retry=retry, **kwargs)


def in_window(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        (e for e in entries if WINDOW.contains_ns(timestamp_ns(e["timestamp"]))),
        key=lambda e: (timestamp_ns(e["timestamp"]), e["insertId"]),
    )


def test_pages_of_1000_with_tokens_and_explicit_bounds(server: FakeLoggingServer) -> None:
    entries, report = fetcher_for(server, []).fetch("all", 'resource.type="k8s_container"', WINDOW)
    expected = [
        e for e in in_window(incident_entries()) if e["resource"]["type"] == "k8s_container"
    ]
    assert entries == expected  # the very dicts a bundle holds, in Cloud Logging's order
    assert len(expected) > 1000 and report.calls == len(server.requests) == 2
    first, second = server.requests
    assert first == {
        "resourceNames": [f"projects/{PROJECT}"],
        "filter": f'{BOUNDS} AND (\nresource.type="k8s_container"\n)',
        "orderBy": "timestamp asc",
        "pageSize": 1000,
    }
    assert second["pageToken"] and {k: v for k, v in second.items() if k != "pageToken"} == first
    assert report.partial is False and report.entries == len(expected)


def test_throttling_is_retried_with_backoff(server: FakeLoggingServer) -> None:
    sleeps: list[float] = []
    server.fail_next(429, 2)
    server.fail_next(503)
    entries, report = fetcher_for(server, sleeps).fetch("events", 'log_id("events")', WINDOW)
    assert sleeps == [1.0, 2.0, 4.0]
    assert report.calls == len(server.requests) == 4 and not report.partial
    assert len(entries) == len(
        [e for e in in_window(incident_entries()) if e["logName"].endswith("/events")]
    )


def test_a_failure_mid_paging_resumes_from_the_last_token(server: FakeLoggingServer) -> None:
    sleeps: list[float] = []
    server.fail_next(500, after=1)
    entries, report = fetcher_for(server, sleeps).fetch("all", "severity>=DEFAULT", WINDOW)
    assert entries == in_window(incident_entries())
    assert [bool(r.get("pageToken")) for r in server.requests] == [False, True, True]
    assert server.requests[1]["pageToken"] == server.requests[2]["pageToken"]
    assert sleeps == [1.0] and report.calls == 3


def test_retries_exhausted_make_the_result_partial(server: FakeLoggingServer) -> None:
    sleeps: list[float] = []
    server.fail_next(429, 10)
    retry = no_sleep_policy(sleeps, max_attempts=4)
    entries, report = fetcher_for(server, sleeps, retry=retry).fetch("q", "severity>=ERROR", WINDOW)
    assert entries == [] and report.partial is True
    assert (
        report.reason is not None and "gave up after 4 attempts (TooManyRequests" in report.reason
    )
    assert len(server.requests) == 4 and sleeps == [1.0, 2.0, 4.0]


def test_total_sleep_budget_bounds_the_retries(server: FakeLoggingServer) -> None:
    sleeps: list[float] = []
    server.fail_next(503, 10)
    retry = no_sleep_policy(sleeps, max_attempts=10, max_total_sleep=5.0)
    _, report = fetcher_for(server, sleeps, retry=retry).fetch("q", "severity>=ERROR", WINDOW)
    assert report.partial and sum(sleeps) <= 5.0 and sleeps == [1.0, 2.0]


def test_request_budget_exhaustion_is_partial_with_reason(server: FakeLoggingServer) -> None:
    fetcher = fetcher_for(server, [], budget=RequestBudget(max_calls=1))
    entries, report = fetcher.fetch("all", "severity>=DEFAULT", WINDOW)
    assert len(entries) == 1000 and report.partial
    assert report.reason == "all: request budget of 1 calls used up"
    assert len(server.requests) == 1


def test_entry_cap_is_partial_with_reason(server: FakeLoggingServer) -> None:
    fetcher = fetcher_for(server, [], max_entries=1200)
    entries, report = fetcher.fetch("all", "severity>=DEFAULT", WINDOW)
    assert len(entries) == 1200 and report.partial
    assert report.reason == "all: stopped at the cap of 1200 entries"


def test_a_rejected_request_is_bad_input(server: FakeLoggingServer) -> None:
    fetcher = fetcher_for(server, [], page_size=5000)
    with pytest.raises(BadInput, match=r"BadRequest: .*pageSize must be between 1 and 1000"):
        fetcher.fetch("q", "severity>=ERROR", WINDOW)


def test_a_cached_pages_expired_token_is_fetched_again(
    server: FakeLoggingServer, tmp_path: Path
) -> None:
    cache = PageCache(tmp_path / "cache")
    first = fetcher_for(server, [], budget=RequestBudget(max_calls=1), cache=cache)
    _, stopped = first.fetch("all", "severity>=DEFAULT", WINDOW)
    assert stopped.partial and stopped.pages == 1  # a partial run; its first page is cached
    server.expire_tokens()  # hours later: the token that page carries is no longer valid
    rerun = fetcher_for(server, [], cache=cache)
    entries, report = rerun.fetch("all", "severity>=DEFAULT", WINDOW)
    expected, _ = fetcher_for(server, []).fetch("all", "severity>=DEFAULT", WINDOW)
    assert entries == expected and not report.partial
    # The rejected page, the first page again (a live token), then the rest of the query.
    assert report.refetched == 1 and report.calls == 1 + 1 + (report.pages - 1)
    assert report.to_dict()["refetched"] == 1
    # A token the API itself just handed out that is rejected is not retried: it is an error.
    server.expire_tokens()
    fresh = fetcher_for(server, [])
    server.fail_next(400, after=1)
    with pytest.raises(BadInput, match="BadRequest"):
        fresh.fetch("all", "severity>=DEFAULT", WINDOW)


def test_a_small_job_is_read_whole_in_few_calls(server: FakeLoggingServer) -> None:
    session = LogSession.from_cloud(PROJECT, WINDOW, WORKLOAD, retry=no_sleep_policy([]))
    report = session.report.to_dict()
    # Platform sources first; the workload's containers (two pages) and the infrastructure's
    # text fit their share, so they are read whole: nothing pushed down, nothing sampled.
    assert [q["name"] for q in report["queries"]] == [
        "platform",
        "workload",
        "infrastructure",
        "workload (cont.)",
    ]
    assert report["calls"] == len(server.requests) == 4 and report["sampled"] == []
    # Every request is time-bounded; the continuation starts where the first page ended.
    assert all(body["filter"].startswith(BOUNDS + " AND (") for body in server.requests[:3])
    assert server.requests[3]["filter"].startswith('timestamp>="2024-05-01T1')
    assert 'timestamp<="2024-05-01T12:00:00Z" AND (' in server.requests[3]["filter"]
    assert all(body["pageSize"] == 1000 for body in server.requests)
    assert report["partial"] is False and report["reasons"] == []
    assert report["source"] == "cloud_logging" and report["sources"] == [f"projects/{PROJECT}"]
    # Nothing from the other workload's containers, nor from outside the window.
    assert not any(
        "other-job" in json.dumps(e) and "completed step" in json.dumps(e)
        for e in session.entries()
    )
    assert report["entries"] == len(session.store)


def test_budget_exhaustion_during_collection_marks_every_answer_partial(
    server: FakeLoggingServer,
) -> None:
    session = LogSession.from_cloud(
        PROJECT, WINDOW, WORKLOAD, retry=no_sleep_policy([]), budget=RequestBudget(max_calls=2)
    )
    result = session.query(f'log_id("events") AND {BOUNDS}')
    assert result.partial is True
    assert result.reason is not None and "request budget of 2 calls used up" in result.reason
    assert session.report.partial and len(server.requests) == 2


# --- every log_query action of the wiki: the same entries online and from a bundle --------------


def log_query_actions() -> list[str]:
    found = []
    for path in sorted((WIKI_ROOT / "actions").glob("*.json")):
        if json.loads(path.read_text()).get("kind") == "log_query":
            found.append(path.stem)
    return found


SAMPLE_PARAMS = {
    "workload": WORKLOAD,
    "start": format_timestamp(START),
    "end": format_timestamp(END),
    "node": PREEMPTED,
    "project": PROJECT,
    "pod_prefix": f"{WORKLOAD}-slice-1",
}


@functools.lru_cache(maxsize=1)
def the_wiki() -> Wiki:
    return load_wiki(WIKI_ROOT)


def render(action_id: str) -> str:
    from mlwiki.engine.params import resolve, specs_of
    from mlwiki.engine.render import render_filter

    wiki = the_wiki()
    action = wiki.actions[action_id]
    try:
        values = resolve(specs_of(action.params), {}, fill=SAMPLE_PARAMS, owner=action_id)
        return render_filter(action, values, wiki)
    except BadInput as error:
        if "no symptom page" in str(error):
            pytest.skip(f"wiki not complete yet: {error}")
        raise


@pytest.fixture(scope="module")
def online_and_bundle(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LogSession, LogSession, FakeLoggingServer]]:
    bundle = tmp_path_factory.mktemp("bundle") / "logs.json"
    bundle.write_text(json.dumps(incident_entries()))
    with serve_logging(incident_entries()) as fake, pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENDPOINT_ENV, fake.url)
        online = LogSession.from_cloud(PROJECT, WINDOW, WORKLOAD, retry=no_sleep_policy([]))
        yield online, LogSession.from_bundle(bundle, WINDOW), fake


@pytest.mark.parametrize("action_id", log_query_actions())
def test_action_gives_the_same_entries_online_and_offline(
    action_id: str, online_and_bundle: tuple[LogSession, LogSession, FakeLoggingServer]
) -> None:
    online, offline, _ = online_and_bundle
    filter_text = render(action_id)
    compiled = compile_filter(filter_text)
    truth = [
        e["insertId"] for e in in_window(incident_entries()) if compiled.matches(copy.deepcopy(e))
    ]
    online_result = online.query(filter_text)
    offline_result = offline.query(filter_text)
    assert [e["insertId"] for e in online_result.entries] == truth
    assert online_result.entries == offline_result.entries
    assert online_result.partial is offline_result.partial is False


def test_actions_cost_few_calls(
    online_and_bundle: tuple[LogSession, LogSession, FakeLoggingServer],
) -> None:
    online, _, fake = online_and_bundle
    actions = log_query_actions()
    for action_id in actions:
        try:
            online.query(render(action_id))
        except pytest.skip.Exception:
            continue
    extra = [q.name for q in online.report.queries if q.name.startswith("extra-")]
    assert online.report.calls == len(fake.requests)
    # The broad plan answers most actions; the rest cost one well-filtered call each, once.
    assert len(extra) < len(actions) / 2, online.report.to_dict()["queries"]
    assert online.report.calls <= 4 + len(extra)


def test_endpoint_variable_points_the_real_client_at_the_fake(
    server: FakeLoggingServer, tmp_path: Path
) -> None:
    client = make_client(PROJECT)
    assert client.project == PROJECT
    page = client.logging_api.api_request(
        method="POST",
        path="/entries:list",
        data={
            "resourceNames": [f"projects/{PROJECT}"],
            "filter": "insertId=e000001",
            "pageSize": 1,
        },
    )
    assert [e["insertId"] for e in page["entries"]] == ["e000001"]


def test_coverage_rule() -> None:
    from mlwiki.logs.plan import (
        Coverage,
        PlannedQuery,
        infrastructure_text,
        platform_filter,
        workload_containers,
        workload_selector,
    )

    selector = workload_selector(WORKLOAD)
    signatures = " OR ".join(
        f'{path}=~"{pattern}"'
        for path in ("textPayload", "jsonPayload.message", "jsonPayload.MESSAGE", "a.b", "c.d")
        for pattern in ("RESOURCE_EXHAUSTED", "heartbeat timeout", "Check failed", "SIGSEGV")
    )
    coverage = Coverage(WINDOW)
    for name, text in [
        ("platform", platform_filter(WORKLOAD)),
        ("workload", workload_containers(WORKLOAD)),
        ("infrastructure", infrastructure_text()),
    ]:
        coverage.add(PlannedQuery(name, text))
    covered = [
        f'log_id("events") AND jsonPayload.involvedObject.name:"{WORKLOAD}" AND {BOUNDS}',
        f'resource.type = "k8s_container" AND resource.labels.pod_name : "{WORKLOAD}-slice-1" '
        f"{BOUNDS}",
        f'resource.type="k8s_node" AND log_id("kubelet") AND resource.labels.node_name='
        f'"{PREEMPTED}" AND {BOUNDS}',
        f'(log_id("cloudaudit.googleapis.com/system_event") OR '
        f'log_id("container.googleapis.com/cluster-autoscaler-visibility")) {BOUNDS}',
        # A workflow step: the selector's alternatives times five fields times four patterns
        # spread into hundreds of branches, yet it is inside the workload's containers ...
        f'resource.type="k8s_container" AND {selector} AND {BOUNDS} AND ({signatures})',
        # ... and, split case by case, inside the containers, the pod events and the nodes.
        f'{BOUNDS} AND (((resource.type="k8s_container" OR resource.type="k8s_pod") AND '
        f'{selector}) OR resource.type="k8s_node") AND ({signatures})',
    ]
    not_covered = [
        f'log_id("events") AND severity>=WARNING AND {BOUNDS}',  # events about anything
        f'resource.labels.node_name="gke-other-1" AND {BOUNDS}',  # any log of a node
        f'jsonPayload.involvedObject.name:"{WORKLOAD}"',  # no time bounds
        'jsonPayload.involvedObject.name:"llm" AND timestamp>="2024-05-01T09:00:00Z" '
        'AND timestamp<="2024-05-01T11:00:00Z"',  # starts before the window
        f'NOT jsonPayload.involvedObject.name:"{WORKLOAD}" AND {BOUNDS}',
        # Any workload's containers: one case of the split is in no source.
        f'{BOUNDS} AND (({selector} AND resource.type="k8s_pod") OR '
        f'resource.type="k8s_container") AND ({signatures})',
    ]
    assert [coverage.covers(compile_filter(text)) for text in covered] == [True] * len(covered)
    assert [coverage.covers(compile_filter(text)) for text in not_covered] == [False] * len(
        not_covered
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("stream_type", "shown"), [(io.StringIO, False), (_Terminal, True)])
def test_progress_is_shown_only_on_a_terminal(
    server: FakeLoggingServer, stream_type: type[io.StringIO], shown: bool
) -> None:
    stream = stream_type()
    with Progress(stream) as progress:
        fetcher_for(server, [], progress=progress).fetch("workload", 'log_id("events")', WINDOW)
    assert bool(stream.getvalue()) is shown
