"""Upload a handoff package: checksum-verified, never overwriting, idempotent, manifest last.

The rules that make an interrupted upload safe to rerun:
- an object that already exists with the same content (md5, else crc32c) is skipped;
- one that exists with different content is never overwritten (the run stops with an error);
- new objects are created with `if_generation_match=0` (and existence is also checked first,
  because the emulator ignores preconditions);
- `manifest.json` goes last, so a folder with a manifest is a complete folder.
A failed or interrupted resumable upload leaves no object behind, so a rerun simply redoes it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

import google_crc32c

from mlwiki.handoff.gcs import StorageError, transient_errors
from mlwiki.handoff.package import METADATA, Package

# Files above this size go up as resumable uploads in chunks of CHUNK_SIZE (a multiple of the
# 256 KiB the API requires), so a flaky connection costs one chunk, not the whole file.
RESUMABLE_THRESHOLD = 8 * 1024 * 1024
CHUNK_SIZE = 8 * 1024 * 1024
_CONTENT_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".md": "text/markdown; charset=utf-8",
}


@dataclass(frozen=True)
class FileResult:
    name: str
    status: str  # "uploaded" | "unchanged" | "replaced" (a completion; the old one kept)
    size: int


@dataclass
class UploadReport:
    bucket: str
    key: str
    files: list[FileResult]

    @property
    def url(self) -> str:
        return f"gs://{self.bucket}/{self.key}/"

    @property
    def uploaded(self) -> list[str]:
        return [f.name for f in self.files if f.status in ("uploaded", "replaced")]

    def to_json(self) -> dict[str, Any]:
        return {
            "storage_key": self.key,
            "url": self.url,
            "files": {f.name: {"status": f.status, "size": f.size} for f in self.files},
            "uploaded": len(self.uploaded),
        }


def md5_b64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def crc32c_b64(data: bytes) -> str:
    return base64.b64encode(google_crc32c.Checksum(data).digest()).decode()


def same_content(blob: Any, data: bytes) -> bool:
    """Whether a stored object holds `data` (md5 when GCS has it, else crc32c)."""
    if blob.size is not None and int(blob.size) != len(data):
        return False
    if blob.md5_hash:
        return bool(blob.md5_hash == md5_b64(data))
    return bool(blob.crc32c) and blob.crc32c == crc32c_b64(data)


def _content_type(name: str) -> str:
    suffix = name[name.rfind(".") :] if "." in name else ""
    return _CONTENT_TYPES.get(suffix, "application/octet-stream")


def remote_metadata(bucket: Any, key: str, retry: Any = None) -> Optional[dict[str, Any]]:
    """The folder's existing metadata.json (a rerun reuses its stamp), if any."""
    from google.api_core import exceptions

    blob = bucket.get_blob(f"{key}/{METADATA}", **_retry(retry))
    if blob is None:
        return None
    try:
        value = json.loads(blob.download_as_bytes(checksum="crc32c", **_retry(retry)))
    except (ValueError, exceptions.NotFound):
        return None
    return value if isinstance(value, dict) else None


def _retry(retry: Any) -> dict[str, Any]:
    return {} if retry is None else {"retry": retry}


def _refuse(bucket: Any, name: str) -> StorageError:
    return StorageError(
        f"gs://{bucket.name}/{name} already exists with different content; refusing to overwrite "
        "it. The folder holds another package under the same key (different evidence or "
        "options?): compare it with the local copy, or use another bucket"
    )


def _put(
    bucket: Any,
    name: str,
    data: bytes,
    threshold: int,
    chunk: int,
    retry: Any,
    keep_as: Optional[str] = None,
) -> str:
    """Create one object (or find it already there). Returns "uploaded", "unchanged" or, when
    `keep_as` allows replacing a different object (a completion, `mlwiki.handoff.complete`),
    "replaced" after a server-side copy of the old one to `keep_as`."""
    from google.api_core import exceptions

    existing = bucket.get_blob(name, **_retry(retry))
    generation = 0
    if existing is not None:
        if same_content(existing, data):
            return "unchanged"
        if keep_as is None:
            raise _refuse(bucket, name)
        if bucket.get_blob(keep_as, **_retry(retry)) is None:
            bucket.copy_blob(existing, bucket, keep_as, **_retry(retry))
        generation = existing.generation
    blob = bucket.blob(name, chunk_size=chunk if len(data) > threshold else None)
    try:
        blob.upload_from_string(
            data,
            content_type=_content_type(name),
            checksum="crc32c",
            if_generation_match=generation,
            **_retry(retry),
        )
    except exceptions.PreconditionFailed:
        # Someone created it since we looked: fine if it is the same content.
        existing = bucket.get_blob(name, **_retry(retry))
        if existing is not None and same_content(existing, data):
            return "unchanged"
        raise _refuse(bucket, name) from None
    if blob.md5_hash != md5_b64(data) or blob.crc32c != crc32c_b64(data):
        # Our own write arrived corrupted: remove exactly that generation so a rerun redoes it.
        blob.delete(if_generation_match=blob.generation)
        raise StorageError(
            f"gs://{bucket.name}/{name}: checksum mismatch after upload (md5 {blob.md5_hash}, "
            f"crc32c {blob.crc32c}); the object was removed, rerun to upload it again"
        )
    return "replaced" if generation else "uploaded"


def upload_package(
    bucket: Any,
    package: Package,
    *,
    threshold: int = RESUMABLE_THRESHOLD,
    chunk_size: int = CHUNK_SIZE,
    retry: Any = None,
    on_uploaded: Optional[Callable[[FileResult], None]] = None,
    completion: Any = None,
) -> UploadReport:
    """Put every file of `package` under `KEY/` in `bucket` (a google.cloud.storage Bucket).

    `retry` is a google.api_core Retry (None: the library's default policy). `on_uploaded` is
    called after each file, in order; the manifest is always the last file. A `completion`
    (`mlwiki.handoff.complete.plan_completion`) names the files this upload may replace, each
    kept first under `previous/vN/`.
    """
    failures = transient_errors()
    results: list[FileResult] = []
    for name, data in package.files.items():
        try:
            keep_as = None
            if completion is not None and name in completion.replaced:
                keep_as = f"{package.key}/{completion.replaced[name]['kept_as']}"
            status = _put(
                bucket, f"{package.key}/{name}", data, threshold, chunk_size, retry, keep_as
            )
        except failures as error:
            done = len(results)
            raise StorageError(
                f"upload to gs://{bucket.name}/{package.key}/ stopped at {name} ({done} of "
                f"{len(package.files)} files done): {error.__class__.__name__}: "
                f"{str(error).splitlines()[0] if str(error) else ''}; rerun the same command to "
                "finish (files already there are checked and kept)"
            ) from None
        result = FileResult(name, status, len(data))
        results.append(result)
        if on_uploaded:
            on_uploaded(result)
    return UploadReport(bucket.name, package.key, results)
