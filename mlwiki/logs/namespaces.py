"""The Kubernetes namespaces whose pods are not the workload's but write about it.

- `SYSTEM_NAMESPACES`: the node's own agents (the TPU device plugin, node-problem-detector,
  gcsfuse's CSI driver, the logging agent): what they print is infrastructure, read by the live
  plan's infrastructure source and never blamed on the workload.
- `CONTROLLER_NAMESPACES`: the batch controllers (JobSet, Kueue, LeaderWorkerSet, KubeRay), whose
  pods reconcile the workload's objects from elsewhere: a line of theirs that names the workload is
  about it (a JobSet controller refused an API call for it), and their own node is not a culprit.
"""

from __future__ import annotations

SYSTEM_NAMESPACES = ("kube-system", "gke-managed-system", "gke-system")
CONTROLLER_NAMESPACES = (
    "jobset-system",
    "kueue-system",
    "lws-system",
    "kuberay-system",
    "ray-system",
)
