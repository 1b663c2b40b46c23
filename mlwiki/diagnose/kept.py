"""The matched entries a diagnosis pass keeps (`Scan.entries`), a text line's kept as its bytes.

A noisy run matches tens of thousands of container lines (`mlwiki.logs.entry.LineFacts`), read
without decoding them into dicts; most are never read again but for their place (the resource
`learn_place` counts, the same for every line of a stream). Keeping each such line as its bytes
and stream, and decoding it only when a consumer asks for that entry (then keeping the dict, so
what a consumer changes in it stays), saves the decoding and most of the memory of the dicts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Union, overload

import orjson

from mlwiki.logs.entry import EntryFacts, LineFacts, Stream


class _Line:
    """A matched text line not decoded yet: its bytes and its stream."""

    __slots__ = ("raw", "stream")

    def __init__(self, raw: bytes, stream: Stream) -> None:
        self.raw, self.stream = raw, stream


class KeptEntries:
    """The pass's matched entries, in the order matched, read as a list of LogEntry dicts."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[Union[dict[str, Any], _Line]] = []

    def append(self, entry: dict[str, Any]) -> None:
        self._items.append(entry)

    def keep(self, facts: EntryFacts) -> None:
        """Keep the entry of `facts`: a text line not decoded yet stays as its bytes."""
        if type(facts) is LineFacts and not facts.decoded():
            self._items.append(_Line(facts.raw, facts.stream))
        else:
            self._items.append(facts.entry)

    def __len__(self) -> int:
        return len(self._items)

    def _entry(self, at: int) -> dict[str, Any]:
        item = self._items[at]
        if type(item) is _Line:
            item = self._items[at] = orjson.loads(item.raw)
        return item  # type: ignore[return-value]

    @overload
    def __getitem__(self, at: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, at: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, at: Union[int, slice]) -> Any:
        if isinstance(at, slice):
            return [self._entry(i) for i in range(len(self._items))[at]]
        return self._entry(at)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for at in range(len(self._items)):
            yield self._entry(at)

    def places(self) -> Iterator[dict[str, Any]]:
        """What `learn_place` reads of each entry, in order, without decoding a text line kept
        as bytes: its `resource` is its stream's (decoded once for the stream), and only a
        `gce_instance` line, whose host `learn_place` also reads, is decoded."""
        for at, item in enumerate(self._items):
            if type(item) is _Line and item.stream.resource_type != "gce_instance":
                yield {"resource": item.stream.raw_resource}
            else:
                yield self._entry(at)
