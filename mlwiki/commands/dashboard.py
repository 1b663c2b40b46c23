"""`mlwiki dashboard [TARGET]` — the GKE Capacity & Triage web app on 127.0.0.1."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mlwiki.commands import SUMMARIES
from mlwiki.errors import BadInput

if TYPE_CHECKING:
    from mlwiki.dashboard.app import StateSource


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dashboard",
        help=SUMMARIES["dashboard"],
        description=(
            "Serve the GKE Capacity & Triage dashboard on 127.0.0.1: TPU capacity per accelerator and "
            "topology, node pools as slices, TPU workloads with restarts and last failure, warning "
            "events. Live mode lists GKE clusters with gcloud and reads them through kubeconfig "
            "contexts (gke_PROJECT_LOCATION_CLUSTER); --snapshot serves a recorded snapshot."
        ),
    )
    parser.add_argument(
        "target",
        nargs="?",
        default="",
        metavar="TARGET",
        help="a project ID, cluster name or workload (JobSet) name; default: every GKE cluster of "
        "the project configured in gcloud",
    )
    parser.add_argument(
        "--port", type=int, default=8080, help="port on 127.0.0.1 (default 8080; 0: any free port)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="loopback address to bind (default 127.0.0.1); any non-loopback address is refused",
    )
    parser.add_argument(
        "--snapshot",
        metavar="DIR",
        type=Path,
        help="serve a recorded snapshot (nodes.json, pods.json, jobsets.json, events.json from "
        "`kubectl get KIND -A -o json` / `mlwiki snapshot`) instead of live clusters",
    )
    parser.add_argument(
        "--context",
        action="append",
        default=[],
        metavar="C",
        help="read this kubeconfig context instead of listing clusters with gcloud (repeatable)",
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="only print the link; do not open a browser"
    )
    parser.add_argument(
        "--events",
        type=int,
        default=50,
        metavar="N",
        help="how many recent warning events to show (default 50)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from mlwiki.dashboard import server
    from mlwiki.dashboard.app import BadTarget, create_app, parse_target
    from mlwiki.engine.params import ParamSpec, validate

    if not 0 <= args.port <= 65535:
        raise BadInput(f"--port {args.port}: must be 0..65535")
    if args.events < 1:
        raise BadInput(f"--events {args.events}: must be at least 1")
    try:
        target = parse_target(args.target)
    except BadTarget as error:
        raise BadInput(f"TARGET {args.target!r}: {error}") from None
    for context in args.context or ():
        validate(ParamSpec("context", "kube_context"), context, "--context")  # as snapshot does
    if args.snapshot and args.context:
        raise BadInput(
            "--snapshot and --context exclude each other: a snapshot is not a live cluster"
        )
    sock = server.bind(args.host, args.port)  # refuse a foreign host or busy port before any scan
    try:
        source = _source(args, target)
        for state in source.states():
            if state.problem:
                print(f"mlwiki dashboard: {state.cluster}: {state.problem}", file=sys.stderr)
        url = server.link(sock, target)
        print(f"GKE Capacity & Triage dashboard ({source.description}): {url}", flush=True)
        print("Press Ctrl-C to stop.", file=sys.stderr, flush=True)
        wants_browser = not args.no_browser and server.has_display()
        server.serve_forever(
            create_app(source, events_limit=args.events),
            sock,
            (lambda: server.open_browser(url)) if wants_browser else None,
        )
    finally:
        sock.close()
    print("mlwiki dashboard: stopped", file=sys.stderr)
    return 0


def _source(args: argparse.Namespace, target: str) -> StateSource:
    if args.snapshot:
        from mlwiki.dashboard.state import SnapshotSource

        return SnapshotSource(args.snapshot)
    from mlwiki.dashboard.live import live_source

    return live_source(target, args.context)
