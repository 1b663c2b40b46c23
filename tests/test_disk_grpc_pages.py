"""The grpc-message-too-large and local-disk-full pages, through the public loader, engine and
pipeline.

Each page's role, sections, real cited examples and counter-examples are checked with every new
page's in tests/test_new_failure_pages.py; here, its read-only verification workflow that confirms on its own evidence (naming the limit hit or the path that was full) and
refutes without it. The families hold every stack's wording of one mechanism, and keep out what
only shares words with it: RESOURCE_EXHAUSTED from device memory or a quota, a channel option
quoted in a flag, ENOSPC from a cgroup pseudo-file or the inotify watch limit. The diagnosis names
the full disk under an image pull or a shared-memory bus error, and leaves a checkpoint save's own
line to checkpoint-save-failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mlwiki.wiki import Wiki
from tests.conftest import assert_no_signature_matches
from tests.test_new_failure_pages import (
    NODES,
    WIKI,
    _diagnose,
    _event,
    _line,
    _verify,
    matched,
)

ROLES = {"grpc-message-too-large": "root", "local-disk-full": "root"}


@pytest.fixture(scope="module")
def wiki() -> Wiki:
    return WIKI


@pytest.mark.parametrize(
    "line, page",
    [
        # gRPC core's newer prefix, gRPC-Go's decompression and send checks, JAX's wrapper
        ("CLIENT: Sent message larger than max (5242961 vs. 4194304)", "grpc-message-too-large"),
        (
            "rpc error: code = ResourceExhausted desc = grpc: received message after decompression larger than max (9437184 vs. 4194304)",
            "grpc-message-too-large",
        ),
        (
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: SERVER: Received message larger than max (6291502 vs. 4194304)",
            "grpc-message-too-large",
        ),
        # gRPC-Java's framer, grpc-dotnet's send side, tonic's encoder
        (
            "io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: message too large 5000000 > 4194304",
            "grpc-message-too-large",
        ),
        (
            'Status(StatusCode="ResourceExhausted", Detail="Sending message exceeds the maximum configured message size.")',
            "grpc-message-too-large",
        ),
        (
            'status: OutOfRange, message: "Error, encoded message length too large: found 5000000 bytes, the limit is: 4194304 bytes"',
            "grpc-message-too-large",
        ),
        # ENOSPC in each runtime's words
        (
            "OSError: [Errno 28] No space left on device: '/tmp/jax_cache/jit_train_step-3f2a'",
            "local-disk-full",
        ),
        (
            "failed to create containerd task: write /var/lib/containerd/io.containerd.runtime.v2.task/k8s.io/1a2b/config.json: no space left on device",
            "local-disk-full",
        ),
        ("mkdir: cannot create directory '/tmp/ray': No space left on device", "local-disk-full"),
        ("Error: ENOSPC: no space left on device, write", "local-disk-full"),
        (
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError: /tmp/logs/events.out.tfevents.1700000000.host; No space left on device",
            "local-disk-full",
        ),
        ("Error: No space left on device (os error 28)", "local-disk-full"),
        ("tee: /var/log/train/run.log: No space left on device", "local-disk-full"),
        ("write /home/jovyan/.cache/pip/http/a/b/c: disk quota exceeded", "local-disk-full"),
        (
            "host:1:2 [0] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size 9637888), error: No space left on device (28)",
            "local-disk-full",
        ),
    ],
)
def test_every_rendering_of_a_family_matches_it(line: str, page: str) -> None:
    assert page in matched(line), line


@pytest.mark.parametrize(
    "line, page",
    [
        # a WebRTC data channel, a limit named in a setting, device memory, an API quota
        (
            "TypeError: Failed to execute 'send' on 'RTCDataChannel': Trying to send message larger than max-message-size",
            "grpc-message-too-large",
        ),
        (
            "options = [('grpc.max_receive_message_length', 64 * 1024 * 1024)]",
            "grpc-message-too-large",
        ),
        (
            "XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 4.39G. That was not possible. There are 2.30G free.; (0x0x0_HBM0)",
            "grpc-message-too-large",
        ),
        (
            "google.api_core.exceptions.ResourceExhausted: 429 Quota exceeded for quota metric 'Write requests'",
            "grpc-message-too-large",
        ),
        # ENOSPC that is not a disk: the inotify limit, a cgroup pseudo-file, Node's watcher limit
        (
            "inotify_add_watch /sys/fs/cgroup/cpu,cpuacct: no space left on device",
            "local-disk-full",
        ),
        (
            "bash: echo: write error: No space left on device",
            "local-disk-full",
        ),
        (
            "Error: ENOSPC: System limit for number of file watchers reached, watch '/app/src'",
            "local-disk-full",
        ),
        ("Filesystem      Size  Used Avail Use% Mounted on", "local-disk-full"),
        (
            'ERR Failed initialising jobs error="watch directory: /mnt/local/Media: no space left on device" trigger=inotify',
            "local-disk-full",
        ),
        (
            "lxc_cgfsng - cgfsng.c:cgfsng_create:1086 - No space left on device - Failed to create /sys/fs/cgroup/memory//lxc/test123-984: No space left on device",
            "local-disk-full",
        ),
        # a checkpoint save's own line stays the checkpoint's
        (
            "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
            "checkpoint-save-failure",
        ),
        ("OSError: [Errno 122] Disk quota exceeded", "checkpoint-save-failure"),
    ],
)
def test_a_look_alike_of_a_family_does_not_match_it(line: str, page: str) -> None:
    assert page not in matched(line), line


def test_no_new_page_matches_a_healthy_line(wiki: Wiki) -> None:
    healthy = [
        "completed step: 4, seconds: 11.645, TFLOP/s/device: 194.526, loss: 9.610",
        'Successfully pulled image "us-docker.pkg.dev/p/r/trainer:1" in 41.2s (41.2s including waiting)',
        "jax.distributed: connected to coordinator at 10.0.0.2:8476",
        "Saved checkpoint for step 2000",
        "Using shared memory /dev/shm of 64G",
        "grpc.max_send_message_length set to 268435456",
    ]
    assert_no_signature_matches(wiki, ROLES, healthy)


# ---- the verification workflows, offline, through the real engine ---------------------------


POD = "llm-pretrain-slice-job-0-0-abcde"
HEALTHY = [_line(1, 0, POD, "completed step: 4, loss: 9.610")]


@pytest.mark.parametrize(
    "symptom_id, text, output, named",
    [
        (
            "grpc-message-too-large",
            '\tdetails = "Received message larger than max (17777780 vs. 4194304)"',
            "limit",
            "4194304",
        ),
        (
            "grpc-message-too-large",
            "io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: gRPC message exceeds maximum size 4194304: 5242969",
            "limit",
            "4194304",
        ),
        (
            "local-disk-full",
            "OSError: [Errno 28] No space left on device: '/tmp/xla_cache/module_0042.bin'",
            "path",
            "/tmp/xla_cache/module_0042.bin",
        ),
        (
            "local-disk-full",
            "RuntimeError: unable to write to file </torch_739_144252761_4>: No space left on device (28)",
            "path",
            "/torch_739_144252761_4",
        ),
    ],
)
def test_a_line_is_confirmed_with_what_it_names_and_a_healthy_log_refutes(
    tmp_path: Path, symptom_id: str, text: str, output: str, named: str
) -> None:
    workflow = f"verify-{symptom_id}"
    run = _verify(tmp_path, workflow, "llm-pretrain", [_line(1, 0, POD, text, node=2)])
    assert run["verdict"] == "confirmed", run
    assert named in run["outputs"][output]
    assert run["outputs"]["culprit_host"] == NODES[2]
    healthy = _verify(tmp_path, workflow, "llm-pretrain", HEALTHY)
    assert healthy["verdict"] == "refuted", healthy


def test_an_image_layer_on_a_full_disk_is_confirmed_from_the_event(tmp_path: Path) -> None:
    message = (
        'Failed to pull image "us-docker.pkg.dev/p/r/trainer:1": failed to pull and unpack image '
        '"us-docker.pkg.dev/p/r/trainer:1": failed to extract layer sha256:5dac: write '
        "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/9/fs/usr/lib/libx.so: "
        "no space left on device: unknown"
    )
    run = _verify(
        tmp_path, "verify-local-disk-full", "llm-pretrain", [_event(1, 0, POD, "Failed", message)]
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["path"][0].startswith("/var/lib/containerd/")


# ---- the diagnosis ---------------------------------------------------------------------------


def _record(n: int, pod: str, texts: list[str], node: int = 0) -> list[dict[str, Any]]:
    """One write of several lines, microseconds apart as GKE's agent splits it."""
    return [_line(n + k, k * 0.0002, pod, text, node=node) for k, text in enumerate(texts)]


def test_a_checkpoint_save_on_a_full_disk_stays_a_checkpoint_failure(tmp_path: Path) -> None:
    entries = _record(
        1,
        POD,
        [
            "Traceback (most recent call last):",
            '  File "/app/train.py", line 90, in <module>',
            "    manager.save(step, args=ocp.args.StandardSave(state))",
            "RuntimeError: Failed to save checkpoint: OSError: [Errno 28] No space left on device",
        ],
    )
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "checkpoint-save-failure", findings["summary"]


def test_a_bare_full_disk_is_not_a_checkpoint_failure(tmp_path: Path) -> None:
    entries = _record(
        1,
        POD,
        [
            "Collecting torch==2.5.1",
            "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
        ],
        node=1,
    )
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "local-disk-full", findings["summary"]
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[1]]


def test_a_shared_memory_bus_error_names_the_full_shm_not_a_segfault(tmp_path: Path) -> None:
    entries = _record(
        1,
        POD,
        [
            "RuntimeError: DataLoader worker (pid 729) is killed by signal: Bus error. It is "
            "possible that dataloader's workers are out of shared memory. Please try to raise "
            "your shared memory limit."
        ],
    )
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "local-disk-full", findings["summary"]
