"""Cloud Monitoring: the filter language, aggregation, the real client against the local
Monitoring server, and an offline bundle's `metrics/` answering the same queries."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import grpc
import pytest

from mlwiki.errors import BadInput
from mlwiki.logs.cloud import RetryPolicy
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.cloud import ENDPOINT_ENV, MetricBudget, MonitoringFetcher
from mlwiki.metrics.filter import compile_filter, labels_reader
from mlwiki.metrics.source import BundleMetrics, CloudMetrics, write_export
from mlwiki.metrics.summary import summarize
from mlwiki.timewindow import Window
from tests.fakes.monitoring_server import FakeMonitoringServer, gauge, serve_monitoring

DUTY = "kubernetes.io/container/accelerator/duty_cycle"
T0 = 1_767_225_600  # 2026-01-01T00:00:00Z
WORKLOAD_FILTER = f'metric.type = "{DUTY}" AND resource.labels.pod_name = starts_with("job-")'
BY_POD = Aggregation(60, "ALIGN_MEAN", "REDUCE_MEAN", ("resource.label.pod_name",))


def window(start: float, end: float) -> Window:
    return Window(
        datetime.fromtimestamp(start, timezone.utc), datetime.fromtimestamp(end, timezone.utc)
    )


def duty_series(hosts: int = 3, chips: int = 2, seed: int = 5) -> list[dict[str, Any]]:
    """Chips sampled every 60 s at irregular offsets; host 0 goes idle after 30 minutes."""
    rng = random.Random(seed)
    series = []
    for host in range(hosts):
        for chip in range(chips):
            points = [
                (
                    T0 + 60 * i + rng.randint(1, 59),
                    0 if (host == 0 and i >= 30) else rng.randint(80, 99),
                )
                for i in range(60)
            ]
            series.append(
                gauge(
                    DUTY,
                    {"pod_name": f"job-0-{host}", "cluster_name": "c"},
                    points,
                    metric_labels={"accelerator_id": f"chip-{chip}"},
                )
            )
    series.append(gauge(DUTY, {"pod_name": "other-0-0"}, [(T0 + 30, 50)]))  # another workload
    return series


@pytest.fixture
def monitoring(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMonitoringServer]:
    with serve_monitoring(duty_series()) as server:
        monkeypatch.setenv(ENDPOINT_ENV, server.endpoint)
        yield server


def no_sleep() -> RetryPolicy:
    return RetryPolicy(sleep=lambda _: None, random=lambda: 0.5)


def test_filters_parse_select_and_refuse_what_the_api_would_not_take() -> None:
    compiled = compile_filter(
        f'metric.type = "{DUTY}" resource.labels."pod_name" = one_of("a", "b") '
        'AND NOT metric.labels.accelerator_id = monitoring.regex.full_match("chip-[13]")'
    )
    assert compiled.metric_type == DUTY
    series = {
        "metric": {"type": DUTY, "labels": {"accelerator_id": "chip-0"}},
        "resource": {"type": "k8s_container", "labels": {"pod_name": "b"}},
    }
    assert compiled.matches(labels_reader(series))
    series["metric"]["labels"]["accelerator_id"] = "chip-3"
    assert not compiled.matches(labels_reader(series))
    for bad, why in [
        ('resource.labels.pod_name = "a"', "exactly one metric type"),
        (f'metric.type = "{DUTY}" OR metric.type = "x"', "exactly one metric type"),
        (f'metric.type = "{DUTY}" AND resource.type = "a" OR resource.type = "b"', "mixed"),
        (
            f'metric.type = "{DUTY}" AND metric.labels.x = monitoring.regex.full_match("(?<=a)")',
            "RE2",
        ),
        (f'metric.type = "{DUTY}" AND jsonPayload.x = "a"', "not a selector"),
        (f'metric.type = "{DUTY}" AND (', "not a Monitoring filter"),
    ]:
        with pytest.raises(BadInput, match=why):
            compile_filter(bad, "filter")


def test_a_hostile_value_stays_one_string_in_a_rendered_metric_filter() -> None:
    from mlwiki.engine.render import render_metric_filter
    from mlwiki.wiki import Action

    action = Action(
        "a",
        Path("a.json"),
        {"filter": f'metric.type = "{DUTY}" AND resource.labels.pod_name = {{{{ pod }}}}'},
        "",
    )
    hostile = 'x" OR metric.type = "y'
    rendered = render_metric_filter(action, {"pod": hostile})
    compiled = compile_filter(rendered)
    assert compiled.metric_type == DUTY
    series = {
        "metric": {"type": DUTY},
        "resource": {"type": "k8s_container", "labels": {"pod_name": hostile}},
    }
    assert compiled.matches(labels_reader(series))


def test_the_real_client_gets_the_aggregation_the_bundle_computes(
    monitoring, tmp_path: Path
) -> None:
    live = CloudMetrics("demo-project")
    span = window(T0 + 10, T0 + 3590)
    got = live.query(WORKLOAD_FILTER, BY_POD, span)
    assert (got.calls, got.partial) == (1, False)
    request = monitoring.requests[0]
    assert request["interval"] == {
        "startTime": "2026-01-01T00:00:00Z",
        "endTime": "2026-01-01T01:00:00Z",
    }
    assert request["aggregation"]["crossSeriesReducer"] == "REDUCE_MEAN"
    assert sorted(s.pod for s in got.series) == ["job-0-0", "job-0-1", "job-0-2"]
    # The same raw series in a bundle answer the same query with the same points.
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "raw.json").write_text(json.dumps({"timeSeries": duty_series()}))
    offline = BundleMetrics(tmp_path).query(WORKLOAD_FILTER, BY_POD, span)
    as_points = lambda result: sorted((s.pod, tuple(s.points)) for s in result.series)  # noqa: E731
    assert as_points(offline) == as_points(got)
    # And what the live query returned, exported, replays the same.
    export = tmp_path / "export"
    write_export(live.fetched, export)
    assert [p.name for p in (export / "metrics").iterdir()] == ["accelerator-duty-cycle.json"]
    data = json.loads((export / "metrics" / "accelerator-duty-cycle.json").read_text())
    assert set(data) == {"timeSeries"}
    stamps = [p["interval"]["endTime"] for p in data["timeSeries"][0]["points"]]
    assert stamps == sorted(stamps, reverse=True)  # newest first, as timeSeries.list returns them
    assert as_points(BundleMetrics(export).query(WORKLOAD_FILTER, BY_POD, span)) == as_points(got)


def test_outputs_name_the_idle_host_and_when_it_went_idle(monitoring) -> None:
    got = CloudMetrics("demo-project").query(WORKLOAD_FILTER, BY_POD, window(T0, T0 + 3600))
    outputs = summarize(got.series, threshold=1)
    assert outputs["count"] == 3 and outputs["low_hosts"] == ["job-0-0"]
    assert outputs["high_hosts"] == ["job-0-1", "job-0-2"]
    assert outputs["first_low_host"] == "job-0-0"
    assert outputs["first_low_since"] == "2026-01-01T00:31:00Z"
    assert outputs["low_since"] is None  # not every host is idle
    assert outputs["min"] == 0 and outputs["last"] >= 80


def test_paging_and_retries_are_counted_and_a_give_up_is_partial(monitoring) -> None:
    monitoring.page_limit = 70  # one pod's series per page
    monitoring.fail_next(grpc.StatusCode.UNAVAILABLE, n=1, after=1)
    fetcher = MonitoringFetcher("demo-project", retry=no_sleep())
    got = fetcher.fetch(WORKLOAD_FILTER, BY_POD, BY_POD.request_interval(window(T0, T0 + 3600)))
    assert not got.partial and len(got.series) == 3
    assert fetcher.budget.calls == 4  # three pages and one retry
    tokens = [r.get("pageToken") for r in monitoring.requests]
    assert tokens[0] == "" and tokens[1] == tokens[2] != ""  # the retry asked for the same page
    monitoring.fail_next(grpc.StatusCode.RESOURCE_EXHAUSTED, n=10, after=1)
    tired = MonitoringFetcher(
        "demo-project", retry=RetryPolicy(max_attempts=3, sleep=lambda _: None)
    )
    cut = tired.fetch(WORKLOAD_FILTER, BY_POD, BY_POD.request_interval(window(T0, T0 + 3600)))
    assert cut.partial and "gave up after 3 attempts" in (cut.reason or "")
    assert [s.pod for s in cut.series] == ["job-0-0"]  # what came before is kept
    broke = MonitoringFetcher("demo-project", budget=MetricBudget(2), retry=no_sleep())
    capped = broke.fetch(WORKLOAD_FILTER, BY_POD, BY_POD.request_interval(window(T0, T0 + 3600)))
    assert capped.partial and "budget of 2" in (capped.reason or "")


def test_a_filter_the_api_refuses_is_bad_input_naming_cloud_monitoring(monitoring) -> None:
    fetcher = MonitoringFetcher("demo-project", retry=no_sleep())
    with pytest.raises(BadInput, match=r"Cloud Monitoring .*InvalidArgument"):
        fetcher.fetch('resource.type = "k8s_container"', BY_POD, (T0, T0 + 3600))


def test_a_bundle_without_metrics_answers_partial_and_a_bad_file_is_named(tmp_path: Path) -> None:
    empty = BundleMetrics(tmp_path).query(WORKLOAD_FILTER, BY_POD, window(T0, T0 + 3600))
    assert (
        empty.series == []
        and empty.partial
        and "no Cloud Monitoring metrics" in (empty.reason or "")
    )
    (tmp_path / "metrics").mkdir()
    bad = tmp_path / "metrics" / "duty.json"
    bad.write_text(
        json.dumps(
            {
                "timeSeries": [
                    {
                        "metric": {"type": DUTY},
                        "resource": {"type": "k8s_container"},
                        "points": [
                            {"interval": {"endTime": "yesterday"}, "value": {"int64Value": "1"}}
                        ],
                    }
                ]
            }
        )
    )
    with pytest.raises(
        BadInput, match=r"duty\.json: timeSeries\[0\]\.points\[0\]: interval\.endTime"
    ):
        BundleMetrics(tmp_path).query(WORKLOAD_FILTER, BY_POD, window(T0, T0 + 3600))


def test_aggregation_specs_are_checked_like_the_api_checks_them() -> None:
    for spec, why in [
        ({"alignment_period": "30s"}, "whole number of minutes"),
        (
            {"per_series_aligner": "ALIGN_NONE", "cross_series_reducer": "REDUCE_MEAN"},
            "needs a per_series_aligner",
        ),
        ({"group_by_fields": ["resource.label.pod_name"]}, "grouping needs"),
        (
            {"cross_series_reducer": "REDUCE_MEAN", "group_by_fields": ["pod_name"]},
            "not a label field",
        ),
        ({"per_series_aligner": "ALIGN_RATE"}, "not one of"),
    ]:
        with pytest.raises(BadInput, match=why):
            Aggregation.from_spec(spec, "aggregation")


def test_metric_query_actions_run_live_and_offline_through_the_cli(
    cli, monitoring, tmp_path: Path
) -> None:
    args = [
        "--param",
        "workload=job",
        "--start",
        "2026-01-01T00:00:00Z",
        "--end",
        "2026-01-01T01:00:00Z",
    ]
    live = cli("action", "query-tpu-duty-cycle", "--project", "demo-project", *args)
    assert live.code == 0, live.stderr
    data = live.json()
    assert data["outputs"]["low_hosts"] == ["job-0-0"] and data["partial"] is False
    bundle = tmp_path / "bundle"
    (bundle / "metrics").mkdir(parents=True)
    (bundle / "metrics" / "duty.json").write_text(json.dumps({"timeSeries": duty_series()}))
    (bundle / "logs.json").write_text(
        json.dumps(
            [
                {
                    "insertId": "a",
                    "timestamp": "2026-01-01T00:10:00Z",
                    "logName": "projects/p/logs/stdout",
                    "resource": {
                        "type": "k8s_container",
                        "labels": {"pod_name": "job-0-0", "container_name": "main"},
                    },
                    "labels": {"compute.googleapis.com/resource_name": "gke-node-7"},
                    "textPayload": "hello",
                }
            ]
        )
    )
    offline = cli("action", "query-tpu-duty-cycle", "--bundle", str(bundle), *args)
    assert offline.code == 0, offline.stderr
    assert offline.json()["outputs"]["low_hosts"] == ["gke-node-7"]  # the pod's node, from the logs
    text = cli("action", "query-tpu-duty-cycle", "--bundle", str(bundle), *args, "--format", "text")
    assert "last 0, low since 2026-01-01T00:31:00Z  gke-node-7" in text.stdout
    missing = cli("action", "query-tpu-duty-cycle", *args)
    assert missing.code == 2 and "metric query" in missing.stderr


def test_the_strip_of_a_thousand_hosts_stays_a_few_rows_with_the_outliers_first() -> None:
    from mlwiki.diagnose.metric_evidence import DutyView, HostSeries, find_pattern
    from mlwiki.metrics.report import MAX_ROWS, strip_rows
    from mlwiki.metrics.series import Point, Series

    rng = random.Random(1)
    hosts = []
    for number in range(1000):
        wedged = number in (17, 503)
        points = [
            Point(T0 + 60 * i, 0.0 if wedged and i >= 40 else float(rng.randint(80, 99)))
            for i in range(1, 61)
        ]
        series = Series(DUTY, {}, "k8s_container", {"pod_name": f"job-0-{number}"}, points)
        hosts.append(HostSeries(f"node-{number:04d}", f"job-0-{number}", series))
    names = {id(h.series): h.host for h in hosts}
    rows = strip_rows(
        [h.series for h in hosts], T0, T0 + 3600, host_of=lambda s: names[id(s)], threshold=1
    )
    assert len(rows) <= MAX_ROWS
    assert sum(len(r.hosts) for r in rows) == 1000
    assert rows[0].hosts == ["node-0017", "node-0503"] and rows[0].last == 0
    view = DutyView("test", True, DUTY, BY_POD, hosts)
    pattern = find_pattern(view)
    assert pattern is not None and pattern.kind == "wrong_host"
    assert [h.host for h in pattern.culprits] == ["node-0017", "node-0503"]
