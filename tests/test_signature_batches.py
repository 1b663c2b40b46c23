"""A batch of entries' texts is matched at once (`SignatureSet.clear_of`): an entry is called
clear only when no signature of the text set could match its texts alone, whatever the
signature's anchors and wherever in the batch the text lies."""

from __future__ import annotations

import json
from pathlib import Path

from mlwiki.diagnose.signatures import SignatureSet, _only_written, _plain_batch
from mlwiki.logs.entry import EntryFacts, facts_of
from mlwiki.wiki import load_wiki
from tests.conftest import WIKI_ROOT

WIKI = load_wiki(WIKI_ROOT)
SIGNATURES = SignatureSet(WIKI.symptoms.values())
HEALTHY = "completed step: 385, seconds: 9.220, TFLOP/s/device: 190.220, loss: 5.750"
DEV = Path(__file__).parent / "data" / "heldout"


def line(number: int, text: str) -> EntryFacts:
    facts = facts_of(
        {
            "insertId": f"id-{number}",
            "timestamp": "2024-05-01T10:00:00Z",
            "logName": "projects/p/logs/stdout",
            "resource": {"type": "k8s_container", "labels": {"pod_name": "run-0-0-abcd"}},
            "textPayload": text,
        }
    )
    assert facts is not None
    return facts


def one_line_texts() -> list[str]:
    """The wiki's examples and the dev sets' lines of one line each."""
    texts = [e.line for page in WIKI.symptoms.values() for e in page.examples]
    for name in ("dev1_excerpts.jsonl", "dev3_excerpts.jsonl", "dev5_lookalikes.jsonl"):
        for row in (DEV / name).read_text().splitlines():
            texts.extend(json.loads(row)["lines"])
    return [text for text in texts if text and "\n" not in text]


def test_healthy_lines_are_clear_and_need_no_match_of_their_own() -> None:
    batch = [line(n, f"{HEALTHY} {n}") for n in range(300)]
    assert SIGNATURES.clear_of(batch) == [True] * 300
    assert all(SIGNATURES.scan_all(facts) == [] for facts in batch)


def anchored(index: int) -> bool:
    pattern = SIGNATURES._texts.members[index].pattern
    return "^" in pattern.replace("[^", "[") or "$" in pattern


def test_no_line_that_matches_alone_is_ever_called_clear() -> None:
    """Every line an anchored signature (`^`, `$`) matches alone, and one in eight of the
    others, first, in the middle and last in a batch."""
    alone = [(t, SIGNATURES._match_texts(t.encode())) for t in one_line_texts()]
    by_anchors = [t for t, found in alone if any(map(anchored, found))]
    others = [t for t, found in alone if found and not any(map(anchored, found))]
    assert len(by_anchors) > 50 and len(others) > 300
    found_by_anchors = 0
    for text in by_anchors + others[::8]:
        for where in (0, 7, 15):
            batch = [line(n, HEALTHY) for n in range(16)]
            batch[where] = line(where, text)
            assert not SIGNATURES.clear_of(batch)[where], text
        joined = "\n".join([HEALTHY] * 7 + [text] + [HEALTHY] * 8).encode()
        found_by_anchors += not SIGNATURES._match_texts(joined)
    assert found_by_anchors  # lines only the multi-line set of anchored signatures finds


def test_a_text_with_a_line_break_is_scanned_on_its_own() -> None:
    batch = [line(0, HEALTHY), line(1, f"{HEALTHY}\nmore"), line(2, HEALTHY)]
    assert SIGNATURES.clear_of(batch) == [True, False, True]


def test_a_batch_vouched_for_at_once_is_one_of_texts_each_matched_as_written() -> None:
    """The batch-wide test (`_plain_batch`) calls a batch plain only when every entry's own
    test (`_only_written`) would: one text that has another view, wherever it is in the
    batch, is enough for the batch to be tested entry by entry."""
    others = [
        f"{HEALTHY}\nmore",  # a line break
        f"{HEALTHY} \u201cquoted\u201d",  # not ASCII
        f"\x1b[31m{HEALTHY}\x1b[0m",  # a terminal escape
        f"{HEALTHY}\r",  # a carriage return
        f"{HEALTHY}\tcolumn",  # a tab
        f'{HEALTHY} err="boom"',  # an escaped string
        f"{HEALTHY} \\n",  # a backslash
        f"E0501 10:00:00.123456    1 main.go:42] {HEALTHY}",  # a glog header
        f"2024-05-01T10:00:00.123456789Z stderr F {HEALTHY}",  # a CRI prefix
        f"[rank3]: {HEALTHY}",  # a launcher's tag
    ]
    plain = [line(n, f"{HEALTHY} {n}") for n in range(16)]
    for text in [f"{HEALTHY} 16", *others]:
        for where in (0, 8, 15):
            batch = list(plain)
            batch[where] = line(where, text)
            texts = [t for facts in batch for _, t in facts.texts]
            each = all(_only_written(t) for t in texts)
            assert _plain_batch(batch, texts, "\n".join(texts)) == each, (text, where)
            assert each == (text == f"{HEALTHY} 16")
