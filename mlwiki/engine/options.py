"""Command-line plumbing shared by `mlwiki run` and `mlwiki action`: options, log data, output.

Log data for a run:
- `--bundle PATH`: the bundle's entries (within `--start/--end/--since` when given). With no window
  given, `start`/`end` default to the bundle's first and last entry (whole seconds), so an action
  on a bundle needs no window. kubectl and gcloud steps are served from the bundle's recorded
  outputs (`mlwiki.kube.RecordedRunner`); nothing touches a live cluster.
- `--project P`: Cloud Logging, fetched on the first log query only (a kubectl-only run makes no
  Logging call) by the live plan (`mlwiki.logs.live`); the window is `--start/--end/--since`
  (default: the last 24 hours, said on stderr and in the result) and the workload is the
  `workload` parameter. Pages an earlier command fetched for the same filter and window come from
  the page cache (`--no-cache` off).

Metrics for a run's `metric_query` steps come from the same place: the bundle's `metrics/`
folder (`mlwiki.metrics.source.BundleMetrics`; pods are mapped to their nodes through the
bundle's log entries), or Cloud Monitoring of `--project` (`CloudMetrics`, no call until the
first metric query).

Whichever way the window was chosen, `RunSetup.window` says it (`start`, `end`, `chosen`), and the
commands print it with their result: a verdict is only as good as the window it looked at.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from mlwiki.errors import BadInput

if TYPE_CHECKING:
    from mlwiki.engine.actions import RunContext
    from mlwiki.logs.session import LogSession, QueryResult
    from mlwiki.timewindow import Window
    from mlwiki.wiki import Wiki

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter value (repeatable); VALUE may itself contain '='",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the exact rendered commands and filters without running anything",
    )
    parser.add_argument(
        "--bundle",
        metavar="PATH",
        help="offline log bundle (file or folder); kubectl/gcloud outputs come from its kubectl/",
    )
    parser.add_argument("--project", metavar="P", help="Google Cloud project (Cloud Logging)")
    parser.add_argument("--start", metavar="T", help="window start: UTC timestamp or '2 hours ago'")
    parser.add_argument("--end", metavar="T", help="window end (default: now)")
    parser.add_argument("--since", metavar="D", help="window: the last D (e.g. 24h, 90m, 7d)")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither reuse nor keep fetched Cloud Logging pages (~/.cache/mlwiki/logging)",
    )
    parser.add_argument(
        "--format", choices=("json", "text"), default="json", help="output format (default json)"
    )


@dataclass
class LazySession:
    """A log session created on its first query, so runs without log queries cost no call."""

    factory: Callable[[], LogSession]
    _session: Optional[LogSession] = field(default=None, init=False)

    @property
    def session(self) -> LogSession:
        if self._session is None:
            self._session = self.factory()
        return self._session

    @property
    def opened(self) -> bool:
        return self._session is not None

    def query(self, filter_text: str) -> QueryResult:
        return self.session.query(filter_text)


@dataclass
class RunSetup:
    """What a run needs from the command line."""

    wiki: Wiki
    params: dict[str, str]
    context: RunContext
    session: Optional[LazySession]
    runner: Any  # a CommandRunner, or None for the real programs
    metrics: Any = None  # a mlwiki.metrics.source.MetricSource, or None
    window: Optional[dict[str, str]] = None  # start, end, and how it was chosen

    def report(self) -> Optional[dict[str, Any]]:
        if self.session is None or not self.session.opened:
            return None
        return self.session.session.report.to_dict()


def _window(args: argparse.Namespace) -> Optional[Window]:
    from mlwiki.timewindow import resolve_window

    if args.start is None and args.end is None and args.since is None:
        return None
    return resolve_window(args.start, args.end, args.since)


def setup(args: argparse.Namespace) -> RunSetup:
    """Parse `--param`, load the wiki, and prepare log data and the command runner."""
    from mlwiki.engine.actions import RunContext
    from mlwiki.engine.params import ParamSpec, parse_param_args, validate
    from mlwiki.kube import RecordedRunner
    from mlwiki.logs.session import LogSession
    from mlwiki.metrics.source import BundleMetrics, CloudMetrics
    from mlwiki.timewindow import format_timestamp, resolve_window
    from mlwiki.wiki import find_wiki_root, load_wiki

    params = parse_param_args(args.param)
    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    window = _window(args)
    chosen = "given" if window is not None else None
    if args.project:
        validate(ParamSpec("project", "project_id"), args.project, "--project")
    if args.bundle:
        if args.project:
            raise BadInput("--bundle: use either --bundle or --project, not both")
        bundle = Path(args.bundle)
        session = LazySession(lambda: LogSession.from_bundle(bundle, window))
        if window is None:
            window = _bundle_span(session.session)
            chosen = "the bundle's first to last entry (no --start/--end/--since given)"
        runner: Any = RecordedRunner(bundle)
        metrics: Any = BundleMetrics(bundle, pod_nodes=LazyPodNodes(session))
    elif args.project:
        if window is None:
            chosen = "the last 24 hours (the default: no --start/--end/--since given)"
        online = window or resolve_window()
        window = online
        project = args.project

        def open_cloud() -> LogSession:
            workload = params.get("workload")
            if not workload:
                raise BadInput("--project: Cloud Logging needs the workload: --param workload=NAME")
            validate(ParamSpec("workload", "k8s_name"), workload)
            from mlwiki.diagnose.collect import signature_patterns

            return LogSession.from_cloud(
                project,
                online,
                workload,
                patterns=signature_patterns(wiki),
                cache=not args.no_cache,
            )

        session, runner = LazySession(open_cloud), None
        metrics = CloudMetrics(project)
    else:
        session, runner, metrics = None, None, None
    context = RunContext(
        project=args.project,
        start=format_timestamp(window.start) if window else None,
        end=format_timestamp(window.end) if window else None,
        workload=params.get("workload"),
    )
    used = None
    if window is not None:
        used = {
            "start": format_timestamp(window.start),
            "end": format_timestamp(window.end),
            "chosen": chosen or "given",
        }
    return RunSetup(wiki, params, context, session, runner, metrics, used)


@dataclass
class LazyPodNodes(Mapping):  # type: ignore[type-arg]
    """pod → node from the bundle's log entries, read only when a metric query needs it."""

    session: LazySession
    _map: Optional[dict[str, str]] = field(default=None, init=False)

    def _pods(self) -> dict[str, str]:
        if self._map is None:
            from mlwiki.logs.entry import entry_host, entry_pod

            found: dict[str, str] = {}
            for entry in self.session.session.entries():
                pod, host = entry_pod(entry), entry_host(entry)
                if pod and host:
                    found.setdefault(pod, host)
            self._map = found
        return self._map

    def __getitem__(self, key: str) -> str:
        return self._pods()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._pods())

    def __len__(self) -> int:
        return len(self._pods())


def _bundle_span(session: LogSession) -> Optional[Window]:
    """The bundle's first to last entry, widened to whole seconds."""
    from datetime import timedelta

    from mlwiki.timewindow import Window, parse_timestamp

    first = last = None
    for entry in session.entries():
        first = first or entry.get("timestamp")
        last = entry.get("timestamp")
    if not first or not last:
        return None
    start = parse_timestamp(first).replace(microsecond=0)
    end = parse_timestamp(last).replace(microsecond=0) + timedelta(seconds=1)
    return Window(start, end)


def printable(text: Any) -> str:
    """Log or command text made safe for a terminal: control characters shown escaped."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def shown(rendered: Any) -> str:
    """A rendered command (argv) as a shell would need it quoted, or a filter as is."""
    if isinstance(rendered, list):
        return printable(shlex.join(rendered))
    return printable(rendered)
