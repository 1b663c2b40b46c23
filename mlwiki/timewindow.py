"""Time windows (UTC) and durations: what `--start/--end/--since` and `duration` params accept.

Absolute times are RFC 3339 (`2024-05-01T12:00:00Z`, fractional seconds and offsets allowed).
Relative forms: "1 hour ago" (from then until now), "last 24 hours", "24h", "90m", "7d",
"2 days ago", "30 minutes". `now` is injectable so tests are deterministic.

`timestamp_ns` is the one fast RFC 3339 → integer-nanoseconds conversion used wherever entry
timestamps are compared (the query language, the entry store), so all of them agree on instants.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Optional

from mlwiki.errors import BadInput

NS_PER_SECOND = 1_000_000_000
DEFAULT_LOOKBACK = timedelta(hours=24)

_UNITS = {
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "w": 604800,
    "week": 604800,
    "weeks": 604800,
}
_DURATION_PART = re.compile(r"\s*([0-9]{1,12}(?:\.[0-9]{1,9})?)\s*([a-z]+)\s*")
# The instants and spans accepted anywhere (entries, findings, flags): a log line from before
# 1970 or after 2999 is a broken clock or a hostile file, and datetime arithmetic stays in range.
EARLIEST_NS = 0
LATEST_NS = 32503680000 * 1_000_000_000  # 3000-01-01T00:00:00Z
MAX_DURATION = timedelta(days=366 * 100)
_RFC3339 = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
    r"(?:([Zz])|([+-])([01][0-9]|2[0-3]):?([0-5][0-9]))$"
)
# Epoch seconds of "YYYY-MM-DDTHH:MM:SS" prefixes: log entries share seconds heavily, and
# this keeps the hot path of timestamp comparison to a dict lookup and an int().
_SECONDS_CACHE: dict[str, int] = {}
_SECONDS_CACHE_LIMIT = 200_000
_NS_CACHE: dict[str, int] = {}
_NS_CACHE_LIMIT = 262_144


# Epoch seconds of "YYYY-MM-DD" dates (None: not a date): a new second of a day already seen
# is then a few int() calls, not a regex and a datetime (a run's entries span thousands of
# seconds of a few days).
_DAY_CACHE: dict[str, Optional[int]] = {}
_DAY_CACHE_LIMIT = 4096
_CLOCK_DIGITS = (11, 12, 14, 15, 17, 18)


def _seconds_of(head: str) -> Optional[int]:
    seconds = _SECONDS_CACHE.get(head)
    if seconds is None:
        seconds = _clock_seconds(head)
        if seconds is None:
            return None
        if len(_SECONDS_CACHE) >= _SECONDS_CACHE_LIMIT:
            _SECONDS_CACHE.clear()
        _SECONDS_CACHE[head] = seconds
    return seconds


def _clock_seconds(head: str) -> Optional[int]:
    """Epoch seconds of `YYYY-MM-DD[Tt ]HH:MM:SS`, or None when it is not a valid one."""
    if (
        len(head) != 19
        or not head.isascii()
        or head[13] != ":"
        or head[16] != ":"
        or head[10] not in "Tt "
        or not all(head[i].isdigit() for i in _CLOCK_DIGITS)
    ):
        return None
    date = head[:10]
    day = _DAY_CACHE.get(date, -1)
    if day == -1:
        match = _RFC3339.match(date + "T00:00:00Z")
        try:
            day = (
                calendar.timegm(datetime(*map(int, match.groups()[:3])).timetuple())
                if match
                else None
            )
        except ValueError:
            day = None
        if len(_DAY_CACHE) >= _DAY_CACHE_LIMIT:
            _DAY_CACHE.clear()
        _DAY_CACHE[date] = day
    hour, minute, second = int(head[11:13]), int(head[14:16]), int(head[17:19])
    if day is None or hour > 23 or minute > 59 or second > 59:
        return None
    return day + hour * 3600 + minute * 60 + second


def timestamp_ns(text: object) -> Optional[int]:
    """Nanoseconds since the epoch of an RFC 3339 string, or None when it is not one.

    A diagnosis asks for the same entry's instant several times (matching, storing, each local
    query's time bounds), so parsed values are kept in a bounded cache."""
    if not isinstance(text, str):
        return None
    cached = _NS_CACHE.get(text)
    if cached is not None:
        return cached
    value = _parse_ns(text)
    if value is not None:
        if len(_NS_CACHE) >= _NS_CACHE_LIMIT:
            _NS_CACHE.clear()
        _NS_CACHE[text] = value
    return value


_FRACTION_SCALE = tuple(10 ** (9 - digits) for digits in range(10))


def parse_timestamp_ns(text: str) -> Optional[int]:
    """`timestamp_ns` without its cache: for a value read once (an entry's own timestamp in the
    single pass), where caching would only fill the cache. The common `…:SS.fffffffffZ` form
    of a second already seen costs a dict lookup and an int()."""
    if len(text) > 20 and text[19] == "." and text[-1] == "Z" and text[10] == "T":
        seconds = _SECONDS_CACHE.get(text[:19])
        digits = text[20:-1]
        if seconds is not None and len(digits) <= 9 and digits.isascii() and digits.isdigit():
            value = seconds * NS_PER_SECOND + int(digits) * _FRACTION_SCALE[len(digits)]
            return value if EARLIEST_NS <= value < LATEST_NS else None
    return _parse_ns(text)


def _parse_ns(text: str) -> Optional[int]:
    value = _instant_ns(text)
    return value if value is not None and EARLIEST_NS <= value < LATEST_NS else None


def _instant_ns(text: str) -> Optional[int]:
    if len(text) < 20 or len(text) > 40:
        return None
    if text[-1] in "Zz" and text[10] in "Tt ":
        rest = text[19:-1]
        if rest == "" or (rest[0] == "." and rest[1:].isascii() and rest[1:].isdigit()):
            seconds = _seconds_of(text[:19])
            if seconds is None:
                return None
            fraction = rest[1:10].ljust(9, "0") if rest else "0"
            return seconds * NS_PER_SECOND + int(fraction)
    match = _RFC3339.match(text)
    if match is None:
        return None
    seconds = _seconds_of(text[:19])
    if seconds is None:
        return None
    if match.group(9):
        offset = int(match.group(10)) * 3600 + int(match.group(11)) * 60
        seconds -= offset if match.group(9) == "+" else -offset
    fraction = (match.group(7) or "0").ljust(9, "0")
    return seconds * NS_PER_SECOND + int(fraction)


def datetime_from_ns(value: int) -> datetime:
    seconds, nanos = divmod(value, NS_PER_SECOND)
    return datetime.fromtimestamp(seconds, tz=timezone.utc) + timedelta(microseconds=nanos // 1000)


def ns_from_datetime(value: datetime) -> int:
    value = value.astimezone(timezone.utc)
    return calendar.timegm(value.timetuple()) * NS_PER_SECOND + value.microsecond * 1000


def format_timestamp(value: datetime) -> str:
    """`YYYY-MM-DDTHH:MM:SSZ` in UTC, with microseconds only when there are any."""
    value = value.astimezone(timezone.utc)
    if value.microsecond:
        return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(text: str, flag: str = "--start") -> datetime:
    """An RFC 3339 timestamp as an aware UTC datetime; BadInput names `flag` otherwise."""
    value = timestamp_ns(text.strip())
    if value is None:
        raise BadInput(f"{flag}: {text!r} is not a timestamp like 2024-05-01T12:00:00Z")
    return datetime_from_ns(value)


def parse_duration(text: str, flag: str = "duration") -> timedelta:
    """'24h', '90m', '7d', '30 minutes', '1h30m', '2 days' → timedelta (positive)."""
    source = text.strip().lower()
    position = 0
    total = 0.0
    while position < len(source):
        match = _DURATION_PART.match(source, position)
        if match is None or match.group(2) not in _UNITS:
            raise BadInput(f"{flag}: {text!r} is not a duration like 24h, 90m, 7d or '30 minutes'")
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if total <= 0:
        raise BadInput(f"{flag}: {text!r} is not a positive duration")
    if total > MAX_DURATION.total_seconds():
        raise BadInput(f"{flag}: {text!r} is longer than {MAX_DURATION.days // 366} years")
    return timedelta(seconds=total)


def _relative_duration(text: str, flag: str) -> Optional[timedelta]:
    """The lookback of "1 hour ago", "last 24 hours", "24h"; None when `text` is not relative."""
    source = text.strip().lower()
    for prefix in ("last ", "past "):
        if source.startswith(prefix):
            rest = source[len(prefix) :].strip()
            # "last hour" means one hour.
            return parse_duration(rest if rest[:1].isdigit() else "1 " + rest, flag)
    if source.endswith(" ago"):
        return parse_duration(source[: -len(" ago")], flag)
    # Timestamps also start with a digit; they are told apart by their '-' and ':'.
    if source[:1].isdigit() and "-" not in source and ":" not in source:
        return parse_duration(source, flag)
    return None


def parse_time(text: str, now: datetime, flag: str) -> datetime:
    """An absolute timestamp, "now", or a relative point in the past ("2 days ago")."""
    if text.strip().lower() == "now":
        return now
    lookback = _relative_duration(text, flag)
    if lookback is not None:
        return now - lookback
    if timestamp_ns(text.strip()) is None:
        # Name every accepted form: a user who typed "yesterday" needs to see "1 day ago".
        raise BadInput(
            f"{flag}: {text!r} is not a time like 2024-05-01T12:00:00Z (UTC), '2 hours ago' or 'now'"
        )
    return parse_timestamp(text, flag)


@dataclass(frozen=True)
class Window:
    """A closed time interval [start, end] in UTC."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            if value.tzinfo is None:
                raise BadInput(f"--{name}: a time window needs timezone-aware times")
            object.__setattr__(self, name, value.astimezone(timezone.utc))
        if self.start >= self.end:
            raise BadInput(
                f"--start: {format_timestamp(self.start)} is not before --end "
                f"{format_timestamp(self.end)}"
            )

    @property
    def start_ns(self) -> int:
        return ns_from_datetime(self.start)

    @property
    def end_ns(self) -> int:
        return ns_from_datetime(self.end)

    def contains_ns(self, value: int) -> bool:
        return self.start_ns <= value <= self.end_ns

    def to_filter(self) -> str:
        """The window as a Logging query restriction (explicit bounds on both sides)."""
        return (
            f'timestamp>="{format_timestamp(self.start)}" AND '
            f'timestamp<="{format_timestamp(self.end)}"'
        )

    def to_dict(self) -> dict[str, str]:
        return {"start": format_timestamp(self.start), "end": format_timestamp(self.end)}

    def __str__(self) -> str:
        return f"{format_timestamp(self.start)}/{format_timestamp(self.end)}"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def resolve_window(
    start: Optional[str] = None,
    end: Optional[str] = None,
    since: Optional[str] = None,
    *,
    now: Optional[datetime] = None,
    clock: Callable[[], datetime] = utc_now,
    default: timedelta = DEFAULT_LOOKBACK,
) -> Window:
    """The window the flags describe: `--since` alone, or `--start` [`--end`], else the last day."""
    current = (now or clock()).astimezone(timezone.utc)
    if since is not None and (start is not None or end is not None):
        raise BadInput("--since: use either --since or --start/--end, not both")
    if since is not None:
        lookback = _relative_duration(since, "--since")
        if lookback is None:
            if timestamp_ns(since.strip()) is None:
                raise BadInput(
                    f"--since: {since!r} is not a duration like 24h, 90m, 7d or 'last 24 hours' "
                    "(nor a UTC time like 2024-05-01T12:00:00Z)"
                )
            # An absolute --since means "from then until now".
            return Window(parse_timestamp(since, "--since"), current)
        return Window(current - lookback, current)
    end_time = parse_time(end, current, "--end") if end is not None else current
    start_time = parse_time(start, current, "--start") if start is not None else end_time - default
    return Window(start_time, end_time)
