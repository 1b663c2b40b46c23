"""The fixed cost of a bundle diagnosis, as work (modules imported, grammars built, documents
checked), never as seconds: what a diagnosis does not use it does not load."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import lark
import pytest

from mlwiki import grammar
from mlwiki.errors import BadInput
from mlwiki.wiki import load_wiki

REPO = Path(__file__).resolve().parent.parent
INCIDENT = REPO / "tests" / "incidents" / "checkpoint-gcs-403"
NOT_FOR_A_BUNDLE = (
    "jsonschema",  # documents that jsonschema-rs finds valid never reach it
    "referencing",
    "google.cloud",
    "kubernetes",
    "detect_secrets",
    "mcp",
    "rich",
)

PROBE = """
import json, sys
from pathlib import Path
import lark
built = []
original = lark.Lark.__init__
def counted(self, grammar, *args, **kwargs):
    built.append(grammar[:40])
    original(self, grammar, *args, **kwargs)
lark.Lark.__init__ = counted
from mlwiki.diagnose import diagnose
from mlwiki.wiki import load_wiki
result = diagnose(sys.argv[1], bundle=sys.argv[2], wiki=load_wiki(Path(sys.argv[3])))
print(json.dumps({
    "root_cause": result.findings["root_cause"]["symptom"],
    "modules": sorted(sys.modules),
    "grammars_built": built,
}))
"""


def test_a_bundle_diagnosis_loads_only_what_it_uses(tmp_path: Path) -> None:
    expected = json.loads((INCIDENT / "expected.json").read_text())
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            expected["workload"],
            str(INCIDENT / "bundle.json"),
            str(REPO / "_wiki"),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={"MLWIKI_AUDIT_LOG": str(tmp_path / "audit.jsonl"), "PATH": "/usr/bin:/bin"},
    )
    seen = json.loads(done.stdout)
    assert seen["root_cause"] == expected["root_cause"]
    loaded = [
        name
        for name in seen["modules"]
        if any(name == heavy or name.startswith(heavy + ".") for heavy in NOT_FOR_A_BUNDLE)
    ]
    assert loaded == []
    if all(grammar.stored_tables(name)["lark"] == lark.__version__ for name in grammar.GRAMMARS):
        assert seen["grammars_built"] == []  # every parser came from its generated tables


@pytest.mark.parametrize("name", sorted(grammar.GRAMMARS))
def test_the_generated_grammar_tables_are_those_of_the_grammar(name: str) -> None:
    stored = grammar.stored_tables(name)
    assert stored is not None, "run: python -m mlwiki.grammar"
    assert stored["grammar_sha256"] == grammar.grammar_digest(name), (
        f"{grammar.GRAMMARS[name].name} changed: run python -m mlwiki.grammar"
    )


def test_a_workflow_that_breaks_its_schema_is_named_with_the_field(tmp_path: Path) -> None:
    wiki = tmp_path / "_wiki"
    shutil.copytree(REPO / "_wiki", wiki, ignore=shutil.ignore_patterns(".venv"))
    path = wiki / "workflows" / "verify-barrier-timeout.json"
    doc = json.loads(path.read_text())
    doc["steps"][0]["uses"] = 42
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInput, match=r"verify-barrier-timeout\.json: steps\[0\]\.uses: 42"):
        load_wiki(wiki).workflow("verify-barrier-timeout")
