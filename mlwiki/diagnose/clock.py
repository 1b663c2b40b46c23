"""Log timestamps as numbers: fast RFC 3339 → epoch seconds, and back for display.

A diagnosis parses one timestamp per entry (hundreds of thousands), so the date part is cached
and only the clock part is computed each time.
"""

from __future__ import annotations

import calendar
from datetime import datetime, timezone
from functools import lru_cache

from mlwiki.errors import BadInput


@lru_cache(maxsize=4096)
def _midnight(date: str) -> int:
    return calendar.timegm((int(date[0:4]), int(date[5:7]), int(date[8:10]), 0, 0, 0))


def epoch(stamp: str) -> float:
    """Seconds since the epoch for `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; BadInput otherwise."""
    try:
        seconds = (
            _midnight(stamp[:10])
            + int(stamp[11:13]) * 3600
            + int(stamp[14:16]) * 60
            + int(stamp[17:19])
        )
        rest = stamp[19:]
        fraction = 0.0
        if rest.startswith("."):
            digits = len(rest) - len(rest[1:].lstrip("0123456789"))
            fraction = float("0" + rest[:digits]) if digits > 1 else 0.0
            rest = rest[digits:]
        if rest in ("Z", "z", ""):
            return seconds + fraction
        sign = -1 if rest[0] == "+" else 1
        return seconds + fraction + sign * (int(rest[1:3]) * 3600 + int(rest[4:6]) * 60)
    except (ValueError, IndexError):
        raise BadInput(f"timestamp {stamp!r} is not RFC 3339 (YYYY-MM-DDTHH:MM:SSZ)") from None


def iso(seconds: float) -> str:
    """RFC 3339 UTC with microseconds trimmed when zero: the findings' time format."""
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return text + "Z"
