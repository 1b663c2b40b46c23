"""The flowed view of a text: a message some tool wrapped, read as the line it was.

Real tools wrap long messages (a terminal-width logger, `fold -s`, `textwrap`, a rich console,
a kubectl column): a line break, or a line break and some indentation, stands where the message
had a space, and GKE's agent then writes each piece as an entry of its own. A signature is a
family of one message's wordings, written on the line as the program formatted it, so
`Ran out of memory in memory space hbm` must match `… in memory space` + line break + `hbm`.

The rule: every run of whitespace that holds a line break reads as one space. It is a second
view, tried only for the pages the text as written did not match (`SignatureSet` does that for
an entry's own text, `continuation` for a record's joined lines), so a signature that relies on
the lines — `(?m)^` and `$`, an explicit `\\n`, a kubectl table's row — is matched first on the
lines as they are and keeps its meaning. A match found only in the flowed view is mapped back to
the text as written (`Flowed.span`): its quote is the written line(s) holding it, an exact
substring of the entry's text as every quote is.

What it does not undo: a break inside a word (a long path or URL cut at the width, a hyphenated
word split after its hyphen), since nothing tells where the original had no space; and a run of
spaces at the break, which the wrapper dropped (the view has one).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Optional

# A run of whitespace holding at least one line break (`\s` covers `\r`, tabs and indentation).
BREAK = re.compile(r"[^\S\n]*\n\s*")


@dataclass(frozen=True)
class Flowed:
    """A text's flowed view and where each of its replaced runs was in the text as written."""

    text: str
    _at: tuple[int, ...]  # in the view: the position of each space that stands for a run
    _shift: tuple[int, ...]  # characters the runs up to and including that one removed


def flowed_text(text: str) -> str:
    """The flowed view's text alone (what a signature set is matched on first: the mapping is
    built by `flowed` only when the view matched something). The same text as `flowed`'s,
    made with string methods, several times faster than the regex on short records."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    last = len(lines) - 1
    kept = [lines[0].rstrip()]
    for number in range(1, last):
        middle = lines[number].strip()
        if middle:  # a line of whitespace alone is part of the run around it
            kept.append(middle)
    kept.append(lines[last].lstrip())
    return " ".join(kept)


def flowed(text: str) -> Optional[Flowed]:
    """The flowed view of `text`; None when `text` has no line break (the view is the text)."""
    if "\n" not in text:
        return None
    pieces: list[str] = []
    at: list[int] = []
    shift: list[int] = []
    written = removed = 0
    for run in BREAK.finditer(text):
        start, end = run.span()
        pieces.append(text[written:start])
        at.append(start - removed)
        pieces.append(" ")
        removed += end - start - 1
        shift.append(removed)
        written = end
    pieces.append(text[written:])
    return Flowed("".join(pieces), tuple(at), tuple(shift))


def span(view: Flowed, start: int, end: int) -> tuple[int, int]:
    """The span of the text as written that the view's `start:end` stands for (a space that
    stands for a run maps to the whole run)."""
    return _written(view, start, first=True), _written(view, end, first=False)


def _written(view: Flowed, position: int, *, first: bool) -> int:
    # Runs whose space lies before `position` shift it by what they removed; a span's start on a
    # run's space maps to the run's first character, an end just after it to the run's end.
    before = (
        bisect.bisect_left(view._at, position)
        if first
        else bisect.bisect_right(view._at, position - 1)
    )
    return position + (view._shift[before - 1] if before else 0)
