"""Cloud Monitoring through the real google-cloud-monitoring client: `projects.timeSeries.list`.

- Transport: the client's gRPC transport (the package ships no REST one). With
  `MLWIKI_MONITORING_ENDPOINT=HOST:PORT` it talks plaintext gRPC to that endpoint with anonymous
  credentials (a local server in tests); otherwise to Cloud Monitoring with Application Default
  Credentials.
- Few calls: one request per query and page (`page_size` 100,000 points, the API's maximum),
  every attempt counted against a `MetricBudget` (Monitoring has its own read quota, "Time
  series queries per minute", apart from Logging's).
- Retries: the client's own retry is turned off (`retry=None`) so that every attempt is counted;
  UNAVAILABLE, RESOURCE_EXHAUSTED (429), DEADLINE_EXCEEDED and INTERNAL are retried here with the
  Logging path's backoff (exponential, full jitter, bounded attempts and sleep). Giving up, or
  running out of budget mid-paging, keeps what was fetched and marks the result partial with the
  reason; a permission or argument error is a `BadInput` naming Cloud Monitoring.
- Responses become the REST JSON (`ListTimeSeriesResponse.to_json`), so an export written from
  them is exactly what a bundle's `metrics/*.json` holds.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.errors import BadInput
from mlwiki.logs.cloud import RetryPolicy
from mlwiki.metrics.aggregate import Aggregation
from mlwiki.metrics.series import Series, merge, response_series

ENDPOINT_ENV = "MLWIKI_MONITORING_ENDPOINT"
PAGE_SIZE = 100_000  # points per page (view FULL): the API's maximum
DEFAULT_MAX_CALLS = 20
TIMEOUT = 60.0


def make_client() -> Any:
    """A `monitoring_v3.MetricServiceClient` (see the module docstring for the endpoint)."""
    from google.auth.exceptions import DefaultCredentialsError
    from google.cloud import monitoring_v3

    endpoint = os.environ.get(ENDPOINT_ENV)
    try:
        if endpoint:
            import grpc
            from google.cloud.monitoring_v3.services.metric_service.transports import (
                MetricServiceGrpcTransport,
            )

            target = endpoint.split("://", 1)[-1].rstrip("/")
            channel = grpc.insecure_channel(target)
            return monitoring_v3.MetricServiceClient(
                transport=MetricServiceGrpcTransport(channel=channel)
            )
        return monitoring_v3.MetricServiceClient()
    except DefaultCredentialsError as error:
        raise BadInput(
            f"Cloud Monitoring: no Google Cloud credentials ({error}); run "
            "`gcloud auth application-default login` or use --bundle"
        ) from None


@dataclass
class MetricBudget:
    """How many timeSeries.list calls a run may make (every page and every retry counts)."""

    max_calls: int = DEFAULT_MAX_CALLS
    calls: int = 0

    def take(self) -> bool:
        if self.calls >= self.max_calls:
            return False
        self.calls += 1
        return True


@dataclass
class Fetched:
    """One query's answer: the series, the raw responses' JSON, and whether it is complete."""

    series: list[Series]
    response: dict[str, Any]  # {"timeSeries": [...]} over every page
    calls: int = 0
    partial: bool = False
    reason: Optional[str] = None


def _retryable() -> tuple[type[BaseException], ...]:
    from google.api_core import exceptions

    return (
        exceptions.ServiceUnavailable,
        exceptions.TooManyRequests,
        exceptions.ResourceExhausted,
        exceptions.DeadlineExceeded,
        exceptions.InternalServerError,
    )


class _Stop(Exception):
    """Paging stopped early; the message says why."""


@dataclass
class MonitoringFetcher:
    """Runs `timeSeries.list` queries for one project within one budget."""

    project: str
    client: Any = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget: MetricBudget = field(default_factory=MetricBudget)

    def fetch(
        self, filter_text: str, aggregation: Aggregation, interval: tuple[float, float]
    ) -> Fetched:
        """Every series of `filter_text` over `interval` (epoch seconds), aggregated server-side."""
        from google.cloud import monitoring_v3

        if self.client is None:
            self.client = make_client()
        start, end = interval
        request: dict[str, Any] = {
            "name": f"projects/{self.project}",
            "filter": filter_text,
            "interval": {
                "start_time": {"seconds": int(start)},
                "end_time": {"seconds": int(end)},
            },
            "aggregation": aggregation.to_request(),
            "view": monitoring_v3.ListTimeSeriesRequest.TimeSeriesView.FULL,
            "page_size": PAGE_SIZE,
        }
        items: list[dict[str, Any]] = []
        calls = 0
        try:
            while True:
                page = self._page(request)
                calls += 1
                data = json.loads(type(page).to_json(page, use_integers_for_enums=False))
                items.extend(data.get("timeSeries") or [])
                token = page.next_page_token
                if not token:
                    break
                request["page_token"] = token
        except _Stop as stop:
            response = {"timeSeries": items}
            series = merge(response_series(response, "Cloud Monitoring"))
            return Fetched(series, response, calls, True, str(stop))
        response = {"timeSeries": items}
        return Fetched(merge(response_series(response, "Cloud Monitoring")), response, calls)

    def _page(self, request: dict[str, Any]) -> Any:
        from google.api_core import exceptions

        retries, slept = 0, 0.0
        while True:
            if not self.budget.take():
                raise _Stop(f"Cloud Monitoring call budget of {self.budget.max_calls} used up")
            try:
                pager = self.client.list_time_series(
                    request=dict(request), retry=None, timeout=TIMEOUT
                )
                return next(iter(pager.pages))
            except _retryable() as error:
                retries += 1
                delay = self.retry.delay(retries)
                if retries >= self.retry.max_attempts or slept + delay > self.retry.max_total_sleep:
                    raise _Stop(
                        f"Cloud Monitoring gave up after {retries} attempts "
                        f"({type(error).__name__}: {error.message})"
                    ) from None
                self.retry.sleep(delay)
                slept += delay
            except exceptions.GoogleAPICallError as error:
                raise BadInput(
                    f"Cloud Monitoring (projects/{self.project}): {type(error).__name__}: "
                    f"{error.message}"
                ) from None
