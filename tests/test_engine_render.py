"""Rendering: commands stay argument lists, filters quote every value, helpers build clauses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.engine.actions import render, resolve_action_params
from mlwiki.engine.render import AUTOSCALER_MESSAGE_ID_FIELDS, render_command, strip_group_names
from mlwiki.errors import BadInput
from mlwiki.logs.plan import MAX_FILTER_CHARS, wrapped
from mlwiki.logs.query import compile_filter
from mlwiki.logs.split import split_filter
from mlwiki.timewindow import Window, parse_timestamp
from mlwiki.wiki import Action, load_wiki
from tests.conftest import WIKI_ROOT
from tests.test_engine_workflow import make_wiki

WINDOW = Window(parse_timestamp("2025-01-01T00:00:00Z"), parse_timestamp("2025-01-01T01:00:00Z"))

SAMPLES = {
    "k8s_name": "llm-pretrain",
    "project_id": "demo-project",
    "timestamp": "2025-01-01T00:00:00Z",
    "duration": "1h",
    "integer": "5",
    "string": "abc",
    "zone": "us-east5-b",
    "kube_context": "gke_demo_us-east5_c1",
}
REAL_WIKI = load_wiki(WIKI_ROOT)
START, END = "2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z"


def action(command: list[str], params: dict[str, Any], kind: str = "kubectl") -> Action:
    data = {"id": "t", "kind": kind, "params": params, "command": command}
    return Action("t", Path("t.json"), data, json.dumps(data))


def sample_values(doc: Action) -> dict[str, Any]:
    given = {}
    for name, spec in doc.params.items():
        if spec.get("required"):
            given[name] = spec["values"][0] if spec["type"] == "enum" else SAMPLES[spec["type"]]
    return resolve_action_params(doc, given)


def test_values_stay_one_argument_and_flags_are_only_the_authors() -> None:
    doc = action(
        ["kubectl", "get", "pods", "-l", "app={{ app }}", "--selector={{ app }}", "{{ name }}"],
        {"app": {"type": "string"}, "name": {"type": "string"}},
    )
    argv = render_command(doc, {"app": "a b;c", "name": "$(id)"})
    assert argv == ["kubectl", "get", "pods", "-l", "app=a b;c", "--selector=a b;c", "$(id)"]
    with pytest.raises(BadInput, match=r"command\[2\]: renders to '--all'"):
        render_command(action(["kubectl", "get", "{{ name }}"], {}), {"name": "--all"})


def test_optional_elements_and_scope_flags() -> None:
    doc = action(
        ["kubectl", "logs", "{{ pod }}", "{% if tail is defined %}--tail={{ tail }}{% endif %}"],
        {"pod": {}, "tail": {}, "context": {}, "namespace": {}},
    )
    assert render_command(doc, {"pod": "p"}) == ["kubectl", "logs", "p"]
    assert render_command(doc, {"pod": "p", "tail": 5, "context": "c", "namespace": "ml"}) == [
        "kubectl", "--context=c", "--namespace=ml", "logs", "p", "--tail=5",
    ]  # fmt: skip
    placed = action(["kubectl", "-n", "{{ namespace }}", "get", "pods"], {"namespace": {}})
    assert render_command(placed, {"namespace": "ml"}) == ["kubectl", "-n", "ml", "get", "pods"]
    with pytest.raises(BadInput, match="must start with 'kubectl'"):
        render_command(action(["sh", "-c", "x"], {}), {})
    with pytest.raises(BadInput, match="cannot render"):
        render_command(action(["kubectl", "get", "{{ missing }}"], {}), {})


def test_filter_values_are_quoted_and_cannot_escape(tmp_path: Path) -> None:
    wiki = load_wiki(make_wiki(tmp_path))
    doc = wiki.actions["find-demo-oom"]
    rendered = render(doc, {"workload": 'x" OR "', "start": START, "end": END}, wiki)
    assert '"x\\" OR \\""' in rendered
    compiled = compile_filter(rendered)
    assert not compiled.matches({"textPayload": "Ran out of memory in memory space hbm"})


def test_symptom_match_joins_signatures_without_group_names(tmp_path: Path) -> None:
    wiki = load_wiki(make_wiki(tmp_path))
    rendered = render(
        wiki.actions["find-demo-oom"],
        {"workload": "w", "start": "2025-01-01T00:00:00Z", "end": "2025-01-02T00:00:00Z"},
        wiki,
    )
    assert (
        'textPayload=~"(?:Ran out of memory in memory space (?:hbm))|(?:task (?:[0-9]+) OOM)"'
        in rendered
    )
    # The page's example is a plain line, not a messageId: no autoscaler paths.
    assert not any(path in rendered for path in AUTOSCALER_MESSAGE_ID_FIELDS)
    assert strip_group_names(r"\(?P<x>a)[(?P<y>]b(?<z>c)") == r"\(?P<x>a)[(?P<y>]b(?:c)"


@pytest.mark.parametrize("action_id", sorted(REAL_WIKI.actions))
def test_every_wiki_action_renders(action_id: str) -> None:
    doc = REAL_WIKI.actions[action_id]
    rendered = render(doc, sample_values(doc), REAL_WIKI)
    if doc.kind == "log_query":
        compile_filter(rendered, action_id)
        # Over Cloud Logging's limit, a live run sends it in parts (mlwiki.logs.split).
        room = MAX_FILTER_CHARS - len(wrapped(WINDOW, ""))
        assert all(len(part) <= room for part in split_filter(rendered, room, action_id))
    elif doc.kind == "metric_query":
        from mlwiki.metrics.filter import compile_filter as compile_metric_filter

        assert compile_metric_filter(rendered, action_id).metric_type.startswith("kubernetes.io/")
    else:
        assert rendered[0] == doc.kind and all(isinstance(arg, str) for arg in rendered)


def _entry_with(field: str, text: str) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    target = entry
    parts = field.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = text
    return entry


@pytest.mark.parametrize("symptom_id", sorted(REAL_WIKI.symptoms))
def test_symptom_match_finds_every_example_of_its_page(symptom_id: str) -> None:
    from mlwiki.engine.render import symptom_clauses

    symptom = REAL_WIKI.symptoms[symptom_id]
    if not symptom.signatures:
        pytest.skip("page without signatures")
    compiled = compile_filter(str(symptom_clauses(REAL_WIKI, symptom_id)), symptom_id)
    fields = {s.field for s in symptom.signatures}
    for example in symptom.examples:
        candidates = [example.field] if example.field else [f or "textPayload" for f in fields]
        assert any(compiled.matches(_entry_with(f, example.line)) for f in candidates), example.line


def test_autoscaler_message_ids_are_matched_by_path() -> None:
    from mlwiki.engine.render import symptom_clauses

    compiled = compile_filter(str(symptom_clauses(REAL_WIKI, "capacity-stockout-or-quota")))
    entry = {
        "jsonPayload": {
            "resultInfo": {
                "results": [{"errorMsg": {"messageId": "scale.up.error.out.of.resources"}}]
            }
        }
    }
    assert compiled.matches(entry)


def _filter_action(template: str) -> Action:
    data = {"id": "q", "kind": "log_query", "params": {}, "filter": template}
    return Action("q", Path("q.json"), data, json.dumps(data))


def _fields_of(rendered: str) -> set[str]:
    import re

    return set(re.findall(r"([A-Za-z][A-Za-z0-9_.]*)=~", rendered))


ALL_MESSAGE_FIELDS = {
    "textPayload",
    "jsonPayload.message",
    "jsonPayload.MESSAGE",
    "protoPayload.methodName",
    "protoPayload.status.message",
    "jsonPayload.msg",
    "jsonPayload.error",
    "jsonPayload.err",
}


@pytest.mark.parametrize(
    ("scope", "fields"),
    [
        ("", ALL_MESSAGE_FIELDS),
        ('timestamp>="2025-01-01T00:00:00Z" AND ', ALL_MESSAGE_FIELDS),
        ('resource.type="k8s_container" AND ', ALL_MESSAGE_FIELDS - {"protoPayload.methodName", "protoPayload.status.message"}),
        ('(resource.type="k8s_node" OR log_id("serialconsole.googleapis.com/serial_port_1_output")) AND ', ALL_MESSAGE_FIELDS - {"protoPayload.methodName", "protoPayload.status.message"}),
        ('log_id("cloudaudit.googleapis.com/system_event") AND ', {"protoPayload.methodName", "protoPayload.status.message"}),
        ('logName="projects/p/logs/cloudaudit.googleapis.com%2Factivity" AND ', {"protoPayload.methodName", "protoPayload.status.message"}),
        ('(log_id("events") OR log_id("cloudaudit.googleapis.com/activity")) AND ', ALL_MESSAGE_FIELDS),
        ('resource.type="gce_instance" AND ', ALL_MESSAGE_FIELDS),
        ('NOT resource.type="k8s_container" AND ', ALL_MESSAGE_FIELDS),
        ('resource.type="k8s_container" OR ', ALL_MESSAGE_FIELDS),
    ],
)  # fmt: skip
def test_symptom_match_writes_only_fields_the_query_can_select(
    scope: str, fields: set[str]
) -> None:
    """A page's all-field signatures go into the fields of the payloads the rest of the filter
    can select: a container query has no audit fields, an audit query nothing else, and a filter
    that does not constrain the source (or that we cannot read) keeps them all."""
    rendered = render(_filter_action(scope + '{{ symptom_match("process-abort") }}'), {}, REAL_WIKI)
    compile_filter(rendered)
    # process-abort also has textPayload-only signatures: those stay where the payload is text.
    assert _fields_of(rendered) == fields | ({"textPayload"} if "textPayload" in fields else set())


def test_a_page_whose_fields_the_query_cannot_select_keeps_its_clauses(tmp_path: Path) -> None:
    root = make_wiki(tmp_path)
    page = root / "symptoms" / "demo-oom.md"
    page.write_text(
        page.read_text().replace(
            "'task (?P<task>[0-9]+) OOM'", "'task (?P<task>[0-9]+) OOM'\n    field: textPayload"
        )
    )
    wiki = load_wiki(root)
    audit = 'log_id("cloudaudit.googleapis.com/system_event") AND {{ symptom_match("demo-oom") }}'
    assert _fields_of(render(_filter_action(audit), {}, wiki)) == {
        "protoPayload.methodName",
        "protoPayload.status.message",
    }
    page.write_text(page.read_text().replace("hbm)'", "hbm)'\n    field: textPayload"))
    rendered = render(_filter_action(audit), {}, load_wiki(root))
    # Nothing the query selects holds text: the clauses stay, so the query stays valid.
    assert _fields_of(rendered) == {"textPayload"}
    compile_filter(rendered)


def _shaped_entries(line: str) -> list[dict[str, Any]]:
    """The line as each source GKE writes could hold it: container text and JSON output (the
    workload's and a system pod's), an event, a node journal, the serial console and a Compute Engine audit entry."""
    pod = {"pod_name": "llm-pretrain-0-abcde", "namespace_name": "default"}
    when = {"timestamp": "2025-01-01T01:00:00Z"}
    container = {"resource": {"type": "k8s_container", "labels": pod}, **when}
    plugin = {"container_name": "tpu-device-plugin", "namespace_name": "kube-system"}
    system = {"resource": {"type": "k8s_container", "labels": plugin}, **when}
    return [
        {**container, "logName": "projects/p/logs/stderr", "textPayload": line},
        {**container, "logName": "projects/p/logs/stdout", "jsonPayload": {"message": line}},
        {**system, "logName": "projects/p/logs/stderr", "textPayload": line},
        {
            "logName": "projects/p/logs/events",
            "resource": {"type": "k8s_pod", "labels": pod},
            "jsonPayload": {"message": line, "involvedObject": {"name": pod["pod_name"]}},
            **when,
        },
        {
            "logName": "projects/p/logs/kubelet",
            "resource": {"type": "k8s_node", "labels": {"node_name": "n1"}},
            "jsonPayload": {"MESSAGE": line},
            **when,
        },
        {
            "logName": "projects/p/logs/serialconsole.googleapis.com%2Fserial_port_1_output",
            "resource": {"type": "gce_instance", "labels": {}},
            "textPayload": line,
            **when,
        },
        *(
            {
                "logName": f"projects/p/logs/cloudaudit.googleapis.com%2F{log}",
                "resource": {"type": "gce_instance", "labels": {}},
                "protoPayload": proto,
                **when,
            }
            for log in ("system_event", "activity")
            for proto in ({"methodName": line}, {"status": {"message": line}})
        ),
    ]


@pytest.mark.parametrize(
    "action_id",
    sorted(
        a.id
        for a in REAL_WIKI.actions.values()
        if a.kind == "log_query" and "symptom_match" in (a.filter or "")
    ),
)
def test_leaving_out_fields_the_query_cannot_select_changes_no_answer(action_id: str) -> None:
    """Every wiki query selects the same entries as with all fields written: its pages' example
    lines, in every source shape, are selected by both filters or by neither."""
    import re

    from mlwiki.engine.render import (
        filter_environment,
        symptom_clauses,
        time_window,
        workload_selector,
    )

    doc = REAL_WIKI.actions[action_id]
    values = {**sample_values(doc), "start": START, "end": END}
    values = {k: v for k, v in values.items() if v is not None}
    pruned = compile_filter(render(doc, values, REAL_WIKI))
    every_field = compile_filter(
        filter_environment()
        .from_string(doc.filter or "")
        .render(
            {
                **values,
                "workload_selector": workload_selector,
                "time_window": time_window,
                "symptom_match": lambda symptom_id: symptom_clauses(REAL_WIKI, symptom_id),
            }
        )
    )
    pages = re.findall(r'symptom_match\("([^"]+)"\)', doc.filter or "")
    lines = [e.line for page in pages for e in REAL_WIKI.symptoms[page].examples]
    selected = 0
    for line in lines:
        for entry in _shaped_entries(line):
            assert pruned.matches(entry) == every_field.matches(entry), (line, entry["logName"])
            selected += pruned.matches(entry)
    assert selected or not lines
