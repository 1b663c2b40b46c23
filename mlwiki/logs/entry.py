"""What the engine reads from one Cloud Logging LogEntry (as JSON): fields, message text, host, pod.

Entries are plain dicts in Cloud Logging's JSON form, whether they came from the API or a bundle,
so that a bundle is diagnosed exactly like the same entries served by Cloud Logging.
"""

from __future__ import annotations

from typing import Any, Optional

from mlwiki.wiki import MESSAGE_FIELDS

NODE_LABEL = "compute.googleapis.com/resource_name"
JOBSET_LABELS = (
    "k8s-pod/jobset_sigs_k8s_io/jobset-name",
    "k8s-pod/jobset.sigs.k8s.io/jobset-name",
)

_MISSING = object()


def split_path(path: str) -> list[str]:
    """Split a dotted field path; double-quoted segments may hold dots and slashes.

    `labels."k8s-pod/jobset.sigs.k8s.io/jobset-name"` → ["labels", "k8s-pod/jobset.sigs.k8s.io/jobset-name"]
    """
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    index = 0
    while index < len(path):
        char = path[index]
        if quoted:
            if char == "\\" and index + 1 < len(path):
                current.append(path[index + 1])
                index += 1
            elif char == '"':
                quoted = False
            else:
                current.append(char)
        elif char == '"':
            quoted = True
        elif char == ".":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def get_field(entry: dict[str, Any], path: str | list[str], default: Any = None) -> Any:
    """The value at a dotted path (see `split_path`), or `default` when any part is missing."""
    value: Any = entry
    for part in split_path(path) if isinstance(path, str) else path:
        if isinstance(value, dict):
            value = value.get(part, _MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return default
        if value is _MISSING:
            return default
    return value


def _autoscaler_message_ids(entry: dict[str, Any]) -> list[str]:
    """Every `messageId` anywhere in a cluster-autoscaler visibility payload."""
    payload = entry.get("jsonPayload")
    if not isinstance(payload, dict) or not (
        "noDecisionStatus" in payload or "resultInfo" in payload or "decision" in payload
    ):
        return []
    found: list[str] = []
    stack: list[Any] = [payload]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            message_id = value.get("messageId")
            if isinstance(message_id, str):
                found.append(message_id)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return sorted(set(found))


_MESSAGE_PATHS = [(field, split_path(field)) for field in MESSAGE_FIELDS]


def entry_texts(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, text) for each message field present: what signatures without a `field` search."""
    texts: list[tuple[str, str]] = []
    for field, parts in _MESSAGE_PATHS:
        value = get_field(entry, parts)
        if isinstance(value, str) and value:
            texts.append((field, value))
    texts.extend(("messageId", message_id) for message_id in _autoscaler_message_ids(entry))
    return texts


def container_message(entry: dict[str, Any]) -> Optional[str]:
    """What a container printed: `textPayload`, or `jsonPayload.message` for structured logs."""
    text = entry.get("textPayload")
    if isinstance(text, str):
        return text
    payload = entry.get("jsonPayload")
    message = payload.get("message") if isinstance(payload, dict) else None
    return message if isinstance(message, str) else None


def entry_text(entry: dict[str, Any]) -> str:
    """The entry's message text: its message fields joined by newlines."""
    return "\n".join(text for _, text in entry_texts(entry))


def _last_segment(resource_name: Any) -> Optional[str]:
    if isinstance(resource_name, str) and "/instances/" in resource_name:
        return resource_name.rsplit("/", 1)[-1] or None
    return None


def entry_host(entry: dict[str, Any]) -> Optional[str]:
    """The node (VM) name an entry is about, when the entry says so."""
    labels = entry.get("labels") or {}
    resource = entry.get("resource") or {}
    resource_labels = resource.get("labels") or {}
    if isinstance(labels, dict) and labels.get(NODE_LABEL):
        return str(labels[NODE_LABEL])
    if resource_labels.get("node_name"):
        return str(resource_labels["node_name"])
    payload = entry.get("jsonPayload")
    if isinstance(payload, dict):
        involved = payload.get("involvedObject") or {}
        if isinstance(involved, dict) and involved.get("kind") == "Node" and involved.get("name"):
            return str(involved["name"])
        source = payload.get("source") or {}
        if isinstance(source, dict) and source.get("host"):
            return str(source["host"])
        if isinstance(payload.get("node"), str):
            return payload["node"]
    proto = entry.get("protoPayload")
    if isinstance(proto, dict):
        name = _last_segment(proto.get("resourceName"))
        if name:
            return name
    if resource.get("type") == "gce_instance" and isinstance(labels, dict):
        return labels.get("instance_name") or None
    return None


def entry_pod(entry: dict[str, Any]) -> Optional[str]:
    """The pod an entry is about: the container's pod, or the pod an event involves."""
    resource_labels = (entry.get("resource") or {}).get("labels") or {}
    if resource_labels.get("pod_name"):
        return str(resource_labels["pod_name"])
    payload = entry.get("jsonPayload")
    if isinstance(payload, dict):
        involved = payload.get("involvedObject") or {}
        if isinstance(involved, dict) and involved.get("kind") == "Pod" and involved.get("name"):
            return str(involved["name"])
    return None


def entry_workload(entry: dict[str, Any]) -> Optional[str]:
    """The JobSet name from the pod labels GKE copies onto container entries (both spellings)."""
    labels = entry.get("labels") or {}
    if isinstance(labels, dict):
        for key in JOBSET_LABELS:
            if labels.get(key):
                return str(labels[key])
    return None
