"""`mlwiki metrics WORKLOAD_ID (--project P | --bundle PATH) [window] [--out DIR]` — the
workload's Cloud Monitoring metrics: a per-host duty-cycle strip, and an export into a bundle."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mlwiki.commands import SUMMARIES
from mlwiki.errors import EXIT_OK, BadInput


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help=SUMMARIES["metrics"],
        description=(
            "Read WORKLOAD_ID's metrics with the wiki's metric actions (TPU duty cycle, "
            "TensorCore utilization, HBM used and total, container memory, and the memory of "
            "the workload's nodes), one timeSeries.list call each, from Cloud Monitoring "
            "(--project) or a bundle's metrics/ folder (--bundle). The nodes are those the "
            "workload's pods ran on in the logs of the bundle (--bundle, or DIR of --out when it "
            "already holds the logs), plus --nodes; with none, node memory is not read. "
            "Prints a per-host duty-cycle strip. With --out DIR, "
            "writes DIR/metrics/NAME.json, each exactly what timeSeries.list returned: put DIR "
            "beside the logs of a bundle (or use the bundle folder itself) and `mlwiki "
            "troubleshoot --bundle` replays the same diagnosis; `mlwiki handoff` carries them. "
            "Read-only. Exit 0 (also when data is partial: it says so), 2 on bad input."
        ),
    )
    parser.add_argument("workload", metavar="WORKLOAD_ID", help="JobSet (workload) name")
    parser.add_argument("--project", help="Cloud Monitoring project id")
    parser.add_argument("--bundle", type=Path, help="offline bundle folder with metrics/")
    parser.add_argument("--start", help="window start (UTC YYYY-MM-DDTHH:MM:SSZ or relative)")
    parser.add_argument("--end", help="window end (default: now)")
    parser.add_argument("--since", help='relative window, e.g. "2h" (default: 24h)')
    parser.add_argument("--out", type=Path, metavar="DIR", help="write DIR/metrics/*.json")
    parser.add_argument(
        "--nodes",
        metavar="NODE,...",
        help="node names whose memory to read as well (comma-separated; added to the logs' nodes)",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output (default text)"
    )
    parser.set_defaults(handler=handle)


def _window(args: argparse.Namespace, source: Any) -> tuple[float, float]:
    from mlwiki.timewindow import resolve_window

    if args.start or args.end or args.since or args.bundle is None:
        window = resolve_window(args.start, args.end, args.since)
        return window.start.timestamp(), window.end.timestamp()
    times = [p.time for s in source.all_series() for p in s.points]
    if not times:
        raise BadInput(f"--bundle {args.bundle}: its metrics/ hold no points; give --start/--end")
    return min(times) - 1, max(times)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.engine.params import ParamSpec, validate
    from mlwiki.metrics.export import export_workload
    from mlwiki.metrics.source import BundleMetrics, CloudMetrics, write_export
    from mlwiki.output import emit_json
    from mlwiki.wiki import find_wiki_root, load_wiki

    validate(ParamSpec("workload", "k8s_name"), args.workload, "WORKLOAD_ID")
    if (args.project is None) == (args.bundle is None):
        raise BadInput("--project or --bundle: say where the metrics are (one of them)")
    nodes = _nodes(args)
    if args.project is not None:
        validate(ParamSpec("project", "project_id"), args.project, "--project")
        source: Any = CloudMetrics(args.project, fetcher=_fetcher(args.project, nodes))
    else:
        source = BundleMetrics(args.bundle)
        if not source.available:
            raise BadInput(f"--bundle {args.bundle}: no metrics/ folder in it")
    wiki = load_wiki(find_wiki_root(explicit=args.wiki))
    window = _window(args, source)
    asked = export_workload(wiki, source, args.workload, window, nodes)
    written = write_export(source.fetched, args.out) if args.out is not None else []
    skipped = [] if nodes else [NO_NODES]
    if args.format == "json":
        emit_json(
            {
                "workload": args.workload,
                "source": source.describe(),
                "nodes": len(nodes),
                "metrics": [a.to_dict() for a in asked],
                "skipped": skipped,
                "written": [str(p) for p in written],
            }
        )
        return EXIT_OK
    _print_text(args.workload, source, asked, written, skipped)
    return EXIT_OK


NO_NODES = (
    "node memory: not read — the workload's nodes are unknown (give --nodes, or write the "
    "bundle's logs into the --out folder first)"
)


def _fetcher(project: str, nodes: list[str]) -> Any:
    """The export's Monitoring client: the usual call budget plus one call per chunk of nodes
    (the user asked for all of them; each chunk is one small query)."""
    from mlwiki.metrics.cloud import DEFAULT_MAX_CALLS, MetricBudget, MonitoringFetcher
    from mlwiki.metrics.export import NODE_ACTIONS, node_chunks

    extra = len(node_chunks(nodes)) * len(NODE_ACTIONS)
    return MonitoringFetcher(project, budget=MetricBudget(DEFAULT_MAX_CALLS + extra))


def _nodes(args: argparse.Namespace) -> list[str]:
    """The nodes whose memory is read: those of the workload's pods in the bundle's logs, and
    --nodes (each a valid node name)."""
    from mlwiki.engine.params import ParamSpec, validate
    from mlwiki.metrics.export import workload_nodes

    given = [n.strip() for n in (args.nodes or "").split(",") if n.strip()]
    for node in given:
        validate(ParamSpec("node", "k8s_name"), node, "--nodes")
    logs = args.bundle if args.bundle is not None else args.out
    return sorted(set(given) | set(workload_nodes(logs, args.workload)))


def _print_text(
    workload: str, source: Any, asked: list[Any], written: list[Path], skipped: list[str]
) -> None:
    from mlwiki.engine.options import printable
    from mlwiki.metrics.report import host_strip_lines
    from mlwiki.metrics.series import response_json

    print(f"{workload}: metrics from {source.describe()}")
    for item in asked:
        data = item.to_dict()
        partial = f" (partial: {data['reason']})" if data["partial"] else ""
        print(f"- {item.metric}: {data['series']} series, {data['points']} points{partial}")
    for line in skipped:
        print(f"- {line}")
    duty = next((a for a in asked if a.action == "query-tpu-duty-cycle" and a.result), None)
    if duty is not None and duty.result.series:
        print("TPU duty cycle per host:")
        series = response_json(duty.result.series)["timeSeries"]
        for line in host_strip_lines(series, pod_nodes=source.pod_nodes, threshold=1.0):
            print(printable(line))
    for path in written:
        print(f"wrote {path}")
