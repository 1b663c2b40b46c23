"""A structured logger's JSON line (zap, logr, klog's JSON format) keeps its text in `msg` and
its error in `error` or `err`; GKE's agent keeps the line as `jsonPayload`, so those are message
fields (`mlwiki.wiki.MESSAGE_FIELDS`) read by every path: a signature without `field` finds them
in a bundle as it finds `jsonPayload.message`, and the fields the engine already read keep their
order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mlwiki.logs.bundle import iter_facts
from mlwiki.logs.entry import entry_texts, facts_of
from mlwiki.logs.store import EntryStore
from mlwiki.wiki import MESSAGE_FIELDS
from tests.conftest import run_cli

# controller-runtime's zap line in a Talos node's log (siderolabs/sidero#1033), as a JSON
# encoder writes the same fields: the message in `msg`, the error in `error`.
ZAP_ERROR = (
    'failed to list *v1.Endpoints: Get "https://talos.mimir-tech.org:6443/api/v1/namespaces/'
    'default/endpoints?fieldSelector=metadata.name%3Dkubernetes&limit=500&resourceVersion=0": '
    'x509: certificate signed by unknown authority (possibly because of "x509: ECDSA '
    'verification failure" while trying to verify candidate authority certificate "kubernetes")'
)
ZAP_PAYLOAD = {
    "level": "error",
    "ts": 1.6844150762518344e09,
    "msg": "kubernetes endpoint watch error",
    "component": "controller-runtime",
    "controller": "k8s.EndpointController",
    "error": ZAP_ERROR,
}
# klog's JSON format (`--logging-format=json`) writes ErrorS' error as `err`.
KLOG_PAYLOAD = {
    "ts": 1715684462.291103,
    "caller": "cache/reflector.go:158",
    "msg": "Unhandled Error",
    "v": 0,
    "err": "Failed to watch *v1.Deployment: failed to list *v1.Deployment",
}


def container_entry(number: int, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "insertId": f"zap-{number}",
        "timestamp": f"2024-05-01T10:00:{number:02d}Z",
        "logName": "projects/p/logs/stderr",
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {
                "namespace_name": "jobset-system",
                "pod_name": "jobset-controller-manager-6c9f8d7b5-x2k4q",
                "container_name": "manager",
            },
        },
        "jsonPayload": payload,
    }


def test_the_structured_fields_follow_the_earlier_message_fields_in_order() -> None:
    assert MESSAGE_FIELDS[:5] == (
        "textPayload",
        "jsonPayload.message",
        "jsonPayload.MESSAGE",
        "protoPayload.methodName",
        "protoPayload.status.message",
    )
    assert MESSAGE_FIELDS[5:] == ("jsonPayload.msg", "jsonPayload.error", "jsonPayload.err")


def test_entry_texts_and_the_pass_read_msg_error_and_err(tmp_path: Path) -> None:
    entries = [
        container_entry(1, ZAP_PAYLOAD),
        container_entry(2, KLOG_PAYLOAD),
        container_entry(3, {"message": "plain", "msg": "also", "error": {"code": 7}}),
    ]
    assert entry_texts(entries[0]) == [
        ("jsonPayload.msg", "kubernetes endpoint watch error"),
        ("jsonPayload.error", ZAP_ERROR),
    ]
    assert entry_texts(entries[1]) == [
        ("jsonPayload.msg", "Unhandled Error"),
        ("jsonPayload.err", KLOG_PAYLOAD["err"]),
    ]
    # `message` first, as before; an error that is an object is no text (and the entry is read
    # field by field, as any entry whose message field has an unusual shape).
    assert entry_texts(entries[2]) == [
        ("jsonPayload.message", "plain"),
        ("jsonPayload.msg", "also"),
    ]
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(entries, indent=2))
    for entry, facts in zip(entries, iter_facts(path, EntryStore())):
        alone = facts_of(entry)
        assert alone is not None
        assert facts.texts == alone.texts == entry_texts(entry)
    assert [facts.regular for facts in iter_facts(path, EntryStore())] == [True, True, False]


def test_a_signature_without_field_matches_the_error_of_a_zap_line(tmp_path: Path) -> None:
    path = tmp_path / "logs.json"
    path.write_text(json.dumps([container_entry(1, ZAP_PAYLOAD)], indent=2))
    result = run_cli("match", "--bundle", str(path), "--format", "json")
    assert result.code == 0, result.stderr
    matches = result.json()["matches"]
    assert [(m["symptom"], m["field"], m["quote"]) for m in matches] == [
        ("tls-certificate-error", "jsonPayload.error", ZAP_ERROR)
    ]
