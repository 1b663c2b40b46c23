"""What loading and checking the wiki found, kept between commands, keyed by exact content.

Two things cost every command a fixed ~0.1 s each and depend only on the bytes of wiki files:

- **Parsed frontmatter** (`FrontmatterCache`): PyYAML's constructor is Python even with libyaml.
  Each page's mapping is kept under the SHA-256 of its frontmatter text and of the PyYAML that
  parsed it, so a page whose frontmatter changed by one byte is parsed again. Only mappings made
  of JSON's own types, each list and mapping held once, are kept (a YAML date, set, binary,
  non-string key, non-finite number or alias is parsed every time), so what comes back is equal,
  type for type, to what YAML builds; a frontmatter YAML rejects is never kept, so its problem
  is found again.
- **Documents found usable** (`CheckMemo`, for `mlwiki.wiki_check` and the workflow runner's
  authoring check): a symptom page set, action or workflow that passed a check is remembered
  by the SHA-256 of everything the check read — the documents' paths and texts (a workflow's
  with every action it uses), every schema file, and the code and libraries that check (their
  files' sizes and times, and the sources of our checking modules). Only a pass is remembered: a document that fails is checked again, with
  its exact message.

- **Compiled templates** (`TemplateCode`, for `mlwiki.engine.render`'s sandboxes): Jinja parses
  a template and generates Python for it (~1 ms each; a diagnosis' verification workflows
  compile a few dozen, `lint` every one of the wiki's), which depends only on the text, the
  sandbox and the versions of Jinja, Python and our rendering modules. The code object is kept
  (marshalled) under the SHA-256 of all of them, and saved once when the command ends. It is
  code, read with the same trust as Python's own bytecode cache: only from a file of the user's
  that no one else may write.

- **Signature verdicts** (`signature_verdicts`, for `mlwiki.diagnose.signatures`): whether a
  valid signature pattern has named groups, learnt by parsing or compiling it with RE2, under
  the pattern, that module's source and the installed RE2 (an invalid pattern is checked
  every time).

- **Parsed Markdown** (`markdown_docs`, for the linter's `mlwiki.lint.markdown`): a file's
  headings, links and prose, under its text, where it starts, that module's source and the
  installed markdown-it.

All live in `${XDG_CACHE_HOME:-~/.cache}/mlwiki/wiki/`. A file there is read only when it
belongs to the user and no one else may write to it; an unreadable or malformed one is ignored
and replaced. Each holds at most `MAX_ENTRIES` keys (several wikis, e.g. worktrees, share it).
`MLWIKI_NO_CACHE=1` turns them off.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import hashlib
import marshal
import math
import os
import stat
from functools import lru_cache
from importlib.util import MAGIC_NUMBER, find_spec
from pathlib import Path
from types import CodeType
from typing import Any, Callable, Optional, TypeVar

import orjson

NO_CACHE_ENV = "MLWIKI_NO_CACHE"
MAX_ENTRIES = 2048
FORMAT = 1
FRONTMATTER = "frontmatter.cache"  # JSON, but no log suffix: a bundle folder may hold it
CHECKED = "checked.cache"
TEMPLATES = "templates.cache"
SIGNATURES = "signatures.cache"
MARKDOWN = "markdown.cache"
# Our modules whose code decides what a template compiles to (the sandboxes and their options).
RENDERING_MODULES = ("engine/render.py", "engine/expressions.py")
# Our module that decides what a signature pattern's verdict is (`SignatureSet`'s RE2 options).
SIGNATURE_MODULES = ("diagnose/signatures.py",)
# Our module that decides what a Markdown file parses to, for the linter.
MARKDOWN_MODULES = ("lint/markdown.py",)
# Our modules whose code decides whether a document is usable (see `mlwiki.wiki_check`).
CHECKING_MODULES = (
    "wiki_check.py",
    "schemas.py",
    "lint/fastschema.py",
    "engine/expressions.py",
    "engine/render.py",
    "engine/workflows.py",
)
CHECKING_LIBRARIES = ("jsonschema_rs", "jsonschema", "jinja2", "re2", "yaml")


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mlwiki" / "wiki"


def cache_file() -> Path:
    """The frontmatter cache's file."""
    return cache_folder() / FRONTMATTER


def _off() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _file_stamp(origin: Optional[str]) -> str:
    if origin is None:
        return "none"
    try:
        info = os.stat(origin)
    except OSError:
        return f"{origin}:unreadable"
    return f"{origin}:{info.st_size}:{info.st_mtime_ns}"


def _library_stamp(name: str) -> str:
    """Which installed copy of library `name` this is: an upgrade changes the stamp."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        spec = None
    return f"{name}={_file_stamp(spec.origin if spec is not None else None)}"


def _read(path: Path) -> dict[str, str]:
    """The cache file's string entries, when it is the user's own and only theirs to write."""
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


def _write(path: Path, entries: dict[str, str]) -> None:
    """Replace the cache file atomically; a read-only or full folder only costs a later
    command the work again, so it never fails a command."""
    import tempfile  # a command that changed no cache never writes one

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(orjson.dumps(entries))
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


def _bounded(entries: dict[str, str], used: set[str]) -> dict[str, str]:
    if len(entries) <= MAX_ENTRIES:
        return entries
    return {k: v for k, v in entries.items() if k in used}


def _json_exact(value: Any) -> bool:
    """Made only of what JSON round-trips to the same types and values, each list and mapping
    held once: YAML's aliases share one object (an alias bomb shares it billions of times),
    which JSON cannot say, so a shared one is not exact (and the walk stays as small as the
    objects in memory)."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if id(item) in seen:
                return False
            seen.add(id(item))
            if kind is dict:
                if not all(type(k) is str for k in item):
                    return False
                stack.extend(item.values())
            else:
                stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif kind not in (str, int, bool) and item is not None:
            return False
    return True


class FrontmatterCache:
    """The parsed mappings of one `load_wiki`: looked up by text, saved once at the end."""

    def __init__(self, path: Optional[Path]) -> None:
        self.path = path  # None: off
        self.stamp = f"{FORMAT}:{_library_stamp('yaml')}" if path is not None else ""
        self.entries: dict[str, str] = _read(path) if path is not None else {}
        self.used: set[str] = set()
        self.added = False

    @classmethod
    def open(cls) -> FrontmatterCache:
        return cls(None if _off() else cache_file())

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
        """Write the file when this load parsed something new."""
        if self.path is not None and self.added:
            _write(self.path, _bounded(self.entries, self.used))


def _sources_stamp(modules: tuple[str, ...], libraries: tuple[str, ...]) -> str:
    """sha256 of our `modules`' sources and of which copy of each of `libraries` is installed."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{FORMAT}\n".encode())
    for name in modules:
        try:
            digest.update(name.encode() + b"\0" + (package / name).read_bytes())
        except OSError:
            digest.update(f"{name}:unreadable".encode())
    for library in libraries:
        digest.update(_library_stamp(library).encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _code_stamp() -> str:
    return _sources_stamp(CHECKING_MODULES, CHECKING_LIBRARIES)


class CheckMemo:
    """The keys of the checks that passed before (see the module docstring)."""

    def __init__(self, path: Optional[Path]) -> None:
        self.path = path  # None: off
        self.entries: dict[str, str] = _read(path) if path is not None else {}

    @classmethod
    def open(cls) -> CheckMemo:
        return cls(None if _off() else cache_folder() / CHECKED)

    def key(self, schema_dir: Path, *parts: Any) -> Optional[str]:
        """The key of a check reading `parts` (paths, texts, values) and the schemas; None when
        the cache is off or a part cannot be written down exactly."""
        if self.path is None:
            return None
        digest = hashlib.sha256(_code_stamp().encode())
        try:
            for schema in sorted(schema_dir.glob("*.schema.json")):
                digest.update(b"\0schema\0" + schema.name.encode() + b"\0" + schema.read_bytes())
            for part in parts:
                if not _json_exact(part):
                    return None
                digest.update(b"\0part\0" + orjson.dumps(part))
        except OSError:
            return None
        return digest.hexdigest()

    def passed(self, key: Optional[str]) -> bool:
        return key is not None and key in self.entries

    def remember(self, key: Optional[str]) -> None:
        if key is None or self.path is None or key in self.entries:
            return
        fresh = _read(self.path)  # another command may have added keys since this one read
        fresh[key] = ""
        self.entries = fresh if len(fresh) <= MAX_ENTRIES else {key: ""}
        _write(self.path, self.entries)


class Derived:
    """Texts derived from exact inputs (see the module docstring), one file of them: looked up
    by the SHA-256 of the file's stamp and the inputs, new ones saved when the process ends."""

    def __init__(self, path: Optional[Path], stamp: Callable[[], str]) -> None:
        self.path = path  # None: off
        self.stamp = stamp() if path is not None else ""
        self.entries: Optional[dict[str, str]] = None  # read when first asked
        self.added: dict[str, str] = {}

    def _key(self, *parts: str) -> str:
        return hashlib.sha256("\0".join((self.stamp, *parts)).encode()).hexdigest()

    def get(self, *parts: str) -> Optional[str]:
        """What was derived before from exactly these parts; else None."""
        if self.path is None:
            return None
        if self.entries is None:
            self.entries = _read(self.path)
        key = self._key(*parts)
        return self.added.get(key) or self.entries.get(key)

    def put(self, value: str, *parts: str) -> None:
        if self.path is None:
            return
        if not self.added:
            atexit.register(self.save)
        self.added[self._key(*parts)] = value

    def save(self) -> None:
        """Add the new texts to the file (as another command may have left it)."""
        if self.path is None or not self.added:
            return
        fresh = _read(self.path)
        fresh.update(self.added)
        if len(fresh) > MAX_ENTRIES:
            fresh = dict(self.added)
        _write(self.path, fresh)
        if self.entries is not None:
            self.entries.update(self.added)
        self.added = {}


class TemplateCode(Derived):
    """Jinja's code objects of the templates compiled before (see the module docstring), by
    (sandbox, kind, text)."""

    def code(self, *parts: str) -> Optional[CodeType]:
        found = self.get(*parts)
        if found is None:
            return None
        try:
            code = marshal.loads(base64.b64decode(found, validate=True))
        except (binascii.Error, ValueError, EOFError, TypeError):
            return None
        return code if isinstance(code, CodeType) else None

    def keep(self, code: CodeType, *parts: str) -> None:
        self.put(base64.b64encode(marshal.dumps(code)).decode(), *parts)


@lru_cache(maxsize=1)
def _rendering_stamp() -> str:
    return f"{MAGIC_NUMBER.hex()}:{_sources_stamp(RENDERING_MODULES, ('jinja2',))}"


@lru_cache(maxsize=1)
def _signature_stamp() -> str:
    return _sources_stamp(SIGNATURE_MODULES, ("re2",))


@lru_cache(maxsize=1)
def _markdown_stamp() -> str:
    return _sources_stamp(MARKDOWN_MODULES, ("markdown_it",))


_OPENED: dict[tuple[str, Optional[Path]], Derived] = {}
_Kind = TypeVar("_Kind", bound=Derived)


def _opened(name: str, kind: type[_Kind], stamp: Callable[[], str]) -> _Kind:
    """The store `name` of the current cache folder (None: off), opened once per process."""
    path = None if _off() else cache_folder() / name
    found = _OPENED.get((name, path))
    if not isinstance(found, kind):
        found = _OPENED[(name, path)] = kind(path, stamp)
    return found


def template_code() -> TemplateCode:
    """The template code cache of the current cache folder, one per process (read once)."""
    return _opened(TEMPLATES, TemplateCode, _rendering_stamp)


def signature_verdicts() -> Derived:
    """What the diagnosis' signature set learnt of each valid pattern (see the module
    docstring), one per process (read once)."""
    return _opened(SIGNATURES, Derived, _signature_stamp)


def markdown_docs() -> Derived:
    """What each Markdown text parsed to for the linter (see the module docstring), one per
    process (read once)."""
    return _opened(MARKDOWN, Derived, _markdown_stamp)
