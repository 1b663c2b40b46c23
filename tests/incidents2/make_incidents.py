"""Generate the held-out incident set `tests/incidents2/` (red team, round 2).

Each incident is a folder with a log bundle (`logs.json` as `gcloud logging read --format=json`
prints it, newest first, or `logs.jsonl`) and `expected.json`: what a senior TPU engineer
concludes, with a `why`. Labels were written from the incident's story, before looking at what
`mlwiki troubleshoot` says. Deterministic: every incident has its own seed.

Run from the repository root: `python -m tests.incidents2.make_incidents`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from tests.incidents2.kit import Incident, Pod, absl
from tests.incidents2.story import (
    TRAIN_FRAMES,
    abort,
    complete_jobset,
    fail_jobset,
    heartbeat_cascade,
    jax_startup,
    kv_step,
    leader_lost,
    maxtext_step,
    pipe_step,
    restart_jobset,
    sigterm,
    start_pods,
    traceback,
    train,
)

ROOT = Path(__file__).parent
Expected = dict[str, Any]


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def row(kind: str, symptom: str | None, host: str | None) -> dict[str, Any]:
    return {"kind": kind, "symptom": symptom, "host": host}


def diagnosed(root: str, culprits: list[str], rows: list[dict[str, Any]], why: str) -> Expected:
    return {
        "status": "diagnosed",
        "root_cause": root,
        "culprit_hosts": culprits,
        "failures": rows,
        "why": why,
    }


def xpk(
    inc: Incident, pool: str, slices: int, hosts: int, attempt: int = 0
) -> tuple[list[list[str]], list[Pod]]:
    nodes = inc.slices(pool, slices, hosts)
    return nodes, inc.xpk_pods(nodes, attempt)


def relaunch(inc: Incident, nodes: list[list[str]], attempt: int) -> list[Pod]:
    return inc.xpk_pods(nodes, attempt)


IMAGE = "us-docker.pkg.dev/acme-ml/train/maxtext-runner:2025-04-02"


# --- Pathways -------------------------------------------------------------------------------


def pathways_pods(
    inc: Incident, slices: int, hosts: int, attempt: int
) -> tuple[Pod, list[Pod], str, list[list[str]]]:
    cpu = inc.pool_nodes("cpu-np", 1)[0]
    head = Pod(
        f"{inc.workload}-pathways-head-0-0-{inc.suffix(5)}",
        cpu,
        inc.workload,
        "pathways-head",
        0,
        0,
        attempt,
        None,
        ("jax-client", "pathways-rm", "pathways-proxy"),
    )
    nodes = inc.slices("tpu-v5p-16", slices, hosts)
    workers = []
    for j, slice_nodes in enumerate(nodes):
        for c, node in enumerate(slice_nodes):
            name = f"{inc.workload}-worker-{j}-{c}-{inc.suffix(5)}"
            workers.append(
                Pod(name, node, inc.workload, "worker", j, c, attempt, None, ("pathways-worker",))
            )
    return head, workers, cpu, nodes


def pathways_up(inc: Incident, head: Pod, workers: list[Pod], t: datetime, slices: int) -> None:
    start_pods(
        inc, [head, *workers], t, "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest"
    )
    inc.log(
        head,
        t + timedelta(seconds=8),
        absl(
            "I",
            t + timedelta(seconds=8),
            1,
            "server_lib.cc:1473",
            "Pathways Server serving on [::]:29001",
        ),
        container="pathways-rm",
    )
    for index, worker in enumerate(workers):
        w = t + timedelta(seconds=14, milliseconds=60 * index)
        inc.log(
            worker,
            w,
            absl("I", w, 1, "server_lib.cc:1473", "Pathways Server serving on [::]:29005"),
        )
    ready = t + timedelta(seconds=41)
    inc.log(
        head,
        ready,
        absl(
            "I",
            ready,
            1,
            "multi_job_allocator.cc:1063",
            f"*** {slices}/{slices} Pathways Slices Now Ready ***",
        ),
        container="pathways-rm",
    )
    proxy = t + timedelta(seconds=44)
    inc.log(
        head,
        proxy,
        absl("I", proxy, 1, "proxy_server.cc:125", "IFRT proxy server started with status OK"),
        container="pathways-proxy",
    )


def pathways_proxy_unreachable() -> tuple[Incident, Expected]:
    inc = Incident(
        "pathways-proxy-dns",
        "pw-gemma-27b",
        "ml-infra-sandbox-31",
        "pw-v5p-west",
        "us-west4-a",
        utc(2025, 4, 15, 4, 50),
        101,
        "underscores",
    )
    head, workers, cpu, _ = pathways_pods(inc, 2, 2, 0)
    t = inc.start
    pathways_up(inc, head, workers, t, 2)
    c = t + timedelta(seconds=50)
    inc.log(
        head,
        c,
        "Starting Gemma 27B fine-tuning with JAX_BACKEND_TARGET=grpc://pw-gemma-27b-proxy-0-0.pw-gemma-27b:29000",
        stream="stdout",
        container="jax-client",
    )
    err = traceback(
        [
            ("/workspace/finetune.py", 211, "<module>", "main()"),
            ("/workspace/finetune.py", 64, "main", "mesh = make_mesh(jax.devices())"),
            (
                "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py",
                1163,
                "devices",
                "return get_backend(backend).devices()",
            ),
            (
                "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py",
                1008,
                "_init_backend",
                "backend = registration.factory()",
            ),
        ],
        "RuntimeError: Unable to initialize backend 'proxy': UNAVAILABLE: Unable to establish connection to ifrt_proxy server, please check provided address 'pw-gemma-27b-proxy-0-0.pw-gemma-27b:29000'; detailed error: DNS resolution failed for pw-gemma-27b-proxy-0-0.pw-gemma-27b:29000: C-ares status is not ARES_SUCCESS qtype=A name=pw-gemma-27b-proxy-0-0.pw-gemma-27b is_balancer=0: Domain name not found (set JAX_PLATFORMS='' to automatically choose an available backend)",
    )
    inc.log(head, c + timedelta(seconds=20, milliseconds=330), err, container="jax-client")
    fail_jobset(inc, head, c + timedelta(seconds=23), 1)
    sigterm(inc, workers, c + timedelta(seconds=24))
    for k in ("pathways-rm", "pathways-proxy"):
        inc.pod_event(
            head.name, c + timedelta(seconds=24), "Killing", f"Stopping container {k}", host=cpu
        )
    return inc, diagnosed(
        "pathways-proxy-unreachable",
        [cpu],
        [row("crash", "pathways-proxy-unreachable", cpu)],
        "The JAX client in the head pod points JAX_BACKEND_TARGET at a service name that does not exist "
        "(the proxy itself reports 'IFRT proxy server started with status OK'), so backend init fails "
        "with 'Unable to establish connection to ifrt_proxy server … DNS resolution failed' and exit 1 "
        "fails the JobSet. The only failing process is the client on the head's CPU node, so that node "
        "is named (the node itself is healthy; the fix is the address).",
    )


def pathways_slice_lost() -> tuple[Incident, Expected]:
    inc = Incident(
        "pathways-slice-lost-host-error",
        "pw-llama-70b",
        "ml-infra-prod-7",
        "pw-v5p-central",
        "us-central1-b",
        utc(2025, 4, 21, 13, 0),
        102,
        "both",
    )
    head, workers, cpu, nodes = pathways_pods(inc, 2, 2, 0)
    t = inc.start
    pathways_up(inc, head, workers, t, 2)
    c = t + timedelta(seconds=60)
    inc.log(
        head,
        c,
        "UNIMPLEMENTED: GetTopologyForDevices is not supported for the IFRT proxy client.",
        container="jax-client",
        severity="WARNING",
    )
    inc.log(
        head,
        c + timedelta(seconds=2),
        "Restored checkpoint step 8400 from gs://acme-pw-ckpt/llama70b/run-17",
        stream="stdout",
        container="jax-client",
    )
    end = train(inc, [head], c + timedelta(seconds=70), 8401, 30, 9.6, 1.912, pipe_step)
    victim = workers[3]
    dead = end + timedelta(seconds=4)
    inc.gce_audit(
        victim.node, dead, "compute.instances.hostError", "Instance terminated by Compute Engine."
    )
    inc.node_event(
        victim.node,
        dead + timedelta(seconds=41),
        "NodeNotReady",
        f"Node {victim.node} status is now: NodeNotReady",
        component="node-controller",
    )
    rm = dead + timedelta(seconds=12)
    inc.log(
        head,
        rm,
        absl(
            "E",
            rm,
            57,
            "resource_manager.cc:882",
            f"Lost connection to worker {victim.name}.pw-llama-70b:29005 (slice 1, task 1): UNAVAILABLE: Socket closed",
        ),
        container="pathways-rm",
    )
    inc.log(
        head,
        rm + timedelta(milliseconds=15),
        absl(
            "W",
            rm,
            57,
            "multi_job_allocator.cc:1311",
            "Slice 1 is no longer healthy; marking 1/2 Pathways Slices unavailable",
        ),
        container="pathways-rm",
    )
    client = rm + timedelta(seconds=3)
    inc.log(
        head,
        client,
        traceback(
            [
                ("/workspace/train.py", 402, "<module>", "trainer.run()"),
                (
                    "/workspace/trainer.py",
                    188,
                    "run",
                    "metrics = jax.device_get(self.step_fn(state, batch))",
                ),
            ],
            "jax.errors.JaxRuntimeError: DATA_LOSS: Slice 1 became unavailable during execution of jit(train_step): worker pw-llama-70b-worker-1-1 stopped responding",
        ),
        container="jax-client",
    )
    inc.log(
        head,
        client + timedelta(seconds=1),
        absl(
            "E",
            client,
            3321,
            "rpc_helper.cc:56",
            "Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
        ),
        container="jax-client",
    )
    for w in workers[:3]:
        tt = rm + timedelta(milliseconds=inc.rng.randint(100, 900))
        inc.log(
            w,
            tt,
            absl(
                "W",
                tt,
                88,
                "worker_service.cc:420",
                "Peer worker pw-llama-70b-worker-1-1 unreachable; aborting in-flight collectives",
            ),
        )
    evict = dead + timedelta(minutes=5, seconds=3)
    inc.pod_event(
        victim.name,
        evict,
        "TaintManagerEviction",
        f"Marking for deletion Pod {inc.namespace}/{victim.name}",
        component="taint-eviction-controller",
    )
    restart_jobset(inc, f"{inc.workload}-worker-1", evict + timedelta(seconds=2))
    sigterm(inc, workers[:3], evict + timedelta(seconds=3))
    inc.pod_event(
        head.name,
        evict + timedelta(seconds=3),
        "Killing",
        "Stopping container jax-client",
        host=cpu,
    )
    workers2 = []
    head2 = Pod(
        f"{inc.workload}-pathways-head-0-0-{inc.suffix(5)}",
        cpu,
        inc.workload,
        "pathways-head",
        0,
        0,
        1,
        None,
        head.containers,
    )
    for j, slice_nodes in enumerate(nodes):
        for ci, node in enumerate(slice_nodes):
            workers2.append(
                Pod(
                    f"{inc.workload}-worker-{j}-{ci}-{inc.suffix(5)}",
                    node,
                    inc.workload,
                    "worker",
                    j,
                    ci,
                    1,
                    None,
                    ("pathways-worker",),
                )
            )
    back = evict + timedelta(minutes=2)
    inc.node_event(
        victim.node,
        back - timedelta(seconds=30),
        "NodeReady",
        f"Node {victim.node} status is now: NodeReady",
        kind="Normal",
    )
    pathways_up(inc, head2, workers2, back, 2)
    inc.log(
        head2,
        back + timedelta(seconds=60),
        "Restored checkpoint step 8400 from gs://acme-pw-ckpt/llama70b/run-17",
        stream="stdout",
        container="jax-client",
    )
    train(inc, [head2], back + timedelta(seconds=100), 8401, 20, 9.6, 1.905, pipe_step)
    return inc, diagnosed(
        "host-error",
        [victim.node],
        [row("crash", "host-error", victim.node)],
        "Compute Engine terminated the VM of worker slice 1 / host 1 with compute.instances.hostError; "
        "the node went NotReady, the resource manager lost that worker, the client saw DATA_LOSS "
        "(pathways-slice-lost, a symptom) and its proxy session was cut (cascade). The JobSet restarted "
        "with first failed job pw-llama-70b-worker-1 and training resumed from step 8400.",
    )


# --- Multislice hangs -----------------------------------------------------------------------


def megascale_digest(inc: Incident, pod: Pod, when: datetime, lines: list[str]) -> None:
    inc.log(
        pod,
        when,
        absl("E", when, 702, "hang_detector.cc:514", "Megascale hang detected; printing digest")
        + "\n"
        + "\n".join(lines),
    )


def multislice_network_hang() -> tuple[Incident, Expected]:
    inc = Incident(
        "multislice-dcn-hang",
        "mx-llama3-8b-ms2",
        "tpu-research-4410",
        "v5e-ms",
        "us-east5-b",
        utc(2025, 5, 2, 10, 0),
        103,
        "dots",
    )
    nodes, pods = xpk(inc, "tpu-v5e-16", 2, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc,
        pods,
        t + timedelta(seconds=20),
        "mx-llama3-8b-ms2-slice-job-0-0.mx-llama3-8b-ms2:8482",
        ["tpunetd either not supported or disabled, falling back to Slice Builder"],
    )
    end = train(inc, pods, t + timedelta(seconds=130), 0, 14, 6.2, 10.9, maxtext_step)
    a, b = nodes[0][2], nodes[1][1]
    hang = end + timedelta(minutes=5, seconds=2)
    for pod in pods:
        w = hang + timedelta(milliseconds=inc.rng.randint(0, 2000))
        inc.log(
            pod,
            w,
            absl(
                "E",
                w,
                911,
                "real_program_continuator.cc:1077",
                "Megascale hang detected: Timed out waiting for 3 graphs to complete at launch_id 1841. Already completed: 1838. StepGloballyInProgress: true. Timeout: 5m",
            ),
        )
    megascale_digest(
        inc,
        pods[0],
        hang + timedelta(seconds=9),
        [
            "Megascale detects a hang that is likely caused by a networking issue. Please examine the underlying networking stack for the following hosts.",
            "Potential cause: Networking issue",
            f"Potential culprit workers: {a}, {b}",
            "Collective: all-reduce.1187 (DCN), stuck sends: 12, stuck receives: 12",
        ],
    )
    later = hang + timedelta(minutes=5)
    for pod in pods:
        w = later + timedelta(milliseconds=inc.rng.randint(0, 2000))
        inc.log(
            pod,
            w,
            absl(
                "E",
                w,
                911,
                "real_program_continuator.cc:1077",
                "Megascale hang detected: Timed out waiting for 3 graphs to complete at launch_id 1841. Already completed: 1838. StepGloballyInProgress: true. Timeout: 10m",
            ),
        )
    return inc, diagnosed(
        "megascale-hang-network",
        [a, b],
        [row("hang", "megascale-hang-network", a)],
        "Step lines stop at step 13 on all 8 hosts; five minutes later every worker reports a Megascale "
        "hang and the coordinator's digest blames a networking issue between the two named hosts (slice 0 "
        "host 2 and slice 1 host 1). The reporter (slice 0 host 0) is not a culprit. One hang disruption; "
        "its row names the first culprit the digest lists.",
    )


def multislice_hlo_mismatch() -> tuple[Incident, Expected]:
    inc = Incident(
        "multislice-hlo-fingerprint",
        "mx-mixtral-ms",
        "tpu-research-4410",
        "v5p-ms",
        "us-east5-a",
        utc(2025, 5, 9, 18, 30),
        104,
        "underscores",
    )
    _nodes, pods = xpk(inc, "tpu-v5p-16", 2, 2)
    t = inc.start
    start_pods(inc, pods[:2], t, "us-docker.pkg.dev/acme-ml/train/mixtral:latest")
    for index, pod in enumerate(pods[2:]):
        tt = t + timedelta(seconds=1, milliseconds=40 * index)
        inc.pod_event(
            pod.name,
            tt,
            "Scheduled",
            f"Successfully assigned {inc.namespace}/{pod.name} to {pod.node}",
            component="default-scheduler",
        )
        inc.pod_event(
            pod.name,
            tt + timedelta(seconds=2),
            "Pulling",
            'Pulling image "us-docker.pkg.dev/acme-ml/train/mixtral:latest"',
            host=pod.node,
        )
        inc.pod_event(
            pod.name,
            tt + timedelta(seconds=31),
            "Pulled",
            'Successfully pulled image "us-docker.pkg.dev/acme-ml/train/mixtral:latest" in 29.114s (29.114s including waiting). Image size: 6121833410 bytes.',
            host=pod.node,
        )
        inc.pod_event(
            pod.name,
            tt + timedelta(seconds=32),
            "Started",
            "Started container jax-tpu",
            host=pod.node,
        )
    jax_startup(
        inc, pods, t + timedelta(seconds=40), "mx-mixtral-ms-slice-job-0-0.mx-mixtral-ms:8482"
    )
    for pod in pods:
        tt = t + timedelta(seconds=95, milliseconds=inc.rng.randint(0, 3000))
        inc.log(
            pod, tt, f"Compiled train_step in {40 + inc.rng.random() * 6:.1f}s", stream="stdout"
        )
    hang = t + timedelta(seconds=100 + 300)
    for pod in pods:
        w = hang + timedelta(milliseconds=inc.rng.randint(0, 1500))
        inc.log(
            pod,
            w,
            absl(
                "E",
                w,
                640,
                "real_program_continuator.cc:1077",
                "Megascale hang detected: Timed out waiting for 1 graphs to complete at launch_id 2. Already completed: 1. StepGloballyInProgress: true. Timeout: 5m",
            ),
        )
    megascale_digest(
        inc,
        pods[0],
        hang + timedelta(seconds=6),
        [
            "Megascale detects a hang that is likely caused by inconsistent HLO module compilation across workers. Please make sure every worker runs the same program built with the same flags.",
            "Potential cause: Fingerprint mismatch",
            "Program fingerprints: slice 0 -> 0x3f9a1c2e7b4d5a60, slice 1 -> 0xa02c77e1d93b4f18",
        ],
    )
    return inc, diagnosed(
        "megascale-hang-hlo-mismatch",
        [],
        [row("hang", "megascale-hang-hlo-mismatch", None)],
        "The JobSet uses a floating ':latest' tag; slice 1's nodes pulled a newer image than slice 0 had "
        "cached, so the two slices compiled different programs. The first step never completes and the "
        "Megascale digest reports inconsistent HLO / fingerprint mismatch per slice. A program mismatch "
        "is not a host fault: no culprit host, and the digest's reporter is not one.",
    )


# --- Application failures -------------------------------------------------------------------


def nan_loss() -> tuple[Incident, Expected]:
    inc = Incident(
        "nan-loss-failjob",
        "rl-ppo-v5p",
        "acme-rl-229",
        "rl-cluster",
        "europe-west4-b",
        utc(2025, 6, 3, 7, 15),
        105,
        "dots",
    )
    _nodes, pods = xpk(inc, "tpu-v5p-32", 1, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc,
        pods,
        t + timedelta(seconds=15),
        "rl-ppo-v5p-slice-job-0-0.rl-ppo-v5p:8482",
        ["The JAX preemption service is disabled."],
    )
    losses = [2.41, 2.39, 2.40, 2.44, 2.52, 2.77, 3.81, 7.26, 41.3]
    end = train(inc, pods[:1], t + timedelta(seconds=90), 5114, 30, 4.1, 2.43, kv_step)
    end = train(inc, pods[:1], end, 5144, len(losses), 4.1, 2.4, kv_step, losses)
    boom = end + timedelta(seconds=4)
    error = traceback(
        [
            ("/app/rl/train.py", 377, "<module>", "main()"),
            ("/app/rl/train.py", 341, "main", "state, metrics = train_step(state, batch)"),
            (
                "/usr/local/lib/python3.11/site-packages/jax/_src/pjit.py",
                1431,
                "_pjit_call_impl_python",
                "raise FloatingPointError(msg) from None",
            ),
        ],
        "FloatingPointError: invalid value (nan) encountered in jit(train_step). Because jax_config.debug_nans.value and/or config.jax_debug_infs is set, the de-optimized function (i.e., the function as if the `jit` decorator were removed) was called in an attempt to get a more precise error message. However, the de-optimized function did not produce invalid values during its execution. This behavior can result from `jit` optimizations causing the invalid value to be produced. It may also arise from having nan/inf constants as outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. ",
    )
    for pod in pods:
        inc.log(pod, boom + timedelta(milliseconds=inc.rng.randint(0, 600)), error)
    fail_jobset(inc, pods[2], boom + timedelta(seconds=3), 1)
    sigterm(inc, [p for p in pods if p is not pods[2]], boom + timedelta(seconds=4))
    return inc, diagnosed(
        "nan-inf-loss",
        [],
        [row("crash", "nan-inf-loss", None)],
        "The loss diverges (2.4 → 41.3) and with jax_debug_nans on, every process raises FloatingPointError "
        "'invalid value (nan) encountered in jit(train_step)' at the same step; exit 1 is not restartable "
        "under XPK's podFailurePolicy, so the JobSet fails at once. A numerical problem on every host: no culprit host.",
    )


def restore_after_preemption() -> tuple[Incident, Expected]:
    inc = Incident(
        "preempted-then-restore-fails",
        "llm-13b-spot",
        "acme-llm-prod",
        "spot-v5p",
        "us-east5-a",
        utc(2025, 6, 11, 2, 0),
        106,
        "both",
    )
    nodes, pods = xpk(inc, "spot-v5p-16", 2, 2)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc, pods, t + timedelta(seconds=18), "llm-13b-spot-slice-job-0-0.llm-13b-spot:8482"
    )
    end = train(inc, pods, t + timedelta(seconds=110), 2989, 12, 5.3, 2.113, maxtext_step)
    inc.log(
        pods[0],
        end - timedelta(seconds=20),
        "Started an asynchronous checkpoint save for step 3000 to gs://acme-llm-ckpt/13b/checkpoints/3000",
        stream="stdout",
    )
    victim = pods[2]
    pre = end + timedelta(seconds=3)
    inc.gce_audit(victim.node, pre, "compute.instances.preempted", "Instance was preempted.")
    inc.pod_event(
        victim.name,
        pre + timedelta(seconds=2),
        "Terminated",
        "Pod was terminated in response to imminent node shutdown.",
        kind="Warning",
        component="kubelet",
        host=victim.node,
    )
    inc.log(
        victim,
        pre + timedelta(seconds=2, milliseconds=40),
        "*** SIGTERM received by PID 1 (TID 1) on cpu 3 from PID 0; stack trace: ***",
    )
    inc.node_event(
        victim.node,
        pre + timedelta(seconds=38),
        "NodeNotReady",
        f"Node {victim.node} status is now: NodeNotReady",
        component="node-controller",
    )
    restart_jobset(inc, f"{inc.workload}-slice-job-1", pre + timedelta(seconds=6))
    sigterm(inc, [p for p in pods if p is not victim], pre + timedelta(seconds=7))
    inc.node_event(
        victim.node,
        pre + timedelta(minutes=3),
        "NodeReady",
        f"Node {victim.node} status is now: NodeReady",
        kind="Normal",
    )
    pods1 = relaunch(inc, nodes, 1)
    t1 = pre + timedelta(minutes=3, seconds=20)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(
        inc, pods1, t1 + timedelta(seconds=18), "llm-13b-spot-slice-job-0-0.llm-13b-spot:8482"
    )
    r = t1 + timedelta(seconds=40)
    error = traceback(
        [
            *TRAIN_FRAMES,
            (
                "/app/maxtext/MaxText/checkpointing.py",
                286,
                "load_state_if_possible",
                "return checkpoint_manager.restore(step, args=restore_args)",
            ),
            (
                "/usr/local/lib/python3.10/site-packages/orbax/checkpoint/checkpoint_manager.py",
                1540,
                "restore",
                "restored = self._checkpointer.restore(restore_directory, args=args)",
            ),
        ],
        'ValueError: NOT_FOUND: Error opening "ocdbt" driver: Error reading "gs://acme-llm-ckpt/13b/checkpoints/3000/items/manifest.ocdbt": Object not found [source locations=\'tensorstore/kvstore/ocdbt/io/io_handle_impl.cc:412\']',
    )
    for pod in pods1:
        rr = r + timedelta(milliseconds=inc.rng.randint(0, 700))
        inc.log(
            pod,
            rr,
            "Restoring checkpoint for step 3000 from gs://acme-llm-ckpt/13b/checkpoints/3000",
            stream="stdout",
        )
        inc.log(pod, rr + timedelta(seconds=2), error)
    fail_jobset(inc, pods1[0], r + timedelta(seconds=5), 1)
    sigterm(inc, pods1[1:], r + timedelta(seconds=6))
    return inc, diagnosed(
        "checkpoint-restore-failure",
        [],
        [
            row("preemption", "spot-preemption", victim.node),
            row("crash", "checkpoint-restore-failure", None),
        ],
        "Two disruptions. First, Compute Engine preempted the Spot VM of slice 1 / host 0 while the step-3000 "
        "checkpoint was still being written (compute.instances.preempted, imminent node shutdown, JobSet "
        "restart with first failed job slice-job-1). Second, after the restart every host fails to restore "
        "the half-written step 3000 (NOT_FOUND opening the ocdbt manifest) and exit 1 fails the JobSet. "
        "The restore failure is identical on all hosts, so it adds no culprit; the first disruption's root is the run's root."
        " Relabelled to the headline contract (#14): the run ends with every host failing to restore the checkpoint at once: that common-mode disruption ended it, so the headline is checkpoint-restore-failure with no single culprit host (the preemption stays row 1).",
    )


def restore_topology_change() -> tuple[Incident, Expected]:
    inc = Incident(
        "input-mismatch-after-restore",
        "llm-34b-v5p64",
        "acme-llm-prod",
        "prod-v5p",
        "us-east5-a",
        utc(2025, 6, 20, 16, 40),
        107,
        "underscores",
        jsonl=True,
    )
    _nodes, pods = xpk(inc, "tpu-v5p-64", 1, 8)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc, pods, t + timedelta(seconds=20), "llm-34b-v5p64-slice-job-0-0.llm-34b-v5p64:8482"
    )
    r = t + timedelta(seconds=75)
    for pod in pods:
        rr = r + timedelta(milliseconds=inc.rng.randint(0, 900))
        inc.log(
            pod,
            rr,
            "Restoring checkpoint from gs://acme-llm-ckpt/34b/run-v5p128/checkpoints/12000 (saved with mesh shape {'data': 16, 'fsdp': 8})",
            stream="stdout",
        )
        inc.log(
            pod,
            rr + timedelta(seconds=31),
            "Restored train state in 30.8s; compiling train_step",
            stream="stdout",
        )
    boom = r + timedelta(seconds=92)
    error = traceback(
        [
            *TRAIN_FRAMES,
            (
                "/app/maxtext/MaxText/train.py",
                902,
                "train_loop",
                "state, metrics = p_train_step(state, example_batch, nextrng)",
            ),
        ],
        "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_train_step) expected parameter 211 of size 33554432 (bf16[4096,4096]{1,0:T(8,128)(2,1)}) but got buffer with incompatible size 16777216 (bf16[2048,4096]{1,0:T(8,128)(2,1)})",
    )
    for pod in pods:
        inc.log(pod, boom + timedelta(milliseconds=inc.rng.randint(0, 500)), error)
    fail_jobset(inc, pods[5], boom + timedelta(seconds=2), 1)
    sigterm(inc, [p for p in pods if p is not pods[5]], boom + timedelta(seconds=3))
    return inc, diagnosed(
        "executable-input-mismatch",
        [],
        [row("crash", "executable-input-mismatch", None)],
        "The run restores a checkpoint written by a v5p-128 run with a different mesh; on the first step "
        "every host's executable rejects parameter 211 (expected 32 MiB, got 16 MiB) and exits 1, failing "
        "the JobSet. Same error on all 8 hosts: a configuration mismatch, no culprit host.",
    )


def gcs_throttled_save() -> tuple[Incident, Expected]:
    inc = Incident(
        "gcs-429-checkpoint-save",
        "gemma-ft-v6e",
        "acme-ft-11",
        "ft-v6e",
        "us-east1-d",
        utc(2025, 7, 16, 11, 0),
        108,
        "dots",
    )
    nodes, pods = xpk(inc, "tpu-v6e-16", 1, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(inc, pods, t + timedelta(seconds=15), "10.64.3.9:8482")
    end = train(inc, pods, t + timedelta(seconds=60), 1981, 19, 3.3, 1.31, maxtext_step)
    save = end + timedelta(seconds=2)
    inc.log(
        pods[0],
        save,
        "Saving checkpoint for step 2000 to gs://acme-ft-ckpt/gemma/run-4/checkpoints/2000",
        stream="stdout",
    )
    body = (
        'Error executing an HTTP request: HTTP response code 429 with body \'{"error":{"code":429,"message":'
        '"The object acme-ft-ckpt/gemma/run-4/checkpoints/2000/_CHECKPOINT_METADATA exceeded the rate limit for '
        "object mutation operations (create, update, and delete). Please reduce your request rate. See "
        "https://cloud.google.com/storage/docs/gcs429.\"}}'"
    )
    for attempt in range(6):
        w = save + timedelta(seconds=2**attempt)
        inc.log(
            pods[0],
            w,
            absl(
                "W",
                w,
                4410,
                "gcs_http_retry.cc:118",
                f"Retrying request (attempt {attempt + 1}/32) after: {body}",
            ),
            severity="WARNING",
        )
    boom = save + timedelta(seconds=97)
    inc.log(
        pods[0],
        boom,
        traceback(
            [
                *TRAIN_FRAMES,
                (
                    "/app/maxtext/MaxText/checkpointing.py",
                    201,
                    "save_checkpoint",
                    "checkpoint_manager.wait_until_finished()",
                ),
            ],
            'ValueError: ABORTED: Error writing "checkpoints/2000/_CHECKPOINT_METADATA" in GCS bucket "acme-ft-ckpt": All 32 retry attempts failed: '
            + body,
        ),
    )
    leader_lost(inc, pods[1:], boom + timedelta(seconds=4), "10.64.3.9")
    fail_jobset(inc, pods[0], boom + timedelta(seconds=3), 1)
    sigterm(inc, pods[1:], boom + timedelta(seconds=5))
    return inc, diagnosed(
        "gcs-throttling",
        [nodes[0][0]],
        [row("crash", "gcs-throttling", nodes[0][0])],
        "While saving step 2000, task 0 (the host that writes the checkpoint metadata) is throttled by "
        "Cloud Storage (HTTP 429, object mutation rate limit) and finally raises after the retries; its exit "
        "takes down the coordination service, so the other tasks print leader-lost cascades, and exit 1 "
        "fails the JobSet. Root: gcs-throttling on task 0's node (the process that failed, not a bad node).",
    )


# --- Orchestrator ---------------------------------------------------------------------------


def liveness_loop() -> tuple[Incident, Expected]:
    inc = Incident(
        "liveness-restart-loop",
        "vit-22b-v5e",
        "acme-vision-3",
        "vision-v5e",
        "us-west1-c",
        utc(2025, 7, 22, 9, 0),
        109,
        "underscores",
    )
    _nodes, pods = xpk(inc, "tpu-v5e-16", 1, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    slow = pods[3]
    cycle = t + timedelta(seconds=10)
    for _loop in range(3):
        jax_startup(inc, pods, cycle, "vit-22b-v5e-slice-job-0-0.vit-22b-v5e:8482")
        for pod in pods:
            inc.log(
                pod,
                cycle + timedelta(seconds=15),
                "Restoring checkpoint step 61000 from gs://acme-vision-ckpt/vit22b/61000 (host shard 1.9 TiB)",
                stream="stdout",
            )
        for probe in range(3):
            p = cycle + timedelta(seconds=150 + 10 * probe)
            inc.pod_event(
                slow.name,
                p,
                "Unhealthy",
                'Liveness probe failed: Get "http://10.72.1.14:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                kind="Warning",
                host=slow.node,
            )
        kill = cycle + timedelta(seconds=171)
        inc.pod_event(
            slow.name,
            kill,
            "Killing",
            "Container jax-tpu failed liveness probe, will be restarted",
            host=slow.node,
        )
        inc.log(
            slow,
            kill + timedelta(milliseconds=40),
            "*** SIGTERM received by PID 1 (TID 1) on cpu 0 from PID 0; stack trace: ***",
        )
        back = kill + timedelta(seconds=33)
        inc.pod_event(slow.name, back, "Started", "Started container jax-tpu", host=slow.node)
        co = back + timedelta(seconds=4)
        inc.log(
            pods[0],
            co,
            absl(
                "E",
                co,
                1203,
                "coordination_service.cc:612",
                "/job:jax_worker/replica:0/task:3 unexpectedly tried to connect with a different incarnation. It has likely restarted.",
            ),
        )
        for pod in pods[:3]:
            pt = co + timedelta(milliseconds=inc.rng.randint(50, 600))
            inc.log(
                pod,
                pt,
                absl(
                    "E",
                    pt,
                    1203,
                    "coordination_service_agent.cc:332",
                    "Polled an error from coordination service (this can be an error from this or another task).",
                ),
            )
            inc.log(
                pod,
                pt + timedelta(microseconds=90),
                absl(
                    "F",
                    pt,
                    1203,
                    "client.h:77",
                    "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: ABORTED: /job:jax_worker/replica:0/task:3 unexpectedly tried to connect with a different incarnation. It has likely restarted.",
                ),
            )
            inc.pod_event(
                pod.name,
                pt + timedelta(seconds=30),
                "BackOff",
                f"Back-off restarting failed container jax-tpu in pod {pod.name}_{inc.namespace}(8d4f{inc.suffix(4)}-7c1e)",
                kind="Warning",
                host=pod.node,
            )
        cycle = back + timedelta(seconds=60)
    return inc, diagnosed(
        "liveness-probe-restart",
        [slow.node],
        [row("restart", "liveness-probe-restart", slow.node)],
        "Task 3 restores a 1.9 TiB host shard; its /healthz does not answer during the restore, the liveness "
        "probe fails three times and kubelet restarts the container. The restarted task reconnects with a new "
        "incarnation, which kills the other tasks (incarnation cascade), everyone restores again, and the loop "
        "repeats three times with no training step in between: one restart disruption on task 3's node.",
    )


def ephemeral_eviction() -> tuple[Incident, Expected]:
    inc = Incident(
        "evicted-ephemeral-storage",
        "llm-7b-v6e-ms",
        "acme-llm-dev",
        "dev-v6e",
        "us-east1-d",
        utc(2025, 8, 4, 21, 10),
        110,
        "dots",
    )
    nodes, pods = xpk(inc, "tpu-v6e-16", 2, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc,
        pods,
        t + timedelta(seconds=20),
        "llm-7b-v6e-ms-slice-job-0-0.llm-7b-v6e-ms:8482",
        ["XLA_FLAGS=--xla_dump_to=/tmp/xla_dump --xla_dump_hlo_as_text"],
    )
    end = train(inc, pods[:1], t + timedelta(seconds=80), 300, 40, 2.2, 2.8, maxtext_step)
    victim = pods[5]
    ev = end + timedelta(seconds=3)
    inc.node_event(
        victim.node,
        ev - timedelta(seconds=20),
        "EvictionThresholdMet",
        "Attempting to reclaim ephemeral-storage",
    )
    inc.pod_event(
        victim.name,
        ev,
        "Evicted",
        "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9421336Ki. Container jax-tpu was using 187352180Ki, request is 0, has larger consumption of ephemeral-storage. ",
        kind="Warning",
        host=victim.node,
    )
    inc.pod_event(
        victim.name,
        ev + timedelta(milliseconds=100),
        "Killing",
        "Stopping container jax-tpu",
        host=victim.node,
    )
    inc.log(
        victim,
        ev + timedelta(milliseconds=150),
        "*** SIGTERM received by PID 1 (TID 1) on cpu 61 from PID 0; stack trace: ***",
    )
    restart_jobset(inc, f"{inc.workload}-slice-job-1", ev + timedelta(seconds=5))
    sigterm(inc, [p for p in pods if p is not victim], ev + timedelta(seconds=6))
    pods1 = relaunch(inc, nodes, 1)
    t1 = ev + timedelta(seconds=50)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(
        inc, pods1, t1 + timedelta(seconds=20), "llm-7b-v6e-ms-slice-job-0-0.llm-7b-v6e-ms:8482"
    )
    train(inc, pods1[:1], t1 + timedelta(seconds=90), 300, 25, 2.2, 2.78, maxtext_step)
    return inc, diagnosed(
        "pod-evicted-node-pressure",
        [victim.node],
        [row("eviction", "pod-evicted-node-pressure", victim.node)],
        "XLA dumps under /tmp fill the node's ephemeral storage; kubelet evicts slice 1 / host 1's pod "
        "('The node was low on resource: ephemeral-storage', 187 GB used with no request). The JobSet restarts "
        "(first failed job slice-job-1) and training resumes. Root on that pod's node.",
    )


def auto_repair() -> tuple[Incident, Expected]:
    inc = Incident(
        "auto-repair-recreates-slice",
        "llm-70b-v5p-ms",
        "acme-llm-prod",
        "prod-v5p",
        "us-east5-a",
        utc(2025, 8, 12, 3, 0),
        111,
        "both",
        jsonl=True,
    )
    nodes, pods = xpk(inc, "tpu-v5p-32", 2, 4)
    t = inc.start
    jax_coordinator = "llm-70b-v5p-ms-slice-job-0-0.llm-70b-v5p-ms:8482"
    end = train(inc, pods[:1], t, 41200, 25, 7.8, 1.72, maxtext_step)
    bad = nodes[1][2]
    for k in range(3):
        g = t + timedelta(seconds=20 + 60 * k)
        inc.node_event(
            bad,
            g,
            "FreeDiskSpaceFailed",
            "Failed to garbage collect required amount of images. Attempted to free 15627352883 bytes, but only found 0 bytes eligible to free.",
        )
        inc.node_event(
            bad,
            g + timedelta(seconds=1),
            "ImageGCFailed",
            "Failed to garbage collect required amount of images. Attempted to free 15627352883 bytes, but only found 0 bytes eligible to free.",
        )
    repair = end + timedelta(seconds=5)
    pool_name = bad[len(f"gke-{inc.cluster}-") :].rsplit("-", 2)[0]
    inc.gke_operation(
        pool_name,
        repair,
        "google.container.internal.ClusterManagerInternal.RepairNodePool",
        "AUTO_REPAIR_NODES",
    )
    inc.node_event(
        bad,
        repair + timedelta(seconds=2),
        "NodeNotSchedulable",
        f"Node {bad} status is now: NodeNotSchedulable",
        kind="Normal",
    )
    for pod in pods[4:]:
        s = repair + timedelta(seconds=35, milliseconds=inc.rng.randint(0, 900))
        inc.pod_event(
            pod.name,
            s,
            "Terminated",
            "Pod was terminated in response to imminent node shutdown.",
            kind="Warning",
            host=pod.node,
        )
        inc.log(
            pod,
            s + timedelta(milliseconds=50),
            "*** SIGTERM received by PID 1 (TID 1) on cpu 12 from PID 0; stack trace: ***",
        )
    restart_jobset(inc, f"{inc.workload}-slice-job-1", repair + timedelta(seconds=40))
    sigterm(inc, pods[:4], repair + timedelta(seconds=41))
    for node in nodes[1]:
        inc.node_event(
            node,
            repair + timedelta(seconds=70),
            "NodeNotReady",
            f"Node {node} status is now: NodeNotReady",
            component="node-controller",
        )
        inc.node_event(
            node,
            repair + timedelta(minutes=5),
            "RegisteredNode",
            f"Node {node} event: Registered Node {node} in Controller",
            kind="Normal",
            component="node-controller",
        )
    pods1 = relaunch(inc, nodes, 1)
    t1 = repair + timedelta(minutes=6)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(inc, pods1, t1 + timedelta(seconds=20), jax_coordinator)
    train(inc, pods1[:1], t1 + timedelta(seconds=120), 41000, 20, 7.8, 1.74, maxtext_step)
    return inc, diagnosed(
        "node-auto-repair-or-upgrade",
        [bad],
        [row("restart", "node-auto-repair-or-upgrade", bad)],
        "Slice 1 / host 2's boot disk is full (kubelet image GC keeps failing) while training runs fine; GKE "
        "auto-repair (AUTO_REPAIR_NODES on its node pool) then recreates the whole multi-host slice, its pods "
        "are shut down, the JobSet restarts and resumes after the nodes re-register. Root: the auto-repair, "
        "on the node whose condition triggered it.",
    )


def kernel_mce() -> tuple[Incident, Expected]:
    inc = Incident(
        "kernel-mce-node-lost",
        "t5x-xxl-v5p",
        "acme-nlp-5",
        "nlp-v5p",
        "us-central2-b",
        utc(2025, 8, 19, 14, 30),
        112,
        "dots",
    )
    _nodes, pods = xpk(inc, "tpu-v5p-16", 2, 2)
    t = inc.start
    end = train(inc, pods, t, 77010, 30, 6.0, 1.52, pipe_step)
    victim = pods[1]
    mce = end + timedelta(seconds=3)
    inc.serial_console(
        victim.node,
        mce,
        "[1845211.093344] mce: [Hardware Error]: CPU 37: Machine Check Exception: 5 Bank 1: bf80000000000124",
    )
    inc.serial_console(
        victim.node,
        mce + timedelta(milliseconds=2),
        "[1845211.093371] mce: [Hardware Error]: TSC 0 ADDR 3f1c2a5c0 MISC 86 ",
    )
    inc.node_log(
        victim.node,
        mce + timedelta(milliseconds=5),
        "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0",
        log="kernel",
        severity="ERROR",
    )
    inc.node_log(
        victim.node,
        mce + timedelta(milliseconds=6),
        "{1}[Hardware Error]: event severity: fatal",
        log="kernel",
        severity="ERROR",
    )
    inc.serial_console(
        victim.node,
        mce + timedelta(milliseconds=9),
        "[1845211.101907] Kernel panic - not syncing: Fatal machine check",
    )
    inc.node_event(
        victim.node,
        mce + timedelta(seconds=44),
        "NodeNotReady",
        f"Node {victim.node} status is now: NodeNotReady",
        component="node-controller",
    )
    survivors = [p for p in pods if p is not victim]
    heartbeat_cascade(inc, survivors, int(victim.task), mce + timedelta(seconds=101))
    evict = mce + timedelta(minutes=5, seconds=44)
    inc.pod_event(
        victim.name,
        evict,
        "TaintManagerEviction",
        f"Marking for deletion Pod {inc.namespace}/{victim.name}",
        component="taint-eviction-controller",
    )
    restart_jobset(inc, f"{inc.workload}-slice-job-0", evict + timedelta(seconds=3))
    return inc, diagnosed(
        "kernel-hardware-error",
        [victim.node],
        [row("crash", "kernel-hardware-error", victim.node)],
        "Slice 0 / host 1's kernel logs a fatal machine-check (CPER 'event severity: fatal', then panic); the "
        "node goes NotReady, its task 1 stops heartbeating and the survivors abort naming task 1 (cascade), "
        "the pod is evicted by the taint manager and the JobSet restarts. Root on that node.",
    )


def core_halted_big_slice() -> tuple[Incident, Expected]:
    inc = Incident(
        "core-halted-64-hosts",
        "llm-405b-v5p512",
        "acme-llm-prod",
        "xl-v5p",
        "us-east5-a",
        utc(2025, 8, 26, 22, 0),
        113,
        "underscores",
        jsonl=True,
    )
    _nodes, pods = xpk(inc, "tpu-v5p-512", 1, 64)
    t = inc.start
    end = train(inc, pods[:1], t, 9120, 12, 21.0, 1.611, maxtext_step)
    bad = pods[37]
    halt = end + timedelta(seconds=9)
    inc.log(
        bad,
        halt,
        absl(
            "E",
            halt,
            3318,
            "tpu_program_termination_handler.cc:112",
            "0x0x0_TC1: *** A program or fatal error occurred, all pending programs will fail, and results may be corrupted. This is likely an XLA compiler bug or your job hit a bad TPU hardware. Physical location: tpu2:pe1:1",
        ),
    )
    inc.log(
        bad,
        halt + timedelta(milliseconds=60),
        traceback(
            [
                *TRAIN_FRAMES,
                (
                    "/app/maxtext/MaxText/train.py",
                    902,
                    "train_loop",
                    "state, metrics = p_train_step(state, example_batch, nextrng)",
                ),
            ],
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device check-failure. Node 1 halted unexpectedly at tag:pc TensorCoreSequencer:1:0x1a2f (from TensorCoreSequencer:1:0x1b40): no debugging message found for this tag:pc. HLO: fusion.2231; HLO computation: main.4410_spmd",
        ),
    )
    survivors = [p for p in pods if p is not bad]
    heartbeat_cascade(inc, survivors, 37, halt + timedelta(seconds=12), abort_trace=False)
    restart_jobset(inc, f"{inc.workload}-slice-job-0", halt + timedelta(seconds=20))
    return inc, diagnosed(
        "tpu-hardware-fault",
        [bad.node],
        [row("crash", "tpu-hardware-fault", bad.node)],
        "In a 64-host v5p slice, host 37 reports a fatal device error ('Core halted unexpectedly … Accelerator "
        "device halted prematurely', physical location tpu2:pe1:1); the 63 other tasks abort naming task 37 "
        "(cascade) and the JobSet restarts. Root on task 37's node.",
    )


def vfio_busy_after_crash() -> tuple[Incident, Expected]:
    inc = Incident(
        "vfio-busy-after-segfault",
        "diffusion-v6e",
        "acme-gen-8",
        "gen-v6e",
        "europe-west4-a",
        utc(2025, 9, 3, 6, 0),
        114,
        "dots",
    )
    nodes, pods = xpk(inc, "tpu-v6e-16", 1, 4)
    t = inc.start
    end = train(inc, pods, t, 15500, 20, 2.7, 0.091, kv_step)
    bad = pods[1]
    seg = end + timedelta(seconds=1)
    inc.log(
        bad,
        seg,
        "*** SIGSEGV (@0x0), see go/stacktraces#s15 received by PID 1 (TID 412) on cpu 44; stack trace: ***\n"
        "PC: @     0x7f2d8c31a2b0  (unknown)  tpu::TpuExecutor::DeallocateBuffer()\n"
        "    @     0x7f2d9a8b3520        208  (unknown)\n"
        "    @     0x7f2d8c2f9e11        112  xla::PjRtStreamExecutorBuffer::Delete()\n"
        + absl(
            "E", seg, 412, "process_state.cc:1175", "RAW: Raising signal 11 with default behavior"
        ),
    )
    restart_jobset(inc, f"{inc.workload}-slice-job-0", seg + timedelta(seconds=2))
    sigterm(inc, [p for p in pods if p is not bad], seg + timedelta(seconds=3))
    pods1 = relaunch(inc, nodes, 1)
    t1 = seg + timedelta(seconds=40)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(
        inc,
        [p for p in pods1 if p.task != 1],
        t1 + timedelta(seconds=12),
        "diffusion-v6e-slice-job-0-0.diffusion-v6e:8482",
    )
    again = pods1[1]
    v = t1 + timedelta(seconds=14)
    inc.log(
        again,
        v,
        absl(
            "E",
            v,
            77,
            "tpu_hal.cc:249",
            "Failed to initialize TPU system with error: FAILED_PRECONDITION: open(/dev/vfio/2): Device or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/2",
        ),
    )
    inc.log(
        again,
        v + timedelta(milliseconds=300),
        traceback(
            [
                ("/app/train.py", 88, "<module>", "jax.distributed.initialize()"),
                (
                    "/usr/local/lib/python3.11/site-packages/jax/_src/distributed.py",
                    196,
                    "initialize",
                    "global_state.initialize(coordinator_address, num_processes, process_id,",
                ),
            ],
            "jaxlib._jax.XlaRuntimeError: UNKNOWN: TPU initialization failed: open(/dev/vfio/2): Device or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/2",
        ),
    )
    fail_jobset(inc, again, v + timedelta(seconds=3), 1)
    sigterm(inc, [p for p in pods1 if p is not again], v + timedelta(seconds=4))
    return inc, diagnosed(
        "tpu-vfio-busy",
        [bad.node],
        [row("crash", "process-segfault", bad.node), row("crash", "tpu-vfio-busy", bad.node)],
        "Task 1 segfaults in libtpu buffer deallocation (exit 139, restartable), the JobSet restarts; on the "
        "same node the new pod cannot open /dev/vfio/2 because the crashed process still holds the device, and "
        "its exit 1 fails the JobSet. Two disruptions, both on that node."
        " Relabelled to the headline contract (#14): the VFIO-busy exit failed the JobSet: that disruption ended the run, so the headline is tpu-vfio-busy (same node; the segfault stays row 1).",
    )


def tpu_in_use_sidecar() -> tuple[Incident, Expected]:
    inc = Incident(
        "tpu-in-use-sidecar",
        "asr-conformer-v5e",
        "acme-speech-2",
        "speech-v5e",
        "us-west4-a",
        utc(2025, 9, 12, 12, 0),
        115,
        "both",
    )
    _nodes, pods = xpk(inc, "tpu-v5e-16", 1, 4)
    for pod in pods:
        pod.containers = ("trainer", "tpu-metrics-exporter")
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    for pod in pods:
        s = t + timedelta(seconds=6, milliseconds=inc.rng.randint(0, 500))
        inc.log(
            pod,
            s,
            "tpu-metrics-exporter: listening on :9400, found 4 TPU devices via jax.devices()",
            stream="stdout",
            container="tpu-metrics-exporter",
        )
        m = s + timedelta(seconds=9)
        inc.log(
            pod,
            m,
            "Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 12. Not attempting to load libtpu.so in this process.",
            container="trainer",
            severity="WARNING",
        )
        inc.log(
            pod,
            m + timedelta(milliseconds=3),
            "A Google TPU may be present on this machine, but either a TPU-enabled jaxlib or libtpu is not installed. Falling back to cpu.",
            container="trainer",
            severity="WARNING",
        )
        inc.log(
            pod,
            m + timedelta(seconds=2),
            traceback(
                [
                    ("/app/train_asr.py", 141, "<module>", "main()"),
                    (
                        "/app/train_asr.py",
                        59,
                        "main",
                        "assert jax.device_count() == 16, jax.devices()",
                    ),
                ],
                "AssertionError: [CpuDevice(id=0)]",
            ),
            container="trainer",
        )
    fail_jobset(inc, pods[0], t + timedelta(seconds=19), 1)
    return inc, diagnosed(
        "tpu-already-in-use",
        [],
        [row("crash", "tpu-already-in-use", None)],
        "A metrics-exporter sidecar imports JAX and grabs the TPU first in every pod; each trainer's backend "
        "init is refused ('The TPU is already in use by process with pid 12'), JAX falls back to CPU and the "
        "device-count assertion exits 1, failing the JobSet. Same on all 4 hosts: no culprit host.",
    )


def jaxlib_skew() -> tuple[Incident, Expected]:
    inc = Incident(
        "jaxlib-newer-than-jax",
        "mx-gemma2-v5e-ms",
        "tpu-research-4410",
        "v5e-ms",
        "us-east5-b",
        utc(2025, 9, 18, 8, 20),
        116,
        "underscores",
    )
    _nodes, pods = xpk(inc, "tpu-v5e-16", 2, 4)
    t = inc.start
    start_pods(inc, pods, t, "us-docker.pkg.dev/acme-ml/train/maxtext-runner:nightly-0918")
    err = traceback(
        [
            ("/app/maxtext/MaxText/train.py", 22, "<module>", "import jax"),
            (
                "/usr/local/lib/python3.10/site-packages/jax/__init__.py",
                25,
                "<module>",
                "from jax._src.cloud_tpu_init import cloud_tpu_init as _cloud_tpu_init",
            ),
            (
                "/usr/local/lib/python3.10/site-packages/jax/_src/lib/__init__.py",
                87,
                "<module>",
                "version = check_jaxlib_version(",
            ),
            (
                "/usr/local/lib/python3.10/site-packages/jax/_src/lib/__init__.py",
                79,
                "check_jaxlib_version",
                "raise RuntimeError(msg)",
            ),
        ],
        "RuntimeError: jaxlib version 0.4.31 is newer than and incompatible with jax version 0.4.28. Please update your jax and/or jaxlib packages.",
    )
    for pod in pods:
        inc.log(pod, t + timedelta(seconds=9, milliseconds=inc.rng.randint(0, 900)), err)
    fail_jobset(inc, pods[4], t + timedelta(seconds=12), 1)
    sigterm(inc, [p for p in pods if p is not pods[4]], t + timedelta(seconds=13))
    return inc, diagnosed(
        "libtpu-version-mismatch",
        [],
        [row("crash", "libtpu-version-mismatch", None)],
        "The nightly image pairs jaxlib 0.4.31 with jax 0.4.28; 'import jax' raises on all 8 hosts and the "
        "JobSet fails on exit 1. Identical on every host: an image problem, no culprit host.",
    )


def topology_misconfig() -> tuple[Incident, Expected]:
    inc = Incident(
        "slice-builder-address-count",
        "sd3-v5e16",
        "acme-gen-8",
        "gen-v5e",
        "us-south1-a",
        utc(2025, 9, 24, 15, 0),
        117,
        "dots",
    )
    nodes = [inc.pool_nodes("tpu-v5e-16", 2)]
    pods = inc.xpk_pods(nodes, 0)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    for pod in pods:
        s = t + timedelta(seconds=11, milliseconds=inc.rng.randint(0, 400))
        inc.log(
            pod,
            s,
            f"TPU_WORKER_ID={pod.task} TPU_WORKER_HOSTNAMES={pods[0].name}.sd3-v5e16,{pods[1].name}.sd3-v5e16",
            stream="stdout",
        )
        inc.log(
            pod,
            s + timedelta(seconds=3),
            traceback(
                [
                    ("/app/train.py", 40, "<module>", "jax.distributed.initialize()"),
                    (
                        "/usr/local/lib/python3.10/site-packages/jax/_src/xla_bridge.py",
                        1008,
                        "_init_backend",
                        "backend = registration.factory()",
                    ),
                ],
                "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: TPU initialization failed: Invalid --9e21f0c_slice_builder_worker_addresses specified. Expected 4 worker addresses, got 2.",
            ),
        )
    fail_jobset(inc, pods[0], t + timedelta(seconds=17), 1)
    sigterm(inc, pods[1:], t + timedelta(seconds=18))
    return inc, diagnosed(
        "tpu-worker-topology-misconfig",
        [],
        [row("crash", "tpu-worker-topology-misconfig", None)],
        "A v5e 4x4 slice has four hosts but the JobSet runs two pods (parallelism 2), so both hosts see two "
        "worker addresses where the slice builder expects four and TPU init fails; exit 1 fails the JobSet. "
        "Manifest misconfiguration on every host: no culprit host.",
    )


def barrier_slow_compile() -> tuple[Incident, Expected]:
    inc = Incident(
        "barrier-timeout-slow-compile",
        "llm-8b-v5p-ms",
        "acme-llm-dev",
        "dev-v5p",
        "us-east5-a",
        utc(2025, 9, 30, 19, 0),
        118,
        "both",
    )
    _nodes, pods = xpk(inc, "tpu-v5p-16", 2, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc, pods, t + timedelta(seconds=20), "llm-8b-v5p-ms-slice-job-0-0.llm-8b-v5p-ms:8482"
    )
    slow = pods[6]
    for pod in pods:
        c = t + timedelta(seconds=60, milliseconds=inc.rng.randint(0, 800))
        if pod is slow:
            inc.log(
                pod,
                c,
                "Persistent compilation cache miss for 'jit_train_step' (cache dir gs://acme-jax-cache/llm-8b)",
                stream="stdout",
            )
            for k in range(3):
                s = c + timedelta(minutes=2 + 3 * k)
                inc.log(
                    pod,
                    s,
                    absl(
                        "E",
                        s,
                        1712,
                        "slow_operation_alarm.cc:65",
                        "\n********************************\n[Compiling module jit_train_step] Very slow compile? If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n********************************",
                    ),
                )
        else:
            inc.log(
                pod, c, "Persistent compilation cache hit for 'jit_train_step'", stream="stdout"
            )
    deadline = t + timedelta(seconds=60 + 600)
    for pod in pods:
        if pod is slow:
            continue
        d = deadline + timedelta(milliseconds=inc.rng.randint(0, 300))
        inc.log(
            pod,
            d,
            traceback(
                [
                    *TRAIN_FRAMES,
                    (
                        "/usr/local/lib/python3.10/site-packages/jax/experimental/multihost_utils.py",
                        110,
                        "sync_global_devices",
                        "client.wait_at_barrier(name, timeout_in_ms)",
                    ),
                ],
                "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: sync_global_devices_compile_done. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\n"
                "# of tasks that reached the barrier: 7/8.\n"
                "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:\n"
                "/job:jax_worker/replica:0/task:6\n"
                " [type.googleapis.com/tensorflow.CoordinationServiceError='']",
            ),
        )
    fail_jobset(inc, pods[0], deadline + timedelta(seconds=2), 1)
    sigterm(inc, pods[1:], deadline + timedelta(seconds=3))
    return inc, {
        "status": "inconclusive",
        "root_cause": None,
        "culprit_hosts": [slow.node],
        "failures": [row("crash", None, slow.node)],
        "why": "Seven tasks reach the post-compile barrier and time out after 10 minutes naming task 6; task 6 "
        "had a persistent-cache miss and is still compiling (repeated 'Very slow compile?' alarms) when the "
        "JobSet fails on exit 1. Nothing on task 6's host is a root-cause failure (a slow compile is not a "
        "fault the wiki has a page for), so the honest answer is inconclusive, pointing at task 6's node."
        " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its barrier-timeout lines stay in its evidence).",
    }


def coordinator_oom() -> tuple[Incident, Expected]:
    inc = Incident(
        "coordinator-oom-leader-lost",
        "rec-dlrm-v5p",
        "acme-ads-14",
        "ads-v5p",
        "us-central1-a",
        utc(2025, 10, 2, 1, 30),
        119,
        "dots",
    )
    nodes, pods = xpk(inc, "tpu-v5p-16", 2, 2)
    t = inc.start
    end = train(inc, pods, t, 220300, 15, 3.5, 0.1342, kv_step)
    leader = pods[0]
    oom = end + timedelta(seconds=2)
    inc.node_event(
        leader.node,
        oom,
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 2871 (python3) total-vm:412337664kB, anon-rss:389120512kB, file-rss:102400kB, shmem-rss:0kB, UID:0 pgtables:771204kB oom_score_adj:-997",
        component="kernel-monitor",
    )
    leader_lost(inc, pods[1:], oom + timedelta(seconds=1), "10.96.0.17")
    restart_jobset(inc, f"{inc.workload}-slice-job-0", oom + timedelta(seconds=4))
    sigterm(inc, pods[1:], oom + timedelta(seconds=5))
    pods1 = relaunch(inc, nodes, 1)
    t1 = oom + timedelta(seconds=45)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(inc, pods1, t1 + timedelta(seconds=15), "10.96.0.17:8482")
    train(inc, pods1, t1 + timedelta(seconds=70), 220000, 10, 3.5, 0.1345, kv_step)
    return inc, diagnosed(
        "host-oom-killed",
        [leader.node],
        [row("crash", "host-oom-killed", leader.node)],
        "Task 0's trainer (the coordination-service leader) is killed by the memory-cgroup OOM killer (the "
        "node's kernel-monitor event, 389 GB RSS); every other task loses the leader ('Failed to send RPC to "
        "coordination service', cascade) and aborts, the JobSet restarts and training resumes. Root on task 0's node.",
    )


def incarnation_single_restart() -> tuple[Incident, Expected]:
    inc = Incident(
        "incarnation-after-abort",
        "mm-vlm-v6e",
        "acme-mm-6",
        "mm-v6e",
        "asia-northeast1-b",
        utc(2025, 10, 4, 8, 30),
        120,
        "underscores",
    )
    nodes, pods = xpk(inc, "tpu-v6e-16", 1, 4)
    t = inc.start
    end = train(inc, pods, t, 3310, 12, 4.4, 2.02, maxtext_step)
    bad = pods[2]
    f = end + timedelta(seconds=2)
    inc.log(
        bad,
        f,
        absl(
            "F",
            f,
            911,
            "tpu_compilation_cache_interface.cc:398",
            "Check failed: entry->ref_count() > 0 (0 vs. 1) ",
        ),
    )
    abort(inc, bad, f + timedelta(milliseconds=4), 911)
    back = f + timedelta(seconds=12)
    inc.pod_event(
        bad.name,
        back,
        "Pulled",
        f'Container image "{IMAGE}" already present on machine',
        host=bad.node,
    )
    inc.pod_event(
        bad.name, back + timedelta(seconds=1), "Started", "Started container jax-tpu", host=bad.node
    )
    co = back + timedelta(seconds=16)
    inc.log(
        pods[0],
        co,
        absl(
            "E",
            co,
            2290,
            "coordination_service.cc:1027",
            "/job:jax_worker/replica:0/task:2 Heartbeat: Incarnation ID mismatch: expecting 4411209718267356173 but got 1720355112430983921. The task has restarted and likely crashed earlier - check for any earlier errors or any scheduler events (e.g. preemption, eviction) to debug further.",
        ),
    )
    for pod in [pods[0], pods[1], pods[3]]:
        pt = co + timedelta(milliseconds=inc.rng.randint(100, 700))
        inc.log(
            pod,
            pt,
            absl(
                "E",
                pt,
                2290,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or another task).",
            ),
        )
        inc.log(
            pod,
            pt + timedelta(microseconds=70),
            absl(
                "F",
                pt,
                2290,
                "client.h:77",
                "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: ABORTED: /job:jax_worker/replica:0/task:2 Heartbeat: Incarnation ID mismatch: expecting 4411209718267356173 but got 1720355112430983921.",
            ),
        )
        abort(inc, pod, pt + timedelta(milliseconds=3), 2290)
    restart_jobset(inc, f"{inc.workload}-slice-job-0", co + timedelta(seconds=6))
    pods1 = relaunch(inc, nodes, 1)
    t1 = co + timedelta(seconds=50)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(inc, pods1, t1 + timedelta(seconds=12), "mm-vlm-v6e-slice-job-0-0.mm-vlm-v6e:8482")
    train(inc, pods1, t1 + timedelta(seconds=60), 3300, 8, 4.4, 2.03, maxtext_step)
    return inc, diagnosed(
        "process-abort",
        [bad.node],
        [row("crash", "process-abort", bad.node)],
        "Task 2 aborts on a libtpu check failure (tpu_compilation_cache_interface.cc 'Check failed'); kubelet "
        "restarts its container in place, the restarted task reports a new incarnation and the coordinator "
        "kills the others (incarnation cascade, whose own client.h LOG(FATAL) and SIGABRT lines are cascade, "
        "not new aborts). JobSet restart, training resumes. Root on task 2's node.",
    )


def shutdown_barrier_end() -> tuple[Incident, Expected]:
    inc = Incident(
        "shutdown-barrier-after-success",
        "bert-pretrain-v5p",
        "acme-nlp-5",
        "nlp-v5p",
        "us-central2-b",
        utc(2025, 10, 11, 4, 0),
        121,
        "dots",
    )
    _nodes, pods = xpk(inc, "tpu-v5p-16", 2, 2)
    t = inc.start
    end = train(inc, pods[:1], t, 4971, 30, 3.9, 1.402, maxtext_step)
    inc.log(
        pods[0],
        end + timedelta(seconds=1),
        "Saving final checkpoint for step 5000 to gs://acme-nlp-ckpt/bert/final",
        stream="stdout",
    )
    inc.log(
        pods[0],
        end + timedelta(seconds=44),
        "Checkpoint for step 5000 committed; training finished in 5h31m",
        stream="stdout",
    )
    done = end + timedelta(seconds=46)
    for pod in pods[:3]:
        d = done + timedelta(seconds=600 + inc.rng.random())
        inc.log(
            pod,
            d,
            absl(
                "E",
                d,
                33,
                "coordination_service_agent.cc:718",
                "Failed to disconnect from coordination service with status: DEADLINE_EXCEEDED: Shutdown barrier has failed.\n"
                "Barrier result: 'DEADLINE_EXCEEDED: Barrier timed out. Id: Shutdown::5372113395046291123. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\n"
                "# of tasks that reached the barrier: 3/4.\n"
                "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:\n"
                "/job:jax_worker/replica:0/task:3\n"
                " [type.googleapis.com/tensorflow.CoordinationServiceError='']\n"
                "Proceeding with agent shutdown anyway. This is usually caused by an earlier error during execution. Check the logs (this task or the leader) for an earlier error to debug further.",
            ),
        )
    last = pods[3]
    inc.log(
        last,
        done + timedelta(seconds=640),
        "Uploaded eval artifacts (41 GB) to gs://acme-nlp-ckpt/bert/final/eval",
        stream="stdout",
    )
    complete_jobset(
        inc,
        [f"{inc.workload}-slice-job-0", f"{inc.workload}-slice-job-1"],
        done + timedelta(seconds=650),
    )
    return inc, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "Training reaches step 5000 and commits the final checkpoint. Task 3 spends ~10 minutes uploading "
        "eval artifacts, so the other tasks' shutdown barrier times out; XLA logs 'Proceeding with agent "
        "shutdown anyway' and every pod exits 0 (both Jobs Completed, 'jobset completed successfully'). "
        "A senior engineer would call this no failure: nothing was lost and nothing restarted.",
    }


def image_pull() -> tuple[Incident, Expected]:
    inc = Incident(
        "image-tag-not-found",
        "mx-llama3-70b-ms4",
        "tpu-research-4410",
        "v5p-ms",
        "us-east5-a",
        utc(2025, 10, 17, 13, 0),
        122,
        "dots",
    )
    _nodes, pods = xpk(inc, "tpu-v5p-32", 2, 4)
    t = inc.start
    image = "us-docker.pkg.dev/acme-ml/train/maxtext-runner:2025-10-17-rc2"
    for index, pod in enumerate(pods):
        s = t + timedelta(milliseconds=50 * index)
        inc.pod_event(
            pod.name,
            s,
            "Scheduled",
            f"Successfully assigned {inc.namespace}/{pod.name} to {pod.node}",
            component="default-scheduler",
        )
        for attempt in range(4):
            a = s + timedelta(seconds=2 + 150 * attempt + inc.rng.randint(0, 20))
            inc.pod_event(pod.name, a, "Pulling", f'Pulling image "{image}"', host=pod.node)
            inc.pod_event(
                pod.name,
                a + timedelta(seconds=1),
                "Failed",
                f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve reference "{image}": {image}: not found',
                kind="Warning",
                host=pod.node,
            )
            inc.pod_event(
                pod.name,
                a + timedelta(seconds=1, milliseconds=5),
                "Failed",
                "Error: ErrImagePull",
                kind="Warning",
                host=pod.node,
            )
            inc.pod_event(
                pod.name,
                a + timedelta(seconds=14),
                "BackOff",
                f'Back-off pulling image "{image}"',
                host=pod.node,
            )
    return inc, diagnosed(
        "image-pull-failure",
        [],
        [row("scheduling", "image-pull-failure", None)],
        "The tag 2025-10-17-rc2 does not exist in Artifact Registry; all 8 pods are scheduled but every pull "
        "fails with NotFound and backs off for ten minutes, so no container ever starts. One scheduling "
        "disruption, same on every node: no culprit host.",
    )


def kueue_preempted() -> tuple[Incident, Expected]:
    inc = Incident(
        "kueue-preempted-by-priority",
        "llm-1b-sweep-17",
        "acme-llm-dev",
        "dev-v5e",
        "us-west4-a",
        utc(2025, 10, 21, 10, 0),
        123,
        "underscores",
    )
    _nodes, pods = xpk(inc, "tpu-v5e-16", 1, 4)
    t = inc.start
    end = train(inc, pods[:1], t, 1200, 40, 1.9, 3.12, maxtext_step)
    workload = f"jobset-{inc.workload}-5c1d2"
    p = end + timedelta(seconds=1)
    inc.object_event(
        "Workload",
        workload,
        p,
        "Preempted",
        "Preempted to accommodate a workload (UID: 0f6a1c52-41b9-4f0e-9a43-7f05d3c1e2aa, JobUID: 7b1e9d44-2c3a-4a8e-b0f1-5d6c7e8f9a01) due to prioritization in the ClusterQueue",
        "Normal",
        "kueue-admission",
        "kueue.x-k8s.io/v1beta1",
    )
    inc.object_event(
        "Workload",
        workload,
        p + timedelta(milliseconds=200),
        "EvictedDueToPreempted",
        "Preempted to accommodate a higher priority Workload",
        "Normal",
        "kueue-admission",
        "kueue.x-k8s.io/v1beta1",
    )
    inc.object_event(
        "JobSet", inc.workload, p + timedelta(seconds=1), "Suspended", "jobset suspended", "Normal"
    )
    sigterm(inc, pods, p + timedelta(seconds=2))
    for k in range(5):
        q = p + timedelta(seconds=30 + 120 * k)
        inc.object_event(
            "Workload",
            workload,
            q,
            "Pending",
            "couldn't assign flavors to pod set slice-job: insufficient unused quota for google.com/tpu in flavor v5e-16-reserved, 16 more needed",
            "Normal",
            "kueue-admission",
            "kueue.x-k8s.io/v1beta1",
        )
    return inc, diagnosed(
        "kueue-preemption",
        [],
        [row("preemption", "kueue-preemption", None)],
        "Kueue preempts this running sweep job to admit a higher-priority workload in the same ClusterQueue; "
        "the JobSet is suspended, its pods get SIGTERM, and it then waits for quota ('insufficient unused "
        "quota … 16 more needed'). The waiting is the same disruption (no progress since). Not a node problem: no culprit host.",
    )


def dynamic_slice() -> tuple[Incident, Expected]:
    inc = Incident(
        "dynamic-slice-overlap",
        "tx-moe-ds",
        "acme-tpu7-1",
        "tpu7-ds",
        "us-central1-c",
        utc(2025, 11, 3, 17, 0),
        124,
        "dots",
    )
    _nodes, pods = xpk(inc, "tpu7x-pool", 1, 4)
    t = inc.start
    taken = inc.pool_nodes("tpu7x-shared", 2)
    for k in range(4):
        s = t + timedelta(seconds=5 + 90 * k)
        inc.object_event(
            "Slice",
            f"{inc.workload}-slice-job-0",
            s,
            "SliceCreationFailed",
            f"Failed to create slice with topology 4x4x4: nodes {taken[0]}, {taken[1]} are already assigned to slice other-team-run-slice-job-1",
            "Warning",
            "slice-controller",
            "accelerator.gke.io/v1beta1",
        )
        for pod in pods:
            inc.pod_event(
                pod.name,
                s + timedelta(seconds=2),
                "FailedScheduling",
                "0/20 nodes are available: 16 node(s) didn't match Pod's node affinity/selector, 4 node(s) had untolerated taint {cloud.google.com/gke-tpu-slice-unready: true}. preemption: 0/20 nodes are available: 20 Preemption is not helpful for scheduling.",
                kind="Warning",
                component="default-scheduler",
            )
    return inc, diagnosed(
        "dynamic-slice-creation-failed",
        [],
        [row("scheduling", "dynamic-slice-creation-failed", None)],
        "The Slice for the job cannot be created because two of the nodes it needs already belong to another "
        "team's slice (SliceCreationFailed, repeated); the pods stay Pending with FailedScheduling as a result. "
        "The slice failure explains the scheduling failure; no node is faulty.",
    )


def mldiag_not_injected() -> tuple[Incident, Expected]:
    inc = Incident(
        "mldiag-webhook-missing",
        "llm-2b-profiled",
        "acme-llm-dev",
        "dev-v5e",
        "us-west4-a",
        utc(2025, 11, 7, 9, 0),
        125,
        "both",
    )
    _nodes, pods = xpk(inc, "tpu-v5e-16", 1, 4)
    t = inc.start
    start_pods(inc, pods, t, IMAGE)
    jax_startup(
        inc, pods, t + timedelta(seconds=12), "llm-2b-profiled-slice-job-0-0.llm-2b-profiled:8482"
    )
    for pod in pods:
        s = t + timedelta(seconds=24, milliseconds=inc.rng.randint(0, 300))
        inc.log(
            pod,
            s,
            "WARNING:google_cloud_mldiagnostics.utils.host_utils:GKE_DIAGON_IDENTIFIER environment variable not set.",
            severity="WARNING",
        )
        inc.log(
            pod,
            s + timedelta(milliseconds=2),
            "WARNING:google_cloud_mldiagnostics.utils.host_utils:GKE_DIAGON_METADATA environment variable not set.",
            severity="WARNING",
        )
        inc.log(
            pod,
            s + timedelta(milliseconds=4),
            "WARNING:google_cloud_mldiagnostics:Could not generate GKE workload identifier due to missing workload details. This might be because environment variables 'GKE_DIAGON_IDENTIFIER' or 'GKE_DIAGON_METADATA' are not set or are incomplete. Please ensure you are running SDK in a GKE environment with the GKE diagon operator webhook enabled.",
            severity="WARNING",
        )
    train(inc, pods[:1], t + timedelta(seconds=60), 0, 60, 3.0, 4.2, maxtext_step)
    return inc, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "The ML Diagnostics SDK warns on every host that the webhook did not inject GKE_DIAGON_* (the "
        "namespace/JobSet lacks managed-mldiagnostics-gke=true), but training starts and runs steadily to the "
        "end of the window. The workload was not disrupted, so the status is no_failure; the set-up problem "
        "only means the run will not appear in ML Diagnostics, worth a next-step note, not a failure row.",
    }


def healthy_noisy() -> tuple[Incident, Expected]:
    inc = Incident(
        "healthy-with-noise",
        "llm-3b-v5e-ms",
        "acme-llm-dev",
        "dev-v5e",
        "us-west4-a",
        utc(2025, 11, 12, 6, 0),
        126,
        "dots",
    )
    nodes, pods = xpk(inc, "tpu-v5e-16", 2, 4)
    t = inc.start
    for pod in pods:
        inc.pod_event(
            pod.name,
            t,
            "FailedScheduling",
            "0/8 nodes are available: 8 Insufficient google.com/tpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod.",
            kind="Warning",
            component="default-scheduler",
        )
    s = t + timedelta(seconds=35)
    start_pods(inc, pods, s, IMAGE)
    jax_startup(
        inc,
        pods,
        s + timedelta(seconds=15),
        "llm-3b-v5e-ms-slice-job-0-0.llm-3b-v5e-ms:8482",
        [
            "The JAX preemption service is disabled.",
            "tpunetd either not supported or disabled, falling back to Slice Builder",
            "E0000 00:00:1762927236.512117      41 common_lib.cc:612] Could not set metric server port: INVALID_ARGUMENT: Metric server port 8431 is already in use.",
            'Transparent hugepages are not enabled. TPU runtime startup and shutdown time should be significantly improved on TPU v5e and newer. If not already set, you may need to enable transparent hugepages in your VM image (sudo sh -c "echo always > /sys/kernel/mm/transparent_hugepage/enabled")',
        ],
    )
    other = inc.pool_nodes("spot-v5e-16-other", 1)[0]
    end = train(inc, pods[:1], s + timedelta(seconds=80), 0, 45, 4.0, 7.1, maxtext_step)
    inc.gce_audit(
        other, s + timedelta(seconds=200), "compute.instances.preempted", "Instance was preempted."
    )
    inc.node_log(
        nodes[1][3],
        s + timedelta(seconds=240),
        "{1}[Hardware Error]: event severity: corrected",
        log="kernel",
        severity="WARNING",
    )
    inc.log(
        pods[0],
        s + timedelta(seconds=260),
        "W1112 06:04:55.120931     902 gcs_http_retry.cc:118] Retrying request (attempt 1/32) after: Error executing an HTTP request: HTTP response code 503 with body 'Service Unavailable'",
        severity="WARNING",
    )
    inc.log(
        pods[0],
        end + timedelta(seconds=1),
        "Saved checkpoint for step 40 to gs://acme-llm-ckpt/3b/checkpoints/40",
        stream="stdout",
    )
    train(inc, pods[:1], end + timedelta(seconds=3), 45, 20, 4.0, 6.2, maxtext_step)
    return inc, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "A healthy run: pods wait 35 s for the previous run's TPUs to free up (transient FailedScheduling), "
        "then start and train steadily. The noise is benign: preemption-service/tpunetd/THP/metric-port info, "
        "a corrected (not fatal) CPER record, one retried 503, and a Spot preemption of a node in another "
        "team's pool that this workload never used.",
    }


def window_misses_root() -> tuple[Incident, Expected]:
    inc = Incident(
        "window-starts-mid-cascade",
        "llm-13b-v5p-ms",
        "acme-llm-prod",
        "prod-v5p",
        "us-east5-a",
        utc(2025, 11, 20, 0, 0),
        127,
        "underscores",
    )
    nodes, pods = xpk(inc, "tpu-v5p-16", 2, 4)
    t = inc.start
    dead = pods[6]
    survivors = [p for p in pods if p is not dead]
    heartbeat_cascade(inc, survivors, 6, t + timedelta(seconds=2))
    restart_jobset(inc, f"{inc.workload}-slice-job-1", t + timedelta(seconds=9))
    pods1 = relaunch(inc, nodes, 1)
    t1 = t + timedelta(seconds=60)
    start_pods(inc, pods1, t1, IMAGE)
    jax_startup(
        inc, pods1, t1 + timedelta(seconds=14), "llm-13b-v5p-ms-slice-job-0-0.llm-13b-v5p-ms:8482"
    )
    train(inc, pods1[:1], t1 + timedelta(seconds=80), 18000, 30, 5.5, 1.98, maxtext_step)
    return inc, {
        "status": "inconclusive",
        "root_cause": None,
        "culprit_hosts": [dead.node],
        "failures": [row("crash", None, dead.node)],
        "why": "The window opens in the middle of the fallout: survivors abort naming task 6 (slice 1 host 2) and "
        "the JobSet restarts, but whatever killed task 6 happened before the window and no line from its host, "
        "node or VM is in the bundle. Only cascades: inconclusive, naming task 6's node; widen the window."
        " Relabelled to the headline contract (#14): it has no root cause, so its failure row's symptom is null (its coordination-heartbeat-cascade lines stay in its evidence).",
    }


def window_mid_run_healthy() -> tuple[Incident, Expected]:
    inc = Incident(
        "window-mid-run-eval-phase",
        "llm-1b-v6e",
        "acme-llm-dev",
        "dev-v6e",
        "us-east1-d",
        utc(2025, 11, 25, 12, 0),
        128,
        "dots",
        jsonl=True,
    )
    _nodes, pods = xpk(inc, "tpu-v6e-16", 1, 4)
    t = inc.start
    end = train(inc, pods[:1], t, 30551, 80, 1.6, 2.61, maxtext_step)
    inc.log(
        pods[0],
        end + timedelta(seconds=1),
        "Saved checkpoint for step 30630 to gs://acme-llm-ckpt/1b/checkpoints/30630",
        stream="stdout",
    )
    for pod in pods:
        inc.log(
            pod,
            end + timedelta(seconds=3),
            "Running evaluation on 2048 batches of c4/en:3.0.1 validation",
            stream="stdout",
        )
    for k in range(4):
        inc.log(
            pods[0],
            end + timedelta(seconds=60 * (k + 1)),
            f"eval progress: {512 * (k + 1)}/2048 batches",
            stream="stdout",
        )
    inc.log(
        pods[0],
        end + timedelta(seconds=250),
        "eval loss: 2.642, eval perplexity: 14.04",
        stream="stdout",
    )
    train(inc, pods[:1], end + timedelta(seconds=252), 30631, 10, 1.6, 2.60, maxtext_step)
    return inc, {
        "status": "no_failure",
        "root_cause": None,
        "culprit_hosts": [],
        "failures": [],
        "why": "The window starts in the middle of a healthy run (no start-up lines, which is fine), includes a "
        "4-minute evaluation phase without step lines that reports progress and ends, and training resumes. "
        "Nothing failed.",
    }


INCIDENTS: list[Callable[[], tuple[Incident, Expected]]] = [
    pathways_proxy_unreachable,
    pathways_slice_lost,
    multislice_network_hang,
    multislice_hlo_mismatch,
    nan_loss,
    restore_after_preemption,
    restore_topology_change,
    gcs_throttled_save,
    liveness_loop,
    ephemeral_eviction,
    auto_repair,
    kernel_mce,
    core_halted_big_slice,
    vfio_busy_after_crash,
    tpu_in_use_sidecar,
    jaxlib_skew,
    topology_misconfig,
    barrier_slow_compile,
    coordinator_oom,
    incarnation_single_restart,
    shutdown_barrier_end,
    image_pull,
    kueue_preempted,
    dynamic_slice,
    mldiag_not_injected,
    healthy_noisy,
    window_misses_root,
    window_mid_run_healthy,
]


def generate(root: Path = ROOT) -> list[Path]:
    folders = []
    for make in INCIDENTS:
        incident, expected = make()
        folders.append(incident.write(root, expected))
    return folders


if __name__ == "__main__":
    for folder in generate():
        print(folder)
