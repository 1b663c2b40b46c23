"""The audit log: one JSON line per approval and per run of an action, append-only, hash-chained.

Where: `$MLWIKI_AUDIT_LOG`, else `${XDG_STATE_HOME:-~/.local/state}/mlwiki/audit.jsonl`. The folder
is created (0700) and the file opened with O_APPEND (0600) under an exclusive lock. Records about
mutating steps are fsync'ed: an approval must be on disk before the step it approves runs, and
when that write fails the step does not run (`AuditLogError`).

Tamper evidence. Each record carries `prev_sha256`, the sha256 of the line before it (64 zeros
for the first), so editing, inserting or deleting a line breaks the chain at the next one.
Every append checks the chain first: a broken chain refuses an approval (the step does not run)
and is reported with the line where it breaks; move the file aside to start a new one.

The check costs O(1) in the log's size, through a checkpoint of the chain head kept beside the
log (`audit.jsonl.head`, written under the log's lock after each append): the log's device,
inode, size, mtime and ctime after that append, where its last line starts, that line's sha256,
and whether the chain was intact. An append that finds the log exactly as the checkpoint left
it (same file, same size, same ctime: the kernel sets ctime on every write, truncation, rename
or utime, and no one but root can set it back) reads only the last line and checks its digest.
Anything else (no checkpoint, an unreadable one, a log written, edited, replaced or touched
since) verifies the whole chain, as every append used to, and writes a new checkpoint. So an
edit, insertion, deletion or reordering anywhere is caught on the next append, as before. What
the checkpoint adds for an attacker who can write the folder: forging it to match an edited log,
which is no more than rewriting the chain (below) already allows; and, where the kernel's
timestamps are coarse, an in-place edit of the same length within one timestamp tick (a few
ms) of an append, which only `AuditLog.verify()` (the full check) sees.

A path an agent could swap silently is refused: a symlink (at the file, or at a directory on the
way other than root's own links under /, like macOS's /tmp), anything but a regular file (/dev/null, a FIFO, a directory), a file
that is not ours, and a file or directory on the way that others can write (group- or
world-writable, unless sticky like /tmp). The chain cannot stop someone who rewrites the whole
file with a new valid chain, or who removes its last lines: keep the log where the agent cannot
write, or ship it elsewhere, when that matters.

A record: `time` (UTC), `user`, `host`, `event` ("approval" | "run"), `action`, `workflow`, `step`,
`kind`, `rendered` (the exact argv or filter), `argv_sha256`, `params`, `approval` ({how:
flag|prompt, by, argv_sha256, terminal}), `status`, `exit_code`, `output_sha256`, `dry_run`,
`mutating`, `error` when there was one, and `prev_sha256`.
"""

from __future__ import annotations

import fcntl
import getpass
import hashlib
import os
import stat
import sys
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import orjson

from mlwiki.errors import BadInput

ENV_AUDIT_LOG = "MLWIKI_AUDIT_LOG"
GENESIS = "0" * 64


class AuditLogError(BadInput):
    """The audit log cannot be written (or trusted); a mutating step must not run."""


def audit_log_path() -> Path:
    explicit = os.environ.get(ENV_AUDIT_LOG)
    if explicit:
        return Path(explicit).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state).expanduser() / "mlwiki" / "audit.jsonl"


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER (some containers)
        return f"uid:{os.getuid()}"


def output_digest(output: Any) -> str:
    """sha256 of a command's stdout (str/bytes) or of a query's entries (as canonical JSON)."""
    if isinstance(output, str):
        data = output.encode()
    elif isinstance(output, bytes):
        data = output
    else:
        data = orjson.dumps(output, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(data).hexdigest()


def line_digest(line: bytes) -> str:
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


def unsafe_path(path: Path) -> Optional[str]:
    """Why `path` could be swapped without notice (None: a safe place for the log)."""
    absolute = Path(os.path.abspath(path))
    me = os.getuid()
    try:
        info = os.lstat(absolute)
    except (FileNotFoundError, NotADirectoryError):
        info = None  # created below (or the open fails and says why)
    except OSError as error:
        return f"cannot inspect it ({error.strerror or error})"
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            return "it is a symbolic link"
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file"
        if info.st_uid != me:
            return "it belongs to another user"
        if info.st_mode & 0o022:
            return "others can write it (group- or world-writable)"
        if info.st_nlink > 1:
            return "it has other hard links"
    for directory in absolute.parents:
        try:
            info = os.lstat(directory)
        except (FileNotFoundError, NotADirectoryError):
            continue  # created below, with 0700
        except OSError as error:
            return f"cannot inspect {directory} ({error.strerror or error})"
        if stat.S_ISLNK(info.st_mode):
            if directory.parent != directory.parent.parent or info.st_uid != 0:
                return f"{directory} is a symbolic link, which can be repointed without notice"
            continue  # a system link at the root, like macOS's /tmp → /private/tmp
        if info.st_uid not in (me, 0):
            return f"{directory} belongs to another user"
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            return f"others can write {directory} (and so swap the log)"
    return None


def verify_chain(data: bytes) -> Optional[str]:
    """Where the hash chain of a log's content breaks (None: intact)."""
    previous: Optional[bytes] = None
    chained = False
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        if not line.endswith(b"\n"):
            return f"line {number} is cut off (no newline)"
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return f"line {number} is not JSON"
        link = record.get("prev_sha256") if isinstance(record, dict) else None
        if link is None:
            if chained:
                return f"line {number} has no prev_sha256 after the chain began"
        else:
            expected = GENESIS if previous is None else line_digest(previous)
            if link != expected:
                return f"line {number}'s prev_sha256 does not match line {number - 1}"
            chained = True
        previous = line
    return None


@dataclass(frozen=True)
class ChainHead:
    """The checkpoint of a log's chain: what the log looked like right after the last append."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    last_offset: int  # where the last line starts (== size for an empty log)
    last_sha256: Optional[str]  # None for an empty log
    broken: Optional[str]  # where the chain breaks, as verify_chain says (None: intact)

    def describes(self, info: os.stat_result) -> bool:
        """True when `info` (fstat of the log) is the file exactly as this checkpoint left it."""
        return (self.device, self.inode, self.size, self.mtime_ns, self.ctime_ns) == (
            info.st_dev,
            info.st_ino,
            info.st_size,
            info.st_mtime_ns,
            info.st_ctime_ns,
        )


def head_path(log: Path) -> Path:
    return log.with_name(log.name + ".head")


@dataclass
class AuditLog:
    """Appends records to `path` (default: `audit_log_path()`)."""

    path: Optional[Path] = None

    def __post_init__(self) -> None:
        self.path = self.path or audit_log_path()

    def write(self, record: dict[str, Any], *, sync: bool) -> dict[str, Any]:
        """Append one record (time, user, host and the chain link added); AuditLogError if not."""
        path = self.path
        assert path is not None
        concern = unsafe_path(path)
        if concern:
            raise AuditLogError(
                f"audit log {path}: refused, {concern}; set {ENV_AUDIT_LOG} to a file of your own "
                "in a directory only you can write"
            )
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            descriptor = os.open(path, flags, 0o600)
        except OSError as error:
            raise AuditLogError(
                f"audit log {path}: cannot write ({error.strerror or error}); "
                f"set {ENV_AUDIT_LOG} to a writable file"
            ) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            head = _chain_head(descriptor, head_path(path))
            if head.broken:
                message = (
                    f"audit log {path}: the hash chain is broken ({head.broken}): it was edited; "
                    "move it aside to start a new log"
                )
                if sync:
                    raise AuditLogError(message)
                print(f"mlwiki: warning: {message}", file=sys.stderr)
            full = {
                "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "user": current_user(),
                "host": os.uname().nodename,  # gethostname(2), without importing socket
                **record,
                "prev_sha256": head.last_sha256 or GENESIS,
            }
            line = orjson.dumps(full, default=str) + b"\n"
            os.write(descriptor, line)
            if sync:
                os.fsync(descriptor)
            after = os.fstat(descriptor)
            if after.st_size == head.size + len(line):  # else someone wrote around the lock
                _write_head(head_path(path), after, head.size, line_digest(line), head.broken)
        except OSError as error:
            raise AuditLogError(
                f"audit log {path}: cannot write ({error.strerror or error}); "
                f"set {ENV_AUDIT_LOG} to a writable file"
            ) from None
        finally:
            os.close(descriptor)
        return full

    def read(self) -> list[dict[str, Any]]:
        """Every record, oldest first (for tests and for showing what was done)."""
        assert self.path is not None
        if not self.path.exists():
            return []
        return [orjson.loads(line) for line in self.path.read_bytes().splitlines() if line]

    def verify(self) -> Optional[str]:
        """Where the chain breaks, or None when the log is intact (or absent): the full check,
        reading every line whatever the checkpoint says."""
        assert self.path is not None
        if not self.path.exists():
            return None
        return verify_chain(self.path.read_bytes())


def _chain_head(descriptor: int, checkpoint: Path) -> ChainHead:
    """The chain head of the locked log: from its checkpoint when that still describes the log
    and its last line still has the digest it names, else by verifying the whole chain."""
    info = os.fstat(descriptor)
    head = _read_head(checkpoint)
    if head is not None and head.describes(info) and 0 <= head.last_offset <= head.size:
        tail = os.pread(descriptor, head.size - head.last_offset, head.last_offset)
        if _is_last_line(tail, head.last_sha256):
            return head
    data = _read_all(descriptor)
    last = data.splitlines(keepends=True)[-1] if data else b""
    return ChainHead(
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        len(data) - len(last),
        line_digest(last) if last else None,
        verify_chain(data),
    )


def _is_last_line(tail: bytes, digest: Optional[str]) -> bool:
    """`tail` is one whole line with `digest` (or nothing, for an empty log: digest None)."""
    if not tail:
        return digest is None
    return tail.endswith(b"\n") and b"\n" not in tail[:-1] and line_digest(tail) == digest


def _read_head(checkpoint: Path) -> Optional[ChainHead]:
    """The checkpoint, or None when there is none or it cannot be trusted as ours."""
    try:
        descriptor = os.open(checkpoint, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.getuid()
            or info.st_mode & 0o022
            or info.st_nlink > 1
            or info.st_size > 4096
        ):
            return None
        fields = orjson.loads(os.read(descriptor, 4096))
        return ChainHead(**fields) if isinstance(fields, dict) else None
    except (OSError, orjson.JSONDecodeError, TypeError):
        return None
    finally:
        os.close(descriptor)


def _write_head(
    checkpoint: Path,
    info: os.stat_result,
    last_offset: int,
    last_sha256: str,
    broken: Optional[str],
) -> None:
    """Record the chain head after an append (while the log is still locked). A checkpoint that
    cannot be written only costs the next append a full verification.

    It is rewritten in place (written from offset 0, then cut to its length), not truncated
    first: ext4 flushes a file truncated to zero and rewritten when it is closed (its
    `auto_da_alloc` guard for replace-by-truncate), ~5 ms of waiting per append, six appends
    per diagnosis. Killed between the write and the cut, it holds the new object followed by the
    old one's tail, which is not JSON; a short write empties it. Either way `_read_head` rejects
    it and the next append verifies the whole chain, as after any unreadable checkpoint."""
    head = ChainHead(
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        last_offset,
        last_sha256,
        broken,
    )
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(checkpoint, flags, 0o600)
    except OSError:
        return
    try:
        os.fchmod(descriptor, 0o600)
        data = orjson.dumps(asdict(head))
        written = os.pwrite(descriptor, data, 0)
        os.ftruncate(descriptor, len(data) if written == len(data) else 0)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _read_all(descriptor: int) -> bytes:
    os.lseek(descriptor, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = os.read(descriptor, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
