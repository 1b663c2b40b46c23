"""Parsed YAML frontmatter kept between commands, keyed by the exact text it was parsed from.

Parsing every page's frontmatter is most of `load_wiki` (PyYAML's constructor is Python even
with libyaml: ~0.1 s, a fixed cost of every command). Each page's parsed mapping is kept in
`${XDG_CACHE_HOME:-~/.cache}/mlwiki/wiki/frontmatter.json` under the SHA-256 of its frontmatter
text and of the PyYAML that parsed it. A page whose frontmatter changed by one byte has another
key and is parsed again, so an edited (or hostile) page is never answered with an old parse.
Only mappings made of JSON's own types are kept (a frontmatter with a YAML date, set, binary,
non-string key or non-finite number is parsed every time), so what the cache gives back is equal,
type for type, to what YAML builds; a frontmatter YAML rejects is never kept, so its problem is
found again. The file is read only when it belongs to the user and no one else may write to it;
an unreadable or malformed file is ignored and replaced. It holds at most `MAX_ENTRIES` mappings
(several wikis, e.g. worktrees, share it). `MLWIKI_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Optional

import orjson

NO_CACHE_ENV = "MLWIKI_NO_CACHE"
MAX_ENTRIES = 2048
FORMAT = 1


def cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mlwiki" / "wiki" / "frontmatter.json"


def _parser_stamp() -> str:
    """Which PyYAML parses (its file, size and time): an upgrade invalidates every entry."""
    spec = find_spec("yaml")
    origin = spec.origin if spec is not None else None
    if origin is None:
        return "no-yaml"
    info = os.stat(origin)
    return f"{FORMAT}:{origin}:{info.st_size}:{info.st_mtime_ns}"


def _json_exact(value: Any) -> bool:
    """Made only of what JSON round-trips to the same types (and values)."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _json_exact(v) for k, v in value.items())
    if kind is list:
        return all(_json_exact(v) for v in value)
    if kind is float:
        return math.isfinite(value)
    return kind in (str, int, bool) or value is None


class FrontmatterCache:
    """The parsed mappings of one `load_wiki`: looked up by text, saved once at the end."""

    def __init__(self, path: Optional[Path]) -> None:
        self.path = path  # None: off
        self.stamp = _parser_stamp() if path is not None else ""
        self.entries: dict[str, str] = {}  # key → the mapping as JSON text
        self.used: set[str] = set()
        self.added = False
        if path is not None:
            self.entries = _read(path)

    @classmethod
    def open(cls) -> FrontmatterCache:
        off = os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no")
        return cls(None if off else cache_file())

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.stamp}\n{text}".encode()).hexdigest()

    def get(self, text: str) -> Optional[dict[str, Any]]:
        """The mapping parsed from exactly `text` before, as a new object; else None."""
        if self.path is None:
            return None
        key = self._key(text)
        found = self.entries.get(key)
        if found is None:
            return None
        self.used.add(key)
        try:
            value = orjson.loads(found)
        except orjson.JSONDecodeError:
            return None
        return value if type(value) is dict else None

    def put(self, text: str, meta: dict[str, Any]) -> None:
        if self.path is None or not _json_exact(meta):
            return
        key = self._key(text)
        self.entries[key] = orjson.dumps(meta).decode()
        self.used.add(key)
        self.added = True

    def save(self) -> None:
        """Write the file when this load parsed something new (never fails a command)."""
        if self.path is None or not self.added:
            return
        entries = self.entries
        if len(entries) > MAX_ENTRIES:
            entries = {k: v for k, v in entries.items() if k in self.used}
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".frontmatter.")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(orjson.dumps(entries))
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass  # a read-only or full cache folder only costs the next command the parse


def _read(path: Path) -> dict[str, str]:
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if (
                not stat.S_ISREG(info.st_mode)
                or info.st_uid != os.getuid()
                or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            ):
                return {}
            data = orjson.loads(handle.read())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if type(data) is not dict:
        return {}
    return {k: v for k, v in data.items() if type(k) is str and type(v) is str}
