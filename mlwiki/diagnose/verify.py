"""The reviewer's citation check: every conclusion cites evidence that was actually fetched.

Problems found (each one line): the findings break the schema; a conclusion (root cause, culprit
host, failure row) cites no evidence or an id that does not exist; an evidence item's entry
(insertId AND timestamp) is not in the data; its quote is not in that entry's text; a cited
metric point is not in the series the metric source returns (`metric_verify`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from mlwiki.diagnose.findings import validate_findings
from mlwiki.diagnose.metric_verify import check_metric_evidence, metric_items
from mlwiki.errors import BadInput
from mlwiki.logs.bundle import iter_bundle
from mlwiki.logs.entry import entry_text
from mlwiki.logs.store import synthetic_insert_id
from mlwiki.redact import redact_text
from mlwiki.timewindow import timestamp_ns
from mlwiki.wiki import Wiki

MARKER_PREFIX = "[REDACTED:"


def load_findings(path: Path) -> dict[str, Any]:
    from mlwiki.logs.limits import read_json_file

    data = read_json_file(path, "FINDINGS", "findings file")
    if not isinstance(data, dict):
        raise BadInput(f"{path}: findings must be a JSON object")
    return data


def bundle_of(
    findings: dict[str, Any], given: Optional[Path], beside: Optional[Path] = None
) -> Optional[Path]:
    """--bundle, else a readable bundle path the findings name (as given, else relative to
    `beside`, the folder of the findings file). For `verify` only ever a hint: evidence is checked
    against a bundle the caller chose (see `verify_findings`); `handoff` packages the entries the
    findings cite from it, for the user who approves the upload."""
    if given is not None:
        return given
    for source in (findings.get("data") or {}).get("sources") or []:
        if not isinstance(source, str) or source.startswith("projects/"):
            continue
        for path in (Path(source), *([beside / source] if beside is not None else [])):
            if path.exists():
                return path
    return None


def project_of(findings: dict[str, Any], given: Optional[str]) -> Optional[str]:
    """The Cloud Logging project the findings were read from (`projects/P` in data.sources)."""
    if given:
        return given
    for source in (findings.get("data") or {}).get("sources") or []:
        if isinstance(source, str) and source.startswith("projects/"):
            return source.split("/", 1)[1]
    return None


def wanted_ids(findings: dict[str, Any]) -> set[str]:
    return {
        str(item.get("insertId"))
        for item in findings.get("evidence") or []
        if isinstance(item, dict) and item.get("insertId") and item.get("kind") != "metric"
    }


def entries_from_bundle(bundle: Path, wanted: set[str]) -> dict[str, list[dict[str, Any]]]:
    """The bundle's entries whose insertId is cited (one streaming pass)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for entry in iter_bundle(bundle):
        insert_id = entry.get("insertId") or synthetic_insert_id(entry)
        if insert_id in wanted:
            found.setdefault(insert_id, []).append(entry)
    return found


# insertIds per query: keeps each filter far below Cloud Logging's 20,000-character limit.
IDS_PER_QUERY = 200


def entries_from_cloud(
    project: str,
    findings: dict[str, Any],
    wanted: set[str],
    client: Any = None,
    cache: bool = True,
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The cited entries, looked up in Cloud Logging by insertId within the findings' window
    (one query per 200 ids, its pages kept in the page cache unless `cache` is False); also the
    reasons the lookup was incomplete, if it was."""
    from mlwiki.logs.cache import PageCache, disabled_by_env
    from mlwiki.logs.cloud import LoggingFetcher, make_client
    from mlwiki.logs.query import quote
    from mlwiki.timewindow import resolve_window

    window_data = findings.get("window") or {}
    window = resolve_window(window_data.get("start"), window_data.get("end"), None)
    fetcher = LoggingFetcher(
        client=client if client is not None else make_client(project),
        project=project,
        cache=PageCache() if cache and not disabled_by_env() else None,
    )
    found: dict[str, list[dict[str, Any]]] = {}
    gaps: list[str] = []
    ids = sorted(wanted)
    for start in range(0, len(ids), IDS_PER_QUERY):
        chunk = ids[start : start + IDS_PER_QUERY]
        filter_text = "insertId=(" + " OR ".join(quote(i) for i in chunk) + ")"
        entries, report = fetcher.fetch("cited entries", filter_text, window)
        if report.partial:
            gaps.append(report.reason)
        for entry in entries:
            found.setdefault(str(entry.get("insertId")), []).append(entry)
    return found, gaps


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


def check_findings(
    wiki: Wiki,
    findings: dict[str, Any],
    found: dict[str, list[dict[str, Any]]],
    source: str,
) -> list[str]:
    """Every problem of `findings`, checked against `found` (the cited entries that exist in
    `source`, by insertId: see `entries_from_bundle` and `entries_from_cloud`)."""
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
    for item in evidence:
        if item.get("kind") == "metric":
            continue  # checked against the metric source (check_metric_evidence)
        label = f"evidence {item.get('id')} (insertId {item.get('insertId')!r})"
        matches = [
            entry
            for entry in found.get(str(item.get("insertId")), [])
            if _same_time(entry.get("timestamp"), item.get("timestamp"))
        ]
        if not matches:
            problems.append(f"{label}: no entry with this insertId and timestamp in {source}")
        elif not any(quote_in(str(item.get("quote") or ""), entry) for entry in matches):
            problems.append(f"{label}: the quote is not in the entry's text")
    return problems


def verify_findings(
    wiki: Wiki,
    findings: dict[str, Any],
    *,
    bundle: Optional[Path] = None,
    project: Optional[str] = None,
    client: Any = None,
    cache: bool = True,
) -> tuple[list[str], str]:
    """(problems, the evidence checked): against `bundle`, else Cloud Logging of `project`, else
    Cloud Logging of the project the findings were read from (live data a findings file cannot
    forge). Never against a file the findings themselves name: forged findings would name a
    forged bundle, so a bundle is only ever one the caller chose (BadInput says which to pass)."""
    if bundle is not None and project:
        raise BadInput("--bundle and --project: give one place to check the evidence against")
    wanted = wanted_ids(findings)
    gaps: list[str] = []
    if bundle is not None:
        found, source = entries_from_bundle(bundle, wanted), f"the bundle {bundle} (given)"
    else:
        chosen = "given" if project else "the project the findings name"
        project = project_of(findings, project)
        if project is None:
            named = bundle_of(findings, None)
            hint = f" (they name {named}: pass --bundle {named} if that is the bundle you mean)"
            raise BadInput(
                "--bundle or --project: say which evidence to check the findings against; a "
                "findings file does not choose its own evidence" + (hint if named else "")
            )
        found, gaps = entries_from_cloud(project, findings, wanted, client, cache)
        source = f"Cloud Logging projects/{project} ({chosen})"
    problems = check_findings(wiki, findings, found, source)
    problems.extend(f"lookup incomplete: {gap}" for gap in gaps)
    if metric_items(findings):
        from mlwiki.metrics.source import BundleMetrics, CloudMetrics

        metrics: Any = BundleMetrics(bundle) if bundle is not None else CloudMetrics(str(project))
        metric_problems, metric_gaps = check_metric_evidence(findings, metrics)
        problems.extend(metric_problems)
        problems.extend(f"lookup incomplete: {gap}" for gap in metric_gaps)
    return problems, source


def _same_time(left: Any, right: Any) -> bool:
    """One instant, however each side spells it (`…00.5Z`, `…00.500+00:00`)."""
    instant = timestamp_ns(left)
    return instant is not None and instant == timestamp_ns(right)
