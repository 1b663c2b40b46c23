from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mlwiki.errors import BadInput
from mlwiki.timewindow import Window, parse_duration, resolve_window, timestamp_ns

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("flags", "start", "end"),
    [
        ({"since": "1 hour ago"}, utc(2024, 5, 1, 11), NOW),
        ({"since": "last 24 hours"}, utc(2024, 4, 30, 12), NOW),
        ({"since": "last hour"}, utc(2024, 5, 1, 11), NOW),
        ({"since": "24h"}, utc(2024, 4, 30, 12), NOW),
        ({"since": "90m"}, utc(2024, 5, 1, 10, 30), NOW),
        ({"since": "7d"}, utc(2024, 4, 24, 12), NOW),
        ({"since": "2 days ago"}, utc(2024, 4, 29, 12), NOW),
        ({"since": "30 minutes"}, utc(2024, 5, 1, 11, 30), NOW),
        ({"since": "2024-05-01T09:00:00Z"}, utc(2024, 5, 1, 9), NOW),
        ({"start": "2024-05-01T10:00:00Z"}, utc(2024, 5, 1, 10), NOW),
        (
            {"start": "2024-05-01T10:00:00Z", "end": "2024-05-01T11:00:00Z"},
            utc(2024, 5, 1, 10),
            utc(2024, 5, 1, 11),
        ),
        ({"start": "2 days ago", "end": "1 hour ago"}, utc(2024, 4, 29, 12), utc(2024, 5, 1, 11)),
        ({"start": "2024-05-01T12:30:00+02:00"}, utc(2024, 5, 1, 10, 30), NOW),
        ({}, utc(2024, 4, 30, 12), NOW),
    ],
)
def test_resolve_window(flags: dict[str, str], start: datetime, end: datetime) -> None:
    window = resolve_window(**flags, now=NOW)
    assert (window.start, window.end) == (start, end)


def test_fractional_seconds_and_injected_clock() -> None:
    window = resolve_window(start="2024-05-01T11:59:59.250Z", clock=lambda: NOW)
    assert window.start == utc(2024, 5, 1, 11, 59, 59) + timedelta(milliseconds=250)
    assert str(window) == "2024-05-01T11:59:59.250000Z/2024-05-01T12:00:00Z"


def test_to_filter_has_explicit_bounds() -> None:
    window = Window(utc(2024, 5, 1, 10), utc(2024, 5, 1, 11))
    assert window.to_filter() == (
        'timestamp>="2024-05-01T10:00:00Z" AND timestamp<="2024-05-01T11:00:00Z"'
    )
    assert window.to_dict() == {"start": "2024-05-01T10:00:00Z", "end": "2024-05-01T11:00:00Z"}


@pytest.mark.parametrize(
    ("flags", "flag"),
    [
        ({"since": "yesterday"}, "--since"),
        ({"since": "24 parsecs"}, "--since"),
        ({"start": "2024-13-01T00:00:00Z"}, "--start"),
        ({"start": "2024-05-01"}, "--start"),
        ({"end": "soon"}, "--end"),
        ({"start": "2024-05-01T13:00:00Z"}, "--start"),  # after the end (now)
        ({"since": "1h", "start": "2024-05-01T10:00:00Z"}, "--since"),
    ],
)
def test_bad_values_name_the_flag(flags: dict[str, str], flag: str) -> None:
    with pytest.raises(BadInput, match=f"^{flag}: "):
        resolve_window(**flags, now=NOW)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("24h", 86400),
        ("90m", 5400),
        ("7d", 604800),
        ("1h30m", 5400),
        ("45 seconds", 45),
        ("2 weeks", 1209600),
    ],
)
def test_parse_duration(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "0m", "h", "-5m", "5 fortnights"])
def test_bad_duration(text: str) -> None:
    with pytest.raises(BadInput, match=r"^timeout: "):
        parse_duration(text, "timeout")


def test_timestamp_ns_is_one_instant_whatever_the_spelling() -> None:
    same = {
        timestamp_ns("2024-05-01T12:00:00.5Z"),
        timestamp_ns("2024-05-01T12:00:00.500000000Z"),
        timestamp_ns("2024-05-01T14:00:00.5+02:00"),
        timestamp_ns("2024-05-01t12:00:00.5z"),
    }
    assert same == {1714564800_500000000}
    assert timestamp_ns("2024-05-01T12:00:00.000000001Z") == 1714564800_000000001
    assert timestamp_ns("not a time") is None
    assert timestamp_ns("2024-02-30T00:00:00Z") is None
