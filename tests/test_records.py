"""Records that span entries (diagnose/continuation.py), through the public pipeline.

GKE writes every line a container prints as an entry of its own. A JSON error body printed
across lines, a glog line and its unprefixed continuation lines, a `Check failed` line and the
stack trace under it, a Python traceback: each is one written record, matched once, cited with
all of its entries and quoted on its decisive line with the lines around it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.diagnose import match
from mlwiki.diagnose.match import Hit
from mlwiki.diagnose.pipeline import diagnose
from tests.test_workload_failures import WIKI, _diagnose, _event, _line

POD = "trainer-0-0-x7k2p"
WRITE = 0.00005  # seconds between two lines of one write, as the logging agent stamps them


def _write(first: int, seconds: float, lines: list[str], pod: str = POD) -> list[dict[str, Any]]:
    return [_line(first + i, seconds + i * WRITE, pod, text) for i, text in enumerate(lines)]


def _crash(n: int, seconds: float, pod: str = POD) -> dict[str, Any]:
    return _event(
        n, seconds, pod, "BackOff", f"Back-off restarting failed container main in pod {pod}"
    )


def _hits(tmp_path: Path, entries: list[dict[str, Any]], symptom: str) -> list[Hit]:
    """The pass's hits of `symptom` (about the workload `trainer`), records joined."""
    bundle = tmp_path / "hits.json"
    bundle.write_text(json.dumps(entries), encoding="utf-8")
    scan = diagnose("trainer", bundle=bundle, wiki=WIKI, verify=False).scan
    assert scan is not None
    return [hit for hit in scan.relevant_hits() if hit.symptom == symptom]


def _cited(findings: dict[str, Any], symptom: str) -> list[dict[str, Any]]:
    return [e for e in findings["evidence"] if e["symptom"] == symptom]


GCS_BODY = [
    "{",
    '  "error": {',
    '    "code": 429,',
    '    "message": "The object exceeded the rate limit for object mutation operations '
    '(create, update, and delete). Please reduce your request rate.",',
    '    "errors": [',
    "      {",
    '        "message": "The object exceeded the rate limit for object mutation operations '
    '(create, update, and delete). Please reduce your request rate.",',
    '        "domain": "usageLimits",',
    '        "reason": "rateLimitExceeded"',
    "      }",
    "    ]",
    "  }",
    "}",
]


def test_a_json_error_body_split_over_entries_is_one_record(tmp_path: Path) -> None:
    entries = _write(0, 0, ["saving checkpoint step 4000"])
    entries += _write(10, 30, GCS_BODY)
    entries.append(_crash(90, 31))
    findings = _diagnose(tmp_path, "trainer", entries)
    assert findings["root_cause"]["symptom"] == "gcs-throttling"
    cited = _cited(findings, "gcs-throttling")
    assert len(cited) == 1, cited
    assert cited[0]["quote"] == GCS_BODY[3]  # the first line naming the error: the message
    assert cited[0]["record"] == [f"ln{10 + i}" for i in range(len(GCS_BODY))]
    assert '"code": 429,' in cited[0]["excerpt"]


def test_a_kubernetes_status_object_printed_across_lines_is_one_record(tmp_path: Path) -> None:
    message = (
        '  "message": "pods \\"trainer-0-0-x7k2p\\" is forbidden: exceeded quota: compute-resources, '
        'requested: limits.cpu=8, used: limits.cpu=60, limited: limits.cpu=64",'
    )
    status = [
        "kubernetes.client.exceptions.ApiException: (403)",
        "Reason: Forbidden",
        "HTTP response headers: HTTPHeaderDict({'Content-Type': 'application/json'})",
        "HTTP response body: {",
        '  "kind": "Status",',
        '  "apiVersion": "v1",',
        '  "metadata": {},',
        '  "status": "Failure",',
        message,
        '  "reason": "Forbidden",',
        '  "code": 403',
        "}",
    ]
    entries = _write(0, 0, ["submitting worker pods"]) + _write(10, 20, status)
    assert _hits(tmp_path, entries, "application-exception") == []  # the record's own page wins
    (hit,) = _hits(tmp_path, entries, "admission-webhook-denied")
    assert hit.quote == message
    assert hit.record == [f"ln{10 + i}" for i in range(len(status))]
    assert hit.excerpt.splitlines()[-1] == '  "code": 403'


def test_glog_continuation_lines_belong_to_their_prefixed_line(tmp_path: Path) -> None:
    """The task the barrier waited for is on an unprefixed line below the F-line; the next
    prefixed line, written in the same microseconds, starts a record of its own."""
    fatal = (
        "F0109 12:34:56.789012     123 client.cc:77] Terminating process because the JAX "
        "distributed service detected fatal errors. This most likely indicates that another task "
        "died; see the other task logs for more details. absl::Status: DEADLINE_EXCEEDED: Barrier "
        "timed out. Id: PjRT_Client_Connect::3"
    )
    lines = [
        fatal,
        "Timed out task names:",
        "/job:jax_worker/replica:0/task:6",
        "E0109 12:34:56.789101     123 coordination_service_agent.cc:332] Polled an error from "
        "coordination service (this can be an error from this or another task).",
    ]
    findings = _diagnose(tmp_path, "trainer", _write(0, 0, ["starting"]) + _write(10, 5, lines))
    cited = _cited(findings, "coordinator-connect-timeout")
    assert len(cited) == 1, cited
    assert cited[0]["quote"] == fatal
    assert cited[0]["record"] == ["ln10", "ln11", "ln12"]
    assert cited[0]["excerpt"] == "\n".join(lines[:3])


def test_a_check_failure_and_its_stack_trace_are_one_record(tmp_path: Path) -> None:
    check = (
        "F1201 12:00:00.123456    1234 tpu_hal.cc:341] Check failed: status.ok() INTERNAL: "
        "Failed to get device memory"
    )
    block = [
        check,
        "*** Check failure stack trace ***",
        "    @     0x7f3c2a1b2c3d  tensorflow::tpu::TpuHal::Open()",
        "    @     0x7f3c2a1b2e10  tensorflow::tpu::TpuPlatform::Initialize()",
        "    @     0x7f3c29f01a22  xla::InitializeTpuLibrary()",
        "    @     0x7f3c29e00b31  (unknown)",
    ]
    entries = _write(0, 0, ["starting"]) + _write(10, 3, block) + [_crash(90, 4)]
    findings = _diagnose(tmp_path, "trainer", entries)
    cited = _cited(findings, "process-abort")
    assert len(cited) == 1, cited
    assert cited[0]["quote"] == check
    assert cited[0]["record"] == [f"ln{10 + i}" for i in range(len(block))]
    assert cited[0]["excerpt"] == "\n".join(block[:3])


def test_two_writes_of_one_body_are_two_records(tmp_path: Path) -> None:
    entries = _write(10, 30, GCS_BODY) + _write(40, 90, GCS_BODY) + [_crash(90, 91)]
    findings = _diagnose(tmp_path, "trainer", entries)
    failures = [f for f in findings["failures"] if f["symptom"] == "gcs-throttling"]
    assert failures, findings["failures"]
    hits = sorted({e["insertId"] for e in _cited(findings, "gcs-throttling")})
    assert set(hits) <= {"ln13", "ln43"}, hits


def test_records_do_not_depend_on_the_order_entries_arrive_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = _write(0, 0, ["saving"]) + _write(10, 30, GCS_BODY) + [_crash(90, 31)]
    forward = _diagnose(tmp_path, "trainer", entries)
    backward = _diagnose(tmp_path, "trainer", list(reversed(entries)))
    assert json.dumps(forward["evidence"]) == json.dumps(backward["evidence"])
    # A record's lines in no time order (every other line first): the pass cannot have kept
    # them as they came, so the record sweep reads the stream again, with the same result.
    shuffled = _diagnose(tmp_path, "trainer", entries[::2] + entries[1::2])
    assert json.dumps(forward["evidence"]) == json.dumps(shuffled["evidence"])
    assert any(e["symptom"] == "gcs-throttling" for e in forward["evidence"]), forward["evidence"]
    # More records' lines than the pass keeps: the sweep reads the rest again from the store.
    monkeypatch.setattr(match, "MAX_KEPT_LINES", 2)
    flooded = _diagnose(tmp_path, "trainer", entries)
    assert json.dumps(forward["evidence"]) == json.dumps(flooded["evidence"])


# Real records, as their sources printed them (one entry per line, as GKE stores them).
TPU_INIT = [  # https://github.com/jax-ml/jax/issues/37230
    "jax.errors.JaxRuntimeError: INTERNAL: TPU initialization failed:",
    "TPU_RET_CHECK failure",
    "(learning/45eac/tpu/runtime/hal/tpu_hal.cc:229)",
    "GetChip(i)->location().index_on_host() == i (0 vs. 1)",
]
GCS_403 = [  # https://github.com/nyu-dl/dl4marco-bert/issues/19
    "Unsuccessful TensorSliceReader constructor: Failed to get matching files on "
    "gs://xusongpei1995/output/model.ckpt-0: Permission denied: Error executing an HTTP request: "
    "HTTP response code 403 with body '{",
    ' "error": {',
    '  "errors": [',
    "   {",
    '    "domain": "global",',
    '    "reason": "forbidden",',
    '    "message": "service-495559152420@cloud-tpu.iam.gserviceaccount.com does not have '
    'storage.objects.list access to xusongpei1995."',
    "   }",
    "  ],",
    '  "code": 403,',
    '  "message": "service-495559152420@cloud-tpu.iam.gserviceaccount.com does not have '
    'storage.objects.list access to xusongpei1995."',
    " }",
    "}",
    "'",
    "\t when reading gs://xusongpei1995/output",
]
SESSION_MASTER = [  # https://github.com/AI-Hypercomputer/maxtext/pull/2041
    "E0511 18:18:50.796514     915 session_master.cc:505] Session is failing with the following "
    "status: Session master detected TPU session error from worker "
    "tpu-job-jax-v6e-8-5-15.headless-svc:8471. The reporting TPU chip locations are:tpu31:pe4:3, ",
    "tpu31:pe4:2",
    "E0511 18:18:50.796852     915 tpunetd_client.cc:311] Detected failure "
    "SLICE_FAILURE_CHIP_DRIVER_ERROR in session e6c885828b538167; Start failure handling",
]


def test_a_page_worded_across_lines_is_found_in_the_joined_record(tmp_path: Path) -> None:
    """No single line says it: "TPU initialization failed:" and "TPU_RET_CHECK failure" are two
    entries; the record's joined text is the page's, the traceback's catch-all yields to it."""
    entries = _write(0, 0, ["import jax"]) + _write(10, 2, TPU_INIT)
    assert _hits(tmp_path, entries, "application-exception") == []
    (hit,) = _hits(tmp_path, entries, "tpu-device-unavailable")
    assert hit.quote == TPU_INIT[1]  # the line that completes the wording
    assert hit.record == ["ln10", "ln11", "ln12", "ln13"]
    assert hit.excerpt == "\n".join(TPU_INIT)


def test_a_real_gcs_error_body_split_over_entries_is_one_record(tmp_path: Path) -> None:
    entries = _write(0, 0, ["restoring"]) + _write(10, 4, GCS_403)
    (hit,) = _hits(tmp_path, entries, "checkpoint-gcs-permission")
    assert hit.quote == GCS_403[0]
    assert hit.record == [f"ln{10 + i}" for i in range(len(GCS_403))]


def test_a_real_glog_line_and_its_continuation_are_one_record(tmp_path: Path) -> None:
    entries = _write(0, 0, ["step 100"]) + _write(10, 9, SESSION_MASTER)
    hits = _hits(tmp_path, entries, "slice-failure")
    assert [(h.insert_id, h.record) for h in hits] == [("ln10", ["ln10", "ln11"]), ("ln12", [])]
