"""Handoff under faults: the storage server dying mid-upload, Ctrl-C, large (resumable) files,
and the watch's backoff — each followed by a rerun that finishes with every checksum right."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from google.api_core.retry import Retry

from mlwiki.handoff.evidence import find_cited_entries
from mlwiki.handoff.gcs import StorageError
from mlwiki.handoff.package import HandoffInputs, Stamp, assemble, redact_content
from mlwiki.handoff.upload import FileResult, crc32c_b64, md5_b64, upload_package
from mlwiki.handoff.watch import watch
from mlwiki.logs.bundle import iter_bundle
from mlwiki.redact import Redactor
from tests.conftest import REPO_ROOT, WIKI_ROOT, run_cli
from tests.fakes.gcs import BUCKET, GcsEmulator

INCIDENT = Path(__file__).parent / "data" / "secrets" / "incident"
FINDINGS = INCIDENT / "findings.json"
BUNDLE = INCIDENT / "bundle.jsonl"
FAST_FAIL = Retry(initial=0.05, maximum=0.1, timeout=0.5)


def build(query_entries: list[dict[str, Any]] | None = None) -> Any:
    findings = json.loads(FINDINGS.read_text(encoding="utf-8"))
    inputs = HandoffInputs(
        "llm-pretrain",
        "12345",
        findings,
        find_cited_entries(findings, iter_bundle(BUNDLE)),
        query_entries=query_entries or [],
    )
    redactor = Redactor()
    return assemble(
        redact_content(inputs, redactor), inputs, BUCKET, Stamp.now(REPO_ROOT), redactor
    )


def rerun_cli(tmp_path: Path) -> Any:
    return run_cli(
        "--wiki",
        str(WIKI_ROOT),
        "handoff",
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
        "--download-dir",
        str(tmp_path / "local"),
    )


def assert_complete(emulator: GcsEmulator, key: str) -> None:
    """Exactly the manifest's files plus the manifest, each with the manifest's sha256, and GCS's
    md5/crc32c equal to the bytes'."""
    blobs = {
        b.name[len(key) + 1 :]: b for b in emulator.client().list_blobs(BUCKET, prefix=f"{key}/")
    }
    manifest = json.loads(blobs["manifest.json"].download_as_bytes())
    assert sorted(blobs) == sorted([*manifest["files"], "manifest.json"])
    for name, blob in blobs.items():
        data = blob.download_as_bytes()
        assert (blob.md5_hash, blob.crc32c) == (md5_b64(data), crc32c_b64(data))
        if name != "manifest.json":
            assert hashlib.sha256(data).hexdigest() == manifest["files"][name]["sha256"]


def test_server_dying_mid_upload_then_a_rerun_completes(tmp_path: Path, gcs: GcsEmulator) -> None:
    package = build()
    done: list[str] = []

    def stop_after_two(result: FileResult) -> None:
        done.append(result.name)
        if len(done) == 2:
            gcs.stop()

    with pytest.raises(StorageError, match=r"stopped at evidence.jsonl \(2 of 6 files done\)"):
        upload_package(gcs.bucket(), package, retry=FAST_FAIL, on_uploaded=stop_after_two)
    gcs.start()  # same port, same data on disk
    names = [b.name for b in gcs.client().list_blobs(BUCKET)]
    assert names == [f"{package.key}/findings.json", f"{package.key}/report.md"]

    result = rerun_cli(tmp_path)
    assert result.code == 0, result.stderr
    statuses = {name: f["status"] for name, f in result.json()["files"].items()}
    assert statuses == {
        "findings.json": "unchanged",
        "report.md": "unchanged",
        "evidence.jsonl": "uploaded",
        "README.md": "uploaded",
        "metadata.json": "uploaded",
        "manifest.json": "uploaded",
    }
    assert_complete(gcs, package.key)


def test_ctrl_c_before_the_manifest_then_a_rerun_keeps_the_first_stamp(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    package = build()

    def interrupt_before_manifest(result: FileResult) -> None:
        if result.name == "metadata.json":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        upload_package(gcs.bucket(), package, on_uploaded=interrupt_before_manifest)
    assert gcs.bucket().get_blob(f"{package.key}/manifest.json") is None

    result = rerun_cli(tmp_path)
    assert result.code == 0, result.stderr
    statuses = {name: f["status"] for name, f in result.json()["files"].items()}
    assert statuses.pop("manifest.json") == "uploaded"
    assert set(statuses.values()) == {"unchanged"}, "metadata.json (with its time) is reused"
    assert_complete(gcs, package.key)


def test_large_files_go_up_resumably_with_checksums(gcs: GcsEmulator) -> None:
    template = json.loads(BUNDLE.read_text(encoding="utf-8").splitlines()[0])
    many = [
        {**template, "insertId": f"bulk-{i:06d}", "textPayload": f"step {i} loss {i * 0.001:.3f}"}
        for i in range(4000)
    ]
    package = build(many)
    assert len(package.files["evidence.jsonl"]) > 3 * 256 * 1024
    results = upload_package(gcs.bucket(), package, threshold=256 * 1024, chunk_size=256 * 1024)
    assert len(results.uploaded) == len(package.files)
    assert_complete(gcs, package.key)
    assert package.metadata["evidence"]["entries"] == 3 + 4000


def test_watch_backs_off_doubling_to_the_maximum(tmp_path: Path, gcs: GcsEmulator) -> None:
    delays: list[float] = []

    def sleep(seconds: float) -> None:
        delays.append(seconds)
        if len(delays) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        watch(
            gcs.bucket(),
            "mlwiki-llm-pretrain-nocase-0123456789ab",
            tmp_path / "local",
            once=False,
            interval=1,
            max_interval=4,
            on_update=lambda update: None,
            sleep=sleep,
        )
    assert delays == [1, 2, 4, 4, 4]


def test_ctrl_c_stops_a_watch_cleanly(tmp_path: Path, gcs: GcsEmulator) -> None:
    env = {**os.environ, "STORAGE_EMULATOR_HOST": gcs.url}
    command = [sys.executable, "-m", "mlwiki", "--wiki", str(WIKI_ROOT), "handoff"]
    key = "mlwiki-llm-pretrain-nocase-0123456789ab"
    gcs.bucket().blob(f"{key}/manifest.json").upload_from_string(b'{"files": {}}')
    command += ["--watch", key, "--bucket", BUCKET]
    command += ["--interval", "0.2", "--download-dir", str(tmp_path / "local")]
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # As from a terminal: a pytest started in the background (`cmd &` in a script, as CI
        # runners and `flock … &` do) ignores SIGINT, and an ignored signal stays ignored in the
        # child, which would then never see the Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        assert process.stderr is not None
        assert "Watching" in process.stderr.readline()
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "interrupted" in stderr and "Traceback" not in stderr
