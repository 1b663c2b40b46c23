"""Output sized for an agent: the one mechanism behind every CLI command and every MCP tool.

An agent's host keeps at most 30,000 characters of a shell result (cutting out the middle, where the
insertIds an agent must cite tend to be) and refuses MCP results over ~25k tokens; one 400 KB log
line or a 100k-entry bundle must not blow either. So every result an agent may read goes through
`present`:

1. **Redaction** (`redact`): secrets in log text are replaced by `[REDACTED:kind]` markers (the one
   call into `mlwiki.redact.redact_obj`; `--no-redact` turns it off for a person on their own
   machine). The full result written to `--out` is redacted the same way.
2. **A view** (`VIEWS`, one function per kind of result): the verdict, the summary and at most
   `limit` cited entries or rows, each log quote at most `QUOTE_CHARS` characters, after the
   filters (`--host`, `--symptom`, `--role`) and from `--offset` on. A view says what it left out
   (`page` for the rows, `output.clipped` for lists and strings it shortened) and where the rest is
   (`output.full`: the `--out` file, or an MCP resource with pages).
3. **A hard cap** (`fit`, `fit_text`): whatever the view still holds is shortened, step by step,
   until it is at most `CLI.limit` characters (CLI) or `MCP.limit` UTF-8 bytes (MCP) — every token
   is at least one byte, so that is at most 20,000 tokens on any tokenizer. No input can exceed it.

Nothing is lost: the full result goes to `--out FILE` (CLI; the path is printed) or to an MCP
resource `mlwiki://result/<id>/<page>` (`ResultStore`), and `--offset`/`--limit` page through rows.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

import orjson

QUOTE_CHARS = 500  # a log quote in a view: enough for the meaning of any real error line
DEFAULT_LIMIT = 10  # cited entries / rows / failures shown by default
MAX_DEPTH = 12  # deeper structures are cut (a hostile jsonPayload can nest without end)
CLIPPED_SHOWN = 20  # how many clipped places a view lists by name
ELLIPSIS = "…"


@dataclass(frozen=True)
class Budget:
    """The size an agent can take in one result: `limit` characters, or UTF-8 bytes."""

    limit: int
    unit: str  # "chars" | "bytes"

    def size(self, text: str) -> int:
        return len(text) if self.unit == "chars" else len(text.encode("utf-8", "surrogatepass"))


CLI = Budget(30_000, "chars")  # Claude Code keeps 30,000 characters of a Bash result
MCP = Budget(20_000, "bytes")  # ≤ 20,000 tokens whatever the tokenizer (a token is ≥ 1 byte)


def dumps(data: Any) -> str:
    return orjson.dumps(
        data, default=str, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    ).decode()


def emit_json(data: Any, stream: TextIO | None = None) -> None:
    """`data` as indented JSON; under the last-line cap (`capped_stdout`) shortened to fit as
    valid JSON (`fit`), never cut in the middle."""
    stream = stream or sys.stdout
    if isinstance(stream, CappedStdout) and isinstance(data, dict):
        data = fit(data, Budget(max(stream.room - 1, 1000), "chars"), hint=CAP_HINT)
    stream.write(dumps(data))
    stream.write("\n")


# -- redaction -------------------------------------------------------------------------------------


def redact(
    value: Any,
    enabled: bool = True,
    *,
    context: Iterable[Any] = (),
    cited: Optional[Mapping[str, dict[str, Any]]] = None,
) -> tuple[Any, dict[str, int]]:
    """`value` with secrets replaced (see `mlwiki.redact`), and how many of each kind.

    The single place agent-facing output is redacted, through the `mlwiki.redact` API: one
    redactor prepared over everything that goes out together (`value` and `context`, so a secret
    seen once is hidden wherever it recurs and a key split over entries is found); findings with
    `cited` entries get each evidence quote redacted in the context of its entry, so `verify`
    still finds it. Improving the detector improves every command and tool at once.
    """
    if not enabled:
        return value, {}
    from mlwiki.redact import Redactor

    cited = dict(cited or {})
    redactor = Redactor().prepared([value, *context, list(cited.values())])
    if cited:
        clean, counts = redactor.findings(value, cited)
    else:
        clean, counts = redactor.obj(value)
    return clean, dict(sorted(counts.items()))


# -- selection: filters and paging -----------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """Which rows a view shows: the filters, then `limit` rows from `offset` on."""

    limit: int = DEFAULT_LIMIT
    offset: int = 0
    host: Optional[str] = None
    symptom: Optional[str] = None
    role: Optional[str] = None

    def filters(self) -> dict[str, str]:
        return {
            name: value
            for name in ("host", "symptom", "role")
            if (value := getattr(self, name)) is not None
        }

    def keeps(self, row: Mapping[str, Any]) -> bool:
        """A row passes a filter it has the field of; a row without the field passes only when
        the filter is not about it (a row with no host is not on the host asked for)."""
        for name, wanted in self.filters().items():
            if name in row and row.get(name) != wanted:
                return False
        return True

    def page(
        self, rows: list[Any], keep: Optional[Callable[[Any], bool]] = None
    ) -> tuple[list[Any], dict[str, Any]]:
        """The rows shown and the `page` note: total after filters, offset, shown, next_offset."""
        kept = [row for row in rows if (keep or self.keeps)(row)]
        shown = kept[self.offset : self.offset + self.limit]
        after = self.offset + len(shown)
        note: dict[str, Any] = {
            "total": len(kept),
            "offset": self.offset,
            "shown": len(shown),
            "next_offset": after if after < len(kept) else None,
        }
        if self.filters():
            note["filters"] = self.filters()
            note["unfiltered"] = len(rows)
        return shown, note


# -- shortening ------------------------------------------------------------------------------------


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    keep = max(1, limit - 24)
    return f"{text[:keep]}{ELLIPSIS} [+{len(text) - keep} chars]"


@dataclass
class Clipped:
    """What shortening left out, by place (`steps[1].outputs.hosts`)."""

    places: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0

    def add(self, path: str, **what: Any) -> None:
        self.count += 1
        if len(self.places) < CLIPPED_SHOWN:
            self.places.append({"path": path or "(top)", **what})

    def to_list(self) -> list[dict[str, Any]]:
        more = self.count - len(self.places)
        return self.places + ([{"path": f"… {more} more place(s)"}] if more > 0 else [])


def condense(
    value: Any,
    *,
    strings: int,
    items: int,
    clipped: Clipped,
    path: str = "",
    depth: int = 0,
    keep: frozenset[str] = frozenset(),
) -> Any:
    """`value` with strings over `strings` characters clipped, lists and objects cut to their first
    `items` members and structures deeper than MAX_DEPTH cut; each cut recorded in `clipped`.
    Keys in `keep` are never cut from an object (the verdict, the summary, the page note)."""
    if isinstance(value, str):
        if len(value) > strings:
            clipped.add(path, chars=len(value), shown=strings)
            return clip(value, strings)
        return value
    if isinstance(value, (list, tuple)):
        if depth >= MAX_DEPTH:
            clipped.add(path, omitted="deeper structure")
            return []
        shown = list(value)[:items]
        if len(value) > items:
            clipped.add(path, items=len(value), shown=items)
        return [
            condense(
                v,
                strings=strings,
                items=items,
                clipped=clipped,
                path=f"{path}[{i}]",
                depth=depth + 1,
            )
            for i, v in enumerate(shown)
        ]
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            clipped.add(path, omitted="deeper structure")
            return {}
        out: dict[str, Any] = {}
        budget = max(items, len(keep))
        for key, item in value.items():
            name = str(key)
            if len(out) >= budget and name not in keep:
                continue
            out[name] = condense(
                item,
                strings=strings,
                items=items,
                clipped=clipped,
                path=f"{path}.{name}" if path else name,
                depth=depth + 1,
            )
        if len(out) < len(value):
            clipped.add(path, keys=len(value), shown=len(out))
        return out
    return value


# (string length, list length) tried in turn until a result fits its budget.
LADDER = ((2000, 100), (1000, 50), (400, 20), (200, 10), (120, 5), (80, 2), (40, 1))
KEEP = frozenset({"status", "verdict", "summary", "output", "page", "workflow", "action", "count"})


def fit(view: dict[str, Any], budget: Budget, *, hint: str = "") -> dict[str, Any]:
    """`view` shortened until its JSON is within `budget` (see the module docstring, step 3)."""
    if budget.size(dumps(view)) <= budget.limit:
        return view
    for strings, items in LADDER:
        clipped = Clipped()
        shrunk = condense(view, strings=strings, items=items, clipped=clipped, keep=KEEP)
        _note(shrunk, clipped, hint)
        if budget.size(dumps(shrunk)) <= budget.limit:
            return shrunk
    # Nothing readable fits (only a pathological shape gets here): say so, briefly.
    return {
        "status": clip(str(view.get("status") or view.get("verdict") or ""), 80),
        "summary": clip(str(view.get("summary") or ""), 2000),
        "output": {
            "too_large": True,
            "hint": hint or "the result is too large to show; write it to a file with --out",
            "full": (view.get("output") or {}).get("full")
            if isinstance(view.get("output"), dict)
            else None,
        },
    }


def _note(view: dict[str, Any], clipped: Clipped, hint: str) -> None:
    if not clipped.count:
        return
    output = view.setdefault("output", {})
    if not isinstance(output, dict):  # a result's own `output` field: keep it, note beside it
        output = view["output_note"] = {}
    output["clipped"] = [*output.get("clipped", []), *clipped.to_list()][: CLIPPED_SHOWN + 1]
    if hint:
        output.setdefault("hint", hint)


def fit_text(text: str, budget: Budget, *, hint: str = "") -> str:
    """Text (Markdown, plain) cut at a line boundary to fit `budget`, with a last line saying so."""
    if budget.size(text) <= budget.limit:
        return text
    footer = (
        f"\n… output cut to {budget.limit} {budget.unit}" + (f"; {hint}" if hint else "") + "\n"
    )
    room = budget.limit - budget.size(footer)
    kept: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        line = (
            line
            if len(line) <= QUOTE_CHARS * 4
            else clip(line.rstrip("\n"), QUOTE_CHARS * 4) + "\n"
        )
        size = budget.size(line)
        if used + size > room:
            break
        kept.append(line)
        used += size
    return "".join(kept) + footer


# -- views -----------------------------------------------------------------------------------------


def entry_brief(entry: Mapping[str, Any], quote_chars: int = QUOTE_CHARS) -> dict[str, Any]:
    """What an agent needs to cite one log entry: its ids, place, severity and a bounded quote."""
    from mlwiki.logs.entry import entry_host, entry_pod, entry_text

    brief = {
        "insertId": entry.get("insertId"),
        "timestamp": entry.get("timestamp"),
        "logName": entry.get("logName"),
        "severity": entry.get("severity"),
        "host": entry_host(dict(entry)),
        "pod": entry_pod(dict(entry)),
        "quote": clip(entry_text(dict(entry)), quote_chars),
    }
    return {k: v for k, v in brief.items() if v is not None}


def _bounded(
    value: Any, selection: Selection, clipped: Clipped, path: str, strings: int = QUOTE_CHARS
) -> Any:
    return condense(
        value, strings=strings, items=max(selection.limit, 1), clipped=clipped, path=path
    )


FILTER_CHARS = QUOTE_CHARS  # a workflow step's rendered filter or command (whole in a dry run)
ACTION_FILTER_CHARS = 2000  # one action's filter or command: the action's subject
DRY_RUN_FILTER_CHARS = 20_000  # Cloud Logging's own limit on a filter


def _outputs_view(
    outputs: Mapping[str, Any],
    selection: Selection,
    clipped: Clipped,
    path: str,
    parsed: bool = False,
) -> dict[str, Any]:
    """A step's or action's outputs, bounded. A workflow step's `json` (its parsed stdout) is
    left to the full result (the verdict is what counts); one action's is its answer: kept,
    bounded (`parsed=True`)."""
    shown = {}
    for name, value in outputs.items():
        if name == "entries":
            continue
        if name == "json" and value is not None and not parsed:
            clipped.add(f"{path}.json", omitted="parsed stdout (in the full result)")
            continue
        shown[name] = _bounded(value, selection, clipped, f"{path}.{name}")
    return shown


def _entries_view(
    entries: list[dict[str, Any]], selection: Selection
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    briefs = [entry_brief(e) for e in entries]
    return selection.page(briefs)


def workflow_view(data: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """`mlwiki run` / MCP `run_workflow`: the verdict and summary, each step's status and counts,
    the window used, and `limit` of the entries the run found (briefly)."""
    clipped = Clipped()
    steps = []
    filter_chars = DRY_RUN_FILTER_CHARS if data.get("dry_run") else FILTER_CHARS
    for number, step in enumerate(data.get("steps") or []):
        item = {k: v for k, v in step.items() if k not in ("outputs", "params")}
        item["params"] = _bounded(
            step.get("params") or {}, selection, clipped, f"steps[{number}].params"
        )
        for key in ("filter", "command"):
            if key in item:
                item[key] = _bounded(
                    item[key], Selection(limit=50), clipped, f"steps[{number}].{key}", filter_chars
                )
        item["outputs"] = _outputs_view(
            step.get("outputs") or {}, selection, clipped, f"steps[{number}].outputs"
        )
        steps.append(item)
    view = {k: v for k, v in data.items() if k not in ("steps", "entries", "outputs")}
    view["summary"] = clip(str(data.get("summary") or ""), QUOTE_CHARS * 4)
    view["steps"] = steps
    view["outputs"] = _bounded(data.get("outputs") or {}, selection, clipped, "outputs")
    if "entries" in data:
        view["entries"], view["page"] = _entries_view(list(data["entries"]), selection)
    _note(view, clipped, "")
    return view


def action_view(data: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """`mlwiki action`: status, the rendered filter or command, outputs (stdout clipped) and
    `limit` of the entries a log query found (briefly)."""
    clipped = Clipped()
    view = {k: v for k, v in data.items() if k not in ("entries", "outputs")}
    outputs = data.get("outputs") or {}
    view["outputs"] = _outputs_view(outputs, selection, clipped, "outputs", parsed=True)
    if "series" in data:  # a metric query's time series: `limit` of them, points bounded
        view["series"] = _bounded(data["series"], selection, clipped, "series")
    for key in ("filter", "command"):
        if key in view:
            chars = DRY_RUN_FILTER_CHARS if data.get("status") == "dry_run" else ACTION_FILTER_CHARS
            view[key] = _bounded(view[key], Selection(limit=50), clipped, key, chars)
    if "entries" in data:
        view["entries"], view["page"] = _entries_view(list(data["entries"]), selection)
    _note(view, clipped, "")
    return view


ROLE_ORDER = {"root": 0, "symptom": 1, "consequence": 2, "cascade": 3}


def matches_view(data: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """`mlwiki match` / MCP `match_logs`: one summary line per symptom (role, count, hosts, first
    and last time) of the rows the filters keep, and `limit` of those rows, each quote bounded.
    `count` is every match; `page.total` those the filters keep."""
    every = list(data.get("matches") or [])
    rows = [row for row in every if selection.keeps(row)]
    by_symptom: dict[str, dict[str, Any]] = {}
    for row in rows:
        item = by_symptom.setdefault(
            str(row.get("symptom")),
            {"symptom": row.get("symptom"), "role": row.get("role"), "count": 0, "hosts": set(),
             "first": row.get("timestamp"), "last": row.get("timestamp")},
        )  # fmt: skip
        item["count"] += 1
        if row.get("host"):
            item["hosts"].add(row["host"])
        item["last"] = row.get("timestamp")
    summary = sorted(
        by_symptom.values(), key=lambda s: (ROLE_ORDER.get(str(s["role"]), 9), str(s["first"]))
    )
    for item in summary:
        hosts = sorted(item.pop("hosts"))
        item["hosts"] = len(hosts)
        item["example_hosts"] = hosts[:3]
    shown, page = selection.page(every)
    clipped = Clipped()
    view = {k: v for k, v in data.items() if k not in ("matches", "count")}
    view["count"] = len(every)
    view["symptoms"] = summary[: max(selection.limit * 5, 50)]
    if len(summary) > len(view["symptoms"]):
        clipped.add("symptoms", items=len(summary), shown=len(view["symptoms"]))
    view["matches"] = [
        {**row, "quote": clip(str(row.get("quote") or ""))}
        if len(str(row.get("quote") or "")) > QUOTE_CHARS
        else row
        for row in (
            _bounded(r, Selection(limit=50), clipped, f"matches[{i}]") for i, r in enumerate(shown)
        )
    ]
    view["page"] = page
    _note(view, clipped, "")
    return view


def findings_view(findings: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """`mlwiki troubleshoot` / MCP `troubleshoot`: the findings with at most `limit` failure rows,
    culprit hosts and observations (the filters applied), the evidence those cite, quotes bounded.
    Findings that fit are shown whole."""
    clipped = Clipped()
    view = dict(findings)

    def rows(key: str) -> list[dict[str, Any]]:
        items = [r for r in findings.get(key) or [] if isinstance(r, dict)]
        if selection.host is not None:
            items = [
                r
                for r in items
                if r.get("host") == selection.host or selection.host in (r.get("hosts") or [])
            ]
        if selection.symptom is not None:
            items = [r for r in items if r.get("symptom", selection.symptom) == selection.symptom]
        shown = items[selection.offset : selection.offset + selection.limit]
        if len(shown) < len(findings.get(key) or []):
            clipped.add(
                key, items=len(findings.get(key) or []), shown=len(shown), matching=len(items)
            )
        return shown

    for key in ("failures", "culprit_hosts", "observations"):
        if key in findings:
            view[key] = rows(key)
    cited: list[str] = list((findings.get("root_cause") or {}).get("evidence") or [])
    for key in ("failures", "culprit_hosts", "observations"):
        for row in view.get(key) or []:
            cited.extend(row.get("evidence") or [])
    wanted = set(cited)
    evidence = [e for e in findings.get("evidence") or [] if e.get("id") in wanted]
    if selection.host is not None:
        evidence = [e for e in evidence if e.get("host") in (selection.host, None)]
    limit = max(selection.limit * 4, 20)
    if len(evidence) > limit:
        clipped.add("evidence", items=len(evidence), shown=limit)
        evidence = evidence[:limit]
    elif len(evidence) < len(findings.get("evidence") or []):
        clipped.add(
            "evidence",
            items=len(findings.get("evidence") or []),
            shown=len(evidence),
            note="only the evidence the rows shown cite",
        )
    view["evidence"] = [{**e, "quote": clip(str(e.get("quote") or ""))} for e in evidence]
    if any(len(str(e.get("quote") or "")) > QUOTE_CHARS for e in evidence):
        clipped.add(
            "evidence[].quote",
            chars=max(len(str(e.get("quote") or "")) for e in evidence),
            shown=QUOTE_CHARS,
        )
    view["next_steps"] = _bounded(
        findings.get("next_steps") or [],
        Selection(limit=max(selection.limit * 2, 20)),
        clipped,
        "next_steps",
    )
    view["actions_run"] = _bounded(
        findings.get("actions_run") or [],
        Selection(limit=max(selection.limit * 2, 20)),
        clipped,
        "actions_run",
    )
    view["data"] = _bounded(findings.get("data") or {}, Selection(limit=20), clipped, "data")
    _note(view, clipped, "")
    return view


def verify_view(data: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """`mlwiki verify`: the status and at most `limit`×5 problems (each one line)."""
    clipped = Clipped()
    view = dict(data)
    problems = list(data.get("problems") or [])
    many = Selection(limit=max(selection.limit * 5, 50))
    view["problems"] = _bounded(problems, many, clipped, "problems")
    if isinstance(data.get("report"), dict):
        view["report"] = {
            **data["report"],
            "problems": _bounded(
                data["report"].get("problems") or [], many, clipped, "report.problems"
            ),
        }
    _note(view, clipped, "")
    return view


def rows_view(key: str) -> Callable[[dict[str, Any], Selection], dict[str, Any]]:
    """A plain list under `key` (symptoms, search results): `limit` rows from `offset`."""

    def view(data: dict[str, Any], selection: Selection) -> dict[str, Any]:
        shown, page = selection.page(list(data.get(key) or []))
        return {**data, key: shown, "page": page}

    return view


VIEWS: dict[str, Callable[[dict[str, Any], Selection], dict[str, Any]]] = {
    "symptoms": rows_view("symptoms"),
    "findings": findings_view,
    "matches": matches_view,
    "workflow": workflow_view,
    "action": action_view,
    "verify": verify_view,
}


@dataclass
class Presented:
    """A result made ready for an agent: the bounded `view`, and the `full` (redacted) result."""

    view: dict[str, Any]
    full: Any
    redacted: dict[str, int]
    clipped: bool


def present(
    kind: str,
    data: dict[str, Any],
    selection: Selection = Selection(),
    *,
    budget: Budget = CLI,
    redacted: bool = True,
    full_at: Optional[str] = None,
    hint: str = "",
    cited: Optional[Mapping[str, dict[str, Any]]] = None,
) -> Presented:
    """Redact `data`, build its view of `kind` (see VIEWS) and fit it to `budget`.

    `full_at` names where the full result is (a file path or a resource URI) and goes into the
    view's `output.full`; `hint` says how to get what was left out (the CLI and MCP differ);
    `cited` are the entries findings cite (evidence id → entry), for their quotes' redaction."""
    full, counts = redact(data, redacted, cited=cited)
    build = VIEWS[kind]
    view = build(full, selection)
    asked = selection.limit
    while selection.limit > 1 and budget.size(dumps(view)) > budget.limit:
        # Fewer rows first (the page note stays true); shortening strings is the last resort.
        size = budget.size(dumps(view))
        smaller = min(selection.limit - 1, int(selection.limit * budget.limit * 0.9 / size))
        selection = replace(selection, limit=max(1, smaller))
        view = build(full, selection)
    if selection.limit < asked:
        view.setdefault("output", {})["limit"] = (
            f"{selection.limit} shown of the {asked} asked for, to stay within "
            f"{budget.limit} {budget.unit}"
        )
    if counts:
        view["redacted"] = counts
    cut = "output" in view or bool((view.get("page") or {}).get("next_offset"))
    if full_at:
        view.setdefault("output", {})["full"] = full_at
    if cut and hint:
        view.setdefault("output", {}).setdefault("hint", hint)
    fitted = fit(view, budget, hint=hint)
    return Presented(fitted, full, counts, cut or fitted is not view)


# -- the command line ------------------------------------------------------------------------------


def add_output_options(
    parser: argparse.ArgumentParser,
    *,
    out: Optional[str] = "write the full result (JSON) to FILE; stdout keeps the bounded view",
    filters: Iterable[str] = ("host", "symptom", "role"),
    limit_help: str = "show at most N cited entries or rows (default %(default)s)",
) -> None:
    """The options every agent-facing command shares (the view, the full result, redaction)."""
    group = parser.add_argument_group(
        "output for agents",
        "stdout is bounded (at most 30,000 characters: a verdict, a summary, a few cited entries "
        "with quotes of at most 500 characters); --out keeps everything",
    )
    if out:
        group.add_argument("--out", type=Path, metavar="FILE", help=out)
    group.add_argument(
        "--limit", type=_positive, default=DEFAULT_LIMIT, metavar="N", help=limit_help
    )
    group.add_argument(
        "--offset", type=_not_negative, default=0, metavar="N", help="skip the first N (paging)"
    )
    labels = {
        "host": ("NODE", "only what is on this node (host)"),
        "symptom": ("ID", "only this symptom id"),
        "role": ("ROLE", "only this taxonomy role: root, symptom, cascade or consequence"),
    }
    for name in filters:
        metavar, text = labels[name]
        group.add_argument(f"--{name}", metavar=metavar, help=text)
    from mlwiki.redact.output import add_no_redact

    add_no_redact(group)


def _positive(text: str) -> int:
    return _count(text, 1)


def _not_negative(text: str) -> int:
    return _count(text, 0)


def _count(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value}: must be at least {least}")
    return value


def selection_from(args: argparse.Namespace) -> Selection:
    return Selection(
        limit=getattr(args, "limit", DEFAULT_LIMIT),
        offset=getattr(args, "offset", 0),
        host=getattr(args, "host", None),
        symptom=getattr(args, "symptom", None),
        role=getattr(args, "role", None),
    )


def write_file(
    path: Path, text: str, flag: str = "--out", inputs: Iterable[Optional[Path]] = ()
) -> None:
    """Write a full result: never over an input (`mlwiki.outputs.check_outputs`), atomically."""
    from mlwiki.errors import BadInput
    from mlwiki.outputs import check_outputs, write_atomically

    check_outputs([path], inputs, flag)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode("utf-8"))
    except OSError as error:
        raise BadInput(f"{flag}: cannot write {path}: {error.strerror or error}") from None


def cli_result(
    command: str,
    kind: str,
    data: dict[str, Any],
    args: argparse.Namespace,
) -> Presented:
    """Present `data` for the CLI: the full result to `--out` (if given), the bounded view back."""
    out: Optional[Path] = getattr(args, "out", None)
    hint = "use --offset/--limit and --host/--symptom/--role to page and filter" + (
        "" if out else ", or --out FILE for everything"
    )
    presented = present(
        kind,
        data,
        selection_from(args),
        redacted=not getattr(args, "no_redact", False),
        full_at=str(out) if out else None,
        hint=hint,
    )
    if out is not None:
        bundle = getattr(args, "bundle", None)
        write_file(out, dumps(presented.full) + "\n", inputs=[Path(bundle) if bundle else None])
        print(f"mlwiki {command}: the full result is in {out}", file=sys.stderr)
    return presented


def print_view(presented: Presented) -> None:
    emit_json(presented.view)


def print_text(text: str, *, hint: str = "") -> None:
    sys.stdout.write(fit_text(text, CLI, hint=hint))


# -- the last line of defence ----------------------------------------------------------------------

# Not capped: commands that run for as long as the user wants (each line is news, not a result),
# and the reports for people and CI (the linter's, the accuracy table, the index check), whose
# JSON other tools read whole.
UNCAPPED_COMMANDS = frozenset({"dashboard", "handoff", "mcp", "lint", "eval", "index"})
CAP_HINT = "redirect the output to a file to keep it all"


class CappedStdout:
    """A stdout that passes the first `limit` characters and counts the rest: the cap for the
    commands without a view of their own (`metrics`, `snapshot`, `doctor`, …) on inputs no view
    bounds; `emit_json` fits JSON under it instead. The commands with a view never reach it."""

    def __init__(self, stream: TextIO, limit: int) -> None:
        self.stream = stream
        self.room = limit
        self.dropped = 0

    def write(self, text: str) -> int:
        shown = text[: max(self.room, 0)]
        if shown:
            self.stream.write(shown)
        self.room -= len(shown)
        self.dropped += len(text) - len(shown)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _to_a_file(stream: TextIO) -> bool:
    """Whether `stream` is a regular file (a redirect no agent reads whole), not a pipe or tty."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


@contextlib.contextmanager
def capped_stdout(command: Optional[str]) -> Iterator[None]:
    """Cap what `command` prints at `CLI.limit` characters (see `CappedStdout`); output
    redirected to a file (SARIF for CI, a report kept) is left whole."""
    if command in UNCAPPED_COMMANDS or _to_a_file(sys.stdout):
        yield
        return
    original = sys.stdout
    capped = CappedStdout(original, CLI.limit - 200)
    sys.stdout = capped  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout = original
        if capped.dropped:
            original.write("\n")
            print(
                f"mlwiki {command}: output cut after {CLI.limit - 200} characters "
                f"({capped.dropped} more not shown); {CAP_HINT}",
                file=sys.stderr,
            )
