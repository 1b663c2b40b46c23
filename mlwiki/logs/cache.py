"""Pages Cloud Logging returned, kept for the later commands of the same investigation.

`mlwiki troubleshoot --project` fetches a window's pages; the agent's follow-up commands
(`mlwiki run`, `mlwiki action`, `mlwiki verify`, a rerun with a wider `--max-log-calls`) ask for
many of the same pages again. Each response is kept under
`${XDG_CACHE_HOME:-~/.cache}/mlwiki/logging/`, named by the SHA-256 of the request (project,
whole filter with its time bounds, order, page size, page token) — a file name never holds text
from a filter or a log line. A cached page is served with no request at all, and costs no quota
and no budget.

How long a page stays good: Cloud Logging keeps ingesting for a while after an entry's time, so a
page of a window that ended less than `SETTLE` before it was fetched is reused for `FRESH` only;
any other page for `MAX_AGE`. The folder is bounded: after each write, when it holds more than
`MLWIKI_CACHE_MAX_MB` (default 256) MiB, the least recently used pages are removed. `--no-cache`
(or `MLWIKI_NO_CACHE=1`) turns the cache off for a command: nothing is read or written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import orjson

NO_CACHE_ENV = "MLWIKI_NO_CACHE"
MAX_MB_ENV = "MLWIKI_CACHE_MAX_MB"
DEFAULT_MAX_MB = 256
SETTLE = 600.0  # seconds after a window's end before its pages are taken as final
FRESH = 300.0  # seconds a page of an unsettled window is reused
MAX_AGE = 12 * 3600.0  # seconds any other page is reused


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mlwiki" / "logging"


def disabled_by_env() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _max_bytes() -> int:
    raw = os.environ.get(MAX_MB_ENV, "")
    try:
        megabytes = float(raw) if raw.strip() else DEFAULT_MAX_MB
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return int(max(0.0, megabytes) * (1 << 20))


def request_key(body: dict[str, Any]) -> str:
    """The digest naming a request's page (every field that changes the answer)."""
    canonical = {
        "resourceNames": sorted(body.get("resourceNames") or []),
        "filter": body.get("filter", ""),
        "orderBy": body.get("orderBy", "timestamp asc"),
        "pageSize": body.get("pageSize"),
        "pageToken": body.get("pageToken") or "",
    }
    return hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()


@dataclass
class PageCache:
    folder: Path = field(default_factory=cache_dir)
    max_bytes: int = field(default_factory=_max_bytes)
    clock: Callable[[], float] = time.time
    hits: int = 0
    writes: int = 0

    def get(self, body: dict[str, Any]) -> Optional[dict[str, Any]]:
        path = self.folder / f"{request_key(body)}.json"
        try:
            stored = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        if not isinstance(stored, dict) or not isinstance(stored.get("page"), dict):
            return None
        age = self.clock() - float(stored.get("fetched", 0))
        if not 0 <= age <= float(stored.get("ttl", 0)):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: evicted last
        self.hits += 1
        return stored["page"]

    def put(self, body: dict[str, Any], page: dict[str, Any], window_end: float) -> None:
        now = self.clock()
        ttl = FRESH if now - window_end < SETTLE else MAX_AGE
        data = orjson.dumps({"fetched": now, "ttl": ttl, "page": page})
        if len(data) > self.max_bytes:
            return
        path = self.folder / f"{request_key(body)}.json"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_bytes(data)
            partial.replace(path)
        except OSError:
            return  # a cache that cannot be written is no cache, never a failure
        self.writes += 1
        self._trim()

    def _trim(self) -> None:
        try:
            files = [(p.stat(), p) for p in self.folder.glob("*.json")]
        except OSError:
            return
        total = sum(stat.st_size for stat, _ in files)
        for stat, path in sorted(files, key=lambda item: item[0].st_mtime):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
                total -= stat.st_size
            except OSError:
                continue
