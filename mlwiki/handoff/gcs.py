"""The Cloud Storage client (emulator-aware) and bucket checks made before anything is uploaded."""

from __future__ import annotations

import os
from typing import Any, Optional

import re2

from mlwiki.errors import BadInput, MlwikiError

EMULATOR_ENV = "STORAGE_EMULATOR_HOST"
PUBLIC_MEMBERS = ("allUsers", "allAuthenticatedUsers")
# Bucket naming rules (https://cloud.google.com/storage/docs/buckets#naming), without the
# dotted-name length exception: 3-63 characters, lowercase letters, digits, '-', '_' and '.'.
_BUCKET = re2.compile(r"^[a-z0-9][a-z0-9._\-]{1,61}[a-z0-9]$")


class StorageError(MlwikiError):
    """Cloud Storage failed in a way the user can act on (the message says how)."""


def transient_errors() -> tuple[type[BaseException], ...]:
    """What a Cloud Storage call raises when the service or the network fails (not our input)."""
    import requests
    from google.api_core import exceptions

    return (exceptions.GoogleAPICallError, exceptions.RetryError, requests.RequestException)


def check_bucket_name(bucket: str) -> str:
    name = bucket[len("gs://") :] if bucket.startswith("gs://") else bucket
    name = name.rstrip("/")
    if not _BUCKET.match(name) or ".." in name:
        raise BadInput(f"--bucket {bucket!r}: not a Cloud Storage bucket name")
    return name


def make_client(project: Optional[str] = None) -> Any:
    """A `google.cloud.storage.Client`: anonymous against $STORAGE_EMULATOR_HOST, else ADC."""
    from google.cloud import storage

    if os.environ.get(EMULATOR_ENV):
        from google.auth.credentials import AnonymousCredentials

        return storage.Client(
            project=project or "mlwiki-emulator", credentials=AnonymousCredentials()
        )
    import google.auth.exceptions

    try:
        return storage.Client(project=project)
    except google.auth.exceptions.DefaultCredentialsError as error:
        raise BadInput(
            "no Google Cloud credentials: run `gcloud auth application-default login` "
            f"({error.__class__.__name__})"
        ) from None


def public_members(policy: Any) -> list[str]:
    """Members of a bucket IAM policy that make it readable or writable by anyone."""
    found = set()
    for binding in policy.bindings:
        for member in binding.get("members", ()):
            if member in PUBLIC_MEMBERS:
                found.add(f"{member} ({binding.get('role')})")
    return sorted(found)


def check_bucket_private(bucket: Any) -> Optional[str]:
    """Refuse a public bucket (exit 2). Returns a warning when the policy cannot be read.

    Storage Object Admin (the role the handoff needs) cannot read the bucket's IAM policy; the
    upload then goes ahead with a warning, because the bucket's owner set up the sharing.
    """
    from google.api_core import exceptions

    try:
        policy = bucket.get_iam_policy(requested_policy_version=3)
    except exceptions.NotFound:
        raise BadInput(f"--bucket {bucket.name}: bucket not found") from None
    except exceptions.Forbidden:
        return (
            f"could not read the IAM policy of bucket {bucket.name} (needs "
            "storage.buckets.getIamPolicy); make sure it is not public"
        )
    except exceptions.GoogleAPICallError as error:
        raise StorageError(f"bucket {bucket.name}: cannot read its IAM policy: {error}") from None
    members = public_members(policy)
    if members:
        raise BadInput(
            f"--bucket {bucket.name}: refusing to upload to a public bucket: its IAM policy grants "
            f"{', '.join(members)}; use a bucket shared only with Cloud Customer Care"
        )
    return None
