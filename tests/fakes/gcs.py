"""A real GCS emulator (gcp-storage-emulator) on 127.0.0.1 for tests, started and stopped by them.

`GcsEmulator` runs the emulator's HTTP server in-process on a free port; point
$STORAGE_EMULATOR_HOST at `url` (the `gcs` fixture does) and the real google-cloud-storage client
talks to it. With a `data_dir` the objects survive a stop/start (for interrupted-upload tests);
a restart keeps the port.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from gcp_storage_emulator.server import create_server

BUCKET = "cc-handoff"


class GcsEmulator:
    def __init__(self, data_dir: Optional[Path] = None, bucket: str = BUCKET) -> None:
        self.data_dir = data_dir
        self.bucket_name = bucket
        self.port = 0
        self._server: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> GcsEmulator:
        # The emulator logs every request at INFO; keep test output readable.
        logging.getLogger("gcp_storage_emulator").setLevel(logging.WARNING)
        first = self._server is None
        server = create_server(
            "127.0.0.1",
            self.port,  # 0 the first time (a free port); the same port after a restart
            in_memory=self.data_dir is None,
            default_bucket=self.bucket_name if first else None,
            data_dir=str(self.data_dir) if self.data_dir else None,
        )
        server.start()
        # create_server does not expose the bound port; the API thread's HTTPServer knows it.
        self.port = server._api._httpd.server_address[1]
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    def client(self) -> Any:
        from google.api_core.client_options import ClientOptions
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage

        return storage.Client(
            project="test-project",
            credentials=AnonymousCredentials(),
            client_options=ClientOptions(api_endpoint=self.url),
        )

    def bucket(self) -> Any:
        return self.client().bucket(self.bucket_name)


def _emulator_version() -> tuple[int, ...]:
    from importlib.metadata import version

    return tuple(
        int(part) for part in version("gcp-storage-emulator").split(".")[:3] if part.isdigit()
    )


def running_emulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GcsEmulator]:
    """For a fixture: a running emulator (objects kept on disk under tmp_path) with
    $STORAGE_EMULATOR_HOST set; stopped afterwards."""
    if _emulator_version() < (2025,):
        pytest.skip(
            "gcp-storage-emulator before 2025 (the newest for Python 3.9) lacks bucket IAM and "
            "default buckets; these tests need Python 3.10+"
        )
    emulator = GcsEmulator(data_dir=tmp_path / "gcs-data").start()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.url)
    try:
        yield emulator
    finally:
        emulator.stop()
