"""Offline bundles: log entries as `gcloud logging read --format=json` writes them, streamed.

A bundle is a file or a directory (its `kubectl/` and `metrics/` folders hold recorded command
outputs and Cloud Monitoring series, not log entries). Files hold a JSON array of LogEntry objects or one entry per line
(JSONL), optionally gzip-compressed. Entries are yielded one at a time so that a bundle larger than
memory still works: a JSON array is decoded object by object from a sliding buffer.
`load_bundle` fills an `EntryStore` from a bundle, keeping only the entries inside a time window.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Optional

from mlwiki.errors import BadInput
from mlwiki.logs.report import SourceReport
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import Window, timestamp_ns

LOG_SUFFIXES = (".json", ".jsonl", ".ndjson")
# Files that may sit beside the logs in a bundle or a scenario folder and are not log entries.
NOT_LOGS = {"expected.json", "findings.json", "manifest.json", "metadata.json", "scenario.json"}
KUBECTL_DIR = "kubectl"
METRICS_DIR = "metrics"  # Cloud Monitoring time series (mlwiki.metrics.source), not log entries
_CHUNK = 1 << 20
_WHITESPACE = " \t\r\n"


def bundle_files(path: Path) -> list[Path]:
    """The log files of a bundle, in a stable order."""
    if not path.exists():
        raise BadInput(f"--bundle: {path} does not exist")
    if path.is_file():
        return [path]
    files = []
    for candidate in sorted(path.rglob("*")):
        relative = candidate.relative_to(path)
        folders = relative.parts[:-1]
        if KUBECTL_DIR in folders or METRICS_DIR in folders or candidate.name in NOT_LOGS:
            continue
        name = candidate.name[:-3] if candidate.name.endswith(".gz") else candidate.name
        if candidate.is_file() and name.endswith(LOG_SUFFIXES):
            files.append(candidate)
    if not files:
        raise BadInput(f"--bundle: no log files (*.json, *.jsonl, optionally .gz) in {path}")
    return files


def _open_text(path: Path) -> IO[str]:
    raw: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed by the caller's `with`
    head = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if head == b"\x1f\x8b":
        raw = gzip.open(raw)  # type: ignore[assignment]  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8", errors="strict")


def iter_bundle(path: Path | str) -> Iterator[dict[str, Any]]:
    """Every log entry of the bundle at `path`, one at a time."""
    for file in bundle_files(Path(path)):
        yield from iter_file(file)


def iter_file(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with _open_text(path) as stream:
            first, line = _first_char(stream)
            if first == "":
                return
            if first == "[":
                yield from _iter_array(stream, path, line)
            else:
                yield from _iter_lines(stream, path, first, line)
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not valid UTF-8 ({error.reason})") from None
    except (OSError, EOFError) as error:
        raise BadInput(f"{path}: cannot read: {error}") from None


def _first_char(stream: IO[str]) -> tuple[str, int]:
    """The first non-blank character and its line number, so messages count skipped lines."""
    line = 1
    while True:
        char = stream.read(1)
        if char == "" or char not in _WHITESPACE:
            return char, line
        line += char == "\n"


def _checked(entry: Any, path: Path, line: int) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise BadInput(f"{path}:{line}: a log entry must be a JSON object")
    if not isinstance(entry.get("timestamp"), str):
        raise BadInput(f"{path}:{line}: log entry has no 'timestamp' string")
    if timestamp_ns(entry["timestamp"]) is None:
        raise BadInput(
            f"{path}:{line}: 'timestamp' {entry['timestamp']!r} is not an RFC 3339 timestamp"
        )
    return entry


def _iter_lines(
    stream: IO[str], path: Path, first: str, first_line: int
) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(_prepend(first, stream), start=first_line):
        text = line.strip()
        if not text:
            continue
        try:
            entry = json.loads(text)
        except json.JSONDecodeError as error:
            raise BadInput(
                f"{path}:{number}:{error.colno}: invalid JSON: {error.msg} (a bundle file holds a "
                "JSON array of log entries or one entry per line)"
            ) from None
        yield _checked(entry, path, number)


def _prepend(first: str, stream: IO[str]) -> Iterator[str]:
    lines = iter(stream)
    head = next(lines, "")
    yield first + head
    yield from lines


def _iter_array(stream: IO[str], path: Path, first_line: int) -> Iterator[dict[str, Any]]:
    """Decode `[obj, obj, …]` incrementally; memory stays at one chunk plus one entry."""
    decoder = json.JSONDecoder()
    buffer = ""
    position = 0
    line = first_line  # line number of buffer[mark] in the file, for messages
    mark = 0  # newlines are counted incrementally from here (never from the buffer's start)
    expect_value = True
    eof = False
    while True:
        # Skip separators.
        while True:
            while position < len(buffer) and buffer[position] in _WHITESPACE:
                position += 1
            if position < len(buffer) or eof:
                break
            line += buffer.count("\n", mark)
            buffer, position, mark = stream.read(_CHUNK), 0, 0
            eof = buffer == ""
        if position >= len(buffer):
            raise BadInput(f"{path}:{line}: unexpected end of file: the JSON array is not closed")
        char = buffer[position]
        if char == "]" and (expect_value is False or buffer[:position].strip() == ""):
            return
        if char == "," and not expect_value:
            expect_value = True
            position += 1
            continue
        if not expect_value:
            here = line + buffer.count("\n", mark, position)
            raise BadInput(f"{path}:{here}: expected ',' or ']' between log entries")
        try:
            entry, end = decoder.raw_decode(buffer, position)
        except json.JSONDecodeError as error:
            if eof:
                here = line + buffer.count("\n", mark, error.pos)
                raise BadInput(f"{path}:{here}: invalid JSON: {error.msg}") from None
            # The object may continue past the buffer: drop what is consumed and read more.
            line += buffer.count("\n", mark, position)
            more = stream.read(_CHUNK)
            eof = more == ""
            buffer, position, mark = buffer[position:] + more, 0, 0
            continue
        line += buffer.count("\n", mark, position)
        mark = position
        yield _checked(entry, path, line)
        expect_value = False
        position = end
        if position > _CHUNK:
            line += buffer.count("\n", mark, position)
            buffer, position, mark = buffer[position:], 0, 0


def load_bundle(
    path: Path | str, window: Optional[Window] = None
) -> tuple[EntryStore, SourceReport]:
    """Read a bundle into a store; entries outside `window` are skipped and counted.

    Entries without an insertId get a stable synthetic one (see `mlwiki.logs.store`).
    """
    root = Path(path)
    report = SourceReport(
        source="bundle", sources=[str(file) for file in bundle_files(root)], window=window
    )
    store = EntryStore()
    low = window.start_ns if window else None
    high = window.end_ns if window else None
    for entry in iter_bundle(root):
        instant = timestamp_ns(entry["timestamp"])
        if low is not None and not (low <= instant <= high):  # type: ignore[operator]
            report.outside_window += 1
        elif store.add(entry):
            report.entries += 1
        else:
            report.duplicates += 1
    return store, report
