"""Cloud Logging through the real google-cloud-logging client: few queries, retried, paged by us.

Traps of the client this module avoids (see the project's test-backends notes):
- `Client.list_entries` silently adds a 24 h window to filters without the word "timestamp":
  every request here carries explicit `timestamp>=` and `timestamp<=` bounds.
- The HTTP transport does not retry, not even 429: retryable errors (429, 500, 503, deadline
  and connection errors) are retried with exponential backoff and full jitter, within a budget of
  attempts and total sleep (`RetryPolicy`; sleep and random are injectable for tests).
- `max_results` is never sent and the page size defaults to 50: we send `pageSize=1000`.
- The entry generator hides page tokens: we request pages ourselves (`entries:list` through the
  client's own connection, `client.logging_api.api_request`), so a failure mid-paging resumes
  from the last token instead of restarting, and every page is one counted call.
- Every request takes a token from the project's quota bucket first (`mlwiki.logs.pacing`: under
  the per-minute read quota across phases and runs), and a page already fetched by an earlier
  command comes from the page cache (`mlwiki.logs.cache`) with no request at all.
- Page tokens expire, and a cached page can outlive the token it carries (a rerun that resumes
  where a partial run stopped, hours later). When a request whose token came from a cached page
  is rejected, the pages before it are read again from the API (counted calls, cached anew) for a
  live token, once; any other rejected request is the user's input error, as before.
- Entries stay the JSON the API returned — the same dicts `gcloud logging read --format=json`
  writes — so a bundle and the API are diagnosed identically (converting to `LogEntry` objects
  and back would drop nanoseconds and, off Google Cloud, stall on metadata-server lookups).

`MLWIKI_LOGGING_ENDPOINT` points the client at another endpoint (a local server in tests): then
it uses anonymous credentials. The client's project is always set explicitly.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from mlwiki.errors import BadInput
from mlwiki.logs.cache import PageCache
from mlwiki.logs.pacing import QuotaBucket
from mlwiki.logs.report import QueryReport
from mlwiki.progress import Progress
from mlwiki.timewindow import Window

ENDPOINT_ENV = "MLWIKI_LOGGING_ENDPOINT"
PAGE_SIZE = 1000  # the API's maximum
DEFAULT_MAX_CALLS = 50  # a run's entries.list requests; the bucket paces them under the quota
DEFAULT_MAX_ENTRIES = 500_000
ORDER_BY = "timestamp asc"
NEWEST_FIRST = "timestamp desc"


def make_client(project: str) -> Any:
    """A `google.cloud.logging.Client` for `project`, on the HTTP/JSON transport."""
    from google.auth.exceptions import DefaultCredentialsError
    from google.cloud import logging as cloud_logging

    endpoint = os.environ.get(ENDPOINT_ENV)
    try:
        if endpoint:
            from google.auth.credentials import AnonymousCredentials

            return cloud_logging.Client(
                project=project,
                credentials=AnonymousCredentials(),
                _use_grpc=False,
                client_options={"api_endpoint": endpoint},
            )
        return cloud_logging.Client(project=project, _use_grpc=False)
    except DefaultCredentialsError as error:
        raise BadInput(
            f"--project {project}: no Google Cloud credentials ({error}); run "
            "`gcloud auth application-default login` or use --bundle"
        ) from None


def _retryable_errors() -> tuple[type[BaseException], ...]:
    from google.api_core import exceptions
    from requests import exceptions as http_errors

    return (
        exceptions.TooManyRequests,
        exceptions.ServiceUnavailable,
        exceptions.InternalServerError,
        exceptions.DeadlineExceeded,
        exceptions.GatewayTimeout,
        http_errors.ConnectionError,
        http_errors.Timeout,
    )


@dataclass
class RetryPolicy:
    """Exponential backoff with full jitter, bounded by attempts and by total time asleep."""

    max_attempts: int = 6
    max_total_sleep: float = 120.0
    initial_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 32.0
    sleep: Callable[[float], None] = time.sleep
    random: Callable[[], float] = random.random

    def delay(self, retry: int) -> float:
        """The pause before retry number `retry` (1-based)."""
        ceiling = min(self.max_delay, self.initial_delay * self.multiplier ** (retry - 1))
        return ceiling * self.random()


@dataclass
class RequestBudget:
    """How many entries.list calls a collection may make (every page and every retry counts)."""

    max_calls: int = DEFAULT_MAX_CALLS
    calls: int = 0

    def take(self) -> bool:
        if self.calls >= self.max_calls:
            return False
        self.calls += 1
        return True


class Incomplete(Exception):
    """Paging stopped early; the message says why (goes into the report)."""


class Rejected(BadInput):
    """Cloud Logging refused a request (HTTP `status`, e.g. 400 for a bad filter or token)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class LoggingFetcher:
    """Runs server-side-filtered list queries for one project, within one request budget."""

    client: Any
    project: str
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget: RequestBudget = field(default_factory=RequestBudget)
    page_size: int = PAGE_SIZE
    max_entries: int = DEFAULT_MAX_ENTRIES
    progress: Optional[Progress] = None
    bucket: Optional[QuotaBucket] = None
    cache: Optional[PageCache] = None
    fetched: int = 0
    # A next-page token read from a cached page → (its query's first-page request, how many
    # pages precede the page it asks for), so an expired one can be fetched again.
    _cached_tokens: dict[str, tuple[dict[str, Any], int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.bucket is None:
            self.bucket = QuotaBucket(self.project)

    def fetch(
        self, name: str, filter_text: str, window: Window
    ) -> tuple[list[dict[str, Any]], QueryReport]:
        """All entries of `filter_text` inside `window`, page by page, oldest first."""
        from mlwiki.logs.plan import wrapped

        full_filter = wrapped(window, filter_text)
        report = QueryReport(name=name, filter=full_filter)
        entries: list[dict[str, Any]] = []
        token: Optional[str] = None
        task = self.progress.task(f"Cloud Logging: {name}") if self.progress else None
        try:
            while True:
                batch, token = self.page(full_filter, ORDER_BY, token, report, window)
                room = self.max_entries - self.fetched
                entries.extend(batch[:room])
                self.fetched += min(len(batch), room)
                if task is not None:
                    task.advance(min(len(batch), room))
                if len(batch) > room or (token and self.fetched >= self.max_entries):
                    raise Incomplete(f"stopped at the cap of {self.max_entries} entries")
                if not token:
                    break
        except Incomplete as stop:
            report.partial = True
            report.reason = f"{name}: {stop}"
        finally:
            if task is not None:
                task.done()
        report.entries = len(entries)
        return entries, report

    def page(
        self,
        full_filter: str,
        order: str,
        token: Optional[str],
        report: QueryReport,
        window: Window,
    ) -> tuple[list[dict[str, Any]], Optional[str]]:
        """One page of a query (`full_filter` carries its time bounds): from the cache, else one
        request (retried); its entries and the next page's token."""
        body: dict[str, Any] = {
            "resourceNames": [f"projects/{self.project}"],
            "filter": full_filter,
            "orderBy": order,
            "pageSize": self.page_size,
        }
        head, depth = (dict(body), 0)
        if token:
            body["pageToken"] = token
            head, depth = self._cached_tokens.get(token, (head, -1))
        page = self.cache.get(body) if self.cache is not None else None
        if page is not None:
            report.cached += 1
            if page.get("nextPageToken") and depth >= 0:
                self._cached_tokens[page["nextPageToken"]] = (head, depth + 1)
        else:
            try:
                page = self._request(body, report)
            except Rejected as error:
                if not (token and depth > 0 and error.status == 400):
                    raise
                body["pageToken"] = self._live_token(head, depth, report, window)
                page = self._request(body, report)
            self._keep(body, page, window)
        report.pages += 1
        return list(page.get("entries") or []), page.get("nextPageToken") or None

    def _live_token(
        self, head: dict[str, Any], depth: int, report: QueryReport, window: Window
    ) -> str:
        """The token of page `depth` of `head`'s query, read again from the API: the cached one
        was rejected (expired)."""
        token: Optional[str] = None
        for _ in range(depth):
            body = dict(head, pageToken=token) if token else dict(head)
            page = self._request(body, report)
            self._keep(body, page, window)
            report.refetched += 1
            token = page.get("nextPageToken") or None
            if token is None:
                raise Incomplete(
                    "its cached pages no longer agree with Cloud Logging (rerun with --no-cache)"
                )
        assert token is not None
        return token

    def _keep(self, body: dict[str, Any], page: dict[str, Any], window: Window) -> None:
        if self.cache is not None:
            self.cache.put(body, page, window.end.timestamp())

    def _request(self, body: dict[str, Any], report: QueryReport) -> dict[str, Any]:
        """One page from the API, retried on throttling and transient errors."""
        from google.api_core import exceptions

        retryable = _retryable_errors()
        retries = 0
        slept = 0.0
        while True:
            if not self.budget.take():
                raise Incomplete(f"request budget of {self.budget.max_calls} calls used up")
            assert self.bucket is not None
            self.bucket.take()
            report.calls += 1
            try:
                return self.client.logging_api.api_request(
                    method="POST", path="/entries:list", data=dict(body)
                )
            except retryable as error:
                retries += 1
                report.retries += 1
                delay = self.retry.delay(retries)
                if retries >= self.retry.max_attempts or slept + delay > self.retry.max_total_sleep:
                    raise Incomplete(
                        f"gave up after {retries} attempts ({type(error).__name__}: {error})"
                    ) from None
                self.retry.sleep(delay)
                slept += delay
            except exceptions.GoogleAPICallError as error:
                raise Rejected(
                    f"Cloud Logging (projects/{self.project}): {type(error).__name__}: "
                    f"{error.message}",
                    status=int(error.code or 0),
                ) from None
