"""_wiki/SCHEMA.md agrees with the JSON Schemas and with the rule registry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from mlwiki.commands.lint import rules_table
from tests.conftest import WIKI_ROOT

SCHEMA_MD = WIKI_ROOT / "SCHEMA.md"
DOCUMENTED = ("frontmatter.schema.json", "action.schema.json", "workflow.schema.json")


def _required(node: Any) -> Iterator[str]:
    """Every field name any (sub)schema lists as required, conditional ones included."""
    if isinstance(node, dict):
        required = node.get("required")
        yield from required if isinstance(required, list) else []
        for value in node.values():
            yield from _required(value)
    elif isinstance(node, list):
        for item in node:
            yield from _required(item)


def _top_level_properties(schema: dict[str, Any]) -> Iterator[str]:
    yield from schema.get("properties", {})
    for definition in ("common", "symptom"):
        yield from schema.get("$defs", {}).get(definition, {}).get("properties", {})


@pytest.mark.parametrize("schema_name", DOCUMENTED)
def test_every_required_and_top_level_field_is_documented(schema_name: str) -> None:
    schema = json.loads((WIKI_ROOT / "schemas" / schema_name).read_text())
    text = SCHEMA_MD.read_text()
    fields = set(_required(schema)) | set(_top_level_properties(schema))
    missing = sorted(name for name in fields if f"`{name}`" not in text and f"{{{name}" not in text)
    assert not missing, f"SCHEMA.md does not mention {missing} from {schema_name}"


def test_the_rules_table_is_the_registry() -> None:
    assert rules_table() in SCHEMA_MD.read_text(), "paste `mlwiki lint --list-rules` into SCHEMA.md"
