"""`/handoff`: package findings for Cloud Customer Care in a Cloud Storage folder, and watch it.

- `evidence`: the log entries the findings cite, looked up by insertId and timestamp.
- `package`: redaction, the folder's files (findings, report (rendered by
  `mlwiki.diagnose.report`), evidence, metadata, README, manifest) and its deterministic key.
- `gcs`: the google-cloud-storage client (emulator-aware) and the public-bucket check.
- `upload`: checksum-verified, idempotent, resumable-after-interrupt upload; manifest last.
- `watch`: polling the folder for replies under `responses/` and downloading them.
"""
