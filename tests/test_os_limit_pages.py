"""Pages for a process refused by the operating system: an exhausted limit other than memory
(os-resource-limit) and a port another process holds (port-already-in-use), through the public
loader, engine and pipeline.

The structure every new page shares (role, sections, real cited examples, counter-examples, a
read-only verification) is tested once in tests/test_new_failure_pages.py; here the families match
the wordings the emitters print (other runtimes, other frames) and not their healthy look-alikes,
and each verification workflow confirms on its own evidence, names what it found and refutes
without it. The diagnosis names the limit or the port as the root over the catch-all abort or
exception the process dies of, the limit over a connect error whose reason is a missing descriptor,
the port over the peers' connect timeouts, and the TPU held by another process over the port it
holds.
"""

from __future__ import annotations

import pytest

from tests.test_new_failure_pages import (
    NODES,
    _diagnose,
    _event,
    _jobset_pods,
    _line,
    _training,
    _verify,
    matched,
)

# ---- the pages ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, page",
    [
        # descriptors, as each runtime prints EMFILE
        ("dial tcp 10.8.0.3:443: socket: too many open files", "os-resource-limit"),
        ("Error: Too many open files (os error 24)", "os-resource-limit"),
        (
            'E1026 15:41:43.262210239   17356 ev_epollex_linux.cc:1454]   pollset_set_add_pollset: {"created":"@1635243103.262149995","description":"Too many open files","errno":24}',
            "os-resource-limit",
        ),
        ("OSError: [Errno 23] Too many open files in system: '/tmp/x'", "os-resource-limit"),
        ("Couldn't initialize inotify: Too many open files", "os-resource-limit"),
        # threads, in TSL's named and unnamed wordings and in Pathways' proxy client
        (
            "F0412 08:01:02.000000 12 env.cc:74] Check failed: ret == 0 (11 vs. 0)Thread HostBufferStoreLookupsWorkQueue creation via pthread_create() failed.",
            "os-resource-limit",
        ),
        (
            "Check failed: ret == 0 (11 vs. 0) Thread creation via pthread_create() failed.",
            "os-resource-limit",
        ),
        (
            "/app/vendor/bundle/ruby/2.5.0/gems/childprocess-0.9.0/lib/childprocess/unix/fork_exec_process.rb:20: warning: pthread_create failed for timer: Resource temporarily unavailable, scheduling broken",
            "os-resource-limit",
        ),
        ("java.lang.OutOfMemoryError: unable to create new native thread", "os-resource-limit"),
        ("OCaml Thread.create: Resource temporarily unavailable", "os-resource-limit"),
        # a thread refused in C++, Rust and systemd's and watchdog's words
        (
            "terminate called after throwing an instance of 'std::system_error'\n  what():  Resource temporarily unavailable",
            "os-resource-limit",
        ),
        (
            "thread '<unnamed>' panicked at 'failed to spawn thread: Os { code: 11, kind: WouldBlock, message: \"Resource temporarily unavailable\" }'",
            "os-resource-limit",
        ),
        ("OSError: [Errno 28] inotify watch limit reached", "os-resource-limit"),
        (
            'E0827 18:48:24.279544       1 watcher.go:146] Failed to watch directory "/sys/fs/cgroup/pids/kubepods/besteffort/pod1": no space left on device',
            "os-resource-limit",
        ),
        # locked memory refused, fatal or warned about, and a thread refused in a program's own words
        (
            "[2026-06-01T08:00:01,120][ERROR][o.e.b.JNANatives] Unable to lock JVM Memory: error=12, reason=Cannot allocate memory",
            "os-resource-limit",
        ),
        (
            "GLib-ERROR **: 08:00:01.002: creating thread 'pool-spawner': Error creating thread: Resource temporarily unavailable",
            "os-resource-limit",
        ),
        ("worker: could not create worker thread (errno=11)", "os-resource-limit"),
        # processes and the pods' pids cgroup
        (
            "cgroup: fork rejected by pids controller in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice",
            "os-resource-limit",
        ),
        ("sudo: unable to fork: Resource temporarily unavailable", "os-resource-limit"),
        # inotify watches, whose ENOSPC is no full disk
        (
            'failed to watch file "/var/lib/docker/containers/15ed/15ed-json.log": no space left on device',
            "os-resource-limit",
        ),
        (
            "inotify_add_watch /sys/fs/cgroup/cpu,cpuacct: no space left on device",
            "os-resource-limit",
        ),
        (
            "Error: ENOSPC: System limit for number of file watchers reached, watch '/app/src'",
            "os-resource-limit",
        ),
        # a port held, in each runtime's frame and in gRPC's and the JAX coordinator's summaries
        ("listen tcp 0.0.0.0:8476: bind: address already in use", "port-already-in-use"),
        ("OSError: [Errno 48] Address already in use", "port-already-in-use"),
        (
            "E0601 08:00:02.412008    1 add_port.cc:83] Failed to add port to server: No address added out of total 1 resolved for '[::]:8476'",
            "port-already-in-use",
        ),
        (
            'E0512 14:47:28.171308000 140735128658688 server_chttp2.c:159] {"created":"@1494614848.171249000","description":"No address added out of total 1 resolved"}',
            "port-already-in-use",
        ),
        (
            "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to start RPC server",
            "port-already-in-use",
        ),
        (
            "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
            "port-already-in-use",
        ),
        ("TensorBoard could not bind to port 6006, it was already in use", "port-already-in-use"),
        (
            "docker: Error response from daemon: driver failed programming external connectivity on endpoint jax-coordinator: Bind for 0.0.0.0:8476 failed: port is already allocated.",
            "port-already-in-use",
        ),
    ],
)
def test_every_rendering_of_a_family_matches_it(line: str, page: str) -> None:
    assert page in matched(line), line


@pytest.mark.parametrize(
    "line, page",
    [
        # EAGAIN that is not a limit: a non-blocking socket, a full backlog, the TPU driver's mmap
        ("BlockingIOError: [Errno 11] Resource temporarily unavailable", "os-resource-limit"),
        ("connect: resource temporarily unavailable", "os-resource-limit"),
        (
            "Failed to initialize TPU system with error: FAILED_PRECONDITION: Couldn't mmap: Resource temporarily unavailable",
            "os-resource-limit",
        ),
        # an emulator's EINVAL, a real full disk, a limit reported healthy, a file lock
        ("runtime: failed to create new OS thread (have 2 already; errno=22)", "os-resource-limit"),
        ("OSError: [Errno 28] No space left on device: '/tmp/ckpt'", "os-resource-limit"),
        ("open files                      (-n) 1048576", "os-resource-limit"),
        (
            "E: Could not get lock /var/lib/dpkg/lock-frontend - open (11: Resource temporarily unavailable)",
            "os-resource-limit",
        ),
        ("pthread_create failed: Operation not permitted", "os-resource-limit"),
        # the TPU device held (its own page), a bind to an address not on the host, an unparsable
        # gRPC address, a server that came up, a client out of ephemeral ports
        (
            "The TPU is already in use by process with pid 2718466. Not attempting to load libtpu.so in this process.",
            "port-already-in-use",
        ),
        ("[Errno 99] Cannot assign requested address", "port-already-in-use"),
        ("Failed to add port to server: Unparsable name: :20013", "port-already-in-use"),
        ("Jax service listening on [::]:8476", "port-already-in-use"),
        ("dial tcp 10.0.0.7:443: connect: cannot assign requested address", "port-already-in-use"),
        ("Port 3000 is already in use, trying 3001...", "port-already-in-use"),
    ],
)
def test_a_look_alike_of_a_family_does_not_match_it(line: str, page: str) -> None:
    assert page not in matched(line), line


# ---- the verification workflows, offline, through the real engine ---------------------------


TSL_THREAD = (
    "2026-06-01 08:00:01.000000: F external/xla/xla/tsl/platform/default/env.cc:74] Check failed: "
    "ret == 0 (11 vs. 0)Thread tf_XLAPjRtCpuClient creation via pthread_create() failed."
)


def test_a_limit_is_confirmed_with_its_kind_and_refuted_by_a_healthy_log(tmp_path) -> None:
    pod = _jobset_pods("llm-pretrain")[1]
    run = _verify(
        tmp_path, "verify-os-resource-limit", "llm-pretrain", [_line(1, 0, pod, TSL_THREAD, node=1)]
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["limit"] == ["pthread_create"]
    assert run["outputs"]["culprit_host"] == NODES[1]
    healthy = _verify(
        tmp_path,
        "verify-os-resource-limit",
        "llm-pretrain",
        [_line(1, 0, pod, "completed step: 4, loss: 9.610")],
    )
    assert healthy["verdict"] == "refuted", healthy
    nothing = _verify(
        tmp_path,
        "verify-os-resource-limit",
        "llm-pretrain",
        [_event(1, 0, pod, "Scheduled", f"Successfully assigned default/{pod} to {NODES[0]}")],
    )
    assert nothing["verdict"] == "inconclusive", nothing


COORDINATOR_PORT = (
    "E0601 08:00:02.412008    1 add_port.cc:83] Failed to add port to server: No address added "
    "out of total 1 resolved for '[::]:8476' (sockaddr: [::]:8476 Address already in use)"
)


def test_a_held_port_is_confirmed_with_the_port_and_refuted_by_a_healthy_log(tmp_path) -> None:
    pod = _jobset_pods("llm-pretrain")[0]
    run = _verify(
        tmp_path, "verify-port-already-in-use", "llm-pretrain", [_line(1, 0, pod, COORDINATOR_PORT)]
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["port"] == ["8476"]
    assert run["outputs"]["culprit_host"] == NODES[0]
    healthy = _verify(
        tmp_path,
        "verify-port-already-in-use",
        "llm-pretrain",
        [_line(1, 0, pod, "Jax service listening on [::]:8476")],
    )
    assert healthy["verdict"] == "refuted", healthy


# ---- the diagnosis ---------------------------------------------------------------------------


def test_a_thread_limit_abort_is_the_root_not_the_abort(tmp_path) -> None:
    """TSL's CHECK is a fatal abort whose message names the thread limit: the catch-all
    process-abort yields to it on the line, and the limit is the root on the host that printed
    it (the stack trace header after it is the abort's own line)."""
    workload = "llm-pretrain"
    pods = _jobset_pods(workload)
    assert matched(TSL_THREAD) == {"os-resource-limit"}
    entries = _training(workload, 60)
    entries.append(_line(9000, 61, pods[2], TSL_THREAD, node=2))
    entries.append(_line(9001, 61.001, pods[2], "*** Check failure stack trace: ***", node=2))
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "os-resource-limit"
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[2]]


def test_a_connect_refused_for_want_of_a_descriptor_names_the_limit(tmp_path) -> None:
    """urllib3's `Failed to establish a new connection: [Errno 24] …` also matches
    dependency-unreachable; the dependency was never asked, the client ran out of descriptors."""
    workload = "llm-pretrain"
    pod = _jobset_pods(workload)[0]
    line = (
        "urllib3.exceptions.NewConnectionError: <urllib3.connection.HTTPSConnection object at "
        "0x7f3a2c1d5e50>: Failed to establish a new connection: [Errno 24] Too many open files"
    )
    assert {"dependency-unreachable", "os-resource-limit"} <= matched(line)
    entries = [_line(n, 5 * n, pod, line) for n in range(4)]
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["root_cause"]["symptom"] == "os-resource-limit", findings["summary"]


def test_a_coordinator_port_held_after_a_restart_is_the_root_over_the_peers_timeouts(
    tmp_path,
) -> None:
    """Process 0 cannot start the JAX coordinator: the other hosts time out connecting to it
    (a symptom on their hosts); the root is the held port, on process 0's host."""
    workload = "llm-pretrain"
    pods = _jobset_pods(workload)
    entries = [
        _line(1, 0, pods[0], COORDINATOR_PORT),
        _line(
            2,
            0.001,
            pods[0],
            "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to start RPC server",
        ),
    ]
    for i in (1, 2, 3):
        entries.append(
            _line(
                10 + i,
                300 + i,
                pods[i],
                "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. "
                "Barrier_id: PjRT_Client_Connect. Timed out task names:",
                node=i,
            )
        )
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["status"] == "diagnosed", findings["summary"]
    assert findings["root_cause"]["symptom"] == "port-already-in-use"
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[0]]


def test_the_tpu_held_by_another_process_explains_its_port(tmp_path) -> None:
    """A stale process holds the TPU and, with it, libtpu's port: both pages match lines of the
    new process; the device held is the deeper root (explains.py)."""
    workload = "llm-pretrain"
    pod = _jobset_pods(workload)[1]
    port = "add_port.cc:83 Failed to add port to server: … '[::]:8431': Address already in use"
    held = (
        "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by "
        "process with pid 2718466. Not attempting to load libtpu.so in this process."
    )
    entries = [_line(1, 0, pod, port, node=1), _line(2, 0.5, pod, held, node=1)]
    findings = _diagnose(tmp_path, workload, entries)
    assert findings["root_cause"]["symptom"] == "tpu-already-in-use", findings["summary"]
    assert [c["host"] for c in findings["culprit_hosts"]] == [NODES[1]]


def test_the_kernel_s_pids_controller_on_the_node_confirms_a_process_limit(tmp_path) -> None:
    """The kernel reports a pod's exhausted pids cgroup in the node's log, not the container's:
    the find action reads the node logs too and names the limit."""
    node_line = {
        "insertId": "kn1",
        "logName": "projects/p/logs/kernel",
        "timestamp": "2026-06-01T08:00:05.000000Z",
        "severity": "ERROR",
        "resource": {"type": "k8s_node", "labels": {"node_name": NODES[3]}},
        "textPayload": "cgroup: fork rejected by pids controller in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5e1c.slice",
    }
    pod = _jobset_pods("llm-pretrain")[3]
    run = _verify(
        tmp_path,
        "verify-os-resource-limit",
        "llm-pretrain",
        [_line(1, 0, pod, "completed step: 4, loss: 9.610", node=3), node_line],
    )
    assert run["verdict"] == "confirmed", run
    assert run["outputs"]["limit"] == ["fork rejected by pids controller"]
    assert run["outputs"]["culprit_host"] == NODES[3]
