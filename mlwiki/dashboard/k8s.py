"""Reading facts out of raw Kubernetes JSON objects (as `kubectl get -o json` prints them).

The dashboard works on plain dicts rather than client models: a snapshot and the live API give the
same shape, and no model validation can reject a partially filled object.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional

TPU_RESOURCE = "google.com/tpu"
LABEL_NODEPOOL = "cloud.google.com/gke-nodepool"
LABEL_ACCELERATOR = "cloud.google.com/gke-tpu-accelerator"
LABEL_TOPOLOGY = "cloud.google.com/gke-tpu-topology"
LABEL_SPOT = "cloud.google.com/gke-spot"
LABEL_PREEMPTIBLE = "cloud.google.com/gke-preemptible"
LABEL_ACTIVE_MAINTENANCE = "cloud.google.com/active-node-maintenance"
LABEL_SCHEDULED_MAINTENANCE = "cloud.google.com/scheduled-maintenance-time"
TAINT_IMPENDING_TERMINATION = "cloud.google.com/impending-node-termination"
LABEL_JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
LABEL_RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def labels(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def namespace(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "")


def to_int(value: Any) -> int:
    """An integer quantity such as a chip count ("4"); anything else counts as 0."""
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


def parse_time(value: Any) -> Optional[datetime]:
    """An RFC 3339 timestamp (with or without fraction, `Z` or offset) as an aware datetime."""
    if not isinstance(value, str) or not value:
        return None
    text = value.replace("Z", "+00:00")
    if "." in text:
        # Python 3.9/3.10 accept at most 6 fractional digits; Kubernetes never sends more.
        head, _, rest = text.partition(".")
        digits = "".join(ch for ch in rest if ch.isdigit())
        text = f"{head}.{(digits + '000000')[:6]}{rest[len(digits) :]}"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


# --- nodes -------------------------------------------------------------------------------------


def node_tpu_chips(node: dict[str, Any]) -> int:
    """Chips the node has: capacity, or allocatable when capacity is not reported."""
    status = node.get("status") or {}
    chips = to_int((status.get("capacity") or {}).get(TPU_RESOURCE))
    return chips or to_int((status.get("allocatable") or {}).get(TPU_RESOURCE))


def node_allocatable_chips(node: dict[str, Any]) -> int:
    return to_int(((node.get("status") or {}).get("allocatable") or {}).get(TPU_RESOURCE))


def is_tpu_node(node: dict[str, Any]) -> bool:
    return LABEL_ACCELERATOR in labels(node) or node_tpu_chips(node) > 0


def node_ready(node: dict[str, Any]) -> bool:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def node_taint_keys(node: dict[str, Any]) -> set[str]:
    return {str(t.get("key")) for t in (node.get("spec") or {}).get("taints") or []}


def node_cordoned(node: dict[str, Any]) -> bool:
    return bool((node.get("spec") or {}).get("unschedulable"))


def node_maintenance(node: dict[str, Any]) -> bool:
    """Under (or scheduled for) host maintenance, or tainted for impending termination."""
    node_labels = labels(node)
    return (
        LABEL_ACTIVE_MAINTENANCE in node_labels
        or LABEL_SCHEDULED_MAINTENANCE in node_labels
        or TAINT_IMPENDING_TERMINATION in node_taint_keys(node)
    )


def node_spot(node: dict[str, Any]) -> bool:
    node_labels = labels(node)
    return node_labels.get(LABEL_SPOT) == "true" or node_labels.get(LABEL_PREEMPTIBLE) == "true"


def node_project_zone(node: dict[str, Any]) -> tuple[str, str]:
    """Project and zone from a GKE node's `spec.providerID` (`gce://PROJECT/ZONE/INSTANCE`)."""
    provider = str((node.get("spec") or {}).get("providerID") or "")
    if not provider.startswith("gce://"):
        return "", ""
    parts = provider[len("gce://") :].split("/")
    return (parts[0], parts[1]) if len(parts) >= 3 else ("", "")


def topology_chips(topology: str) -> int:
    """Chips in a slice of topology `AxB` or `AxBxC`; 0 when the label is not a topology."""
    product = 1
    for part in topology.split("x"):
        if not part.isdigit():
            return 0
        product *= int(part)
    return product if topology else 0


# --- pods --------------------------------------------------------------------------------------


def _container_chips(container: dict[str, Any]) -> int:
    resources = container.get("resources") or {}
    # An extended resource's request defaults to its limit, so either one names the chips.
    requested = (resources.get("requests") or {}).get(TPU_RESOURCE)
    return to_int(
        requested if requested is not None else (resources.get("limits") or {}).get(TPU_RESOURCE)
    )


def pod_spec_chips(pod_spec: dict[str, Any]) -> int:
    """The pod's effective `google.com/tpu` request, as the scheduler counts it."""
    running = sum(_container_chips(c) for c in pod_spec.get("containers") or [])
    init = max((_container_chips(c) for c in pod_spec.get("initContainers") or []), default=0)
    return max(running, init)


def pod_chips(pod: dict[str, Any]) -> int:
    return pod_spec_chips(pod.get("spec") or {})


def pod_phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "Unknown")


def pod_node(pod: dict[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def pod_holds_chips(pod: dict[str, Any]) -> bool:
    """Running, or pending but already bound to a node: its chips are taken on that node."""
    phase = pod_phase(pod)
    return phase == "Running" or (phase == "Pending" and bool(pod_node(pod)))


def container_statuses(pod: dict[str, Any]) -> list[dict[str, Any]]:
    status = pod.get("status") or {}
    return [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]


# --- events ------------------------------------------------------------------------------------


def event_time(event: dict[str, Any]) -> datetime:
    """When an event last happened: the newest of its timestamps, or the epoch if it has none."""
    candidates = (
        event.get("lastTimestamp"),
        (event.get("series") or {}).get("lastObservedTime"),
        event.get("eventTime"),
        event.get("firstTimestamp"),
        (event.get("metadata") or {}).get("creationTimestamp"),
    )
    times = [t for t in (parse_time(c) for c in candidates) if t is not None]
    return max(times, default=EPOCH)
