"""The scan's quotes and captures when a set's answer is reused: every entry gets its own line.

The scan works out once per kind of set answer which signatures to re-run, and does not re-run
a signature without named groups on a one-line text (its quote is the whole line); these tests
pin what that must not change: a shared answer quotes each entry's own text, a multi-line or a
very long text is quoted by the matching line (cut around the match), named groups are read.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mlwiki.diagnose.signatures import MAX_QUOTE, RawMatch, SignatureSet
from mlwiki.wiki import load_wiki

BANNER = "*** SIGABRT received by PID {pid} (TID {pid}) on cpu 3 from PID {pid}; stack trace: ***"
CASCADE = (
    "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed "
    "service detected fatal errors. absl::Status: UNAVAILABLE: The following tasks are unhealthy "
    "(stopped sending heartbeats):\n/job:jax_worker/replica:0/task:{task}"
)


@lru_cache(maxsize=1)
def signatures() -> SignatureSet:
    return SignatureSet(load_wiki().symptoms.values())


def entry(text: str, number: int = 0) -> dict[str, Any]:
    return {
        "insertId": f"id-{number}",
        "timestamp": f"2026-03-12T04:39:{number % 60:02d}.000000Z",
        "logName": "projects/p/logs/stderr",
        "resource": {
            "type": "k8s_container",
            "labels": {"namespace_name": "default", "pod_name": "run-0", "container_name": "c"},
        },
        "textPayload": text,
    }


def found(text: str, number: int = 0) -> dict[str, RawMatch]:
    return {raw.signature.symptom: raw for raw in signatures().scan(entry(text, number))}


def test_a_shared_answer_quotes_each_entry_its_own_line() -> None:
    for number, pid in enumerate((11, 2222, 333333)):
        text = BANNER.format(pid=pid)
        raw = found(text, number)["process-abort"]
        assert (raw.quote, raw.captures, raw.incomplete) == (text, {}, False)


def test_a_multi_line_text_is_quoted_by_its_matching_line() -> None:
    line = BANNER.format(pid=42)
    for number in range(2):
        raw = found(f"before {number}\n{line}\nafter {number}", number)["process-abort"]
        assert raw.quote == line


def test_a_very_long_line_is_cut_around_the_match() -> None:
    text = "x" * (2 * MAX_QUOTE) + " " + BANNER.format(pid=7) + " " + "y" * (2 * MAX_QUOTE)
    quote = found(text)["process-abort"].quote
    assert "SIGABRT received by PID 7" in quote and quote in text
    assert len(quote) <= MAX_QUOTE


def test_named_groups_are_read_for_every_entry() -> None:
    for number, task in enumerate((5, 17)):
        raw = found(CASCADE.format(task=task), number)["coordination-heartbeat-cascade"]
        assert raw.captures == {"task": str(task)}
        assert not raw.incomplete
