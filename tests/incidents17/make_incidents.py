"""Deterministic generator of the round-17 incidents (`python make_incidents.py [OUT_DIR]`).

Two failure modes the wiki had no page for, written here from scratch as Cloud Logging bundles in
the shape of the round-13 set (whose bundle writer this reuses): a gRPC message over the channel's
size limit, and a full local disk or /dev/shm. A multi-host JAX JobSet whose task 0 puts a value
larger than 4 MiB into jax.distributed's key-value store, after which the other tasks lose their
coordinator; an evaluation Job whose gRPC client gets a response larger than its receive limit on
every attempt; a PyTorch/XLA data-loading JobSet whose DataLoader workers fill the container's
64 MiB /dev/shm; a JobSet whose large image cannot be unpacked onto one node's full boot disk.
Wording follows the real messages cited on the wiki's pages.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.incidents13.make_incidents import (  # noqa: E402
    T0,
    Bundle,
    _diagnosed,
    _jobset_policy,
    _node,
    _retried_until_backoff_limit,
    _started,
    _suffix,
)
from tests.incidents14.make_incidents import _steps  # noqa: E402

IMAGE = "us-docker.pkg.dev/ml-platform-prod/train/maxtext:2026.05"


def kv_store_too_large(out: Path) -> None:
    b = Bundle("01-kv-store-too-large", 1701)
    workload = "llm-pretrain"
    nodes = [_node(b.rng, "tpu-v5p-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "jax", IMAGE)
    t = T0 + timedelta(seconds=20)
    for pod, node in zip(pods, nodes):
        _steps(b, t, pod, node, range(5))
    t += timedelta(seconds=70)
    size = 4194304 + b.rng.randrange(1_000_000, 3_000_000)
    b.lines(
        t,
        pods[0],
        nodes[0],
        [
            "Traceback (most recent call last):",
            '  File "/app/train.py", line 211, in <module>',
            '    client.key_value_set(f"dataset_index/{step}", json.dumps(shard_index))',
            f"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: SERVER: Received message larger than max ({size} vs. 4194304)",
        ],
        container="jax",
    )
    for pod, node in zip(pods[1:], nodes[1:]):
        b.line(
            t + timedelta(seconds=11),
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
        "grpc-message-too-large",
        nodes[0],
        "crash",
        "Task 0 puts a dataset index of more than 4 MiB into jax.distributed's key-value store; the coordination service's gRPC server refuses the message (Received message larger than max), task 0 dies of the uncaught XlaRuntimeError, and the other tasks lose their leader (a cascade). The fix is a smaller value or a path to it in Cloud Storage, not the coordinator's health.",
    )


def grpc_client_response(out: Path) -> None:
    b = Bundle("02-grpc-client-response", 1702)
    workload, node = "embed-eval", _node(b.rng, "cpu-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "eval", "us-docker.pkg.dev/ml-platform-prod/apps/eval:3.2")
    size = 4194304 + b.rng.randrange(5_000_000, 20_000_000)
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=8),
        workload,
        pod,
        node,
        "eval",
        [
            "Traceback (most recent call last):",
            '  File "/app/eval.py", line 57, in <module>',
            "    response = stub.Predict(request, timeout=600)",
            "grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:",
            "\tstatus = StatusCode.RESOURCE_EXHAUSTED",
        ],
        f'\tdetails = "Received message larger than max ({size} vs. 4194304)"',
    )
    _diagnosed(
        b,
        out,
        workload,
        "grpc-message-too-large",
        node,
        "crash",
        "The evaluation client asks the model server for all embeddings of a batch in one response, which is larger than its channel's default 4 MiB receive limit; every attempt fails the same way and the Job reaches its backoff limit. The payload, not the server, is at fault.",
    )


def dataloader_shm_full(out: Path) -> None:
    b = Bundle("03-dataloader-shm-full", 1703)
    workload = "vit-finetune"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(2)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(2)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "trainer", IMAGE)
    t = T0 + timedelta(seconds=25)
    for pod, node in zip(pods, nodes):
        _steps(b, t, pod, node, range(3))
    t += timedelta(seconds=40)
    worker_pid = b.rng.randrange(200, 900)
    b.lines(
        t,
        pods[1],
        nodes[1],
        [
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 244, in _feed',
            "    obj = _ForkingPickler.dumps(obj)",
            '  File "/usr/local/lib/python3.10/site-packages/torch/multiprocessing/reductions.py", line 618, in reduce_storage',
            "    fd, size = storage._share_fd_cpu_()",
            f"RuntimeError: unable to write to file </torch_{worker_pid}_{b.rng.randrange(10**9)}_4>: No space left on device (28)",
        ],
        container="trainer",
    )
    b.lines(
        t + timedelta(seconds=2),
        pods[1],
        nodes[1],
        [
            "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
            f"RuntimeError: DataLoader worker (pid {worker_pid}) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        ],
        container="trainer",
    )
    _jobset_policy(b, t + timedelta(seconds=20), workload)
    _diagnosed(
        b,
        out,
        workload,
        "local-disk-full",
        nodes[1],
        "crash",
        "The pod spec mounts no /dev/shm, so the container has Docker's 64 MiB default; the DataLoader workers' batches fill it, PyTorch cannot write the shared-memory file and a worker dies of SIGBUS. The bus error names shared memory, so the full /dev/shm, not a segfault, is the root; the JobSet restart is its consequence.",
    )


def image_unpack_disk_full(out: Path) -> None:
    b = Bundle("04-image-unpack-disk-full", 1704)
    workload = "mm-pretrain"
    image = "us-docker.pkg.dev/ml-platform-prod/train/multimodal:2026.06"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(2)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(2)]
    _started(b, T0, pods[0], nodes[0], "trainer", image)
    b.event(
        T0,
        "Scheduled",
        f"Successfully assigned default/{pods[1]} to {nodes[1]}",
        name=pods[1],
        component="default-scheduler",
        type_="Normal",
    )
    layer = f"sha256:{b.rng.randrange(16**64):064x}"
    t = T0 + timedelta(seconds=95)
    for attempt in range(3):
        b.event(
            t,
            "Failed",
            f'Failed to pull image "{image}": failed to pull and unpack image "{image}": failed to extract layer {layer}: write /var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/412/fs/usr/local/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: no space left on device: unknown',
            name=pods[1],
            host=nodes[1],
            count=attempt + 1,
        )
        b.event(
            t + timedelta(seconds=1),
            "BackOff",
            f'Back-off pulling image "{image}"',
            name=pods[1],
            host=nodes[1],
            type_="Normal",
            count=attempt + 1,
        )
        t += timedelta(seconds=60 * (attempt + 1))
    _diagnosed(
        b,
        out,
        workload,
        "local-disk-full",
        nodes[1],
        "scheduling",
        "One node's boot disk has no room for the image's large layer: containerd fails to unpack it (no space left on device) on every attempt while the other node pulled the same image and started. The image and the registry are fine, so the full disk of that node, not the image, is the root.",
    )


BUILDERS = [kv_store_too_large, grpc_client_response, dataloader_shm_full, image_unpack_disk_full]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
