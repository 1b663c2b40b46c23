"""The application's own inputs, through the public loader, engine and pipeline: an input pipeline
that cannot read or decode its data (input-pipeline-failure).

The page's role, sections, real cited examples and counter-examples are checked with every new
page's in tests/test_new_failure_pages.py. Here: each family holds what its emitters can print
(TensorFlow's record reader and tf.data's glob assertion in every mode, TFDS, Hugging Face
`datasets` before and after its exceptions module, PyTorch's DataLoader re-raise of any class, a
worker's exit status and its timeout) and keeps out what only shares words with it (a warning that
skipped the record, other tools' glob warnings, the end of an iterator, a worker killed by a signal).
The verification workflow confirms on the loader's own line, naming the data it quotes, and refutes
a workload that logged without one. The diagnosis names the data over the trainer's uncaught
exception, and the host's memory, disk or descriptor limit over the worker error it caused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.wiki import Wiki
from tests.conftest import assert_no_signature_matches, assert_read_only_verification
from tests.test_new_failure_pages import NODES, WIKI, _diagnose, _line, _verify, matched

PAGES = ("input-pipeline-failure",)
POD = "llm-pretrain-slice-job-0-1-abcde"


@pytest.fixture(scope="module")
def wiki() -> Wiki:
    return WIKI


@pytest.mark.parametrize(
    "line",
    [
        # the record reader in each release and each way the status reaches the log
        "tensorflow.python.framework.errors_impl.DataLossError: truncated record at 8126464' failed with Read less bytes than requested",
        "W tensorflow/core/framework/op_kernel.cc:1839] OP_REQUIRES failed at iterator_ops.cc:1186 : DATA_LOSS: corrupted record at 2097152",
        "Data loss: corrupted record at 0",
        # tf.data's glob assertion in eager mode; a JAX trainer's own glob wrapper
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'No files matched pattern: gs://corpus/c4/en/3.0.1/c4-train.tfrecord-*'",
        "AssertionError: No file found with pattern /tmp/gcsfuse/array-record/c4/en/3.0.1/c4-train.array_record*.",
        # TFDS's wrapper and Hugging Face's exceptions module (datasets >= 2.15)
        "RuntimeError: Failed to construct dataset \"c4\", builder_kwargs \"{'config': 'en', 'data_dir': 'gs://corpus/tfds'}\": Dataset c4 not found.",
        "datasets.exceptions.DatasetGenerationError: An error occurred while generating the dataset",
        "datasets.exceptions.DatasetGenerationCastError: An error occurred while generating the dataset",
        "datasets.exceptions.DatasetNotFoundError: Dataset 'allenai/c4x' doesn't exist on the Hub or cannot be accessed.",
        "datasets.exceptions.DataFilesNotFoundError: No (supported) data files found in /data/c4",
        "FileNotFoundError: Unable to find '/data/corpus/train-00000-of-01024.parquet'",
        # any class a DataLoader worker raised, its exit status, the loader's timeout
        "KeyError: Caught KeyError in DataLoader worker process 3.",
        "RuntimeError: DataLoader worker (pid 4121) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.",
        "RuntimeError: DataLoader timed out after 600 seconds",
        # a record the parser cannot decode
        "INVALID_ARGUMENT: Feature: text (data type: string) is required but could not be found.",
    ],
)
def test_every_rendering_of_a_loader_failure_matches(line: str) -> None:
    assert "input-pipeline-failure" in matched(line), line


@pytest.mark.parametrize(
    "line",
    [
        # ignore_errors(log_warning=True) logs the status message without its code and goes on
        "W tensorflow/core/kernels/data/experimental/ignore_errors_dataset_op.cc:110] Error raised with error message corrupted record at 2097152",
        # other programs' glob warnings and record checks
        "::warning::No files matched pattern: **/*.sh",
        "wal: incomplete or truncated record at end of file",
        # the end of an iterator, healthy loaders, a worker's signal (other pages)
        "W tensorflow/core/framework/local_rendezvous.cc:404] Local rendezvous is aborting with status: OUT_OF_RANGE: End of sequence",
        "I1110 16:26:58.626513 139807526266432 grain_pool.py:448] Grain pool started all child processes.",
        "Generating train split: 100%|██████████| 356317/356317 [00:41<00:00, 8581.79 examples/s]",
        "RuntimeError: DataLoader worker (pid 4024) is killed by signal: Killed.",
        "RuntimeError: DataLoader worker (pid(s) 18359) exited unexpectedly",
        # a checkpoint TensorFlow cannot read is not data
        "DataLossError: Unable to open table file gs://ckpt/model.ckpt-1000: Data loss: not an sstable (bad magic number)",
    ],
)
def test_a_look_alike_is_not_an_input_pipeline_failure(line: str) -> None:
    assert "input-pipeline-failure" not in matched(line), line


def test_no_page_here_matches_a_healthy_loader_line(wiki: Wiki) -> None:
    healthy = [
        "Constructing tf.data.Dataset c4 for split train, from gs://corpus/tfds/c4/en/3.0.1",
        "Load dataset info from /root/tensorflow_datasets/c4/en/3.0.1",
        "Reusing dataset c4 (/root/.cache/huggingface/datasets/c4/en/0.0.0)",
        "completed step: 4, seconds: 11.645, TFLOP/s/device: 194.526, loss: 9.610",
    ]
    assert_no_signature_matches(wiki, PAGES, healthy)


# ---- the verification workflow, offline, through the real engine -----------------------------


@pytest.mark.parametrize("symptom_id", PAGES)
def test_verification_workflow_is_valid_and_read_only(wiki: Wiki, symptom_id: str) -> None:
    assert_read_only_verification(wiki, symptom_id)


@pytest.mark.parametrize(
    "text, named",
    [
        (
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: assertion failed: [No files matched pattern: gs://corpus/c4/en/3.0.1/c4-train.tfrecord-*]",
            "gs://corpus/c4/en/3.0.1/c4-train.tfrecord-*",
        ),
        (
            "tensorflow_datasets.core.registered.DatasetNotFoundError: Dataset bridge_orig not found.",
            "bridge_orig",
        ),
        (
            "FileNotFoundError: Couldn't find a dataset script at /data/corpus/corpus.py or any data file in the same directory.",
            "/data/corpus/corpus.py",
        ),
    ],
)
def test_a_loader_line_is_confirmed_with_the_data_it_names(
    tmp_path: Path, text: str, named: str
) -> None:
    run = _verify(
        tmp_path,
        "verify-input-pipeline-failure",
        "llm-pretrain",
        [_line(1, 0, POD, text, node=1)],
    )
    assert run["verdict"] == "confirmed", run
    assert named in run["outputs"]["target"]
    assert run["outputs"]["culprit_host"] == NODES[1]


def test_a_workload_that_logged_no_loader_line_refutes(tmp_path: Path) -> None:
    healthy = [_line(1, 0, POD, "completed step: 4, loss: 9.610")]
    run = _verify(tmp_path, "verify-input-pipeline-failure", "llm-pretrain", healthy)
    assert run["verdict"] == "refuted", run


# ---- the diagnosis ---------------------------------------------------------------------------


def _record(n: int, seconds: float, texts: list[str], node: int = 1) -> list[dict]:
    """One write of several lines, microseconds apart as GKE's agent splits it."""
    return [_line(n + k, seconds + k * 0.0002, POD, t, node=node) for k, t in enumerate(texts)]


def test_a_corrupt_shard_is_the_root_over_the_uncaught_exception(tmp_path: Path) -> None:
    entries = [
        *_record(1, 0, ["completed step: 1200, loss: 2.310"]),
        *_record(
            10,
            30,
            [
                "Traceback (most recent call last):",
                '  File "/app/train.py", line 301, in <module>',
                "    batch = next(train_iter)",
                "tensorflow.python.framework.errors_impl.DataLossError: corrupted record at 104857600 [Op:IteratorGetNext]",
            ],
        ),
    ]
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "input-pipeline-failure", findings["summary"]
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[1]]


def test_the_worker_s_error_is_named_over_the_trainer_s_re_raise(tmp_path: Path) -> None:
    """The trainer's traceback ends in a bare RuntimeError (the catch-all); the worker's re-raise a
    moment later names the file the dataset could not open."""
    entries = [
        *_record(
            1,
            0,
            [
                "Traceback (most recent call last):",
                '  File "/app/train.py", line 88, in <module>',
                "RuntimeError: data loading failed",
            ],
        ),
        *_record(
            10,
            2,
            [
                "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 2.",
                "Original Traceback (most recent call last):",
            ],
        ),
    ]
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "input-pipeline-failure", findings["summary"]


def test_a_worker_failed_by_the_oom_killer_names_the_memory(tmp_path: Path) -> None:
    """The worker exited with a status after the kernel killed a sibling for memory: the host's
    memory, not the data, is the root."""
    entries = [
        *_record(1, 0, ["RuntimeError: DataLoader worker (pid 7321) is killed by signal: Killed."]),
        *_record(
            10,
            1,
            [
                "RuntimeError: DataLoader worker (pid 7322) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace."
            ],
        ),
    ]
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "host-oom-killed", findings["summary"]
