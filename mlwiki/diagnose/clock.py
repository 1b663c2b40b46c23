"""Log timestamps as numbers: RFC 3339 → epoch seconds (through `mlwiki.timewindow`, which
caches the seconds part, so one entry costs a dict lookup), and back for display."""

from __future__ import annotations

from datetime import datetime, timezone

from mlwiki.errors import BadInput
from mlwiki.timewindow import NS_PER_SECOND, timestamp_ns


def epoch(stamp: str) -> float:
    """Seconds since the epoch for `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; BadInput otherwise."""
    instant = timestamp_ns(stamp)
    if instant is None:
        raise BadInput(f"timestamp {stamp!r} is not RFC 3339 (YYYY-MM-DDTHH:MM:SSZ)")
    return instant / NS_PER_SECOND


def iso(seconds: float) -> str:
    """RFC 3339 UTC with microseconds trimmed when zero: the findings' time format."""
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return text + "Z"
