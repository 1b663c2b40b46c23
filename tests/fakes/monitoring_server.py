"""A local stand-in for Cloud Monitoring's `projects.timeSeries.list`, for the real client.

A gRPC server (the google-cloud-monitoring client speaks gRPC) on 127.0.0.1 with an ephemeral
port, serving `google.monitoring.v3.MetricService/ListTimeSeries` from a list of time series in
the REST JSON form (`{"metric", "resource", "metricKind", "valueType", "points"}`, points in
any order). It implements, on its own (not with the project's code, so the two can disagree):
- the filter: `metric.type`, `resource.type`, `project`, `resource.labels.K` / `resource.label.K`,
  `metric.labels.K` / `metric.label.K`, `metadata.system_labels.K`, with `=`, `!=`, `:`, `<`,
  `>`, `<=`, `>=`, `starts_with`, `ends_with`, `has_substring`, `one_of`,
  `monitoring.regex.full_match`, AND (or juxtaposition), OR, NOT and parentheses; a filter that
  names no single metric type is INVALID_ARGUMENT, as the API says;
- the interval (points with `start < end_time <= end`), and the aggregation: per-series
  alignment in periods that end at the interval's end (MEAN, MIN, MAX, SUM, COUNT, NEXT_OLDER),
  then cross-series reduction over `group_by_fields` (MEAN, MIN, MAX, SUM, COUNT);
- paging by points (`page_size`, default 100,000) with tokens bound to the request;
- points newest first in every response;
- fault injection: `fail_next(grpc.StatusCode.UNAVAILABLE, n=2, after=0)`; every request is
  recorded (`requests`, as dicts).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Iterable, Iterator
from concurrent import futures
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Optional

import grpc
from google.cloud.monitoring_v3 import ListTimeSeriesRequest, ListTimeSeriesResponse

SERVICE = "google.monitoring.v3.MetricService"
DEFAULT_PAGE = 100_000


def _epoch(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _stamp(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# ----------------------------------------------------------------------------------- filters

_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:\\.|[^"\\])*")|(?P<op>!=|>=|<=|=|>|<|:)|(?P<paren>[(),])'
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_.]*)|(?P<number>-?[0-9]+(?:\.[0-9]+)?))"
)


class FilterError(ValueError):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    out, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise FilterError(
                f"cannot parse filter at {position}: {text[position : position + 20]!r}"
            )
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        position = match.end()
    return out


def _text(token: str) -> str:
    return json.loads(token)


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.position = 0
        self.metric_types: list[str] = []

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.position += 1
        return token

    def parse(self) -> Callable[[dict[str, Any]], bool]:
        predicate = self.disjunction()
        if self.peek()[0] != "end":
            raise FilterError(f"unexpected {self.peek()[1]!r}")
        return predicate

    def disjunction(self) -> Callable[[dict[str, Any]], bool]:
        parts = [self.conjunction()]
        while self.peek() == ("word", "OR"):
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else (lambda s: any(p(s) for p in parts))

    def conjunction(self) -> Callable[[dict[str, Any]], bool]:
        parts = [self.unary()]
        while self.peek()[0] != "end" and self.peek() not in (("word", "OR"), ("paren", ")")):
            if self.peek() == ("word", "AND"):
                self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda s: all(p(s) for p in parts))

    def unary(self) -> Callable[[dict[str, Any]], bool]:
        if self.peek() == ("word", "NOT"):
            self.take()
            inner = self.unary()
            return lambda s: not inner(s)
        if self.peek() == ("paren", "("):
            self.take()
            inner = self.disjunction()
            if self.take() != ("paren", ")"):
                raise FilterError("missing ')'")
            return inner
        return self.comparison()

    def selector(self) -> list[str]:
        kind, word = self.take()
        if kind != "word":
            raise FilterError(f"expected a selector, got {word!r}")
        parts = word.split(".")
        if parts[-1] == "" and self.peek()[0] == "string":  # a quoted key: labels."a/b"
            parts[-1] = _text(self.take()[1])
        return parts

    def comparison(self) -> Callable[[dict[str, Any]], bool]:
        parts = self.selector()
        kind, op = self.take()
        if kind != "op":
            raise FilterError(f"expected an operator after {'.'.join(parts)}")
        read = _reader(parts)
        kind, value = self.take()
        if (
            kind == "word" and value in ("starts_with", "ends_with", "has_substring", "one_of")
        ) or (kind == "word" and value == "monitoring.regex.full_match"):
            if self.take() != ("paren", "("):
                raise FilterError(f"{value} needs '('")
            args = []
            while self.peek() != ("paren", ")"):
                token_kind, token = self.take()
                if token_kind == "string":
                    args.append(_text(token))
                elif token != ",":
                    raise FilterError(f"bad argument {token!r}")
            self.take()
            test = _function(value, args)
            matcher = (
                (lambda v: v is not None and test(v))
                if op == "="
                else (lambda v: v is None or not test(v))
            )
        else:
            wanted = _text(value) if kind == "string" else value
            if parts == ["metric", "type"] and op == "=":
                self.metric_types.append(wanted)
            matcher = _compare(op, wanted)
        return lambda s: matcher(read(s))


def _function(name: str, args: list[str]) -> Callable[[str], bool]:
    if name == "starts_with":
        return lambda v: v.startswith(args[0])
    if name == "ends_with":
        return lambda v: v.endswith(args[0])
    if name == "has_substring":
        return lambda v: args[0] in v
    if name == "one_of":
        return lambda v: v in args
    pattern = re.compile(args[0])
    return lambda v: pattern.fullmatch(v) is not None


def _compare(op: str, wanted: str) -> Callable[[Optional[str]], bool]:
    if op == "=":
        return lambda v: v == wanted
    if op == "!=":
        return lambda v: v != wanted
    if op == ":":
        return lambda v: v is not None and wanted in v
    number = float(wanted)
    ops = {">": float.__gt__, "<": float.__lt__, ">=": float.__ge__, "<=": float.__le__}
    return lambda v: v is not None and ops[op](float(v), number)


def _reader(parts: list[str]) -> Callable[[dict[str, Any]], Optional[str]]:
    head = parts[0]
    if parts in (["metric", "type"], ["resource", "type"]):
        return lambda s: (s.get(head) or {}).get("type")
    if parts == ["project"]:
        return lambda s: ((s.get("resource") or {}).get("labels") or {}).get("project_id")
    if len(parts) == 3 and head in ("metric", "resource") and parts[1] in ("labels", "label"):
        key = parts[2]
        return lambda s: ((s.get(head) or {}).get("labels") or {}).get(key)
    if len(parts) == 3 and head == "metadata" and parts[1] in ("system_labels", "user_labels"):
        key, section = parts[2], "systemLabels" if parts[1] == "system_labels" else "userLabels"
        return lambda s: ((s.get("metadata") or {}).get(section) or {}).get(key)
    raise FilterError(f"unknown selector {'.'.join(parts)}")


# ------------------------------------------------------------------------------ aggregation


def _value(point: dict[str, Any]) -> float:
    value = point["value"]
    for name in ("doubleValue", "int64Value"):
        if name in value:
            return float(value[name])
    return 1.0 if value.get("boolValue") else 0.0


def _points(series: dict[str, Any], start: float, end: float) -> list[tuple[float, float]]:
    found = []
    for point in series.get("points") or []:
        when = _epoch(point["interval"]["endTime"])
        if start < when <= end:
            found.append((when, _value(point)))
    return sorted(found)


_FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "MEAN": lambda v: sum(v) / len(v),
    "MIN": min,
    "MAX": max,
    "SUM": sum,
    "COUNT": lambda v: float(len(v)),
    "NEXT_OLDER": lambda v: v[-1],
}


def _align(
    points: list[tuple[float, float]], aligner: str, period: float, end: float
) -> list[tuple[float, float]]:
    buckets: dict[float, list[float]] = {}
    for when, value in points:
        k = math.floor((end - when) / period)
        buckets.setdefault(end - k * period, []).append(value)
    function = _FUNCTIONS[aligner.split("_", 1)[1]]
    return [(t, function(v)) for t, v in sorted(buckets.items())]


def _group_value(series: dict[str, Any], field: str) -> Optional[str]:
    parts = field.split(".", 2)
    return _reader([parts[0], "labels" if parts[1] in ("label", "labels") else parts[1], parts[2]])(
        series
    )


def _value_type(function: str, given: str) -> str:
    return {"MEAN": "DOUBLE", "COUNT": "INT64"}.get(function, given)


def _point_json(when: float, value: float, value_type: str) -> dict[str, Any]:
    stamp = _stamp(when)
    if value_type == "INT64":
        encoded: dict[str, Any] = {"int64Value": str(round(value))}
    else:
        encoded = {"doubleValue": value}
    return {"interval": {"startTime": stamp, "endTime": stamp}, "value": encoded}


def evaluate(stored: list[dict[str, Any]], request: dict[str, Any]) -> list[dict[str, Any]]:
    """The series a ListTimeSeries request gets (before paging), points newest first."""
    parser = _Parser(request.get("filter", ""))
    predicate = parser.parse()
    if len(set(parser.metric_types)) != 1:
        raise FilterError("the filter must specify exactly one metric type")
    interval = request.get("interval") or {}
    end = _epoch(interval["endTime"])
    start = _epoch(interval["startTime"]) if interval.get("startTime") else end - 60
    aggregation = request.get("aggregation") or {}
    aligner = aggregation.get("perSeriesAligner", "ALIGN_NONE")
    reducer = aggregation.get("crossSeriesReducer", "REDUCE_NONE")
    period = float(str(aggregation.get("alignmentPeriod", "60s")).rstrip("s") or 60)
    chosen = [s for s in stored if predicate(s)]
    out: list[tuple[dict[str, Any], list[tuple[float, float]], str]] = []
    for series in chosen:
        points = _points(series, start, end)
        value_type = series.get("valueType", "DOUBLE")
        if aligner != "ALIGN_NONE":
            points = _align(points, aligner, period, end)
            value_type = _value_type(aligner.split("_", 1)[1], value_type)
        if points:
            out.append((series, points, value_type))
    if reducer != "REDUCE_NONE":
        fields = list(aggregation.get("groupByFields") or [])
        function = reducer.split("_", 1)[1]
        groups: dict[
            tuple[Any, ...], list[tuple[dict[str, Any], list[tuple[float, float]], str]]
        ] = {}
        for item in out:
            groups.setdefault(tuple(_group_value(item[0], f) for f in fields), []).append(item)
        reduced = []
        for key, members in groups.items():
            by_time: dict[float, list[float]] = {}
            for _, points, _ in members:
                for when, value in points:
                    by_time.setdefault(when, []).append(value)
            first = members[0][0]
            kept: dict[str, dict[str, str]] = {"metric": {}, "resource": {}}
            for name, value in zip(fields, key):
                section = name.split(".", 1)[0]
                if value is not None and section in kept:
                    kept[section][name.split(".", 2)[2]] = value
            series = {
                "metric": {"type": first["metric"]["type"], "labels": kept["metric"]},
                "resource": {"type": first["resource"]["type"], "labels": kept["resource"]},
                "metricKind": first.get("metricKind", "GAUGE"),
                "valueType": first.get("valueType", "DOUBLE"),
            }
            points = [(t, _FUNCTIONS[function](v)) for t, v in sorted(by_time.items())]
            reduced.append((series, points, _value_type(function, members[0][2])))
        out = reduced
    response = []
    for series, points, value_type in out:
        item = {k: v for k, v in series.items() if k != "points"}
        item["valueType"] = value_type
        item["points"] = [_point_json(t, v, value_type) for t, v in reversed(points)]
        response.append(item)
    return response


# ---------------------------------------------------------------------------------- server


class FakeMonitoringServer:
    def __init__(self, series: Iterable[dict[str, Any]] = ()) -> None:
        self.series: list[dict[str, Any]] = list(series)
        self.requests: list[dict[str, Any]] = []
        self.page_limit: Optional[int] = None  # points per page at most, whatever was asked
        self._faults: list[Optional[grpc.StatusCode]] = []
        self._lock = threading.Lock()
        self._server: Optional[grpc.Server] = None
        self.port = 0

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"

    def fail_next(self, code: grpc.StatusCode, n: int = 1, after: int = 0) -> None:
        with self._lock:
            self._faults.extend([None] * after + [code] * n)

    def _list(
        self, request: ListTimeSeriesRequest, context: grpc.ServicerContext
    ) -> ListTimeSeriesResponse:
        body = json.loads(ListTimeSeriesRequest.to_json(request, use_integers_for_enums=False))
        with self._lock:
            self.requests.append(body)
            fault = self._faults.pop(0) if self._faults else None
        if fault is not None:
            context.abort(fault, f"injected {fault.name}")
        try:
            matched = evaluate(self.series, body)
        except (FilterError, KeyError, ValueError) as error:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid filter: {error}")
        page_size = min(int(body.get("pageSize") or DEFAULT_PAGE), self.page_limit or DEFAULT_PAGE)
        digest = hashlib.sha256(
            json.dumps(
                {k: v for k, v in body.items() if k not in ("pageToken", "pageSize")},
                sort_keys=True,
            ).encode()
        ).hexdigest()[:12]
        offset = 0
        token = body.get("pageToken")
        if token:
            bound, _, number = token.partition(":")
            if bound != digest or not number.isdigit():
                context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT, "page token does not belong to this query"
                )
            offset = int(number)
        page: list[dict[str, Any]] = []
        points = 0
        index = offset
        while index < len(matched) and (
            not page or points + len(matched[index]["points"]) <= page_size
        ):
            page.append(matched[index])
            points += len(matched[index]["points"])
            index += 1
        data: dict[str, Any] = {"timeSeries": page}
        if index < len(matched):
            data["nextPageToken"] = f"{digest}:{index}"
        return ListTimeSeriesResponse.from_json(json.dumps(data), ignore_unknown_fields=True)

    def start(self) -> str:
        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "ListTimeSeries": grpc.unary_unary_rpc_method_handler(
                    self._list,
                    request_deserializer=ListTimeSeriesRequest.deserialize,
                    response_serializer=ListTimeSeriesResponse.serialize,
                )
            },
        )
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self._server.add_generic_rpc_handlers((handler,))
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()
        return self.endpoint

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=None)
            self._server = None


@contextmanager
def serve_monitoring(series: Iterable[dict[str, Any]] = ()) -> Iterator[FakeMonitoringServer]:
    server = FakeMonitoringServer(series)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def gauge(
    metric_type: str,
    resource_labels: dict[str, str],
    points: Iterable[tuple[float, float]],
    *,
    metric_labels: Optional[dict[str, str]] = None,
    resource_type: str = "k8s_container",
    value_type: str = "INT64",
) -> dict[str, Any]:
    """One GAUGE series in the REST form, points given as (epoch seconds, value)."""
    return {
        "metric": {"type": metric_type, "labels": dict(metric_labels or {})},
        "resource": {"type": resource_type, "labels": dict(resource_labels)},
        "metricKind": "GAUGE",
        "valueType": value_type,
        "points": [_point_json(t, v, value_type) for t, v in sorted(points, reverse=True)],
    }
