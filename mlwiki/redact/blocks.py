"""Private-key blocks split over log entries: a program that prints a PEM or PGP key line by
line leaves the BEGIN line in one entry, base64 lines in the next ones and the END line later.

Entries are grouped by stream (log, resource and host: one program's output) and put in time
order; then each stream is read both ways. Forwards, a text that opens a block (a BEGIN line
with no END after it) makes the following armor-only texts (base64, armor headers, blank) part
of the block, until a text with the END line or any other text. Backwards the same from an END
line with no BEGIN before it, so a bundle written newest-first is read alike. The texts found are
returned whole; the caller redacts them wherever they appear (see `Redactor.prepared`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import re2

from mlwiki.timewindow import timestamp_ns

_LABEL = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?"
_BEGIN = re2.compile(rf"-----BEGIN {_LABEL}-----")
_END = re2.compile(rf"-----END {_LABEL}-----")
_ARMOR_TEXT = re2.compile(
    r"^(?:(?:[A-Za-z0-9+/=]*|(?:Version|Comment|Hash|Charset|Proc-Type|DEK-Info|MessageID): [^\r\n]*)"
    r"(?:\r?\n|\\n|$))+$"
)
MESSAGE_FIELDS = ("textPayload", "quote")
PAYLOAD_FIELDS = ("message", "MESSAGE", "msg", "log")


def _opens(text: str) -> bool:
    begins = [m.end() for m in _BEGIN.finditer(text)]
    return bool(begins) and not _END.search(text, begins[-1])


def _closes(text: str) -> bool:
    ends = [m.start() for m in _END.finditer(text)]
    return bool(ends) and not _BEGIN.search(text[: ends[0]])


def _armor(text: str) -> bool:
    return bool(text.strip()) and bool(_ARMOR_TEXT.match(text.strip()))


def inside_blocks(texts: list[str]) -> set[int]:
    """Indices of the texts (one stream, in time order) that lie inside a split block."""
    found: set[int] = set()
    # Forwards a block opens at a BEGIN line; backwards at an END line.
    for order, opens in (
        (range(len(texts)), _opens),
        (range(len(texts) - 1, -1, -1), _closes),
    ):
        open_ = False
        for index in order:
            text = texts[index]
            if open_ and _armor(text):
                found.add(index)
                continue
            open_ = opens(text)
    return found


def message_texts(entry: dict[str, Any]) -> list[str]:
    texts = [entry[f] for f in MESSAGE_FIELDS if isinstance(entry.get(f), str)]
    payload = entry.get("jsonPayload")
    if isinstance(payload, dict):
        texts.extend(payload[f] for f in PAYLOAD_FIELDS if isinstance(payload.get(f), str))
    return texts


def _stream(entry: dict[str, Any]) -> str:
    resource = entry.get("resource") if isinstance(entry.get("resource"), dict) else {}
    labels = resource.get("labels") if isinstance(resource.get("labels"), dict) else {}
    parts = [entry.get("logName"), resource.get("type"), entry.get("host"), entry.get("pod")]
    parts.extend(labels.get(k) for k in ("pod_name", "container_name", "instance_id", "node_name"))
    return "\x00".join(str(p) for p in parts)


def _entry_lists(value: Any) -> Iterator[list[dict[str, Any]]]:
    """Every list under `value` holding log-entry-like dicts (a timestamp and a message)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            entries = [e for e in item if isinstance(e, dict) and message_texts(e)]
            if len(entries) > 1:
                yield entries
            stack.extend(e for e in item if isinstance(e, (dict, list)))


def split_block_texts(values: Iterable[Any]) -> set[str]:
    """The texts of every split block among the entries found anywhere in `values`."""
    found: set[str] = set()
    for value in values:
        for entries in _entry_lists(value):
            streams: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
            for position, entry in enumerate(entries):
                instant = timestamp_ns(entry.get("timestamp")) or 0
                for text in message_texts(entry):
                    streams[_stream(entry)].append((instant, position, text))
            for texts in streams.values():
                ordered = [text for _, _, text in sorted(texts, key=lambda t: (t[0], t[1]))]
                found.update(ordered[i] for i in inside_blocks(ordered))
    return found
