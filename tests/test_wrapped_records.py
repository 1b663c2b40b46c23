"""A real failure is recognised however its text reached Cloud Logging (diagnose/flowed.py,
diagnose/continuation.py), through `mlwiki match` and the diagnosis.

- A tool wrapped the message (a line break, or a break and indentation, where it had a space) and
  GKE wrote each piece as an entry of its own: the pieces are one record, matched in its flowed
  view, cited on the piece completing the match.
- Every line of the stream carries a timestamp (the container runtime's CRI prefix, `kubectl logs
  --timestamps`, a TPU VM launcher's): the stamp is no record boundary by itself, what follows it
  decides.
- `mlwiki match` reports the records the diagnosis matches.
The measurement over the dev sets' real excerpts is `benchmarks/bench_wrapped.py`; the last test
runs it.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, load_benchmark, match_all, run_cli
from tests.test_records import GCS_BODY
from tests.test_workload_failures import _diagnose, _event, _line

POD = "trainer-0-0-x7k2p"
WRITE = 0.00005  # seconds between two lines of one write, as the logging agent stamps them
# https://github.com/google/trax/issues/431 (no piece of it wrapped at 80 names the page alone)
FRAGMENTED = (
    "UnfilteredStackTrace: RuntimeError: RESOURCE_EXHAUSTED: Attempting to allocate 31.06M. "
    "That was not possible. There are 58.64M free. Due to fragmentation, the largest contiguous "
    "region of free memory is 30.56M.; (0x0x0_HBM0)"
)
# https://github.com/kingoflolz/mesh-transformer-jax/issues/237 (its first piece reads as a plain
# Python exception: the catch-all page)
ALLOCATION = (
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for "
    "32.00MiB (33554432B) on device ordinal 0: while running replica 0 and partition 0 of a "
    "replicated computation (other replicas may have failed as well)."
)


def _pieces(line: str, width: int = 80, indent: str = "") -> list[str]:
    return textwrap.wrap(
        line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def _write(
    first: int, seconds: float, lines: list[str], gap: float = WRITE, pod: str = POD
) -> list[dict]:
    return [_line(first + i, seconds + i * gap, pod, text) for i, text in enumerate(lines)]


def _matches(tmp_path: Path, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    bundle = tmp_path / "bundle.jsonl"
    bundle.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return match_all("--bundle", str(bundle))


def _rows(tmp_path: Path, entries: list[dict[str, Any]], symptom: str) -> list[dict[str, Any]]:
    return [row for row in _matches(tmp_path, entries) if row["symptom"] == symptom]


def test_a_wrapped_message_is_matched_as_one_record(tmp_path: Path) -> None:
    pieces = _pieces(FRAGMENTED)
    assert len(pieces) == 3
    # The same lines written one second apart (another pod) are three writes: nothing joins them.
    apart = _write(50, 30, pieces, gap=1.0, pod="trainer-0-1-abcde")
    (row,) = _rows(tmp_path, _write(10, 30, pieces) + apart, "hbm-oom-runtime")
    assert row["record"] == {"entries": 3, "first": "ln10", "last": "ln12"}
    # Cited on the piece completing the match, its quote that entry's text verbatim.
    cited = int(row["insertId"].removeprefix("ln")) - 10
    assert row["quote"] == pieces[cited]
    assert row["excerpt"].splitlines() == pieces


@pytest.mark.parametrize("indent", ["", "    "])
def test_a_wrapped_root_under_a_catch_all_head_is_the_specific_page(
    tmp_path: Path, indent: str
) -> None:
    pieces = _pieces(ALLOCATION, indent=indent)
    entries = _write(0, 0, ["step 100: loss 2.31"]) + _write(10, 30, pieces)
    entries.append(_event(90, 31, POD, "BackOff", f"Back-off restarting failed container main in pod {POD}"))  # fmt: skip
    findings = _diagnose(tmp_path, "trainer", entries)
    assert findings["root_cause"]["symptom"] == "hbm-oom-runtime"
    (cited,) = [e for e in findings["evidence"] if e["symptom"] == "hbm-oom-runtime"]
    assert cited["record"] == [f"ln{10 + i}" for i in range(len(pieces))]
    assert not [e for e in findings["evidence"] if e["symptom"] == "application-exception"]


def test_an_entry_holding_a_wrapped_message_matches_in_its_flowed_view(tmp_path: Path) -> None:
    text = "\n".join(_pieces(FRAGMENTED, indent="  "))
    (row,) = _rows(tmp_path, [_line(1, 5, POD, text)], "hbm-oom-runtime")
    assert row["quote"] in text and "\n" in row["quote"]  # the written lines holding the match
    assert "record" not in row  # one entry


def _traceback(stamp: str) -> list[str]:
    lines = [
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 88, in <module>',
        "    state = train_step(state, batch)",
        '  File "/app/train.py", line 61, in train_step',
        FRAGMENTED,
    ]
    return [f"{stamp}{line}" for line in lines]


# Every line of the stream carries the collector's stamp: the CRI log format the container
# runtime writes (`2019-04-30T02:12:41.8443515Z stdout F message`, kubelet-cri-logging design;
# https://grafana.com/docs/loki/latest/send-data/promtail/stages/cri/), `kubectl logs
# --timestamps` / `docker logs -t` (RFC 3339 with nanoseconds), a TPU VM launcher's time, worker
# address and rank (https://github.com/pytorch/xla/issues/3028).
STAMPS = [
    "2024-05-01T12:00:00.123456789Z stderr F ",
    "2019-04-30T02:12:41.8443515Z stdout F ",
    "2024-05-01T12:00:00.123456789Z ",
    "2021-07-08 08:28:12 10.164.0.33 [0] ",
]


@pytest.mark.parametrize("stamp", STAMPS)
def test_a_traceback_stamped_on_every_line_is_one_record(tmp_path: Path, stamp: str) -> None:
    lines = _traceback(stamp)
    (row,) = _matches(tmp_path, _write(10, 30, lines))  # the catch-all header yields to it
    assert row["symptom"] == "hbm-oom-runtime"
    assert row["record"] == {"entries": 5, "first": "ln10", "last": "ln14"}
    assert row["quote"] == lines[-1]


@pytest.mark.parametrize("stamp", STAMPS)
def test_what_follows_a_stamp_decides_where_a_record_starts(tmp_path: Path, stamp: str) -> None:
    """A glog line after the stamped traceback starts a record of its own."""
    glog = "E0501 12:00:00.200000   123 coordination_service_agent.cc:332] Polled an error"
    lines = [*_traceback(stamp), f"{stamp}{glog}", f"{stamp}continued"]
    (row,) = _rows(tmp_path, _write(10, 30, lines), "hbm-oom-runtime")
    assert row["record"]["entries"] == 5


def test_a_logger_timestamp_after_an_unstamped_traceback_starts_a_record(tmp_path: Path) -> None:
    """A stream that stamps only its records' first lines: a stamped line after unstamped ones
    is a logger's header (here Python logging's, written in the same milliseconds)."""
    lines = [*_traceback(""), "2024-05-01 12:00:00,124 ERROR trainer: step failed, exiting"]
    (row,) = _rows(tmp_path, _write(10, 30, lines), "hbm-oom-runtime")
    assert row["record"]["entries"] == 5


# A tool's prefix on every line, longer than a terminal's width leaves for the message (the shape
# of dev1's torch.save traceback: time, a task's name and pid, a run's UUID).
TOOL = "2024-05-01 12:00:00.977 [12/train/34 (pid 4242)] [3f2a9c1e-5b7d-4e08-9a61-0c2d4b8e7f13] "


@pytest.mark.parametrize("indent", ["", "    "])
def test_a_tool_prefix_cut_by_wrapping_continues_the_record(tmp_path: Path, indent: str) -> None:
    """Wrapped at 80, every line's tool prefix is cut from its message: a piece holding only the
    stamp and the task's name follows the pieces of the line above. Both stamps are a tool's (no
    logger's header after them), so the pieces between are a wrapped line and the record goes on."""
    pieces = [piece for line in _traceback(TOOL) for piece in _pieces(line, indent=indent)]
    cut = [piece for piece in pieces if piece.startswith(TOOL[:23])]
    assert len(cut) == 5 and all("File" not in piece for piece in cut)
    (row,) = _rows(tmp_path, _write(10, 30, pieces), "hbm-oom-runtime")
    # The traceback's header piece starts the record; the stamp cut from it stays on its own.
    last = 10 + len(pieces) - 1
    assert row["record"] == {"entries": len(pieces) - 1, "first": "ln11", "last": f"ln{last}"}


@pytest.mark.parametrize(
    ("head", "after"),
    [
        # Python logging's `logger.exception`: the record's header, then the traceback unstamped.
        (
            "2024-05-01 12:00:00,124 ERROR trainer: step failed",
            "2024-05-01 12:00:00,125 ERROR trainer: giving up",
        ),
        # loguru's format.
        (
            "2024-05-01 12:00:00.124 | ERROR    | trainer:step:61 - step failed",
            "2024-05-01 12:00:00.125 | INFO     | trainer:main:90 - exiting",
        ),
        # A stamp with no severity after it, then a logger's record with one.
        (
            "2024-05-01 12:00:00,124 step 100 failed",
            "2024-05-01 12:00:00,125 - trainer - ERROR - exiting",
        ),
    ],
)
def test_a_logger_record_after_a_traceback_starts_a_record(
    tmp_path: Path, head: str, after: str
) -> None:
    """A stamp with a logger's severity after it, or after a line whose stamp had one, is a
    logger's header after the unstamped lines above it: no tool stamps that stream. The record
    is the traceback (its header starts one), without the logger's next record (ln16)."""
    lines = [head, *_traceback(""), after]
    (row,) = _rows(tmp_path, _write(10, 30, lines), "hbm-oom-runtime")
    assert row["record"] == {"entries": 5, "first": "ln11", "last": "ln15"}


def test_match_reports_the_records_the_diagnosis_cites(tmp_path: Path) -> None:
    entries = _write(10, 30, GCS_BODY)
    (row,) = _rows(tmp_path, entries, "gcs-throttling")
    assert row["record"] == {"entries": len(GCS_BODY), "first": "ln10", "last": "ln22"}
    entries.append(_event(90, 31, POD, "BackOff", f"Back-off restarting failed container main in pod {POD}"))  # fmt: skip
    findings = _diagnose(tmp_path, "trainer", entries)
    (cited,) = [e for e in findings["evidence"] if e["symptom"] == "gcs-throttling"]
    assert (cited["insertId"], cited["quote"]) == (row["insertId"], row["quote"])


def test_match_output_stays_agent_sized_with_many_records(tmp_path: Path) -> None:
    entries = []
    for n in range(120):  # 120 pods, each a wrapped OOM in a stamped traceback
        lines = _traceback("2024-05-01T12:00:00.123456789Z stderr F ")
        entries += [
            _line(n * 10 + i, 30 + n + i * WRITE, f"trainer-0-{n}-x7k2p", text)
            for i, text in enumerate(lines)
        ]
    bundle = tmp_path / "many.jsonl"
    bundle.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    for form in ("text", "json"):
        result = run_cli("match", "--bundle", str(bundle), "--format", form)
        assert result.code == 0, result.stderr
        assert len(result.stdout) <= 30_000, form
    shown = json.loads(run_cli("match", "--bundle", str(bundle), "--format", "json").stdout)
    assert shown["count"] == 120 and shown["matches"][0]["record"]["entries"] == 5


@pytest.mark.slow
def test_wrapped_real_excerpts_match_as_written_with_no_false_alarm() -> None:
    """Measured 2026-12-01 (before this rule: dev1 101, dev2 71, devb 73 wrapped at 80)."""
    bench = load_benchmark("bench_wrapped")
    sets = {Path(p).name: bench.dev_set(REPO_ROOT / p) for p in bench.DEV_SETS}
    table = bench.measure(sets, bench.wrappings_for([80, 120], indent=True))
    for name, row in table.items():
        written = row["as written"]
        for label, score in row.items():
            assert score.found == written.found, (name, label, score)
            assert score.alarms == 0, (name, label, score)


def test_the_measurement_wraps_the_way_fold_s_does() -> None:
    bench = load_benchmark("bench_wrapped")
    assert bench.wrapped(FRAGMENTED, 80, "") == _pieces(FRAGMENTED)
    assert all(len(piece) <= 80 for piece in bench.wrapped(ALLOCATION, 80, "    "))
    assert " ".join(bench.wrapped(ALLOCATION, 80, "")) == ALLOCATION
    assert bench.wrapped("short line", 80, "") == ["short line"]


def test_the_flowed_view_reads_every_run_of_whitespace_with_a_line_break_as_one_space() -> None:
    import random

    from mlwiki.diagnose.flowed import BREAK, flowed, flowed_text, span

    assert flowed_text("in memory space\n    hbm. Used") == "in memory space hbm. Used"
    text = "a  \r\n\t \n  b\nc"
    view = flowed(text)
    assert view is not None and view.text == "a b c"
    assert text[slice(*span(view, 0, 3))] == "a  \r\n\t \n  b"  # the written span of "a b"
    assert flowed("one line") is None
    chars = ["a", "é", " ", "\t", "\r", "\n", "\x0b", "\u00a0", "\u2003"]
    pick = random.Random(7)
    for _ in range(5000):  # the fast text is the regex's, whatever the whitespace
        text = "".join(pick.choice(chars) for _ in range(pick.randint(1, 12)))
        assert flowed_text(text) == BREAK.sub(" ", text), repr(text)
