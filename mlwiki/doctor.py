"""`mlwiki doctor`: are the prerequisites of a live diagnosis in place? Each check says how to fix it.

Checks: Python version, gcloud, kubectl, gke-gcloud-auth-plugin on PATH, application default
credentials, the four read roles on the project (by testing their permissions), and for
`/handoff` object admin on the bucket.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

OK, MISSING, SKIPPED = "ok", "missing", "skipped"

# One permission that each documented role grants, tested on the project.
ROLE_PERMISSIONS = {
    "roles/logging.viewer (Logs Viewer)": "logging.logEntries.list",
    "roles/container.viewer (Kubernetes Engine Viewer)": "container.pods.list",
    "roles/compute.viewer (Compute Viewer)": "compute.instances.list",
    "roles/monitoring.viewer (Monitoring Viewer)": "monitoring.timeSeries.list",
}
BUCKET_PERMISSIONS = [
    "storage.objects.create",
    "storage.objects.get",
    "storage.objects.list",
    "storage.objects.delete",
]
CRM_ENDPOINT_ENV = "MLWIKI_RESOURCE_MANAGER_ENDPOINT"
CRM_ENDPOINT = "https://cloudresourcemanager.googleapis.com"


@dataclass
class Check:
    name: str
    status: str
    detail: str
    fix: str = ""


def _tool(name: str, version_args: list[str], fix: str) -> Check:
    path = shutil.which(name)
    if not path:
        return Check(name, MISSING, f"{name} not found on PATH", fix)
    try:
        result = subprocess.run(
            [path, *version_args], capture_output=True, text=True, timeout=20, check=False
        )
        first = (result.stdout or result.stderr).strip().splitlines()
        version = first[0] if first else "version unknown"
    except (OSError, subprocess.TimeoutExpired) as error:
        return Check(name, MISSING, f"{path} does not run: {error}", fix)
    return Check(name, OK, f"{path}: {version}")


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info < (3, 10):
        return Check(
            "python",
            OK,
            f"Python {version}; `mlwiki mcp` needs 3.10 or later",
            "use Python 3.10+ for the MCP server",
        )
    return Check("python", OK, f"Python {version}")


def check_gcloud() -> Check:
    return _tool(
        "gcloud",
        ["--version"],
        "install the Google Cloud CLI: https://cloud.google.com/sdk/docs/install",
    )


def check_kubectl() -> Check:
    return _tool(
        "kubectl", ["version", "--client"], "gcloud components install kubectl (or your OS package)"
    )


def check_auth_plugin() -> Check:
    return _tool(
        "gke-gcloud-auth-plugin",
        ["--version"],
        "gcloud components install gke-gcloud-auth-plugin (or apt-get install google-cloud-cli-gke-gcloud-auth-plugin)",
    )


def adc_path() -> Optional[Path]:
    """Where application default credentials are, if anywhere (without contacting any server)."""
    explicit = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if explicit:
        return Path(explicit)
    config = Path(os.environ.get("CLOUDSDK_CONFIG", Path.home() / ".config" / "gcloud"))
    return config / "application_default_credentials.json"


def check_credentials() -> Check:
    path = adc_path()
    fix = "gcloud auth application-default login"
    if path is None or not path.is_file():
        return Check("credentials", MISSING, f"no application default credentials at {path}", fix)
    return Check("credentials", OK, f"application default credentials at {path}")


def check_roles(
    project: Optional[str], session_factory: Optional[Callable[[], Any]] = None
) -> list[Check]:
    """Test one permission per read role on the project with Resource Manager's testIamPermissions."""
    if not project:
        return [Check("roles", SKIPPED, "no --project given", "rerun with --project PROJECT_ID")]
    try:
        session = (session_factory or _authorized_session)()
        endpoint = os.environ.get(CRM_ENDPOINT_ENV, CRM_ENDPOINT).rstrip("/")
        response = session.post(
            f"{endpoint}/v1/projects/{project}:testIamPermissions",
            json={"permissions": list(ROLE_PERMISSIONS.values())},
            timeout=20,
        )
        response.raise_for_status()
        granted = set(response.json().get("permissions", []))
    except Exception as error:  # any auth or network failure means "could not check", not "missing"
        return [
            Check(
                "roles",
                SKIPPED,
                f"could not test permissions on {project}: {error}",
                "gcloud auth application-default login",
            )
        ]
    return [
        Check(role, OK, f"{permission} granted on {project}")
        if permission in granted
        else Check(
            role,
            MISSING,
            f"{permission} not granted on {project}",
            f"ask an admin to grant {role.split()[0]} on {project}",
        )
        for role, permission in ROLE_PERMISSIONS.items()
    ]


def check_bucket(
    bucket: Optional[str], client_factory: Optional[Callable[[], Any]] = None
) -> list[Check]:
    if not bucket:
        return []
    name = f"roles/storage.objectAdmin on gs://{bucket}"
    try:
        client = (client_factory or _storage_client)()
        # No retries: an unreachable bucket is reported at once, not after minutes of backoff.
        granted = set(
            client.bucket(bucket).test_iam_permissions(BUCKET_PERMISSIONS, timeout=15, retry=None)
        )
    except Exception as error:
        return [
            Check(
                name,
                SKIPPED,
                f"could not test permissions on gs://{bucket}: {error}",
                "gcloud auth application-default login",
            )
        ]
    missing = [p for p in BUCKET_PERMISSIONS if p not in granted]
    if missing:
        return [
            Check(
                name,
                MISSING,
                f"not granted: {', '.join(missing)}",
                f"ask an admin to grant roles/storage.objectAdmin on gs://{bucket}",
            )
        ]
    return [Check(name, OK, "object create/get/list/delete granted")]


def _authorized_session() -> Any:
    import google.auth
    from google.auth.transport.requests import AuthorizedSession

    credentials, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
    return AuthorizedSession(credentials)


def _storage_client() -> Any:
    from mlwiki.handoff.gcs import make_client

    return make_client()


def run_checks(project: Optional[str] = None, bucket: Optional[str] = None) -> list[Check]:
    checks = [
        check_python(),
        check_gcloud(),
        check_kubectl(),
        check_auth_plugin(),
        check_credentials(),
    ]
    checks.extend(check_roles(project))
    checks.extend(check_bucket(bucket))
    return checks


def as_report(checks: list[Check]) -> dict[str, Any]:
    return {"ok": all(c.status != MISSING for c in checks), "checks": [asdict(c) for c in checks]}
