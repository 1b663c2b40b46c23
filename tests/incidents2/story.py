"""Recurring sequences of a TPU JobSet's life, in the wording the real components print.

Pod start, JAX start-up, training step lines in several trainer styles, the coordination-service
cascades survivors print after a peer dies, JobSet restart and failure events. Incidents in
`make_incidents.py` compose these with their own root-cause lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from tests.incidents2.kit import Incident, Pod, absl

StepStyle = Callable[[Incident, int, float, float], str]


def maxtext_step(inc: Incident, step: int, seconds: float, loss: float) -> str:
    tflops = 180 + inc.rng.random() * 20
    return (
        f"completed step: {step}, seconds: {seconds:.3f}, TFLOP/s/device: {tflops:.3f}, "
        f"Tokens/s/device: {tflops * 21.7:.3f}, total_weights: 2097152, loss: {loss:.3f}"
    )


def kv_step(inc: Incident, step: int, seconds: float, loss: float) -> str:
    grad = 0.3 + inc.rng.random() * 0.2
    return f"step={step} loss={loss:.4f} grad_norm={grad:.3f} lr=3.000e-04 step_time={seconds:.2f}s"


def pipe_step(inc: Incident, step: int, seconds: float, loss: float) -> str:
    return f"Step {step}/40000 | loss {loss:.4f} | {seconds:.2f}s/it | mfu {0.41 + inc.rng.random() / 50:.3f}"


def start_pods(inc: Incident, pods: Sequence[Pod], when: datetime, image: str) -> None:
    """Scheduler assignment and kubelet start events for each pod."""
    for index, pod in enumerate(pods):
        t = when + timedelta(milliseconds=40 * index)
        inc.pod_event(
            pod.name,
            t,
            "Scheduled",
            f"Successfully assigned {inc.namespace}/{pod.name} to {pod.node}",
            component="default-scheduler",
        )
        inc.pod_event(
            pod.name,
            t + timedelta(seconds=3),
            "Pulled",
            f'Container image "{image}" already present on machine',
            host=pod.node,
        )
        inc.pod_event(
            pod.name,
            t + timedelta(seconds=4),
            "Started",
            f"Started container {pod.containers[0]}",
            host=pod.node,
        )


def jax_startup(
    inc: Incident, pods: Sequence[Pod], when: datetime, coordinator: str, extra: Sequence[str] = ()
) -> None:
    """What each JAX process prints while joining the distributed service."""
    for pod in pods:
        t = when + timedelta(milliseconds=inc.rng.randint(0, 1500))
        if pod.task == 0:
            inc.log(
                pod, t, f"Starting JAX distributed service on [::]:{coordinator.rsplit(':', 1)[1]}"
            )
        inc.log(
            pod,
            t + timedelta(milliseconds=20),
            f"Connecting to JAX distributed service on {coordinator}",
        )
        for offset, line in enumerate(extra):
            inc.log(pod, t + timedelta(milliseconds=200 + offset), line)
        inc.log(
            pod,
            t + timedelta(seconds=9),
            f"jax.distributed initialized: process {pod.task} of {len(pods)}",
            stream="stdout",
        )


def train(
    inc: Incident,
    pods: Sequence[Pod],
    when: datetime,
    first: int,
    count: int,
    seconds: float,
    loss: float,
    style: StepStyle,
    losses: Sequence[float] = (),
) -> datetime:
    """Step lines from the given pods; returns the time after the last step."""
    t = when
    for index in range(count):
        step_seconds = seconds * (0.97 + inc.rng.random() * 0.06)
        t += timedelta(seconds=step_seconds)
        value = losses[index] if index < len(losses) else loss - 0.002 * index
        for pod in pods:
            inc.log(
                pod,
                t + timedelta(milliseconds=inc.rng.randint(0, 400)),
                style(inc, first + index, step_seconds, value),
                stream="stdout",
            )
    return t


def unhealthy_line(dead_task: int) -> str:
    return (
        "Terminating process because the JAX distributed service detected fatal errors. This most "
        "likely indicates that another task died; see the other task logs for more details. Disable "
        "Python buffering, i.e. `python -u`, to be sure to see all the previous output. "
        "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n"
        f"/job:jax_worker/replica:0/task:{dead_task}\n"
        "The tasks have crashed. Check the task logs for an earlier error, or scheduler events "
        "(e.g. preemption, eviction) to debug further."
    )


def heartbeat_cascade(
    inc: Incident,
    survivors: Sequence[Pod],
    dead_task: int,
    when: datetime,
    split: bool = True,
    abort_trace: bool = True,
) -> None:
    """Task 0 reports the missed heartbeats; every survivor polls the error and aborts."""
    for pod in survivors:
        t = when + timedelta(milliseconds=inc.rng.randint(0, 900))
        thread = inc.rng.randint(300, 9000)
        if pod.task == 0:
            inc.log(
                pod,
                t - timedelta(seconds=1),
                absl(
                    "E",
                    t,
                    thread,
                    "coordination_service.cc:1147",
                    f"/job:jax_worker/replica:0/task:{dead_task} has been set to ERROR in coordination "
                    f"service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:{dead_task} heartbeat "
                    "timeout. This indicates that the remote task has failed, got preempted, or crashed "
                    "unexpectedly. Check the task logs for an earlier error or scheduler events (e.g. "
                    "preemption, eviction) to debug further. "
                    "[type.googleapis.com/tensorflow.CoordinationServiceError='']",
                ),
            )
        inc.log(
            pod,
            t,
            absl(
                "E",
                t,
                thread,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or another task).",
            ),
        )
        fatal = absl("F", t, thread, "client.h:77", unhealthy_line(dead_task))
        inc.log(pod, t + timedelta(microseconds=180), fatal, one_entry=not split)
        if abort_trace:
            abort(inc, pod, t + timedelta(milliseconds=2), thread)


def abort(inc: Incident, pod: Pod, when: datetime, thread: int) -> None:
    """What absl prints after any LOG(FATAL): the check-failure trace, then the SIGABRT handler."""
    inc.log(
        pod,
        when,
        "*** Check failure stack trace: ***\n"
        "    @     0x7f3c2a1b4e59  absl::log_internal::LogMessageFatal::~LogMessageFatal()\n"
        f"*** SIGABRT received by PID 1 (TID {thread}) on cpu {inc.rng.randint(0, 95)} from PID 1; stack trace: ***",
    )


def leader_lost(inc: Incident, survivors: Sequence[Pod], when: datetime, leader_ip: str) -> None:
    """Every task but 0 loses the coordination service when task 0 dies."""
    for pod in survivors:
        t = when + timedelta(milliseconds=inc.rng.randint(0, 1200))
        thread = inc.rng.randint(300, 9000)
        inc.log(
            pod,
            t,
            absl(
                "E",
                t,
                thread,
                "coordination_service_agent.cc:332",
                "Polled an error from coordination service (this can be an error from this or another task).",
            ),
        )
        inc.log(
            pod,
            t + timedelta(microseconds=240),
            absl(
                "F",
                t,
                thread,
                "client.h:77",
                "Terminating process because the JAX distributed service detected fatal errors. This most "
                "likely indicates that another task died; see the other task logs for more details. Disable "
                "Python buffering, i.e. `python -u`, to be sure to see all the previous output. "
                "absl::Status: UNAVAILABLE: Failed to send RPC to coordination service. Either the leader "
                "task was preempted/died/restarted unexpectedly or this task is experiencing network "
                "issues. Check earlier logs from 1) this task, 2) the leader (usually slice 0 task 0), and "
                "3) cluster scheduler to debug further.\n"
                "Additional GRPC error information from remote target coordination_service while calling "
                "/tensorflow.CoordinationService/PollForError:\n"
                f':{{"created":"@1718075564.118223091","description":"Error received from peer ipv4:{leader_ip}:8482",'
                '"grpc_message":"Socket closed","grpc_status":14}',
            ),
        )
        abort(inc, pod, t + timedelta(milliseconds=3), thread)


def sigterm(inc: Incident, pods: Sequence[Pod], when: datetime, container: str = "") -> None:
    """Kubelet stops the pods' containers; the Python signal handler reports SIGTERM."""
    for pod in pods:
        t = when + timedelta(milliseconds=inc.rng.randint(0, 800))
        name = container or pod.containers[0]
        inc.pod_event(pod.name, t, "Killing", f"Stopping container {name}", host=pod.node)
        inc.log(
            pod,
            t + timedelta(milliseconds=30),
            f"*** SIGTERM received by PID 1 (TID 1) on cpu {inc.rng.randint(0, 95)} from PID 0; stack trace: ***",
            container=name,
        )


def restart_jobset(
    inc: Incident, job: str, when: datetime, reason: str = "BackoffLimitExceeded"
) -> None:
    message = {
        "BackoffLimitExceeded": "Job has reached the specified backoff limit",
        "PodFailurePolicy": "Job failed by pod failure policy",
    }[reason]
    inc.object_event("Job", job, when, reason, message, "Warning", "job-controller", "batch/v1")
    inc.object_event(
        "JobSet",
        inc.workload,
        when + timedelta(milliseconds=350),
        "RestartJobSetFailurePolicyAction",
        f"applying RestartJobSet failure policy action (first failed job: {job})",
        "Warning",
    )


def fail_jobset(inc: Incident, pod: Pod, when: datetime, exit_code: int = 1) -> None:
    """XPK's podFailurePolicy: a non-restartable exit code fails the Job, then the JobSet."""
    inc.object_event(
        "Job",
        pod.job,
        when,
        "PodFailurePolicy",
        f"Container {pod.containers[0]} for pod {inc.namespace}/{pod.name} failed with exit code "
        f"{exit_code} matching FailJob rule at index 0",
        "Warning",
        "job-controller",
        "batch/v1",
    )
    inc.object_event(
        "JobSet",
        inc.workload,
        when + timedelta(milliseconds=420),
        "FailJobSetFailurePolicyAction",
        f"applying FailJobSet failure policy action (first failed job: {pod.job})",
        "Warning",
    )


def complete_jobset(inc: Incident, jobs: Sequence[str], when: datetime) -> None:
    for index, job in enumerate(jobs):
        inc.object_event(
            "Job",
            job,
            when + timedelta(milliseconds=90 * index),
            "Completed",
            "Job completed",
            component="job-controller",
            api_version="batch/v1",
        )
    inc.object_event(
        "JobSet",
        inc.workload,
        when + timedelta(seconds=1),
        "AllJobsCompleted",
        "jobset completed successfully",
    )


def traceback(frames: Sequence[tuple[str, int, str, str]], error: str) -> str:
    """A Python traceback as the trainer's stderr prints it (one logging entry per line)."""
    lines = ["Traceback (most recent call last):"]
    for path, line, function, code in frames:
        lines.append(f'  File "{path}", line {line}, in {function}')
        if code:
            lines.append(f"    {code}")
    lines.append(error)
    return "\n".join(lines)


TRAIN_FRAMES = [
    ("/app/maxtext/MaxText/train.py", 1051, "<module>", "app.run(main)"),
    ("/usr/local/lib/python3.10/site-packages/absl/app.py", 308, "run", "_run_main(main, args)"),
    (
        "/usr/local/lib/python3.10/site-packages/absl/app.py",
        254,
        "_run_main",
        "sys.exit(main(argv))",
    ),
    ("/app/maxtext/MaxText/train.py", 1047, "main", "train_loop(config)"),
]
