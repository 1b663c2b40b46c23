"""The live Cloud Logging plan on a job too big to read whole, through the real client.

A generated 8-host incident of ~7k entries (hours of step lines, node chatter, a runtime HBM OOM
at the end) is served by the local Logging API server, with the plan's whole-read limit lowered
to 3 pages so that this small job is handled like a big one (the benchmark,
`benchmarks/bench_live.py`, does 100k and 1M entries at the real limit).
`mlwiki troubleshoot --project` must push its evidence down, sample its progress, follow up on
the culprit, stay within a few dozen time-bounded requests of 1,000 entries, and reach the
diagnosis of the same entries read offline. Then: budgets that run out, throttling storms, the
page cache, the filter-length limit.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mlwiki.logs.cloud import ENDPOINT_ENV, RequestBudget, RetryPolicy
from mlwiki.logs.local import DESCENDING, LocalLogging
from mlwiki.logs.plan import MAX_FILTER_CHARS, TextTarget, pack_text_filters, wrapped
from mlwiki.logs.session import LogSession
from mlwiki.timewindow import resolve_window
from tests.conftest import CliResult, run_cli, troubleshoot_full
from tests.fakes.big_incident import make_bundle
from tests.fakes.logging_server import FakeLoggingServer, serve_logging
from tests.scenarios import PROJECT

WORKLOAD = "mid-run"


def patterns() -> list[str]:
    from mlwiki.diagnose.collect import signature_patterns

    return signature_patterns(None)


@pytest.fixture(scope="module")
def incident(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    bundle = tmp_path_factory.mktemp("incident") / "logs.jsonl"
    info = make_bundle(bundle, 6_000, slices=2, hosts=4, workload=WORKLOAD)
    entries = [json.loads(line) for line in bundle.read_text().splitlines()]
    window = ["--start", info["start"], "--end", info["end"]]
    offline = troubleshoot_full(WORKLOAD, "--bundle", str(bundle), *window, "--format", "json")
    assert offline.code == 0, offline.stderr
    return {**info, "bundle": bundle, "entries": entries, "window": window, "offline": offline}


@pytest.fixture
def api(incident: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLoggingServer]:
    from mlwiki.logs import live

    monkeypatch.setattr(live, "WHOLE_PAGES", 3)
    with serve_logging(incident["entries"]) as server:
        monkeypatch.setenv(ENDPOINT_ENV, server.url)
        yield server


def summary(findings: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": findings["status"],
        "root_cause": (findings["root_cause"] or {}).get("symptom"),
        "culprits": sorted(c["host"] for c in findings["culprit_hosts"]),
        "failures": sorted((f["kind"], f["symptom"], f["host"]) for f in findings["failures"]),
        "evidence": sorted(e["insertId"] for e in findings["evidence"]),
    }


def online(incident: dict[str, Any], *flags: str) -> CliResult:
    result = troubleshoot_full(
        WORKLOAD, "--project", PROJECT, *incident["window"], *flags, "--format", "json"
    )
    assert result.code == 0, result.stderr
    return result


def test_a_large_job_costs_few_requests_and_is_diagnosed_like_offline(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    findings = online(incident).json()
    offline = incident["offline"].json()
    assert findings["status"] == "diagnosed"
    assert findings["culprit_hosts"][0]["host"] == incident["culprit"]
    assert summary(findings) == summary(offline)
    # The evidence was pushed down and the progress sampled, in a few dozen requests.
    assert len(api.requests) <= 30, [r["filter"][:60] for r in api.requests]
    assert any("sample(insertId, " in r["filter"] for r in api.requests)
    assert sum("(?:" in r["filter"] for r in api.requests) >= 2  # signature alternations
    for body in api.requests:
        assert body["pageSize"] == 1000
        assert body["filter"].startswith('timestamp>="') and 'timestamp<="' in body["filter"]
        assert len(body["filter"]) <= MAX_FILTER_CHARS
        # No OR list of host names: only the follow-up names hosts, a few culprits at most.
        assert body["filter"].count("gke-tpu-cluster-") <= 3 * 6
    sampled = findings["data"]["sampled"]
    assert {item["source"] for item in sampled} == {"steps (sampled)", "pulse (sampled)"}
    assert all(
        0 < item["fraction"] < 1 and "sample(insertId, " in item["filter"] for item in sampled
    )
    assert not findings["data"]["partial"]


def test_the_bundle_read_as_live_gives_the_online_findings(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    live = online(incident).json()
    as_live = troubleshoot_full(
        WORKLOAD, "--bundle", str(incident["bundle"]), *incident["window"], "--as-live",
        "--format", "json",
    )  # fmt: skip
    assert as_live.code == 0, as_live.stderr
    replay = as_live.json()
    # The very same entries: the same findings, the same samples, the same evidence.
    assert summary(replay) == summary(live)
    assert replay["evidence"] == live["evidence"]
    assert [s["fraction"] for s in replay["data"]["sampled"]] == [
        s["fraction"] for s in live["data"]["sampled"]
    ]
    assert replay["data"]["entries"] == live["data"]["entries"]
    report = run_cli(
        "troubleshoot", WORKLOAD, "--bundle", str(incident["bundle"]), *incident["window"],
        "--as-live",
    )  # fmt: skip
    assert "Read as a sample" in report.stdout  # the Markdown says so too, per source
    for item in replay["data"]["sampled"]:
        assert f"- `{item['source']}`: {item['fraction'] * 100:.3g}% of the lines" in report.stdout


def test_cache_hits_send_no_request(
    incident: dict[str, Any], api: FakeLoggingServer, tmp_path: Path
) -> None:
    first = online(incident)
    sent = len(api.requests)
    assert summary(online(incident).json()) == summary(first.json())
    assert len(api.requests) == sent  # every page came from the cache
    out = tmp_path / "findings.json"
    out.write_text(first.stdout)
    assert run_cli("verify", str(out)).code == 0
    looked_up = len(api.requests)
    assert looked_up > sent
    assert run_cli("verify", str(out)).code == 0
    assert len(api.requests) == looked_up
    online(incident, "--no-cache")
    assert len(api.requests) > looked_up  # --no-cache asks Cloud Logging again


def test_an_action_reuses_the_pages_of_an_earlier_run(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    command = (
        "action", "query-step-progress", "--project", PROJECT, "--param",
        f"workload={WORKLOAD}", *incident["window"], "--format", "json",
    )  # fmt: skip
    first = run_cli(*command)
    assert first.code == 0, first.stderr
    sent = len(api.requests)
    again = run_cli(*command)
    assert again.json()["count"] == first.json()["count"] > 0
    assert len(api.requests) == sent


def test_a_workflow_run_reuses_the_pages_unless_told_not_to(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    command = (
        "run", "verify-training-stall", "--project", PROJECT, "--param",
        f"workload={WORKLOAD}", *incident["window"], "--format", "json",
    )  # fmt: skip
    first = run_cli(*command)
    assert first.code in (0, 1), first.stderr
    sent = len(api.requests)
    assert sent > 0
    again = run_cli(*command)
    assert again.json()["steps"] == first.json()["steps"]
    assert len(api.requests) == sent  # every page came from the cache
    run_cli(*command, "--no-cache")
    assert len(api.requests) == 2 * sent  # the same requests, asked of Cloud Logging again


def test_a_budget_that_runs_out_reads_the_platform_and_names_the_rerun(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    findings = online(incident, "--max-log-calls", "8").json()
    assert len(api.requests) == 8
    assert 'log_id("events")' in api.requests[0]["filter"]  # the platform sources first
    assert findings["data"]["partial"] is True and findings["status"] == "inconclusive"
    assert any("request budget" in gap for gap in findings["data"]["missing"])
    step = findings["next_steps"][0]["step"]
    command = shlex.split(step.split(": ", 1)[1])
    assert command[:3] == ["mlwiki", "troubleshoot", WORKLOAD]
    assert command[command.index("--max-log-calls") + 1].isdigit()
    sent = len(api.requests)
    rerun = troubleshoot_full(*command[2:], "--format", "json")
    assert rerun.code == 0, rerun.stderr
    completed = rerun.json()
    assert completed["data"]["partial"] is False
    assert summary(completed) == summary(incident["offline"].json())
    # The pages the first run fetched came from the cache: the rerun paid only for the rest.
    assert len(api.requests) - sent < int(command[command.index("--max-log-calls") + 1])


def test_a_rerun_after_the_page_tokens_expired_still_completes(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    findings = online(incident, "--max-log-calls", "8").json()
    assert findings["data"]["partial"] is True
    api.expire_tokens()  # the cached pages' next-page tokens are stale by the time of the rerun
    command = shlex.split(findings["next_steps"][0]["step"].split(": ", 1)[1])
    rerun = troubleshoot_full(*command[2:], "--format", "json")
    assert rerun.code == 0, rerun.stderr
    completed = rerun.json()
    assert completed["data"]["partial"] is False
    assert summary(completed) == summary(incident["offline"].json())


class SharedClock:
    """The quota bucket's clock and sleep, faked, recording when each request was let through."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept: list[float] = []
        self.sent: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_consecutive_commands_stay_under_the_quota_together(
    incident: dict[str, Any], api: FakeLoggingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlwiki.logs import cloud, pacing

    clock = SharedClock()

    class Bucket(pacing.QuotaBucket):
        def take(self) -> None:
            super().take()
            clock.sent.append(clock.now)

    monkeypatch.setattr(
        cloud, "QuotaBucket", lambda project: Bucket(project, clock=clock, sleep=clock.sleep)
    )
    for _ in range(3):  # three commands back to back, each a fresh process' bucket
        online(incident, "--no-cache")
    limit = pacing.tokens_per_minute()
    assert len(clock.sent) == len(api.requests) > limit  # more than a minute's worth in all
    assert clock.slept, "the third command had to wait for the tokens the first two spent"
    for instant in clock.sent:  # no rolling minute ever held more than the bucket's share
        assert sum(instant - 60 < t <= instant for t in clock.sent) <= limit


def no_sleep(sleeps: list[float]) -> RetryPolicy:
    return RetryPolicy(sleep=sleeps.append, random=lambda: 1.0, max_attempts=4)


def test_a_throttling_storm_is_ridden_out_with_backoff(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    window = resolve_window(incident["start"], incident["end"])
    sleeps: list[float] = []
    api.fail_next(429, n=3)
    api.fail_next(503, n=3, after=4)
    session = LogSession.from_cloud(
        PROJECT, window, WORKLOAD, retry=no_sleep(sleeps), cache=False, patterns=patterns()
    )
    assert not session.report.partial, session.report.reasons
    assert sleeps == [1.0, 2.0, 4.0, 1.0, 2.0, 4.0]
    assert sum(q.retries for q in session.report.queries) == 6
    assert session.report.calls == len(api.requests)


def test_a_storm_past_the_retries_leaves_that_source_partial(
    incident: dict[str, Any], api: FakeLoggingServer
) -> None:
    window = resolve_window(incident["start"], incident["end"])
    calm = LogSession.from_cloud(
        PROJECT, window, WORKLOAD, retry=no_sleep([]), cache=False, patterns=patterns()
    )
    before = [q.calls for q in calm.report.queries if q.phase in ("platform", "sources")]
    del api.requests[:]
    # The first signature filter meets a storm longer than the retries.
    api.fail_next(429, n=4, after=sum(before))
    session = LogSession.from_cloud(
        PROJECT,
        window,
        WORKLOAD,
        retry=no_sleep([]),
        budget=RequestBudget(60),
        cache=False,
        patterns=patterns(),
    )
    partial = [q for q in session.report.queries if q.partial]
    assert [q.phase for q in partial] == ["evidence"]
    assert "gave up after 4 attempts (TooManyRequests" in (partial[0].reason or "")
    assert session.report.partial
    assert session.live is not None and session.live.rerun_calls() is not None
    later = [q for q in session.report.queries if q.phase == "progress"]
    assert later and all(not q.partial for q in later)  # the plan went on after the storm


def test_filters_are_packed_up_to_the_limit_and_split_past_it(
    api: FakeLoggingServer,
) -> None:
    window = resolve_window("2025-03-14T09:00:00Z", "2025-03-14T10:00:00Z")
    reserved = len(wrapped(window, ""))
    target = TextTarget('resource.type="k8s_container"', "textPayload")
    pattern = "x" * 100

    def packed(last: int) -> list[str]:
        return pack_text_filters([target], [pattern] * 10 + ["y" * last], reserved)

    one = pack_text_filters([target], [pattern] * 10 + ["y"], reserved)
    room = MAX_FILTER_CHARS - len(wrapped(window, one[0]))
    exact = packed(1 + room)
    assert len(exact) == 1 and len(wrapped(window, exact[0])) == MAX_FILTER_CHARS
    split = packed(2 + room)
    assert len(split) == 2 and all(len(wrapped(window, f)) <= MAX_FILTER_CHARS for f in split)
    # Both halves still search every pattern; the API takes them, and refuses one more byte.
    assert sum(f.count("(?:x") + f.count("(?:y") for f in split) == 11
    from mlwiki.logs.cloud import LoggingFetcher, make_client
    from mlwiki.logs.report import QueryReport

    fetcher = LoggingFetcher(make_client(PROJECT), PROJECT, retry=no_sleep([]))
    for text in [exact[0], *split]:
        fetcher.page(wrapped(window, text), "timestamp asc", None, QueryReport("q", ""), window)
    from mlwiki.errors import BadInput

    with pytest.raises(BadInput, match="longer than 20000"):
        fetcher.page(
            wrapped(window, exact[0]) + " ", "timestamp asc", None, QueryReport("q", ""), window
        )


def test_local_pages_are_the_servers_pages(incident: dict[str, Any]) -> None:
    """The offline evaluation of the plan pages exactly like the API server does."""
    local = LocalLogging(incident["entries"])
    filter_text = 'resource.type="k8s_node" OR textPayload:"step: 1"'
    with serve_logging(incident["entries"]) as server:
        for order in ("timestamp asc", DESCENDING):
            token, offset, served = None, 0, []
            while True:
                body = {
                    "resourceNames": [f"projects/{PROJECT}"],
                    "filter": filter_text,
                    "orderBy": order,
                    "pageSize": 1000,
                    **({"pageToken": token} if token else {}),
                }
                status, page = server.handle("/v2/entries:list", json.dumps(body).encode())
                assert status == 200
                served.extend(page.get("entries", []))
                mine, more = local.page(filter_text, order, offset, 1000)
                assert [e["insertId"] for e in mine] == [
                    e["insertId"] for e in page.get("entries", [])
                ]
                token, offset = page.get("nextPageToken"), offset + 1000
                assert bool(token) is more
                if not token:
                    break
            assert len(served) > 1000
