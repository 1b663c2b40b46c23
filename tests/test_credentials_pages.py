"""The gcp-credentials-failure page, through the public matcher, workflow engine and pipeline.

Its structure (role, sections, real cited examples, counter-examples, a read-only verification) is
tested with every new page's in tests/test_new_failure_pages.py. Here: its families hold the
wordings the emitters can print — google-auth's, golang.org/x/oauth2's and the Go metadata
client's, google-auth-library-java's and -nodejs', gcloud's, TensorStore's status for a 401 (with
its HTTP code), and the wrappers that quote them (gcsfuse, the kubelet's FailedMount, a Go client's
request frame) — and keep out what only shares words with them: an authentication library's probes
and retries, a metadata server or token endpoint that never answered or answered 5xx
(dependency-unreachable), a 403 naming a permission the known identity lacks
(checkpoint-gcs-permission, tpu-api-permission-denied), kubectl's own expired login. The diagnosis
names the credentials as the root over the uncaught exception and over a Cloud Storage FUSE mount
that failed for want of a token, keeps a storage permission denial on its own page, and names the
unreachable metadata server when google-auth fell through to "credentials not found" after its
probe timed out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_no_signature_matches
from tests.test_new_failure_pages import (
    NODES,
    WIKI,
    _diagnose,
    _event,
    _jobset_pods,
    _line,
    _training,
    _verify,
    matched,
)

PAGE = "gcp-credentials-failure"
WI_REFUSED = (
    "Unable to generate access token; IAM returned 403 Forbidden: Permission "
    "'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist)."
)


@pytest.mark.parametrize(
    "line",
    [
        # no Application Default Credentials: each library, each release
        "google.auth.exceptions.DefaultCredentialsError: Your default credentials were not found. To set up Application Default Credentials, see https://cloud.google.com/docs/authentication/external/set-up-adc for more information.",
        "google: could not find default credentials. See https://cloud.google.com/docs/authentication/external/set-up-adc for more information",
        "java.io.IOException: Your default credentials were not found. To set up Application Default Credentials for your environment, see https://cloud.google.com/docs/authentication/external/set-up-adc.",
        "Error: Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication/getting-started for more information.",
        "google.auth.exceptions.DefaultCredentialsError: Neither metadata server or valid service account credentials are found.",
        # a named key file that cannot be used
        "google.auth.exceptions.DefaultCredentialsError: File /var/secrets/google/key.json was not found.",
        "google: error getting credentials using GOOGLE_APPLICATION_CREDENTIALS environment variable: open /var/secrets/google/key.json: no such file or directory",
        "java.io.IOException: Error reading credential file from environment variable GOOGLE_APPLICATION_CREDENTIALS, value '/var/secrets/google/key.json': File does not exist.",
        # a refresh refused, in x/oauth2's two RetrieveError forms, Java's and gcloud's
        'oauth2: "invalid_grant" "Invalid JWT Signature."',
        '{\\"error\\":\\"invalid_grant\\",\\"error_description\\":\\"Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.\\"}',
        "com.google.auth.oauth2.GoogleAuthException: Error getting access token for service account: 400 Bad Request",
        "oauth2: cannot fetch token: 401 Unauthorized",
        'auth: "invalid_grant" "Token has been expired or revoked."',
        "auth: cannot fetch token: 400",
        "google.auth.exceptions.RefreshError: ('unauthorized_client: Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.', {})",
        "google.auth.exceptions.OAuthError: Error code invalid_grant: The audience in ID Token [https://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q] does not match the expected audience.",
        "google.auth.exceptions.RefreshError: The credentials do not contain the necessary fields need to refresh the access token. You must specify refresh_token, token_uri, client_id, and client_secret.",
        "google.auth.exceptions.RefreshError: Unexpected response from metadata server: service account info is missing 'email' field.",
        "Reauthentication is needed. Please run `gcloud auth application-default login` to reauthenticate.",
        "ERROR: (gcloud.storage.cp) Reauthentication required.",
        # the GKE metadata server refusing the pod's identity, in each client and escaping
        'Get "https://storage.googleapis.com/storage/v1/b/ckpt/o?alt=json": compute: Received 403 `Unable to generate access token; IAM returned 403 Forbidden: The caller does not have permission`',
        "google.auth.exceptions.RefreshError: ('Failed to retrieve http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform from the Google Compute Engine metadata service. Status: 403 Response:\\nb\"Unable to generate access token\"', <google.auth.transport.requests._Response object at 0x7f>)",
        "Permission \\'iam.serviceAccounts.getAccessToken\\' denied on resource (or it may not exist).",
        'metadata: GCE metadata "instance/service-accounts/default/token" not defined',
        "Error: Could not refresh access token: Request failed with status code 404",
        "java.io.IOException: Error code 404 trying to get identity token from Compute Engine metadata. This may be because the virtual machine instance does not have permission scopes specified.",
        # a Cloud API's 401 in each client, TensorStore's status under Orbax
        "google.api_core.exceptions.Unauthenticated: 401 Request had invalid authentication credentials.",
        "googleapi: Error 401: Invalid Credentials, authError",
        "AccessDeniedException: 401 Access denied: login required.",
        "ServiceException: 401 Anonymous caller does not have storage.objects.list access to the Google Cloud Storage bucket.",
        "ValueError: PERMISSION_DENIED: Unauthorized [HTTP code 401]",
        "ValueError: PERMISSION_DENIED: HTTP response code: 401 with body: {",
        "ERROR: (gcloud.storage.cp) Your current active account [trainer@ml-prod.iam.gserviceaccount.com] does not have any valid credentials",
        "Your credentials are invalid. Please run",
        'Your "GCE" credentials are invalid. For more help, see "gsutil help creds", or re-run the gsutil config command (see "gsutil help config").',
    ],
)
def test_every_rendering_of_a_family_matches_it(line: str) -> None:
    assert PAGE in matched(line), line


@pytest.mark.parametrize(
    "line, owner",
    [
        # probes and retries before a source is chosen
        ("Compute Engine Metadata server unavailable on attempt 2 of 3. Reason: timed out", None),
        (
            "2019-04-26 14:14:51,433 :: google.auth.compute_engine._metadata :: INFO :: Compute Engine Metadata server unavailable onattempt 3 of 3",
            None,
        ),
        (
            "Compute Engine Metadata server unavailable on attempt 5 of 5. Reason: HTTPConnectionPool(host='metadata.google.internal', port=80): Read timed out. (read timeout=3)",
            None,
        ),
        (
            "tensorstore/internal/oauth2/google_auth_provider.cc:203: Running on GCE, using GCE Auth Provider ",
            None,
        ),
        ('metadata: GCE metadata "instance/attributes/cluster-name" not defined', None),
        # the metadata server or token endpoint never answered, or failed: a dependency
        (
            "google.auth.exceptions.RefreshError: ('Failed to retrieve http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token from the Google Compute Engine metadata service. Status: 500 Response:\\nb\"\"', None)",
            "dependency-unreachable",
        ),
        (
            'Get "https://storage.googleapis.com/storage/v1/b/ckpt/o?alt=json": compute: Received 500 `GKE Metadata Server: Internal Server Error`',
            "dependency-unreachable",
        ),
        (
            'oauth2: cannot fetch token: Post "https://oauth2.googleapis.com/token": dial tcp 142.250.1.95:443: i/o timeout',
            "dependency-unreachable",
        ),
        (
            "Error: Could not refresh access token: request to http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token failed, reason: connect ETIMEDOUT 169.254.169.254:80",
            "dependency-unreachable",
        ),
        # a known identity without a permission
        (
            "google.api_core.exceptions.Forbidden: 403 GET https://storage.googleapis.com/storage/v1/b/ckpt?projection=noAcl&prettyPrint=false: trainer@ml-prod.iam.gserviceaccount.com does not have storage.buckets.get access to the Google Cloud Storage bucket.",
            "checkpoint-gcs-permission",
        ),
        (
            "googleapiclient.errors.HttpError: <HttpError 403 when requesting https://tpu.googleapis.com/v2/projects/p/locations/us-east5-a/nodes/n?alt=json returned \"Permission 'tpu.nodes.get' denied on 'projects/p/locations/us-east5-a/nodes/n'\">",
            "tpu-api-permission-denied",
        ),
        # the operator's kubectl login, and an OAuth word in a configuration line
        ("error: You must be logged in to the server (Unauthorized)", None),
        ("  grant_type: urn:ietf:params:oauth:grant-type:jwt-bearer", None),
    ],
)
def test_a_look_alike_does_not_match_the_page(line: str, owner: str | None) -> None:
    hits = matched(line)
    assert PAGE not in hits, line
    if owner:
        assert owner in hits, line


def test_no_healthy_authentication_line_matches() -> None:
    healthy = [
        "Success in fetching cred.UniverseDomain",
        "Using credentials from GOOGLE_APPLICATION_CREDENTIALS: /var/secrets/google/key.json",
        "Activated service account credentials for: [trainer@ml-prod.iam.gserviceaccount.com]",
        "Refreshing access_token",
        "Credentials saved to file: [/root/.config/gcloud/application_default_credentials.json]",
    ]
    assert_no_signature_matches(WIKI, [PAGE], healthy)


# ---- the verification workflow, offline, through the real engine ----------------------------

POD = "llm-pretrain-slice-job-0-0-abcde"


def test_a_refused_token_is_confirmed_with_the_service_account_it_names(tmp_path: Path) -> None:
    text = (
        "google.auth.exceptions.RefreshError: ('Failed to retrieve http://metadata.google.internal"
        "/computeMetadata/v1/instance/service-accounts/trainer@ml-prod.iam.gserviceaccount.com/"
        'token from the Google Compute Engine metadata service. Status: 403 Response:\\nb"'
        + WI_REFUSED
        + "\"')"
    )
    run = _verify(
        tmp_path, "verify-gcp-credentials-failure", "llm-pretrain", [_line(1, 0, POD, text, node=2)]
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["service_account"] == ["trainer@ml-prod.iam.gserviceaccount.com"]
    assert run["outputs"]["culprit_host"] == NODES[2]
    healthy = _verify(
        tmp_path,
        "verify-gcp-credentials-failure",
        "llm-pretrain",
        [_line(1, 0, POD, "completed step: 4, loss: 9.610")],
    )
    assert healthy["verdict"] == "refuted", healthy


def test_no_container_log_at_all_is_inconclusive(tmp_path: Path) -> None:
    scheduled = _event(1, 0, POD, "Scheduled", f"Successfully assigned default/{POD} to {NODES[0]}")
    run = _verify(tmp_path, "verify-gcp-credentials-failure", "llm-pretrain", [scheduled])
    assert run["verdict"] == "inconclusive", run


# ---- the diagnosis ---------------------------------------------------------------------------


def _traceback(n: int, pod: str, error: str, node: int = 0) -> list[dict]:
    """One uncaught exception, its lines microseconds apart as GKE's agent splits them."""
    texts = [
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 31, in <module>',
        "    client = storage.Client()",
        error,
    ]
    return [_line(n + k, 30 + k * 0.0002, pod, text, node=node) for k, text in enumerate(texts)]


def test_missing_default_credentials_are_the_root_not_the_exception(tmp_path: Path) -> None:
    workload = "llm-pretrain"
    pod = _jobset_pods(workload)[1]
    entries = _traceback(
        1,
        pod,
        "google.auth.exceptions.DefaultCredentialsError: Your default credentials were not found. "
        "To set up Application Default Credentials, see "
        "https://cloud.google.com/docs/authentication/external/set-up-adc for more information.",
        node=1,
    )
    entries.append(_event(9, 40, pod, "BackOff", f"Back-off restarting failed container in {pod}"))
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == PAGE
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[1]]


def test_a_gcsfuse_mount_refused_a_token_is_the_credentials(tmp_path: Path) -> None:
    """The FailedMount matches the generic CSI refusal and the Cloud Storage FUSE page too; the
    token the GKE metadata server would not mint is the deeper reason."""
    workload = "llm-pretrain"
    pods = _jobset_pods(workload)
    message = (
        'MountVolume.SetUp failed for volume "gcs-fuse-csi-ephemeral" : rpc error: code = '
        "PermissionDenied desc = the sidecar container failed with error: mountWithArgs: "
        "mountWithStorageHandle: fs.NewServer: create file system: SetUpBucket: Error in "
        'iterating through objects: Get "https://storage.googleapis.com/storage/v1/b/ckpt/o?'
        'alt=json&maxResults=1&prettyPrint=false": compute: Received 403 `' + WI_REFUSED
    )
    assert {PAGE, "gcsfuse-mount-failure", "container-config-error"} <= matched(message)
    entries = [_event(n, 30 * n, pods[n % 4], "FailedMount", message, node=n % 4) for n in range(8)]
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["root_cause"]["symptom"] == PAGE, findings["summary"]


def test_a_storage_permission_denial_stays_a_permission(tmp_path: Path) -> None:
    workload = "llm-pretrain"
    pod = _jobset_pods(workload)[0]
    entries = _training(workload, 60) + _traceback(
        1,
        pod,
        "google.api_core.exceptions.Forbidden: 403 POST https://storage.googleapis.com/upload/"
        "storage/v1/b/ckpt/o?uploadType=resumable: trainer@ml-prod.iam.gserviceaccount.com does "
        "not have storage.objects.create access to the Google Cloud Storage object. Permission "
        "'storage.objects.create' denied on resource (or it may not exist).",
    )
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["root_cause"]["symptom"] == "checkpoint-gcs-permission", findings["summary"]


def test_credentials_not_found_after_an_unreachable_metadata_server_name_the_server(
    tmp_path: Path,
) -> None:
    """google-auth's metadata probe timed out (the GKE metadata server not yet serving the pod), so
    Application Default Credentials fell through to "not found": the server is the deeper root."""
    workload = "llm-pretrain"
    pod = _jobset_pods(workload)[2]
    entries = [
        _line(
            1,
            10,
            pod,
            "google.auth.exceptions.TransportError: Failed to retrieve http://metadata.google."
            "internal/computeMetadata/v1/instance/service-accounts/default/token from the Google "
            "Compute Engine metadata service. Compute Engine Metadata server unavailable",
            node=2,
        ),
        *_traceback(
            2,
            pod,
            "google.auth.exceptions.DefaultCredentialsError: Your default credentials were not "
            "found. To set up Application Default Credentials, see "
            "https://cloud.google.com/docs/authentication/external/set-up-adc for more information.",
            node=2,
        ),
    ]
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["root_cause"]["symptom"] == "dependency-unreachable", findings["summary"]
    assert PAGE in {e["symptom"] for e in findings["evidence"]}
