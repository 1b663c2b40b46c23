"""`mlwiki handoff` end to end: the real google-cloud-storage client against gcp-storage-emulator."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import re2

from mlwiki.handoff.evidence import entry_key
from mlwiki.handoff.upload import crc32c_b64, md5_b64
from mlwiki.logs.bundle import iter_bundle
from mlwiki.logs.entry import entry_text
from tests.conftest import WIKI_ROOT, run_cli
from tests.fakes.gcs import BUCKET, GcsEmulator

INCIDENT = Path(__file__).parent / "data" / "secrets" / "incident"
FINDINGS = INCIDENT / "findings.json"
BUNDLE = INCIDENT / "bundle.jsonl"
SECRETS = [s for s in (INCIDENT / "secrets.txt").read_text(encoding="utf-8").splitlines() if s]


PACKAGE = [
    "README.md",
    "evidence.jsonl",
    "findings.json",
    "manifest.json",
    "metadata.json",
    "report.md",
]


def handoff(tmp_path: Path, *args: str) -> Any:
    return run_cli(
        "--wiki",
        str(WIKI_ROOT),
        "handoff",
        *args,
        "--download-dir",
        str(tmp_path / "local"),
    )


def upload(tmp_path: Path, *extra: str) -> Any:
    return handoff(
        tmp_path,
        "llm-pretrain",
        "12345",
        "--bucket",
        BUCKET,
        "--findings",
        str(FINDINGS),
        "--bundle",
        str(BUNDLE),
        "--no-watch",
        "--format",
        "json",
        *extra,
    )


def remote_files(emulator: GcsEmulator, key: str) -> dict[str, bytes]:
    client = emulator.client()
    return {
        blob.name[len(key) + 1 :]: blob.download_as_bytes()
        for blob in client.list_blobs(BUCKET, prefix=f"{key}/")
    }


def test_upload_builds_a_complete_verifiable_redacted_folder(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    result = upload(tmp_path)
    assert result.code == 0, result.stderr
    report = result.json()
    key = report["storage_key"]
    files = remote_files(gcs, key)
    assert sorted(files) == PACKAGE
    assert report["url"] == f"gs://{BUCKET}/{key}/"
    assert report["uploaded"] == len(PACKAGE)

    # The key: deterministic from workload, case and the redacted findings' digest.
    digest = hashlib.sha256(files["findings.json"]).hexdigest()
    assert key == f"mlwiki-llm-pretrain-12345-{digest[:12]}"

    # The manifest covers every other file, and GCS holds exactly those bytes.
    manifest = json.loads(files["manifest.json"])
    assert sorted(manifest["files"]) == sorted(set(PACKAGE) - {"manifest.json"})
    for name, expected in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == expected["sha256"]
        assert len(files[name]) == expected["size"]
    for blob in gcs.client().list_blobs(BUCKET, prefix=f"{key}/"):
        data = files[blob.name[len(key) + 1 :]]
        assert (blob.md5_hash, blob.crc32c) == (md5_b64(data), crc32c_b64(data))

    # No secret survives anywhere: not in the bucket, not in the local copy.
    local = tmp_path / "local" / key
    for name, data in files.items():
        text = data.decode()
        assert (local / name).read_bytes() == data
        for secret in SECRETS:
            assert secret not in text, (name, secret)

    metadata = json.loads(files["metadata.json"])
    assert metadata["workload"] == "llm-pretrain"
    assert metadata["case_id"] == "12345"
    assert metadata["project"] == "fake-proj"
    assert metadata["window"] == {"start": "2024-05-01T09:00:00Z", "end": "2024-05-01T11:00:00Z"}
    assert metadata["findings_sha256"] == digest
    assert re2.match(r"^([0-9a-f]{40}|unknown)$", metadata["wiki_commit"])
    assert re2.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", metadata["created"])
    assert metadata["redactions"] == report["redactions"]
    assert {"oauth_token", "url_password", "private_key", "credential"} <= set(
        metadata["redactions"]
    )
    assert metadata["evidence"] == {
        "cited": 4,
        "entries": 3,
        "missing": [],
        "unverified_quotes": [],
    }
    readme = files["README.md"].decode()
    assert f"gs://{BUCKET}/{key}/responses/" in readme and "sha256" in readme


def test_each_quote_is_found_in_its_redacted_entry(tmp_path: Path, gcs: GcsEmulator) -> None:
    """A verifier can still find every (redacted) quote in its (redacted) entry."""
    result = upload(tmp_path)
    assert result.code == 0, result.stderr
    local = tmp_path / "local" / result.json()["storage_key"]
    entries = {
        entry_key(e["insertId"], e["timestamp"]): e for e in iter_bundle(local / "evidence.jsonl")
    }
    findings = json.loads((local / "findings.json").read_text(encoding="utf-8"))
    for item in findings["evidence"]:
        entry = entries[entry_key(item["insertId"], item["timestamp"])]
        assert item["quote"] in entry_text(entry), item["id"]
    cut = next(item for item in findings["evidence"] if item["id"] == "E2")
    assert cut["quote"].startswith("[REDACTED:oauth_token] failed: RESOURCE_EXHAUSTED")
    assert "[REDACTED:oauth_token]" in (local / "report.md").read_text(encoding="utf-8")


def test_a_second_run_uploads_nothing_and_says_so(tmp_path: Path, gcs: GcsEmulator) -> None:
    first = upload(tmp_path)
    assert first.code == 0, first.stderr
    generations = {b.name: b.generation for b in gcs.client().list_blobs(BUCKET)}
    second = handoff(
        tmp_path,
        "llm-pretrain",
        "12345",
        "--bucket",
        f"gs://{BUCKET}/",
        "--findings",
        str(FINDINGS),
        "--bundle",
        str(BUNDLE),
        "--no-watch",
    )
    assert second.code == 0, second.stderr
    assert f"STORAGE_KEY {first.json()['storage_key']}" in second.stdout
    assert "Nothing new uploaded" in second.stdout
    assert {b.name: b.generation for b in gcs.client().list_blobs(BUCKET)} == generations


def test_different_content_under_the_same_name_is_never_overwritten(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    key = upload(tmp_path).json()["storage_key"]
    bucket = gcs.bucket()
    bucket.blob(f"{key}/report.md").upload_from_string(b"someone else's report\n")
    bucket.blob(f"{key}/manifest.json").delete()
    result = upload(tmp_path)
    assert result.code == 2
    assert f"gs://{BUCKET}/{key}/report.md already exists with different content" in result.stderr
    assert bucket.blob(f"{key}/report.md").download_as_bytes() == b"someone else's report\n"
    assert bucket.get_blob(f"{key}/manifest.json") is None, "an incomplete folder gets no manifest"


@pytest.mark.parametrize("member", ["allUsers", "allAuthenticatedUsers"])
def test_a_public_bucket_is_refused(tmp_path: Path, gcs: GcsEmulator, member: str) -> None:
    bucket = gcs.bucket()
    policy = bucket.get_iam_policy(requested_policy_version=3)
    policy.bindings.append({"role": "roles/storage.objectViewer", "members": {member}})
    bucket.set_iam_policy(policy)
    result = upload(tmp_path)
    assert result.code == 2
    assert "refusing to upload to a public bucket" in result.stderr
    assert member in result.stderr
    assert list(gcs.client().list_blobs(BUCKET)) == []


def test_no_bucket_and_no_terminal_is_bad_input(tmp_path: Path) -> None:
    result = handoff(tmp_path, "llm-pretrain", "--findings", str(FINDINGS), "--no-watch")
    assert result.code == 2
    assert "--bucket" in result.stderr
    watch = handoff(tmp_path, "--watch", "mlwiki-llm-pretrain-nocase-0123456789ab", "--once")
    assert watch.code == 2
    assert "--bucket" in watch.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["Bad_Name", "--findings", str(FINDINGS)], "WORKLOAD_ID"),
        (["llm-pretrain", "12 34", "--findings", str(FINDINGS)], "CASE_ID"),
        (["other-workload", "--findings", str(FINDINGS)], "its workload is 'llm-pretrain'"),
        (["llm-pretrain", "--findings", str(BUNDLE)], "--findings"),
        (["llm-pretrain", "--findings", "/nonexistent/findings.json"], "cannot read"),
        (["llm-pretrain", "--findings", str(FINDINGS), "--bucket", "Not A Bucket"], "--bucket"),
        (["--watch", "../escape", "--bucket", BUCKET, "--once"], "--watch"),
        (["--watch", "k", "llm-pretrain", "--bucket", BUCKET], "--watch"),
        ([], "WORKLOAD_ID"),
    ],
)
def test_bad_input_is_named_and_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = handoff(tmp_path, *args, "--no-watch")
    assert result.code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_findings_that_break_the_schema_are_refused_with_the_field(tmp_path: Path) -> None:
    broken = json.loads(FINDINGS.read_text(encoding="utf-8"))
    broken["status"] = "maybe"
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    result = handoff(tmp_path, "llm-pretrain", "--findings", str(path), "--bucket", BUCKET)
    assert result.code == 2
    assert "status" in result.stderr and "maybe" in result.stderr


def test_watch_reports_and_downloads_a_reply_once(tmp_path: Path, gcs: GcsEmulator) -> None:
    key = upload(tmp_path).json()["storage_key"]
    reply = b"Hello from Cloud Customer Care\nWe see \x1b[31mE1\x1b[0m too.\nline 3\n"
    gcs.bucket().blob(f"{key}/responses/reply.md").upload_from_string(
        reply, content_type="text/markdown"
    )
    watch = ("--watch", key, "--bucket", BUCKET, "--once")

    first = handoff(tmp_path, *watch)
    assert first.code == 0, first.stderr
    assert f"NEW gs://{BUCKET}/{key}/responses/reply.md" in first.stdout
    assert "| Hello from Cloud Customer Care" in first.stdout
    assert "\x1b" not in first.stdout, "terminal control characters from a reply are not printed"
    assert (tmp_path / "local" / key / "responses" / "reply.md").read_bytes() == reply

    second = handoff(tmp_path, *watch)
    assert second.code == 0
    assert "NEW" not in second.stdout and "No new updates" in second.stdout

    gcs.bucket().blob(f"{key}/responses/logs.bin").upload_from_string(b"\x00\x01binary")
    third = handoff(tmp_path, *watch, "--format", "json")
    assert third.code == 0, third.stderr
    updates = third.json()["updates"]
    assert [u["name"] for u in updates] == ["responses/logs.bin"]
    assert updates[0]["size"] == 8 and updates[0]["preview"] is None


def test_watch_saves_unsafe_names_under_safe_local_names(tmp_path: Path, gcs: GcsEmulator) -> None:
    """Object names are data: one that would clobber the watch state or is not a clean relative
    path is saved under `_renamed/<hash>-<clean name>`, never where its name points.
    (The emulator itself refuses '..' in names.)"""
    key = "mlwiki-llm-pretrain-nocase-0123456789ab"
    bucket = gcs.bucket()
    bucket.blob(f"{key}/.watch-state.json").upload_from_string(b'{"seen": {"x": "1"}}')
    bucket.blob(f"{key}/responses//double-slash.txt").upload_from_string(b"x")
    watch = ("--watch", key, "--bucket", BUCKET, "--once", "--format", "json")
    result = handoff(tmp_path, *watch)
    assert result.code == 0, result.stderr
    updates = result.json()["updates"]
    assert sorted(u["name"] for u in updates) == [
        ".watch-state.json",
        "responses//double-slash.txt",
    ]
    folder = tmp_path / "local" / key
    for update in updates:
        saved = Path(update["local_path"])
        assert saved.parent == folder / "_renamed" and saved.is_file()
    assert json.loads((folder / ".watch-state.json").read_text())["seen"] != {"x": "1"}
    assert handoff(tmp_path, *watch).json()["updates"] == []


def test_without_findings_the_diagnosis_runs_first(tmp_path: Path, gcs: GcsEmulator) -> None:
    result = handoff(
        tmp_path,
        "llm-pretrain",
        "--bucket",
        BUCKET,
        "--bundle",
        str(BUNDLE),
        "--no-watch",
        "--format",
        "json",
    )
    assert result.code == 0, result.stderr
    key = result.json()["storage_key"]
    assert key.startswith("mlwiki-llm-pretrain-nocase-")
    files = remote_files(gcs, key)
    findings = json.loads(files["findings.json"])
    assert findings["workload"] == "llm-pretrain"
    cited = {entry_key(e["insertId"], e["timestamp"]) for e in findings["evidence"]}
    included = {
        entry_key(e["insertId"], e["timestamp"])
        for e in iter_bundle(tmp_path / "local" / key / "evidence.jsonl")
    }
    assert cited <= included
    for data in files.values():
        assert not any(secret in data.decode() for secret in SECRETS)


def test_a_missing_bucket_is_named(tmp_path: Path, gcs: GcsEmulator) -> None:
    result = handoff(
        tmp_path, "llm-pretrain", "--findings", str(FINDINGS), "--bucket", "no-such-bucket"
    )
    assert result.code == 2
    assert "--bucket no-such-bucket: bucket not found" in result.stderr


def test_findings_without_their_bundle_upload_with_a_warning(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    moved = tmp_path / "findings.json"  # away from the bundle it names
    moved.write_bytes(FINDINGS.read_bytes())
    result = handoff(
        tmp_path, "llm-pretrain", "--findings", str(moved), "--bucket", BUCKET, "--no-watch"
    )
    assert result.code == 0, result.stderr
    assert (
        "evidence.jsonl holds no log entries" in result.stderr and "pass --bundle" in result.stderr
    )
    assert "Redacted:" in result.stdout
