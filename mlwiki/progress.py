"""A progress display for long fetches: rich, on stderr, and only when stderr is a terminal.

When stderr is not a terminal (pipes, CI, tests, agents reading JSON) nothing is printed at all,
so machine-readable stdout stays clean and logs stay quiet.
"""

from __future__ import annotations

import sys
from typing import Any, Optional, TextIO


class ProgressTask:
    """One line of the display: a description and a count that grows."""

    def __init__(self, owner: Any, task_id: Any) -> None:
        self._owner = owner
        self._task_id = task_id

    def advance(self, amount: int) -> None:
        if self._owner is not None:
            self._owner.advance(self._task_id, amount)

    def done(self) -> None:
        if self._owner is not None:
            self._owner.stop_task(self._task_id)


class Progress:
    """Context manager; `task(description)` returns a `ProgressTask` (inert when not shown)."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._display: Any = None

    @property
    def enabled(self) -> bool:
        isatty = getattr(self._stream, "isatty", None)
        return bool(isatty and isatty())

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress as RichProgress
            from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

            self._display = RichProgress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TextColumn("{task.completed} entries"),
                TimeElapsedColumn(),
                console=Console(file=self._stream),
                transient=True,
            )
            self._display.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None

    def task(self, description: str) -> ProgressTask:
        if self._display is None:
            return ProgressTask(None, None)
        return ProgressTask(self._display, self._display.add_task(description, total=None))
