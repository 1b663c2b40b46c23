"""The diagnosis is linear in entries and matches: doubling the hosts of a noisy incident (so
its matches too), or the matches per host, at most about doubles the work.

Work is counted, not timed: every line of `mlwiki` code executed during `analyse` (the pass, the
disruptions, triage, verification and findings) is one operation (`sys.settrace` line events,
one per loop iteration of a comprehension too), so the bound holds on a loaded machine and a
rescan of every seed for every seed shows up as the square it is.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any, Optional

import pytest

import mlwiki
from mlwiki.diagnose.collect import from_bundle
from mlwiki.diagnose.pipeline import analyse
from mlwiki.wiki import load_wiki
from tests.conftest import REPO_ROOT
from tests.scenarios import loud_hbm_oom

PACKAGE = str(Path(mlwiki.__file__).resolve().parent)
WIKI = load_wiki(REPO_ROOT / "_wiki")
LINEAR = 2.3  # a doubling may cost a little over 2× (sorting, dict growth); a square costs 4×


class LineCounter:
    """Counts the lines of mlwiki code executed while it is active."""

    def __init__(self) -> None:
        self.lines = 0
        self._ours: dict[str, bool] = {}

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines += 1
        return self._local

    def _global(self, frame: FrameType, event: str, arg: Any) -> Optional[Any]:
        name = frame.f_code.co_filename
        ours = self._ours.get(name)
        if ours is None:
            ours = self._ours[name] = name.startswith(PACKAGE)
        return self._local if ours else None

    def __enter__(self) -> LineCounter:
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)


def work(folder: Path, slices: int, threads: int) -> tuple[int, dict[str, Any]]:
    run, culprit = loud_hbm_oom("loud", slices, 4, threads=threads, rounds=5)
    bundle = run.write(folder / f"{slices}-{threads}", {}) / "bundle.json"
    with LineCounter() as counter:
        result = analyse(WIKI, "loud", from_bundle(bundle))
    findings = result.findings
    assert findings["root_cause"]["symptom"] == "hbm-oom-runtime", findings["summary"]
    assert [c["host"] for c in findings["culprit_hosts"]] == [culprit.node]
    return counter.lines, findings


@pytest.mark.parametrize(
    ("small", "large"),
    [((8, 10), (16, 10)), ((8, 10), (8, 20))],
    ids=["hosts-doubled", "matches-per-host-doubled"],
)
def test_doubling_at_most_doubles_the_work(
    tmp_path: Path, small: tuple[int, int], large: tuple[int, int]
) -> None:
    small_work, small_findings = work(tmp_path, *small)
    large_work, large_findings = work(tmp_path, *large)
    assert (
        large_findings["data"]["matched_entries"] > 1.8 * small_findings["data"]["matched_entries"]
    )
    assert large_work <= LINEAR * small_work, (
        f"{small} → {large}: {small_work} → {large_work} lines ({large_work / small_work:.2f}×)"
    )
