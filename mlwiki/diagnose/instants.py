"""Sorted collections of instants for the diagnosis' "did anything happen between a and b" questions.

The pass adds values in whatever order entries arrive; the questions come afterwards, many of
them (one per seed, per hit, per disruption). Answering each by scanning every value would make
the diagnosis grow with hits × values, so values are sorted once, on the first question after
the last addition, and every question is a binary search.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Optional


class Instants:
    """Numbers (seconds, or integer time slots) kept sorted lazily; duplicates allowed."""

    __slots__ = ("_sorted", "_values")

    def __init__(self, values: Iterable[float] = ()) -> None:
        self._values: list[float] = list(values)
        self._sorted = False

    def add(self, value: float) -> None:
        if self._sorted and self._values and value < self._values[-1]:
            self._sorted = False
        self._values.append(value)

    def _ordered(self) -> list[float]:
        if not self._sorted:
            self._values.sort()
            self._sorted = True
        return self._values

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[float]:
        return iter(self._ordered())

    def __bool__(self) -> bool:
        return bool(self._values)

    def first_after(self, low: float, *, inclusive: bool = False) -> Optional[float]:
        """The smallest value > `low` (≥ with `inclusive`), or None."""
        values = self._ordered()
        index = (bisect.bisect_left if inclusive else bisect.bisect_right)(values, low)
        return values[index] if index < len(values) else None

    def any_between(self, low: float, high: float, *, inclusive: bool = False) -> bool:
        """Whether a value lies strictly between `low` and `high` (or on them, `inclusive`)."""
        found = self.first_after(low, inclusive=inclusive)
        return found is not None and (found <= high if inclusive else found < high)

    def between(self, low: float, high: float) -> list[float]:
        """The values in [low, high], in order."""
        values = self._ordered()
        return values[bisect.bisect_left(values, low) : bisect.bisect_right(values, high)]


class Slots:
    """A set of integer time slots (which `bucket`s saw something), asked about ranges."""

    __slots__ = ("_ordered", "_seen")

    def __init__(self, slots: Iterable[int] = ()) -> None:
        self._seen: set[int] = set(slots)
        self._ordered: Optional[Instants] = None

    def add(self, slot: int) -> None:
        if slot not in self._seen:
            self._seen.add(slot)
            self._ordered = None

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, slot: object) -> bool:
        return slot in self._seen

    def any_in(self, first: int, last: int) -> bool:
        """Whether a slot in first..last (both included) was seen."""
        if first > last:
            return False
        if self._ordered is None:
            self._ordered = Instants(self._seen)
        return self._ordered.any_between(first, last, inclusive=True)
