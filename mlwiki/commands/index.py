"""`mlwiki index` — regenerate `_wiki/INDEX.md`, or check that it is current."""

from __future__ import annotations

import argparse
import sys

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_FINDING, EXIT_OK
from mlwiki.output import emit_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help=SUMMARIES["index"],
        description=(
            "Regenerate _wiki/INDEX.md, the catalogue of every page, action and workflow with "
            "its one-line summary. With --check, change nothing: exit 1 and print the "
            "difference if INDEX.md is not what would be generated."
        ),
    )
    parser.add_argument(
        "--check", action="store_true", help="only check; exit 1 if INDEX.md is stale"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.index import index_diff, index_path, write_index
    from mlwiki.wiki import find_wiki_root, load_wiki

    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    path = index_path(wiki)
    entries = len(wiki.pages) + len(wiki.actions) + len(wiki.workflows)
    if args.check:
        diff = index_diff(wiki)
        _report(args.format, str(path), stale=bool(diff), written=False, entries=entries, diff=diff)
        return EXIT_FINDING if diff else EXIT_OK
    written = write_index(wiki)
    _report(args.format, str(path), stale=False, written=written, entries=entries, diff=[])
    return EXIT_OK


def _report(
    fmt: str, path: str, *, stale: bool, written: bool, entries: int, diff: list[str]
) -> None:
    if fmt == "json":
        emit_json(
            {"path": path, "stale": stale, "written": written, "entries": entries, "diff": diff}
        )
    elif stale:
        sys.stdout.write(f"{path} is stale: run `mlwiki index` to regenerate it\n")
        sys.stdout.write("\n".join(diff) + "\n")
    elif written:
        sys.stdout.write(f"wrote {path} ({entries} entries)\n")
    else:
        sys.stdout.write(f"{path} is up to date ({entries} entries)\n")
