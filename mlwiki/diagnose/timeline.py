"""The run's hits in time order, indexed once for the questions triage asks of every disruption.

Triage looks at the hits of one disruption's window, and at when each host and pod began to
cascade. Filtering every hit for every disruption would make the diagnosis grow with
disruptions × hits; here a window is a binary search, and the first cascade line of each pod
(at any time) and of each host (in a window) are looked up, not searched for.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Optional

from mlwiki.diagnose.match import CASCADE, Hit, hit_order

NEVER = float("inf")


class Timeline:
    """Hits sorted by `hit_order` (time, insertId, symptom)."""

    def __init__(self, hits: Iterable[Hit]) -> None:
        self.hits = sorted(hits, key=hit_order)
        self._times = [hit.time for hit in self.hits]
        self._first_cascade_of_pod: dict[str, float] = {}
        self._cascades_of_host: dict[str, list[float]] = {}  # in time order
        for hit in self.hits:
            if hit.role != CASCADE:
                continue
            if hit.pod and hit.pod not in self._first_cascade_of_pod:
                self._first_cascade_of_pod[hit.pod] = hit.time
            if hit.host:
                self._cascades_of_host.setdefault(hit.host, []).append(hit.time)

    def __len__(self) -> int:
        return len(self.hits)

    def between(self, start: float, end: float) -> list[Hit]:
        """The hits with start ≤ time ≤ end, in order."""
        low = bisect.bisect_left(self._times, start)
        return self.hits[low : bisect.bisect_right(self._times, end)]

    def cascading_since(self, hit: Hit, start: float, end: float) -> float:
        """When the hit's writer had started to die of someone else's death: the first cascade
        line of its host between `start` and `end`, or of its pod at any time (a pod's life is
        one attempt, so a cascade it printed before the window opened still counts)."""
        by_pod = self._first_cascade_of_pod.get(hit.pod or "", NEVER)
        times: Optional[list[float]] = self._cascades_of_host.get(hit.host or "")
        by_host = NEVER
        if times:
            index = bisect.bisect_left(times, start)
            if index < len(times) and times[index] <= end:
                by_host = times[index]
        return min(by_pod, by_host)
