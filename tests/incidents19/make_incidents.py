"""Deterministic generator of the round-19 incidents (`python make_incidents.py [OUT_DIR]`).

A failure mode the wiki had no page for, an input pipeline that cannot read or decode its data,
written here from scratch as Cloud Logging bundles in the shape of the round-13 set (whose bundle
writer this reuses): a multi-host JAX JobSet whose tf.data reader reaches a corrupt TFRecord shard
on one host hours into the run, after which the other tasks lose that task's heartbeats and the
JobSet restarts; a PyTorch/XLA fine-tuning Job whose DataLoader worker cannot open an image the
manifest lists, on every attempt until the backoff limit; and an evaluation JobSet pointed at a
TFDS data_dir where the dataset was never prepared. Wording follows the real messages cited on
the page.
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


def corrupt_shard(out: Path) -> None:
    b = Bundle("01-corrupt-tfrecord-shard", 1901)
    workload = "llm-pretrain"
    nodes = [_node(b.rng, "tpu-v5p-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "jax", IMAGE)
    t = T0 + timedelta(seconds=30)
    for pod, node in zip(pods, nodes):
        _steps(b, t, pod, node, range(8))
    t += timedelta(seconds=110)
    offset = 1 << b.rng.randrange(20, 30)
    b.lines(
        t,
        pods[2],
        nodes[2],
        [
            "Traceback (most recent call last):",
            '  File "/app/MaxText/train.py", line 604, in <module>',
            "    example_batch = load_next_batch(data_iterator, example_batch, config)",
            '  File "/usr/local/lib/python3.10/site-packages/tensorflow/python/data/ops/iterator_ops.py", line 809, in __next__',
            "    return self._next_internal()",
            f"tensorflow.python.framework.errors_impl.DataLossError: corrupted record at {offset} [Op:IteratorGetNext] name: ",
        ],
        container="jax",
    )
    for i in (0, 1, 3):  # the survivors, once task 2 stops sending heartbeats
        b.line(
            t + timedelta(seconds=45, milliseconds=i),
            pods[i],
            nodes[i],
            "F0601 08:03:05.000000   41 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:2",
            container="jax",
        )
    _jobset_policy(b, t + timedelta(seconds=60), workload)
    _diagnosed(
        b,
        out,
        workload,
        "input-pipeline-failure",
        nodes[2],
        "crash",
        "Task 2's tf.data iterator reaches a TFRecord shard whose CRC does not match (a copy cut short when the corpus was moved), the record reader raises DataLossError and the task dies; the other tasks name task 2 in their heartbeat fatal (a cascade) and the JobSet restarts. The data, not the host, is at fault: the restarted run reaches the same shard.",
    )


def missing_image(out: Path) -> None:
    b = Bundle("02-dataloader-missing-image", 1902)
    workload, node = "vit-finetune", _node(b.rng, "tpu-v5e-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "trainer", "us-docker.pkg.dev/ml-platform-prod/train/vit:1.4")
    worker = b.rng.randrange(8)
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=40),
        workload,
        pod,
        node,
        "trainer",
        [
            "Traceback (most recent call last):",
            '  File "/app/finetune.py", line 143, in <module>',
            "    for step, (images, labels) in enumerate(loader):",
            '  File "/usr/local/lib/python3.10/site-packages/torch/_utils.py", line 705, in reraise',
            "    raise exception",
        ],
        f"FileNotFoundError: Caught FileNotFoundError in DataLoader worker process {worker}.",
    )
    _diagnosed(
        b,
        out,
        workload,
        "input-pipeline-failure",
        node,
        "crash",
        "The manifest lists images that were never copied to the mounted dataset volume; a DataLoader worker raises FileNotFoundError on the first missing one and the trainer re-raises it. Every attempt reaches the same file, so the Job hits its backoff limit. The data, not the trainer, is at fault.",
    )


def dataset_not_prepared(out: Path) -> None:
    b = Bundle("03-tfds-not-prepared", 1903)
    workload = "vision-eval"
    nodes = [_node(b.rng, "tpu-v5e-pool") for _ in range(2)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(2)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "eval", "us-docker.pkg.dev/ml-platform-prod/eval/big-vision:7")
    t = T0 + timedelta(seconds=25)
    b.lines(
        t,
        pods[0],
        nodes[0],
        [
            "Traceback (most recent call last):",
            '  File "/app/big_vision/evaluators/classification.py", line 34, in __init__',
            "    self.ds, self.steps = input_pipeline.make_for_inference(",
            "AssertionError: Dataset imagenet_v2: could not find data in gs://ml-platform-prod-data/tensorflow_datasets. Please make sure to call dataset_builder.download_and_prepare(), or pass download=True to tfds.load() before trying to access the tf.data.Dataset object.",
        ],
        container="eval",
    )
    b.line(
        t + timedelta(seconds=31),
        pods[1],
        nodes[1],
        "F0601 08:00:59.000000   52 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:0",
        container="eval",
    )
    _jobset_policy(b, t + timedelta(seconds=40), workload, action="Fail")
    _diagnosed(
        b,
        out,
        workload,
        "input-pipeline-failure",
        nodes[0],
        "crash",
        "The evaluation points TFDS at a data_dir where imagenet_v2 was never prepared; task 0 builds the evaluator first and dies on the builder's assertion, the other task loses its heartbeats, and the JobSet's policy fails it. Preparing the dataset (or the right data_dir) is the fix.",
    )


BUILDERS = [corrupt_shard, missing_image, dataset_not_prepared]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
