"""The audit log: one JSON line per approval and per run of an action, append-only.

Where: `$MLWIKI_AUDIT_LOG`, else `${XDG_STATE_HOME:-~/.local/state}/mlwiki/audit.jsonl`. The folder
is created (0700) and the file opened with O_APPEND (0600), so concurrent writers never interleave
inside a line. Records about mutating steps are fsync'ed: an approval must be on disk before the
step it approves runs, and when that write fails the step does not run (`AuditLogError`).

A record: `time` (UTC), `user`, `host`, `event` ("approval" | "run"), `action`, `workflow`, `step`,
`kind`, `rendered` (the exact argv or filter), `params`, `approval` ({how: flag|prompt, by}),
`status`, `exit_code`, `output_sha256`, `dry_run`, `mutating`, and `error` when there was one.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import orjson

from mlwiki.errors import BadInput

ENV_AUDIT_LOG = "MLWIKI_AUDIT_LOG"


class AuditLogError(BadInput):
    """The audit log cannot be written; a mutating step must not run."""


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


@dataclass
class AuditLog:
    """Appends records to `path` (default: `audit_log_path()`)."""

    path: Optional[Path] = None

    def __post_init__(self) -> None:
        self.path = self.path or audit_log_path()

    def write(self, record: dict[str, Any], *, sync: bool) -> dict[str, Any]:
        """Append one record (time, user and host added); raise AuditLogError when it fails."""
        full = {
            "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "user": current_user(),
            "host": socket.gethostname(),
            **record,
        }
        line = orjson.dumps(full, default=str) + b"\n"
        path = self.path
        assert path is not None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(descriptor, line)
                if sync:
                    os.fsync(descriptor)
            finally:
                os.close(descriptor)
        except OSError as error:
            raise AuditLogError(
                f"audit log {path}: cannot write ({error.strerror or error}); "
                f"set {ENV_AUDIT_LOG} to a writable file"
            ) from None
        return full

    def read(self) -> list[dict[str, Any]]:
        """Every record, oldest first (for tests and for showing what was done)."""
        assert self.path is not None
        if not self.path.exists():
            return []
        return [orjson.loads(line) for line in self.path.read_bytes().splitlines() if line]
