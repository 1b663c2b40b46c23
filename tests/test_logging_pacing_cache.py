"""The quota bucket shared by every command, and the page cache of fetched Cloud Logging pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.errors import BadInput
from mlwiki.logs.cache import FRESH, MAX_AGE, PageCache, cache_dir, request_key
from mlwiki.logs.pacing import QuotaBucket, state_dir, tokens_per_minute


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def bucket(folder: Path | None, clock: Clock, limit: int = 3) -> QuotaBucket:
    return QuotaBucket("demo-proj", limit=limit, folder=folder, clock=clock, sleep=clock.sleep)


def test_the_bucket_waits_for_the_oldest_token_and_holds_across_runs(tmp_path: Path) -> None:
    clock = Clock()
    first = bucket(tmp_path, clock)
    for _ in range(3):
        first.take()
        clock.now += 1
    assert clock.slept == []
    # Another command (a new bucket over the same state) finds the tokens spent.
    second = bucket(tmp_path, clock)
    second.take()
    assert clock.slept == [57.0] and second.waited == 57.0
    # No rolling minute ever held more than the limit.
    assert clock.now - 1_000.0 >= 60.0


def test_a_corrupt_or_unwritable_state_never_fails_a_run(tmp_path: Path) -> None:
    clock = Clock()
    state = tmp_path / "state"
    state.mkdir()
    for _ in range(3):
        bucket(state, clock).take()
    for path in state.iterdir():
        path.write_text("{not json")
    bucket(state, clock).take()  # a corrupt file is a full bucket
    assert clock.slept == []
    blocked = tmp_path / "file"
    blocked.write_text("")
    lone = bucket(blocked / "sub", clock)  # cannot create the folder: paced in memory
    for _ in range(4):
        lone.take()
    assert lone.folder is None and clock.slept == [60.0]


def test_state_and_cache_follow_the_xdg_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert state_dir() == tmp_path / "s" / "mlwiki" / "logging-quota"
    assert cache_dir() == tmp_path / "c" / "mlwiki" / "logging"


def test_the_quota_can_be_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    assert tokens_per_minute() == 54
    monkeypatch.setenv("MLWIKI_LOGGING_QUOTA", "120")
    assert tokens_per_minute() == 108
    monkeypatch.setenv("MLWIKI_LOGGING_QUOTA", "lots")
    with pytest.raises(BadInput, match="MLWIKI_LOGGING_QUOTA"):
        tokens_per_minute()


BODY = {
    "resourceNames": ["projects/p"],
    "filter": 'timestamp>="2026-01-01T00:00:00Z" AND timestamp<="2026-01-01T01:00:00Z" AND x',
    "orderBy": "timestamp asc",
    "pageSize": 1000,
}
PAGE = {"entries": [{"insertId": "a", "textPayload": "../../etc/passwd"}], "nextPageToken": "t"}


def test_pages_are_kept_under_digest_names_and_reused(tmp_path: Path) -> None:
    clock = Clock()
    cache = PageCache(tmp_path, max_bytes=1 << 20, clock=clock)
    assert cache.get(BODY) is None
    cache.put(BODY, PAGE, window_end=clock.now - 3600)
    assert cache.get(BODY) == PAGE and cache.hits == 1
    # The file is named by the request's SHA-256: nothing from a filter or a log reaches a path.
    assert [p.name for p in tmp_path.iterdir()] == [f"{request_key(BODY)}.json"]
    assert len(request_key(BODY)) == 64 and set(request_key(BODY)) <= set("0123456789abcdef")
    # Another token, order or filter is another page.
    assert cache.get({**BODY, "pageToken": "t"}) is None
    assert cache.get({**BODY, "orderBy": "timestamp desc"}) is None
    clock.now += MAX_AGE + 1
    assert cache.get(BODY) is None


def test_a_window_still_being_ingested_is_cached_briefly(tmp_path: Path) -> None:
    clock = Clock()
    cache = PageCache(tmp_path, max_bytes=1 << 20, clock=clock)
    cache.put(BODY, PAGE, window_end=clock.now - 60)
    assert cache.get(BODY) == PAGE
    clock.now += FRESH + 1
    assert cache.get(BODY) is None


def test_the_cache_is_bounded_least_recently_used_first(tmp_path: Path) -> None:
    import os

    clock = Clock()
    size = 300  # bytes: a little more than one stored page
    cache = PageCache(tmp_path, max_bytes=3 * size, clock=clock)
    bodies = [{**BODY, "pageToken": str(n)} for n in range(6)]
    for number, body in enumerate(bodies):
        cache.put(body, {"entries": [{"insertId": "x" * 150}]}, window_end=0)
        path = tmp_path / f"{request_key(body)}.json"
        os.utime(path, (number, number))
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= 3 * size
    assert cache.get(bodies[-1]) is not None and cache.get(bodies[0]) is None
