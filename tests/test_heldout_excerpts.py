"""Held-out real excerpts (several lines each) the wiki's signatures are measured on, through `mlwiki match`.

Files in `tests/data/heldout/`, each row an excerpt copied verbatim from a public issue, PR, docs page or
repository file (`source`), the field Cloud Logging would hold it in, the page it is evidence of (`expect`,
"benign" for look-alikes) and that page's role. Its README says how they were collected.

- `dev1_excerpts.jsonl`: its misses were described to the engineers who widened the signatures, so it
  measures that work but is no longer independent (the second dev set, round B, is
  `tests/data/real_excerpts_12_devb.jsonl`, tested whole by `tests/test_real_excerpts.py`).
- `dev2_excerpts.jsonl`: the sealed set until 2026-12-01 (measured then: 63 of 113), then given to the
  engineers who widened the signatures; a dev set since.
- `dev3_excerpts.jsonl`, `dev4_excerpts.jsonl`, `dev5_excerpts.jsonl`, `dev6_excerpts.jsonl` and
  `dev7_excerpts.jsonl`: collected 2026-12-01 (evening, night) and 2026-12-02 (three times) and given to the signature writers at
  once: dev sets; `dev5_lookalikes.jsonl`, half (by source) of a 2026-12-02 collection of real
  look-alikes, likewise.
- `sealed_excerpts.jsonl`, `sealed2_excerpts.jsonl`, `sealed3_excerpts.jsonl`, `sealed4_excerpts.jsonl`,
  `sealed4_lookalikes.jsonl` (the look-alike collection's other half), `sealed5_excerpts.jsonl`,
  `sealed6_excerpts.jsonl` and `sealed7_excerpts.jsonl`: collected independently of the wiki
  (2026-12-01, afternoon, evening and night; 2026-12-02, four times)
  and never shown to anyone who writes signatures. They are the honest number. Do not tune on it: when it misses, find the family of real
  wordings elsewhere (issue threads, docs) and add that; a signature written from a sealed line is a defect.

Every excerpt's lines become consecutive entries of its own pod's container stream (or one Kubernetes event
/ audit entry per line), shaped as `tests/test_real_excerpts.py` shapes them; all excerpts one bundle. A look-alike (benign, cascade, consequence) must never match a
root page (beyond the few a file held when last measured: its ceiling), and recall on
root/symptom excerpts must not fall below the floor measured when the file was added.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_heldout_lines import ROOTS, WIKI
from tests.test_real_excerpts import match_excerpts

DATA = Path(__file__).parent / "data" / "heldout"
LOOK_ALIKE_ROLES = {"benign", "cascade", "consequence"}
UNPAGED = "new:"  # `expect` of a failure no page covers: "new:" and the collector's short name
# Root/symptom excerpts found (dev files after their tuning; a sealed file when it was last measured:
# at the end of 2026-12-02's second session, after that session's re-check against the final wiki,
# sealed 74 of 102, sealed2 22 of 34, sealed3 23 of 32, sealed4 49 of 66, sealed4's look-alike file
# 8 of 8 and sealed5 32 of 71 (17 of its 71 are failures no page covers, `new:`), where the wiki of
# the session's start found 73, 22, 23, 49, 8 and 27; sealed6 and dev7, collected at the start of the
# third session, 40 of 79 and 110 of 138 then; at its end, after its re-check dropped one row each
# of sealed2, sealed3 and sealed6: sealed 74 of 102, sealed2 22 of 33, sealed3 22 of 31, sealed4 51
# of 66 (49 at its start), sealed4's look-alikes 8 of 8, sealed5 32 of 71, sealed6 40 of 79, the
# same as at its start but for sealed4; at the end of the fifth, after its re-check dropped 8 rows as too close to lines the session added — sealed 76 of 102, sealed2 21 of 31, sealed3 22 of 30, sealed5 31 of 69, sealed6 41 of 78, where the wiki of its start found 74, 21, 22, 31 and 40 on the same rows; sealed4 51, its look-alikes 8 and the new sealed7 17 of 33 at both); raise a floor when recall improves, never
# lower it (dev1's went from 149 to 147 when two of its rows were relabelled benign, "Liveness probe
# errored"; the sealed files' fell when rows too close to the dev sets or the wiki were dropped: see
# tests/data/heldout/README.md).
RECALL_FLOOR = {
    "dev1_excerpts.jsonl": 148,
    "dev2_excerpts.jsonl": 111,
    "dev3_excerpts.jsonl": 149,
    "dev4_excerpts.jsonl": 99,
    "dev5_excerpts.jsonl": 119,
    "dev5_lookalikes.jsonl": 9,
    "dev6_excerpts.jsonl": 69,
    "dev7_excerpts.jsonl": 132,
    "sealed_excerpts.jsonl": 76,
    "sealed2_excerpts.jsonl": 21,
    "sealed3_excerpts.jsonl": 22,
    "sealed4_excerpts.jsonl": 51,
    "sealed4_lookalikes.jsonl": 8,
    "sealed5_excerpts.jsonl": 31,
    "sealed6_excerpts.jsonl": 41,
    "sealed7_excerpts.jsonl": 17,
}
# Look-alikes that match a root page, measured, never tuned away: sealed2 holds one that did from the
# start; dev3's two are labels the signature writers dispute (see the closing note of 2026-12-01; a
# third, "Liveness probe errored", no longer matches: the kubelet discards an errored probe).
# sealed3's one (a maintenance notice "matching" spot-preemption) was the scorer's: every audit
# row was stamped methodName compute.instances.preempted until 2026-12-02 (tests/test_heldout_lines.py).
# The look-alike files (2026-12-02): dev5's two are labels w4 disputes (a raised exception and a
# failed Jetty bind, both real failures); sealed4's two were measured, never looked at. Since the
# second session of 2026-12-02, one look-alike of sealed4_excerpts matches a root page in the
# unwrapped view of a prefixed line (mlwiki.diagnose.unwrapped), and one of sealed5's matches one;
# both measured, never tuned. sealed6 (2026-12-02, third session) held one at its start, measured,
# never looked at; so did sealed7 (fifth session), at its start and its end.
FALSE_ALARM_CEILING = {
    "dev3_excerpts.jsonl": 2,
    "dev5_lookalikes.jsonl": 2,
    "sealed2_excerpts.jsonl": 1,
    "sealed4_excerpts.jsonl": 1,
    "sealed4_lookalikes.jsonl": 2,
    "sealed5_excerpts.jsonl": 1,
    "sealed6_excerpts.jsonl": 1,
    "sealed7_excerpts.jsonl": 1,
}


def load(name: str) -> list[dict[str, Any]]:
    path = DATA / name
    return [json.loads(text) for text in path.read_text().splitlines() if text.strip()]


@pytest.fixture(scope="module", params=sorted(RECALL_FLOOR))
def measured(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """(file name, rows, excerpt number → symptoms matched on any of its entries)."""
    rows = load(request.param)
    found = match_excerpts(rows, tmp_path_factory.mktemp("excerpts"))
    return request.param, rows, found


def describe(row: dict[str, Any], hits: set[str]) -> str:
    return (
        f"{row['expect']}: {row['lines'][0][:90]!r} → {sorted(hits) or 'nothing'} ({row['source']})"
    )


def test_rows_are_well_formed() -> None:
    for name in RECALL_FLOOR:
        rows = load(name)
        assert len(rows) >= 40, name  # sealed2 kept 48 after the 2026-12-02 re-check
        for row in rows:
            assert set(row) == {"lines", "field", "expect", "role_of_expect", "source", "note"}, row
            assert row["lines"] and row["source"].startswith(("https://", "http://")), row
            if row["expect"].startswith(UNPAGED):
                # a failure whose mechanism no page covers yet: always a miss, so that recall
                # counts what the wiki lacks instead of leaving it out
                assert row["role_of_expect"] in ("root", "symptom"), row
            elif row["expect"] != "benign":
                assert row["expect"] in WIKI.symptoms, row


def test_look_alikes_match_no_root_page(measured) -> None:
    name, rows, found = measured
    wrong = [
        describe(row, found[n])
        for n, row in enumerate(rows)
        if row["role_of_expect"] in LOOK_ALIKE_ROLES and found.get(n, set()) & ROOTS
    ]
    assert len(wrong) <= FALSE_ALARM_CEILING.get(name, 0), f"{name}:\n" + "\n".join(wrong)


def test_recall_holds_its_floor(measured) -> None:
    name, rows, found = measured
    evidence = [
        (n, row) for n, row in enumerate(rows) if row["role_of_expect"] in ("root", "symptom")
    ]
    missed = [
        describe(row, found.get(n, set()))
        for n, row in evidence
        if row["expect"] not in found.get(n, set())
    ]
    assert len(evidence) - len(missed) >= RECALL_FLOOR[name], (
        f"{name}: recall fell; misses:\n" + "\n".join(missed)
    )
