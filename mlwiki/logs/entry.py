"""What the engine reads from one Cloud Logging LogEntry (as JSON): fields, message text, host, pod.

Entries are plain dicts in Cloud Logging's JSON form, whether they came from the API or a bundle,
so that a bundle is diagnosed exactly like the same entries served by Cloud Logging.

The single pass reads each entry once (`EntryFacts`), and what an entry shares with the other
entries of its stream — its `logName`, `resource` and `labels`, and the host and pod they name —
once per stream (`Stream`, `stream_of`): a container's thousands of lines carry the same dozen
labels. A stream is found by those raw values and checked equal to them, never guessed. A
bundle's text lines are read without a dict at all (`LineFacts`, made by `mlwiki.logs.bundle`:
the facts of a line are its text, timestamp, insertId, severity and stream).
"""

from __future__ import annotations

import hashlib
from typing import Any, Optional

import orjson

from mlwiki.timewindow import timestamp_ns
from mlwiki.wiki import MESSAGE_FIELDS

NODE_LABEL = "compute.googleapis.com/resource_name"
JOBSET_LABELS = (
    "k8s-pod/jobset_sigs_k8s_io/jobset-name",
    "k8s-pod/jobset.sigs.k8s.io/jobset-name",
)

SYNTHETIC_ID_PREFIX = "mlwiki-"
_MISSING = object()


def synthetic_insert_id(entry: dict[str, Any]) -> str:
    """A stable id for an entry without `insertId`: `mlwiki-` + the first 20 hex digits of
    the SHA-1 of its JSON with sorted keys, so findings citing it resolve again."""
    digest = hashlib.sha1(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return SYNTHETIC_ID_PREFIX + digest[:20]


def split_path(path: str) -> list[str]:
    """Split a dotted field path; double-quoted segments may hold dots and slashes.

    `labels."k8s-pod/jobset.sigs.k8s.io/jobset-name"` → ["labels", "k8s-pod/jobset.sigs.k8s.io/jobset-name"]
    """
    if '"' not in path:  # nothing quoted (a backslash outside quotes is kept): split in C
        return path.split(".")
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


_PAYLOAD_MESSAGES = (("message", "jsonPayload.message"), ("MESSAGE", "jsonPayload.MESSAGE"))
# A structured logger's JSON line (zap, logr, klog's JSON format) as GKE's agent keeps it.
_STRUCTURED_MESSAGES = (
    ("msg", "jsonPayload.msg"),
    ("error", "jsonPayload.error"),
    ("err", "jsonPayload.err"),
)
assert list(MESSAGE_FIELDS) == [
    "textPayload",
    *(field for _, field in _PAYLOAD_MESSAGES),
    "protoPayload.methodName",
    "protoPayload.status.message",
    *(field for _, field in _STRUCTURED_MESSAGES),
], "entry_texts and EntryFacts read MESSAGE_FIELDS by hand: keep them in step"


def _payload_texts(
    payload: dict[str, Any], fields: tuple[tuple[str, str], ...], texts: list[tuple[str, str]]
) -> bool:
    """Append (field, text) for each of `fields` (key in jsonPayload, field name) the payload
    holds as a non-empty string; False when one is there but is not (an irregular entry)."""
    regular = True
    for key, field in fields:
        value = payload.get(key)
        if value is not None:
            if type(value) is str and value:
                texts.append((field, value))
            else:
                regular = False
    return regular


def entry_texts(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, text) for each message field present: what signatures without a `field` search.
    The fields (MESSAGE_FIELDS) are read by hand, as `get_field` would read them."""
    texts: list[tuple[str, str]] = []
    value = entry.get("textPayload")
    if isinstance(value, str) and value:
        texts.append(("textPayload", value))
    payload = entry.get("jsonPayload")
    if isinstance(payload, dict):
        _payload_texts(payload, _PAYLOAD_MESSAGES, texts)
    proto = entry.get("protoPayload")
    if isinstance(proto, dict):
        value = proto.get("methodName")
        if isinstance(value, str) and value:
            texts.append(("protoPayload.methodName", value))
        status = proto.get("status")
        value = status.get("message") if isinstance(status, dict) else None
        if isinstance(value, str) and value:
            texts.append(("protoPayload.status.message", value))
    if isinstance(payload, dict):
        _payload_texts(payload, _STRUCTURED_MESSAGES, texts)
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


def record_line(entry: dict[str, Any]) -> tuple[str, str]:
    """(field, text) of a container line as a written record holds it: the message field it
    is in (`textPayload`, else `jsonPayload.message`) and `entry_text`, read straight from
    `textPayload` for the usual container line."""
    text = entry.get("textPayload")
    if isinstance(text, str):
        if "jsonPayload" not in entry and "protoPayload" not in entry:
            return "textPayload", text
        return "textPayload", entry_text(entry)
    return "jsonPayload.message", entry_text(entry)


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


def field_value(entry: dict[str, Any], parts: list[str]) -> tuple[bool, Any]:
    """(regular, value) of the field at `parts` (`get_field`'s value): regular when every step
    is an object (or the field is missing) and the value is missing or a non-empty string —
    then a query's `FIELD=~"…"` sees exactly the text a signature scan sees. Anything else (a
    list on the way, a number) is irregular: an index built from the scan must not answer for
    that entry."""
    value: Any = entry
    for part in parts:
        if value is None:
            return True, None  # a missing object on the way: the field is missing
        if type(value) is not dict:
            return False, get_field(entry, parts)
        value = value.get(part)
    return value is None or (type(value) is str and bool(value)), value


# Streams: the resource and labels of an entry are its stream's (one container of one pod, one
# node's kubelet, …), repeated by every entry of the stream. `stream_of` reads them once per
# distinct stream, keyed by the raw values of `logName`, `resource` and the node label, and
# checked equal to the stream's own objects, so that two streams are never taken for one.
MAX_STREAMS = 1 << 13  # cached streams: a file of endless distinct ones stays bounded (~16 MB)
_RESOURCE_KEYS = frozenset({"type", "labels"})
_ONLY_STRINGS = frozenset({str})
_STREAMS: dict[tuple[Any, ...], Stream] = {}


def _label_map(value: Any) -> tuple[dict[str, Any], bool, bool]:
    """A labels map as a stream keeps it (empty when missing or not a map), whether its entries
    stay regular (a map or missing) and whether it compares cheaply (missing, or only strings)."""
    if type(value) is not dict:
        return {}, value is None, value is None
    return value, True, _ONLY_STRINGS.issuperset(map(type, value.values()))


class Stream:
    """What every entry of one stream shares, read from its `logName`, `resource` and `labels`:
    the resource type and labels, the host and pod when the labels name them (None: the entry's
    own payload may, see `entry_host` and `entry_pod`), and whether those fields have a shape
    the store's indexes answer for (`regular`). `usual` says that the resource and the labels
    also have the usual shape `mlwiki.logs.limits` checks for (string maps): only such streams
    are cached, so a cached stream stands for that part of the check."""

    __slots__ = (
        "host",
        "labels",
        "log_name",
        "pod",
        "raw_labels",
        "raw_resource",
        "regular",
        "resource_labels",
        "resource_type",
        "usual",
    )

    def __init__(self, log_name: Any, resource: Any, labels: Any) -> None:
        self.raw_resource, self.raw_labels = resource, labels
        self.log_name: str = log_name if type(log_name) is str else ""
        regular = True
        usual = log_name is None or type(log_name) is str
        if type(resource) is not dict:
            regular = resource is None
            usual = usual and regular
            resource = {}
        elif not _RESOURCE_KEYS.issuperset(resource):
            usual = False  # a MonitoredResource has only these: cache only what compares cheaply
        resource_type = resource.get("type")
        self.resource_type: str = resource_type if type(resource_type) is str else ""
        usual = usual and (resource_type is None or type(resource_type) is str)
        resource_labels, shaped, plain = _label_map(resource.get("labels"))
        regular, usual = regular and shaped, usual and plain
        self.resource_labels: dict[str, Any] = resource_labels
        labels, shaped, plain = _label_map(labels)
        regular, usual = regular and shaped, usual and plain
        self.labels: dict[str, Any] = labels
        # The store answers equalities on these from the entry's host and pod (entry_host,
        # entry_pod): only when they are plain strings that nothing else overrides.
        pod_name = resource_labels.get("pod_name")
        node_label = labels.get(NODE_LABEL)
        node_name = resource_labels.get("node_name")
        if (
            (pod_name is not None and (type(pod_name) is not str or not pod_name))
            or (node_label is not None and (type(node_label) is not str or not node_label))
            or (node_name is not None and (type(node_name) is not str or not node_name))
            or (node_label is not None and node_name is not None and node_label != node_name)
        ):
            regular = False
        self.regular = regular
        self.usual = usual
        # entry_host and entry_pod's first (and by far most common) sources.
        self.host: Optional[str] = (
            str(node_label) if node_label else str(node_name) if node_name else None
        )
        self.pod: Optional[str] = str(pod_name) if pod_name else None


def stream_of(entry: dict[str, Any]) -> Stream:
    """The stream of `entry` (a dict of any shape: nothing here raises), cached when usual."""
    log_name = entry.get("logName")
    resource = entry.get("resource")
    labels = entry.get("labels")
    values = resource.get("labels") if type(resource) is dict else None
    try:
        key = (
            log_name,
            resource.get("type") if type(resource) is dict else None,
            *(values.values() if type(values) is dict else ()),
            labels.get(NODE_LABEL) if type(labels) is dict else None,
        )
        stream = _STREAMS.get(key)
    except TypeError:  # a value that cannot be a key (a list…): not of the usual shape anyway
        return Stream(log_name, resource, labels)
    # A cached stream's objects are flat string maps: comparing never recurses into the entry.
    if stream is not None and stream.raw_resource == resource and stream.raw_labels == labels:
        return stream
    stream = Stream(log_name, resource, labels)
    if stream.usual:
        if len(_STREAMS) >= MAX_STREAMS:
            _STREAMS.clear()
        _STREAMS[key] = stream
    return stream


class EntryFacts:
    """What the diagnosis' single pass reads from one entry, read once: its instant (parsed
    once), identity, stream (resource, host, pod: read once per stream, see `Stream`), message
    texts (shared by the signature scan, the topology and the step-line tracker) and where its
    bytes are, so the store can keep an offset instead of a copy.

    `regular` is False when a field an index answers for has an unusual shape (see
    `field_value`, autoscaler payloads, non-string labels): queries then read such an entry in
    full instead of trusting the indexes. `index` is the entry's position in its `EntryStore`.
    """

    __slots__ = (
        "entry",
        "host",
        "index",
        "insert_id",
        "instant",
        "labels",
        "location",
        "log_name",
        "message",
        "payload",
        "pod",
        "regular",
        "resource_labels",
        "resource_type",
        "severity",
        "stream",
        "texts",
        "time",
        "timestamp",
    )

    def __init__(
        self,
        entry: dict[str, Any],
        instant: int,
        location: Optional[tuple[int, int, int]] = None,
        stream: Optional[Stream] = None,
    ) -> None:
        self.entry = entry
        self.instant = instant
        self.time = instant / 1e9
        self.timestamp: str = entry["timestamp"]
        self.location = location  # (file number, byte offset, length) in a plain bundle file
        self.index: Optional[int] = None
        given = entry.get("insertId")
        if type(given) is not str or not given:
            given = entry["insertId"] = synthetic_insert_id(entry)
        self.insert_id: str = given
        if stream is None:
            stream = stream_of(entry)
        self.stream = stream
        self.log_name: str = stream.log_name
        self.resource_type: str = stream.resource_type
        self.resource_labels: dict[str, Any] = stream.resource_labels
        self.labels: dict[str, Any] = stream.labels
        severity = entry.get("severity")
        self.severity: str = severity if type(severity) is str and severity else "DEFAULT"
        regular = stream.regular
        payload = entry.get("jsonPayload")
        if type(payload) is not dict:
            regular = regular and payload is None
            payload = None
        self.payload: Optional[dict[str, Any]] = payload
        # The message fields (MESSAGE_FIELDS, in order), read by hand: this runs for every entry.
        texts: list[tuple[str, str]] = []
        value: Any = entry.get("textPayload")
        if value is not None:
            if type(value) is str and value:
                texts.append(("textPayload", value))
            else:
                regular = False
        if payload is not None:
            regular = _payload_texts(payload, _PAYLOAD_MESSAGES, texts) and regular
        proto = entry.get("protoPayload")
        if type(proto) is dict:
            value = proto.get("methodName")
            if value is not None:
                if type(value) is str and value:
                    texts.append(("protoPayload.methodName", value))
                else:
                    regular = False
            status = proto.get("status")
            if type(status) is dict:
                value = status.get("message")
                if value is not None:
                    if type(value) is str and value:
                        texts.append(("protoPayload.status.message", value))
                    else:
                        regular = False
            elif status is not None:
                regular = False
        elif proto is not None:
            regular = False
        if payload is not None:
            regular = _payload_texts(payload, _STRUCTURED_MESSAGES, texts) and regular
        if payload is not None and (
            "noDecisionStatus" in payload or "resultInfo" in payload or "decision" in payload
        ):
            regular = False  # the query language reaches only some of its messageIds
            texts.extend(("messageId", found) for found in _autoscaler_message_ids(entry))
        self.texts = texts
        self.regular = regular
        text = entry.get("textPayload")
        if type(text) is not str:
            text = payload.get("message") if payload is not None else None
            if type(text) is not str:
                text = None
        self.message: Optional[str] = text
        host = stream.host
        self.host: Optional[str] = host if host is not None else entry_host(entry)
        pod = stream.pod
        self.pod: Optional[str] = pod if pod is not None else entry_pod(entry)

    # The top-level fields the entry may have, when known (None: any).
    fields: Optional[frozenset[str]] = None

    def top(self, name: str) -> Any:
        """The entry's top-level field `name` (None when missing)."""
        return self.entry.get(name)

    def record_line(self) -> tuple[str, str]:
        """`record_line` of the entry."""
        return record_line(self.entry)


def facts_of(
    entry: dict[str, Any], location: Optional[tuple[int, int, int]] = None
) -> Optional[EntryFacts]:
    """The facts of one LogEntry dict, or None when it has no RFC 3339 `timestamp`."""
    instant = timestamp_ns(entry.get("timestamp"))
    return None if instant is None else EntryFacts(entry, instant, location)


# The slot that holds an EntryFacts' entry dict: a LineFacts fills it on first use.
_ENTRY_SLOT = EntryFacts.__dict__["entry"]
# The fields a LineFacts' entry may have (`mlwiki.logs.bundle`'s line decoder refuses any
# other): what `limits.flat` vouches for, a container's text line.
LINE_FIELDS = frozenset(
    {
        "insertId",
        "logName",
        "timestamp",
        "receiveTimestamp",
        "trace",
        "spanId",
        "textPayload",
        "severity",
        "resource",
        "labels",
    }
)


class LineFacts(EntryFacts):
    """The facts of a text line read from a bundle without decoding it into a dict: an entry of
    only `LINE_FIELDS`, every one a string but the stream's usual resource and labels, with a
    non-empty `textPayload` and an `insertId` (what every container line is). They are those
    `EntryFacts(entry, …)` would read from that entry; the entry itself is decoded from its
    bytes (`raw`) only when asked for — a matched line, the step line last seen — and then
    kept."""

    __slots__ = ("raw",)
    fields = LINE_FIELDS

    def __init__(
        self,
        raw: bytes,
        text: str,
        timestamp: str,
        instant: int,
        insert_id: str,
        severity: str,
        stream: Stream,
        host: Optional[str],
        location: tuple[int, int, int],
    ) -> None:
        self.raw = raw
        self.instant = instant
        self.time = instant / 1e9
        self.timestamp = timestamp
        self.location = location
        self.index = None
        self.insert_id = insert_id
        self.stream = stream
        self.log_name = stream.log_name
        self.resource_type = stream.resource_type
        self.resource_labels = stream.resource_labels
        self.labels = stream.labels
        self.severity = severity
        self.regular = stream.regular
        self.payload = None
        self.texts = [("textPayload", text)]
        self.message = text
        self.host = host
        self.pod = stream.pod

    @property  # type: ignore[override]
    def entry(self) -> dict[str, Any]:  # type: ignore[override]
        try:
            return _ENTRY_SLOT.__get__(self)  # type: ignore[no-any-return]
        except AttributeError:
            entry = orjson.loads(self.raw)
            _ENTRY_SLOT.__set__(self, entry)
            return entry  # type: ignore[no-any-return]

    def decoded(self) -> bool:
        """Whether the entry was decoded from `raw` already."""
        try:
            _ENTRY_SLOT.__get__(self)
        except AttributeError:
            return False
        return True

    def top(self, name: str) -> Any:
        return self.entry.get(name) if name in LINE_FIELDS else None

    def record_line(self) -> tuple[str, str]:
        return "textPayload", self.message  # type: ignore[return-value]
