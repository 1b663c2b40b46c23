"""Issue #12's generic workload failures and real-log families, through the public loader and engine.

The ten generic pages (application exception, crash loop, start error, readiness, unbound claims,
unreachable dependencies, checkpoint saves, TPU API permissions, Kueue's PodsReady eviction, XRT)
have the TAXONOMY role, every section, real cited examples, counter-examples that no page but their
owner matches, and a read-only verification workflow that confirms on its own evidence and refutes
on exported events without it. SCHEMA.md's role tables list every page with its role. The
FailedScheduling page matches the scheduler's reason, never the `0/N nodes are available` frame.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.engine.workflows import run_workflow
from mlwiki.logs.session import LogSession
from mlwiki.wiki import Wiki, load_wiki
from tests.conftest import (
    WIKI_ROOT,
    assert_no_signature_matches,
    assert_read_only_verification,
)

ROLES = {
    "application-exception": "root",
    "container-crash-loop": "consequence",
    "container-start-error": "root",
    "readiness-probe-failure": "symptom",
    "pvc-unbound": "root",
    "dependency-unreachable": "root",
    "checkpoint-save-failure": "root",
    "tpu-api-permission-denied": "root",
    "kueue-podsready-timeout-eviction": "consequence",
    "xrt-session-lost": "root",
}
SECTIONS = [
    "What it is",
    "Log signature",
    "Where it shows up",
    "How to verify",
    "Cause or cascade",
    "Remedy",
    "Sources",
]
WORKLOAD = "llm-pretrain"
POD = f"{WORKLOAD}-slice-job-0-0-abcde"
WINDOW = {"workload": WORKLOAD, "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T01:00:00Z"}


@pytest.fixture(scope="module")
def wiki() -> Wiki:
    return load_wiki(WIKI_ROOT)


@pytest.fixture(scope="module")
def signatures(wiki: Wiki) -> SignatureSet:
    return SignatureSet(wiki.symptoms.values())


def matched(signatures: SignatureSet, line: str) -> set[str]:
    return {raw.signature.symptom for raw in signatures.scan_text(line)}


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_page_has_its_role_sections_and_real_cited_examples(wiki: Wiki, symptom_id: str) -> None:
    symptom = wiki.symptoms[symptom_id]
    assert symptom.role == ROLES[symptom_id]
    assert symptom.workflow == f"verify-{symptom_id}"
    assert re.findall(r"(?m)^## (.+?)\s*$", symptom.page.body) == SECTIONS
    assert len(symptom.examples) >= 2 and symptom.counter_examples
    for example in symptom.examples:
        assert example.source.startswith("https://"), example


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_examples_match_and_counter_examples_only_match_their_owner(
    wiki: Wiki, signatures: SignatureSet, symptom_id: str
) -> None:
    symptom = wiki.symptoms[symptom_id]
    for example in symptom.examples:
        assert symptom_id in matched(signatures, example.line), example.line
    for counter in symptom.counter_examples:
        assert matched(signatures, counter.line) <= set(counter.belongs_to), counter.line


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_verification_workflow_is_valid_and_read_only(wiki: Wiki, symptom_id: str) -> None:
    assert_read_only_verification(wiki, symptom_id)


def test_schema_role_tables_list_every_page_with_its_role(wiki: Wiki) -> None:
    text = (WIKI_ROOT / "SCHEMA.md").read_text()
    rows = dict(
        re.findall(r"(?m)^\| `([a-z0-9-]+)` \| (root|symptom|cascade|consequence) \|", text)
    )
    assert rows == {sid: page.role for sid, page in wiki.symptoms.items()}


# ---- the reason, not the boilerplate ---------------------------------------------------------

PVC_EVENT = (
    "0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims. preemption: "
    "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
)


def test_a_failed_scheduling_about_an_unbound_claim_is_not_tpu_capacity(
    signatures: SignatureSet,
) -> None:
    assert matched(signatures, PVC_EVENT) == {"pvc-unbound"}
    assert matched(
        signatures,
        "pod didn't trigger scale-up: 1 pod has unbound immediate PersistentVolumeClaims",
    ) == {"pvc-unbound"}
    tpu = "0/4 nodes are available: 4 Insufficient google.com/tpu. preemption: 0/4 nodes are available."
    assert matched(signatures, tpu) == {"failed-scheduling-insufficient-tpu"}
    frame_only = "0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    assert "failed-scheduling-insufficient-tpu" not in matched(signatures, frame_only)


def test_a_catch_all_page_yields_to_the_specific_page_on_the_same_line(
    signatures: SignatureSet,
) -> None:
    oom = (
        "ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
        "allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"
    )
    assert matched(signatures, oom) == {"hbm-oom-runtime"}
    # an import error names its own page; a bare exception stays the catch-all's
    assert matched(signatures, "ModuleNotFoundError: No module named 'cv2'") == {
        "python-dependency-error"
    }
    assert matched(signatures, "KeyError: 'gke-cluster-1-pool-1-9a9ea7a4-v23m'") == {
        "application-exception"
    }
    libtpu = (
        "2021-07-03 05:37:33.144628: F external/org_tensorflow/tensorflow/core/tpu/"
        "tpu_executor_init_fns.inc:110] TpuTransferManager_ReadDynamicShapes not available "
        "in this library."
    )
    assert matched(signatures, libtpu) == {"libtpu-version-mismatch"}


@pytest.mark.parametrize(
    "line, page",
    [
        (
            "Back-off restarting failed container trainer in pod llm-0_default(1a2b)",
            "container-crash-loop",
        ),
        ("Exit Code:    137", "host-oom-killed"),
        ("command terminated with exit code 137", "host-oom-killed"),
        ("/bin/bash: line 1:    15 Killed                  python3 train.py", "host-oom-killed"),
        (
            "bash: line 1:   88 Segmentation fault      (core dumped) python3 train.py",
            "process-segfault",
        ),
        ("Aborted (core dumped)", "process-abort"),
        ("train/loss nan", "nan-inf-loss"),
        ("{'loss': nan, 'learning_rate': 0.0003}", "nan-inf-loss"),
        ("systemd-logind[511]: Power key pressed.", "spot-preemption"),
        (
            "no healthy devices present; cannot allocate unhealthy devices google.com/tpu",
            "tpu-device-plugin-unhealthy",
        ),
        ("QUOTA limit 'TPUS_PER_TPU_FAMILY' has been exceeded", "capacity-stockout-or-quota"),
        ("sh: 1: python: not found", "container-start-error"),
        (
            "dial tcp: lookup dataset-server.data on 10.0.0.10:53: no such host",
            "dependency-unreachable",
        ),
    ],
)
def test_wording_variants_match_their_family(
    signatures: SignatureSet, line: str, page: str
) -> None:
    assert page in matched(signatures, line), line


# One family, every rendering (SCHEMA.md, Signatures): nested escaping, each client binding's
# status, a kubectl row with no event frame, a tool's timestamp prefix, a source's placeholders.
RENDERINGS = [
    (
        '"Error syncing pod" err="failed to \\"StartContainer\\" for \\"app\\": \\"Back-off '
        'pulling image \\\\\\"nginx:latestx\\\\\\"\\""',
        "image-pull-failure",
    ),
    ('\tdetails = "failed to connect to all addresses"', "dependency-unreachable"),
    (
        'Grpc.Core.RpcException: Status(StatusCode="Unavailable", Detail="Connect Failed")',
        "dependency-unreachable",
    ),
    ("Error: 14 UNAVAILABLE: failed to connect to all addresses", "dependency-unreachable"),
    (
        "ray.exceptions.RaySystemError: System error: RPC Error message: failed to connect to all "
        "addresses; last error: UNKNOWN: ipv4:10.4.0.12:6379: Connection refused",
        "dependency-unreachable",
    ),
    (
        'desc = "transport: error while dialing: dial tcp 10.0.0.7:50051: connect: connection refused"',
        "dependency-unreachable",
    ),
    (
        "Failed to establish a new connection: [Errno 110] Connection timed out",
        "dependency-unreachable",
    ),
    (
        "trainer-0-abcde   0/1     CreateContainerError   1 (51m ago)     54m",
        "container-start-error",
    ),
    ("default  trainer-0-abcde   0/1     Evicted   0   5m", "pod-evicted-node-pressure"),
    ("Taints:             node.kubernetes.io/unreachable:NoExecute", "node-not-ready"),
    (
        "2024-10-30T06:37:22.787514306Z KeyError: 'DJANGO_SETTINGS_MODULE'",
        "application-exception",
    ),
    # a progress watchdog's own deadline (Levanter), an async save's background commit (Orbax)
    (
        "No progress after process_started for 7200.4 seconds (timeout 7200.0); terminating with exit code 124",
        "training-stall",
    ),
    (
        '  File "/opt/venv/lib/python3.12/site-packages/orbax/checkpoint/_src/futures/future.py", line 281, in run',
        "checkpoint-save-failure",
    ),
    # every release's and every cloud's wording of one refusal (dev5's misses, widened from source)
    ('pods "hello-0" is forbidden: Limited to 10 pods', "admission-webhook-denied"),
    (
        "[98765.4321] Killed process 4242 (python3) total-vm:96123456kB, anon-rss:81234567kB, file-rss:0kB, shmem-rss:0kB",
        "host-oom-killed",
    ),
    (
        "Unable to initialize backend 'cuda': Found cuSPARSE version 12001, but JAX was built against version 12200, which is newer.",
        "libtpu-version-mismatch",
    ),
    ("Outdated cuDNN installation found.", "libtpu-version-mismatch"),
    (
        '"message": "Operation could not be completed as it results in exceeding approved standardNCADSA100v4Family Cores quota.',
        "capacity-stockout-or-quota",
    ),
    (
        "google.api_core.exceptions.InternalServerError: 500 POST https://storage.googleapis.com/upload/storage/v1/b/ckpt/o?uploadType=multipart: Internal Error",
        "checkpoint-save-failure",
    ),
    ("restarting jobset, attempt %d", "jobset-restarts"),
    ('"error":"localQueue doesn\'t exist or inactive"', "kueue-admission-pending"),
    (
        '"msg":"I0507 kubelet.go:2498] \\"SyncLoop (probe)\\" probe=\\"liveness\\" '
        'status=\\"unhealthy\\""',
        "liveness-probe-restart",
    ),
    ('"Probe failed" probeType="Readiness" pod="ml/trainer-0"', "readiness-probe-failure"),
    ('Deactivated due to AdmissionCheck in Rejected state: "check"', "provisioning-request-failed"),
    ("methodName: compute.instances.hostError", "host-error"),
    ('"methodName": "compute.instances.preempted",', "spot-preemption"),
    (
        "INVALID_ARGUMENT: Executable expected parameter 0 of size 4096 but got buffer with "
        "incompatible size 3840",
        "executable-input-mismatch",
    ),
    ('{"methodName": "compute.instances.terminateOnHostMaintenance"}', "host-maintenance"),
    (
        "Normal   NodeShutdown   node/gke-tpu-0   Shutdown manager detected shutdown event",
        "node-graceful-shutdown",
    ),
    ("2024-05-01T10:00:00.123Z device /dev/accel3 does not exist", "tpu-device-plugin-unhealthy"),
    ("2024-05-01 10:00:00 Power key pressed short.", "spot-preemption"),
    (
        "[ 7063.263325] oom_reaper: reaped process 4242 (vbar_control_ag), now anon-rss:0kB",
        "vbar-agent-oom",
    ),
    ("System OOM encountered, victim process: vbar_control_ag, pid: 4242", "vbar-agent-oom"),
    ("UserWarning: Did you run your code on all the hosts?", "tpu-backend-init-stuck"),
    (
        "E0305 rendezvous.cc:31] This thread has been waiting for 10 seconds and may be stuck:",
        "training-stall",
    ),
    (
        "gke-tpu-7f2a-w3k9   NotReady,SchedulingDisabled   <none>   3d4h   v1.30.5-gke.1014001",
        "node-not-ready",
    ),
]
# Their look-alikes: the same key, status or frame where it says nothing went wrong.
LOOKALIKES = [
    # a CPU-only host's GPU probe, and a throttled upload (gcs-throttling's, not a lost write)
    (
        "CUDA backend failed to initialize: no supported devices found for platform CUDA",
        "libtpu-version-mismatch",
    ),
    (
        "429 POST https://storage.googleapis.com/upload/storage/v1/b/ckpt/o?uploadType=multipart: Too Many Requests",
        "checkpoint-save-failure",
    ),
    (
        "Tolerations:     node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
        "node-not-ready",
    ),
    (
        "Failed create pod sandbox: rpc error: code = Unknown desc = NetworkPlugin cni failed to set up pod",
        "container-start-error",
    ),
    ("java.net.SocketTimeoutException: Read timed out", "dependency-unreachable"),
    (
        "UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.7:8482: "
        "Failed to connect to remote host: Connection refused",
        "dependency-unreachable",
    ),
    ("message: Can admit new workloads", "kueue-admission-pending"),
    ("trainer-0-abcde   1/1     Running   0   5m", "pod-evicted-node-pressure"),
    (
        '"SyncLoop (probe)" probe="readiness" status="ready" pod="ml/trainer-0"',
        "readiness-probe-failure",
    ),
    ('Evicted due to AdmissionCheck in Retry state: "check-1"', "provisioning-request-failed"),
    ("Hosts affected: compute.instances.hostError is the method to filter on", "host-error"),
    ("System OOM encountered, victim process: python3, pid: 4242", "vbar-agent-oom"),
    ("gke-tpu-7f2a-w3k9   NotReady   <none>   12s   v1.30.5-gke.1014001", "node-not-ready"),
]


@pytest.mark.parametrize("line, page", RENDERINGS)
def test_every_rendering_of_a_family_matches_it(
    signatures: SignatureSet, line: str, page: str
) -> None:
    assert page in matched(signatures, line), line


@pytest.mark.parametrize("line, page", LOOKALIKES)
def test_a_look_alike_of_a_family_does_not_match_it(
    signatures: SignatureSet, line: str, page: str
) -> None:
    assert page not in matched(signatures, line), line


def test_a_json_429_body_split_over_lines_matches_as_one_record(signatures: SignatureSet) -> None:
    body = (
        '{\n  "error": {\n    "code": 429,\n    "message": "Too many requests",\n'
        '    "errors": [{"reason": "rateLimitExceeded"}]\n  }\n}'
    )
    assert "gcs-throttling" in matched(signatures, body)
    assert "gcs-throttling" not in matched(signatures, '    "code": 429,')


# ---- the workflows on small offline bundles, through the real engine -------------------------


def _event(n: int, reason: str, message: str, kind: str = "Pod", name: str = POD) -> dict[str, Any]:
    return {
        "insertId": f"ev-{n}",
        "logName": "projects/p/logs/events",
        "timestamp": f"2026-01-01T00:0{n}:00Z",
        "severity": "WARNING",
        "resource": {"type": "k8s_pod", "labels": {"pod_name": name, "namespace_name": "default"}},
        "jsonPayload": {
            "reason": reason,
            "message": message,
            "involvedObject": {"kind": kind, "name": name, "namespace": "default"},
        },
    }


def _line(n: int, text: str) -> dict[str, Any]:
    return {
        "insertId": f"line-{n}",
        "logName": "projects/p/logs/stderr",
        "timestamp": f"2026-01-01T00:1{n}:00Z",
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {"pod_name": POD, "container_name": "jax", "namespace_name": "default"},
        },
        "labels": {
            "compute.googleapis.com/resource_name": "gke-tpu-a-0001",
            "k8s-pod/jobset_sigs_k8s_io/jobset-name": WORKLOAD,
        },
        "textPayload": text,
    }


def _run(
    wiki: Wiki, tmp_path: Path, workflow: str, entries: list[dict[str, Any]]
) -> dict[str, Any]:
    bundle = tmp_path / f"{workflow}.json"
    bundle.write_text(json.dumps(entries), encoding="utf-8")
    session = LogSession.from_bundle(bundle)
    return run_workflow(wiki, workflow, dict(WINDOW), session).to_dict(with_entries=False)


def test_pvc_unbound_is_confirmed_with_its_storage_class(wiki: Wiki, tmp_path: Path) -> None:
    run = _run(
        wiki,
        tmp_path,
        "verify-pvc-unbound",
        [
            _event(1, "FailedScheduling", PVC_EVENT),
            _event(
                2,
                "ProvisioningFailed",
                'storageclass.storage.k8s.io "fast" not found',
                kind="PersistentVolumeClaim",
                name=f"data-{WORKLOAD}-0",
            ),
        ],
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["storage_class"] == ["fast"]


def test_crash_loop_names_the_container_and_other_events_refute(wiki: Wiki, tmp_path: Path) -> None:
    looping = _run(
        wiki,
        tmp_path,
        "verify-container-crash-loop",
        [
            _event(
                1, "BackOff", f"Back-off restarting failed container jax in pod {POD}_default(1a)"
            ),
        ],
    )
    assert looping["verdict"] == "confirmed"
    assert looping["outputs"]["container"] == ["jax"]
    healthy = _run(
        wiki,
        tmp_path,
        "verify-container-crash-loop",
        [
            _event(1, "Scheduled", f"Successfully assigned default/{POD} to gke-tpu-a-0001"),
        ],
    )
    assert healthy["verdict"] == "refuted"


def test_application_exception_is_confirmed_on_the_pod_that_raised(
    wiki: Wiki, tmp_path: Path
) -> None:
    run = _run(
        wiki,
        tmp_path,
        "verify-application-exception",
        [
            _line(1, "Traceback (most recent call last):"),
            _line(2, "KeyError: 'gke-cluster-1-pool-1-9a9ea7a4-v23m'"),
        ],
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["culprit_host"] == "gke-tpu-a-0001"
    assert "KeyError" in run["outputs"]["exception"]


def test_tpu_api_permission_names_the_permission(wiki: Wiki, tmp_path: Path) -> None:
    run = _run(
        wiki,
        tmp_path,
        "verify-tpu-api-permission-denied",
        [
            _line(
                1,
                "googleapiclient.errors.HttpError: <HttpError 403 when requesting "
                "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n?alt=json returned "
                "\"Permission 'tpu.nodes.get' denied on 'projects/p/locations/z/nodes/n'\">",
            ),
        ],
    )
    assert run["verdict"] == "confirmed"
    assert run["outputs"]["permission"] == ["tpu.nodes.get"]


def test_signatures_compile_and_no_new_page_matches_a_healthy_line(wiki: Wiki) -> None:
    healthy = [
        "completed step: 4, seconds: 11.645, TFLOP/s/device: 194.526, loss: 9.610",
        f"Successfully assigned default/{POD} to gke-tpu-a-0001",
        "Started container jax",
        "waiting for first consumer to be created before binding",
        "Saved checkpoint for step 2000",
        "Readiness probe succeeded",
        "INFO: Connected to dataset-server.data:8080",
    ]
    assert_no_signature_matches(wiki, ROLES, healthy)
