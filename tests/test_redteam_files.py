"""Red team: files that cannot be tampered with.

- `handoff --watch`: replies with hostile names (300 characters, an object `responses` beside
  `responses/x`, dot segments, control and bidi characters, the state file's name, …) are all
  saved under safe, bounded local names inside the folder, and none stops the others; a
  rewritten bucket `manifest.json` never lets a "reply" overwrite the local `findings.json`; a
  huge reply is reported, not downloaded; a reply that fails is reported once and retried.
- `--out` / `--download-dir` never overwrite an input or each other's output.
- `verify` never passes forged findings against the forged bundle they name.
- Dashboard copy buttons offer only validated names, shell-quoted.
Each attack is one case; the suite passes with 0 successes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from mlwiki.dashboard.summary import copy_commands
from mlwiki.handoff import watch as watch_module
from tests.conftest import WIKI_ROOT, run_cli
from tests.fakes.gcs import BUCKET, GcsEmulator

INCIDENT = Path(__file__).parent / "data" / "secrets" / "incident"
DEMO = WIKI_ROOT / "examples" / "llm-pretrain-oom"
KEY = "mlwiki-llm-pretrain-nocase-0123456789ab"

HOSTILE_NAMES = [
    "responses/" + "r" * 300 + ".md",
    "responses/" + "/".join(["d"] * 30) + "/deep.txt",
    "responses",  # an object beside the folder responses/ holding others
    "responses/x.md",
    "responses/x.md/inner.txt",  # a folder where a file already is
    "responses/./dot.txt",
    "responses/.hidden",
    ".watch-state.json",
    "_renamed",
    "responses/\x1b[2J\x1b[31mred.txt",
    "responses/\u202etxt.exe",
    "responses/back\\slash.txt",
    "responses/sp ace & semi;colon.txt",
    "responses/ünïcödé.txt",
    "README.md.part",
    "findings.json/inner",
]
# Names the GCS emulator stores but cannot serve back (its own path handling; real Cloud
# Storage serves them): they must be reported and must not hold up the others.
# (`responses/%2e%2e/x` is left out: it makes the emulator drop the connection.)
EMULATOR_CANNOT_SERVE = {"responses/./dot.txt", "responses/sp ace & semi;colon.txt"}


def _handoff(tmp_path: Path, *args: str) -> Any:
    return run_cli(
        "--wiki", str(WIKI_ROOT), "handoff", *args, "--download-dir", str(tmp_path / "local")
    )  # fmt: skip


def _watch(tmp_path: Path, key: str = KEY) -> Any:
    result = _handoff(tmp_path, "--watch", key, "--bucket", BUCKET, "--once", "--format", "json")
    assert result.code == 0, result.stderr
    return result.json()["updates"]


def _inside(folder: Path, path: Path) -> bool:
    return folder.resolve() in path.resolve().parents


@pytest.fixture
def memory_gcs(monkeypatch: pytest.MonkeyPatch) -> Any:
    """An in-memory emulator: the on-disk one cannot store a 300-character name, or an object
    `responses` beside `responses/x` (real Cloud Storage can)."""
    from tests.fakes.gcs import _emulator_version

    if _emulator_version() < (2025,):
        pytest.skip("gcp-storage-emulator 2025+ (Python 3.10+) is needed")
    emulator = GcsEmulator().start()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.url)
    yield emulator
    emulator.stop()


def test_hostile_reply_names_are_all_saved_safely_and_none_blocks_the_others(
    tmp_path: Path, memory_gcs: GcsEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "DOWNLOAD_DEADLINE", 1.0)
    bucket = memory_gcs.bucket()
    for number, name in enumerate(HOSTILE_NAMES):
        bucket.blob(f"{KEY}/{name}").upload_from_string(f"reply {number}".encode())
    updates = _watch(tmp_path)
    folder = tmp_path / "local" / KEY
    by_name = {u["name"]: u for u in updates}
    unsafe = []
    for number, name in enumerate(HOSTILE_NAMES):
        update = by_name.get(name)
        if name in EMULATOR_CANNOT_SERVE:
            if not update or "retried" not in (update["skipped"] or ""):
                unsafe.append(name)
            continue
        saved = Path(update["local_path"]) if update and update["local_path"] else None
        if (
            saved is None
            or not _inside(folder, saved)
            or saved.read_bytes() != f"reply {number}".encode()
            or any(len(part) > watch_module.MAX_PART for part in saved.relative_to(folder).parts)
            or saved.name == watch_module.STATE_FILE
        ):
            unsafe.append(name)
    assert unsafe == []
    assert json.loads((folder / watch_module.STATE_FILE).read_text())["seen"]
    assert _watch(tmp_path) == []  # each reported once


def test_text_output_never_prints_control_characters_of_names(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    gcs.bucket().blob(f"{KEY}/responses/\x1b]0;pwned\x07\u202eexe.txt").upload_from_string(b"x")
    result = _handoff(tmp_path, "--watch", KEY, "--bucket", BUCKET, "--once")
    assert result.code == 0, result.stderr
    assert (
        "\x1b" not in result.stdout
        and "\u202e" not in result.stdout
        and "\x07" not in result.stdout
    )


def _upload(tmp_path: Path) -> str:
    result = _handoff(
        tmp_path, "llm-pretrain", "--bucket", BUCKET, "--findings", str(INCIDENT / "findings.json"),
        "--bundle", str(INCIDENT / "bundle.jsonl"), "--no-watch", "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    return str(result.json()["storage_key"])


@pytest.mark.parametrize("attack", ["manifest-without-findings", "manifest-unreadable"])
def test_a_rewritten_bucket_manifest_never_lets_a_reply_overwrite_package_files(
    tmp_path: Path, gcs: GcsEmulator, attack: str
) -> None:
    key = _upload(tmp_path)
    folder = tmp_path / "local" / key
    original = {name: (folder / name).read_bytes() for name in ("findings.json", "manifest.json")}
    bucket = gcs.bucket()
    forged = b"{}" if attack == "manifest-unreadable" else json.dumps({"files": {}}).encode()
    bucket.blob(f"{key}/manifest.json").upload_from_string(forged)
    bucket.blob(f"{key}/findings.json").upload_from_string(b'{"forged": true}')
    bucket.blob(f"{key}/report.md").upload_from_string(b"# forged report")
    updates = _watch(tmp_path, key)
    assert {name: (folder / name).read_bytes() for name in original} == original
    assert "forged" not in (folder / "report.md").read_text()
    changed = {u["name"] for u in updates if u["local_path"] is None}
    assert {"findings.json", "report.md"} <= changed
    assert all("local copy" in u["skipped"] for u in updates if u["name"] in changed)


def test_a_huge_reply_is_reported_not_downloaded(
    tmp_path: Path, gcs: GcsEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "MAX_REPLY_BYTES", 1000)
    gcs.bucket().blob(f"{KEY}/responses/big.bin").upload_from_string(b"x" * 5000)
    gcs.bucket().blob(f"{KEY}/responses/small.txt").upload_from_string(b"ok")
    updates = {u["name"]: u for u in _watch(tmp_path)}
    assert updates["responses/big.bin"]["local_path"] is None
    assert "too large" in updates["responses/big.bin"]["skipped"]
    assert not (tmp_path / "local" / KEY / "responses" / "big.bin").exists()
    assert updates["responses/small.txt"]["local_path"]


def test_a_failing_reply_is_reported_once_retried_and_blocks_nothing(
    tmp_path: Path, gcs: GcsEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = watch_module._download
    broken = {"yes": True}

    def flaky(blob: Any, target: Path, options: dict[str, Any]) -> bytes:
        if blob.name.endswith("bad.txt") and broken["yes"]:
            raise OSError("disk full")
        return real(blob, target, options)

    monkeypatch.setattr(watch_module, "_download", flaky)
    for name in ("a.txt", "bad.txt", "z.txt"):
        gcs.bucket().blob(f"{KEY}/responses/{name}").upload_from_string(name.encode())
    first = {u["name"]: u for u in _watch(tmp_path)}
    assert first["responses/a.txt"]["local_path"] and first["responses/z.txt"]["local_path"]
    assert first["responses/bad.txt"]["local_path"] is None
    assert _watch(tmp_path) == []  # the failure is not reported again
    broken["yes"] = False
    third = _watch(tmp_path)
    assert [u["name"] for u in third] == ["responses/bad.txt"] and third[0]["local_path"]


def _bundle_copy(tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(DEMO, target)
    return target


OUT_ATTACKS = {
    "out-is-the-bundle-file": lambda b, t: (b / "logs.json", b / "logs.json"),
    "out-report-would-overwrite-the-bundle": lambda b, t: (t / "x.md", t / "x.json"),
    "out-ends-in-md": lambda b, t: (b, t / "report.md"),
    "out-symlink-to-bundle": lambda b, t: (b / "logs.json", t / "link.json"),
    "out-hardlink-to-bundle": lambda b, t: (b / "logs.json", t / "hard.json"),
    "out-log-file-inside-bundle-folder": lambda b, t: (b, b / "more-logs.json"),
    "out-is-a-folder": lambda b, t: (b, t),
}


@pytest.mark.parametrize("attack", list(OUT_ATTACKS))
def test_out_never_overwrites_an_input_or_its_other_output(tmp_path: Path, attack: str) -> None:
    bundle = _bundle_copy(tmp_path)
    given, out = OUT_ATTACKS[attack](bundle, tmp_path)
    if attack == "out-symlink-to-bundle":
        out.symlink_to(bundle / "logs.json")
    if attack == "out-hardlink-to-bundle":
        os.link(bundle / "logs.json", out)
    if attack == "out-report-would-overwrite-the-bundle":
        shutil.copy(bundle / "logs.json", given)
        before_given = given.read_bytes()
    before = {p: p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    result = run_cli(
        "--wiki", str(WIKI_ROOT), "troubleshoot", "llm-pretrain", "--bundle", str(given),
        "--out", str(out),
    )  # fmt: skip
    after = {p: p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    if attack == "out-ends-in-md":
        # Allowed, but the JSON and the Markdown go to two different files.
        assert result.code == 0, result.stderr
        assert json.loads(out.read_text())["workload"] == "llm-pretrain"
        assert (tmp_path / "report.md.md").read_text().startswith("# Troubleshooting report")
    else:
        assert result.code == 2 and "--out" in result.stderr, result.stderr
    assert after == before
    if attack == "out-report-would-overwrite-the-bundle":
        assert given.read_bytes() == before_given


def test_download_dir_never_overwrites_the_findings_it_hands_off(
    tmp_path: Path, gcs: GcsEmulator
) -> None:
    key = _upload(tmp_path)
    local = tmp_path / "local" / key / "findings.json"
    local.write_text(local.read_text().replace("Worker 1 ran out", "Worker 1 (edited) ran out"))
    edited = local.read_bytes()
    result = _handoff(
        tmp_path, "llm-pretrain", "--bucket", BUCKET, "--findings", str(local), "--bundle",
        str(INCIDENT / "bundle.jsonl"), "--no-watch",
    )  # fmt: skip
    assert local.read_bytes() == edited
    assert result.code in (0, 2), result.stderr


def test_verify_never_trusts_the_bundle_the_findings_name(tmp_path: Path) -> None:
    """Forged findings with a forged bundle they name: verify checks only evidence you chose."""
    forged_bundle = tmp_path / "forged.jsonl"
    entry = {
        "insertId": "f1", "timestamp": "2024-05-01T10:00:00Z", "logName": "projects/p/logs/x",
        "textPayload": "RESOURCE_EXHAUSTED: forged", "resource": {"type": "k8s_container"},
    }  # fmt: skip
    forged_bundle.write_text(json.dumps(entry) + "\n")
    findings = json.loads((INCIDENT / "findings.json").read_text())
    findings["data"]["sources"] = [str(forged_bundle)]
    findings["evidence"] = [
        {"id": "E1", "insertId": "f1", "timestamp": "2024-05-01T10:00:00Z",
         "logName": "projects/p/logs/x", "quote": "RESOURCE_EXHAUSTED: forged"}
    ]  # fmt: skip
    for item in (findings["root_cause"], *findings["culprit_hosts"], *findings["failures"]):
        item["evidence"] = ["E1"]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(findings))
    alone = run_cli("--wiki", str(WIKI_ROOT), "verify", str(path))
    assert alone.code == 2 and "PASS" not in alone.stdout
    assert str(forged_bundle) in alone.stderr  # it says what the findings name, as a hint
    real = run_cli("verify", str(path), "--bundle", str(INCIDENT / "bundle.jsonl"))
    assert real.code == 1 and "checked against the bundle" in real.stdout


@pytest.mark.parametrize(
    ("jobset", "project"),
    [
        ("llm-pretrain", "demo; rm -rf ~ #"),
        ("llm; rm -rf ~", None),
        ("$(curl evil)", "proj-123"),
        ("llm-pretrain", "proj-123 --wiki /tmp/evil"),
        ("a`id`", None),
        ("llm-pretrain\n--no-redact", None),
    ],
)
def test_dashboard_copy_text_is_validated_and_quoted(jobset: str, project: Any) -> None:
    slash, cli = copy_commands(jobset, project)
    for text in (slash, cli):
        assert text is None or (";" not in text and "$(" not in text and "`" not in text)
        assert text is None or ("\n" not in text and "--wiki" not in text)


def test_dashboard_copy_text_for_valid_names() -> None:
    assert copy_commands("llm-pretrain", "proj-123") == (
        "/troubleshoot llm-pretrain",
        "mlwiki troubleshoot llm-pretrain --project proj-123",
    )
