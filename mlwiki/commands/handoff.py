"""`mlwiki handoff` — package findings for Cloud Customer Care in a bucket, and watch for replies."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Optional

from mlwiki.commands import SUMMARIES
from mlwiki.errors import BadInput

DEFAULT_INTERVAL = 10.0
DEFAULT_MAX_INTERVAL = 300.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "handoff",
        help=SUMMARIES["handoff"],
        description=(
            "Redact and upload findings.json, report.md, evidence.jsonl (every cited log entry in "
            "full), metadata.json, README.md and manifest.json (last) to gs://BUCKET/STORAGE_KEY/, "
            "then watch the folder for replies under responses/. Rerunning is safe: files already "
            "there are checked by hash and kept; a rerun with more evidence completes the "
            "package (the manifest's version and `completes` say what was replaced; the previous "
            "files are kept under previous/vN/), and anything else different is never "
            "overwritten. `--watch KEY` only watches (exit 2 when nothing is under KEY)."
        ),
    )
    parser.add_argument("workload", nargs="?", metavar="WORKLOAD_ID", help="the JobSet / workload")
    parser.add_argument("case_id", nargs="?", metavar="CASE_ID", help="the support case number")
    parser.add_argument("--bucket", help="bucket shared with Customer Care (asked on a terminal)")
    parser.add_argument("--findings", metavar="PATH", help="use this findings.json; skip diagnosis")
    parser.add_argument(
        "--bundle",
        metavar="PATH",
        help="offline log bundle the findings came from (default: the bundle the findings name; "
        "for findings read from Cloud Logging the cited entries are looked up there)",
    )
    parser.add_argument("--project", help="Google Cloud project of the workload")
    parser.add_argument("--start", metavar="T", help="window start (UTC YYYY-MM-DDTHH:MM:SSZ)")
    parser.add_argument("--end", metavar="T", help="window end")
    parser.add_argument("--since", metavar="D", help='relative window, e.g. "24h"')
    parser.add_argument("--no-watch", action="store_true", help="do not watch after uploading")
    parser.add_argument("--watch", metavar="KEY", help="only watch the folder STORAGE_KEY")
    parser.add_argument("--once", action="store_true", help="check for replies once and exit")
    parser.add_argument(
        "--interval",
        type=float,
        default=DEFAULT_INTERVAL,
        help=f"first polling interval in seconds, doubling up to --max-interval (default {DEFAULT_INTERVAL:g})",
    )
    parser.add_argument(
        "--max-interval",
        type=float,
        default=DEFAULT_MAX_INTERVAL,
        help=f"longest polling interval in seconds (default {DEFAULT_MAX_INTERVAL:g})",
    )
    parser.add_argument(
        "--download-dir",
        metavar="DIR",
        default="handoff",
        help="local folder; the package and replies go to DIR/STORAGE_KEY/ (default ./handoff)",
    )
    parser.add_argument("--redact-emails", action="store_true", help="also mask e-mail addresses")
    parser.add_argument("--redact-ips", action="store_true", help="also mask IP addresses")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=handle)


def _bucket_name(given: Optional[str]) -> str:
    from mlwiki.handoff.gcs import check_bucket_name

    if given:
        return check_bucket_name(given)
    if sys.stdin.isatty() and sys.stderr.isatty():
        print(
            "Cloud Storage bucket shared with Customer Care: ", end="", file=sys.stderr, flush=True
        )
        answer = sys.stdin.readline().strip()
        if answer:
            return check_bucket_name(answer)
    raise BadInput("--bucket: no bucket given (and no terminal to ask on); pass --bucket BUCKET")


def _check_args(args: argparse.Namespace) -> None:
    finite = all(math.isfinite(v) for v in (args.interval, args.max_interval))
    if not finite or args.interval <= 0 or args.max_interval < args.interval:
        raise BadInput(
            "--interval must be a number of seconds > 0 and --max-interval at least --interval"
        )
    if args.watch:
        if args.workload:
            raise BadInput("--watch KEY takes no WORKLOAD_ID (it watches an existing folder)")
        return
    if not args.workload:
        raise BadInput("WORKLOAD_ID is required (or --watch KEY to watch an existing handoff)")
    if (args.start or args.end) and args.since:
        raise BadInput("--since cannot be combined with --start/--end")
    if bool(args.start) != bool(args.end):
        raise BadInput("--start and --end go together")


def _load_findings(path: str, schema_dir: Path) -> dict[str, Any]:
    from mlwiki.logs.limits import read_json_file
    from mlwiki.schemas import FINDINGS, error_path, validator
    from mlwiki.timewindow import timestamp_ns

    findings = read_json_file(Path(path), "--findings", "findings file")
    problem = next(iter(validator(schema_dir, FINDINGS).iter_errors(findings)), None)
    if problem is not None:
        raise BadInput(f"--findings {path}: {error_path(problem)}: {problem.message[:300]}")
    for number, item in enumerate(findings.get("evidence") or []):
        stamp = item.get("timestamp") if isinstance(item, dict) else None
        if stamp is not None and timestamp_ns(stamp) is None:
            raise BadInput(
                f"--findings {path}: evidence[{number}].timestamp {str(stamp)[:40]!r} is not an "
                "RFC 3339 timestamp between 1970 and 2999"
            )
    return findings


def _diagnosed_inputs(
    args: argparse.Namespace, wiki_root: Path, workload: str, case_id: Any
) -> Any:
    """Run the diagnosis (as `mlwiki troubleshoot` does) and take its findings and entries."""
    from mlwiki.diagnose.collect import collection_for
    from mlwiki.diagnose.pipeline import analyse, healthy_notes
    from mlwiki.handoff.evidence import cited_keys
    from mlwiki.handoff.package import HandoffInputs
    from mlwiki.wiki import load_wiki

    if args.bundle is None and args.project is None:
        raise BadInput("--findings, --bundle or --project: say what to hand off")
    collection = collection_for(workload, args)
    from mlwiki.wiki_check import check_symptoms

    wiki = load_wiki(wiki_root)
    check_symptoms(wiki)
    result = analyse(wiki, workload, collection, project=args.project)
    keys = cited_keys(result.findings)
    entries = {keys[eid]: entry for eid, entry in result.cited_entries.items() if eid in keys}
    scan = result.scan
    return HandoffInputs(
        workload,
        case_id,
        result.findings,
        entries,
        query_entries=list(scan.entries) if scan else [],
        report_notes=healthy_notes(scan, result.disruptions) if scan else [],
        metrics=_metrics_of(args.bundle, collection.metrics),
    )


def _metrics_of(bundle: Any, source: Any) -> dict[str, Any]:
    """What the handoff carries from Cloud Monitoring: the bundle's own `metrics/` files as they
    are, else what the diagnosis fetched live."""
    from mlwiki.metrics.source import metrics_folder, read_metrics_json

    folder = metrics_folder(Path(bundle)) if bundle is not None else None
    if folder is not None:
        return read_metrics_json(folder)
    return dict(getattr(source, "fetched", None) or {})


def _inputs(args: argparse.Namespace, wiki_root: Path) -> Any:
    from mlwiki.diagnose.verify import bundle_of
    from mlwiki.handoff.evidence import find_cited_entries
    from mlwiki.handoff.package import HandoffInputs, check_case_id, check_workload
    from mlwiki.logs.bundle import iter_bundle

    workload = check_workload(args.workload)
    case_id = check_case_id(args.case_id)
    if not args.findings:
        return _diagnosed_inputs(args, wiki_root, workload, case_id)
    findings = _load_findings(args.findings, wiki_root / "schemas")
    if findings.get("workload") != workload:
        raise BadInput(
            f"--findings {args.findings}: its workload is {findings.get('workload')!r}, not {workload!r}"
        )
    if args.project and findings.get("project") not in (None, args.project):
        raise BadInput(
            f"--project {args.project}: the findings are for {findings.get('project')!r}"
        )
    bundle = args.bundle or bundle_of(findings, None, Path(args.findings).parent)
    if bundle is not None:
        entries = find_cited_entries(findings, iter_bundle(bundle))
    else:
        entries = _entries_from_cloud(findings, args.project)
    return HandoffInputs(workload, case_id, findings, entries, metrics=_metrics_of(bundle, None))


def _entries_from_cloud(findings: dict[str, Any], project: Optional[str]) -> dict[Any, Any]:
    """The cited entries of findings read from Cloud Logging, looked up there by insertId (as
    `mlwiki verify` does); nothing when the findings name no project."""
    from mlwiki.diagnose.verify import entries_from_cloud, project_of, wanted_ids
    from mlwiki.handoff.evidence import find_cited_entries

    source = project_of(findings, project)
    if source is None:
        return {}
    found, gaps = entries_from_cloud(source, findings, wanted_ids(findings))
    for gap in gaps:
        print(f"mlwiki handoff: warning: cited entries: {gap}", file=sys.stderr)
    return find_cited_entries(findings, (e for group in found.values() for e in group))


def _print_update(update: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(update.to_json()), flush=True)
        return
    from mlwiki.handoff.watch import printable_name

    where = f"saved to {printable_name(update.local_path)}" if update.local_path else update.skipped
    print(
        f"NEW {printable_name(update.url)}  {update.updated or '-'}  {update.size} bytes  {where}",
        flush=True,
    )
    for line in update.preview or []:
        print(f"    | {line}")


def _watch(args: argparse.Namespace, bucket: Any, key: str, folder: Path) -> int:
    from mlwiki.handoff.gcs import StorageError, transient_errors
    from mlwiki.handoff.watch import check_once, watch

    failures = transient_errors()
    try:
        _check_folder(bucket, key)
    except failures as error:
        raise StorageError(
            f"gs://{bucket.name}/{key}/: cannot check for updates: {error}"
        ) from None
    if args.once and args.format == "json":
        try:
            updates = check_once(bucket, key, folder)
        except failures as error:
            raise StorageError(
                f"gs://{bucket.name}/{key}/: cannot check for updates: {error}"
            ) from None
        print(json.dumps({"storage_key": key, "updates": [u.to_json() for u in updates]}, indent=2))
        return 0
    found: list[Any] = []

    def report(update: Any) -> None:
        found.append(update)
        _print_update(update, args.format == "json")

    if not args.once:
        print(
            f"Watching gs://{bucket.name}/{key}/ for replies (Ctrl-C to stop)…",
            file=sys.stderr,
            flush=True,
        )
    try:
        watch(
            bucket,
            key,
            folder,
            once=args.once,
            interval=args.interval,
            max_interval=args.max_interval,
            on_update=report,
        )
    except failures as error:
        raise StorageError(
            f"gs://{bucket.name}/{key}/: cannot check for updates: {error}"
        ) from None
    if args.once and not found:
        print(f"No new updates in gs://{bucket.name}/{key}/.")
    return 0


def _check_folder(bucket: Any, key: str) -> None:
    """A key with nothing under it is a typo or another bucket: bad input, not "no updates"."""
    from mlwiki.handoff.package import MANIFEST

    if bucket.get_blob(f"{key}/{MANIFEST}") is not None:
        return
    if next(iter(bucket.client.list_blobs(bucket, prefix=f"{key}/", max_results=1)), None):
        print(
            f"mlwiki handoff: warning: gs://{bucket.name}/{key}/ has no manifest.json: the "
            "upload did not finish; rerun the handoff to complete it",
            file=sys.stderr,
        )
        return
    raise BadInput(
        f"--watch {key}: gs://{bucket.name}/{key}/ holds no handoff (nothing under that key): "
        "check the STORAGE_KEY the handoff printed and the --bucket"
    )


def _print_upload(result: Any, package: Any, warnings: list[str], as_json: bool) -> None:
    if as_json:
        document = result.to_json()
        document.update(redactions=package.metadata["redactions"], warnings=warnings)
        document["evidence"] = package.metadata["evidence"]
        print(json.dumps(document, indent=2))
        return
    print(f"STORAGE_KEY {result.key}")
    print(result.url)
    for file in result.files:
        print(f"  {file.status:9} {file.name} ({file.size} bytes)")
    if not result.uploaded:
        print("Nothing new uploaded: the folder already holds this exact package.")
    redactions = package.metadata["redactions"]
    summary = ", ".join(f"{kind} {count}" for kind, count in redactions.items()) or "none"
    print(f"Redacted: {summary}")


def handle(args: argparse.Namespace) -> int:
    from mlwiki.handoff.complete import completed, plan_completion
    from mlwiki.handoff.gcs import check_bucket_private, make_client
    from mlwiki.handoff.package import Stamp, assemble, check_key, redact_content
    from mlwiki.handoff.upload import remote_metadata, upload_package
    from mlwiki.redact import Redactor
    from mlwiki.wiki import find_wiki_root

    _check_args(args)
    if args.watch:
        key = check_key(args.watch)
        bucket_name = _bucket_name(args.bucket)
        bucket = make_client(args.project).bucket(bucket_name)
        return _watch(args, bucket, key, Path(args.download_dir) / key)

    wiki_root = find_wiki_root(explicit=args.wiki)
    inputs = _inputs(args, wiki_root)
    bucket_name = _bucket_name(args.bucket)
    redactor = Redactor(emails=args.redact_emails, ips=args.redact_ips)
    content = redact_content(inputs, redactor)
    warnings: list[str] = []
    if not inputs.entries:
        warnings.append(
            "evidence.jsonl holds no log entries: the findings name no readable bundle and no "
            "Cloud Logging project; pass --bundle with the bundle they came from, and rerun to "
            "complete the package"
        )
    elif content.missing_evidence:
        missing = ", ".join(content.missing_evidence)
        warnings.append(f"cited entries not found in --bundle: {missing}")

    client = make_client(args.project or inputs.findings.get("project"))
    bucket = client.bucket(bucket_name)
    policy_warning = check_bucket_private(bucket)
    if policy_warning:
        warnings.append(policy_warning)
    existing = remote_metadata(bucket, content.key)
    stamp = (existing and Stamp.from_metadata(existing)) or Stamp.now(wiki_root.parent)
    package = assemble(content, inputs, bucket_name, stamp, redactor)
    folder = Path(args.download_dir) / package.key
    from mlwiki.outputs import check_outputs

    check_outputs(
        [folder / name for name in package.files],
        [Path(p) for p in (args.findings, args.bundle) if p],
        "--download-dir",
    )
    completion = plan_completion(bucket, package)
    if completion is not None:
        package = completed(package, completion)
    package.write(folder)
    for warning in warnings:
        print(f"mlwiki handoff: warning: {warning}", file=sys.stderr)
    result = upload_package(bucket, package, completion=completion)
    if completion is not None and completion.replaced:
        print(
            f"Completed the package in gs://{bucket_name}/{package.key}/ (version "
            f"{completion.version}): replaced "
            + ", ".join(sorted(n for n in completion.replaced))
            + f"; the previous files are kept under previous/v{completion.previous_version}/.",
            file=sys.stderr,
        )
    _print_upload(result, package, warnings, args.format == "json")
    if args.no_watch:
        return 0
    return _watch(args, bucket, package.key, folder)
