"""Measurement: do real failure lines still match their page when a tool wrapped them?

Real tools wrap long messages (a terminal-width logger, `fold -s`, `textwrap`, a rich console):
a line break, or a line break and indentation, where the message had a space. GKE's agent then
writes each piece as an entry of its own. This script takes real lines — the excerpts of the dev
sets (`tests/data/heldout/dev1_excerpts.jsonl`, `dev2_excerpts.jsonl`,
`tests/data/real_excerpts_12_devb.jsonl`) and every example and counter-example line cited on the
wiki's symptom pages — wraps each line longer than the width at word boundaries the way
`fold -s` and `textwrap` do (no word is cut), and matches them the way the held-out scorer does:
`mlwiki match`'s rows over one bundle where each excerpt's lines are consecutive entries of its
own pod's container stream, microseconds apart (an event's or an audit entry's message stays one
entry, its pieces joined by line breaks).

For each set and each wrapping it prints how many root/symptom excerpts match their page and how
many look-alikes raise a false alarm (a dev set's benign, cascade or consequence excerpt matching
a root page; a page's counter-example matching that page, or a root page its `belongs_to` does not
name). `--tree DIR` measures another checkout's package and wiki (e.g. `/work/main`) with this
script, for the before/after. Never run it on a sealed set.

Usage: `python benchmarks/bench_wrapped.py [--tree DIR] [--widths 80,120] [--indent]`
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parent.parent
DEV_SETS = (
    "tests/data/heldout/dev1_excerpts.jsonl",
    "tests/data/heldout/dev2_excerpts.jsonl",
    "tests/data/real_excerpts_12_devb.jsonl",
)
LOOK_ALIKE_ROLES = {"benign", "cascade", "consequence"}


@dataclass
class Excerpt:
    """Real lines and what they must (or must not) match."""

    lines: list[str]
    field: str
    expect: str  # a page id, or "benign"
    role: str  # the expected page's role, or benign/cascade/consequence for a look-alike
    allowed: frozenset[str] = frozenset()  # pages a look-alike may match (`belongs_to`)
    not_page: Optional[str] = None  # a counter-example's own page: it must never match it

    @property
    def look_alike(self) -> bool:
        return self.role in LOOK_ALIKE_ROLES or self.expect == "benign"


def dev_set(path: Path) -> list[Excerpt]:
    rows = [json.loads(text) for text in path.read_text().splitlines() if text.strip()]
    return [Excerpt(r["lines"], r["field"], r["expect"], r["role_of_expect"]) for r in rows]


def wiki_lines(wiki: Any) -> list[Excerpt]:
    """Every example line of every symptom page (it must match its page) and every
    counter-example (it must not match its page, nor a root page `belongs_to` does not name)."""
    found: list[Excerpt] = []
    for page in wiki.symptoms.values():
        meta = page.page.meta
        for example in meta.get("examples") or []:
            field = example.get("field") or "textPayload"
            if field in ("textPayload", "jsonPayload.message") or field.startswith("protoPayload"):
                found.append(Excerpt([example["line"]], field, page.id, page.role))
        for counter in meta.get("counter_examples") or []:
            owners = counter.get("belongs_to") or []
            owners = [owners] if isinstance(owners, str) else owners
            found.append(
                Excerpt([counter["line"]], "textPayload", "benign", "benign", frozenset(owners),
                        page.id)
            )  # fmt: skip
    return found


def wrapped(line: str, width: Optional[int], indent: str) -> list[str]:
    """`line` as a tool wrapping at `width` prints it (word boundaries only, as `fold -s`)."""
    if width is None or len(line) <= width:
        return [line]
    pieces = textwrap.wrap(
        line,
        width,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
        replace_whitespace=False,
        expand_tabs=False,
    )
    return pieces or [line]


def entries_of(excerpts: list[Excerpt], width: Optional[int], indent: str) -> list[dict]:
    """The bundle: a container line's pieces are entries of their own, an event's or audit
    entry's message is one entry whose pieces are joined by line breaks."""
    from tests.test_real_excerpts import entry  # the held-out scorer's shapes

    bundle = []
    for n, excerpt in enumerate(excerpts):
        k = 0
        for line in excerpt.lines:
            pieces = wrapped(line, width, indent)
            if excerpt.field != "textPayload":
                pieces = ["\n".join(pieces)]
            for piece in pieces:
                bundle.append(entry(n, k, piece, excerpt.field))
                k += 1
    return bundle


@dataclass
class Score:
    found: int = 0  # root/symptom excerpts whose page matched
    total: int = 0
    alarms: int = 0  # look-alikes matching what they must not
    look_alikes: int = 0
    affected: int = 0  # excerpts with a line longer than the width
    affected_found: int = 0


def score(
    excerpts: list[Excerpt], matched: dict[int, set[str]], roots: set[str], width: Optional[int]
) -> Score:
    result = Score()
    for n, excerpt in enumerate(excerpts):
        hits = matched.get(n, set())
        if excerpt.look_alike:
            result.look_alikes += 1
            wrong = (hits & roots) - excerpt.allowed
            if excerpt.not_page in hits:
                wrong.add(excerpt.not_page)
            result.alarms += bool(wrong)
            continue
        result.total += 1
        result.found += excerpt.expect in hits
        if width is not None and any(len(line) > width for line in excerpt.lines):
            result.affected += 1
            result.affected_found += excerpt.expect in hits
    return result


def match(bundle: list[dict], folder: Path) -> dict[int, set[str]]:
    """Excerpt number → the pages `mlwiki match` (its library call) found in its entries."""
    from mlwiki.diagnose import match as matcher
    from mlwiki.diagnose.collect import from_bundle
    from mlwiki.wiki import load_wiki

    path = folder / "bundle.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in bundle))
    collection = from_bundle(path)
    symptoms = load_wiki(WIKI_ROOT).symptoms.values()
    try:
        rows, _ = matcher.match_rows(symptoms, collection.entries, None, store=collection.store)
    except TypeError:  # a tree whose `match` matched entries one by one
        rows, _ = matcher.match_rows(symptoms, collection.entries, None)
    found: dict[int, set[str]] = {}
    for row in rows:
        found.setdefault(int(row["insertId"].split("-")[1]), set()).add(row["symptom"])
    return found


def measure(
    sets: dict[str, list[Excerpt]], wrappings: Iterable[tuple[str, Optional[int], str]]
) -> dict[str, dict[str, Score]]:
    """Set name → wrapping name → score."""
    from mlwiki.wiki import load_wiki

    roots = {p.id for p in load_wiki(WIKI_ROOT).symptoms.values() if p.role == "root"}
    table: dict[str, dict[str, Score]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, excerpts in sets.items():
            for label, width, indent in wrappings:
                matched = match(entries_of(excerpts, width, indent), Path(folder))
                table.setdefault(name, {})[label] = score(excerpts, matched, roots, width)
    return table


def wrappings_for(widths: Iterable[int], indent: bool) -> list[tuple[str, Optional[int], str]]:
    found: list[tuple[str, Optional[int], str]] = [("as written", None, "")]
    for width in widths:
        found.append((f"wrapped at {width}", width, ""))
        if indent:
            found.append((f"wrapped at {width}, indented", width, "    "))
    return found


WIKI_ROOT = REPO / "_wiki"


def main(argv: list[str]) -> int:
    global WIKI_ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=REPO, help="checkout measured (default: this)")
    parser.add_argument("--widths", default="80,120", help="comma-separated widths")
    parser.add_argument("--indent", action="store_true", help="also wrap with indentation")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    sys.path.insert(0, str(tree))
    WIKI_ROOT = tree / "_wiki"
    from mlwiki.wiki import load_wiki

    sets = {Path(p).name: dev_set(REPO / p) for p in DEV_SETS}
    sets["wiki examples"] = wiki_lines(load_wiki(WIKI_ROOT))
    widths = [int(w) for w in args.widths.split(",") if w]
    table = measure(sets, wrappings_for(widths, args.indent))
    print(f"tree: {tree}")
    print(f"{'set':28} {'wrapping':26} {'found':>13} {'long rows found':>16} {'false alarms':>13}")
    for name, row in table.items():
        for label, s in row.items():
            long = f"{s.affected_found}/{s.affected}" if label != "as written" else ""
            print(
                f"{name:28} {label:26} {f'{s.found}/{s.total}':>13} {long:>16} "
                f"{f'{s.alarms}/{s.look_alikes}':>13}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
