"""`mlwiki eval`: score the diagnosis on labelled scenarios (a bundle + `expected.json` each).

Fields scored per scenario: `status`; `root_cause` (symptom id, or null); `culprit` (the set of
culprit node names); `failures` (the rows as (kind, symptom, host), in time order). A scenario is
exact when all four agree. Accuracy per field and overall is the share of scenarios right.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from mlwiki.errors import BadInput
from mlwiki.wiki import Wiki

FIELDS = ("status", "root_cause", "culprit", "failures")


@dataclass
class Outcome:
    name: str
    scores: dict[str, bool]
    expected: dict[str, Any]
    got: dict[str, Any]

    @property
    def exact(self) -> bool:
        return all(self.scores.values())


@dataclass
class EvalReport:
    outcomes: list[Outcome] = field(default_factory=list)

    def accuracy(self, name: Optional[str] = None) -> float:
        if not self.outcomes:
            return 0.0
        right = sum(1 for o in self.outcomes if (o.scores[name] if name else o.exact))
        return right / len(self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenarios": len(self.outcomes),
            "accuracy": {"exact": self.accuracy(), **{f: self.accuracy(f) for f in FIELDS}},
            "results": [
                {
                    "scenario": o.name,
                    "exact": o.exact,
                    "scores": o.scores,
                    "expected": o.expected,
                    "got": o.got,
                }
                for o in self.outcomes
            ],
        }


def scenario_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        raise BadInput(f"DIR: {root} is not a directory")
    folders = sorted(p.parent for p in root.rglob("expected.json"))
    if not folders:
        raise BadInput(f"DIR: no scenario folders (with expected.json) under {root}")
    return folders


def load_expected(folder: Path) -> dict[str, Any]:
    path = folder / "expected.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise BadInput(f"{path}: cannot read: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("workload"), str):
        raise BadInput(f"{path}: field 'workload' (a string) is required")
    return data


def summarise(findings: dict[str, Any]) -> dict[str, Any]:
    """The scored part of a findings document, in expected.json's shape."""
    root = findings.get("root_cause") or {}
    return {
        "status": findings.get("status"),
        "root_cause": root.get("symptom"),
        "culprit_hosts": sorted(c["host"] for c in findings.get("culprit_hosts", [])),
        "failures": [
            {"kind": f["kind"], "symptom": f["symptom"], "host": f.get("host")}
            for f in findings.get("failures", [])
        ],
    }


def score(expected: dict[str, Any], got: dict[str, Any]) -> dict[str, bool]:
    rows = [(f.get("kind"), f.get("symptom"), f.get("host")) for f in expected.get("failures", [])]
    return {
        "status": expected.get("status") == got["status"],
        "root_cause": expected.get("root_cause") == got["root_cause"],
        "culprit": sorted(expected.get("culprit_hosts", [])) == got["culprit_hosts"],
        "failures": rows == [(f["kind"], f["symptom"], f["host"]) for f in got["failures"]],
    }


def evaluate(wiki: Wiki, root: Path) -> EvalReport:
    from mlwiki.diagnose.collect import from_bundle
    from mlwiki.diagnose.pipeline import analyse

    report = EvalReport()
    for folder in scenario_folders(root):
        expected = load_expected(folder)
        result = analyse(wiki, expected["workload"], from_bundle(folder))
        got = summarise(result.findings)
        name = str(folder.relative_to(root)) if folder != root else folder.name
        report.outcomes.append(Outcome(name, score(expected, got), expected, got))
    return report


def format_table(report: EvalReport) -> str:
    width = max([len("scenario")] + [len(o.name) for o in report.outcomes])
    lines = [f"{'scenario':<{width}}  " + "  ".join(f"{f:<10}" for f in FIELDS) + "  exact"]
    for o in report.outcomes:
        marks = "  ".join(f"{'ok' if o.scores[f] else 'MISS':<10}" for f in FIELDS)
        lines.append(f"{o.name:<{width}}  {marks}  {'ok' if o.exact else 'MISS'}")
    accuracy = "  ".join(f"{report.accuracy(f) * 100:>5.1f}%    " for f in FIELDS)
    lines.append(f"{'accuracy':<{width}}  {accuracy}  {report.accuracy() * 100:.1f}%")
    return "\n".join(lines)
