"""The application's own inputs, through the public loader, engine and pipeline: an input pipeline
that cannot read or decode its data (input-pipeline-failure) and a Python dependency that is
missing or incompatible (python-dependency-error).

The pages' roles, sections, real cited examples and counter-examples are checked with every new
page's in tests/test_new_failure_pages.py. Here: each family holds what its emitters can print
(TensorFlow's record reader and tf.data's glob assertion in every mode, TFDS, Hugging Face
`datasets` before and after its exceptions module, PyTorch's DataLoader re-raise of any class, a
worker's exit status and its timeout; CPython's import errors in each release, pip, uv, conda and
Poetry's unresolvable requirements, setuptools' and importlib's start-up checks, NumPy's and the
loader's binary checks, a removed API) and keeps out what only shares words with it (a warning that
skipped the record, other tools' glob warnings, the end of an iterator, a worker killed by a
signal; a circular import, a backend probe, an optional extension's warning, pip's post-install
notice). The verification workflows confirm on their own lines, naming what the line quotes, and
refute a workload that logged without one. The diagnosis names the data or the dependency over the
trainer's uncaught exception, the host's memory, disk or descriptor limit over the worker error it
caused, libtpu's page over its own import errors, and an unreachable index over the requirement
pip then could not find.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.wiki import Wiki
from tests.conftest import assert_no_signature_matches
from tests.test_new_failure_pages import NODES, WIKI, _diagnose, _line, _verify, matched

PAGES = ("input-pipeline-failure", "python-dependency-error")
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
        "FileNotFoundError: No files found matching pattern: /tmp/gcsfuse/array-record/c4/en/3.0.1/c4-train.array_record*",
        "FileNotFoundError: No parquet files found for HuggingFace dataset pattern: hf://datasets/allenai/c4/en/**/*.parquet. Please make sure the dataset contains parquet files.",
        "TimeoutError: Failed to load data after 10 retry attempts.",
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
        # a glob on a directory that is gone, an eager iterator on a missing file, a download changed
        "W tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES failed at matching_files_op.cc:49 : Not found: /data/c4/train; No such file or directory",
        "tensorflow.python.framework.errors_impl.NotFoundError: /data/c4/train-00001.tfrecord; No such file or directory [Op:IteratorGetNext]",
        "tensorflow_datasets.core.download.download_manager.NonMatchingChecksumError: Artifact https://storage.googleapis.com/x/train.zip, downloaded to /root/tensorflow_datasets/downloads/x.zip.tmp, has wrong checksum.",
        "datasets.utils.info_utils.NonMatchingSplitsSizesError: [{'expected': SplitInfo(name='train', num_bytes=1000), 'recorded': SplitInfo(name='train', num_bytes=990)}]",
        # a record the parser cannot decode
        "INVALID_ARGUMENT: Feature: text (data type: string) is required but could not be found.",
        "InvalidArgumentError: Unknown image file format. One of JPEG, PNG, GIF, BMP required. [Op:DecodeImage]",
        "INVALID_ARGUMENT: Invalid JPEG data or crop window, data size 34816",
        # Grain's workers in the pool of older releases and in process prefetch; ArrayRecord's checks
        "E0601 08:02:11.000000 140213 grain_pool.py:283] Error occurred in child process with worker_index: 3",
        "ValueError: Grain worker 3 failed with the following error:",
        "RuntimeError: Grain worker process 5 was terminated unexpectedly with exit code 1. Search the logs above for the source of the crash.",
        "RuntimeError: Worker process was terminated unexpectedly with exit code 1. Search the logs above for the source of the crash.",
        "ValueError: Paths sequence can not be of 0 length",
        "INVALID_ARGUMENT: ArrayRecord file should be at least 64KB big",
        "Failed to read RiegeliPostscript; Invalid chunk header",
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
        # MaxText retrying a batch; a performance notice Grain survives; a worker killed by a signal
        "Failed to get next data batch due to UNAVAILABLE: Error executing an HTTP request: libcurl code 6, retrying",
        "E0601 08:00:03.000000 140213 array_record_data_source.py:219] File /data/c4-train.array_record-00001-of-01024 was created with group size 65536. Grain requires group size 1 for good performance. Please re-generate your ArrayRecord files with 'group_size:1'.",
        "RuntimeError: Grain worker process 2 was terminated unexpectedly with exit code -9. Search the logs above for the source of the crash.",
        # a writer's missing output directory, a checkpoint's missing file
        "tensorflow.python.framework.errors_impl.NotFoundError: /out/train-00000.tfrecord; No such file or directory",
        "tensorflow.python.framework.errors_impl.NotFoundError: gs://ckpt/model.ckpt-1000.index; No such file or directory",
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
            "W tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES failed at matching_files_op.cc:49 : Not found: /data/c4/train; No such file or directory",
            "/data/c4/train",
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


# ---- python-dependency-error ----------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        # CPython's import errors in each release, a traceback flattened onto one line
        "ImportError: No module named tensorflow_datasets",
        "ModuleNotFoundError: No module named 'orbax.checkpoint'",
        "  File \"/app/train.py\", line 3, in <module> import optax ModuleNotFoundError: No module named 'optax'",
        "ImportError: cannot import name 'shard_map' from 'jax.experimental' (unknown location)",
        "ImportError: cannot import name 'maps'",
        # every installer's unresolvable requirement
        "ERROR: Could not find a version that satisfies the requirement jax[tpu]==0.4.99 (from versions: 0.4.30, 0.4.31)",
        "No matching distribution found for tensorflow-text==2.16.1",
        "pip._vendor.resolvelib.resolvers.ResolutionImpossible: [RequirementInformation(requirement=SpecifierRequirement('jax==0.4.30'), parent=None)]",
        "  × No solution found when resolving dependencies for split (python_full_version >= '3.10'):",
        "PackagesNotFoundError: The following packages are not available from current channels:",
        "SolverProblemError: Because maxtext depends on jax (0.4.99) which doesn't match any versions, version solving failed.",
        "ERROR: Could not build wheels for sentencepiece, which is required to install pyproject.toml-based projects",
        "ERROR: Failed to build installable wheels for some pyproject.toml based projects (jaxlib)",
        "ERROR: Package 'maxtext' requires a different Python: 3.9.18 not in '>=3.10'",
        "ResolvePackageNotFound:",
        # start-up checks of installed distributions
        "pkg_resources.ContextualVersionConflict: (protobuf 5.27.0 (/usr/local/lib/python3.10/site-packages), Requirement.parse('protobuf<5'), {'tensorflow'})",
        "importlib.metadata.PackageNotFoundError: No package metadata was found for jaxlib",
        "ImportError: tokenizers>=0.14,<0.15 is required for a normal functioning of this module, but found tokenizers==0.15.0.",
        # binaries built for others
        "ValueError: numpy.ufunc size changed, may indicate binary incompatibility. Expected 216 from C header, got 192 from PyObject",
        "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /usr/local/lib/python3.10/site-packages/sentencepiece/_sentencepiece.so)",
        "OSError: /usr/local/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
        "OSError: libcudart.so.12: cannot open shared object file: No such file or directory",
        "ImportError: numpy.core._multiarray_umath failed to import",
        "AttributeError: _ARRAY_API not found",
        # a removed API
        "AttributeError: module 'numpy' has no attribute 'float'",
    ],
)
def test_every_rendering_of_a_dependency_failure_matches(line: str) -> None:
    assert "python-dependency-error" in matched(line), line


@pytest.mark.parametrize(
    "line",
    [
        # the program's own import cycle, a backend probe, an optional extension's warning
        "ImportError: cannot import name 'Trainer' from partially initialized module 'app.trainer' (most likely due to a circular import) (/app/app/trainer.py)",
        "AttributeError: partially initialized module 'jax' has no attribute 'numpy' (most likely due to a circular import)",
        "I0601 08:00:01.000000 140213 xla_bridge.py:889] Unable to initialize backend 'cuda': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'",
        "UserWarning: Failed to load image Python extension: /usr/local/lib/python3.10/site-packages/torchvision/image.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        # NumPy 2's banner and torch's warning when torch survives it
        "A module that was compiled using NumPy 1.x cannot be run in",
        "/usr/local/lib/python3.10/site-packages/torch/nn/modules/transformer.py:20: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at ../torch/csrc/utils/tensor_numpy.cpp:84.)",
        # pip succeeding, or warning after it succeeded
        "Successfully installed jax-0.4.30 jaxlib-0.4.30 libtpu-0.0.2",
        "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
        "Requirement already satisfied: optax in /usr/local/lib/python3.10/site-packages (0.2.3)",
        "  ERROR: Failed building wheel for sentencepiece",
        "ERROR: Ignored the following versions that require a different python version: 0.4.31 Requires-Python >=3.10",
    ],
)
def test_a_look_alike_is_not_a_dependency_failure(line: str) -> None:
    assert "python-dependency-error" not in matched(line), line


def test_an_import_error_yields_to_no_catch_all_and_libtpu_keeps_its_own() -> None:
    assert matched("ModuleNotFoundError: No module named 'optax'") == {"python-dependency-error"}
    assert matched("ModuleNotFoundError: No module named 'libtpu'") == {
        "libtpu-version-mismatch",
        "python-dependency-error",
    }


@pytest.mark.parametrize(
    "text, named",
    [
        ("ModuleNotFoundError: No module named 'orbax'", "orbax"),
        ("ERROR: No matching distribution found for jaxlib==0.4.14", "jaxlib==0.4.14"),
        ("AttributeError: module 'jax' has no attribute 'tree_multimap'", "tree_multimap"),
    ],
)
def test_a_dependency_line_is_confirmed_with_what_it_names(
    tmp_path: Path, text: str, named: str
) -> None:
    run = _verify(
        tmp_path, "verify-python-dependency-error", "llm-pretrain", [_line(1, 0, POD, text)]
    )
    assert run["verdict"] == "confirmed", run
    assert named in run["outputs"]["named"]
    healthy = [_line(1, 0, POD, "completed step: 4, loss: 9.610")]
    refuted = _verify(tmp_path, "verify-python-dependency-error", "llm-pretrain", healthy)
    assert refuted["verdict"] == "refuted", refuted


def test_an_import_error_is_the_root_over_its_traceback(tmp_path: Path) -> None:
    entries = _record(
        1,
        0,
        [
            "Traceback (most recent call last):",
            '  File "/app/MaxText/train.py", line 31, in <module>',
            "    from jax.experimental import maps",
            "ImportError: cannot import name 'maps' from 'jax.experimental' (/usr/local/lib/python3.10/site-packages/jax/experimental/__init__.py)",
        ],
    )
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "python-dependency-error", findings["summary"]


def test_libtpu_missing_is_named_by_its_own_page(tmp_path: Path) -> None:
    entries = _record(1, 0, ["ModuleNotFoundError: No module named 'libtpu'"])
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "libtpu-version-mismatch", findings["summary"]


def test_an_index_out_of_reach_is_named_over_the_unresolved_requirement(tmp_path: Path) -> None:
    """pip retries, cannot connect, then reports the requirement unsatisfiable (`from versions:
    none`): the network, not the pins, is why."""
    entries = _record(
        1,
        0,
        [
            "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f1c>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/optax/",
            "ERROR: Could not find a version that satisfies the requirement optax==0.2.3 (from versions: none)",
            "ERROR: No matching distribution found for optax==0.2.3",
        ],
    )
    findings = _diagnose(tmp_path, "llm-pretrain", entries)
    assert findings["root_cause"]["symptom"] == "dependency-unreachable", findings["summary"]
