"""Offline bundles: log entries as `gcloud logging read --format=json` writes them, streamed.

A bundle is a file or a directory (its `kubectl/` and `metrics/` folders hold recorded command
outputs and Cloud Monitoring series, not log entries). Files hold a JSON array of LogEntry objects or one entry per line
(JSONL), optionally gzip-compressed. Entries are yielded one at a time so that a bundle larger than
memory still works: a JSON array is decoded object by object from a sliding buffer.
`load_bundle` fills an `EntryStore` from a bundle, keeping only the entries inside a time window.
"""

from __future__ import annotations

import io
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Optional

from mlwiki.errors import BadInput
from mlwiki.logs import limits
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
_NOT_WHITESPACE = re.compile(r"[^ \t\r\n]")


def bundle_files(path: Path) -> list[Path]:
    """The log files of a bundle, in a stable order (regular files only: see `limits`)."""
    if not path.exists() and not path.is_symlink():
        raise BadInput(f"--bundle: {path} does not exist")
    if not path.is_dir():
        return [path]
    files = []
    for candidate in sorted(path.rglob("*")):
        relative = candidate.relative_to(path)
        folders = relative.parts[:-1]
        if KUBECTL_DIR in folders or METRICS_DIR in folders or candidate.name in NOT_LOGS:
            continue
        name = candidate.name[:-3] if candidate.name.endswith(".gz") else candidate.name
        if not name.endswith(LOG_SUFFIXES) or candidate.is_dir():
            continue
        if not candidate.is_file():
            raise BadInput(
                f"--bundle: {candidate} is not a regular file (a FIFO, device or broken or "
                "looping link); remove it from the bundle"
            )
        files.append(candidate)
    if not files:
        raise BadInput(f"--bundle: no log files (*.json, *.jsonl, optionally .gz) in {path}")
    return files


def _open_text(path: Path) -> IO[str]:
    # utf-8-sig: a UTF-8 byte-order mark (PowerShell writes one) is read past.
    return io.TextIOWrapper(limits.open_log(path), encoding="utf-8-sig", errors="strict")


def iter_bundle(path: Path | str) -> Iterator[dict[str, Any]]:
    """Every log entry of the bundle at `path`, one at a time."""
    for file in bundle_files(Path(path)):
        yield from iter_file(file)


def iter_file(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with _open_text(path) as stream:
            first, line, pending = _first_char(stream)
            if first == "":
                return
            if first == "[":
                yield from _iter_array(stream, path, line, pending)
            else:
                yield from _iter_lines(stream, path, first + pending, line)
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not valid UTF-8 ({error.reason})") from None
    except (OSError, EOFError, zlib.error) as error:
        raise BadInput(f"{path}: cannot read: {error}") from None


def _first_char(stream: IO[str]) -> tuple[str, int, str]:
    """The first non-blank character, its line number (messages count skipped lines) and the
    rest of the chunk read after it (blank runs are skipped a chunk at a time)."""
    line = 1
    while True:
        chunk = stream.read(_CHUNK)
        if chunk == "":
            return "", line, ""
        found = _NOT_WHITESPACE.search(chunk)
        if found is None:
            line += chunk.count("\n")
            continue
        start = found.start()
        return chunk[start], line + chunk.count("\n", 0, start), chunk[start + 1 :]


def _checked(entry: Any, path: Path, line: int, raw: Optional[str] = None) -> dict[str, Any]:
    return limits.check_entry(entry, f"{path}:{line}", raw)


def _too_long(path: Path, line: int) -> BadInput:
    return BadInput(
        f"{path}:{line}: a log entry longer than {limits.MAX_ENTRY_BYTES >> 20} MiB "
        "(Cloud Logging keeps entries under 256 KiB); is this a log bundle?"
    )


def _iter_lines(
    stream: IO[str], path: Path, first: str, first_line: int
) -> Iterator[dict[str, Any]]:
    """One entry per line; `first` is what was read of the file past its leading blanks."""
    for number, line in enumerate(_prepend(first, stream, path, first_line), start=first_line):
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
        except limits.decode_errors as error:
            raise BadInput(f"{path}:{number}: cannot decode this JSON: {_reason(error)}") from None
        yield _checked(entry, path, number, text)


def _reason(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "it nests too deeply"
    return str(error).split(";")[0][:200]


def _prepend(first: str, stream: IO[str], path: Path, first_line: int) -> Iterator[str]:
    """The lines (`first` is text already read), each at most MAX_ENTRY_BYTES characters: a
    longer one is refused without being held whole."""
    limit = limits.MAX_ENTRY_BYTES
    pending, start, number = first, 0, first_line
    while True:
        newline = pending.find("\n", start)
        if newline >= 0:
            yield pending[start : newline + 1]
            start, number = newline + 1, number + 1
            continue
        rest = pending[start:]
        if len(rest) > limit:
            raise _too_long(path, number)
        more = stream.readline(limit + 1 - len(rest))
        if not more:
            if rest:
                yield rest
            return
        pending, start = rest + more, 0


def _iter_array(
    stream: IO[str], path: Path, first_line: int, pending: str = ""
) -> Iterator[dict[str, Any]]:
    """Decode `[obj, obj, …]` incrementally; memory stays at one chunk plus one entry."""
    decoder = json.JSONDecoder()
    buffer = pending
    position = 0
    line = first_line  # line number of buffer[mark] in the file, for messages
    mark = 0  # newlines are counted incrementally from here (never from the buffer's start)
    expect_value = True
    seen_any = False  # `[]` is empty; `[x,]` is not JSON
    eof = False
    while True:
        # Skip separators.
        while True:
            found = _NOT_WHITESPACE.search(buffer, position)
            position = found.start() if found else len(buffer)
            if position < len(buffer) or eof:
                break
            line += buffer.count("\n", mark)
            buffer, position, mark = stream.read(_CHUNK), 0, 0
            eof = buffer == ""
        if position >= len(buffer):
            raise BadInput(f"{path}:{line}: unexpected end of file: the JSON array is not closed")
        char = buffer[position]
        if char == "]" and (not expect_value or not seen_any):
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
            if len(buffer) - position > limits.MAX_ENTRY_BYTES:
                raise _too_long(path, line + buffer.count("\n", mark, position)) from None
            # The object may continue past the buffer: drop what is consumed and read more.
            line += buffer.count("\n", mark, position)
            more = stream.read(_CHUNK)
            eof = more == ""
            buffer, position, mark = buffer[position:] + more, 0, 0
            continue
        except limits.decode_errors as error:
            here = line + buffer.count("\n", mark, position)
            raise BadInput(f"{path}:{here}: cannot decode this JSON: {_reason(error)}") from None
        line += buffer.count("\n", mark, position)
        mark = position
        yield _checked(entry, path, line, buffer[position:end])
        seen_any = True
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
