"""One module per `mlwiki` subcommand; each parses its options and calls library functions.

`SUMMARIES` holds each command's one-line help here, so that `mlwiki --help` lists every command
without importing any, and a command imports only its own module (see `mlwiki.cli`)."""

SUMMARIES = {
    "lint": "lint the wiki (same as python3 _wiki/wiki_linter.py)",
    "index": "regenerate _wiki/INDEX.md (--check: fail if it is stale)",
    "troubleshoot": "diagnose a workload: root cause, culprit hosts, failure table, cited evidence",
    "match": "match every log entry against every symptom signature",
    "run": "run one workflow (the diagnosis of one failure mode)",
    "action": "run one action (a log query, metric query, kubectl or gcloud step)",
    "verify": "check that every conclusion of a findings file cites entries actually fetched",
    "handoff": "package findings into a Cloud Storage bucket for Customer Care; watch for replies",
    "dashboard": "local GKE Capacity & Triage web app (127.0.0.1 only, read-only)",
    "eval": "score the diagnosis on labelled scenarios",
    "snapshot": "record cluster state as kubectl get -o json files",
    "metrics": "read a workload's TPU duty cycle, HBM and host memory from Cloud Monitoring",
    "doctor": "check prerequisites: gcloud, kubectl, auth plugin, credentials, roles",
    "mcp": "serve the engine to AI agents over MCP (stdio): read-only tools, wiki resources",
}
