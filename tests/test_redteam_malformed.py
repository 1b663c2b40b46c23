"""Red team: malformed input of every kind → exit 2, a message naming the file/line/field/flag,
no traceback, in bounded time and memory.

The cases are generated from tables (bundles, findings files, wiki files, flag values); each
one runs the real CLI in-process on a tiny wiki or the real one. A case *succeeds as an attack*
when the command raises, exits with anything but 2, prints a traceback, says nothing that names
where the problem is, runs past `TIME_LIMIT` seconds of CPU (or waits past `WALL_LIMIT`), or
(for bombs) allocates more than `MEMORY_LIMIT` bytes.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WIKI_ROOT, run_cli
from tests.test_engine_workflow import ACTIONS, START, SYMPTOM_PAGE, VERIFY, make_wiki

# CPU seconds, not wall seconds: on a loaded machine (other processes, the suite's other worker)
# a quick refusal can take several times longer by the clock. WALL_LIMIT bounds an input that
# blocks without spending CPU (a FIFO).
TIME_LIMIT = 20
WALL_LIMIT = 6 * TIME_LIMIT
MEMORY_LIMIT = 256 << 20
WORKLOAD = "demo-job"


def good_entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "insertId": "a1",
        "logName": "projects/p/logs/stdout",
        "timestamp": "2025-03-01T10:00:01Z",
        "severity": "ERROR",
        "resource": {
            "type": "k8s_container",
            "labels": {"pod_name": "demo-job-0", "namespace_name": "default"},
        },
        "labels": {"compute.googleapis.com/resource_name": "node-a"},
        "textPayload": "Ran out of memory in memory space hbm",
    }
    for key, value in changes.items():
        if "." in key:
            outer, inner = key.split(".", 1)
            entry[outer] = {**entry.get(outer, {}), inner: value}
        else:
            entry[key] = value
    return entry


@dataclass
class Case:
    name: str
    build: Callable[[Path], list[str]]  # tmp dir -> argv (after `--wiki WIKI`)
    expect: str  # what the message must name (a file name, a field or a flag)
    wiki: str = "small"  # "small" (tests/test_engine_workflow.make_wiki), "real"
    bomb: bool = False  # measured for memory
    # `verify` reports a findings file that breaks the schema as its verdict (exit 1, each
    # problem named); input it cannot even read is bad input (2).
    codes: tuple[int, ...] = (2,)


CASES: list[Case] = []


def case(name: str, expect: str, wiki: str = "small", bomb: bool = False):
    def register(build: Callable[[Path], list[str]]) -> Callable[[Path], list[str]]:
        CASES.append(Case(name, build, expect, wiki, bomb))
        return build

    return register


# --- bundles --------------------------------------------------------------------------------------

COMMANDS_ON_BUNDLE: dict[str, list[str]] = {
    "troubleshoot": ["troubleshoot", WORKLOAD, "--bundle"],
    "match": ["match", WORKLOAD, "--bundle"],
    "action": ["action", "find-demo-oom", "--param", f"workload={WORKLOAD}", "--bundle"],
}


def bundle_case(name: str, content: bytes | Callable[[], bytes], file: str = "logs.jsonl", **kw):
    for command, argv in COMMANDS_ON_BUNDLE.items():
        if command != "troubleshoot" and not kw.get("all_commands"):
            continue

        def build(tmp: Path, argv: list[str] = argv, content: Any = content) -> list[str]:
            data = content() if callable(content) else content
            path = tmp / file
            path.write_bytes(data)
            return [*argv, str(path)]

        CASES.append(Case(f"bundle-{name}-{command}", build, file, bomb=kw.get("bomb", False)))


def jsonl(*entries: Any) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def array(*entries: Any) -> bytes:
    return json.dumps(list(entries), indent=1).encode()


ALL = {"all_commands": True}
bundle_case(
    "truncated-array", array(good_entry(), good_entry(insertId="b"))[:-40], file="a.json", **ALL
)
bundle_case("truncated-line", jsonl(good_entry())[:-20], **ALL)
bundle_case("unclosed-array", b"[" + json.dumps(good_entry()).encode(), file="a.json")
bundle_case("trailing-comma", b"[" + json.dumps(good_entry()).encode() + b",]", file="a.json")
bundle_case("garbage-between", b"[" + json.dumps(good_entry()).encode() + b" x ]", file="a.json")
bundle_case("not-json", b"this is not json\n", **ALL)
bundle_case("bare-word-value", b'{"timestamp": nope}\n')
bundle_case("nan-literal", b'{"timestamp": NaN}\n')
bundle_case("single-quotes", b"{'timestamp': '2025-03-01T10:00:01Z'}\n")
bundle_case("top-level-number", b"5\n", **ALL)
bundle_case("top-level-string", b'"entry"\n')
bundle_case("top-level-null", b"null\n")
bundle_case("array-of-numbers", b"[1, 2, 3]", file="a.json", **ALL)
bundle_case("array-of-arrays", b"[[], []]", file="a.json")
bundle_case("array-of-strings", b'["a", "b"]', file="a.json")
bundle_case("no-timestamp", jsonl({"insertId": "x", "textPayload": "hello"}), **ALL)
for label, value in [
    ("number", 5),
    ("null", None),
    ("list", []),
    ("object", {}),
    ("empty", ""),
    ("word", "yesterday"),
    ("month-13", "2025-13-01T00:00:00Z"),
    ("feb-30", "2025-02-30T00:00:00Z"),
    ("year-10000", "10000-01-01T00:00:00Z"),
    ("year-0", "0000-01-01T00:00:00Z"),
    ("hour-25", "2025-03-01T25:00:00Z"),
    ("offset-25h", "2025-03-01T10:00:00+25:00"),
    ("negative-year", "-2025-03-01T10:00:00Z"),
    ("huge-fraction", "2025-03-01T10:00:00." + "9" * 5000 + "Z"),
    ("unicode-digits", "２０２５-03-01T10:00:00Z"),
]:
    bundle_case(f"timestamp-{label}", jsonl(good_entry(timestamp=value)), **ALL)
for label, value in [
    ("year-9999-end", "9999-12-31T23:59:59.999999999Z"),
    ("year-1", "0001-01-01T00:00:00Z"),
]:
    # Valid RFC 3339 but out of any real window: the window arithmetic must not overflow.
    bundle_case(f"timestamp-{label}", jsonl(good_entry(timestamp=value)), **ALL)
WRONG_TYPES: list[tuple[str, Any]] = [
    ("textPayload", 5),
    ("textPayload", ["a"]),
    ("textPayload", {"a": 1}),
    ("textPayload", True),
    ("jsonPayload", "a string"),
    ("jsonPayload", [1, 2]),
    ("jsonPayload", 5),
    ("resource", "k8s_container"),
    ("resource", ["k8s_container"]),
    ("resource.labels", "pod"),
    ("resource.labels", ["pod"]),
    ("resource.type", 5),
    ("resource.labels", {"pod_name": 5}),
    ("resource.labels", {"pod_name": {"x": 1}}),
    ("labels", "node-a"),
    ("labels", ["node-a"]),
    ("labels", {"compute.googleapis.com/resource_name": 5}),
    ("labels", {"compute.googleapis.com/resource_name": ["n"]}),
    ("insertId", 5),
    ("insertId", {"id": 1}),
    ("insertId", ["a"]),
    ("logName", 5),
    ("logName", {"a": 1}),
    ("severity", 5.5),
    ("severity", {"level": "ERROR"}),
    ("severity", ["ERROR"]),
    ("protoPayload", "x"),
    ("protoPayload", [1]),
    ("httpRequest", "GET /"),
    ("receiveTimestamp", 5),
    ("sourceLocation", "main.py:1"),
    ("operation", "op"),
    ("trace", {"t": 1}),
]
# Legal LogEntries (a payload is any JSON object), only unusual: read, never refused or crashed on.
ODD_BUT_LEGAL: list[tuple[str, Any]] = [
    ("jsonPayload.message", 5),
    ("jsonPayload.message", {"nested": "x"}),
    ("jsonPayload.message", ["x"]),
    ("jsonPayload.MESSAGE", 7.5),
    ("jsonPayload.message", None),
    ("protoPayload.status", "x"),
    ("protoPayload.methodName", 5),
    ("severity", 500),
    ("textPayload", ""),
    ("labels", {}),
]
for field_path, value in WRONG_TYPES:
    kind = type(value).__name__
    bundle_case(
        f"field-{field_path}-{kind}",
        jsonl(good_entry(**{field_path: value})),
        **(ALL if field_path in ("textPayload", "jsonPayload", "resource", "labels") else {}),
    )


def _deep(levels: int, open_: str, close: str, inner: str = "1") -> bytes:
    return (open_ * levels + inner + close * levels).encode()


bundle_case("deep-array-top", _deep(200_000, "[", "]"), file="a.json", **ALL)
bundle_case(
    "deep-object-in-entry",
    lambda: (
        b'{"timestamp": "2025-03-01T10:00:01Z", "jsonPayload": '
        + _deep(100_000, '{"a":', "}")
        + b"}\n"
    ),
    **ALL,
)
bundle_case(
    "deep-nesting-under-the-parser-limit",
    lambda: (
        b'{"timestamp": "2025-03-01T10:00:01Z", "jsonPayload": ' + _deep(900, '{"a":', "}") + b"}\n"
    ),
    **ALL,
)
bundle_case(
    "huge-integer",
    b'{"timestamp": "2025-03-01T10:00:01Z", "n": ' + b"9" * 100_000 + b"}\n",
    **ALL,
)
bundle_case(
    "lone-surrogate-escape",
    jsonl(good_entry())[:-2].replace(b"hbm", b"hbm \\ud800") + b"\n",
    **ALL,
)
bundle_case("nul-bytes", jsonl(good_entry()).replace(b"memory", b"mem\x00ory"), **ALL)
bundle_case("all-nul", b"\x00" * 10_000, **ALL)
bundle_case(
    "latin-1",
    json.dumps(good_entry(textPayload="café"), ensure_ascii=False)
    .encode()
    .replace("é".encode(), b"\xe9"),
    **ALL,
)
bundle_case("invalid-utf8-start", b"\xff\xfe\xfd" + jsonl(good_entry()), **ALL)
bundle_case(
    "utf16-le-bom",
    b"\xff\xfe" + json.dumps([good_entry()]).encode("utf-16-le"),
    file="a.json",
    **ALL,
)
bundle_case(
    "utf16-be-bom", b"\xfe\xff" + json.dumps([good_entry()]).encode("utf-16-be"), file="a.json"
)
bundle_case("utf32-bom", b"\xff\xfe\x00\x00" + json.dumps([good_entry()]).encode("utf-32-le"))
bundle_case(
    "gzip-truncated",
    lambda: gzip.compress(jsonl(good_entry()) * 50)[:-30],
    file="a.jsonl.gz",
    **ALL,
)
bundle_case("gzip-garbage", b"\x1f\x8b\x08\x00garbage-not-deflate", file="a.jsonl.gz", **ALL)
bundle_case("gzip-header-only", b"\x1f\x8b", file="a.jsonl.gz")
bundle_case(
    "gzip-bad-crc", lambda: gzip.compress(jsonl(good_entry()))[:-8] + b"\0" * 8, file="a.jsonl.gz"
)
bundle_case(
    "gzip-bomb-zeros",
    lambda: gzip.compress(b"\0" * (300 << 20), compresslevel=1),
    file="a.jsonl.gz",
    bomb=True,
    **ALL,
)
bundle_case(
    "gzip-bomb-whitespace",
    lambda: gzip.compress(b"[" + b" " * (300 << 20) + b"]", compresslevel=1),
    file="a.json.gz",
    bomb=True,
)
bundle_case(
    "gzip-bomb-repeated-entry",
    lambda: gzip.compress(jsonl(good_entry()) * 200_000, compresslevel=9),
    file="a.jsonl.gz",
    bomb=True,
)
bundle_case(
    "gzip-nested",
    lambda: gzip.compress(gzip.compress(jsonl(good_entry()))),
    file="a.jsonl.gz",
)
bundle_case(
    "whitespace-bomb-in-entry",
    lambda: b'{"timestamp":' + b" " * (40 << 20) + b'"2025-03-01T10:00:01Z"}',
    file="a.json",
    bomb=True,
    **ALL,
)
bundle_case(
    "whitespace-bomb-unclosed-array",
    lambda: b"[" + b" \n" * (20 << 20),
    file="a.json",
    bomb=True,
)
bundle_case(
    "huge-line",
    lambda: b'{"timestamp": "2025-03-01T10:00:01Z", "textPayload": "' + b"x" * (40 << 20) + b'"}\n',
    bomb=True,
    **ALL,
)
bundle_case(
    "huge-line-without-newline",
    lambda: b"{" + b'"k": "' + b"y" * (40 << 20),
    bomb=True,
)


@case("bundle-is-a-fifo", "fifo")
def _fifo(tmp: Path) -> list[str]:
    os.mkfifo(tmp / "fifo.jsonl")
    return ["troubleshoot", WORKLOAD, "--bundle", str(tmp / "fifo.jsonl")]


@case("bundle-dir-with-fifo", "fifo")
def _dir_fifo(tmp: Path) -> list[str]:
    (tmp / "b").mkdir()
    (tmp / "b" / "logs.jsonl").write_bytes(jsonl(good_entry()))
    os.mkfifo(tmp / "b" / "fifo.jsonl")
    return ["troubleshoot", WORKLOAD, "--bundle", str(tmp / "b")]


@case("bundle-dir-named-json", "bundle")
def _dir_json(tmp: Path) -> list[str]:
    (tmp / "b" / "x.json").mkdir(parents=True)
    return ["troubleshoot", WORKLOAD, "--bundle", str(tmp / "b")]


@case("bundle-missing", "nope.jsonl")
def _missing(tmp: Path) -> list[str]:
    return ["troubleshoot", WORKLOAD, "--bundle", str(tmp / "nope.jsonl")]


@case("bundle-symlink-loop", "loop")
def _loop(tmp: Path) -> list[str]:
    (tmp / "b").mkdir()
    (tmp / "b" / "loop.json").symlink_to(tmp / "b" / "loop.json")
    return ["troubleshoot", WORKLOAD, "--bundle", str(tmp / "b")]


# --- findings files -------------------------------------------------------------------------------

GOOD_FINDINGS: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "secrets" / "incident" / "findings.json").read_text("utf-8")
)


def findings_case(
    name: str,
    content: bytes | Callable[[], bytes],
    expect: str = "findings",
    schema_only: bool = False,
) -> None:
    for command in ("verify", "handoff"):

        def build(tmp: Path, command: str = command, content: Any = content) -> list[str]:
            path = tmp / "findings.json"
            path.write_bytes(content() if callable(content) else content)
            (tmp / "b.jsonl").write_bytes(jsonl(good_entry()))
            if command == "verify":
                return ["verify", str(path), "--bundle", str(tmp / "b.jsonl")]
            return [
                "handoff", "llm-pretrain", "--findings", str(path), "--bucket", "cc-handoff",
                "--bundle", str(tmp / "b.jsonl"), "--no-watch",
            ]  # fmt: skip

        codes = (1, 2) if command == "verify" and schema_only else (2,)
        CASES.append(Case(f"findings-{name}-{command}", build, expect, wiki="real", codes=codes))


def changed_findings(**changes: Any) -> bytes:
    findings = json.loads(json.dumps(GOOD_FINDINGS))
    for path, value in changes.items():
        target = findings
        parts = path.split("__")
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            target[int(parts[-1])] = value
        else:
            target[parts[-1]] = value
    return json.dumps(findings).encode()


findings_case("invalid-json", b'{"workload": ')
findings_case("empty-file", b"")
findings_case("top-level-list", b"[]")
findings_case(
    "nul-bytes", json.dumps(GOOD_FINDINGS).encode().replace(b'"workload"', b'"work\x00load"')
)
findings_case("latin-1", json.dumps(GOOD_FINDINGS).encode() + b"\xe9")
findings_case(
    "deep-nesting", lambda: b'{"workload": "llm-pretrain", "x": ' + _deep(100_000, "[", "]") + b"}"
)
findings_case("huge-integer", b'{"workload": "llm-pretrain", "x": ' + b"9" * 100_000 + b"}")
findings_case(
    "lone-surrogate", json.dumps(GOOD_FINDINGS).encode().replace(b"Worker 1", b"Worker \\udc00")
)
for path, value in [
    ("evidence", "E1"),
    ("evidence", {"E1": 1}),
    ("evidence__0", "E1"),
    ("evidence__0__id", 5),
    ("evidence__0__insertId", ["x"]),
    ("evidence__0__timestamp", "10000-01-01T00:00:00Z"),
    ("evidence__0__timestamp", 5),
    ("evidence__0__quote", {"q": 1}),
    ("root_cause", "tpu-hbm-oom"),
    ("root_cause__evidence", "E1"),
    ("culprit_hosts", {"host": "a"}),
    ("culprit_hosts__0", "gke-tpu-node-b"),
    ("failures", "crash"),
    ("failures__0__time", "yesterday"),
    ("window", "24h"),
    ("window__start", "10000-01-01T00:00:00Z"),
    ("window__end", 5),
    ("status", 5),
    ("data", "bundle"),
    ("workload", 5),
]:
    findings_case(
        f"{path}-{type(value).__name__}-{str(value)[:12]}",
        changed_findings(**{path: value}),
        expect="findings|schema|evidence",
        schema_only=True,
    )


# --- wiki files -----------------------------------------------------------------------------------


def wiki_case(name: str, folder: str, file: str, content: bytes | str, argv: list[str]) -> None:
    def build(tmp: Path) -> list[str]:
        path = tmp / "_wiki" / folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        (tmp / "b.jsonl").write_bytes(jsonl(good_entry()))
        return [a.replace("{bundle}", str(tmp / "b.jsonl")) for a in argv]

    CASES.append(Case(f"wiki-{name}", build, file))


RUN_ACTION = ["action", "find-demo-oom", "--param", f"workload={WORKLOAD}", "--bundle", "{bundle}"]
RUN_FLOW = ["run", "verify-demo-oom", "--param", f"workload={WORKLOAD}", "--bundle", "{bundle}"]


def action_with(**changes: Any) -> str:
    return json.dumps({"id": "find-demo-oom", **ACTIONS["find-demo-oom"], **changes})


def workflow_with(**changes: Any) -> str:
    return json.dumps({"id": "verify-demo-oom", **VERIFY, **changes})


wiki_case(
    "action-invalid-json", "actions", "find-demo-oom.json", '{"id": "find-demo-oom",', RUN_ACTION
)
wiki_case("action-not-object", "actions", "find-demo-oom.json", "[]", RUN_ACTION)
wiki_case(
    "action-bom-utf16",
    "actions",
    "find-demo-oom.json",
    b"\xff\xfe" + action_with().encode("utf-16-le"),
    RUN_ACTION,
)
wiki_case(
    "action-nul",
    "actions",
    "find-demo-oom.json",
    action_with().replace("Find", "Fi\x00nd"),
    RUN_ACTION,
)
wiki_case(
    "action-latin1", "actions", "find-demo-oom.json", action_with().encode() + b"\xe9", RUN_ACTION
)
for label, changes in [
    ("params-list", {"params": ["workload"]}),
    ("params-string", {"params": "workload"}),
    ("param-spec-string", {"params": {"workload": "k8s_name"}}),
    ("param-type-unknown", {"params": {"workload": {"type": "banana", "required": True}}}),
    ("param-type-number", {"params": {"workload": {"type": 5}}}),
    ("filter-number", {"filter": 5}),
    ("filter-list", {"filter": ["a"]}),
    ("filter-bad-template", {"filter": "{{ workload "}),
    ("filter-unknown-function", {"filter": "{{ nope(workload) }}"}),
    ("kind-unknown", {"kind": "teleport"}),
    ("kind-number", {"kind": 5}),
    ("extract-list", {"extract": ["a"]}),
    ("extract-bad-regex", {"extract": {"space": "memory space ([a-z"}}),
    ("timeout-string", {"timeout_seconds": "soon"}),
    ("timeout-negative", {"timeout_seconds": -1}),
    ("timeout-huge", {"timeout_seconds": 1e308}),
    ("requires-approval-string", {"requires_approval": "yes"}),
    ("id-mismatch", {"id": "other-id"}),
]:
    wiki_case(
        f"action-{label}", "actions", "find-demo-oom.json", action_with(**changes), RUN_ACTION
    )
wiki_case("kubectl-command-string", "actions", "get-node.json",
          json.dumps({"id": "get-node", **ACTIONS["get-node"], "command": "kubectl get node x"}),
          ["action", "get-node", "--param", "node=node-a", "--dry-run"])  # fmt: skip
wiki_case("kubectl-command-numbers", "actions", "get-node.json",
          json.dumps({"id": "get-node", **ACTIONS["get-node"], "command": ["kubectl", 5, None]}),
          ["action", "get-node", "--param", "node=node-a", "--dry-run"])  # fmt: skip
wiki_case("kubectl-command-empty", "actions", "get-node.json",
          json.dumps({"id": "get-node", **ACTIONS["get-node"], "command": []}),
          ["action", "get-node", "--param", "node=node-a", "--dry-run"])  # fmt: skip
wiki_case("workflow-invalid-json", "workflows", "verify-demo-oom.json", "{", RUN_FLOW)
wiki_case("workflow-not-object", "workflows", "verify-demo-oom.json", '"steps"', RUN_FLOW)
for label, changes in [
    ("steps-string", {"steps": "find"}),
    ("steps-dict", {"steps": {"find": {}}}),
    ("step-string", {"steps": ["find"]}),
    ("step-no-uses", {"steps": [{"id": "find"}]}),
    ("step-uses-number", {"steps": [{"id": "find", "uses": 5}]}),
    ("step-uses-unknown", {"steps": [{"id": "find", "uses": "no-such-action"}]}),
    ("step-id-number", {"steps": [{"id": 5, "uses": "find-demo-oom"}]}),
    ("step-duplicate-id", {"steps": [{"id": "a", "uses": "find-demo-oom"}] * 2}),
    ("step-with-list", {"steps": [{"id": "find", "uses": "find-demo-oom", "with": ["x"]}]}),
    ("step-if-syntax", {"steps": [{"id": "find", "uses": "find-demo-oom", "if": "steps.(("}]}),
    ("step-if-number", {"steps": [{"id": "find", "uses": "find-demo-oom", "if": 5}]}),
    ("step-outputs-list", {"steps": [{"id": "find", "uses": "find-demo-oom", "outputs": ["a"]}]}),
    (
        "step-output-bad-expr",
        {"steps": [{"id": "find", "uses": "find-demo-oom", "outputs": {"a": "result.(("}}]},
    ),
    ("conclusions-string", {"conclusions": "confirmed"}),
    ("conclusion-verdict-unknown", {"conclusions": [{"verdict": "maybe", "summary": "x"}]}),
    (
        "conclusion-if-syntax",
        {"conclusions": [{"if": "((", "verdict": "confirmed", "summary": "x"}]},
    ),
    (
        "conclusion-summary-template",
        {"conclusions": [{"verdict": "inconclusive", "summary": "{{ x "}]},
    ),
    ("params-list", {"params": ["workload"]}),
    ("outputs-list", {"outputs": ["culprit"]}),
    (
        "template-attack",
        {
            "steps": [
                {
                    "id": "find",
                    "uses": "find-demo-oom",
                    "with": {"workload": "{{ ''.__class__.__mro__ }}"},
                }
            ]
        },
    ),
]:
    wiki_case(
        f"workflow-{label}", "workflows", "verify-demo-oom.json", workflow_with(**changes), RUN_FLOW
    )
MATCH = ["match", WORKLOAD, "--bundle", "{bundle}"]
FRONTMATTER_CASES = [
    ("yaml-syntax", "---\ntitle: [unclosed\n---\nbody\n"),
    ("not-a-mapping", "---\n- a\n- b\n---\nbody\n"),
    ("no-closing-fence", "---\ntitle: x\nrole: root\n"),
    (
        "signatures-string",
        SYMPTOM_PAGE.replace(
            "signatures:\n  - pattern: 'Ran out of memory in memory space (?P<space>hbm)'\n  - pattern: 'task (?P<task>[0-9]+) OOM'",
            "signatures: 'oom'",
        ),
    ),
    ("signature-number", SYMPTOM_PAGE.replace("- pattern: 'task (?P<task>[0-9]+) OOM'", "- 5")),
    ("signature-bad-re2", SYMPTOM_PAGE.replace("'task (?P<task>[0-9]+) OOM'", "'task (?<=x) ((('")),
    ("signature-pattern-list", SYMPTOM_PAGE.replace("'task (?P<task>[0-9]+) OOM'", "['a', 'b']")),
    (
        "signature-field-number",
        SYMPTOM_PAGE.replace(
            "- pattern: 'task (?P<task>[0-9]+) OOM'", "- pattern: 'x'\n    field: 5"
        ),
    ),
    ("role-unknown", SYMPTOM_PAGE.replace("role: root", "role: villain")),
    ("role-list", SYMPTOM_PAGE.replace("role: root", "role: [root]")),
    (
        "yaml-alias-bomb",
        "---\n"
        + "a: &a ['x','x','x','x','x','x','x','x','x']\n"
        + "".join(
            f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi")
        )
        + "title: x\nrole: root\n---\nbody\n",
    ),
    (
        "yaml-python-tag",
        "---\ntitle: !!python/object/apply:os.system ['echo pwned']\nrole: root\n---\nbody\n",
    ),
    ("nul-bytes", SYMPTOM_PAGE.replace("body", "bo\x00dy")),
    ("latin-1", SYMPTOM_PAGE.encode().replace(b"body", b"caf\xe9")),
    ("utf16", b"\xff\xfe" + SYMPTOM_PAGE.encode("utf-16-le")),
    ("huge-repetition", SYMPTOM_PAGE.replace("'task (?P<task>[0-9]+) OOM'", "'(a{1000}){1000}'")),
]
for label, content in FRONTMATTER_CASES:

    def build(tmp: Path, content: Any = content) -> list[str]:
        path = tmp / "_wiki" / "symptoms" / "demo-oom.md"
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        (tmp / "b.jsonl").write_bytes(jsonl(good_entry()))
        return ["troubleshoot", WORKLOAD, "--bundle", str(tmp / "b.jsonl")]

    CASES.append(Case(f"wiki-symptom-{label}", build, "demo-oom.md"))


# --- flag values ----------------------------------------------------------------------------------


def flag_case(name: str, argv: list[str], expect: str, wiki: str = "small") -> None:
    def build(tmp: Path) -> list[str]:
        (tmp / "b.jsonl").write_bytes(jsonl(good_entry()))
        return [
            a.replace("{bundle}", str(tmp / "b.jsonl")).replace("{tmp}", str(tmp)) for a in argv
        ]

    CASES.append(Case(f"flag-{name}", build, expect, wiki))


ON_BUNDLE = ["--bundle", "{bundle}"]
for label, value in [
    ("superscript-two", "²"),
    ("arabic-indic-digit", "٣"),
    ("fullwidth-digit", "５"),
    ("negative", "-5"),
    ("huge", "9" * 5000),
    ("float", "2.5"),
    ("empty", ""),
    ("words", "ten"),
]:
    flag_case(f"param-integer-{label}", ["action", "kubectl-logs-pod", "--param", "pod=p-0",
              "--param", f"tail={value}", "--dry-run"], "tail", wiki="real")  # fmt: skip
for label, param in [
    ("no-equals", "workload"),
    ("empty-name", "=x"),
    ("unknown-name", "colour=blue"),
    ("name-with-space", "work load=x"),
    ("workload-uppercase", "workload=DEMO"),
    ("workload-shell", "workload=demo;rm -rf ~"),
    ("workload-dash-start", "workload=-rf"),
    ("workload-newline", "workload=demo\nx"),
    ("workload-nul", "workload=demo\x00x"),
    ("workload-too-long", "workload=" + "a" * 300),
    ("start-garbage", "start=yesterday-ish"),
    ("start-year-10000", "start=10000-01-01T00:00:00Z"),
    ("end-month-13", "end=2025-13-01T00:00:00Z"),
]:
    flag_case(f"param-{label}", ["action", "find-demo-oom", "--param", f"workload={WORKLOAD}",
              "--param", param, *ON_BUNDLE], param.split("=")[0] or "param")  # fmt: skip
for label, value in [
    ("huge-days", "99999999999999d"),
    ("huge-hours", "9" * 400 + "h"),
    ("negative", "-5h"),
    ("zero", "0h"),
    ("garbage", "abc"),
    ("float-exponent", "1e9h"),
    ("unit-unknown", "5 fortnights"),
    ("empty", ""),
    ("nul", "5\x00h"),
    ("superscript", "²h"),
]:
    for command in (["troubleshoot", WORKLOAD, *ON_BUNDLE], ["match", WORKLOAD, *ON_BUNDLE],
                    ["action", "find-demo-oom", "--param", f"workload={WORKLOAD}", *ON_BUNDLE]):  # fmt: skip
        flag_case(f"since-{label}-{command[0]}", [*command, "--since", value], "--since")
for label, start, end in [
    ("start-after-end", "2025-03-02T00:00:00Z", "2025-03-01T00:00:00Z"),
    ("year-10000", "10000-01-01T00:00:00Z", "10000-01-02T00:00:00Z"),
    ("year-0001-to-9999", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"),
    ("garbage", "soon", "later"),
    ("end-only-garbage", START, "2025-02-30T00:00:00Z"),
    ("offset-garbage", "2025-03-01T00:00:00+99:00", "2025-03-01T01:00:00Z"),
    ("relative-huge", "99999999999999 days ago", "now"),
]:
    flag_case(
        f"window-{label}",
        ["troubleshoot", WORKLOAD, *ON_BUNDLE, "--start", start, "--end", end],
        "--start|--end",
    )
for label, argv, expect in [
    (
        "max-entries-zero",
        ["troubleshoot", WORKLOAD, *ON_BUNDLE, "--max-entries", "0"],
        "--max-entries",
    ),
    (
        "max-entries-huge",
        ["troubleshoot", WORKLOAD, "--project", "proj-123", "--max-entries", "9" * 400],
        "--max-entries",
    ),
    (
        "max-entries-word",
        ["troubleshoot", WORKLOAD, *ON_BUNDLE, "--max-entries", "many"],
        "--max-entries",
    ),
    (
        "max-log-calls-negative",
        ["troubleshoot", WORKLOAD, *ON_BUNDLE, "--max-log-calls", "-1"],
        "--max-log-calls",
    ),
    (
        "max-log-calls-huge",
        ["troubleshoot", WORKLOAD, "--project", "proj-123", "--max-log-calls", "9" * 400],
        "--max-log-calls",
    ),
    ("workload-uppercase", ["troubleshoot", "LLM", *ON_BUNDLE], "WORKLOAD"),
    ("workload-empty", ["troubleshoot", "", *ON_BUNDLE], "WORKLOAD"),
    ("workload-nul", ["troubleshoot", "a\x00b", *ON_BUNDLE], "WORKLOAD"),
    ("workload-300-chars", ["troubleshoot", "a" * 300, *ON_BUNDLE], "WORKLOAD"),
    ("project-bad", ["troubleshoot", WORKLOAD, "--project", "Bad Project!"], "--project"),
    ("project-nul", ["troubleshoot", WORKLOAD, "--project", "p\x00x"], "--project"),
    ("format-unknown", ["troubleshoot", WORKLOAD, *ON_BUNDLE, "--format", "xml"], "--format"),
    (
        "handoff-interval-nan",
        ["handoff", "--watch", "k", "--bucket", "b-1", "--interval", "nan"],
        "--interval",
    ),
    (
        "handoff-interval-inf",
        ["handoff", "--watch", "k", "--bucket", "b-1", "--interval", "inf"],
        "--interval",
    ),
    (
        "handoff-interval-negative",
        ["handoff", "--watch", "k", "--bucket", "b-1", "--interval", "-1"],
        "--interval",
    ),
    (
        "handoff-max-interval-nan",
        ["handoff", "--watch", "k", "--bucket", "b-1", "--max-interval", "nan"],
        "--interval",
    ),
    ("handoff-watch-dotdot", ["handoff", "--watch", "../x", "--bucket", "b-1"], "--watch"),
    ("handoff-watch-slash", ["handoff", "--watch", "a/b", "--bucket", "b-1"], "--watch"),
    ("handoff-watch-300", ["handoff", "--watch", "k" * 300, "--bucket", "b-1"], "--watch"),
    ("handoff-bucket-bad", ["handoff", "--watch", "k", "--bucket", "Bad_Bucket!"], "--bucket"),
    (
        "handoff-case-id-bad",
        ["handoff", "llm-pretrain", "case/../x", "--bucket", "b-1", "--findings", "{tmp}/f.json"],
        "CASE_ID",
    ),
    ("handoff-workload-bad", ["handoff", "LLM!", "--bucket", "b-1"], "WORKLOAD_ID"),
    ("dashboard-port-huge", ["dashboard", "--port", "99999", "--no-browser"], "--port"),
    ("dashboard-port-negative", ["dashboard", "--port", "-1", "--no-browser"], "--port"),
    ("dashboard-port-word", ["dashboard", "--port", "http", "--no-browser"], "--port"),
    ("eval-missing-dir", ["eval", "{tmp}/no-such-dir"], "no-such-dir"),
    ("eval-file-not-dir", ["eval", "{bundle}"], "b.jsonl"),
    ("verify-missing-findings", ["verify", "{tmp}/none.json", *ON_BUNDLE], "none.json"),
    ("verify-bundle-missing", ["verify", "{bundle}", "--bundle", "{tmp}/none.jsonl"], "none.jsonl"),
    ("match-bundle-and-project", ["match", WORKLOAD, *ON_BUNDLE, "--project", "p-1"], "--project"),
    ("action-unknown", ["action", "no-such-action"], "no-such-action"),
    ("run-unknown", ["run", "no-such-workflow"], "no-such-workflow"),
    ("wiki-dir-missing", ["--wiki", "{tmp}/nowiki", "lint"], "nowiki"),
    ("snapshot-out-is-file", ["snapshot", "--out", "{bundle}"], "--out"),
]:
    flag_case(label, argv, expect)


def _number_repeated_names() -> None:
    seen: dict[str, int] = {}
    for item in CASES:
        seen[item.name] = seen.get(item.name, 0) + 1
        if seen[item.name] > 1:
            item.name = f"{item.name}-{seen[item.name]}"


_number_repeated_names()


def test_there_are_at_least_200_cases() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) >= 200, len(names)


class _TimeLimit(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _TimeLimit(f"{TIME_LIMIT} s of CPU" if signum == signal.SIGPROF else f"{WALL_LIMIT} s")


def attempt(item: Case, tmp: Path) -> str | None:
    """None when the input was refused properly; else how the attack succeeded."""
    wiki = WIKI_ROOT if item.wiki == "real" else make_wiki(tmp)
    if item.wiki == "small":
        (wiki / "symptoms" / "demo-oom.md").write_text(SYMPTOM_PAGE)
    argv = item.build(tmp)
    if argv[:1] != ["--wiki"]:
        argv = ["--wiki", str(wiki), *argv]
    previous = {
        number: signal.signal(number, _alarm) for number in (signal.SIGPROF, signal.SIGALRM)
    }
    signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT)
    signal.alarm(WALL_LIMIT)
    if item.bomb:
        tracemalloc.start()
    try:
        result = run_cli(*argv)
    except _TimeLimit as limit:
        return f"still running after {limit}"
    except BaseException as error:  # any escape is the attack succeeding
        return f"raised {error.__class__.__name__}: {str(error)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        for number, handler in previous.items():
            signal.signal(number, handler)
        peak = tracemalloc.get_traced_memory()[1] if item.bomb else 0
        if item.bomb:
            tracemalloc.stop()
    if item.bomb and peak > MEMORY_LIMIT:
        return f"allocated {peak >> 20} MiB"
    if "Traceback" in result.stderr + result.stdout:
        return "printed a traceback"
    if result.code not in item.codes:
        return f"exit {result.code}: {(result.stderr or result.stdout)[:200]!r}"
    said = result.stderr if result.code == 2 else result.stdout + result.stderr
    if not any(word.lower() in said.lower() for word in item.expect.split("|")):
        return f"message does not name {item.expect!r}: {result.stderr[:300]!r}"
    if len(result.stderr) > 4000:
        return f"message of {len(result.stderr)} characters"
    return None


@pytest.mark.parametrize("command", list(COMMANDS_ON_BUNDLE))
def test_odd_but_legal_entries_are_read(command: str, tmp_path: Path) -> None:
    wiki = make_wiki(tmp_path)
    bundle = tmp_path / "b.jsonl"
    bundle.write_bytes(
        jsonl(
            good_entry(),
            *(good_entry(insertId=f"o{n}", **{p: v}) for n, (p, v) in enumerate(ODD_BUT_LEGAL)),
        )
    )
    result = run_cli("--wiki", str(wiki), *COMMANDS_ON_BUNDLE[command], str(bundle))
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("item", CASES, ids=lambda c: c.name)
def test_malformed_input_is_refused_clearly(item: Case, tmp_path: Path) -> None:
    outcome = attempt(item, tmp_path)
    assert outcome is None, outcome
