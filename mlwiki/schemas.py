"""The JSON Schemas in `_wiki/schemas/` — the single source of truth for every file format."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from mlwiki.errors import BadInput

FRONTMATTER = "frontmatter.schema.json"
ACTION = "action.schema.json"
WORKFLOW = "workflow.schema.json"
FINDINGS = "findings.schema.json"
LOG_ENTRY = "log-entry.schema.json"


@lru_cache(maxsize=8)
def _load(schema_dir: Path) -> tuple[dict[str, dict[str, Any]], Registry]:
    schemas: dict[str, dict[str, Any]] = {}
    registry: Registry = Registry()
    for path in sorted(schema_dir.glob("*.schema.json")):
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise BadInput(f"{path}: cannot read this JSON Schema: {error}") from error
        schemas[path.name] = schema
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    return schemas, registry


def schema(schema_dir: Path, name: str) -> dict[str, Any]:
    return _load(schema_dir.resolve())[0][name]


@lru_cache(maxsize=32)
def _validator(schema_dir: Path, name: str, definition: Optional[str]) -> Draft202012Validator:
    schemas, registry = _load(schema_dir)
    base = schemas[name]
    target = {"$ref": f"{base['$id']}#/$defs/{definition}"} if definition else base
    return Draft202012Validator(
        target, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def validator(
    schema_dir: Path, name: str, definition: Optional[str] = None
) -> Draft202012Validator:
    """A validator for schema file `name`, or for its `$defs/definition` (e.g. a page type)."""
    return _validator(schema_dir.resolve(), name, definition)


def error_path(error: Any) -> str:
    """A readable field path for a jsonschema error: `steps[2].uses` or `(top level)`."""
    parts: list[str] = []
    for part in error.absolute_path:
        parts.append(f"[{part}]" if isinstance(part, int) else (f".{part}" if parts else str(part)))
    return "".join(parts) or "(top level)"
