"""Deterministic generator of the round-18 incidents (`python make_incidents.py [OUT_DIR]`).

A workload that cannot obtain or refresh Google Cloud credentials, a failure mode the wiki had no
page for, written here from scratch as Cloud Logging bundles in the shape of the round-13 set
(whose bundle writer this reuses): a JAX JobSet whose Kubernetes service account is annotated with
a Google service account that does not grant it roles/iam.workloadIdentityUser, so the GKE metadata
server refuses task 0 its token when it uploads the run's config (the other tasks then lose their
leader); an evaluation Job whose mounted service-account key was deleted during the run, so every
refresh is refused (invalid_grant) until the backoff limit; a JobSet whose Cloud Storage FUSE
volume cannot mount on any pod because the metadata server refuses the sidecar the same token; a
data-preparation Deployment whose GOOGLE_APPLICATION_CREDENTIALS names a key file from a Secret that
is not mounted, in a crash loop. Wording follows the real messages cited on the page.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.incidents13.make_incidents import (  # noqa: E402
    PROJECT,
    T0,
    Bundle,
    _backoff,
    _diagnosed,
    _jobset_policy,
    _node,
    _retried_until_backoff_limit,
    _started,
    _suffix,
)
from tests.incidents14.make_incidents import _steps  # noqa: E402

IMAGE = "us-docker.pkg.dev/ml-platform-prod/train/maxtext:2026.05"
GSA = f"trainer@{PROJECT}.iam.gserviceaccount.com"
WI_REFUSED = (
    "Unable to generate access token; IAM returned 403 Forbidden: Permission "
    "'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist)."
)
WI_HELP = (
    "This error could be caused by a missing IAM policy binding on the target IAM service account."
)


def wi_token_refused(out: Path) -> None:
    b = Bundle("01-wi-token-refused", 1801)
    workload = "llm-pretrain"
    nodes = [_node(b.rng, "tpu-v5p-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "jax", IMAGE)
    t = T0 + timedelta(seconds=20)
    for pod, node in zip(pods, nodes):
        _steps(b, t, pod, node, range(2))
    t += timedelta(seconds=30)
    token_url = (
        f"http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/{GSA}/"
        "token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fdevstorage.read_write"
    )
    b.lines(
        t,
        pods[0],
        nodes[0],
        [
            "Traceback (most recent call last):",
            '  File "/app/MaxText/train.py", line 402, in <module>',
            '    upload_config(config, f"gs://ml-platform-prod-runs/{run_name}/config.yml")',
            '  File "/usr/local/lib/python3.11/site-packages/google/cloud/storage/blob.py", line 2951, in upload_from_filename',
            '  File "/usr/local/lib/python3.11/site-packages/google/auth/compute_engine/credentials.py", line 132, in refresh',
            "    raise new_exc from caught_exc",
            f'google.auth.exceptions.RefreshError: ("Failed to retrieve {token_url} from the Google Compute Engine metadata service. Status: 403 Response:\\nb\\"{WI_REFUSED}\\\\n{WI_HELP}\\\\n\\"", <google.auth.transport.requests._Response object at 0x7f3a2c41d0d0>)',
        ],
        container="jax",
    )
    for pod, node in zip(pods[1:], nodes[1:]):
        b.line(
            t + timedelta(seconds=12),
            pod,
            node,
            "Failed to send RPC to coordination service. Either the leader task died or it is unreachable: UNAVAILABLE: Connection reset by peer",
            container="jax",
        )
    _jobset_policy(b, t + timedelta(seconds=30), workload)
    _diagnosed(
        b,
        out,
        workload,
        "gcp-credentials-failure",
        nodes[0],
        "crash",
        f"The job's Kubernetes service account is annotated with {GSA}, which does not grant it roles/iam.workloadIdentityUser: when task 0 uploads the run's config the GKE metadata server refuses the token (IAM returned 403 for iam.serviceAccounts.getAccessToken), task 0 dies of the RefreshError, and the other tasks lose their leader (a cascade) before the JobSet restarts. The fix is the Workload Identity binding, not a bucket role.",
    )


def key_deleted_midrun(out: Path) -> None:
    b = Bundle("02-key-deleted-midrun", 1802)
    workload, node = "embed-eval", _node(b.rng, "cpu-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "eval", "us-docker.pkg.dev/ml-platform-prod/apps/eval:3.2")
    for batch in range(4):
        b.line(
            T0 + timedelta(minutes=15 * batch + 1),
            pod,
            node,
            f"evaluated shard {batch:05d} of 00064 from gs://ml-platform-prod-eval/shards/",
            container="eval",
            severity="INFO",
            stream="stdout",
            labels={"job-name": workload},
        )
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(minutes=62),
        workload,
        pod,
        node,
        "eval",
        [
            "Traceback (most recent call last):",
            '  File "/app/eval.py", line 88, in <module>',
            "    shard = bucket.blob(name).download_as_bytes()",
            '  File "/usr/local/lib/python3.11/site-packages/google/oauth2/_client.py", line 72, in _handle_error_response',
            "    raise exceptions.RefreshError(",
        ],
        "google.auth.exceptions.RefreshError: ('invalid_grant: Invalid JWT Signature.', {'error': 'invalid_grant', 'error_description': 'Invalid JWT Signature.'})",
    )
    _diagnosed(
        b,
        out,
        workload,
        "gcp-credentials-failure",
        node,
        "crash",
        "The evaluation Job authenticates with a service-account key mounted from a Secret; the key was deleted during the run, so when the access token expires after an hour the token endpoint refuses to refresh it (invalid_grant: Invalid JWT Signature) and every retry fails the same way until the backoff limit. A new key (or Workload Identity), not the bucket, is the fix.",
    )


def gcsfuse_token_refused(out: Path) -> None:
    b = Bundle("03-gcsfuse-token-refused", 1803)
    workload = "data-prep"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(2)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(2)]
    for pod, node in zip(pods, nodes):
        b.event(
            T0,
            "Scheduled",
            f"Successfully assigned default/{pod} to {node}",
            name=pod,
            component="default-scheduler",
            type_="Normal",
        )
    t = T0 + timedelta(seconds=4)
    for attempt in range(3):
        for pod, node in zip(pods, nodes):
            b.event(
                t + timedelta(seconds=b.rng.randrange(1, 5)),
                "FailedMount",
                'MountVolume.SetUp failed for volume "gcs-fuse-csi-ephemeral" : rpc error: code = PermissionDenied desc = the sidecar container failed with error: mountWithArgs: mountWithStorageHandle: fs.NewServer: create file system: SetUpBucket: Error in iterating through objects: Get "https://storage.googleapis.com/storage/v1/b/ml-platform-prod-datasets/o?alt=json&delimiter=&endOffset=&includeTrailingDelimiter=false&matchGlob=&maxResults=1&pageToken=&prefix=&prettyPrint=false&projection=full&startOffset=&versions=false": compute: Received 403 `'
                + WI_REFUSED,
                name=pod,
                host=node,
                count=attempt + 1,
            )
        t += timedelta(minutes=2 * (attempt + 1))
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "gcp-credentials-failure",
            "culprit_hosts": [],
            "failures": [
                {"kind": "scheduling", "symptom": "gcp-credentials-failure", "host": None}
            ],
            "why": "The JobSet mounts its dataset bucket through Cloud Storage FUSE, but its Kubernetes service account is not bound to the Google service account it names: the GKE metadata server refuses the sidecar its token (IAM returned 403 for iam.serviceAccounts.getAccessToken), the mount fails on every pod and nothing starts. The generic CSI refusal and the gcsfuse mount failure are the effect of the refused token; the same refusal on every pod is the identity's fault, not a host's: no culprit host.",
        },
    )


def key_file_not_mounted(out: Path) -> None:
    b = Bundle("04-key-file-not-mounted", 1804)
    workload, node = "tokenize-shards", _node(b.rng)
    pod = f"{workload}-7d9c4f6b58-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "worker", "us-docker.pkg.dev/ml-platform-prod/apps/tokenize:0.9")
    t = T0 + timedelta(seconds=6)
    for attempt in range(4):
        b.lines(
            t,
            pod,
            node,
            [
                "Traceback (most recent call last):",
                '  File "/app/tokenize.py", line 19, in <module>',
                "    client = storage.Client()",
                '  File "/usr/local/lib/python3.11/site-packages/google/auth/_default.py", line 114, in load_credentials_from_file',
                "google.auth.exceptions.DefaultCredentialsError: File /var/secrets/google/key.json was not found.",
            ],
            container="worker",
            labels={"app": workload},
        )
        t = _backoff(b, t + timedelta(seconds=2), pod, node, "worker", 1) + timedelta(
            seconds=5 * 2**attempt
        )
    _diagnosed(
        b,
        out,
        workload,
        "gcp-credentials-failure",
        node,
        "crash",
        "The Deployment sets GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json but mounts no Secret there, so google-auth cannot load the named key file at start-up and the pod crash-loops. The uncaught DefaultCredentialsError and the crash loop are consequences of the missing credentials.",
    )


BUILDERS = [wi_token_refused, key_deleted_midrun, gcsfuse_token_refused, key_file_not_mounted]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
