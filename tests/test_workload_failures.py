"""Issue #12's diagnosis rules on generic workload failures, through the public pipeline.

A crash-looping workload is never `no_failure`; a FailedScheduling about an unbound claim is not
blamed on TPU capacity; a bare pod named exactly like the workload is selected (offline and in
the live and workflow queries); a traceback GKE split over five entries is matched once, as one
record, whose evidence cites every entry; a container that exits non-zero without recovering
is a disruption (explained by a root before it, else inconclusive naming its node), one that
recovered or exited 0 is not.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from mlwiki.diagnose.pipeline import diagnose
from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.diagnose.topology import Topology
from mlwiki.engine.render import workload_selector
from mlwiki.logs.plan import workload_containers
from mlwiki.logs.query import compile_filter
from mlwiki.wiki import load_wiki
from tests.conftest import WIKI_ROOT

WIKI = load_wiki(WIKI_ROOT)
SIGNATURES = SignatureSet(WIKI.symptoms.values())
T0 = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)
NODE = "gke-c-default-pool-1a2b3c4d-x1y2"


def _cited(findings: dict[str, Any], row: dict[str, Any]) -> set[str]:
    """The symptom pages of the evidence a failure row cites."""
    return {e["symptom"] for e in findings["evidence"] if e["id"] in row["evidence"]}


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _event(n: int, seconds: float, pod: str, reason: str, message: str) -> dict[str, Any]:
    return {
        "insertId": f"ev{n}",
        "logName": "projects/p/logs/events",
        "timestamp": _at(seconds),
        "severity": "WARNING",
        "resource": {"type": "k8s_pod", "labels": {"pod_name": pod, "namespace_name": "default"}},
        "jsonPayload": {
            "reason": reason,
            "message": message,
            "type": "Warning",
            "source": {"component": "kubelet", "host": NODE},
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": "default"},
        },
    }


def _line(n: int, seconds: float, pod: str, text: str) -> dict[str, Any]:
    return {
        "insertId": f"ln{n}",
        "logName": "projects/p/logs/stderr",
        "timestamp": _at(seconds),
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {"pod_name": pod, "container_name": "main", "namespace_name": "default"},
        },
        "labels": {"compute.googleapis.com/resource_name": NODE},
        "textPayload": text,
    }


def _diagnose(tmp_path: Path, workload: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(entries), encoding="utf-8")
    return diagnose(workload, bundle=bundle, wiki=WIKI, verify=False).findings


def test_a_crash_looping_workload_is_never_no_failure(tmp_path: Path) -> None:
    pod = "consumer-66f5d4c8b9-qwxyz"
    entries = [
        _event(
            i, 20 * 2**i, pod, "BackOff", f"Back-off restarting failed container main in pod {pod}"
        )
        for i in range(6)
    ]
    findings = _diagnose(tmp_path, "consumer", entries)
    assert findings["status"] == "inconclusive"
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODE]
    (row,) = findings["failures"]  # unexplained: no symptom of its own (DESIGN.md, findings)
    assert row["symptom"] is None and "container-crash-loop" in _cited(findings, row)


def test_an_unbound_claim_is_not_blamed_on_tpu_capacity(tmp_path: Path) -> None:
    message = (
        "0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims. "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    entries = [_event(i, 60 * i, "trainer-0", "FailedScheduling", message) for i in range(4)]
    findings = _diagnose(tmp_path, "trainer", entries)
    assert findings["status"] == "diagnosed"
    assert findings["root_cause"]["symptom"] == "pvc-unbound"
    assert all(f["symptom"] != "failed-scheduling-insufficient-tpu" for f in findings["failures"])


def test_a_bare_pod_named_like_the_workload_is_selected(tmp_path: Path) -> None:
    topology = Topology("tokenizer-job")
    assert topology.belongs("tokenizer-job", {})
    assert topology.belongs("tokenizer-job-x7k2p", {})
    assert not topology.belongs("tokenizer-jobs", {})
    job_label = {"k8s-pod/batch.kubernetes.io/job-name": "tokenizer-job"}
    assert topology.belongs("export-x7k2p", job_label)
    entry = _line(1, 0, "tokenizer-job", "hello")
    for query in (str(workload_selector("tokenizer-job")), workload_containers("tokenizer-job")):
        assert compile_filter(query, "workload").matches(entry), query
    image = "us-docker.pkg.dev/p/r/tokenizer:2.7"
    entries = [
        _event(1, 0, "tokenizer-job", "Failed", f'Failed to pull image "{image}": not found'),
        _event(2, 5, "tokenizer-job", "BackOff", f'Back-off pulling image "{image}"'),
    ]
    findings = _diagnose(tmp_path, "tokenizer-job", entries)
    assert findings["root_cause"]["symptom"] == "image-pull-failure"


def test_a_traceback_split_over_five_entries_is_one_record(tmp_path: Path) -> None:
    pod = "worker-7d8f9-abcde"
    texts = [
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 212, in <module>',
        "    batch = next(data_iter)",
        '  File "/app/data.py", line 88, in __next__',
        "FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-7.arrayrecord'",
    ]
    entries = [_line(i, 10 + i * 0.0003, pod, text) for i, text in enumerate(texts)]
    entries.append(
        _event(9, 12, pod, "BackOff", f"Back-off restarting failed container main in pod {pod}")
    )
    findings = _diagnose(tmp_path, "worker", entries)
    assert findings["root_cause"]["symptom"] == "application-exception"
    cited = [e for e in findings["evidence"] if e["symptom"] == "application-exception"]
    assert len(cited) == 1, cited
    assert cited[0]["quote"].startswith("FileNotFoundError")
    assert cited[0]["record"] == [f"ln{i}" for i in range(5)]
    # The report quotes the record around its raised line: the last frame above it.
    assert cited[0]["excerpt"] == "\n".join(texts[2:])
    report = diagnose("worker", bundle=tmp_path / "bundle.json", wiki=WIKI, verify=False)
    assert (
        '  File "/app/data.py", line 88, in __next__\nFileNotFoundError' in report.report_markdown
    )


def _pod_status(n: int, seconds: float, pod: str, exit_code: int) -> dict[str, Any]:
    """An event carrying the container's terminated state (as controllers copy it)."""
    state = {"terminated": {"exitCode": exit_code, "reason": "Error" if exit_code else "Completed"}}
    return _event(n, seconds, pod, "Terminated", json.dumps({"state": state}))


def test_a_container_exit_nonzero_without_recovery_is_a_disruption(tmp_path: Path) -> None:
    """No root explains exit code 2 and nothing came after it: inconclusive, naming the pod's
    node — never no_failure, even though the run's logs end right there."""
    pod = "export-job-0-4kq2z"
    entries = [_line(i, 10 * i, pod, f"exported shard {i}") for i in range(5)]
    entries.append(_pod_status(9, 45, pod, 2))
    findings = _diagnose(tmp_path, "export-job", entries)
    assert findings["status"] == "inconclusive"
    (row,) = findings["failures"]  # unexplained: no symptom of its own (DESIGN.md, findings)
    assert row["symptom"] is None and "container-exit-nonzero" in _cited(findings, row)
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODE]


def test_a_container_exit_nonzero_is_explained_by_the_root_before_it(tmp_path: Path) -> None:
    pod = "export-job-0-4kq2z"
    entries = [
        _line(1, 0, pod, "exporting"),
        _line(2, 30, pod, "ValueError: shard 7 has 0 rows"),
        _pod_status(9, 31, pod, 1),
    ]
    findings = _diagnose(tmp_path, "export-job", entries)
    assert findings["status"] == "diagnosed"
    assert findings["root_cause"]["symptom"] == "application-exception"


def test_a_container_that_exited_and_recovered_is_no_disruption(tmp_path: Path) -> None:
    """Exit code 1, then the pod's next container logged for minutes: a recovered blip."""
    pod = "export-job-0-4kq2z"
    entries = [_pod_status(1, 5, pod, 1)]
    entries += [_line(i, 10 + 30 * i, pod, f"exported shard {i}") for i in range(10)]
    findings = _diagnose(tmp_path, "export-job", entries)
    assert findings["status"] == "no_failure", findings["summary"]


def test_exit_code_zero_is_no_failure(tmp_path: Path) -> None:
    pod = "export-job-0-4kq2z"
    entries = [_line(i, 10 * i, pod, f"exported shard {i}") for i in range(5)]
    entries.append(_pod_status(9, 45, pod, 0))
    findings = _diagnose(tmp_path, "export-job", entries)
    assert findings["status"] == "no_failure", findings["summary"]


def _pages_of(text: str) -> set[str]:
    """The pages whose signatures match a container line `text`."""
    entry = _line(1, 0, "export-job-0-4kq2z", text)
    return {match.signature.symptom for match in SIGNATURES.scan(entry)}


# Every form the platform prints a terminated state in (kubectl describe, the pod object in JSON
# and YAML, klog's structured lines, workflow engines), for codes no other page names.
@pytest.mark.parametrize(
    "text",
    [
        "Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1",
        "    State:          Terminated\n      Reason:       Error\n      Exit Code:    2",
        '"state":{"terminated":{"exitCode":127,"reason":"Error"}}',
        '"lastState": {"terminated": {"exitCode": 143, "reason": "Error"}}',
        "      terminated:\n        exitCode: 255\n        reason: Error",
        'I0504 09:00:01.000000    1234 kuberuntime_container.go:808] "Container exited" '
        'pod="default/export-job-0-4kq2z" containerName="main" exitCode=3',
        "Error (exit code 1)",
        "Error: exit code 64",
        "container main terminated with exit code 126",
    ],
)
def test_every_form_of_a_nonzero_termination_is_a_container_exit(text: str) -> None:
    assert "container-exit-nonzero" in _pages_of(text), text


@pytest.mark.parametrize(
    ("code", "page"),
    [(139, "process-segfault"), (134, "process-abort")],
)
def test_the_codes_another_page_names_are_left_to_it(code: int, page: str) -> None:
    for text in (
        f"Last State:     Terminated\n      Reason:       Error\n      Exit Code:    {code}",
        f'"state":{{"terminated":{{"exitCode":{code},"reason":"Error"}}}}',
    ):
        pages = _pages_of(text)
        assert page in pages, (text, pages)
        assert "container-exit-nonzero" not in pages, (text, pages)


def test_a_sigkill_is_the_oom_page_and_an_exit_both() -> None:
    """137 is the OOM killer's usual code, but the record alone shows only an exit: both pages."""
    for text in (
        "Last State:     Terminated\n      Reason:       Error\n      Exit Code:    137",
        '"state":{"terminated":{"exitCode":137,"reason":"Error"}}',
        "command terminated with exit code 137",
    ):
        pages = _pages_of(text)
        assert {"host-oom-killed", "container-exit-nonzero"} <= pages, (text, pages)


@pytest.mark.parametrize(
    "text",
    [
        "    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0",
        '"state":{"terminated":{"exitCode":0,"reason":"Completed"}}',
        "exitCode: 0",
        "Exit Code:    10 retries left",
        "restartCount: 1",
        "step 1300: exit code path taken for shard 12",
    ],
)
def test_success_and_look_alikes_are_no_container_exit(text: str) -> None:
    assert "container-exit-nonzero" not in _pages_of(text), text
