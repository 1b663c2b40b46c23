"""Running kubectl and gcloud (argument lists, never a shell), recorded outputs, client reads.

- `run_command(argv, timeout)`: the program is found on PATH (`shutil.which`); stdout, stderr and
  the exit code are captured; a timeout is an exit code of None with an error, not a hang.
- Recorded outputs (offline bundles): a bundle's `kubectl/` folder holds the outputs of commands,
  so that a bundle replays kubectl (and gcloud) reads without a cluster. The key of a command is its
  argv without the `--context=…` / `--namespace=…` flags the engine adds (a bundle is recorded
  against one cluster); `kubectl/index.json` is `{"recordings": [{"argv": [...], "file": NAME,
  "exit_code": 0}]}`, and a file named `<sha1 of the key's elements joined by NUL>.json` (or
  `.txt`) is found without an index entry. `record_output` writes both.
- `read_objects(...)`: structured reads through the `kubernetes` client, as raw JSON dicts
  (`_preload_content=False`: no model validation can reject a partly filled object).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Protocol

from mlwiki.errors import BadInput

RECORDINGS_DIR = "kubectl"
RECORDINGS_INDEX = "index.json"
SCOPE_FLAGS = ("--context", "--namespace")


class ToolNotFound(BadInput):
    """kubectl or gcloud is not on PATH."""


class NotRecorded(BadInput):
    """An offline bundle holds no recorded output for a command."""


@dataclass
class CommandResult:
    argv: list[str]
    exit_code: Optional[int]  # None: it timed out
    stdout: str
    stderr: str
    seconds: float = 0.0
    recorded: bool = False  # served from a bundle's recordings

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class CommandRunner(Protocol):
    def __call__(self, argv: list[str], timeout: float) -> CommandResult: ...


def find_program(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise ToolNotFound(
            f"{name}: not found on PATH; install it (see `mlwiki doctor`) or run with --bundle"
        )
    return path


def run_command(argv: list[str], timeout: float = 60) -> CommandResult:
    """Run `argv` (a list; the program found on PATH), capturing its output."""
    import subprocess  # ~5 ms to import; a bundle's diagnosis replays recordings instead

    program = find_program(argv[0])
    started = time.monotonic()
    try:
        done = subprocess.run(
            [program, *argv[1:]],
            capture_output=True,
            text=True,
            errors="replace",
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        return CommandResult(
            argv,
            None,
            _text(expired.stdout),
            f"{_text(expired.stderr)}\ntimed out after {timeout:g}s".lstrip(),
            time.monotonic() - started,
        )
    return CommandResult(
        argv, done.returncode, done.stdout, done.stderr, time.monotonic() - started
    )


def _text(data: Any) -> str:
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""


def recording_key(argv: list[str]) -> list[str]:
    """The argv without the context/namespace flags the engine adds (both spellings)."""
    key: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in SCOPE_FLAGS:
            skip = True
        elif not arg.startswith(tuple(f"{flag}=" for flag in SCOPE_FLAGS)):
            key.append(arg)
    return key


def recording_name(argv: list[str]) -> str:
    return hashlib.sha1("\x00".join(recording_key(argv)).encode()).hexdigest()


def _index(folder: Path) -> list[dict[str, Any]]:
    path = folder / RECORDINGS_INDEX
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BadInput(f"{path}: not a readable JSON index ({error})") from None
    recordings = data.get("recordings") if isinstance(data, dict) else None
    if not isinstance(recordings, list):
        raise BadInput(f'{path}: expected {{"recordings": [...]}}')
    return [r for r in recordings if isinstance(r, dict)]


@dataclass
class RecordedRunner:
    """Serves commands from a bundle's recordings instead of running them."""

    bundle: Path

    @property
    def folder(self) -> Path:
        root = self.bundle if self.bundle.is_dir() else self.bundle.parent
        return root / RECORDINGS_DIR

    def __call__(self, argv: list[str], timeout: float = 60) -> CommandResult:
        key = recording_key(argv)
        for recording in _index(self.folder):
            if recording.get("argv") == key and isinstance(recording.get("file"), str):
                file = self.folder / Path(recording["file"]).name
                code = recording.get("exit_code", 0)
                return self._read(argv, file, code if isinstance(code, int) else 0)
        name = recording_name(argv)
        for suffix in (".json", ".txt"):
            file = self.folder / f"{name}{suffix}"
            if file.is_file():
                return self._read(argv, file, 0)
        raise NotRecorded(
            f"not recorded in bundle: {' '.join(key)} (no entry in "
            f"{self.folder / RECORDINGS_INDEX} and no {self.folder / name}.json)"
        )

    def _read(self, argv: list[str], file: Path, exit_code: int) -> CommandResult:
        try:
            stdout = file.read_text(encoding="utf-8")
        except OSError as error:
            raise BadInput(f"{file}: cannot read recorded output ({error.strerror})") from None
        return CommandResult(argv, exit_code, stdout, "", recorded=True)


def record_output(bundle: Path, argv: list[str], stdout: str, exit_code: int = 0) -> Path:
    """Store a command's output in a bundle's recordings (file + index entry); returns the file."""
    folder = bundle / RECORDINGS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".json" if _is_json(stdout) else ".txt"
    file = folder / f"{recording_name(argv)}{suffix}"
    file.write_text(stdout, encoding="utf-8")
    key = recording_key(argv)
    recordings = [r for r in _index(folder) if r.get("argv") != key]
    recordings.append({"argv": key, "file": file.name, "exit_code": exit_code})
    (folder / RECORDINGS_INDEX).write_text(
        json.dumps({"recordings": recordings}, indent=2) + "\n", encoding="utf-8"
    )
    return file


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# -- the kubernetes client ---------------------------------------------------------------------
# kind -> (API class, list-all method, list-in-namespace method); jobsets are custom objects.
CLIENT_KINDS = {
    "nodes": ("CoreV1Api", "list_node", None),
    "namespaces": ("CoreV1Api", "list_namespace", None),
    "pods": ("CoreV1Api", "list_pod_for_all_namespaces", "list_namespaced_pod"),
    "events": ("CoreV1Api", "list_event_for_all_namespaces", "list_namespaced_event"),
    "jobs": ("BatchV1Api", "list_job_for_all_namespaces", "list_namespaced_job"),
    "jobsets": ("CustomObjectsApi", "list_cluster_custom_object", "list_namespaced_custom_object"),
}
JOBSET_RESOURCE = ("jobset.x-k8s.io", "v1alpha2", "jobsets")


def kubeconfig_path() -> str:
    """$KUBECONFIG as it is now (the kubernetes client reads it only once, at import), else
    ~/.kube/config. A colon-separated list is passed on whole; the client merges it."""
    return os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")


def read_objects(
    kind: str,
    *,
    context: Optional[str] = None,
    namespace: Optional[str] = None,
    label_selector: Optional[str] = None,
    field_selector: Optional[str] = None,
    kubeconfig: Optional[str] = None,
) -> dict[str, Any]:
    """A List of `kind` (a key of CLIENT_KINDS) as raw JSON, through the kubernetes client.

    All namespaces unless `namespace` is given. Uses the kubeconfig (`kubeconfig`, else
    $KUBECONFIG or ~/.kube/config) and `context` (default: its current context).
    """
    from kubernetes import client, config
    from kubernetes.client.exceptions import ApiException
    from kubernetes.config.config_exception import ConfigException

    if kind not in CLIENT_KINDS:
        raise BadInput(f"kind {kind!r}: expected one of {', '.join(CLIENT_KINDS)}")
    class_name, list_all, list_namespaced = CLIENT_KINDS[kind]
    try:
        api_client = config.new_client_from_config(
            config_file=kubeconfig or kubeconfig_path(), context=context
        )
    except (ConfigException, OSError) as error:
        raise BadInput(f"kubeconfig: {error}") from None
    api = getattr(client, class_name)(api_client)
    args: list[Any] = list(JOBSET_RESOURCE) if kind == "jobsets" else []
    method = list_all
    if namespace and list_namespaced:
        method = list_namespaced
        args = [*args[:2], namespace, *args[2:]] if kind == "jobsets" else [namespace]
    options = {
        name: value
        for name, value in (("label_selector", label_selector), ("field_selector", field_selector))
        if value
    }
    try:
        response = getattr(api, method)(*args, _preload_content=False, **options)
        return json.loads(response.data)
    except ApiException as error:
        raise BadInput(f"kubernetes API ({kind}): {error.status} {error.reason}") from None
    finally:
        api_client.close()
