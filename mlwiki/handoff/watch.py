"""Watch a handoff folder for objects the tool did not write (Customer Care's replies).

Each new object (or a new generation of one) is reported once and downloaded into the local
folder under its path relative to the storage key; what was seen is kept in a state file there,
so a resumed watch reports only what is new. Reply text is printed for a person to read, with
control characters removed (it is data, never a command).
"""

from __future__ import annotations

import contextlib
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


def _local_path(folder: Path, name: str) -> Optional[Path]:
    """Where an object goes locally, or None when its name is unsafe as a path."""
    parts = name.split("/")
    if (
        name == STATE_FILE
        or any(part in ("", ".", "..") for part in parts)
        or "\\" in name
        or _CONTROL.search(name)
    ):
        return None
    return folder.joinpath(*parts)


def _known(bucket: Any, key: str, retry: Any) -> set[str]:
    """What the tool wrote: the manifest's files plus the manifest (the standard set if none)."""
    blob = bucket.get_blob(f"{key}/{MANIFEST}", **({} if retry is None else {"retry": retry}))
    names = set(PACKAGE_FILES)
    if blob is not None:
        # An unreadable manifest leaves the standard set: a reply is never hidden by it.
        with contextlib.suppress(ValueError, KeyError, TypeError):
            names = set(json.loads(blob.download_as_bytes())["files"])
    return names | {MANIFEST}


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
        if self.path.exists():
            try:
                self.seen = dict(json.loads(self.path.read_text(encoding="utf-8"))["seen"])
            except (ValueError, KeyError, TypeError, OSError):
                self.seen = {}

    def mark(self, name: str, generation: str) -> None:
        self.seen[name] = generation
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"seen": self.seen}, indent=2, sort_keys=True), "utf-8")
        os.replace(temporary, self.path)


def check_once(bucket: Any, key: str, folder: Path, retry: Any = None) -> list[Update]:
    """Report and download every object under KEY/ not written by the tool and not seen before."""
    prefix = f"{key}/"
    known = _known(bucket, key, retry)
    state = WatchState(folder)
    updates: list[Update] = []
    options = {} if retry is None else {"retry": retry}
    for blob in bucket.client.list_blobs(bucket, prefix=prefix, **options):
        name = blob.name[len(prefix) :]
        generation = str(blob.generation)
        if name in known or name.endswith("/") or state.seen.get(name) == generation:
            continue
        target = _local_path(folder, name)
        update = Update(
            name=name,
            url=f"gs://{bucket.name}/{blob.name}",
            updated=blob.updated.strftime("%Y-%m-%dT%H:%M:%SZ") if blob.updated else None,
            size=int(blob.size or 0),
            generation=generation,
            local_path=None,
            preview=None,
        )
        if target is None:
            update.skipped = "unsafe name for a local file; not downloaded"
        else:
            data = blob.download_as_bytes(checksum="crc32c", **options)
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(target.name + ".part")
            temporary.write_bytes(data)
            os.replace(temporary, target)
            update.local_path = str(target)
            update.preview = _preview(data, name, blob.content_type)
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
