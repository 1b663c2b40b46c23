"""The Kubernetes control-plane pages, through the public loader, matcher and workflow engine:
an identity denied by RBAC (kube-rbac-forbidden) and the API server or etcd unavailable
(kube-apiserver-unavailable).

The structure every new page shares (role, sections, real cited examples, counter-examples, a
read-only verification) is tested once in tests/test_new_failure_pages.py; here each family holds
the wordings its emitter can produce (other releases, other clients' quoting, a zap or klog JSON
line's `error`/`err` field). Lines that share a neighbour's frame are told apart by the reason
inside it: an `is forbidden:` with an admission reason stays admission-webhook-denied, a
certificate refused by kubectl stays tls-certificate-error, and a connect error to a Kubernetes API
path, which dependency-unreachable's family matches too, is explained by the API server's page. The
verification workflows confirm on their own evidence, in the controllers' namespaces too, and
refute without.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.engine.workflows import run_workflow
from mlwiki.logs.session import LogSession
from mlwiki.wiki import load_wiki
from tests.conftest import WIKI_ROOT

WIKI = load_wiki(WIKI_ROOT)
SIGNATURES = SignatureSet(WIKI.symptoms.values())
WINDOW = {"start": "2026-06-01T07:00:00Z", "end": "2026-06-01T10:00:00Z"}
WORKLOAD = "llm-pretrain"


def matched(line: str) -> set[str]:
    return {raw.signature.symptom for raw in SIGNATURES.scan_text(line)}


@pytest.mark.parametrize(
    "line",
    [
        # every scope of the API server's sentence, and an identity of each kind
        'pods is forbidden: User "system:serviceaccount:ml:trainer" cannot list resource "pods" in API group "" in the namespace "ml"',
        'workloads.kueue.x-k8s.io is forbidden: User "system:serviceaccount:kueue-system:kueue-controller-manager" cannot watch resource "workloads" in API group "kueue.x-k8s.io" at the cluster scope',
        'leaderworkersets.leaderworkerset.x-k8s.io "serve" is forbidden: User "system:serviceaccount:lws-system:lws-controller-manager" cannot patch resource "leaderworkersets/status" in API group "leaderworkerset.x-k8s.io" in the namespace "default"',
        'configmaps "kube-root-ca.crt" is forbidden: User "system:node:gke-tpu-pool-7c1d2e3f-0001" cannot get resource "configmaps" in API group "" in the namespace "ml": no relationship found between node \'gke-tpu-pool-7c1d2e3f-0001\' and this object',
        'forbidden: User "system:anonymous" cannot get path "/api"',
        # GKE's IAM suffix, the Python client's escaped body, klog's JSON err
        'pods is forbidden: User "trainer@proj.iam.gserviceaccount.com" cannot list resource "pods" in API group "" in the namespace "ml": requires one of ["container.pods.list"] permission(s).',
        '{"kind":"Status","message":"pods is forbidden: User \\"system:serviceaccount:ml:default\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace \\"ml\\"","reason":"Forbidden","code":403}',
        "Forbidden (user=system:serviceaccount:monitoring:prometheus, verb=get, resource=nodes, subresource=metrics)",
        'workloads.kueue.x-k8s.io "job-sample-0b1c2" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
        "the server does not allow access to the requested resource (get pods)",
    ],
)
def test_every_rendering_of_a_denial_is_kube_rbac_forbidden(line: str) -> None:
    assert "kube-rbac-forbidden" in matched(line), line


@pytest.mark.parametrize(
    "line, owner",
    [
        # an admission reason in the same frame: the object was refused, not the caller
        (
            'pods "llm-pretrain-slice-job-0-0-abcde" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false',
            "admission-webhook-denied",
        ),
        (
            'Error creating: pods "llm-pretrain-slice-job-0-0-abcde" is forbidden: exceeded quota: tpu-quota, requested: google.com/tpu=4, used: google.com/tpu=16, limited: google.com/tpu=16',
            "admission-webhook-denied",
        ),
        (
            'admission webhook "mjobset.kb.io" denied the request: queue doesn\'t exist',
            "admission-webhook-denied",
        ),
        # Cloud IAM is not Kubernetes RBAC
        (
            "googleapi: Error 403: Caller does not have storage.objects.create access to the Google Cloud Storage object., forbidden",
            "checkpoint-gcs-permission",
        ),
    ],
)
def test_a_neighbours_forbidden_stays_the_neighbours(line: str, owner: str) -> None:
    found = matched(line)
    assert owner in found and "kube-rbac-forbidden" not in found, (line, found)


@pytest.mark.parametrize(
    "line",
    [
        "etcdserver: request timed out, possibly due to previous leader failure",
        'Error from server: error when creating "jobset.yaml": etcdserver: request timed out',
        "E0601 08:00:01.000000       1 controller.go:114] failed to update workload: etcdserver: mvcc: database space exceeded",
        "Error from server (ServiceUnavailable): the server is currently unable to handle the request",
        "the server is currently unable to handle the request (get jobsets.jobset.x-k8s.io llm-pretrain)",
        "Error from server (Timeout): the server was unable to return a response in the time allotted, but may still be processing the request (get pods)",
        "the server has received too many requests and has asked us to try again later (post workloads.kueue.x-k8s.io)",
        'Post "https://34.118.224.1:443/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets": dial tcp 34.118.224.1:443: i/o timeout',
        'Get "https://kubernetes.default.svc/api/v1/namespaces/default/pods?labelSelector=job%3Dllm": EOF',
        "failed to renew lease kueue-system/c1f6bfd2.kueue.x-k8s.io: context deadline exceeded",
        "Unable to connect to the server: dial tcp 34.118.224.1:443: connect: connection refused",
        "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='34.118.224.1', port=443): Max retries exceeded with url: /api/v1/namespaces/default/pods?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dllm-pretrain (Caused by ConnectTimeoutError(<urllib3.connection.HTTPSConnection object at 0x7f>, 'Connection to 34.118.224.1 timed out. (connect timeout=None)'))",
    ],
)
def test_every_rendering_of_an_unavailable_api_server_matches(line: str) -> None:
    assert "kube-apiserver-unavailable" in matched(line), line


@pytest.mark.parametrize(
    "line",
    [
        # the client relists on its own, an aggregated API, a probe, another service
        "W0601 08:00:01.000000       1 reflector.go:462] watch of *v1.Pod ended with: very short watch: k8s.io/client-go/informers/factory.go:150: Unexpected watch close - watch lasted less than a second and no items received",
        "etcdserver: mvcc: required revision has been compacted",
        "etcdserver: request is too large",
        "couldn't get resource list for metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
        "unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)",
        'Get "http://mlflow.internal:5000/api/2.0/mlflow/runs/get": dial tcp 10.0.0.5:5000: connect: connection refused',
        "I0601 08:00:01.000000       1 request.go:697] Waited for 1.0448s due to client-side throttling, not priority and fairness, request: GET:https://34.118.224.1:443/api/v1/pods",
    ],
)
def test_a_look_alike_is_not_an_unavailable_api_server(line: str) -> None:
    assert "kube-apiserver-unavailable" not in matched(line), line


def test_healthy_rbac_lines_match_no_root() -> None:
    healthy = [
        "clusterrolebinding.rbac.authorization.k8s.io/jobset-manager-rolebinding created",
        "role.rbac.authorization.k8s.io/trainer-pod-reader unchanged",
        "yes",
        "I0601 08:00:01.000000       1 leaderelection.go:258] successfully acquired lease jobset-system/6d4f6a47.x-k8s.io",
        'Warning: resource pods "x" is forbidden to be updated in place; recreating',
    ]
    roots = {sid for sid, page in WIKI.symptoms.items() if page.role == "root"}
    for line in healthy:
        assert not matched(line) & roots, line


# ---- the verification workflow, offline, through the real engine ---------------------------


def _container(n: int, namespace: str, pod: str, payload: dict[str, Any] | str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "insertId": f"c{n}",
        "timestamp": f"2026-06-01T08:00:{n:02d}Z",
        "logName": "projects/p/logs/stderr",
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {"namespace_name": namespace, "pod_name": pod, "container_name": "manager"},
        },
    }
    entry["textPayload" if isinstance(payload, str) else "jsonPayload"] = payload
    return entry


def _verify(tmp_path: Path, workflow: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(entries), encoding="utf-8")
    params = {"workload": WORKLOAD, **WINDOW}
    session = LogSession.from_bundle(bundle)
    return run_workflow(WIKI, workflow, params, session).to_dict(with_entries=False)


JOBSET_DENIED = (
    'jobs.batch "llm-pretrain-slice-job-0" is forbidden: User '
    '"system:serviceaccount:jobset-system:jobset-controller-manager" cannot update resource '
    '"jobs/status" in API group "batch" in the namespace "default"'
)


def test_a_controllers_denial_is_confirmed_from_its_own_namespace(tmp_path: Path) -> None:
    """The JobSet controller's zap line (the denial in `jsonPayload.error`) is found in
    jobset-system although it names no pod of the workload; the identity and call are named."""
    controller = _container(
        1,
        "jobset-system",
        "jobset-controller-manager-6c9f8d7b5-x2k4q",
        {"level": "error", "msg": "resuming jobset", "error": JOBSET_DENIED},
    )
    run = _verify(tmp_path, "verify-kube-rbac-forbidden", [controller])
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["identity"] == [
        "system:serviceaccount:jobset-system:jobset-controller-manager"
    ]
    assert (run["outputs"]["verb"], run["outputs"]["resource"]) == (["update"], ["jobs/status"])


def test_a_denial_elsewhere_or_none_refutes(tmp_path: Path) -> None:
    trainer = _container(1, "default", f"{WORKLOAD}-slice-job-0-0-abcde", "completed step: 4")
    # An unrelated namespace's agent lacking a role is not this workload's failure.
    agent = _container(
        2,
        "monitoring",
        "node-exporter-7x2k4",
        'nodes is forbidden: User "system:serviceaccount:monitoring:exporter" cannot list '
        'resource "nodes" in API group "" at the cluster scope',
    )
    run = _verify(tmp_path, "verify-kube-rbac-forbidden", [trainer, agent])
    assert run["verdict"] == "refuted", run


def test_an_api_server_outage_is_confirmed_from_a_controller_and_a_node(tmp_path: Path) -> None:
    """Kueue's lease renewal in kueue-system and a kubelet's status update are both found; the
    failure kinds are named. A trainer's healthy lines alone refute."""
    kueue = _container(
        1,
        "kueue-system",
        "kueue-controller-manager-7b78c4484f-hlpqp",
        {
            "level": "info",
            "msg": "failed to renew lease kueue-system/c1f6bfd2.kueue.x-k8s.io: context deadline exceeded",
        },
    )
    node = {
        "insertId": "n1",
        "timestamp": "2026-06-01T08:00:05Z",
        "logName": "projects/p/logs/kubelet",
        "severity": "ERROR",
        "resource": {"type": "k8s_node", "labels": {"node_name": "gke-tpu-pool-7c1d2e3f-0001"}},
        "jsonPayload": {
            "MESSAGE": 'E0601 08:00:05.000000    1932 kubelet_node_status.go:540] "Error updating node status, will retry" err="error getting node \\"gke-tpu-pool-7c1d2e3f-0001\\": etcdserver: request timed out"'
        },
    }
    run = _verify(tmp_path, "verify-kube-apiserver-unavailable", [kueue, node])
    assert run["verdict"] == "confirmed", run
    assert set(run["outputs"]["failure"]) == {
        "failed to renew lease",
        "context deadline exceeded",
        "etcdserver: request timed out",
    }
    assert run["outputs"]["hosts"] == ["gke-tpu-pool-7c1d2e3f-0001"]
    trainer = _container(1, "default", f"{WORKLOAD}-slice-job-0-0-abcde", "completed step: 4")
    healthy = _verify(tmp_path, "verify-kube-apiserver-unavailable", [trainer])
    assert healthy["verdict"] == "refuted", healthy


def test_a_connect_error_to_the_api_server_is_explained_by_its_page() -> None:
    """dependency-unreachable's family matches a refused connect to any service; on an API path
    the explanation table names the API server's page as the deeper root."""
    from mlwiki.diagnose.explains import EXPLAINED_BY

    line = (
        "E0504 11:58:29.186293       1 reflector.go:138] Failed to watch *v1.Pod: failed to list "
        '*v1.Pod: Get "https://10.10.11.35:443/api/v1/pods?limit=500&resourceVersion=0": dial tcp '
        "10.10.11.35:443: connect: connection refused"
    )
    assert {"dependency-unreachable", "kube-apiserver-unavailable"} <= matched(line)
    assert "kube-apiserver-unavailable" in EXPLAINED_BY["dependency-unreachable"]
