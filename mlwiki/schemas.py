"""The JSON Schemas in `_wiki/schemas/` — the single source of truth for every file format.

`errors(...)` is how a command checks a document: jsonschema-rs answers "valid?" first, and only
a document it rejects goes through `jsonschema` (the reference implementation, which gives the
messages and the final verdict), so a command whose documents are valid never imports it (~80 ms
with its dependencies; see `mlwiki.lint.fastschema`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from mlwiki.errors import BadInput

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

FRONTMATTER = "frontmatter.schema.json"
ACTION = "action.schema.json"
WORKFLOW = "workflow.schema.json"
FINDINGS = "findings.schema.json"
LOG_ENTRY = "log-entry.schema.json"


@lru_cache(maxsize=8)
def _documents(schema_dir: Path) -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {}
    for path in sorted(schema_dir.glob("*.schema.json")):
        try:
            schemas[path.name] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise BadInput(f"{path}: cannot read this JSON Schema: {error}") from error
    return schemas


def schema(schema_dir: Path, name: str) -> dict[str, Any]:
    return _documents(schema_dir.resolve())[name]


@lru_cache(maxsize=32)
def _validator(schema_dir: Path, name: str, definition: Optional[str]) -> Draft202012Validator:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = _documents(schema_dir)
    registry: Registry = Registry()
    for document in schemas.values():
        registry = registry.with_resource(document["$id"], Resource.from_contents(document))
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


def errors(
    schema_dir: Path, name: str, value: Any, definition: Optional[str] = None
) -> list[ValidationError]:
    """jsonschema's errors of `value` against schema `name` (or its `$defs/definition`): none,
    without building a jsonschema validator, when jsonschema-rs finds `value` valid."""
    from mlwiki.lint.fastschema import fast_is_valid

    is_valid = fast_is_valid(schema_dir.resolve(), name, definition)
    try:
        if is_valid is not None and is_valid(value):
            return []
    except Exception:  # e.g. a YAML date jsonschema-rs cannot take: let jsonschema judge
        pass
    return list(validator(schema_dir, name, definition).iter_errors(value))


def error_path(error: Any) -> str:
    """A readable field path for a jsonschema error: `steps[2].uses` or `(top level)`."""
    parts: list[str] = []
    for part in error.absolute_path:
        parts.append(f"[{part}]" if isinstance(part, int) else (f".{part}" if parts else str(part)))
    return "".join(parts) or "(top level)"
