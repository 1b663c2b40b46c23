"""The last check before a file leaves the machine: does anything in it still look like a secret?

The file is read as what it is (JSON, JSON lines or text) and redacted again, structure and
split blocks included; each line of its raw text is searched too, so a secret that only the
serialised form shows (two fields rendered side by side, an escaped block) is caught as well.
Redaction is idempotent, so a correctly redacted file yields nothing; anything found means
redaction missed it, and the caller refuses to let the file go. Findings name the file, the
line and the kind — never the secret.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mlwiki.redact import Redactor


def _values(name: str, text: str) -> list[Any]:
    if name.endswith(".jsonl"):
        values = []
        for line in text.splitlines():
            try:
                values.append(json.loads(line))
            except ValueError:
                values.append(line)
        return [values]
    if name.endswith(".json"):
        try:
            return [json.loads(text)]
        except ValueError:
            pass
    return [text.splitlines()]


def find_leaks(name: str, data: bytes, redactor: Redactor) -> list[str]:
    """`name:line: kind` for each secret still visible in the file `name` holding `data`."""
    text = data.decode("utf-8", errors="replace")
    values = _values(name, text)
    prepared = redactor.prepared([*values, text])
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        kinds = sorted({span.kind for span in prepared.find(line)})
        problems.extend(f"{name}:{number}: {kind}" for kind in kinds)
    whole = {span.kind for span in prepared.find(text)}
    _, structural = prepared.obj(values)
    seen = {problem.rsplit(": ", 1)[1] for problem in problems}
    problems.extend(f"{name}: {kind}" for kind in sorted((whole | set(structural)) - seen))
    return problems
