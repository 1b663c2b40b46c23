"""Pacing Cloud Logging reads under the project's per-minute read quota, across phases and runs.

`entries.list` draws on one read quota per project: 60 requests a minute by default (it can be
raised on request). Every request of every mlwiki command on this machine takes a token from one
bucket per project: `limit` tokens (default 54 — 90% of the quota, leaving room for the console
and other tools; `MLWIKI_LOGGING_QUOTA=120` after a raise to 120 a minute), each token coming
back one minute after it was spent. So no rolling minute holds more than `limit` of our requests,
whether they come from one long troubleshoot, its phases, or several commands run back to back;
a request that finds the bucket empty waits for the oldest token (and says so in the report).

State: `${XDG_STATE_HOME:-~/.local/state}/mlwiki/logging-quota/<digest of the project>.json`, the
times of the requests of the last minute, read and written under an exclusive lock (`fcntl`) so
concurrent commands share it. A missing, unreadable or corrupt state file means a full bucket; an
unwritable state folder paces this process alone. Throttling that still happens (HTTP 429, another
client spending the quota) is retried with backoff by `mlwiki.logs.cloud`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

QUOTA_ENV = "MLWIKI_LOGGING_QUOTA"
DEFAULT_QUOTA = 60  # entries.list requests a minute per project, Cloud Logging's default
SHARE = 0.9  # of the quota this tool allows itself
MINUTE = 60.0


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mlwiki" / "logging-quota"


def tokens_per_minute() -> int:
    """The bucket's size: 90% of `MLWIKI_LOGGING_QUOTA` (default 60), at least 1."""
    raw = os.environ.get(QUOTA_ENV, "")
    try:
        quota = int(raw) if raw.strip() else DEFAULT_QUOTA
    except ValueError:
        from mlwiki.errors import BadInput

        raise BadInput(f"{QUOTA_ENV}={raw!r}: a number of requests a minute, e.g. 120") from None
    return max(1, int(quota * SHARE))


@dataclass
class QuotaBucket:
    """The project's token bucket; `take()` returns once a request may be sent."""

    project: str
    limit: int = field(default_factory=tokens_per_minute)
    folder: Optional[Path] = field(default_factory=state_dir)
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    waited: float = 0.0  # seconds this bucket made its caller wait
    _memory: list[float] = field(default_factory=list)

    def take(self) -> None:
        while True:
            with self._state() as spent:
                now = self.clock()
                spent[:] = [t for t in spent if now - MINUTE < t <= now]
                if len(spent) < self.limit:
                    spent.append(now)
                    return
                pause = min(spent) + MINUTE - now
            self.sleep(pause)
            self.waited += pause

    @contextlib.contextmanager
    def _state(self) -> Iterator[list[float]]:
        path = self._path()
        if path is None:
            yield self._memory
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = path.open("a+", encoding="utf-8")  # closed by the `with` below
        except OSError:
            self.folder = None  # pace this process alone
            yield self._memory
            return
        with handle:
            _lock(handle)
            handle.seek(0)
            spent = _read_times(handle.read())
            yield spent
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"project": self.project, "spent": spent}))
            handle.flush()

    def _path(self) -> Optional[Path]:
        if self.folder is None:
            return None
        digest = hashlib.sha256(self.project.encode()).hexdigest()[:32]
        return self.folder / f"{digest}.json"


def _read_times(text: str) -> list[float]:
    try:
        data = json.loads(text) if text.strip() else {}
        spent = data.get("spent", []) if isinstance(data, dict) else []
        return [float(t) for t in spent if isinstance(t, (int, float))]
    except (ValueError, TypeError):
        return []  # a corrupt state file: start with a full bucket


def _lock(handle: object) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: commands are paced each on its own
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # type: ignore[attr-defined]
