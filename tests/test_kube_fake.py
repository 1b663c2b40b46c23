"""The fake Kubernetes API server against the real kubectl and the real kubernetes client."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fakes.kube_api import (  # noqa: F401 - kube_api_fixture registers `kube_api`
    FakeKubeApi,
    field_selector_matches,
    kube_api_fixture,
    label_selector_matches,
    make_event,
    make_jobset,
    make_node,
    make_pod,
    merge_patch,
)

KUBECTL = "/usr/bin/kubectl"
needs_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")


def kubectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KUBECTL, *args], capture_output=True, text=True, timeout=60, env=dict(os.environ)
    )


def test_label_selector_forms() -> None:
    labels = {"app": "trainer", "tier": "tpu"}
    assert label_selector_matches("app=trainer,tier==tpu", labels)
    assert not label_selector_matches("app!=trainer", labels)
    assert label_selector_matches("app in (x,trainer),zone notin (a)", labels)
    assert not label_selector_matches("app notin (trainer)", labels)
    assert label_selector_matches("tier,!zone", labels)
    assert not label_selector_matches("zone", labels)


def test_field_selector_and_merge_patch() -> None:
    pod = make_pod("p", node="n1", phase="Failed")
    assert field_selector_matches("spec.nodeName=n1,status.phase!=Running", pod)
    assert not field_selector_matches("spec.nodeName==n2", pod)
    patched = merge_patch(
        {"spec": {"taints": [{"key": "a"}], "x": 1}},
        {"$setElementOrder/taints": [], "spec": {"taints": [{"key": "b"}], "x": None}},
    )
    assert patched == {"spec": {"taints": [{"key": "b"}]}}


@needs_kubectl
def test_kubectl_reads_lists_and_describes(kube_api: FakeKubeApi) -> None:
    node = kube_api.add(make_node("gke-tpu-1", labels={"pool": "a"}))[0]
    kube_api.add(
        make_pod("trainer-0", node="gke-tpu-1", labels={"app": "t"}),
        make_pod("other", namespace="ml", node="gke-tpu-2"),
        make_event("ev1", "OOMKilling", "Memory cgroup out of memory", node),
        make_jobset("trainer"),
    )
    kube_api.set_log("default", "trainer-0", "one\ntwo\nthree\n")

    listed = json.loads(kubectl("get", "pods", "-A", "-o", "json").stdout)
    assert sorted(p["metadata"]["name"] for p in listed["items"]) == ["other", "trainer-0"]
    assert kubectl("get", "pods", "-A", "-l", "app=t", "-o", "name").stdout == "pod/trainer-0\n"
    by_node = kubectl(
        "get", "pods", "-A", "--field-selector", "spec.nodeName=gke-tpu-2", "-o", "name"
    )
    assert by_node.stdout == "pod/other\n"
    described = kubectl("describe", "node", "gke-tpu-1")
    assert described.returncode == 0 and "Memory cgroup out of memory" in described.stdout
    assert kubectl("logs", "trainer-0", "--tail=2").stdout == "two\nthree\n"
    jobsets = kubectl("get", "jobsets.jobset.x-k8s.io", "-A", "-o", "name")
    assert jobsets.stdout == "jobset.jobset.x-k8s.io/trainer\n"
    assert kubectl("get", "pod", "missing").returncode == 1


@needs_kubectl
def test_kubectl_cordon_taint_and_drain_are_recorded(kube_api: FakeKubeApi) -> None:
    kube_api.add(make_node("gke-tpu-1"), make_pod("trainer-0", node="gke-tpu-1"))
    assert kubectl("cordon", "gke-tpu-1").returncode == 0
    assert kubectl("taint", "nodes", "gke-tpu-1", "bad=chip:NoSchedule").returncode == 0
    spec = kube_api.get("nodes", "gke-tpu-1")["spec"]
    assert spec["unschedulable"] is True
    assert spec["taints"] == [{"key": "bad", "value": "chip", "effect": "NoSchedule"}]
    patches = kube_api.requests_by("PATCH")
    assert [r.path for r in patches] == ["/api/v1/nodes/gke-tpu-1"] * 2
    assert patches[0].content_type == "application/strategic-merge-patch+json"

    drained = kubectl("drain", "gke-tpu-1", "--force", "--timeout=20s")
    assert drained.returncode == 0, drained.stderr
    assert kube_api.get("pods", "trainer-0", "default") is None


def test_kubernetes_client_reads_raw_json_and_patches(tmp_path: Path) -> None:
    from kubernetes import client, config

    with FakeKubeApi([make_node("gke-tpu-1"), make_jobset("js")]) as api:
        api_client = config.new_client_from_config(
            config_file=str(api.write_kubeconfig(tmp_path / "kubeconfig"))
        )
        core = client.CoreV1Api(api_client)
        raw = json.loads(core.list_node(_preload_content=False).data)
        assert raw["kind"] == "NodeList" and raw["items"][0]["metadata"]["name"] == "gke-tpu-1"
        core.patch_node("gke-tpu-1", {"spec": {"unschedulable": True}})
        assert api.get("nodes", "gke-tpu-1")["spec"]["unschedulable"] is True
        custom = client.CustomObjectsApi(api_client)
        jobsets = custom.list_cluster_custom_object("jobset.x-k8s.io", "v1alpha2", "jobsets")
        assert [j["metadata"]["name"] for j in jobsets["items"]] == ["js"]
        with pytest.raises(client.ApiException) as error:
            core.read_namespaced_pod("missing", "default")
        assert error.value.status == 404


def test_without_jobsets_the_group_is_not_discovered() -> None:
    with FakeKubeApi(jobsets=False) as api:
        groups = api.discovery("/apis")["groups"]
        assert "jobset.x-k8s.io" not in {g["name"] for g in groups}
