"""Every lint rule fails on a planted defect and passes on the minimal valid wiki."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from mlwiki.lint.model import Rule
from mlwiki.lint.registry import RULES, RULES_BY_CODE
from mlwiki.lint.runner import lint
from tests.lint_fixtures.mini_wiki import ACTIONS, MiniWiki, concept_page, symptom_page


@dataclass(frozen=True)
class Case:
    code: str
    file: str  # the file the problem must name, relative to _wiki/
    plant: Callable[[MiniWiki], object]
    reindex: bool = True  # regenerate INDEX.md after planting (so only the planted rule fires)


def _steps(change: Callable[[list[dict]], None]) -> Callable[[MiniWiki], object]:
    return lambda w: w.edit_json("workflows/verify-demo-failure.json", lambda d: change(d["steps"]))


def _action(action_id: str, change: Callable[[dict], None]) -> Callable[[MiniWiki], object]:
    return lambda w: w.edit_json(f"actions/{action_id}.json", change)


SYMPTOM = "symptoms/demo-failure.md"
WORKFLOW = "workflows/verify-demo-failure.json"

CASES = [
    Case(
        "E001",
        "symptoms/binary.md",
        lambda w: w.path("symptoms/binary.md").write_bytes(b"---\x00\xff"),
    ),
    Case(
        "E002",
        WORKFLOW,
        lambda w: w.write(WORKFLOW, '{"id": "verify-demo-failure",\n  "steps": [}\n'),
    ),
    Case(
        "E003",
        "concepts/demo-concept.md",
        lambda w: w.write(
            "concepts/demo-concept.md", "# No frontmatter\n\n[s](../symptoms/demo-failure.md)\n"
        ),
    ),
    Case(
        "E004",
        "concepts/demo-concept.md",
        lambda w: w.edit("concepts/demo-concept.md", "title: Demo concept", "title: [unclosed"),
    ),
    Case("E101", "TUTORIAL.md", lambda w: w.remove("TUTORIAL.md")),
    Case("E102", "symptoms/notes.json", lambda w: w.write("symptoms/notes.json", "{}\n")),
    Case("E103", "concepts/Bad_Name.md", lambda w: w.write("concepts/Bad_Name.md", concept_page())),
    Case(
        "E104", "actions/cordon-node.json", _action("cordon-node", lambda d: d.update(id="cordon"))
    ),
    Case(
        "E105",
        "entities/demo-concept.md",
        lambda w: w.write("entities/demo-concept.md", concept_page()),
    ),
    Case("E201", SYMPTOM, lambda w: w.edit(SYMPTOM, "role: root", "role: sometimes")),
    Case(
        "E202",
        "concepts/demo-concept.md",
        lambda w: w.edit(
            "concepts/demo-concept.md", "title: Demo concept", "type: symptom\ntitle: Demo concept"
        ),
    ),
    Case(
        "E203", "actions/cordon-node.json", _action("cordon-node", lambda d: d.update(kind="ssh"))
    ),
    Case(
        "E204",
        WORKFLOW,
        lambda w: w.edit_json(WORKFLOW, lambda d: d["conclusions"][1].update(verdict="maybe")),
    ),
    Case(
        "E301",
        "concepts/demo-concept.md",
        lambda w: w.write(
            "concepts/demo-concept.md", concept_page(extra="\nSee [gone](missing-page.md).\n")
        ),
    ),
    Case("E302", "TUTORIAL.md", lambda w: w.edit("TUTORIAL.md", "#what-it-is", "#what-it-was")),
    Case(
        "E303",
        SYMPTOM,
        lambda w: w.edit(SYMPTOM, "- demo-concept", "- demo-concept\n- no-such-page"),
    ),
    Case("E401", WORKFLOW, _steps(lambda s: s[0].update(uses="no-such-action"))),
    Case("E402", WORKFLOW, _steps(lambda s: s[0].update({"with": {"bogus": "x"}}))),
    Case("E402", WORKFLOW, _steps(lambda s: s[1]["with"].clear())),
    Case(
        "E403",
        "actions/find-demo-failure.json",
        _action(
            "find-demo-failure", lambda d: d.update(filter=d["filter"] + " AND {{ nodename }}")
        ),
    ),
    Case(
        "E403",
        "actions/kubectl-get-node.json",
        _action("kubectl-get-node", lambda d: d["command"].append("{{ node")),
    ),
    Case(
        "E404",
        WORKFLOW,
        lambda w: w.edit_json(
            WORKFLOW, lambda d: d["conclusions"][0].update({"if": "steps.nope.outputs.count > 0"})
        ),
    ),
    Case("E404", WORKFLOW, _steps(lambda s: s[0].update({"if": "steps.node.status == 'ok'"}))),
    Case("E404", WORKFLOW, _steps(lambda s: s[1].update({"if": "steps.find.outputs.frist_host"}))),
    Case("E404", WORKFLOW, _steps(lambda s: s[1].update({"if": "params.nodes and"}))),
    Case(
        "E404",
        WORKFLOW,
        lambda w: w.edit_json(
            WORKFLOW, lambda d: d["conclusions"][1].update(summary="{{ params.zone }}")
        ),
    ),
    Case(
        "E405",
        SYMPTOM,
        lambda w: w.edit(SYMPTOM, "workflow: verify-demo-failure", "workflow: verify-other"),
    ),
    Case(
        "E406",
        WORKFLOW,
        _steps(lambda s: s.append({"id": "cordon", "uses": "cordon-node", "with": {"node": "n1"}})),
    ),
    Case(
        "E407",
        "actions/find-demo-failure.json",
        _action(
            "find-demo-failure",
            lambda d: d.update(filter=d["filter"].replace('"demo-failure"', '"no-such"')),
        ),
    ),
    Case(
        "E407",
        "actions/find-demo-failure.json",
        _action("find-demo-failure", lambda d: d.update(symptoms=["no-such"])),
    ),
    Case("E408", WORKFLOW, _steps(lambda s: s[1].update(id="find"))),
    Case(
        "E409", SYMPTOM, lambda w: w.edit(SYMPTOM, "action: cordon-node", "action: no-such-action")
    ),
    Case(
        "E410",
        WORKFLOW,
        lambda w: w.edit_json(WORKFLOW, lambda d: d.update(symptom="no-such-symptom")),
    ),
    Case(
        "E411",
        "actions/demo-duty-cycle.json",
        _action("demo-duty-cycle", lambda d: d.update(filter="{{ workload_pods(workload) }}")),
    ),
    Case(
        "E411",
        "actions/demo-duty-cycle.json",
        _action(
            "demo-duty-cycle",
            lambda d: d.update(
                filter=d["filter"] + ' OR resource.labels.container_name = "sidecar"'
            ),
        ),
    ),
    Case(
        "E412",
        "actions/demo-duty-cycle.json",
        _action("demo-duty-cycle", lambda d: d["aggregation"].update(alignment_period="30s")),
    ),
    Case(
        "E412",
        "actions/demo-duty-cycle.json",
        _action(
            "demo-duty-cycle", lambda d: d["aggregation"].update(per_series_aligner="ALIGN_NONE")
        ),
    ),
    Case(
        "E413",
        "actions/demo-duty-cycle.json",
        _action("demo-duty-cycle", lambda d: d["params"].pop("start")),
    ),
    Case(
        "W403",
        "actions/demo-duty-cycle.json",
        _action(
            "demo-duty-cycle",
            lambda d: d.update(filter=d["filter"] + ' AND metric.labels.model = "tpu-v5p"'),
        ),
    ),
    Case(
        "W401",
        "actions/unused.json",
        lambda w: w.write_json(
            "actions/unused.json", {**ACTIONS["kubectl-get-node"], "id": "unused"}
        ),
    ),
    Case("W402", WORKFLOW, lambda w: w.edit_json(WORKFLOW, lambda d: d["conclusions"].pop())),
    Case(
        "E501",
        "actions/cordon-node.json",
        _action("cordon-node", lambda d: d.pop("requires_approval")),
    ),
    Case(
        "E501",
        "actions/kubectl-get-node.json",
        _action(
            "kubectl-get-node",
            lambda d: d.update(
                command=["kubectl", "-n", "x", "rollout", "restart", "jobset/{{ node }}"]
            ),
        ),
    ),
    Case(
        "E501",
        "actions/gc.json",
        lambda w: w.write_json(
            "actions/gc.json",
            {
                **ACTIONS["kubectl-get-node"],
                "id": "gc",
                "kind": "gcloud",
                "command": [
                    "gcloud",
                    "--project",
                    "p",
                    "compute",
                    "instances",
                    "delete",
                    "{{ node }}",
                ],
            },
        ),
    ),
    Case(
        "E502",
        "actions/kubectl-get-node.json",
        _action("kubectl-get-node", lambda d: d["command"].extend(["|", "grep", "Ready"])),
    ),
    Case(
        "E502",
        "actions/kubectl-get-node.json",
        _action(
            "kubectl-get-node",
            lambda d: d.update(command=["bash", "-c", "kubectl get node {{ node }}"]),
        ),
    ),
    Case(
        "E503",
        "actions/kubectl-get-node.json",
        _action("kubectl-get-node", lambda d: d["command"].__setitem__(0, "/usr/bin/kubectl")),
    ),
    Case(
        "E420",
        "actions/find-demo-failure.json",
        _action(
            "find-demo-failure",
            lambda d: d.update(
                filter=d["filter"]
                + ' AND labels."compute.googleapis.com/resource_name"="{{ workload }}"'
            ),
        ),
    ),
    Case(
        "E420",
        "actions/demo-duty-cycle.json",
        _action(
            "demo-duty-cycle",
            lambda d: d.update(
                filter=d["filter"] + ' AND resource.labels.pod_name="x-{{workload}}"'
            ),
        ),
    ),
    Case("W501", "actions/cordon-node.json", _action("cordon-node", lambda d: d.pop("risk"))),
    Case("E601", SYMPTOM, lambda w: w.write(SYMPTOM, symptom_page(pattern="(?<=x)demo failure"))),
    Case(
        "E602", SYMPTOM, lambda w: w.write(SYMPTOM, symptom_page(example="something else entirely"))
    ),
    Case(
        "E603",
        SYMPTOM,
        lambda w: w.write(SYMPTOM, symptom_page(pattern="demo (failure|recovered) on task")),
    ),
    Case(
        "E604",
        "actions/find-demo-failure.json",
        _action("find-demo-failure", lambda d: d.update(extract={"task": "(task) ([0-9]+)"})),
    ),
    Case(
        "E605",
        SYMPTOM,
        lambda w: w.write(
            "symptoms/other-failure.md",
            symptom_page(
                "other-failure",
                pattern="recovered on task [0-9]+",
                example="x recovered on task 4",
                workflow="verify-demo-failure",
            ),
        ),
    ),
    Case(
        "E606",
        "actions/find-demo-failure.json",
        lambda w: w.write(
            SYMPTOM,
            # ~22,000 characters: too long for a filter even in one field, so no part of the
            # query cut at its ORs (one per field the container query can select) fits.
            symptom_page(
                pattern="demo failure on task (?P<task>[0-9]+)|"
                + "|".join(f"demo filler line {n}" for n in range(1000))
            ),
        ),
    ),
    Case(
        "E607",
        SYMPTOM,
        lambda w: w.write(
            SYMPTOM, symptom_page(pattern="demo failure on task (?P<task>[0-9]+)\\s*\\z")
        ),
    ),
    Case(
        "W601",
        "symptoms/demo-failure.md",
        lambda w: w.write(
            "symptoms/other-failure.md",
            symptom_page(
                "other-failure",
                pattern="on task [0-9]+",
                example="x on task 4",
                workflow="verify-demo-failure",
            ),
        ),
    ),
    Case(
        "W602",
        SYMPTOM,
        lambda w: w.write(SYMPTOM, symptom_page(pattern="demo failure on task (?P<worker>[0-9]+)")),
    ),
    Case(
        "E701",
        "INDEX.md",
        lambda w: w.edit("INDEX.md", "A demo failure mode", "An edited failure mode"),
        reindex=False,
    ),
    Case(
        "E702",
        "concepts/lonely.md",
        lambda w: w.write("concepts/lonely.md", concept_page()),
        reindex=False,
    ),
    Case("E801", SYMPTOM, lambda w: w.edit(SYMPTOM, "A root cause:", "TODO: a root cause:")),
    Case(
        "E801", "TUTORIAL.md", lambda w: w.edit("TUTORIAL.md", "Start at", "Lorem ipsum, start at")
    ),
    Case("E802", SYMPTOM, lambda w: w.edit(SYMPTOM, "## Sources", "## Reading")),
    Case(
        "E803",
        SYMPTOM,
        lambda w: w.edit(SYMPTOM, "## Where it shows up\n", "## Where it shows up\n\n## Extra\n"),
    ),
    Case(
        "E804",
        "actions/cordon-node.json",
        _action("cordon-node", lambda d: d.update(description="TBD: what cordoning does.")),
    ),
]


def _codes_for(report, relative: str, root: Path) -> set[str]:
    wanted = (root / relative).relative_to(root.parent).as_posix()
    return {p.code for p in report.problems if p.file == wanted}


def test_minimal_wiki_passes_every_rule(tmp_path: Path) -> None:
    report = MiniWiki.create(tmp_path).lint()
    assert report.status == "PASS"
    assert report.problems == [], [p.to_dict() for p in report.problems]
    assert report.stats["rules"] == len(RULES)


def test_every_rule_has_a_failing_case() -> None:
    assert {case.code for case in CASES} == set(RULES_BY_CODE)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.code}-{c.file}")
def test_rule_fails_on_planted_defect(tmp_path: Path, case: Case) -> None:
    wiki = MiniWiki.create(tmp_path)
    case.plant(wiki)
    if case.reindex:
        wiki.reindex()
    report = wiki.lint()
    assert case.code in _codes_for(report, case.file, wiki.root), [
        p.to_dict() for p in report.problems
    ]
    if RULES_BY_CODE[case.code].severity == "error":
        assert report.status == "FAIL"
    else:
        assert case.code not in {p.code for p in report.errors}


def test_warnings_never_change_the_status(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    wiki.edit_json("actions/cordon-node.json", lambda d: d.pop("risk"))
    wiki.write_json("actions/unused.json", {**ACTIONS["kubectl-get-node"], "id": "unused"})
    wiki.reindex()
    report = wiki.lint()
    assert {p.code for p in report.warnings} == {"W401", "W501"}
    assert report.status == "PASS"


def test_problems_carry_line_numbers(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    wiki.write(WORKFLOW, '{"id": "verify-demo-failure",\n  "steps": [}\n')
    wiki.edit(SYMPTOM, "role: root", "role: sometimes")
    report = wiki.lint()
    by_code = {p.code: p for p in report.errors}
    assert (by_code["E002"].line, by_code["E002"].column) == (2, 13)
    role_line = wiki.path(SYMPTOM).read_text().splitlines().index("role: sometimes") + 1
    assert by_code["E201"].line == role_line
    assert "role" in by_code["E201"].message


def test_read_only_commands_are_not_mutating(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    readers = {
        "r1": [
            "kubectl",
            "--context",
            "{{ context }}",
            "-n",
            "default",
            "get",
            "pods",
            "-o",
            "json",
        ],
        "r2": ["kubectl", "rollout", "status", "jobset/{{ node }}"],
        "r3": [
            "kubectl",
            "get",
            "events",
            "--field-selector=involvedObject.name={{ node }}",
            "-o=jsonpath={.items[*].message}",
        ],
        "r4": ["kubectl", "auth", "can-i", "get", "pods"],
    }
    for action_id, command in readers.items():
        wiki.write_json(
            f"actions/{action_id}.json",
            {**ACTIONS["kubectl-get-node"], "id": action_id, "command": command},
        )
        wiki.edit_json(
            WORKFLOW,
            lambda d, a=action_id: d["steps"].append({"id": a, "uses": a, "with": {"node": "n"}}),
        )
    wiki.write_json(
        "actions/g1.json",
        {
            **ACTIONS["kubectl-get-node"],
            "id": "g1",
            "kind": "gcloud",
            "command": [
                "gcloud",
                "compute",
                "instances",
                "describe",
                "{{ node }}",
                "--zone",
                "us-central2-b",
                "--format=json",
            ],
        },
    )
    wiki.edit_json(
        WORKFLOW, lambda d: d["steps"].append({"id": "g1", "uses": "g1", "with": {"node": "n"}})
    )
    wiki.reindex()
    report = wiki.lint()
    assert report.problems == [], [p.to_dict() for p in report.problems]


def test_port_forward_and_unknown_verbs_need_approval(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    for action_id, verb in (("pf", "port-forward"), ("plugin", "frobnicate")):
        wiki.write_json(
            f"actions/{action_id}.json",
            {
                **ACTIONS["kubectl-get-node"],
                "id": action_id,
                "command": ["kubectl", verb, "{{ node }}"],
            },
        )
    report = wiki.lint()
    flagged = {p.file.rsplit("/", 1)[-1] for p in report.errors if p.code == "E501"}
    assert flagged == {"pf.json", "plugin.json"}


def test_unreadable_files_and_symlink_loops_are_errors_not_tracebacks(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    wiki.path("concepts/latin1.md").write_bytes("---\ntitle: caf\xe9\n---\n".encode("latin-1"))
    os.symlink(wiki.path("concepts"), wiki.path("concepts/loop"))
    report = wiki.lint()
    unreadable = {p.file.split("_wiki/", 1)[1] for p in report.errors if p.code == "E001"}
    assert "concepts/latin1.md" in unreadable
    assert any(name.startswith("concepts/loop") for name in unreadable)


def test_a_crashing_rule_is_reported_against_the_file(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)

    def explode(ctx, action):
        raise RuntimeError("boom")

    rule = Rule("E999", "exploding-rule", "action", "A rule with a bug.", explode)
    report = lint(wiki.root, rules=(rule,))
    files = sorted(p.file for p in report.errors)
    assert files == sorted(f"_wiki/actions/{a}.json" for a in ACTIONS)
    assert all(p.code == "E999" and "RuntimeError: boom" in p.message for p in report.errors)


def test_a_counter_example_may_belong_to_the_page_that_matches_it(tmp_path: Path) -> None:
    wiki = MiniWiki.create(tmp_path)
    wiki.write(
        "symptoms/other-failure.md",
        symptom_page(
            "other-failure",
            pattern="recovered on task [0-9]+",
            example="x recovered on task 4",
            workflow="verify-demo-failure",
        ),
    )
    wiki.edit(SYMPTOM, "note: benign", "note: other-failure's line\n  belongs_to: other-failure")
    wiki.reindex()
    codes = _codes_for(wiki.lint(), SYMPTOM, wiki.root)
    assert "E605" not in codes
    wiki.edit(SYMPTOM, "belongs_to: other-failure", "belongs_to: no-such-page")
    assert "E605" in _codes_for(wiki.lint(), SYMPTOM, wiki.root)
