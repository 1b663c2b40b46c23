"""Printing results: JSON for machines (`--format json`), text or Markdown for people."""

from __future__ import annotations

import sys
from typing import Any, TextIO

import orjson


def dumps(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


def emit_json(data: Any, stream: TextIO | None = None) -> None:
    stream = stream or sys.stdout
    stream.write(dumps(data))
    stream.write("\n")
