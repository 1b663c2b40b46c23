"""Issue #12's pages for failure modes the wiki had no page for, through the public loader, engine
and pipeline.

Scheduler priority preemption (told apart from Kueue's eviction), TLS certificate failures, a
LeaderWorkerSet recreating a group, Ray worker/actor/node deaths, Cloud Storage FUSE mounts. Every
page written for a failure mode that had none (these five and the later ones, NEW_PAGES) is checked
here once: its TAXONOMY role and layer (SCHEMA.md's table), every section, real cited examples
from several threads and counter-examples that no page but their owner matches. These five also
have a read-only verification workflow that confirms on its own
evidence and refutes without it. The diagnosis names the deeper of two roots that match one line
(a certificate check inside a connect error, the Cloud Storage FUSE driver's reason inside a
generic mount refusal) and follows a group recreation or a Ray death to the root on the pod it
names.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from mlwiki.diagnose.pipeline import diagnose
from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.engine.workflows import run_workflow
from mlwiki.logs.session import LogSession
from mlwiki.wiki import Wiki, load_wiki
from tests.conftest import (
    WIKI_ROOT,
    assert_no_signature_matches,
    assert_read_only_verification,
)
from tests.test_knowledge_workloads import SECTIONS

ROLES = {
    "pod-preempted-by-priority": "root",
    "tls-certificate-error": "root",
    "leaderworkerset-restarts": "consequence",
    "ray-worker-died": "symptom",
    "gcsfuse-mount-failure": "root",
}
# Every page written for a failure mode that had none (issue #12), with its role and layer: this
# module's first five, held to several sources, and the later ones, held to ten real lines from
# six sources and four look-alikes. Each page's own module tests only what is particular to it.
NEW_PAGES = {
    "pod-preempted-by-priority": ("root", "orchestrator"),
    "tls-certificate-error": ("root", "infra"),
    "leaderworkerset-restarts": ("consequence", "orchestrator"),
    "ray-worker-died": ("symptom", "framework"),
    "gcsfuse-mount-failure": ("root", "infra"),
    "grpc-message-too-large": ("root", "framework"),
    "local-disk-full": ("root", "infra"),
    "os-resource-limit": ("root", "infra"),
    "port-already-in-use": ("root", "framework"),
    "kube-rbac-forbidden": ("root", "orchestrator"),
    "kube-apiserver-unavailable": ("root", "orchestrator"),
    "input-pipeline-failure": ("root", "application"),
    "python-dependency-error": ("root", "application"),
    "gcp-credentials-failure": ("root", "infra"),
    "gcp-api-permission-denied": ("root", "infra"),
    "vm-create-invalid-config": ("root", "infra"),
    "collective-system-error": ("symptom", "framework"),
    "os-package-install-failure": ("root", "application"),
    "ray-job-submission-failed": ("symptom", "orchestrator"),
    "kueue-workload-evicted": ("consequence", "orchestrator"),
    "kube-api-schema-mismatch": ("root", "orchestrator"),
}
FIRST_BAR = (5, 3, 3)  # examples, counter-examples, distinct sources
BAR = (10, 4, 6)
WIKI = load_wiki(WIKI_ROOT)
SIGNATURES = SignatureSet(WIKI.symptoms.values())
T0 = datetime(2026, 6, 1, 8, 0, tzinfo=timezone.utc)
NODES = [f"gke-tpu-pool-7c1d2e3f-{n:04d}" for n in range(4)]
WINDOW = {"start": "2026-06-01T07:00:00Z", "end": "2026-06-01T10:00:00Z"}


@pytest.fixture(scope="module")
def wiki() -> Wiki:
    return WIKI


def matched(line: str) -> set[str]:
    return {raw.signature.symptom for raw in SIGNATURES.scan_text(line)}


# ---- the pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("symptom_id", sorted(NEW_PAGES))
def test_page_has_its_role_sections_and_real_cited_examples(wiki: Wiki, symptom_id: str) -> None:
    symptom = wiki.symptoms[symptom_id]
    assert (symptom.role, symptom.layer) == NEW_PAGES[symptom_id]
    assert symptom.workflow == f"verify-{symptom_id}"
    assert re.findall(r"(?m)^## (.+?)\s*$", symptom.page.body) == SECTIONS
    examples, counters, sources = FIRST_BAR if symptom_id in ROLES else BAR
    assert len(symptom.examples) >= examples and len(symptom.counter_examples) >= counters
    assert len({e.source for e in symptom.examples}) >= sources  # many threads, not one
    for example in symptom.examples:
        assert example.source.startswith("https://"), example


@pytest.mark.parametrize("symptom_id", sorted(NEW_PAGES))
def test_examples_match_and_counter_examples_only_match_their_owner(
    wiki: Wiki, symptom_id: str
) -> None:
    symptom = wiki.symptoms[symptom_id]
    for example in symptom.examples:
        if example.field is None:
            assert symptom_id in matched(example.line), example.line
    for counter in symptom.counter_examples:
        assert matched(counter.line) <= set(counter.belongs_to), counter.line


@pytest.mark.parametrize(
    "line, page",
    [
        # every release's wording of the scheduler's Preempted event and condition
        (
            "Preempted by pod 3f2c1e5a-7b1d-4c2e-9a55-0d1e2f3a4b5c on node gke-a-0001",
            "pod-preempted-by-priority",
        ),
        ("Preempted by ml/serving-hi-7d9f on node gke-a-0001", "pod-preempted-by-priority"),
        ("by ml/serving-hi-7d9f on node gke-a-0001", "pod-preempted-by-priority"),
        (
            "message: 'default-scheduler: preempting to accommodate a higher priority pod'",
            "pod-preempted-by-priority",
        ),
        ("reason: PreemptionByKubeScheduler", "pod-preempted-by-priority"),
        # one certificate check, many stacks
        (
            'Post "https://metadata.internal/v1/run": tls: failed to verify certificate: x509: certificate signed by unknown authority',
            "tls-certificate-error",
        ),
        (
            "x509: certificate is valid for ingress.local, not mlflow.internal",
            "tls-certificate-error",
        ),
        (
            "http: TLS handshake error from 10.4.0.9:40112: remote error: tls: bad certificate",
            "tls-certificate-error",
        ),
        (
            "fatal: unable to access 'https://git.internal/ml.git/': SSL certificate problem: self signed certificate in certificate chain",
            "tls-certificate-error",
        ),
        (
            "curl: (51) SSL: no alternative certificate subject name matches target host name 'data.internal'",
            "tls-certificate-error",
        ),
        (
            "System.Security.Authentication.AuthenticationException: The remote certificate is invalid because of errors in the certificate chain: UntrustedRoot",
            "tls-certificate-error",
        ),
        (
            "error sending request for url (https://data.internal/): invalid peer certificate: UnknownIssuer",
            "tls-certificate-error",
        ),
        # the group recreation in each release
        (
            "Worker pod llm-serve-0-1 failed, deleted leader pod llm-serve-0 to recreate group 0",
            "leaderworkerset-restarts",
        ),
        # Ray deaths
        (
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
            "ray-worker-died",
        ),
        ("The actor died because its node has died. Node Id: 6f3e", "ray-worker-died"),
        ("ray.exceptions.NodeDiedError: Task failed due to the node dying.", "ray-worker-died"),
        # Cloud Storage FUSE
        (
            'MountVolume.SetUp failed for volume "gcs-fuse-csi-ephemeral" : rpc error: code = NotFound desc = gcsfuse failed with error: Error in iterating through objects: storage: bucket doesn\'t exist',
            "gcsfuse-mount-failure",
        ),
        (
            'MountVolume.SetUp failed for volume "ckpt" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name gcsfuse.csi.storage.gke.io not found in the list of registered CSI drivers',
            "gcsfuse-mount-failure",
        ),
        (
            "ls: cannot access '/gcs/ckpt': Transport endpoint is not connected",
            "gcsfuse-mount-failure",
        ),
        (
            'the "gke-gcsfuse-sidecar" container terminated due to OOMKilled, exit code: 137',
            "gcsfuse-mount-failure",
        ),
        # Ray's OOM kill is host memory
        (
            "(raylet) 2 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 2c, IP: 10.0.0.4) over the last time period.",
            "host-oom-killed",
        ),
    ],
)
def test_every_rendering_of_a_family_matches_it(line: str, page: str) -> None:
    assert page in matched(line), line


@pytest.mark.parametrize(
    "line, page",
    [
        # the preemptor's own FailedScheduling frame, and Kueue's eviction
        (
            "0/8 nodes are available: 8 Insufficient google.com/tpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod.",
            "pod-preempted-by-priority",
        ),
        (
            "Preempted to accommodate a workload (UID: 9f54, JobUID: a20d) due to prioritization in the ClusterQueue",
            "pod-preempted-by-priority",
        ),
        ("Preempted by pod 3f2c on node gke-a-0001", "kueue-preemption"),
        # a handshake that timed out, verification switched off, a plaintext peer
        ("net/http: TLS handshake timeout", "tls-certificate-error"),
        (
            "InsecureRequestWarning: Unverified HTTPS request is being made to host 'x'.",
            "tls-certificate-error",
        ),
        (
            "Handshake failed with fatal error SSL_ERROR_SSL: error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER.",
            "tls-certificate-error",
        ),
        # an LWS spec and its progress events
        ("  restartPolicy: RecreateGroupOnPodRestart", "leaderworkerset-restarts"),
        (
            "Replicas are progressing, with 1 groups ready of total 2 groups",
            "leaderworkerset-restarts",
        ),
        # Ray exits on purpose, a socket's ENOTCONN, gcsfuse's progress lines
        ("Worker exit type: INTENDED_USER_EXIT", "ray-worker-died"),
        (
            "ray.exceptions.RayActorError: The actor is dead because it was killed by `ray.kill`.",
            "ray-worker-died",
        ),
        ("OSError: [Errno 107] Transport endpoint is not connected", "gcsfuse-mount-failure"),
        (
            '2022/12/19 18:37:56.793857 Mounting file system "my-gcs-storage"...',
            "gcsfuse-mount-failure",
        ),
        (
            "(raylet) 0 Workers (tasks / actors) killed due to memory pressure (OOM), 1 Workers crashed due to other reasons",
            "host-oom-killed",
        ),
    ],
)
def test_a_look_alike_of_a_family_does_not_match_it(line: str, page: str) -> None:
    assert page not in matched(line), line


def test_no_new_page_matches_a_healthy_line(wiki: Wiki) -> None:
    healthy = [
        "completed step: 4, seconds: 11.645, TFLOP/s/device: 194.526, loss: 9.610",
        "Successfully assigned default/llm-serve-0 to gke-tpu-pool-7c1d2e3f-0001",
        "Created worker statefulset for leader pod llm-serve-0",
        "All replicas are ready, with 2 groups ready of total 2 groups",
        'I0420 21:27:15.442189       1 sidecar_mounter.go:71] start to mount bucket "ckpt" for volume "gcs"',
        "File system has been successfully mounted.",
        "Started a local Ray instance. View the dashboard at 127.0.0.1:8265",
        "Certificate is up to date and has not expired",
        "The JAX preemption service is disabled.",
    ]
    assert_no_signature_matches(wiki, ROLES, healthy)


# ---- the verification workflows, offline, through the real engine ---------------------------


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _event(
    n: int, seconds: float, name: str, reason: str, message: str, kind: str = "Pod", node: int = 0
) -> dict[str, Any]:
    return {
        "insertId": f"ev{n}",
        "logName": "projects/p/logs/events",
        "timestamp": _at(seconds),
        "severity": "WARNING",
        "resource": {"type": "k8s_pod", "labels": {"pod_name": name, "namespace_name": "default"}},
        "jsonPayload": {
            "reason": reason,
            "message": message,
            "type": "Warning",
            "source": {"component": "kubelet", "host": NODES[node]},
            "involvedObject": {"kind": kind, "name": name, "namespace": "default"},
        },
    }


def _line(
    n: int, seconds: float, pod: str, text: str, node: int = 0, container: str = "main"
) -> dict[str, Any]:
    return {
        "insertId": f"ln{n}",
        "logName": "projects/p/logs/stderr",
        "timestamp": _at(seconds),
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {"pod_name": pod, "container_name": container, "namespace_name": "default"},
        },
        "labels": {"compute.googleapis.com/resource_name": NODES[node]},
        "textPayload": text,
    }


def _bundle(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(entries), encoding="utf-8")
    return bundle


def _verify(tmp_path: Path, workflow: str, workload: str, entries: list[dict[str, Any]]) -> dict:
    session = LogSession.from_bundle(_bundle(tmp_path, entries))
    params = {"workload": workload, **WINDOW}
    return run_workflow(WIKI, workflow, params, session).to_dict(with_entries=False)


@pytest.mark.parametrize("symptom_id", sorted(NEW_PAGES))
def test_verification_workflow_is_valid_and_read_only(wiki: Wiki, symptom_id: str) -> None:
    assert_read_only_verification(wiki, symptom_id)


PREEMPTED = "Preempted by pod 3f2c1e5a-7b1d-4c2e-9a55-0d1e2f3a4b5c on node " + NODES[1]


def test_scheduler_preemption_is_confirmed_with_its_preemptor_and_refuted_without(
    tmp_path: Path,
) -> None:
    pod = "llm-pretrain-slice-job-0-1-x7k2p"
    run = _verify(
        tmp_path,
        "verify-pod-preempted-by-priority",
        "llm-pretrain",
        [_event(1, 0, pod, "Preempted", PREEMPTED, node=1)],
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["preemptor"] == ["3f2c1e5a-7b1d-4c2e-9a55-0d1e2f3a4b5c"]
    other = _verify(
        tmp_path,
        "verify-pod-preempted-by-priority",
        "llm-pretrain",
        [_event(1, 0, pod, "Scheduled", f"Successfully assigned default/{pod} to {NODES[1]}")],
    )
    assert other["verdict"] == "refuted", other


def test_a_group_recreation_names_the_pod_that_failed(tmp_path: Path) -> None:
    message = "Worker pod llm-serve-0-1 failed, deleted leader pod llm-serve-0 to recreate group 0"
    run = _verify(
        tmp_path,
        "verify-leaderworkerset-restarts",
        "llm-serve",
        [_event(1, 0, "llm-serve", "RecreateGroup", message, kind="LeaderWorkerSet")],
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["failed_pod"] == ["llm-serve-0-1"]


def test_a_tls_failure_names_the_check_and_an_unrelated_log_refutes(tmp_path: Path) -> None:
    pod = "llm-pretrain-slice-job-0-0-abcde"
    line = (
        "requests.exceptions.SSLError: HTTPSConnectionPool(host='mlflow.internal', port=443): "
        "Max retries exceeded with url: /api (Caused by SSLError(SSLCertVerificationError(1, "
        "'[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer "
        "certificate (_ssl.c:1006)')))"
    )
    run = _verify(
        tmp_path, "verify-tls-certificate-error", "llm-pretrain", [_line(1, 0, pod, line)]
    )
    assert run["verdict"] == "confirmed", run
    assert "unable to get local issuer certificate" in run["outputs"]["check"]
    assert run["outputs"]["culprit_host"] == NODES[0]
    healthy = _verify(
        tmp_path,
        "verify-tls-certificate-error",
        "llm-pretrain",
        [_line(1, 0, pod, "completed step: 4, loss: 9.610")],
    )
    assert healthy["verdict"] == "refuted", healthy


def test_a_ray_death_names_the_worker_exit_type(tmp_path: Path) -> None:
    line = (
        "A worker died or was killed while executing a task by an unexpected system error. "
        "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a "
        "connection error code 2. End of file."
    )
    run = _verify(
        tmp_path, "verify-ray-worker-died", "rl-train", [_line(1, 0, "rl-train-head-8x2vq", line)]
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["exit_type"] == ["SYSTEM_ERROR"]


GCSFUSE_DENIED = (
    'MountVolume.SetUp failed for volume "gcs-fuse-csi-ephemeral" : rpc error: code = '
    "PermissionDenied desc = the sidecar container failed with error: mountWithArgs: "
    "mountWithStorageHandle: fs.NewServer: create file system: SetUpBucket: Error in iterating "
    "through objects: googleapi: Error 403: Caller does not have storage.objects.list access to "
    "the Google Cloud Storage bucket. Permission 'storage.objects.list' denied on resource (or it "
    "may not exist)., forbidden"
)


def test_a_gcsfuse_mount_is_confirmed_from_events_or_container_logs(tmp_path: Path) -> None:
    pod = "llm-pretrain-slice-job-0-0-abcde"
    mount = _verify(
        tmp_path,
        "verify-gcsfuse-mount-failure",
        "llm-pretrain",
        [_event(1, 0, pod, "FailedMount", GCSFUSE_DENIED)],
    )
    assert mount["verdict"] == "confirmed", mount
    assert mount["outputs"]["volume"] == ["gcs-fuse-csi-ephemeral"]
    dead = _verify(
        tmp_path,
        "verify-gcsfuse-mount-failure",
        "llm-pretrain",
        [
            _line(
                1,
                0,
                pod,
                "OSError: [Errno 107] Transport endpoint is not connected: '/gcs/ckpt/step_100'",
            )
        ],
    )
    assert dead["verdict"] == "confirmed", dead
    other = _verify(
        tmp_path,
        "verify-gcsfuse-mount-failure",
        "llm-pretrain",
        [_event(1, 0, pod, "Scheduled", f"Successfully assigned default/{pod} to {NODES[0]}")],
    )
    assert other["verdict"] == "refuted", other


# ---- the diagnosis ---------------------------------------------------------------------------


def _diagnose(tmp_path: Path, workload: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return diagnose(workload, bundle=_bundle(tmp_path, entries), wiki=WIKI, verify=False).findings


def _jobset_pods(workload: str) -> list[str]:
    return [f"{workload}-slice-job-0-{i}-p{i}q{i}r" for i in range(4)]


def _training(workload: str, until: float) -> list[dict[str, Any]]:
    lines = []
    for i, pod in enumerate(_jobset_pods(workload)):
        for step in range(int(until // 10)):
            lines.append(
                _line(
                    1000 * i + step,
                    10 * step,
                    pod,
                    f"completed step: {step}, seconds: 10.0, loss: 2.{step:03d}",
                    node=i,
                )
            )
    return lines


def test_a_scheduler_preemption_is_the_root_and_not_kueue(tmp_path: Path) -> None:
    """Two pods of a JobSet preempted by the scheduler: the root is the scheduler's preemption on
    the victims' nodes, never Kueue's eviction (which words it `Preempted to accommodate …`)."""
    workload = "llm-pretrain"
    pods = _jobset_pods(workload)
    entries = _training(workload, 60)
    for n, i in enumerate((1, 2)):
        message = f"Preempted by pod 9d1c-{i} on node {NODES[i]}"
        entries.append(_event(n, 61 + n, pods[i], "Preempted", message, node=i))
    entries.append(
        _event(
            7,
            70,
            "llm-pretrain",
            "RestartJobSetFailurePolicyAction",
            "applying RestartJobSet failure policy action",
            kind="JobSet",
        )
    )
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "pod-preempted-by-priority"
    assert "kueue-preemption" not in {e["symptom"] for e in findings["evidence"]}
    assert {c["host"] for c in findings["culprit_hosts"]} <= {NODES[1], NODES[2]}


def test_a_certificate_check_inside_a_connect_error_is_the_root(tmp_path: Path) -> None:
    """gRPC's `failed to connect to all addresses` also matches dependency-unreachable; the
    certificate check it quotes is the deeper reason and names the root."""
    workload = "llm-pretrain"
    pod = _jobset_pods(workload)[0]
    entries = [
        _line(1, 0, pod, "Traceback (most recent call last):"),
        _line(2, 0.0002, pod, '  File "/app/train.py", line 40, in <module>'),
        _line(
            3,
            0.0004,
            pod,
            "grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with: "
            'status = StatusCode.UNAVAILABLE details = "failed to connect to all addresses; last '
            "error: UNKNOWN: ipv4:10.0.0.5:443: Ssl handshake failed: SSL_ERROR_SSL: "
            'error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED">',
        ),
        _event(9, 5, pod, "BackOff", f"Back-off restarting failed container main in pod {pod}"),
    ]
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "tls-certificate-error"
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[0]]


def test_a_registry_certificate_stays_an_image_pull_failure(tmp_path: Path) -> None:
    pod = "tokenizer-job"
    image = "registry.internal/ml/tokenizer:2.7"
    pull = (
        f'Failed to pull image "{image}": rpc error: code = Unknown desc = failed to pull and '
        f'unpack image "{image}": failed to resolve reference "{image}": failed to do request: '
        'Head "https://registry.internal/v2/ml/tokenizer/manifests/2.7": x509: certificate '
        "signed by unknown authority"
    )
    entries = [
        _event(1, 0, pod, "Failed", pull),
        _event(2, 5, pod, "BackOff", f'Back-off pulling image "{image}"'),
    ]
    findings = _diagnose(tmp_path, "tokenizer-job", entries)
    assert findings["root_cause"]["symptom"] == "image-pull-failure"


def test_a_gcsfuse_mount_refusal_is_the_root_over_the_generic_mount_page(tmp_path: Path) -> None:
    workload = "llm-pretrain"
    pods = _jobset_pods(workload)
    entries = [
        _event(n, 30 * n, pods[n % 4], "FailedMount", GCSFUSE_DENIED, node=n % 4) for n in range(8)
    ]
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "gcsfuse-mount-failure"


def test_a_group_recreation_is_followed_to_the_oom_on_the_pod_it_names(tmp_path: Path) -> None:
    """The LWS event is the consequence; the root is the OOM kill on the worker pod it names."""
    entries = []
    pods = {"llm-serve-0": 0, "llm-serve-0-1": 1, "llm-serve-1": 2, "llm-serve-1-1": 3}
    for n, (pod, node) in enumerate(pods.items()):
        entries += [
            _line(100 * n + k, 10 * k, pod, f"served batch {k}", node=node) for k in range(6)
        ]
    entries.append(
        _line(
            900,
            61,
            "llm-serve-0-1",
            "Memory cgroup out of memory: Killed process 4242 "
            "(python3) total-vm:81234567kB, anon-rss:61234567kB",
            node=1,
        )
    )
    message = "Worker pod llm-serve-0-1 failed, deleted leader pod llm-serve-0 to recreate group 0"
    entries.append(_event(1, 62, "llm-serve", "RecreateGroup", message, kind="LeaderWorkerSet"))
    findings = _diagnose(tmp_path, "llm-serve", entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "host-oom-killed"
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[1]]
    assert "leaderworkerset-restarts" in {e["symptom"] for e in findings["evidence"]}


def test_a_ray_actor_death_is_followed_to_ray_s_oom_kill(tmp_path: Path) -> None:
    """The driver says the actor died (a symptom); the raylet's memory monitor on that host says
    why (host-oom-killed)."""
    head, worker = "rl-train-head-8x2vq", "rl-train-worker-tpu-5kq2z"
    entries = [_line(k, 10 * k, head, f"Iteration {k}: reward 0.{k}") for k in range(6)]
    entries.append(
        _line(
            50,
            60,
            worker,
            "ray.exceptions.OutOfMemoryError: Task was killed due to the node "
            "running low on memory.",
            node=2,
        )
    )
    entries.append(
        _line(
            51,
            61,
            head,
            "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
        )
    )
    findings = _diagnose(tmp_path, "rl-train", entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "host-oom-killed"
    assert "ray-worker-died" in {e["symptom"] for e in findings["evidence"]}


def test_a_webhook_call_refused_for_its_certificate_names_the_certificate(tmp_path: Path) -> None:
    """The API server could not call the webhook because it does not trust its certificate:
    admission-webhook-denied matches the frame, the certificate check is the reason."""
    job = "llm-pretrain-slice-job-0"
    message = (
        'Error creating: Internal error occurred: failed calling webhook "mpod.kb.io": failed to '
        'call webhook: Post "https://jobset-webhook-service.jobset-system.svc:443/mutate--v1-pod'
        '?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown '
        'authority (possibly because of "crypto/rsa: verification error" while trying to verify '
        'candidate authority certificate "jobset-ca")'
    )
    assert {"admission-webhook-denied", "tls-certificate-error"} <= matched(message)
    entries = [_event(n, 30 * n, job, "FailedCreate", message, kind="Job") for n in range(4)]
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "tls-certificate-error", findings["summary"]


def test_the_kubelet_s_critical_pod_preemption_is_named_by_its_priority(tmp_path: Path) -> None:
    """The kubelet frees its node for a system-critical pod: pod-evicted-node-pressure matches
    the node's side of it, the priority is the reason and names the root."""
    workload = "llm-pretrain"
    pods = _jobset_pods(workload)
    entries = _training(workload, 60)
    status = "Status:         Failed\nReason:         Preempting\nMessage:        Preempted in order to admit critical pod"
    assert {"pod-evicted-node-pressure", "pod-preempted-by-priority"} <= matched(status)
    entries.append(
        _event(1, 61, pods[3], "Preempting", "Preempted in order to admit critical pod", node=3)
    )
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["root_cause"]["symptom"] == "pod-preempted-by-priority", findings["summary"]
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[3]]


@pytest.mark.parametrize("workflow", ["verify-tls-certificate-error", "verify-ray-worker-died"])
def test_no_container_log_at_all_is_inconclusive_not_refuted(tmp_path: Path, workflow: str) -> None:
    """A window with no container line (pods never started, logs not exported) shows nothing
    either way: only a workload that logged and printed none of the page's lines refutes it."""
    pod = "rl-train-head-8x2vq"
    run = _verify(
        tmp_path,
        workflow,
        "rl-train",
        [_event(1, 0, pod, "Scheduled", f"Successfully assigned default/{pod} to {NODES[0]}")],
    )
    assert run["verdict"] == "inconclusive", run
    logged = _verify(tmp_path, workflow, "rl-train", [_line(1, 0, pod, "Iteration 3: reward 0.4")])
    assert logged["verdict"] == "refuted", logged
