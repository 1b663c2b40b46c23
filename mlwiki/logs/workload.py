"""What makes a log entry the workload's: the one rule the offline diagnosis and the queries share.

A workload is named by the object the user submitted: a JobSet, a Job, a LeaderWorkerSet, a
Deployment, a RayJob, or a bare pod. GKE copies every pod label onto the pod's container entries as
`labels."k8s-pod/KEY"` (the label's domain dots sometimes turned into `_`, so both spellings are
read). An entry is the workload's when
1. an owner label names it — the JobSet name (which decides on its own: a JobSet's pods also carry
   the names of its child Jobs), else the Job name or the LeaderWorkerSet name; or
2. its pod is named like it: exactly (a bare pod) or `WORKLOAD-…` (the names controllers give their
   pods: `JOBSET-RJOB-J-K-x`, `JOB-x`, `DEPLOYMENT-HASH-x`, `RAYJOB-raycluster-…`).
Events carry no pod labels: they are matched by their pod's name, or by `involvedObject.name`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

JOBSET_KEYS = ("jobset_sigs_k8s_io/jobset-name", "jobset.sigs.k8s.io/jobset-name")
OWNER_KEYS = (
    "batch_kubernetes_io/job-name",
    "batch.kubernetes.io/job-name",
    "job-name",
    "leaderworkerset_sigs_k8s_io/name",
    "leaderworkerset.sigs.k8s.io/name",
)
POD_LABEL_PREFIX = "k8s-pod/"
# The entry label names of those keys (read for every entry of a diagnosis: made once).
_JOBSET_LABELS = tuple(POD_LABEL_PREFIX + key for key in JOBSET_KEYS)
_OWNER_LABELS = tuple(POD_LABEL_PREFIX + key for key in OWNER_KEYS)


def owned_by(workload: str, pod: Optional[str], labels: Any) -> bool:
    """Whether an entry of `pod` with entry `labels` belongs to `workload` (module docstring)."""
    verdict = _label_verdict(labels, workload) if isinstance(labels, Mapping) else None
    if verdict is not None:
        return verdict
    return bool(pod) and (pod == workload or pod.startswith(workload + "-"))


def _label_verdict(labels: Mapping[str, Any], workload: Optional[str]) -> Optional[bool]:
    for key in _JOBSET_LABELS:
        name = labels.get(key)
        if name:
            return name == workload
    if workload:
        for key in _OWNER_LABELS:
            if labels.get(key) == workload:
                return True
    return None


def selector_clauses(workload: str, quote: Callable[[str], str]) -> list[str]:
    """Cloud Logging clauses (joined with OR) that select the workload's entries."""
    clauses = [
        f'labels."{POD_LABEL_PREFIX}{key}"={quote(workload)}' for key in (*JOBSET_KEYS, *OWNER_KEYS)
    ]
    clauses.append(f"resource.labels.pod_name={quote(workload)}")
    clauses.append(f"resource.labels.pod_name:{quote(workload + '-')}")
    return clauses
