"""Completing a handoff package that is already in the bucket: a rerun with more evidence.

A storage key names one set of findings (its hash is in the key), so a rerun of `mlwiki handoff`
for the same findings lands in the same folder. When the folder already holds a finished package
(its `manifest.json`) that differs from the new one, the rule is: a rerun may *complete* a
package, never take anything from it.

- `findings.json`, `report.md` and every metrics file must be byte-identical (else it is another
  package and the upload is refused, as before: nothing in the folder is touched);
- `evidence.jsonl` may only grow: every line already there must still be there;
- `README.md` and `metadata.json` follow the evidence (they may change only with it).

A completion keeps each replaced file's previous version under `previous/vN/NAME` (a server-side
copy, made before the replacement), and the new `manifest.json` says so: `version` N+1 and
`completes` (the previous version, and for each replaced file its previous sha256, size and where
it is kept). The previous copies are listed in the manifest's `files` too, so `--watch` knows them
for the tool's own and never reports them as replies.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.handoff.gcs import StorageError
from mlwiki.handoff.package import EVIDENCE, MANIFEST, METADATA, README, Package

GROWS = frozenset({EVIDENCE})
FOLLOWS = frozenset({README, METADATA})


@dataclass
class Completion:
    previous_version: int
    replaced: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> previous file
    previous_files: dict[str, Any] = field(default_factory=dict)  # the old manifest's `files`
    # A rerun of a package completed earlier, with nothing new: its manifest stays as it is.
    same_manifest: Optional[bytes] = None

    @property
    def version(self) -> int:
        return self.previous_version + 1

    def kept_as(self, name: str) -> str:
        return f"previous/v{self.previous_version}/{name}"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _lines(data: bytes) -> set[bytes]:
    return {line for line in data.splitlines() if line.strip()}


def _remote_manifest(bucket: Any, key: str, retry: Any) -> Optional[tuple[dict[str, Any], bytes]]:
    blob = bucket.get_blob(f"{key}/{MANIFEST}", **({} if retry is None else {"retry": retry}))
    if blob is None:
        return None
    data = blob.download_as_bytes()
    try:
        manifest = json.loads(data)
    except ValueError:
        return {}, data
    return (manifest if isinstance(manifest, dict) else {}), data


def plan_completion(bucket: Any, package: Package, retry: Any = None) -> Optional[Completion]:
    """How `package` completes the finished package in the bucket; None when there is nothing to
    complete (no finished package yet, or the same one). Raises StorageError when the new
    package would take something away (see the module docstring)."""
    from mlwiki.handoff.upload import same_content

    remote = _remote_manifest(bucket, package.key, retry)
    if remote is None:
        return None  # a fresh or interrupted upload: the plain upload rules apply
    manifest, manifest_bytes = remote
    options = {} if retry is None else {"retry": retry}
    completion = Completion(int(manifest.get("version") or 1))
    followers: list[tuple[str, Any]] = []
    for name, data in package.files.items():
        if name == MANIFEST:
            continue
        blob = bucket.get_blob(f"{package.key}/{name}", **options)
        if blob is None or same_content(blob, data):
            continue
        old = blob.download_as_bytes(**options)
        if name in FOLLOWS:
            followers.append((name, old))
        elif name in GROWS and _lines(old) <= _lines(data):
            completion.replaced[name] = {"sha256": _sha256(old), "size": len(old)}
        else:
            raise StorageError(
                f"gs://{bucket.name}/{package.key}/{name} already exists with different content; "
                "refusing to overwrite it: a rerun may add evidence to a package, never change or "
                "remove what it holds. Compare it with the local copy, or use another bucket"
            )
    if not completion.replaced:
        if followers:
            raise StorageError(
                f"gs://{bucket.name}/{package.key}/{followers[0][0]} differs while the evidence "
                "does not (other redaction options?); refusing to overwrite it"
            )
        if manifest.get("completes"):
            completion.same_manifest = manifest_bytes
            return completion
        return None
    for name, old in followers:
        completion.replaced[name] = {"sha256": _sha256(old), "size": len(old)}
    old_manifest = json.dumps(manifest, indent=2).encode()
    completion.replaced[MANIFEST] = {"sha256": _sha256(old_manifest), "size": len(old_manifest)}
    for name, previous in completion.replaced.items():
        previous["kept_as"] = completion.kept_as(name)
    completion.previous_files = dict(manifest.get("files") or {})
    return completion


def completed(package: Package, completion: Completion) -> Package:
    """`package` with a manifest that says what it completes (and lists the kept copies)."""
    if completion.same_manifest is not None:
        return Package(
            package.key, {**package.files, MANIFEST: completion.same_manifest}, package.metadata
        )
    manifest = json.loads(package.files[MANIFEST])
    files = dict(manifest.get("files") or {})
    for previous in completion.replaced.values():
        files[previous["kept_as"]] = {"sha256": previous["sha256"], "size": previous["size"]}
    for (
        name,
        entry,
    ) in completion.previous_files.items():  # copies kept by earlier completions stay listed
        if name.startswith("previous/"):
            files.setdefault(name, entry)
    manifest["files"] = dict(sorted(files.items()))
    manifest["version"] = completion.version
    manifest["completes"] = {
        "previous_version": completion.previous_version,
        "replaced": {
            name: dict(previous) for name, previous in sorted(completion.replaced.items())
        },
        "rule": "a rerun adds evidence; nothing the package held was changed or removed",
    }
    data = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    return Package(package.key, {**package.files, MANIFEST: data}, package.metadata)
