"""The reviewer's citation check: every conclusion cites evidence that was actually fetched.

Problems found (each one line): the findings break the schema; a conclusion (root cause, culprit
host, failure row) cites no evidence or an id that does not exist; an evidence item's entry
(insertId AND timestamp) is not in the data; its quote is not in that entry's text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from mlwiki.diagnose.clock import epoch
from mlwiki.diagnose.findings import validate_findings
from mlwiki.errors import BadInput
from mlwiki.logs.bundle import iter_bundle
from mlwiki.logs.entry import entry_text
from mlwiki.logs.store import synthetic_insert_id
from mlwiki.redact import redact_text
from mlwiki.wiki import Wiki

MARKER_PREFIX = "[REDACTED:"


def load_findings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BadInput(f"FINDINGS: cannot read {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise BadInput(f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: findings must be a JSON object")
    return data


def bundle_of(findings: dict[str, Any], given: Optional[Path]) -> Path:
    """The bundle to check against: --bundle, else the bundle path the findings name."""
    if given is not None:
        return given
    for source in (findings.get("data") or {}).get("sources") or []:
        if isinstance(source, str) and Path(source).exists():
            return Path(source)
    raise BadInput("--bundle: the findings name no readable bundle; give --bundle PATH")


def _strings(value: Any) -> list[str]:
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def quote_in(quote: str, entry: dict[str, Any]) -> bool:
    """Whether `quote` is in the entry's text, as fetched or as redacted (findings that went out
    through the MCP server or a handoff carry `[REDACTED:kind]` in place of secrets)."""
    if not quote:
        return False
    texts = [entry_text(entry), *_strings(entry)]
    if any(quote in text for text in texts):
        return True
    return MARKER_PREFIX in quote and any(quote in redact_text(text)[0] for text in texts)


def check_findings(wiki: Wiki, findings: dict[str, Any], bundle: Path) -> list[str]:
    problems = [f"schema: {line}" for line in validate_findings(wiki, findings)]
    evidence = [e for e in findings.get("evidence") or [] if isinstance(e, dict)]
    ids = {e.get("id") for e in evidence}

    def cited(where: str, refs: Any) -> None:
        if not isinstance(refs, list) or not refs:
            problems.append(f"{where}: cites no evidence")
            return
        problems.extend(
            f"{where}: cites {ref}, which is not in evidence" for ref in refs if ref not in ids
        )

    root = findings.get("root_cause")
    if isinstance(root, dict):
        cited("root_cause", root.get("evidence"))
    for number, culprit in enumerate(findings.get("culprit_hosts") or []):
        if isinstance(culprit, dict):
            cited(f"culprit_hosts[{number}] ({culprit.get('host')})", culprit.get("evidence"))
    for number, failure in enumerate(findings.get("failures") or []):
        if isinstance(failure, dict):
            cited(f"failures[{number}] ({failure.get('symptom')})", failure.get("evidence"))
    wanted: dict[str, list[dict[str, Any]]] = {}
    for item in evidence:
        wanted.setdefault(str(item.get("insertId")), []).append(item)
    found: dict[str, list[dict[str, Any]]] = {}
    for entry in iter_bundle(bundle):
        insert_id = entry.get("insertId") or synthetic_insert_id(entry)
        if insert_id in wanted:
            found.setdefault(insert_id, []).append(entry)
    for item in evidence:
        label = f"evidence {item.get('id')} (insertId {item.get('insertId')!r})"
        matches = [
            entry
            for entry in found.get(str(item.get("insertId")), [])
            if _same_time(entry.get("timestamp"), item.get("timestamp"))
        ]
        if not matches:
            problems.append(f"{label}: no entry with this insertId and timestamp in {bundle}")
        elif not any(quote_in(str(item.get("quote") or ""), entry) for entry in matches):
            problems.append(f"{label}: the quote is not in the entry's text")
    return problems


def _same_time(left: Any, right: Any) -> bool:
    if not isinstance(left, str) or not isinstance(right, str):
        return False
    try:
        return abs(epoch(left) - epoch(right)) < 1e-6
    except BadInput:
        return False
