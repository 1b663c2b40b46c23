"""The handoff folder's files, redacted, with a storage key derived from the findings.

Building happens in two steps so that a rerun produces byte-identical files: `redact_content`
depends only on the inputs (and gives the key), `assemble` adds the stamp (creation time, tool
version, wiki commit), which a rerun takes from the folder's existing `metadata.json`.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import re2
from jinja2.exceptions import UndefinedError

from mlwiki import __version__
from mlwiki.diagnose.report import render_report
from mlwiki.errors import BadInput
from mlwiki.handoff.evidence import cited_keys, entry_key
from mlwiki.logs.entry import entry_texts
from mlwiki.redact import Redactor, find_leaks

FINDINGS = "findings.json"
REPORT = "report.md"
EVIDENCE = "evidence.jsonl"
METADATA = "metadata.json"
README = "README.md"
MANIFEST = "manifest.json"
RESPONSES = "responses/"
METRICS_DIR = "metrics"  # Cloud Monitoring series the findings cite, as timeSeries.list returns
# What the tool writes, in upload order; the manifest goes last so that a complete manifest in
# the bucket means a complete upload.
PACKAGE_FILES = (FINDINGS, REPORT, EVIDENCE, README, METADATA)

_WORKLOAD = re2.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_CASE_ID = re2.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,63}$")
_KEY = re2.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,199}$")


def check_workload(workload: str) -> str:
    if not _WORKLOAD.match(workload):
        raise BadInput(f"WORKLOAD_ID {workload!r}: must be a Kubernetes name (a-z, 0-9, '-')")
    return workload


def check_case_id(case_id: Optional[str]) -> Optional[str]:
    if case_id is not None and not _CASE_ID.match(case_id):
        raise BadInput(f"CASE_ID {case_id!r}: use letters, digits, '.', '_' or '-' (at most 64)")
    return case_id


def check_key(key: str, flag: str = "--watch") -> str:
    """A storage key is one safe object-name segment (no '/', no '..')."""
    if not _KEY.match(key) or ".." in key:
        raise BadInput(f"{flag} {key!r}: not a storage key (letters, digits, '.', '_', '-')")
    return key


def storage_key(workload: str, case_id: Optional[str], findings_bytes: bytes) -> str:
    digest = hashlib.sha256(findings_bytes).hexdigest()[:12]
    return check_key(f"mlwiki-{workload}-{case_id or 'nocase'}-{digest}", "STORAGE_KEY")


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


@dataclass
class HandoffInputs:
    """What goes into a handoff: findings plus the entries they cite (and any query results)."""

    workload: str
    case_id: Optional[str]
    findings: dict[str, Any]
    entries: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    query_entries: list[dict[str, Any]] = field(default_factory=list)
    report_notes: list[str] = field(default_factory=list)  # the diagnosis' notes for report.md
    # Cloud Monitoring answers (name → {"timeSeries": [...]}), packaged as metrics/NAME.json.
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class RedactedContent:
    key: str
    findings: dict[str, Any]
    findings_bytes: bytes
    report: str
    evidence_lines: list[bytes]
    metrics: dict[str, bytes]
    redactions: dict[str, int]
    missing_evidence: list[str]
    unverified_quotes: list[str]


@dataclass(frozen=True)
class Stamp:
    created: str
    tool_version: str
    wiki_commit: str

    @classmethod
    def now(cls, repo_root: Optional[Path]) -> Stamp:
        created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return cls(created, __version__, wiki_commit(repo_root))

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> Optional[Stamp]:
        values = [metadata.get(name) for name in ("created", "tool_version", "wiki_commit")]
        return cls(*values) if all(isinstance(v, str) for v in values) else None  # type: ignore[arg-type]


@dataclass
class Package:
    key: str
    files: dict[str, bytes]  # every file, manifest.json included, in upload order
    metadata: dict[str, Any]

    def write(self, folder: Path) -> None:
        """A local copy of exactly what is uploaded."""
        from mlwiki.outputs import write_atomically

        # The manifest, written last, is the one the watch trusts (never the bucket's copy).
        for name, data in self.files.items():
            write_atomically(folder / name, data)


def wiki_commit(repo_root: Optional[Path]) -> str:
    if repo_root is None:
        return "unknown"
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=repo_root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = result.stdout.strip()
    return (
        commit if result.returncode == 0 and re2.match(r"^[0-9a-f]{40,64}$", commit) else "unknown"
    )


def redact_content(inputs: HandoffInputs, redactor: Redactor) -> RedactedContent:
    findings = inputs.findings
    keys = cited_keys(findings)
    evidence = findings.get("evidence") or []
    counts: dict[str, int] = {}

    def add(found: Any) -> None:
        for kind, number in found.items():
            counts[kind] = counts.get(kind, 0) + number

    # One redactor for everything that goes out together, so a secret found in one place (a
    # block split over entries, a value the detector saw) is hidden wherever it recurs, and each
    # quote is redacted in the context of its entry (it stays a substring of the redacted entry).
    redactor = redactor.prepared(
        [findings, list(inputs.entries.values()), inputs.query_entries, inputs.report_notes]
    )
    by_id = {eid: inputs.entries[key] for eid, key in keys.items() if key in inputs.entries}
    redacted, found = redactor.findings(findings, by_id)
    add(found)
    findings_bytes = _json_bytes(redacted)

    evidence_lines, redacted_entries = _evidence_lines(inputs, keys, redactor, add)
    unverified = _unverified_quotes(redacted, keys, redacted_entries)
    # The report is rendered from the redacted findings (never redacted after rendering, which
    # could miss a secret cut by a quote's edge), with the diagnosis' own renderer.
    notes, found = redactor.obj(inputs.report_notes)
    add(found)
    try:
        report = render_report(redacted, notes)
    except UndefinedError as error:
        raise BadInput(
            f"findings: report.md cannot be rendered: {error.message} (a field that "
            "`mlwiki troubleshoot` writes is missing)"
        ) from None
    missing = [
        item["id"]
        for item in evidence
        if item.get("kind") != "metric" and keys.get(item.get("id")) not in inputs.entries
    ]
    metrics: dict[str, bytes] = {}
    for name, response in sorted(inputs.metrics.items()):
        redacted_response, found = redactor.obj(response)
        add(found)
        metrics[f"{METRICS_DIR}/{name}.json"] = _json_bytes(redacted_response)
    return RedactedContent(
        key=storage_key(inputs.workload, inputs.case_id, findings_bytes),
        findings=redacted,
        findings_bytes=findings_bytes,
        report=report,
        evidence_lines=evidence_lines,
        metrics=metrics,
        redactions=dict(sorted(counts.items())),
        missing_evidence=missing,
        unverified_quotes=unverified,
    )


def _evidence_lines(
    inputs: HandoffInputs, keys: dict[str, tuple[str, str]], redactor: Redactor, add: Any
) -> tuple[list[bytes], dict[tuple[str, str], dict[str, Any]]]:
    """evidence.jsonl: each cited entry in full (in citation order), then query results; no
    entry twice. The file is itself an offline bundle, so a verifier can replay the findings."""
    lines: list[bytes] = []
    seen: set[Any] = set()
    redacted_entries: dict[tuple[str, str], dict[str, Any]] = {}
    cited = [inputs.entries[k] for k in dict.fromkeys(keys.values()) if k in inputs.entries]
    for entry in [*cited, *inputs.query_entries]:
        key = entry_key(entry.get("insertId"), entry.get("timestamp"))
        identity = key or json.dumps(entry, sort_keys=True)
        if identity in seen:
            continue
        seen.add(identity)
        redacted, found = redactor.obj(entry)
        add(found)
        if key:
            redacted_entries[key] = redacted
        lines.append(json.dumps(redacted, ensure_ascii=False, sort_keys=True).encode() + b"\n")
    return lines, redacted_entries


def _unverified_quotes(
    findings: dict[str, Any],
    keys: dict[str, tuple[str, str]],
    entries: dict[tuple[str, str], dict[str, Any]],
) -> list[str]:
    """Evidence ids whose (redacted) quote is not found in their (redacted) included entry."""
    unverified = []
    for item in findings.get("evidence") or []:
        entry = entries.get(keys.get(item.get("id"), ("", "")))
        if entry is None:
            continue
        texts = [text for _, text in entry_texts(entry)]
        if not any(item.get("quote", "") in text for text in [*texts, "\n".join(texts)]):
            unverified.append(item["id"])
    return unverified


def _readme(key: str, bucket: str, content: RedactedContent) -> str:
    return f"""# mlwiki handoff `{key}`

Diagnosis of workload `{content.findings.get("workload")}` packaged by the mlwiki tool for Cloud
Customer Care. Secrets (tokens, keys, passwords, cookies) were replaced by `[REDACTED:<kind>]`
before upload; `metadata.json` counts them per kind.

| file | what it is |
|---|---|
| `{FINDINGS}` | the findings (root cause, culprit hosts, failure table, evidence quotes); schema: findings.schema.json of the mlwiki wiki |
| `{REPORT}` | the same findings as a readable report |
| `{EVIDENCE}` | every cited log entry in full (Cloud Logging LogEntry JSON, one per line), then the other entries the diagnosis used; evidence items in `{FINDINGS}` name their entry by `insertId` and `timestamp` |
| `{METRICS_DIR}/*.json` | Cloud Monitoring time series (TPU duty cycle, memory) exactly as `timeSeries.list` returns them, when the diagnosis read any; metric evidence items in `{FINDINGS}` name their series, aggregation and time |
| `{METADATA}` | tool version, wiki commit, workload, project, time window, case id, creation time, redaction counts |
| `{MANIFEST}` | sha256 and size of every other file; written last, so its presence means the upload is complete |

Verify the files: download the folder (`gcloud storage cp -r gs://{bucket}/{key} .`) and
compare `sha256sum *` with `{MANIFEST}`. The last 12 hex digits of the folder name are the start
of the sha256 of `{FINDINGS}`. To replay the diagnosis: `mlwiki verify {FINDINGS} --bundle .` in the
downloaded folder (its log entries and `{METRICS_DIR}/` are an offline bundle).

Reply by writing files under `gs://{bucket}/{key}/{RESPONSES}` (for example
`gcloud storage cp reply.md gs://{bucket}/{key}/{RESPONSES}`). The customer's
`mlwiki handoff --watch {key} --bucket {bucket}` reports and downloads them. Please do not change
the files above.
"""


def assemble(
    content: RedactedContent,
    inputs: HandoffInputs,
    bucket: str,
    stamp: Stamp,
    redactor: Redactor,
) -> Package:
    findings = content.findings
    metadata = {
        "tool": "mlwiki",
        "tool_version": stamp.tool_version,
        "wiki_commit": stamp.wiki_commit,
        "created": stamp.created,
        "storage_key": content.key,
        "workload": inputs.workload,
        "project": findings.get("project"),
        "window": findings.get("window"),
        "case_id": inputs.case_id,
        "findings_sha256": hashlib.sha256(content.findings_bytes).hexdigest(),
        "redactions": content.redactions,
        "redaction_options": {"emails": redactor.emails, "ips": redactor.ips},
        "evidence": {
            "cited": len(findings.get("evidence") or []),
            "entries": len(content.evidence_lines),
            "missing": content.missing_evidence,
            "unverified_quotes": content.unverified_quotes,
        },
    }
    if content.metrics:
        metadata["metric_files"] = sorted(content.metrics)
    files = {
        FINDINGS: content.findings_bytes,
        REPORT: content.report.encode(),
        EVIDENCE: b"".join(content.evidence_lines),
        **content.metrics,
        README: _readme(content.key, bucket, content).encode(),
        METADATA: _json_bytes(metadata),
    }
    manifest = {
        "files": {
            name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in files.items()
        }
    }
    files[MANIFEST] = _json_bytes(manifest)
    check_no_secrets(files, redactor)
    return Package(content.key, files, metadata)


def check_no_secrets(files: dict[str, bytes], redactor: Redactor) -> None:
    """The final scan: every file is searched again; any secret left refuses the whole package
    (nothing is written or uploaded), naming the file, line and kind (never the secret)."""
    plain = Redactor(emails=redactor.emails, ips=redactor.ips)
    problems = [
        problem for name, data in files.items() for problem in find_leaks(name, data, plain)
    ]
    if problems:
        shown = "; ".join(problems[:10]) + (
            f"; … {len(problems) - 10} more" if len(problems) > 10 else ""
        )
        raise BadInput(
            f"refusing to upload: the final scan still finds secrets the redaction left: {shown}. "
            "Nothing was written or uploaded; please report this as a bug of mlwiki's redaction"
        )
