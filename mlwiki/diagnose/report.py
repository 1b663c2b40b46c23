"""The Markdown report, rendered from the findings with `mlwiki/templates/report.md.j2`.

Log text is untrusted: every quote is fenced (a code block whose fence is longer than any run of
backticks inside) and every log-derived name in running text is inline code, so nothing a log
line says can turn into Markdown structure, links or instructions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from mlwiki.diagnose.clock import epoch

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
_BACKTICKS = re.compile(r"`+")
_ACTIVE = re.compile(r"[\\`*_\[\]()<>#|!~]")
TIMELINE_ROWS_PER_HOST = 6


def inline_code(value: Any) -> str:
    """`value` as inline code that its own backticks cannot close; one line."""
    text = " ".join(str(value).split())
    if not text:
        return ""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def plain(value: Any) -> str:
    """Running text with Markdown's active characters escaped (names in it may come from logs)."""
    return _ACTIVE.sub(lambda m: "\\" + m.group(0), " ".join(str(value).split()))


def fenced(value: Any) -> str:
    """`value` as a fenced code block that no line of it can close."""
    text = str(value)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["code"] = inline_code
    env.filters["fenced"] = fenced
    env.filters["plain"] = plain
    return env


def timeline(findings: dict[str, Any]) -> list[dict[str, Any]]:
    """Per host, the cited evidence in time order, runs of one symptom folded into one row."""
    by_host: dict[str, list[dict[str, Any]]] = {}
    for item in findings["evidence"]:
        by_host.setdefault(item.get("host") or "(no host)", []).append(item)
    hosts = []
    for host, items in sorted(
        by_host.items(), key=lambda kv: min(epoch(i["timestamp"]) for i in kv[1])
    ):
        items.sort(key=lambda i: (epoch(i["timestamp"]), i["id"]))
        rows: list[dict[str, Any]] = []
        for item in items:
            if rows and rows[-1]["symptom"] == item.get("symptom"):
                rows[-1]["ids"].append(item["id"])
                rows[-1]["last"] = item["timestamp"]
            else:
                rows.append(
                    {
                        "first": item["timestamp"],
                        "last": item["timestamp"],
                        "symptom": item.get("symptom"),
                        "ids": [item["id"]],
                    }
                )
        hosts.append(
            {
                "host": host,
                "rows": rows[:TIMELINE_ROWS_PER_HOST],
                "more": max(0, len(rows) - TIMELINE_ROWS_PER_HOST),
            }
        )
    return hosts


def duty_strip(rows: list[dict[str, Any]]) -> str:
    """The duty-cycle rows (`findings.metrics.duty_cycle.rows`) as aligned text lines."""
    from mlwiki.metrics.report import row_label

    lines = []
    for row in rows:
        last = row.get("last")
        low = f", idle since {row['low_since']}" if row.get("low_since") else ""
        shown = "—" if last is None else f"{last:g}%"
        lines.append(f"{row['strip']}  last {shown}{low}  {row_label(row)}")
    return "\n".join(lines)


def render_report(findings: dict[str, Any], healthy: list[str]) -> str:
    template = _environment().get_template("report.md.j2")
    evidence = {item["id"]: item for item in findings["evidence"]}
    return template.render(
        f=findings,
        evidence=evidence,
        timeline=timeline(findings),
        healthy=healthy,
        duty_strip=duty_strip,
    )
