"""`mlwiki …` as the hook sees it: parsed by mlwiki's own argument parser, judged by subcommand.

The words are parsed with `mlwiki.cli.build_parser()` — the very parser the command will run
with (no abbreviations), so `--approve` cannot hide as `--appr`. Reads pass: lint, index, match,
troubleshoot, verify, eval, snapshot, doctor, dashboard, mcp, metrics, `handoff --watch` — while
the files they write (`--out`, `--output`, `--download-dir`) pass the shell redirection check.
Anything with `--approve` asks, as does an upload (`handoff` without `--watch`). `action ID` and `run WORKFLOW`
ask when the action — or any step of the workflow — changes something (`requires_approval`, or
a command `mlwiki.mutations` does not call a read), read from the wiki the command will use
(`--wiki`, `$MLWIKI_WIKI`, or the working directory upward); `--dry-run` runs nothing and passes.
A parse error, a missing wiki file or an unreadable one asks: on doubt, ask.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from mlwiki.mutations import classify, is_dynamic

READ_COMMANDS = frozenset(
    {
        "lint",
        "index",
        "match",
        "troubleshoot",
        "verify",
        "eval",
        "snapshot",
        "doctor",
        "dashboard",
        "mcp",
        "metrics",
    }
)


def judge_mlwiki(args: Sequence[str], cwd: Optional[str], env: Mapping[str, str]) -> Optional[str]:
    """A reason to ask for `mlwiki ARGS`, or None when it only reads."""
    shown = " ".join(["mlwiki", *("…" if is_dynamic(a) else a for a in args)])
    if any(is_dynamic(word) for word in args):
        return f"mlwiki: an argument is computed at run time: {shown}"
    if any(_spells_approve(word) for word in args):
        return f"mlwiki --approve runs a step that changes the cluster; the user must approve it: {shown}"
    parsed = _parse(args)
    if parsed is None:
        return f"mlwiki: the arguments do not parse: {shown}"
    command = getattr(parsed, "command", None)
    for option in OUTPUT_OPTIONS:  # `--out`, `--output`, `--download-dir`: files it writes
        target = getattr(parsed, option, None)
        if isinstance(target, (str, os.PathLike)):
            from mlwiki.guard import write_concern

            concern = write_concern(os.fspath(target), cwd)
            if concern:
                return f"mlwiki {command} {concern}: {shown}"
    if command is None or command in READ_COMMANDS:
        return None
    if command == "handoff":
        return (
            None
            if parsed.watch
            else f"mlwiki handoff uploads findings to a Cloud Storage bucket: {shown}"
        )
    if command in ("action", "run"):
        if parsed.dry_run:
            return None
        wiki_arg = getattr(parsed, "wiki", None)
        target = parsed.action_id if command == "action" else parsed.workflow_id
        concern = _changes(command, target, wiki_arg, cwd, env)
        return f"{concern}: {shown}" if concern else None
    return f"mlwiki {command} is not a known read: {shown}"


OUTPUT_OPTIONS = ("out", "output", "download_dir")


def _spells_approve(word: str) -> bool:
    name = word.split("=", 1)[0]
    return name == "--approve" or (len(name) >= 4 and "--approve".startswith(name))


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    from mlwiki.cli import build_parser

    return build_parser()


def _parse(args: Sequence[str]) -> Optional[Any]:
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            return _parser().parse_args(list(args))
    except SystemExit as exit_:
        # `--help`/`--version` print and exit 0: nothing runs.
        return _Help() if exit_.code == 0 else None


class _Help:
    command = None


def _changes(
    command: str, target: str, wiki_arg: Optional[str], cwd: Optional[str], env: Mapping[str, str]
) -> Optional[str]:
    wiki = _wiki_dir(wiki_arg, cwd, env)
    if wiki is None:
        return f"mlwiki {command}: the wiki it would use cannot be found, so the step cannot be checked"
    if command == "action":
        return _action_changes(wiki, target)
    workflow = _load(wiki / "workflows" / f"{target}.json")
    steps = workflow.get("steps") if isinstance(workflow, dict) else None
    if not isinstance(steps, list):
        return (
            f"mlwiki run {target}: the workflow file cannot be read, so its steps cannot be checked"
        )
    for step in steps:
        uses = step.get("uses") if isinstance(step, dict) else None
        concern = _action_changes(wiki, str(uses)) if uses else "a step names no action"
        if concern:
            return f"mlwiki run {target}: {concern}"
    return None


def _action_changes(wiki: Path, action_id: str) -> Optional[str]:
    if not action_id or "/" in action_id or action_id.startswith("."):
        return f"action {action_id!r} is not an action id"
    action = _load(wiki / "actions" / f"{action_id}.json")
    if not isinstance(action, dict):
        return f"action {action_id}: the file cannot be read, so it cannot be checked"
    if action.get("requires_approval") is True:
        return f"action {action_id} changes the cluster or a VM (requires_approval)"
    kind, argv = action.get("kind"), action.get("command")
    if kind in ("log_query", "metric_query"):
        return None  # queries of Cloud Logging / Monitoring: reads
    if isinstance(argv, list) and argv and all(isinstance(word, str) for word in argv):
        verdict = classify(argv)
        if verdict is not None and not verdict.mutating:
            return None
        return f"action {action_id}: {verdict.reason if verdict else 'runs an unknown program'}"
    return f"action {action_id}: kind {kind!r} is not known to only read"


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _wiki_dir(
    wiki_arg: Optional[str], cwd: Optional[str], env: Mapping[str, str]
) -> Optional[Path]:
    from mlwiki.errors import WikiNotFound
    from mlwiki.wiki import ENV_WIKI, find_wiki_root

    start = cwd or os.getcwd()
    explicit = wiki_arg
    if explicit and not os.path.isabs(explicit):
        explicit = os.path.join(start, explicit)
    given = explicit or env.get(ENV_WIKI)
    try:
        if given:
            return find_wiki_root(start, given)
        return find_wiki_root(start)
    except (WikiNotFound, OSError):
        return None
