"""Benchmark the wiki linter on generated wikis of 500 to 4,000 pages (run by hand, not a test).

    _wiki/.venv/bin/python benchmarks/bench_lint.py [--sizes 500 1000 2000 4000] [--repeat 3]

Each wiki is realistic in shape: 40% symptom pages (signatures, examples, counter-examples,
remedies, the seven sections) each with a log-query action and a verification workflow, the
rest concept/entity/playbook/tool pages; every page links to a few others and to anchors.
For each size it prints the best lint time, the time per page, and the ratio to a baseline
measured in the same run: just reading and parsing every file (python-frontmatter for
Markdown, json for JSON). Target: 2,000 pages in under 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import frontmatter
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from mlwiki.index import render_index  # noqa: E402
from mlwiki.lint.rules.content import SYMPTOM_SECTIONS  # noqa: E402
from mlwiki.lint.runner import lint  # noqa: E402
from mlwiki.wiki import load_wiki  # noqa: E402

KINDS = [
    ("symptoms", 0.40),
    ("concepts", 0.25),
    ("entities", 0.15),
    ("playbooks", 0.10),
    ("tools", 0.10),
]
PROSE = (
    "When a host of a multi-host slice fails, the others notice within the heartbeat timeout and "
    "stop as well; the first error in time on the culprit host is what matters. "
)


def _page_ids(count: int) -> list[tuple[str, str]]:
    ids: list[tuple[str, str]] = []
    for folder, share in KINDS:
        ids += [(folder, f"{folder[:-1]}-{i:05d}") for i in range(int(count * share))]
    return ids


def _links(rng: random.Random, ids: list[tuple[str, str]], me: str) -> str:
    picks = [p for p in rng.sample(ids, 4) if p[1] != me][:3]
    return ", ".join(f"[{pid}](../{folder}/{pid}.md#what-it-is)" for folder, pid in picks)


def _symptom(rng: random.Random, ids: list[tuple[str, str]], index: int, pid: str) -> str:
    meta = {
        "title": f"Failure mode {index}",
        "summary": f"Generated failure mode number {index} for the benchmark.",
        "role": rng.choice(["root", "symptom", "cascade"]),
        "layer": rng.choice(["infra", "framework", "orchestrator", "application"]),
        "accelerator": ["tpu"],
        "framework": ["jax"],
        "related": [p for _, p in rng.sample(ids, 2) if p != pid],
        "signatures": [
            {"pattern": rf"(?m)^E\d{{4}} .*failure mode {index} on task (?P<task>[0-9]+)"},
            {"pattern": rf"XlaRuntimeError: FAILURE_{index}: .* (?P<host>[a-z0-9-]+)"},
        ],
        "examples": [
            {
                "line": f"E0613 12:00:01.000 1 x.cc:1] failure mode {index} on task 7",
                "source": "https://example.com/a",
            },
            {
                "line": f"jax.errors.XlaRuntimeError: FAILURE_{index}: broke on gke-tpu-{index}",
                "source": "https://example.com/b",
            },
        ],
        "counter_examples": [{"line": f"failure mode {index} recovered", "note": "benign"}],
        "workflow": f"verify-{pid}",
        "failure_kind": "crash",
        "remedies": [
            {"step": "Restart the JobSet after fixing the cause.", "action": f"find-{pid}"}
        ],
        "sources": [{"title": "Docs", "url": "https://cloud.google.com/tpu/docs"}],
    }
    body = f"# Failure mode {index}\n\n"
    for section in SYMPTOM_SECTIONS:
        body += f"## {section}\n\n{PROSE}See {_links(rng, ids, pid)}. Use `kubectl get pods`.\n\n"
    body += "```\nE0613 example log line in a fence\n```\n"
    return "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n" + body


def _page(rng: random.Random, ids: list[tuple[str, str]], pid: str) -> str:
    body = f"# {pid}\n\n## What it is\n\n{PROSE * 2}\n\n## Details\n\n{PROSE}See {_links(rng, ids, pid)}.\n\n"
    body += "- one point with `code`\n- another point\n\n## More\n\n" + PROSE + "\n"
    related = [p for _, p in rng.sample(ids, 2) if p != pid]
    return f"---\ntitle: Page {pid}\nsummary: A generated page for the lint benchmark.\nrelated: {json.dumps(related)}\n---\n{body}"


def _action(pid: str) -> dict:
    return {
        "id": f"find-{pid}",
        "title": f"Find {pid}",
        "kind": "log_query",
        "description": "Lines of this failure mode in the workload's containers.",
        "params": {
            "workload": {"type": "k8s_name", "required": True, "description": "JobSet"},
            "start": {"type": "timestamp", "required": True, "description": "start"},
            "end": {"type": "timestamp", "required": True, "description": "end"},
        },
        "filter": '{{ workload_selector(workload) }} AND {{ time_window(start, end) }} AND {{ symptom_match("'
        + pid
        + '") }}',
        "symptoms": [pid],
    }


def _workflow(pid: str) -> dict:
    return {
        "id": f"verify-{pid}",
        "title": f"Verify {pid}",
        "description": "Find the lines and name the first host.",
        "symptom": pid,
        "params": {"workload": {"type": "k8s_name", "required": True}},
        "steps": [{"id": "find", "uses": f"find-{pid}"}],
        "conclusions": [
            {
                "if": "steps.find.outputs.count > 0",
                "verdict": "confirmed",
                "summary": "Seen on {{ steps.find.outputs.first_host }}.",
            },
            {"verdict": "inconclusive", "summary": "Not seen in the window."},
        ],
    }


def generate(root: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    wiki = root / "_wiki"
    shutil.copytree(REPO_ROOT / "_wiki" / "schemas", wiki / "schemas")
    for folder in (
        "concepts",
        "entities",
        "symptoms",
        "playbooks",
        "tools",
        "actions",
        "workflows",
        "examples",
    ):
        (wiki / folder).mkdir(parents=True, exist_ok=True)
    (wiki / "SCHEMA.md").write_text("# Schema\n\nSee [the index](INDEX.md).\n")
    (wiki / "TUTORIAL.md").write_text("# Tutorial\n\nStart at [the index](INDEX.md).\n")
    ids = _page_ids(count)
    for index, (folder, pid) in enumerate(ids):
        if folder == "symptoms":
            (wiki / folder / f"{pid}.md").write_text(_symptom(rng, ids, index, pid))
            (wiki / "actions" / f"find-{pid}.json").write_text(json.dumps(_action(pid), indent=2))
            (wiki / "workflows" / f"verify-{pid}.json").write_text(
                json.dumps(_workflow(pid), indent=2)
            )
        else:
            (wiki / folder / f"{pid}.md").write_text(_page(rng, ids, pid))
    (wiki / "INDEX.md").write_text(render_index(load_wiki(wiki)))


def baseline(wiki: Path) -> float:
    start = time.perf_counter()
    for path in wiki.rglob("*.md"):
        frontmatter.load(str(path))
    for path in wiki.rglob("*.json"):
        json.loads(path.read_text())
    return time.perf_counter() - start


def best(function, repeat: int):
    return min(function() for _ in range(repeat))


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def timed_lint(wiki: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one lint; CPU time (this process and the Markdown workers
    it forks) is what other load on the machine does not inflate."""
    start, cpu = time.perf_counter(), _cpu()
    report = lint(wiki)
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
    if report.status != "PASS":
        first = report.errors[0]
        raise SystemExit(
            f"generated wiki does not pass: {first.file}:{first.line} {first.code} {first.message}"
        )
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{'pages':>6} {'files':>6} {'lint s':>8} {'cpu s':>7} {'ms/page':>8} {'baseline s':>11} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            root = Path(tmp) / f"wiki-{size}"
            generate(root, size)
            wiki = root / "_wiki"
            files = sum(1 for _ in wiki.rglob("*.*"))
            base = best(lambda w=wiki: baseline(w), args.repeat)
            took, cpu = best(lambda w=wiki: timed_lint(w), args.repeat)
            print(
                f"{size:>6} {files:>6} {took:>8.3f} {cpu:>7.3f} {took / size * 1000:>8.3f} "
                f"{base:>11.3f} {took / base:>6.1f}"
            )


if __name__ == "__main__":
    main()
