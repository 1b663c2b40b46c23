"""Deterministic generator of the round-20 incidents (`python make_incidents.py [OUT_DIR]`).

A failure mode the wiki had no page for, a Python dependency that is missing or incompatible,
written here from scratch as Cloud Logging bundles in the shape of the round-13 set (whose bundle
writer this reuses): a multi-host JAX JobSet whose rebuilt image upgraded JAX past an API the
trainer imports, so every task dies at the import and the JobSet restarts and fails; a fine-tuning
Job whose entrypoint runs `pip install` with a pin the index does not have, on every attempt until
the backoff limit; and a data-preprocessing Job whose image moved to NumPy 2 under an extension
built for NumPy 1, then crash-loops. Wording follows the real messages cited on the page.
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
    _backoff,
    _diagnosed,
    _jobset_policy,
    _node,
    _retried_until_backoff_limit,
    _started,
    _suffix,
)


def removed_jax_api(out: Path) -> None:
    b = Bundle("01-removed-jax-api", 2001)
    workload = "llm-pretrain"
    image = "us-docker.pkg.dev/ml-platform-prod/train/maxtext:2026.06-rebuilt"
    nodes = [_node(b.rng, "tpu-v5p-pool") for _ in range(4)]
    pods = [f"{workload}-slice-job-0-{i}-{_suffix(b.rng)}" for i in range(4)]
    for pod, node in zip(pods, nodes):
        _started(b, T0, pod, node, "jax", image)
    t = T0 + timedelta(seconds=9)
    for i, (pod, node) in enumerate(zip(pods, nodes)):
        b.lines(
            t + timedelta(milliseconds=37 * i),
            pod,
            node,
            [
                "Traceback (most recent call last):",
                '  File "/app/MaxText/train.py", line 38, in <module>',
                "    from jax.experimental.pjit import with_sharding_constraint",
                "ImportError: cannot import name 'with_sharding_constraint' from 'jax.experimental.pjit' (/usr/local/lib/python3.10/site-packages/jax/experimental/pjit.py)",
            ],
            container="jax",
        )
    _jobset_policy(b, t + timedelta(seconds=12), workload)
    t += timedelta(minutes=2)
    for i, (pod, node) in enumerate(zip(pods, nodes)):
        b.lines(
            t + timedelta(milliseconds=41 * i),
            pod,
            node,
            [
                "Traceback (most recent call last):",
                '  File "/app/MaxText/train.py", line 38, in <module>',
                "    from jax.experimental.pjit import with_sharding_constraint",
                "ImportError: cannot import name 'with_sharding_constraint' from 'jax.experimental.pjit' (/usr/local/lib/python3.10/site-packages/jax/experimental/pjit.py)",
            ],
            container="jax",
        )
    _jobset_policy(b, t + timedelta(seconds=12), workload, action="Fail")
    b.write(
        out,
        {
            "workload": workload,
            "status": "diagnosed",
            "root_cause": "python-dependency-error",
            "culprit_hosts": [],
            "failures": [{"kind": "crash", "symptom": "python-dependency-error", "host": None}],
            "why": "The image was rebuilt without a lock file and picked up a JAX release that no longer has jax.experimental.pjit.with_sharding_constraint; every task dies at the same import within seconds of start, the JobSet restarts, fails the same way and gives up. The environment, not a host, is at fault: no culprit host.",
        },
    )


def pip_pin_not_found(out: Path) -> None:
    b = Bundle("02-entrypoint-pip-pin", 2002)
    workload, node = "gemma-sft", _node(b.rng, "tpu-v5e-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "trainer", "us-docker.pkg.dev/ml-platform-prod/train/base:py310")
    _retried_until_backoff_limit(
        b,
        T0 + timedelta(seconds=14),
        workload,
        pod,
        node,
        "trainer",
        [
            "Collecting jax[tpu]==0.4.35",
            "  Downloading jax-0.4.35-py3-none-any.whl (2.0 MB)",
            "Collecting flax==0.10.99",
            "ERROR: Could not find a version that satisfies the requirement flax==0.10.99 (from versions: 0.10.0, 0.10.1, 0.10.2)",
        ],
        "ERROR: No matching distribution found for flax==0.10.99",
    )
    _diagnosed(
        b,
        out,
        workload,
        "python-dependency-error",
        node,
        "crash",
        "The entrypoint runs pip install with pins the index cannot satisfy (a flax release that does not exist); pip gives up before the trainer starts, on each of the Job's attempts, until the backoff limit. The pins, not the cluster or the index, are at fault: pip reached the index and lists the releases it has.",
    )


def numpy_abi(out: Path) -> None:
    b = Bundle("03-numpy2-extension", 2003)
    workload, node = "tokenize-corpus", _node(b.rng, "cpu-pool")
    pod = f"{workload}-{_suffix(b.rng)}"
    _started(b, T0, pod, node, "tokenize", "us-docker.pkg.dev/ml-platform-prod/data/tokenize:3")
    t = T0 + timedelta(seconds=6)
    for attempt in range(3):
        b.lines(
            t,
            pod,
            node,
            [
                "A module that was compiled using NumPy 1.x cannot be run in",
                "NumPy 2.1.3 as it may crash. To support both 1.x and 2.x",
                "versions of NumPy, modules must be compiled with NumPy 2.0.",
                "Traceback (most recent call last):",
                '  File "/app/tokenize.py", line 4, in <module>',
                "    import sentencepiece_fast",
                "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject",
            ],
            container="tokenize",
            labels={"job-name": workload},
        )
        t = _backoff(b, t + timedelta(seconds=2), pod, node, "tokenize", attempt + 1)
    _diagnosed(
        b,
        out,
        workload,
        "python-dependency-error",
        node,
        "crash",
        "The image moved to NumPy 2 while a compiled tokenizer extension was built against NumPy 1; the import fails on NumPy's ABI check at every start and the container crash-loops. Rebuilding the extension or pinning numpy<2 is the fix.",
    )


BUILDERS = [removed_jax_api, pip_pin_not_found, numpy_abi]


def main(out: Path) -> None:
    for build in BUILDERS:
        build(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
