"""`mlwiki verify FINDINGS --report FILE`: the check of the Markdown report the user reads.

`mlwiki verify` checks the engine's findings; an agent then writes the report, and what it writes
is what the user believes. So the report is checked the same way, claim by claim:

- every evidence id (`E7`) outside code blocks is one of the findings' evidence items;
- every insertId (after the word `insertId`, or in a table column headed `insertId`) is the
  insertId of an entry that was fetched (the bundle, or Cloud Logging looked up by insertId);
- every host (a GKE node name `gke-…`, a name with a hyphen and a digit after `node`/`host`/`VM`,
  or a cell of a `host`/`node` column) is the host of a fetched entry;
- every quote (a fenced block with no info string, `text` or `log`; commands go in `bash`,
  `console` or `sh` blocks) is verbatim in a fetched entry's text — whitespace may differ, `…` or
  `...` may stand for an omitted part, secrets may be `[REDACTED:kind]` — and a quote the report
  cites by an id on the three lines above it must be in *that* entry. A block of several lines
  that no single entry holds may quote one entry per line (what a host printed last): then every
  line must be in a fetched entry (in one of the entries cited above it, when ids are cited).

Any claim that does not resolve makes the report REJECTed, each problem with the report's line
number and the exact line. The check reads the bundle once (or asks Cloud Logging once per 200
insertIds), whatever the number of claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from markdown_it import MarkdownIt

from mlwiki.errors import BadInput

EVIDENCE_ID = re.compile(r"(?<![A-Za-z0-9_])E[1-9][0-9]*(?![A-Za-z0-9_])")
INSERT_ID = re.compile(r"insertIds?\b[`*:=\s]*`?([A-Za-z0-9][A-Za-z0-9_.\-/:]*)`?")
GKE_NODE = re.compile(r"(?<![A-Za-z0-9.\-])gke-[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?![A-Za-z0-9\-])")
NAMED_HOST = re.compile(
    r"\b(?:node|host|VM|instance)s?\b[`*:=\s]*`?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)`?", re.IGNORECASE
)
QUOTE_FENCES = frozenset({"", "text", "log", "logs"})
OMITTED = re.compile(r"…(?: \[\+\d+ chars\])?|\.\.\.")
CITES_BEFORE = 3  # lines above a quote where the id it quotes may stand


@dataclass
class Claim:
    line: int  # 1-based
    kind: str  # evidence_id | insertId | host | quote
    value: str
    cites: list[str] = field(default_factory=list)  # ids just above a quote


@dataclass
class ReportProblem:
    line: int
    text: str  # the exact line of the report
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.problem}: {self.text.strip()}"

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "problem": self.problem, "text": self.text}


def report_claims(markdown: str) -> list[Claim]:
    """Every checkable claim of the report, in reading order."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    claims: list[Claim] = []
    headers: list[str] = []
    column = 0
    in_head = False
    for token in tokens:
        if token.type == "thead_open":
            headers, in_head = [], True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            column = 0
        elif token.type in ("th_open", "td_open"):
            column += 1
        elif token.type == "fence" and token.map is not None:
            if token.info.strip().lower() in QUOTE_FENCES and token.content.strip():
                start = token.map[0] + 1  # the opening fence's line (1-based)
                cites = [
                    c.value
                    for c in claims
                    if c.kind in ("evidence_id", "insertId")
                    and start - CITES_BEFORE <= c.line < start
                ]
                claims.append(Claim(start + 1, "quote", token.content.rstrip("\n"), cites))
        elif token.type == "inline" and token.map is not None:
            if in_head:
                headers.append(token.content.strip().lower())
                continue
            header = headers[column - 1] if 0 < column <= len(headers) else ""
            claims.extend(_inline_claims(token.content, token.map[0] + 1, header))
    return claims


def _inline_claims(text: str, first_line: int, header: str) -> list[Claim]:
    found: list[Claim] = []
    for offset, line in enumerate(text.split("\n")):
        number = first_line + offset
        found += [Claim(number, "evidence_id", m.group(0)) for m in EVIDENCE_ID.finditer(line)]
        found += [Claim(number, "insertId", m.group(1)) for m in INSERT_ID.finditer(line)]
        hosts = {m.group(0) for m in GKE_NODE.finditer(line)}
        hosts |= {
            m.group(1)
            for m in NAMED_HOST.finditer(line)
            if "-" in m.group(1) and any(ch.isdigit() for ch in m.group(1))
        }
        cell = line.strip().strip("`").strip()
        if ("host" in header or "node" in header) and cell and cell not in ("—", "-", "–"):
            hosts.add(cell)
        if "insertid" in header and cell:
            found.append(Claim(number, "insertId", cell))
        found += [Claim(number, "host", host) for host in sorted(hosts)]
    return found


def _squash(text: str) -> str:
    return " ".join(text.split())


def quote_parts(quote: str) -> list[str]:
    """The verbatim pieces of a quote (an omission mark splits it), whitespace squashed."""
    return [part for part in (_squash(p) for p in OMITTED.split(quote)) if part]


def quote_in_text(quote: str, text: str) -> bool:
    """Whether every piece of `quote` is in `text`, in order."""
    parts = quote_parts(quote)
    if not parts:
        return True
    flat = _squash(text)
    at = 0
    for part in parts:
        found = flat.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


@dataclass
class Fetched:
    """What the report's claims are checked against: the fetched entries they name."""

    insert_ids: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    quotes: dict[int, set[str]] = field(default_factory=dict)  # claim index -> insertIds holding it
    # (claim index, line offset) -> insertIds holding that line of a multi-line quote
    quote_lines: dict[tuple[int, int], set[str]] = field(default_factory=dict)


def _entry_texts(entry: dict[str, Any]) -> list[str]:
    from mlwiki.diagnose.verify import _strings
    from mlwiki.logs.entry import entry_text
    from mlwiki.redact import redact_text

    texts = [entry_text(entry), *_strings(entry.get("jsonPayload") or {})]
    return texts + [redact_text(t)[0] for t in texts if t]


def resolve(claims: list[Claim], entries: Any, *, insert_id_of: Any, host_of: Any) -> Fetched:
    """One pass over `entries`: which claimed insertIds and hosts exist, which entries hold each
    quote."""
    wanted_ids = {c.value for c in claims if c.kind == "insertId"}
    wanted_hosts = {c.value for c in claims if c.kind == "host"}
    quotes = [(i, c) for i, c in enumerate(claims) if c.kind == "quote"]
    lines = [
        ((i, offset), line)
        for i, c in quotes
        if len(quote_lines(c.value)) > 1
        for offset, line in quote_lines(c.value)
    ]
    fetched = Fetched()
    for entry in entries:
        insert_id = insert_id_of(entry)
        if insert_id in wanted_ids:
            fetched.insert_ids.add(insert_id)
        host = host_of(entry)
        if host in wanted_hosts:
            fetched.hosts.add(host)
        if quotes:
            texts = _entry_texts(entry)
            for index, claim in quotes:
                if any(quote_in_text(claim.value, text) for text in texts):
                    fetched.quotes.setdefault(index, set()).add(insert_id)
            for key, line in lines:
                if any(quote_in_text(line, text) for text in texts):
                    fetched.quote_lines.setdefault(key, set()).add(insert_id)
    return fetched


def quote_lines(quote: str) -> list[tuple[int, str]]:
    """The non-blank lines of a quote block with their offsets in it."""
    return [(offset, line) for offset, line in enumerate(quote.split("\n")) if line.strip()]


def check_claims(
    claims: list[Claim], lines: list[str], findings: dict[str, Any], fetched: Fetched
) -> list[ReportProblem]:
    evidence = {str(e.get("id")): e for e in findings.get("evidence") or [] if isinstance(e, dict)}
    problems: list[ReportProblem] = []

    def problem(claim: Claim, text: str) -> None:
        line = lines[claim.line - 1] if 0 < claim.line <= len(lines) else ""
        problems.append(ReportProblem(claim.line, line, text))

    for index, claim in enumerate(claims):
        if claim.kind == "evidence_id" and claim.value not in evidence:
            problem(claim, f"{claim.value} is not an evidence id of the findings")
        elif claim.kind == "insertId" and claim.value not in fetched.insert_ids:
            problem(claim, f"insertId {claim.value} is no fetched entry")
        elif claim.kind == "host" and claim.value not in fetched.hosts:
            problem(claim, f"host {claim.value} is the host of no fetched entry")
        elif claim.kind == "quote":
            cited = {str(evidence[c]["insertId"]) if c in evidence else c for c in claim.cites}
            where = ", ".join(sorted(claim.cites))
            holders = fetched.quotes.get(index, set())
            if holders:
                if cited and not cited & holders:
                    problem(claim, f"quote is not in the entry cited above it ({where})")
                continue
            per_line = quote_lines(claim.value)
            if len(per_line) < 2:
                problem(claim, "quote is in no fetched entry")
                continue
            for offset, _ in per_line:  # one entry per line, or the line named is wrong
                line = Claim(claim.line + offset, "quote", "")
                held = fetched.quote_lines.get((index, offset), set())
                if not held:
                    problem(line, "quote is in no fetched entry")
                elif cited and not cited & held:
                    problem(line, f"quote is not in the entries cited above it ({where})")
    return problems


def check_report(
    path: Path,
    findings: dict[str, Any],
    *,
    bundle: Optional[Path],
    project: Optional[str],
    client: Any = None,
) -> tuple[list[ReportProblem], dict[str, int]]:
    """The report's problems and how many claims of each kind were checked."""
    try:
        markdown = path.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInput(f"--report: cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise BadInput(f"--report: {path} is not UTF-8 text ({error.reason})") from None
    claims = report_claims(markdown)
    fetched = _fetch(claims, findings, bundle=bundle, project=project, client=client)
    problems = check_claims(claims, markdown.splitlines(), findings, fetched)
    counts: dict[str, int] = {}
    for claim in claims:
        counts[claim.kind] = counts.get(claim.kind, 0) + 1
    return problems, counts


def _fetch(
    claims: list[Claim],
    findings: dict[str, Any],
    *,
    bundle: Optional[Path],
    project: Optional[str],
    client: Any,
) -> Fetched:
    from mlwiki.logs.bundle import iter_bundle
    from mlwiki.logs.entry import entry_host
    from mlwiki.logs.store import synthetic_insert_id

    def insert_id_of(entry: dict[str, Any]) -> str:
        return str(entry.get("insertId") or synthetic_insert_id(entry))

    if bundle is not None:
        return resolve(claims, iter_bundle(bundle), insert_id_of=insert_id_of, host_of=entry_host)
    from mlwiki.diagnose.verify import entries_from_cloud, wanted_ids

    assert project is not None
    wanted = wanted_ids(findings) | {c.value for c in claims if c.kind == "insertId"}
    found, _ = entries_from_cloud(project, findings, wanted, client)
    entries = [entry for group in found.values() for entry in group]
    return resolve(claims, entries, insert_id_of=insert_id_of, host_of=entry_host)
