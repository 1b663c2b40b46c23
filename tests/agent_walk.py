"""A literal `/troubleshoot` walk, as the agent files tell the agents to run it, and what it reads.

Each step is a command the skill or a role file names (run as the agent's shell runs it: the
venv's `mlwiki` in a subprocess, from the repository root) or a file they say to read; the walk
counts the characters each step puts in front of an agent (stdout + stderr, or the file). Every
command's template is checked against the file that names it (`Step.source`, `Step.template`) by
`tests/test_agent_walk.py`, so the walk cannot drift from the agent files.

Run it by hand for the table: `_wiki/.venv/bin/python -m tests.agent_walk [BUNDLE WORKLOAD]`.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
MLWIKI = REPO_ROOT / "_wiki" / ".venv" / "bin" / "mlwiki"
DEMO = REPO_ROOT / "_wiki" / "examples" / "llm-pretrain-oom"


@dataclass
class Step:
    role: str
    what: str  # the command line, or "read PATH"
    source: str  # the agent file that says to do it (repository path)
    template: str  # the text in that file this step follows
    chars: int = 0
    code: Optional[int] = None
    output: str = field(default="", repr=False)

    def json(self) -> Any:
        return json.loads(self.output)


@dataclass
class Walk:
    bundle: Path
    workload: str
    workdir: Path
    steps: list[Step] = field(default_factory=list)
    env: Optional[dict[str, str]] = None

    @property
    def total(self) -> int:
        return sum(step.chars for step in self.steps)

    def run(self, role: str, source: str, template: str, *argv: str) -> Step:
        done = subprocess.run(
            [str(MLWIKI), *argv],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env=self.env,
        )
        step = Step(role, shlex.join(["mlwiki", *argv]), source, template)
        step.output, step.code = done.stdout, done.returncode
        step.chars = len(done.stdout) + len(done.stderr)
        self.steps.append(step)
        return step

    def read(self, role: str, source: str, template: str, path: Path) -> Step:
        text = path.read_text(encoding="utf-8")
        shown = path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path
        step = Step(role, f"read {shown}", source, template, len(text), None, text)
        self.steps.append(step)
        return step

    def table(self) -> str:
        lines = [f"{'role':<13}{'chars':>9}  step"]
        for step in self.steps:
            lines.append(f"{step.role:<13}{step.chars:>9}  {step.what}")
        lines.append(f"{'total':<13}{self.total:>9}  (~{self.total // 4} tokens at 4 chars/token)")
        return "\n".join(lines)


SKILL = "_agents/skills/troubleshoot/SKILL.md"
ROUTER = "_agents/roles/router.md"
PRACTITIONER = "_agents/roles/practitioner.md"
REVIEWER = "_agents/roles/reviewer.md"
ADVISOR = "_agents/roles/advisor.md"


def open_items(findings: dict[str, Any]) -> list[dict[str, Any]]:
    """What the engine left open (the skill's step 3): rows without a symptom, inconclusive
    verdicts, the rows of an inconclusive status."""
    inconclusive = {
        run.get("disruption") for run in findings.get("actions_run") or []
        if run.get("verdict") == "inconclusive"
    }  # fmt: skip
    rows = findings.get("failures") or []
    return [
        row for number, row in enumerate(rows, start=1)
        if row.get("host") and (
            row.get("symptom") is None or number in inconclusive
            or findings.get("status") == "inconclusive"
        )
    ]  # fmt: skip


def section(path: Path, heading: str) -> str:
    """One `## heading` section of a page (what an agent reads when told to read that section)."""
    text = path.read_text(encoding="utf-8")
    start = text.find(f"\n## {heading}")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def frontmatter(path: Path) -> str:
    return "---\n" + path.read_text(encoding="utf-8").split("---\n", 2)[1] + "---\n"


def write_report(findings: dict[str, Any], path: Path) -> None:
    """The main agent's report as the skill's step 5 lays it out, from the findings alone."""
    evidence = {e["id"]: e for e in findings["evidence"]}
    root = findings.get("root_cause") or {}
    lines = [f"# /troubleshoot {findings['workload']}", "", f"**Status**: {findings['status']}", ""]
    if root:
        lines += [
            "## Root cause", "",
            f"[`{root['symptom']}`](_wiki/symptoms/{root['symptom']}.md) — {root['summary']} "
            f"(confidence {root['confidence']}; evidence {', '.join(root['evidence'])}).", "",
        ]  # fmt: skip
    lines += ["## Culprit host(s)", ""]
    for culprit in findings["culprit_hosts"]:
        lines += [f"- node `{culprit['host']}`, pod `{culprit.get('pod', '—')}`", ""]
        for evidence_id in culprit["evidence"][:2]:
            item = evidence[evidence_id]
            lines += [f"{evidence_id} · {item['timestamp']} · insertId `{item['insertId']}`", ""]
            lines += ["```text", item["quote"], "```", ""]
    lines += ["## Failure table", "", "| time (UTC) | kind | symptom | host | evidence |",
              "|---|---|---|---|---|"]  # fmt: skip
    for row in findings["failures"]:
        lines.append(
            f"| {row['time']} | {row['kind']} | `{row['symptom']}` | `{row['host'] or '—'}` | "
            f"{', '.join(row['evidence'])} |"
        )
    lines += ["", "## Next steps", ""]
    for step in findings["next_steps"]:
        lines.append(f"- {step['step']}")
        if step.get("command"):
            lines += ["", "```bash", step["command"], "```", ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def troubleshoot_walk(bundle: Path, workload: str, workdir: Path) -> Walk:
    """Walk `/troubleshoot WORKLOAD` on an offline bundle: the skill's steps 2-6."""
    walk = Walk(bundle, workload, workdir)
    findings_path = workdir / "findings.json"
    report = workdir / "report.md"
    wiki = REPO_ROOT / "_wiki"
    source = ["--bundle", str(bundle)]

    # 2. Router: the engine's diagnosis, read from what it prints.
    walk.run(
        "router", ROUTER, "--format json --out findings.json",
        "troubleshoot", workload, *source, "--format", "json", "--out", str(findings_path),
    )  # fmt: skip
    findings = json.loads(findings_path.read_text(encoding="utf-8"))

    # 3. Practitioner: only what the engine left open.
    from mlwiki.wiki import load_wiki

    pages = load_wiki(wiki)
    for row in open_items(findings):
        host = row["host"]
        found = walk.run(
            "practitioner", PRACTITIONER, "--host NODE --role root --format json",
            "match", workload, *source, "--host", host, "--role", "root", "--format", "json",
        )  # fmt: skip
        candidates = [s["symptom"] for s in found.json().get("symptoms") or []]
        workflow = pages.symptoms[candidates[0]].workflow if candidates else None
        if workflow:
            walk.run(
                "practitioner", PRACTITIONER, "SOURCE --host NODE\n   --format json",
                "run", workflow, "--param", f"workload={workload}", *source, "--host", host,
                "--format", "json",
            )  # fmt: skip

    # 4. Advisor: the root cause's remedy section (the next steps came with the findings).
    named = [findings["root_cause"]["symptom"]] if findings.get("root_cause") else []
    for symptom in named:
        text = section(wiki / "symptoms" / f"{symptom}.md", "Remedy")
        walk.steps.append(
            Step("advisor", f"read _wiki/symptoms/{symptom}.md § Remedy", ADVISOR,
                 "Read the `## Remedy` section", len(text), None, text)
        )  # fmt: skip

    # 5. The main agent writes the report; 6. the reviewer checks it and the cited pages' roles.
    write_report(findings, report)
    walk.run(
        "reviewer", REVIEWER, "mlwiki verify FINDINGS --bundle PATH --report REPORT",
        "verify", str(findings_path), *source, "--report", str(report),
    )  # fmt: skip
    symptoms = dict.fromkeys(
        [*named, *(f["symptom"] for f in findings["failures"] if f["symptom"])]
    )
    for symptom in symptoms:
        text = frontmatter(wiki / "symptoms" / f"{symptom}.md")
        walk.steps.append(
            Step("reviewer", f"read _wiki/symptoms/{symptom}.md frontmatter", REVIEWER,
                 "frontmatter of `_wiki/symptoms/<id>.md`", len(text), None, text)
        )  # fmt: skip
    return walk


def main(argv: list[str]) -> int:
    import tempfile

    bundle = Path(argv[0]) if argv else DEMO
    workload = argv[1] if len(argv) > 1 else "llm-pretrain"
    with tempfile.TemporaryDirectory() as tmp:
        walk = troubleshoot_walk(bundle.resolve(), workload, Path(tmp))
        print(walk.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
