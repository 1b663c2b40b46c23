"""Which root causes explain another root seen in the same disruption — a table, not ifs.

Some root matches are the visible effect of another: pods fail to schedule for TPU *because*
the autoscaler could not get capacity, Kueue holds the quota, or a node's TPU device plugin lost
a chip; JAX falls back to CPU ("libtpu is not installed") *because* another process holds the
TPU. Both lines are roots in TAXONOMY.md, and the effect is usually logged first, so "the
earliest root wins" would name the effect. The same holds for one line that two roots match at
different depths (a generic CSI mount refusal whose text is the Cloud Storage FUSE driver's reason,
a connect error whose reason is a certificate check): the deeper page explains the shallower.
`EXPLAINED_BY[effect]` lists, in order of preference, the symptoms that explain it; when one of
them is in the same disruption it becomes the root cause, while the disruption keeps the kind of
the effect (the pods still never ran).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from mlwiki.diagnose.match import Hit

EXPLAINED_BY: dict[str, tuple[str, ...]] = {
    "failed-scheduling-insufficient-tpu": (
        "capacity-stockout-or-quota",  # the autoscaler could not add TPU nodes (stockout, quota)
        "dynamic-slice-creation-failed",  # the slice the pods wait for was never created
        "tpu-device-plugin-unhealthy",  # a node of the pool offers fewer chips than it has
        "kueue-admission-pending",  # Kueue holds back the quota the pods would need
    ),
    # JAX prints "TPU-enabled jaxlib or libtpu is not installed. Falling back to cpu" whenever
    # the TPU backend did not come up: after "TPU is already in use" it is the effect, not a
    # version problem, and likewise after a TPU runtime that could not bind its port.
    "libtpu-version-mismatch": ("tpu-already-in-use", "port-already-in-use"),
    # A port libtpu binds at start-up taken while another process holds the TPU: that process
    # holds the port too, and the device being held is the deeper reason.
    "port-already-in-use": ("tpu-already-in-use",),
    # A generic CSI mount refusal (its gRPC code) and a Cloud Storage 403 quoted inside it are the
    # effect when the Cloud Storage FUSE driver names the reason for that same mount.
    "container-config-error": ("gcsfuse-mount-failure",),
    # A Cloud Storage refusal that quotes a credential failure (a 401, an anonymous caller, a token
    # the metadata server would not mint) names no permission the identity lacks: the identity
    # itself could not be established, so the credentials page is the deeper root.
    "checkpoint-gcs-permission": ("gcp-credentials-failure", "gcsfuse-mount-failure"),
    # A gcsfuse mount that fails because the pod got no token (no default credentials, the GKE
    # metadata server refusing the Workload Identity binding) is fixed on the identity, not on the
    # volume: the mount failure is the effect.
    "gcsfuse-mount-failure": ("gcp-credentials-failure",),
    # "Credentials not found" after the metadata server did not answer: google-auth's probe timed
    # out and Application Default Credentials fell through to "not found" (the Workload Identity
    # start-up race), so the unreachable metadata server is the deeper root. A server that answered
    # and refused the identity (a 403/404) is never dependency-unreachable's, so this cannot loop.
    "gcp-credentials-failure": ("dependency-unreachable",),
    # The kubelet failing pods to free its node for a system-critical pod: priority is the reason.
    "pod-evicted-node-pressure": ("pod-preempted-by-priority",),
    # A Google API's permission refusal whose line a specific page owns as well: the TPU API's
    # disabled-API notice, a Cloud Storage refusal, a token the metadata server would not mint
    # (iam.serviceAccounts.getAccessToken), the ML Diagnostics SDK's log writes, an Artifact Registry
    # pull denied: that page names it.
    "gcp-api-permission-denied": (
        "tpu-api-permission-denied",
        "checkpoint-gcs-permission",
        "gcp-credentials-failure",
        "mldiag-sdk-setup-error",
        "image-pull-failure",
    ),
    # A connect, or an admission webhook call, that failed in the TLS handshake: the certificate
    # check is the reason. A connect refused for want of a descriptor (`Failed to establish a new
    # connection: [Errno 24] Too many open files`) failed in the client, not at the dependency.
    # A connect error to a Kubernetes API path or kubectl's refused connection: the service that
    # could not be reached is the API server itself. A connect to the Pathways IFRT proxy whose
    # detail is gRPC's own failure (its name not resolving, the connection refused): the proxy page
    # names which service and what to fix (its address, the proxy pod).
    "dependency-unreachable": (
        "tls-certificate-error",
        "os-resource-limit",
        "kube-apiserver-unavailable",
        "pathways-proxy-unreachable",
    ),
    "admission-webhook-denied": ("tls-certificate-error",),
    # A registry's certificate the kubelet does not trust: the pod's trouble is still the image,
    # and image-pull-failure names the registry (its family holds the registry's TLS errors).
    "tls-certificate-error": ("image-pull-failure",),
    # A full disk or /dev/shm under another root's line: a save's own line names the checkpoint, a
    # Cloud Storage FUSE file cache names its volume, and a kubelet eviction for disk pressure is
    # what ended the pod; each keeps its page. Elsewhere the full disk is the deeper reason: an
    # image layer the kubelet could not unpack (the image and registry are fine; it pulls on
    # another node) and a DataLoader worker's bus error whose line names shared memory.
    "local-disk-full": (
        "checkpoint-save-failure",
        "gcsfuse-mount-failure",
        "pod-evicted-node-pressure",
    ),
    "image-pull-failure": ("local-disk-full",),
    "process-segfault": ("local-disk-full",),
    # The trainer's uncaught exception (the catch-all) where a dependency could not be imported or
    # the input pipeline names the data it could not read: that is why the trainer died, in this
    # record or another of the disruption (a DataLoader's re-raise is printed apart from the
    # worker's own traceback, an import error apart from the traceback of the code that called it).
    "application-exception": ("python-dependency-error", "input-pipeline-failure"),
    # A DataLoader worker's error where the worker was failed by its host: out of memory, a full
    # disk or /dev/shm, no descriptor left. The data is fine; the resource is the reason.
    "input-pipeline-failure": ("host-oom-killed", "local-disk-full", "os-resource-limit"),
    # An import or install failure whose line is libtpu's own (`No module named 'libtpu'`, a TPU
    # or PJRT symbol, libtpu's package not found): the TPU runtime's page names it. And pip's
    # `Could not find a version … (from versions: none)` after its connection or certificate
    # failures: the index was unreachable, not the requirement unsatisfiable.
    "python-dependency-error": (
        "libtpu-version-mismatch",
        "dependency-unreachable",
        "tls-certificate-error",
    ),
}


def explanation(effect: Hit, hits: Iterable[Hit]) -> Optional[Hit]:
    """The hit that explains `effect` (following the table transitively), or None.

    Among hits of the most preferred explaining symptom present, the earliest is taken.
    """
    pool = list(hits)
    chosen: Optional[Hit] = None
    current = effect.symptom
    seen = {current}
    while current in EXPLAINED_BY:
        found = None
        for symptom in EXPLAINED_BY[current]:
            same = [h for h in pool if h.symptom == symptom]
            if same and symptom not in seen:
                found = min(same, key=lambda h: (h.time, h.insert_id))
                break
        if found is None:
            break
        chosen, current = found, found.symptom
        seen.add(current)
    return chosen
