"""A fast yes/no schema check in front of `jsonschema`, for speed on large wikis.

jsonschema (pure Python) takes most of a lint run on a big wiki, and nearly every file is
valid. jsonschema-rs answers "valid?" about a hundred times faster from the same schema files;
only when it says no does `jsonschema` run to produce the detailed errors, so the messages and
the final verdict always come from the reference implementation. Without jsonschema-rs
installed everything goes through `jsonschema`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional

from mlwiki import schemas


@lru_cache(maxsize=32)
def fast_is_valid(
    schema_dir: Path, name: str, definition: Optional[str] = None
) -> Optional[Callable[[Any], bool]]:
    """`is_valid(instance)` for schema `name` (or its `$defs/definition`); None if unavailable."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    by_id = {
        schemas.schema(schema_dir, file)["$id"]: schemas.schema(schema_dir, file)
        for file in _schema_files(schema_dir)
    }

    def retrieve(uri: str) -> Any:
        return by_id[uri.split("#", 1)[0]]

    base = schemas.schema(schema_dir, name)
    # The root of these schemas only holds annotations and $defs, so pointing it at one
    # definition validates exactly against that definition.
    target = {**base, "$ref": f"#/$defs/{definition}"} if definition else base
    try:
        validator = jsonschema_rs.Draft202012Validator(
            target, retriever=retrieve, validate_formats=True
        )
    except Exception:  # a schema jsonschema-rs cannot compile: use jsonschema alone
        return None
    return validator.is_valid


def _schema_files(schema_dir: Path) -> list[str]:
    return sorted(path.name for path in schema_dir.glob("*.schema.json"))
