"""Offline bundles: log entries as `gcloud logging read --format=json` writes them, streamed.

A bundle is a file or a directory (its `kubectl/` and `metrics/` folders hold recorded command
outputs and Cloud Monitoring series, not log entries). Files hold a JSON array of LogEntry
objects or one entry per line (JSONL), optionally gzip-compressed. A file is read in chunks of raw bytes and split at
entry boundaries without decoding the text in Python:
- JSONL: every newline ends an entry (JSON strings cannot hold a raw newline);
- a JSON array written with indentation (what gcloud and `json.dumps(indent=…)` write): an entry
  opened by `{` after a newline and some indentation ends at the first `}` after a newline and
  the same indentation (nested objects are indented deeper, strings hold no raw newline).
Each entry's bytes are decoded on their own, its timestamp parsed once, its stream looked up
(`mlwiki.logs.entry.stream_of`: the resource and labels of a stream already seen of the usual
shape are not checked again) and its byte offset kept (`RawEntry`'s third item), so the entry
store can keep an offset into the file instead of a copy; for the diagnosis' pass
(`iter_facts`) the splitter makes each entry's `EntryFacts` itself. There, in a plain file, a
text line (most entries of every bundle: a container's printed line) is decoded by msgspec
into a typed struct of only the fields it may have (`_Line`), its resource and labels left as
bytes that name its stream (a dictionary lookup per line; a stream's bytes decoded once), and
no dict is built (`LineFacts`: the entry is decoded by orjson only when asked for, as a matched
line is); an entry that is not such a line (a payload, another field, a type `_Line` does not
take) is decoded by orjson into a dict as before, so both read the same facts and refuse the
same input with the same message. Anything else (a minified array, an entry that does not decode where the layout says it
ends) is read from that point on by a streaming JSON decoder over the text, which also names
the line of a syntax error. A read may end anywhere, between two entries too: the bytes the
split looks at next (the separator `},\n  {`, the line break and indentation before an entry)
are read before it decides, so where the chunks end never sends the rest of the file to the
streaming decoder (which keeps no offsets, and so a copy of every entry). Memory stays at one
chunk plus one entry whatever the file size.

Files are opened and every entry checked through `mlwiki.logs.limits` (regular files only, no
UTF-16/32, a gzip-ratio guard, entries at most `limits.MAX_ENTRY_BYTES`, LogEntry field types,
nesting, Unicode). Bad input is a `BadInput` naming the file and line (and the column for
JSONL); wherever the fast split meets something unusual — a syntax error included — the
streaming decoder reads on from that entry and names the problem.
`load_bundle` fills an `EntryStore` from a bundle, keeping only the entries inside a time window.
"""

from __future__ import annotations

import io
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Optional, Union

import msgspec
import orjson

from mlwiki.errors import BadInput
from mlwiki.logs import limits
from mlwiki.logs.entry import EntryFacts, LineFacts, Stream, entry_host, stream_of
from mlwiki.logs.report import SourceReport
from mlwiki.logs.store import EntryStore
from mlwiki.timewindow import Window, parse_timestamp_ns, timestamp_ns

LOG_SUFFIXES = (".json", ".jsonl", ".ndjson")
# Files that may sit beside the logs in a bundle or a scenario folder and are not log entries.
NOT_LOGS = {"expected.json", "findings.json", "manifest.json", "metadata.json", "scenario.json"}
KUBECTL_DIR = "kubectl"
METRICS_DIR = "metrics"  # Cloud Monitoring time series (mlwiki.metrics.source), not log entries
CHUNK_BYTES = 4 << 20
KEPT_SPACE = 256  # bytes of whitespace kept across a read (an entry's line break and indent)
_CHUNK = 1 << 20  # characters the streaming decoder reads at a time
_UTF8_BOM = b"\xef\xbb\xbf"  # PowerShell writes one; read past, as utf-8-sig does
_NOT_WHITESPACE = re.compile(r"[^ \t\r\n]")
_SPACE = re.compile(rb"[ \t\r\n]*")
_INDENT = re.compile(rb"[ \t]*")


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


class _Line(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A text line's LogEntry as the line decoder reads it (`_Splitter._line`): the fields
    `limits.flat` vouches for (`entry.LINE_FIELDS`), each a string (a missing one is UNSET; a
    null, a number or any other field is a decoding error), the resource and the labels left
    as their JSON bytes (a stream already seen is known by them)."""

    textPayload: Union[str, msgspec.UnsetType] = msgspec.UNSET
    timestamp: Union[str, msgspec.UnsetType] = msgspec.UNSET
    insertId: Union[str, msgspec.UnsetType] = msgspec.UNSET
    logName: Union[str, msgspec.UnsetType] = msgspec.UNSET
    severity: Union[str, msgspec.UnsetType] = msgspec.UNSET
    receiveTimestamp: Union[str, msgspec.UnsetType] = msgspec.UNSET
    trace: Union[str, msgspec.UnsetType] = msgspec.UNSET
    spanId: Union[str, msgspec.UnsetType] = msgspec.UNSET
    resource: msgspec.Raw = msgspec.Raw()
    labels: msgspec.Raw = msgspec.Raw()


_read_line = msgspec.json.Decoder(_Line).decode
# What the line decoder refuses: the entry is then read as a dict (`_Splitter._decode`).
_NOT_A_LINE = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
# (logName, resource bytes, labels bytes) → the stream and the host of a text line of that
# stream (`_Splitter._line`): only usual streams, at most `entry.MAX_STREAMS`.
_LINE_STREAMS: dict[tuple[Any, bytes, bytes], tuple[Stream, Optional[str]]] = {}


def _line_stream(
    log_name: Any, resource: bytes, labels: bytes
) -> Optional[tuple[Stream, Optional[str]]]:
    """The stream and host of a text line of a stream not in `_LINE_STREAMS` whose resource
    and labels are these JSON bytes (b"" when missing), kept there when they are of the usual
    shape (`Stream.usual`); None when they are not."""
    fields: dict[str, Any] = {} if log_name is msgspec.UNSET else {"logName": log_name}
    try:
        if resource:
            fields["resource"] = orjson.loads(resource)
        if labels:
            fields["labels"] = orjson.loads(labels)
    except orjson.JSONDecodeError:
        return None
    if type(fields.get("resource", {})) is not dict or type(fields.get("labels", {})) is not dict:
        return None
    stream = stream_of(fields)
    if not stream.usual:
        return None
    # A line has no payload: its host is the stream's, or else what its labels say.
    known = (stream, stream.host if stream.host is not None else entry_host(fields))
    if len(_LINE_STREAMS) >= MAX_LINE_STREAMS:
        _LINE_STREAMS.clear()
    _LINE_STREAMS[log_name, resource, labels] = known
    return known


MAX_LINE_STREAMS = 1 << 13


# One entry of a bundle file, decoded and checked: the dict, its instant (nanoseconds) and, in a
# plain (not compressed) file, its bytes' offset (else None) and length.
RawEntry = tuple[dict[str, Any], int, Optional[int], int]


def iter_bundle(path: Union[Path, str]) -> Iterator[dict[str, Any]]:
    """Every log entry of the bundle at `path`, one at a time."""
    for file in bundle_files(Path(path)):
        for raw in iter_raw(file):
            yield raw[0]


def iter_file(path: Path) -> Iterator[dict[str, Any]]:
    for raw in iter_raw(path):
        yield raw[0]


def iter_facts(path: Union[Path, str], store: EntryStore) -> Iterator[EntryFacts]:
    """The facts of every entry of the bundle at `path`, each file registered with `store` so
    that it can keep the entries of plain files as offsets."""
    for file in bundle_files(Path(path)):
        yield from _read(file, store.register_file(file))


def iter_raw(path: Path) -> Iterator[RawEntry]:
    """The checked entries of one bundle file (see the module docstring)."""
    return _read(path, None)


def _read(path: Path, number: Optional[int]) -> Iterator[Any]:
    """The checked entries of one bundle file: `RawEntry`s, or the `EntryFacts` of file
    `number` of a store (made by the splitter itself: one step less for every entry)."""
    try:
        with limits.open_log(path) as stream:
            # A plain file's bytes can be read again by offset; a gunzipped stream's cannot.
            seekable = isinstance(getattr(stream, "raw", None), io.FileIO)
            yield from _Splitter(stream, path, seekable=seekable, number=number).entries()
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not valid UTF-8 ({error.reason})") from None
    except (OSError, EOFError, zlib.error) as error:
        raise BadInput(f"{path}: cannot read: {error}") from None


class _Splitter:
    """Splits one file's bytes at entry boundaries (module docstring) and decodes each entry.

    `buffer[position:]` is what is left to read and `base` the file offset of `buffer[0]`. It
    yields `RawEntry`s, or `EntryFacts` located in the store's file `number` when given. Line
    numbers only name a problem, so none is counted while the split goes well (`line_at`)."""

    def __init__(
        self, stream: IO[bytes], path: Path, *, seekable: bool, number: Optional[int] = None
    ) -> None:
        self.stream = stream
        self.path = path
        self.seekable = seekable
        self.number = number
        self.buffer = b""
        self.base = 0
        self.eof = False
        self._resume = 0  # where `_array` goes on after `_indented` (see there)
        # Text lines are read without a dict where the store keeps entries by offset.
        self.lines = number is not None and seekable

    # ---- the buffer -----------------------------------------------------------------------

    def _fill(self, keep: int) -> int:
        """Read more, dropping what precedes `keep`; returns how many bytes were dropped, or -1
        at the end of the file."""
        if self.eof:
            return -1
        chunk = self.stream.read(CHUNK_BYTES)
        if not chunk:
            self.eof = True
            return -1
        self.buffer = self.buffer[keep:] + chunk
        self.base += keep
        return keep

    def line_at(self, position: int) -> int:
        """The line number of `buffer[position]`, counted when asked for (a problem to name,
        the streaming decoder's first line): the newlines of the bytes already dropped are
        counted by reading the file again up to the buffer. Counted as the split went, they
        would cost a read of every byte of every bundle, for the few with a problem to name."""
        before = _newlines(self.path, self.base) if self.base else 0
        return 1 + before + self.buffer.count(b"\n", 0, position)

    def _skip_space(self, position: int) -> int:
        """The position of the next non-whitespace byte (refilling), or len(buffer) at EOF.
        The last `KEPT_SPACE` bytes of the run stay in the buffer: the line break and the
        indentation before an entry tell its layout (`_indent_of`, `_indented`)."""
        start = position
        while True:
            position = _SPACE.match(self.buffer, position).end()  # type: ignore[union-attr]
            if position < len(self.buffer):
                return position
            dropped = self._fill(max(start, position - KEPT_SPACE))
            if dropped < 0:
                return position
            position, start = position - dropped, max(0, start - dropped)

    def _too_big(self, start: int) -> BadInput:
        return _too_long(self.path, self.line_at(start))

    # ---- entries --------------------------------------------------------------------------

    def _decode(self, start: int, end: int) -> Any:
        """The checked entry in `buffer[start:end]` (see the class docstring); orjson's
        JSONDecodeError when orjson cannot read it (the streaming decoder then reads on from
        there and names the problem). The entry's stream is looked up first: a stream already
        seen of the usual shape stands for that part of the check."""
        raw = self.buffer[start:end]
        if self.lines:
            facts = self._line(raw, start)
            if facts is not None:
                return facts
        entry = orjson.loads(raw)
        if type(entry) is dict:
            stamp = entry.get("timestamp")
            instant = parse_timestamp_ns(stamp) if type(stamp) is str else None
            stream: Optional[Stream] = stream_of(entry)
        else:
            instant = stream = None
        if instant is None or stream is None or not stream.usual or not limits.flat(entry):
            problem = limits.entry_problem(
                entry,
                raw,
                timestamp_read=instant is not None,
                unicode_checked=True,
                stream_checked=stream is not None and stream.usual,
            )
            if problem:
                raise BadInput(f"{self.path}:{self.line_at(start)}: {problem}")
        offset = self.base + start if self.seekable else None
        if self.number is None:
            return entry, instant, offset, end - start
        location = None if offset is None else (self.number, offset, end - start)
        return EntryFacts(entry, instant, location, stream)  # type: ignore[arg-type]

    def _line(self, raw: bytes, start: int) -> Optional[LineFacts]:
        """The facts of the text line in `raw` (at `buffer[start]`), read without a dict; None
        when it is not one (see `LineFacts`) or not of the usual shape: `_decode` then reads it
        as every other entry. Every field `limits` checks is a string by its type in `_Line`,
        the timestamp is parsed, the stream is a usual one (string maps: nothing nests), and
        the decoder refuses lone surrogates, so nothing is left to check."""
        try:
            line = _read_line(raw)
        except _NOT_A_LINE:
            return None
        text, stamp, insert_id = line.textPayload, line.timestamp, line.insertId
        if not text or not insert_id or stamp is msgspec.UNSET:
            return None
        instant = parse_timestamp_ns(stamp)  # type: ignore[arg-type]
        if instant is None:
            return None
        log_name, resource, labels = line.logName, bytes(line.resource), bytes(line.labels)
        known = _LINE_STREAMS.get((log_name, resource, labels))
        if known is None:
            known = _line_stream(log_name, resource, labels)
            if known is None:
                return None
        severity = line.severity
        return LineFacts(
            raw,
            text,  # type: ignore[arg-type]
            stamp,  # type: ignore[arg-type]
            instant,
            insert_id,  # type: ignore[arg-type]
            severity if severity else "DEFAULT",  # type: ignore[arg-type]
            known[0],
            known[1],
            (self.number, self.base + start, len(raw)),  # type: ignore[arg-type]
        )

    def entries(self) -> Iterator[Any]:
        position = self._skip_space(0)
        if self.buffer.startswith(_UTF8_BOM, position):
            position = self._skip_space(position + len(_UTF8_BOM))
        if position >= len(self.buffer):
            return
        if self.buffer[position : position + 1] == b"[":
            yield from self._array(position + 1)
        else:
            yield from self._lines(position)

    def _lines(self, position: int) -> Iterator[Any]:
        """JSONL: one entry per line; blank lines are skipped."""
        searched = position
        while True:
            end = self.buffer.find(b"\n", searched)
            last = end < 0
            if last:
                if len(self.buffer) - position > limits.MAX_ENTRY_BYTES:
                    raise self._too_big(position)
                searched = len(self.buffer)  # no newline up to here
                dropped = self._fill(position)
                if dropped >= 0:
                    position, searched = position - dropped, searched - dropped
                    continue
                end = len(self.buffer)  # the last line has no newline
            start = _SPACE.match(self.buffer, position, end).end()  # type: ignore[union-attr]
            if start < end:
                try:
                    found = self._decode(start, end)
                except orjson.JSONDecodeError:
                    yield from self._streamed(start, lines=True)
                    return
                yield found
            if last:
                return
            position = searched = end + 1

    def _array(self, position: int) -> Iterator[Any]:
        """`[obj, obj, …]`: indented entries split by layout, the rest by a streaming decoder."""
        expect_value, seen = True, False
        indent: Optional[bytes] = None
        while True:
            position = self._skip_space(position)
            if position >= len(self.buffer):
                raise BadInput(
                    f"{self.path}:{self.line_at(position)}: unexpected end of file: the JSON "
                    "array is not closed"
                )
            char = self.buffer[position : position + 1]
            if char == b"]" and (not expect_value or not seen):
                return
            if char == b"," and not expect_value:
                expect_value = True
                position += 1
                continue
            if not expect_value:
                raise BadInput(
                    f"{self.path}:{self.line_at(position)}: expected ',' or ']' between log entries"
                )
            if indent is None and char == b"{":
                indent = self._indent_of(position)
            self._resume = position
            if char != b"{" or indent is None:
                yield from self._streamed(position, lines=False)
                return
            yield from self._indented(position, indent)
            if self._resume < 0:  # an entry not where the layout says it ends
                yield from self._streamed(-self._resume - 1, lines=False)
                return
            position = self._resume
            expect_value, seen = False, True

    def _indent_of(self, position: int) -> Optional[bytes]:
        """The indentation before the `{` at `position`, when a newline precedes it."""
        newline = self.buffer.rfind(b"\n", 0, position)
        if newline < 0:
            return None
        indent = self.buffer[newline + 1 : position]
        return indent if _INDENT.fullmatch(indent) else None

    def _indented(self, position: int, indent: bytes) -> Iterator[Any]:
        """The entries laid out with `indent` from the `{` at `position` on, while they follow
        one another as `},\n<indent>{`. Then `_resume` is where `_array` goes on: after the
        last entry, or -1 - the start of one that does not end where the layout says."""
        marker = b"\n" + indent + b"}"
        follows = b",\n" + indent + b"{"
        opened = marker[:-1]
        if self.buffer[position - len(opened) : position] != opened:
            self._resume = -1 - position  # not laid out like the first entry
            return
        while True:  # each entry after the first opens where `follows` says
            searched = position
            while True:
                end = self.buffer.find(marker, searched)
                if end >= 0:
                    break
                if len(self.buffer) - position > limits.MAX_ENTRY_BYTES:
                    raise self._too_big(position)
                searched = max(position, len(self.buffer) - len(marker))
                dropped = self._fill(position)
                if dropped < 0:
                    self._resume = -1 - position
                    return
                position, searched = position - dropped, searched - dropped
            end += len(marker)
            try:
                found = self._decode(position, end)
            except orjson.JSONDecodeError:
                self._resume = -1 - position  # the streaming decoder finds out what it is
                return
            yield found
            # The separator may lie past the bytes read so far: read them, or a read ending
            # inside it would end the split here (the streaming decoder would read the rest).
            while len(self.buffer) < end + len(follows):
                dropped = self._fill(end)
                if dropped < 0:
                    break
                end -= dropped
            if not self.buffer.startswith(follows, end):
                self._resume = end
                return
            position = end + len(follows) - 1

    def _streamed(self, position: int, *, lines: bool) -> Iterator[Any]:
        """The rest of the file from `position` (an entry's start), decoded from its text:
        JSONL lines, or the rest of an array with a value expected first."""
        line = self.line_at(position)
        rest = _Prefixed(self.buffer[position:], self.stream)
        text = io.TextIOWrapper(rest, encoding="utf-8", errors="strict")  # type: ignore[arg-type]
        decoded = (
            _iter_lines(text, self.path, "", line) if lines else _iter_array(text, self.path, line)
        )
        for entry in decoded:
            instant = timestamp_ns(entry["timestamp"])
            yield (entry, instant, None, 0) if self.number is None else EntryFacts(entry, instant)  # type: ignore[arg-type]


def _newlines(path: Path, size: int) -> int:
    """How many newlines the first `size` bytes of the file at `path` (decompressed) hold."""
    count = 0
    with limits.open_log(path) as stream:
        while size > 0:
            chunk = stream.read(min(size, CHUNK_BYTES))
            if not chunk:
                break
            count += chunk.count(b"\n")
            size -= len(chunk)
    return count


class _Prefixed(io.RawIOBase):
    """Bytes already read, then the rest of a stream: the streaming decoder's input."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, target: Any) -> int:
        if self._head:
            size = min(len(target), len(self._head))
            target[:size] = self._head[:size]
            self._head = self._head[size:]
            return size
        chunk = self._stream.read(len(target))
        target[: len(chunk)] = chunk
        return len(chunk)


# ---- the streaming text decoders: layouts the splitter does not know, and every error ----


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
    path: Union[Path, str], window: Optional[Window] = None
) -> tuple[EntryStore, SourceReport]:
    """Read a bundle into a store; entries outside `window` are skipped and counted.

    Entries without an insertId get a stable synthetic one (see `mlwiki.logs.entry`).
    """
    root = Path(path)
    report = SourceReport(
        source="bundle", sources=[str(file) for file in bundle_files(root)], window=window
    )
    store = EntryStore()
    low = window.start_ns if window else None
    high = window.end_ns if window else None
    for facts in iter_facts(root, store):
        if low is not None and not (low <= facts.instant <= high):  # type: ignore[operator]
            report.outside_window += 1
        elif store.add_facts(facts):
            report.entries += 1
        else:
            report.duplicates += 1
    return store, report
