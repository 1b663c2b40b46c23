"""Watch a handoff folder for objects the tool did not write (Customer Care's replies).

Each new object (or a new generation of one) is reported once and downloaded into the local
folder; what was seen is kept in a state file there, so a resumed watch reports only what is new.
Reply text is printed for a person to read, with control characters removed (it is data, never
a command).

Object names are data too, and nothing in the bucket can make the watch write outside its
folder, overwrite what the tool wrote, or stop:
- which files are the tool's comes from the manifest written at upload time *in the local
  folder*, never from the bucket's copy (which anyone with write access could rewrite); a
  package file whose bucket copy changed is reported and never downloaded over the local one;
- a reply keeps its path relative to the storage key when that path is a clean, short relative
  path (letters, digits, `.`, `_`, `-`; at most `MAX_PART` characters a part, `MAX_DEPTH`
  parts) that collides with nothing; any other reply is saved as
  `_renamed/<hash>-<clean name>` (the original name is still reported);
- a reply larger than `MAX_REPLY_BYTES` is reported, not downloaded (memory and disk stay
  bounded), and one reply that fails to download is reported once and retried on later polls
  without holding up the others.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

import re2

from mlwiki.handoff.gcs import transient_errors
from mlwiki.handoff.package import MANIFEST, PACKAGE_FILES

STATE_FILE = ".watch-state.json"
RENAMED = "_renamed"
MAX_PART = 100
MAX_DEPTH = 8
MAX_REPLY_BYTES = 256 << 20
# A reply that keeps failing is given up for this poll after this long (the others go on).
DOWNLOAD_DEADLINE = 30.0
_SAFE_PART = re2.compile(r"^[A-Za-z0-9_\-][A-Za-z0-9._\-]*$")
_UNSAFE_CHARS = re2.compile(r"[^A-Za-z0-9._\-]")
PREVIEW_LINES = 5
_PREVIEW_BYTES = 4096
_CONTROL = re2.compile(r"[\x00-\x08\x0b-\x1f\x7f\x{80}-\x{9f}\x{202a}-\x{202e}\x{2066}-\x{2069}]")
_TEXT_SUFFIXES = (".txt", ".md", ".json", ".jsonl", ".log", ".csv", ".yaml", ".yml")


@dataclass
class Update:
    name: str  # path relative to the storage key, e.g. "responses/reply.md"
    url: str
    updated: Optional[str]
    size: int
    generation: str
    local_path: Optional[str]
    preview: Optional[list[str]]
    skipped: Optional[str] = None  # why it was not downloaded

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def printable_name(name: str) -> str:
    """An object name or path as printed for a person: control and bidi characters shown as
    `?`, and at most 300 characters (a name is data, never terminal commands)."""
    shown = _CONTROL.sub("?", name)
    return shown if len(shown) <= 300 else shown[:300] + "…"


def _renamed(folder: Path, name: str) -> Path:
    """`_renamed/<hash>-<clean last part>`: unique per object name, always a plain file name."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    last = _UNSAFE_CHARS.sub("_", name.rsplit("/", 1)[-1]).lstrip(".")[-80:] or "reply"
    return folder / RENAMED / f"{digest}-{last}"


def local_path(folder: Path, name: str, reserved: set[str]) -> Path:
    """Where the object `name` (relative to the storage key) is saved (see the module docstring)."""
    parts = name.split("/")
    clean = (
        len(parts) <= MAX_DEPTH
        and len(name) <= 240
        and parts[0] not in reserved
        and parts[0] != RENAMED
        and all(len(p) <= MAX_PART and _SAFE_PART.match(p) for p in parts)
    )
    if not clean:
        return _renamed(folder, name)
    target = folder.joinpath(*parts)
    # Every folder on the way must be a real folder (not a file another reply took, nor a
    # link), and the target itself must not be a folder.
    for parent in list(target.parents)[: len(parts) - 1]:
        if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
            return _renamed(folder, name)
    if target.is_symlink() or target.is_dir():
        return _renamed(folder, name)
    return target


def _known(folder: Path) -> set[str]:
    """What the tool wrote: the files of the manifest written at upload time in the local folder
    (the standard set when there is none), plus the manifest."""
    names = set(PACKAGE_FILES)
    local = folder / MANIFEST
    if local.is_file():
        # An unreadable local manifest leaves the standard set: a reply is never hidden by it.
        try:
            files = json.loads(local.read_text(encoding="utf-8"))["files"]
            names = {str(n) for n in files} if isinstance(files, dict) else names
        except (ValueError, KeyError, TypeError, OSError):
            pass
    return names | {MANIFEST}


def _md5_b64(path: Path) -> Optional[str]:
    import base64

    try:
        return base64.b64encode(hashlib.md5(path.read_bytes()).digest()).decode()
    except OSError:
        return None


def _preview(data: bytes, name: str, content_type: Optional[str]) -> Optional[list[str]]:
    head = data[:_PREVIEW_BYTES]
    textual = (content_type or "").startswith(("text/", "application/json")) or name.endswith(
        _TEXT_SUFFIXES
    )
    if b"\x00" in head:
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        if not textual:
            return None
        text = head.decode("utf-8", errors="replace")
    return [_CONTROL.sub("?", line) for line in text.splitlines()[:PREVIEW_LINES]]


class WatchState:
    def __init__(self, folder: Path) -> None:
        self.path = folder / STATE_FILE
        self.seen: dict[str, str] = {}
        self.failed: dict[str, str] = {}  # reported once, retried on every poll
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                self.seen = {str(k): str(v) for k, v in dict(data["seen"]).items()}
                self.failed = {str(k): str(v) for k, v in dict(data.get("failed") or {}).items()}
            except (ValueError, KeyError, TypeError, OSError):
                self.seen, self.failed = {}, {}

    def mark(self, name: str, generation: str, failed: bool = False) -> None:
        (self.failed if failed else self.seen)[name] = generation
        if not failed:
            self.failed.pop(name, None)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        data = {"seen": self.seen, "failed": self.failed}
        temporary.write_text(json.dumps(data, indent=2, sort_keys=True), "utf-8")
        os.replace(temporary, self.path)


def _download(blob: Any, target: Path, options: dict[str, Any]) -> bytes:
    """The object written to `target` (through a temporary file); its first bytes for a preview."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".part")
    with open(temporary, "wb") as stream:
        blob.download_to_file(stream, checksum="crc32c", **options)
    os.replace(temporary, target)
    with open(target, "rb") as stream:
        return stream.read(_PREVIEW_BYTES)


def _download_retry() -> Any:
    from google.cloud.storage.retry import DEFAULT_RETRY

    return DEFAULT_RETRY.with_deadline(DOWNLOAD_DEADLINE)


def _update(bucket: Any, blob: Any, name: str) -> Update:
    return Update(
        name=name,
        url=f"gs://{bucket.name}/{blob.name}",
        updated=blob.updated.strftime("%Y-%m-%dT%H:%M:%SZ") if blob.updated else None,
        size=int(blob.size or 0),
        generation=str(blob.generation),
        local_path=None,
        preview=None,
    )


def check_once(bucket: Any, key: str, folder: Path, retry: Any = None) -> list[Update]:
    """Report and download every object under KEY/ not written by the tool and not seen before."""
    prefix = f"{key}/"
    known = _known(folder)
    reserved = known | {STATE_FILE, RENAMED}
    state = WatchState(folder)
    updates: list[Update] = []
    options = {} if retry is None else {"retry": retry}
    failures = transient_errors()
    for blob in bucket.client.list_blobs(bucket, prefix=prefix, **options):
        name = blob.name[len(prefix) :]
        generation = str(blob.generation)
        if not name or name.endswith("/") or state.seen.get(name) == generation:
            continue
        update = _update(bucket, blob, name)
        if name in known:
            local = folder / name
            if not local.is_file() or blob.md5_hash in (None, _md5_b64(local)):
                continue
            update.skipped = (
                "a package file changed in the bucket after the upload; the local copy (checked "
                "against the local manifest) was kept, not overwritten"
            )
            state.mark(name, generation)
            updates.append(update)
            continue
        if update.size > MAX_REPLY_BYTES:
            update.skipped = (
                f"{update.size >> 20} MiB is too large to download automatically; fetch it with "
                f"`gcloud storage cp {update.url} .`"
            )
            state.mark(name, generation)
            updates.append(update)
            continue
        target = local_path(folder, name, reserved)
        try:
            head = _download(blob, target, options or {"retry": _download_retry()})
        except (OSError, *failures) as error:
            first_failure = state.failed.get(name) != generation
            state.mark(name, generation, failed=True)
            if first_failure:
                update.skipped = (
                    f"not downloaded ({error.__class__.__name__}); retried on the next poll"
                )
                updates.append(update)
            continue
        update.local_path = str(target)
        update.preview = _preview(head, name, blob.content_type)
        state.mark(name, generation)
        updates.append(update)
    return updates


def watch(
    bucket: Any,
    key: str,
    folder: Path,
    *,
    once: bool,
    interval: float,
    max_interval: float,
    on_update: Callable[[Update], None],
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Poll until interrupted (or once): back off from `interval` doubling to `max_interval`,
    and back to `interval` after an update. A failed check is reported and retried."""
    failures = transient_errors()
    delay = interval
    while True:
        try:
            updates = check_once(bucket, key, folder)
        except failures as error:
            if once:
                raise
            print(
                f"mlwiki handoff: check failed, retrying: {error.__class__.__name__}",
                file=sys.stderr,
            )
            updates = []
        for update in updates:
            on_update(update)
        if once:
            return
        delay = interval if updates else delay
        sleep(delay)
        delay = min(delay * 2, max_interval)
