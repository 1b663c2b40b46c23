"""Which specific match explains a catch-all one (mlwiki.diagnose.signatures), through the pipeline.

A root or a cascade anywhere in the record takes it; a symptom only on the exception's own line.
A launcher's exit-code summary under a traceback is the failure's effect, not a rival cause.
"""

from __future__ import annotations

from pathlib import Path

from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.lint.context import LintContext
from tests.test_records import _hits, _write
from tests.test_workload_failures import WIKI, _diagnose

XPK_RUN = [  # https://github.com/GoogleCloudPlatform/ml-auto-solutions/issues/306
    "Traceback (most recent call last):",
    '  File "/deps/MaxText/pyconfig.py", line 152, in _update_from_env_and_command_line',
    "ValueError: Key enable_profiler was passed at the command line but isn't in config.",
    "XPK End: Tue Jun 4 09:00:52 UTC 2024",
    "EXIT_CODE=1",
]
BARRIER = [
    "Traceback (most recent call last):",
    '  File "/app/train.py", line 12, in <module>',
    "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
    "multihost_broadcast_sync0. Timed out task names:",
    "/job:jax_worker/replica:0/task:3",
]
HBM_UNDER_TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/app/train.py", line 40, in <module>',
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
    "Attempting to allocate 8.00G. That was not possible. There are 2.50G free.",
]


def test_an_exit_code_summary_under_a_traceback_leaves_the_exception_the_root(
    tmp_path: Path,
) -> None:
    entries = _write(0, 0, ["step 1"]) + _write(10, 5, XPK_RUN)
    (exception,) = _hits(tmp_path, entries, "application-exception")
    assert exception.quote == XPK_RUN[2]
    (summary,) = _hits(tmp_path, entries, "container-exit-nonzero")
    assert summary.quote == "EXIT_CODE=1"
    findings = _diagnose(tmp_path, "trainer", entries)
    assert findings["root_cause"]["symptom"] == "application-exception"


def test_a_symptom_on_the_exceptions_own_line_takes_the_record(tmp_path: Path) -> None:
    entries = _write(0, 0, ["step 1"]) + _write(10, 5, BARRIER)
    assert _hits(tmp_path, entries, "application-exception") == []
    (barrier,) = _hits(tmp_path, entries, "barrier-timeout")
    assert barrier.captures.get("task") == "3"


def test_a_specific_root_anywhere_in_the_record_takes_it(tmp_path: Path) -> None:
    entries = _write(0, 0, ["step 1"]) + _write(10, 5, HBM_UNDER_TRACEBACK)
    assert _hits(tmp_path, entries, "application-exception") == []
    assert [h.quote for h in _hits(tmp_path, entries, "hbm-oom-runtime")] == [
        HBM_UNDER_TRACEBACK[2]
    ]


def test_one_text_holding_both_follows_the_same_rule() -> None:
    signatures = SignatureSet(WIKI.symptoms.values())
    pages = {m.signature.symptom for m in signatures.scan_text("\n".join(XPK_RUN))}
    assert {"application-exception", "container-exit-nonzero"} <= pages
    pages = {m.signature.symptom for m in signatures.scan_text("\n".join(BARRIER))}
    assert "application-exception" not in pages and "barrier-timeout" in pages
    # the linter sees what the matcher sees
    lint = LintContext(WIKI)
    assert {"application-exception", "container-exit-nonzero"} <= {
        s.symptom for s in lint.matching_signatures("\n".join(XPK_RUN))
    }
    assert "application-exception" not in {
        s.symptom for s in lint.matching_signatures("\n".join(BARRIER))
    }


# Megascale digests (https://github.com/AI-Hypercomputer/maxtext/blob/main/docs/guides/
# megascale_hang_playbook.md): every one prints "Potential culprit workers:", whatever its cause.
BAD_CHIP_DIGEST = [
    "Megascale detects a hang that is likely caused by bad TPU chips on the following hosts. "
    "Please remove the hosts from the fleet and restart the workload.",
    "The host that have bad TPUs are: gke-tpu-a",
    "Full error digest:",
    "  Potential cause: Bad TPU chips",
    "  Potential culprit workers: gke-tpu-a",
]
PROGRAM_DIGEST = [
    "Megascale detects a hang that is likely caused by inconsistent TPU programs.",
    "Full error digest:",
    "  Potential cause: INCONSISTENT_TPU_PROGRAM",
    "  Potential culprit workers: gke-tpu-b, gke-tpu-c",
]
NETWORK_DIGEST = [
    "Megascale detects a hang that is likely caused by a networking issue. Please examine the "
    "underlying networking stack for the following hosts.",
    "Potential cause: Networking issue",
    "Potential culprit workers: gke-tpu-d, gke-tpu-e",
]


def test_the_culprit_line_every_digest_prints_is_its_own_digests(tmp_path: Path) -> None:
    for digest, page in (
        (BAD_CHIP_DIGEST, "megascale-hang-bad-chip"),
        (PROGRAM_DIGEST, "megascale-hang-hlo-mismatch"),
        (NETWORK_DIGEST, "megascale-hang-network"),
    ):
        entries = _write(0, 0, ["step 1"]) + _write(10, 5, digest)
        hosts = {h.captures.get("host") for h in _hits(tmp_path, entries, page)}
        assert digest[-1].split(": ", 1)[1] in hosts, page
        if page != "megascale-hang-network":
            assert _hits(tmp_path, entries, "megascale-hang-network") == [], page
        pages = {
            m.signature.symptom
            for m in SignatureSet(WIKI.symptoms.values()).scan_text("\n".join(digest))
        }
        assert pages & {
            "megascale-hang-bad-chip",
            "megascale-hang-hlo-mismatch",
            "megascale-hang-network",
        } == {page}
    lone = "Potential culprit workers: gke-tpu-f"
    assert SignatureSet(WIKI.symptoms.values()).scan_text(lone) == []
