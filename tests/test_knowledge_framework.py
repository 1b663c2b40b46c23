"""Guards for the framework-side symptom pages (TAXONOMY sections A, B, C, D and G).

Each page must keep its taxonomy role, its examples must match its own signatures, its
counter-examples must not, and no root page may claim a cascade line or a benign line —
otherwise the diagnosis would blame a healthy host. The variant lines below are written for
these tests (not quoted from logs): they change what changes between releases and hosts
(exception class, glog header, sizes, pids, task numbers) to check that signatures generalise.
"""

from __future__ import annotations

from functools import cache, lru_cache

import pytest
import re2

from mlwiki.wiki import Symptom, load_wiki
from tests.conftest import WIKI_ROOT

# id -> role, as TAXONOMY.md fixes them for these sections.
ROLES = {
    "hbm-oom-compile": "root",
    "vmem-oom-compile": "root",
    "hbm-oom-runtime": "root",
    "hbm-oom-program-load": "root",
    "executable-input-mismatch": "root",
    "xla-compile-error": "root",
    "nan-inf-loss": "root",
    "host-oom-killed": "root",
    "process-segfault": "root",
    "process-abort": "root",
    "tpu-hardware-fault": "root",
    "tpu-already-in-use": "root",
    "tpu-vfio-busy": "root",
    "tpu-device-unavailable": "root",
    "libtpu-version-mismatch": "root",
    "tpu-worker-topology-misconfig": "root",
    "tpu-backend-init-stuck": "symptom",
    "coordinator-connect-timeout": "symptom",
    "coordination-heartbeat-cascade": "cascade",
    "coordination-leader-lost": "cascade",
    "task-restart-incarnation-mismatch": "cascade",
    "barrier-timeout": "symptom",
    "shutdown-barrier-failed": "cascade",
    "megascale-hang-bad-chip": "root",
    "megascale-hang-network": "root",
    "megascale-hang-hlo-mismatch": "root",
    "megascale-hang-undetermined": "symptom",
    "slice-failure": "root",
    "ici-link-failure": "root",
    "pathways-slice-lost": "symptom",
    "pathways-proxy-unreachable": "root",
    "pathways-proxy-session-terminated": "cascade",
    "pathways-config-error": "root",
}

SECTIONS = (
    "## What it is",
    "## Log signature",
    "## Where it shows up",
    "## How to verify",
    "## Cause or cascade",
    "## Remedy",
    "## Sources",
)

# Lines the reference lists as benign or healthy: no root page may match them.
BENIGN = (
    "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
    "I0808 00:12:50.101010   31287 tpu_hal.cc:200] tpunetd either not supported or disabled, "
    "falling back to Slice Builder",
    "WARNING:jax._src.distributed:The JAX preemption service is disabled.",
    "I1101 04:51:41.967764 1 proxy_server.cc:125] IFRT proxy server started with status OK",
    "I1101 04:50:41.967764 1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
    "I1101 04:52:41.967764 1 multi_job_allocator.cc:1063] *** 2/2 Pathways Slices Now Ready ***",
    "completed step: 4, seconds: 11.645, TFLOP/s/device: 194.526, Tokens/s/device: 4221.032, "
    "total_weights: 1572864, loss: 9.610",
    "I0926 17:20:01.000000  157988 coordination_service.cc:600] Waiting for 3/4 tasks to connect.",
    "*** SIGTERM received by PID 714292 (TID 714292) on cpu 80 from PID 711980; stack trace: ***",
    "E0926 17:26:33.000000  157988 process_state.cc:771] RAW: Raising signal 15 with default behavior",
    "*** Check failure stack trace: ***",
)

# Survivors' lines in other shapes than the pages' examples: still no root page may match.
CASCADE_VARIANTS = (
    "F0613 12:34:56.789012    1234 client.h:77] Terminating process because the JAX distributed "
    "service detected fatal errors. This most likely indicates that another task died; see the "
    "other task logs for more details.",
    "F0511 07:38:29 client.h:77] Terminating process because the JAX distributed service detected "
    "fatal errors ... UNAVAILABLE: Failed to send RPC to coordination service ...",
    "2025-06-13 12:34:56.789 F0613 12:34:56.789012 98765 client.h:80] Terminating process because "
    "the JAX distributed service detected fatal errors. absl::Status: UNAVAILABLE: The following "
    "tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:17",
    "E0613 12:34:56.789012  4321 coordination_service_agent.cc:350] Polled an error from "
    "coordination service (this can be an error from this or another task).",
    "Megascale detects a hang that is likely caused by running different modules on different "
    "devices. Please confirm that all workers is running the exact same program.",
    "E0101 00:00:00.000000 1 rpc_helper.cc:60] Connection to IFRT proxy server was terminated: "
    "UNAVAILABLE: Socket closed",
)

# Real-looking variants each page must still recognise: (page id, line).
VARIANTS = (
    (
        "hbm-oom-compile",
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out "
        "of memory in memory space hbm. Used 95.12G of 95.74G hbm. Exceeded hbm capacity by 1.5G.",
    ),
    (
        "hbm-oom-runtime",
        "jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
        "Attempting to allocate 1.5GiB. That was not possible. There are 512.00MiB free.",
    ),
    (
        "hbm-oom-runtime",
        "XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
        "allocate 123456 bytes. That was not possible. There are 1024 bytes free.",
    ),
    (
        "hbm-oom-program-load",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program "
        "'jit_train_step': Attempting to reserve 12.25G at the bottom of memory. That was not "
        "possible.",
    ),
    (
        "process-abort",
        "F0613 12:34:56.789012    1234 tpu_program.cc:123] Check failed: status.ok() INTERNAL",
    ),
    (
        "process-abort",
        "F0613 12:34:56.789012 1234 hlo_instruction.cc:77] Invalid operand shape for all-reduce",
    ),
    (
        "process-abort",
        "*** SIGABRT received by PID 77 (TID 78) on cpu 3 from PID 77; stack trace: ***",
    ),
    (
        "process-segfault",
        "*** SIGSEGV (@0x0), see go/stacktraces#s15 received by PID 4242 (TID 4300) on cpu 12; "
        "stack trace: ***",
    ),
    (
        "host-oom-killed",
        "Memory cgroup out of memory: Killed process 98765 (python) total-vm:120000000kB, "
        "anon-rss:90000000kB, file-rss:0kB, shmem-rss:0kB",
    ),
    (
        "tpu-vfio-busy",
        "jax.errors.JaxRuntimeError: UNKNOWN: TPU initialization failed: open(/dev/vfio/3): Device "
        "or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/3",
    ),
    (
        "tpu-already-in-use",
        "jaxlib._jax.XlaRuntimeError: ABORTED: The TPU is already in use by process with pid 12.",
    ),
    (
        "coordination-heartbeat-cascade",
        "Task /job:jax_worker/replica:0/task:31 heartbeat timeout. This indicates that the remote "
        "task has failed, got preempted, or crashed unexpectedly.",
    ),
    (
        "coordinator-connect-timeout",
        "jax.errors.JaxRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: PjRT_Client_Connect."
        " This usually happens because a task triggered the barrier too early or too slowly.",
    ),
    (
        "barrier-timeout",
        "jaxlib._jax.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "sync_global_devices_3. Timed out task names:\n/job:jax_worker/replica:0/task:7",
    ),
    (
        "megascale-hang-bad-chip",
        "Megascale detects a hang that is likely caused by bad TPU tensor core chips on the "
        "following hosts.",
    ),
    (
        "slice-failure",
        "E0101 01:02:03.000004     77 tpunetd_client.cc:311] Detected failure "
        "SLICE_FAILURE_HOST_UNREACHABLE in session 0123abcd; Start failure handling",
    ),
    ("nan-inf-loss", "completed step: 812, seconds: 11.6, TFLOP/s/device: 190.2, loss: nan"),
)

# Named groups carry what a cascade points to; the named value must be extracted.
NAMED = (
    (
        "coordination-heartbeat-cascade",
        "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX "
        "distributed service detected fatal errors. absl::Status: UNAVAILABLE: The following "
        "tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:3\n",
        "task",
        "3",
    ),
    (
        "coordination-heartbeat-cascade",
        "UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n"
        "/job:jax_worker/replica:0/task:12\nThe tasks have crashed.",
        "task",
        "12",
    ),
    (
        "barrier-timeout",
        "DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: multihost_broadcast_sync0. Timed out "
        "task names:\n/job:jax_worker/replica:0/task:3\n/job:jax_worker/replica:0/task:0",
        "task",
        "3",
    ),
    (
        "megascale-hang-bad-chip",
        "  The host that have bad TPUs are: gke-tpu-7c2a1f3e-w2kq",
        "host",
        "gke-tpu-7c2a1f3e-w2kq",
    ),
    (
        "slice-failure",
        "Session master detected TPU session error from worker llm-pretrain-slice-job-1-3."
        "headless-svc:8471.",
        "pod",
        "llm-pretrain-slice-job-1-3",
    ),
)


@lru_cache(maxsize=1)
def _symptoms() -> dict[str, Symptom]:
    return load_wiki(WIKI_ROOT).symptoms


@cache
def _compiled(symptom_id: str) -> tuple[re2._Regexp, ...]:
    return tuple(re2.compile(s.pattern) for s in _symptoms()[symptom_id].signatures)


def _matches(symptom_id: str, line: str) -> bool:
    return any(pattern.search(line) for pattern in _compiled(symptom_id))


def _root_ids() -> list[str]:
    return [sid for sid, symptom in _symptoms().items() if symptom.role == "root"]


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_page_exists_with_taxonomy_role_and_sections(symptom_id: str) -> None:
    symptom = _symptoms().get(symptom_id)
    assert symptom is not None, f"missing page _wiki/symptoms/{symptom_id}.md"
    assert symptom.role == ROLES[symptom_id]
    missing = [heading for heading in SECTIONS if heading not in symptom.page.body]
    assert not missing, f"{symptom_id}: missing sections {missing}"
    assert symptom.workflow == f"verify-{symptom_id}"


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_workflow_points_back_and_uses_known_read_only_actions(symptom_id: str) -> None:
    wiki = load_wiki(WIKI_ROOT)
    workflow = wiki.workflows[f"verify-{symptom_id}"]
    assert workflow.symptom == symptom_id
    for step in workflow.steps:
        action = wiki.actions[step["uses"]]
        assert not action.requires_approval, f"{workflow.id} runs mutating {action.id}"
    assert workflow.data["conclusions"][-1].get("if") is None
    for remedy in _symptoms()[symptom_id].remedies:
        if "action" in remedy:
            assert wiki.actions[remedy["action"]].requires_approval


@pytest.mark.parametrize("symptom_id", sorted(ROLES))
def test_examples_match_and_counter_examples_do_not(symptom_id: str) -> None:
    symptom = _symptoms()[symptom_id]
    assert symptom.examples
    for example in symptom.examples:
        assert example.source.startswith("http"), example.line
        assert _matches(symptom_id, example.line), (
            f"{symptom_id} misses its example {example.line!r}"
        )
    for counter in symptom.counter_examples:
        assert not _matches(symptom_id, counter.line), f"{symptom_id} matches {counter.line!r}"


@pytest.mark.parametrize("symptom_id", sorted(s for s, r in ROLES.items() if r == "cascade"))
def test_no_root_page_matches_a_cascade_example(symptom_id: str) -> None:
    for example in _symptoms()[symptom_id].examples:
        blamed = [root for root in _root_ids() if _matches(root, example.line)]
        assert not blamed, f"root pages {blamed} match cascade line {example.line!r}"


@pytest.mark.parametrize("line", BENIGN + CASCADE_VARIANTS)
def test_no_root_page_matches_benign_or_cascade_lines(line: str) -> None:
    blamed = [root for root in _root_ids() if _matches(root, line)]
    assert not blamed, f"root pages {blamed} match {line!r}"


@pytest.mark.parametrize("line", CASCADE_VARIANTS)
def test_cascade_variants_are_recognised_but_not_as_root(line: str) -> None:
    claimed = [sid for sid, role in ROLES.items() if role != "root" and _matches(sid, line)]
    assert claimed, f"no cascade or symptom page recognises {line!r}"


@pytest.mark.parametrize(("symptom_id", "line"), VARIANTS)
def test_signatures_generalise_to_variants(symptom_id: str, line: str) -> None:
    assert _matches(symptom_id, line)


@pytest.mark.parametrize(("symptom_id", "line", "group", "value"), NAMED)
def test_named_groups_extract_what_the_line_points_to(
    symptom_id: str, line: str, group: str, value: str
) -> None:
    found = [
        m.group(group)
        for p in _compiled(symptom_id)
        if group in p.groupindex
        for m in [p.search(line)]
        if m
    ]
    assert value in found, f"{symptom_id}: {group} not extracted from {line!r} (got {found})"
