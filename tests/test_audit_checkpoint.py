"""The audit log's checkpointed chain head: an append reads O(1) bytes of a big log, and an edit
anywhere is still caught on the next append (work counted in bytes read, never in seconds)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

from mlwiki.engine.audit import GENESIS, AuditLog, AuditLogError, head_path, line_digest

RECORDS = 20_000  # ~5 MB of records shaped like real run records


def _chained_log(path: Path, records: int) -> None:
    """A valid log of `records` run records, written directly (not through AuditLog)."""
    path.parent.mkdir(mode=0o700, exist_ok=True)
    previous, lines = GENESIS, []
    for number in range(records):
        record = {
            "time": "2026-12-01T12:00:00.000000Z",
            "event": "run",
            "action": "get-node",
            "rendered": ["kubectl", "get", "node", f"gke-node-{number}", "-o", "json"],
            "status": "ok",
            "output_sha256": "f" * 64,
            "prev_sha256": previous,
        }
        line = orjson.dumps(record) + b"\n"
        previous = line_digest(line)
        lines.append(line)
    path.write_bytes(b"".join(lines))
    path.chmod(0o600)


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], int]]:
    """Counts every byte `os.read` and `os.pread` return while the test runs."""
    total = [0]
    real_read, real_pread = os.read, os.pread

    def counted(function: Callable[..., bytes]) -> Callable[..., bytes]:
        def wrapper(*args: Any) -> bytes:
            data = function(*args)
            total[0] += len(data)
            return data

        return wrapper

    monkeypatch.setattr(os, "read", counted(real_read))
    monkeypatch.setattr(os, "pread", counted(real_pread))

    def taken() -> int:
        value, total[0] = total[0], 0
        return value

    yield taken


def test_an_append_reads_a_constant_number_of_bytes_of_a_big_log(
    tmp_path: Path, bytes_read: Callable[[], int]
) -> None:
    path = tmp_path / "audit" / "audit.jsonl"
    _chained_log(path, RECORDS)
    size = path.stat().st_size
    log = AuditLog(path)
    log.write({"event": "run", "n": 0}, sync=False)
    assert bytes_read() >= size  # no checkpoint yet: the whole chain is verified once
    for n in range(1, 6):
        log.write({"event": "run", "n": n}, sync=n % 2 == 0)
        assert bytes_read() < 4096  # the checkpoint and the last line, whatever the log's size
    assert log.verify() is None and len(log.read()) == RECORDS + 6


def _edit_in_place(path: Path) -> None:
    """A same-length edit of a middle line, through the same inode (what an editor's r+ does)."""
    data = bytearray(path.read_bytes())
    at = data.index(b"gke-node-17")
    data[at : at + 11] = b"gke-node-71"
    with path.open("r+b") as file:
        file.write(data)


def _replace(path: Path) -> None:
    """The same edit, written to a new file renamed over the log (what sed -i does)."""
    other = path.with_name("new")
    other.write_bytes(path.read_bytes().replace(b'gke-node-17"', b'gke-node-71"', 1))
    other.chmod(0o600)
    os.replace(other, path)


def _reorder(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize("tamper", [_edit_in_place, _replace, _reorder])
def test_an_edit_after_a_checkpoint_is_caught_on_the_next_append(
    tmp_path: Path, tamper: Callable[[Path], None]
) -> None:
    path = tmp_path / "audit" / "audit.jsonl"
    _chained_log(path, 100)
    log = AuditLog(path)
    log.write({"event": "run"}, sync=False)  # verifies and checkpoints
    log.write({"event": "run"}, sync=False)  # through the checkpoint
    tamper(path)
    with pytest.raises(AuditLogError, match=r"hash chain is broken \(line \d+"):
        log.write({"event": "approval"}, sync=True)
    assert "approval" not in [record["event"] for record in log.read()]


def test_a_broken_log_stays_broken_through_its_checkpoint(
    tmp_path: Path, bytes_read: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "audit" / "audit.jsonl"
    _chained_log(path, RECORDS)
    _edit_in_place(path)
    log = AuditLog(path)
    log.write({"event": "run"}, sync=False)  # warns, appends, checkpoints the broken state
    bytes_read()
    log.write({"event": "run"}, sync=False)
    assert bytes_read() < 4096
    assert capsys.readouterr().err.count("hash chain is broken (line 19") == 2
    with pytest.raises(AuditLogError, match="hash chain is broken"):
        log.write({"event": "approval"}, sync=True)


@pytest.mark.parametrize("checkpoint", ["missing", "garbage", "other fields", "symlink"])
def test_a_checkpoint_that_cannot_be_trusted_costs_a_full_verification(
    tmp_path: Path, bytes_read: Callable[[], int], checkpoint: str
) -> None:
    path = tmp_path / "audit" / "audit.jsonl"
    _chained_log(path, 1000)
    log = AuditLog(path)
    log.write({"event": "run"}, sync=False)
    head = head_path(path)
    if checkpoint == "missing":
        head.unlink()
    elif checkpoint == "garbage":
        head.write_bytes(b"{not json")
    elif checkpoint == "other fields":
        head.write_bytes(b'{"size": 0, "broken": null}')
    else:
        head.unlink()
        head.symlink_to(tmp_path / "elsewhere")
    _edit_in_place(path)
    bytes_read()
    with pytest.raises(AuditLogError, match="hash chain is broken"):
        log.write({"event": "approval"}, sync=True)
    assert bytes_read() >= path.stat().st_size
    assert not (tmp_path / "elsewhere").exists()  # a planted link is not written through


def test_a_forged_tail_is_caught_even_when_the_metadata_matches(tmp_path: Path) -> None:
    """The last line is read and its digest checked on every append: a checkpoint copied from
    another moment of the log, or a last line rewritten, does not pass."""
    path = tmp_path / "audit" / "audit.jsonl"
    _chained_log(path, 10)
    log = AuditLog(path)
    log.write({"event": "run", "n": 1}, sync=False)
    info = path.stat()
    head = orjson.loads(head_path(path).read_bytes())
    assert head["size"] == info.st_size and head["ctime_ns"] == info.st_ctime_ns
    forged = {**head, "last_sha256": "0" * 64}
    head_path(path).write_bytes(orjson.dumps(forged))
    log.write({"event": "run", "n": 2}, sync=False)  # the digest differs: full verification
    assert log.verify() is None
    assert log.read()[-1]["prev_sha256"] == line_digest(path.read_bytes().splitlines()[-2])
