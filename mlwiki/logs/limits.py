"""What a log reader accepts: the bounds that keep a hostile or broken file from taking unbounded
memory or time, and the shape a LogEntry must have. One small place every reader calls.

- `open_log(path)`: the file's bytes, gunzipped when it starts with the gzip magic, behind a
  ratio guard (`GZIP_MAX_RATIO` once more than `GZIP_FREE_BYTES` came out: a gzip bomb is
  refused, real exports compress 5–30×). Only regular files: a FIFO or a device never blocks.
- `MAX_ENTRY_BYTES`: one LogEntry (a JSONL line, or one element of a JSON array) is at most this
  long; Cloud Logging itself caps an entry at 256 KiB, so this is generous, and a reader never
  holds more than this of one entry.
- `check_entry(entry, where)`: the LogEntry fields have the types Cloud Logging gives them
  (strings, objects, string maps), it nests at most `MAX_DEPTH` levels, its timestamp is RFC 3339
  in the supported range (see `mlwiki.timewindow`), and its text is valid Unicode (no lone
  surrogates from `\\ud800` escapes). The check costs little per entry: the usual shape (every
  checked field of exactly its usual type) is recognised at once and only an unusual entry is
  checked field by field, to name its problem (a reader may say that the resource and labels are
  a stream's already checked: `entry_problem`'s `stream_checked`); nesting is looked at only
  when the entry's text holds more than `MAX_DEPTH` brackets (and not at all in an entry of only
  strings and a checked stream's string maps), surrogates only when it holds a `\\u` escape and
  its decoder accepts lone ones (orjson, the fast split's decoder, refuses them). Payload
  contents (`jsonPayload`, `protoPayload`) are free form, as in Cloud Logging, and readers of
  them must cope with any JSON.
- `decode_errors`: the exceptions a JSON decoder raises on bad input (deep nesting, integers too
  long to convert, …), for readers to turn into `BadInput` with the file and line.
Every problem is a `BadInput` naming the file, line and field.
"""

from __future__ import annotations

import gzip
import io
import json
import stat
import zlib
from pathlib import Path
from typing import IO, Any, Optional

from mlwiki.errors import BadInput
from mlwiki.timewindow import timestamp_ns

MAX_ENTRY_BYTES = 8 << 20
MAX_DEPTH = 64
GZIP_FREE_BYTES = 16 << 20
GZIP_MAX_RATIO = 200
# Python's json raises these (besides JSONDecodeError) on hostile input.
decode_errors: tuple[type[BaseException], ...] = (ValueError, RecursionError, OverflowError)

_STRING_FIELDS = ("insertId", "logName", "timestamp", "receiveTimestamp", "trace", "spanId")
_OBJECT_FIELDS = (
    "jsonPayload",
    "protoPayload",
    "resource",
    "httpRequest",
    "operation",
    "sourceLocation",
    "split",
)
_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


class _RatioGuard(io.RawIOBase):
    """Decompressed bytes of a gzip stream, refused once they outgrow the compressed ones."""

    def __init__(self, raw: IO[bytes], path: Path) -> None:
        self._raw = raw
        self._gzip = gzip.GzipFile(fileobj=raw, mode="rb")
        self._path = path
        self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._gzip.read(len(buffer))
        except (OSError, EOFError, zlib.error) as error:
            raise BadInput(f"{self._path}: not a readable gzip file ({error})") from None
        self._out += len(data)
        compressed = max(self._raw.tell(), 1)
        if self._out > GZIP_FREE_BYTES and self._out > GZIP_MAX_RATIO * compressed:
            raise BadInput(
                f"{self._path}: refusing to decompress: {self._out >> 20} MiB came out of "
                f"{compressed >> 10} KiB (more than {GZIP_MAX_RATIO}x; a gzip bomb?)"
            )
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._gzip.close()
        self._raw.close()
        super().close()


def open_log(path: Path) -> IO[bytes]:
    """A buffered binary stream of the log file's content (see the module docstring)."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise BadInput(f"{path}: cannot read: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise BadInput(f"{path}: not a regular file (a FIFO, device or folder is not a log file)")
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller's `with`
    except OSError as error:
        raise BadInput(f"{path}: cannot read: {error.strerror or error}") from None
    head = raw.peek(4)[:4]
    for bom, name in _BOMS:
        if head.startswith(bom):
            raw.close()
            raise BadInput(f"{path}: the file is {name} text; save it as UTF-8")
    if head[:2] == b"\x1f\x8b":
        return io.BufferedReader(_RatioGuard(raw, path), buffer_size=1 << 20)
    return raw


def check_entry(entry: Any, where: str, raw: Optional[str | bytes] = None) -> dict[str, Any]:
    """`entry` when it is a well-formed LogEntry; BadInput naming `where` (file:line) otherwise.

    `raw`, the entry's JSON text when the reader has it, makes the check cheap: nesting and
    surrogates are looked for only when that text could hold them.
    """
    problem = entry_problem(entry, raw)
    if problem:
        raise BadInput(f"{where}: {problem}")
    return entry


def entry_problem(
    entry: Any,
    raw: Optional[str | bytes] = None,
    *,
    timestamp_read: bool = False,
    unicode_checked: bool = False,
    stream_checked: bool = False,
) -> Optional[str]:
    """What `check_entry` would say is wrong with `entry` (without the place), or None: for a
    reader that names the place only when there is a problem. `timestamp_read` says the
    caller has already parsed the timestamp (an RFC 3339 instant in range), so it is not
    parsed twice; `unicode_checked` that its decoder refuses lone surrogates (orjson does), so
    the text is not searched for them again; `stream_checked` that its `resource` and `labels`
    are those of an entry already found of the usual shape (`mlwiki.logs.entry.Stream.usual`:
    they are compared equal, and a string equals only a string), so they are not looked at
    again."""
    if not isinstance(entry, dict):
        return "a log entry must be a JSON object"
    if timestamp_read and _usual_shape(entry, stream_checked):
        if stream_checked and unicode_checked and _FLAT_FIELDS.issuperset(entry):
            return None  # strings and string maps only: nothing nests, nothing is unchecked
        return _raw_problem(entry, raw, unicode_checked)
    return _field_problem(entry, raw, timestamp_read)


# The fields `_field_problem` checks, with their usual type: `_usual_shape` checks them all at
# once (exact types, as a JSON decoder makes them) and leaves naming a problem to the full check.
_USUAL_TYPES: dict[str, type] = {
    **dict.fromkeys(_STRING_FIELDS, str),
    **dict.fromkeys(_OBJECT_FIELDS, dict),
    "textPayload": str,
}
_TYPED_FIELDS = frozenset(_USUAL_TYPES)
_ONLY_STRINGS = frozenset({str})
# An entry of only these fields, its resource and labels string maps (`stream_checked`), nests
# three levels deep at most: its text need not be searched for brackets.
_FLAT_FIELDS = frozenset({*_STRING_FIELDS, "textPayload", "severity", "resource", "labels"})
# The layouts (field names in order, the type of each value) of entries whose fields were found
# of the usual types: the same layout has the same types, whatever the values.
_USUAL_LAYOUTS: set[tuple[tuple[str, ...], tuple[type, ...]]] = set()
MAX_LAYOUTS = 4096


def flat(entry: dict[str, Any]) -> bool:
    """Whether `entry`, whose timestamp its reader parsed, whose decoder refuses lone
    surrogates and whose resource and labels are a stream's already checked (`Stream.usual`:
    each a string map, or missing; see `entry_problem`), holds only those maps and strings in
    `_FLAT_FIELDS`: then nothing in it is left to check (`entry_problem` is None). A few
    C-level steps, no Python code per field: the usual case."""
    if not _FLAT_FIELDS.issuperset(entry):
        return False
    types = list(map(type, entry.values()))
    # Every value a string but the resource and the labels, which must be the stream's maps.
    maps = (type(entry.get("resource")) is dict) + (type(entry.get("labels")) is dict)
    return types.count(str) + maps == len(types)


def _usual_shape(entry: dict[str, Any], stream_checked: bool = False) -> bool:
    """Whether every field `_field_problem` checks has exactly its usual type: True for almost
    every entry, cheaply (a layout seen before, else one set intersection; C-level type sets
    for the string maps, which `stream_checked` skips: see `entry_problem`); False sends the
    entry to `_field_problem`, which names the first problem in a fixed order."""
    layout = (tuple(entry), tuple(map(type, entry.values())))
    if layout not in _USUAL_LAYOUTS:
        for name in _TYPED_FIELDS.intersection(entry):
            if type(entry[name]) is not _USUAL_TYPES[name]:
                return False
        severity = entry.get("severity")
        if severity is not None and type(severity) is not str and type(severity) is not int:
            return False
        if len(_USUAL_LAYOUTS) >= MAX_LAYOUTS:
            _USUAL_LAYOUTS.clear()
        _USUAL_LAYOUTS.add(layout)
    if stream_checked:
        return True
    resource = entry.get("resource")
    if resource is not None:
        kind = resource.get("type")
        if kind is not None and type(kind) is not str:
            return False
        labels = resource.get("labels")
        if labels is not None and (
            type(labels) is not dict or not _ONLY_STRINGS.issuperset(map(type, labels.values()))
        ):
            return False
    labels = entry.get("labels")
    return labels is None or (
        type(labels) is dict and _ONLY_STRINGS.issuperset(map(type, labels.values()))
    )


def _field_problem(
    entry: dict[str, Any], raw: Optional[str | bytes], timestamp_read: bool = False
) -> Optional[str]:
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str):
        return "log entry has no 'timestamp' string"
    if not timestamp_read and timestamp_ns(stamp) is None:
        return (
            f"'timestamp' {stamp[:60]!r} is not an RFC 3339 timestamp between 1970 and 2999 "
            "(UTC, e.g. 2024-05-01T12:00:00Z)"
        )
    for name in _STRING_FIELDS:
        if name in entry and not isinstance(entry[name], str):
            return f"field {name!r} must be a string, not {type(entry[name]).__name__}"
    for name in _OBJECT_FIELDS:
        if name in entry and not isinstance(entry[name], dict):
            return f"field {name!r} must be an object, not {type(entry[name]).__name__}"
    if "textPayload" in entry and not isinstance(entry["textPayload"], str):
        return f"field 'textPayload' must be a string, not {type(entry['textPayload']).__name__}"
    severity = entry.get("severity")
    if severity is not None and (
        isinstance(severity, bool) or not isinstance(severity, (str, int))
    ):
        return f"field 'severity' must be a name like ERROR, not {type(severity).__name__}"
    resource = entry.get("resource")
    if isinstance(resource, dict):
        if "type" in resource and not isinstance(resource["type"], str):
            return "field 'resource.type' must be a string"
        labels = _string_map(resource, "labels")
        if labels:
            return f"field 'resource.{labels}"
    labels = _string_map(entry, "labels")
    if labels:
        return f"field '{labels}"
    return _raw_problem(entry, raw)


def _raw_problem(
    entry: dict[str, Any], raw: Optional[str | bytes], unicode_checked: bool = False
) -> Optional[str]:
    """Nesting and lone surrogates, looked for only where the entry's text could hold them."""
    if raw is None:
        return _depth_problem(entry) or (None if unicode_checked else _unicode_problem(entry))
    if isinstance(raw, str):
        brackets = raw.count("{") + raw.count("[")
        escapes = not unicode_checked and "\\u" in raw
    else:
        brackets = raw.count(b"{") + raw.count(b"[")
        escapes = not unicode_checked and b"\\u" in raw
    return (_depth_problem(entry) if brackets > MAX_DEPTH else None) or (
        _unicode_problem(entry) if escapes else None
    )


def _string_map(parent: dict[str, Any], name: str) -> Optional[str]:
    value = parent.get(name)
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"{name}' must be an object of strings, not {type(value).__name__}"
    for key, item in value.items():
        if not isinstance(item, str):
            return f"{name}.{key}' must be a string, not {type(item).__name__}"
    return None


def _depth_problem(entry: Any) -> Optional[str]:
    stack: list[tuple[Any, int]] = [(entry, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the entry nests deeper than {MAX_DEPTH} levels"
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return None


def _unicode_problem(entry: Any) -> Optional[str]:
    stack: list[Any] = [entry]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return (
                        "the entry holds text that is not valid Unicode (a lone surrogate escape)"
                    )
        elif isinstance(value, dict):
            stack.extend(value.values())
            stack.extend(value.keys())
        elif isinstance(value, list):
            stack.extend(value)
    return None


MAX_JSON_FILE_BYTES = 256 << 20


def read_json_file(path: Path, label: str, what: str = "JSON file") -> Any:
    """A whole JSON file (findings, a manifest…), read within the same bounds as log entries:
    at most MAX_JSON_FILE_BYTES, UTF-8, nesting at most MAX_DEPTH, valid Unicode. `label` names
    the file in messages (`FINDINGS`, `--findings`)."""
    try:
        size = path.stat().st_size
        if not stat.S_ISREG(path.stat().st_mode):
            raise BadInput(f"{label} {path}: not a regular file")
        if size > MAX_JSON_FILE_BYTES:
            raise BadInput(f"{label} {path}: {size >> 20} MiB is too large for this file")
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise BadInput(f"{label} {path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise BadInput(f"{label} {path}: not a {what} (not UTF-8 text: {error.reason})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadInput(
            f"{label} {path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"
        ) from None
    except decode_errors as error:
        reason = "it nests too deeply" if isinstance(error, RecursionError) else str(error)[:200]
        raise BadInput(f"{label} {path}: cannot decode this JSON: {reason}") from None
    problem = _depth_problem(value) if text.count("[") + text.count("{") > MAX_DEPTH else None
    problem = problem or (_unicode_problem(value) if "\\u" in text else None)
    if problem:
        raise BadInput(f"{label} {path}: {problem.replace('the entry', 'the file')}")
    return value
