"""Files a command writes never overwrite what it reads, nor each other.

`check_outputs(outputs, inputs, flag)` refuses (BadInput naming `flag`) before anything is
written when two outputs are one file, or an output is an input file (by any path: a symlink
or hard link counts), or is a log file inside an input bundle folder (it would be read back as
log entries). `write_atomically` writes through a temporary file in the same folder,
so an interrupted write never leaves half a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Optional

from mlwiki.errors import BadInput


def _same(left: Path, right: Path) -> bool:
    if left.resolve() == right.resolve():
        return True
    try:
        return left.exists() and right.exists() and os.path.samefile(left, right)
    except OSError:
        return False


def _log_name(path: Path) -> bool:
    from mlwiki.logs.bundle import LOG_SUFFIXES, NOT_LOGS

    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return name.endswith(LOG_SUFFIXES) and path.name not in NOT_LOGS


def check_outputs(outputs: list[Path], inputs: Iterable[Optional[Path]], flag: str) -> None:
    given = [Path(p) for p in inputs if p is not None]
    for number, output in enumerate(outputs):
        for other in outputs[number + 1 :]:
            if _same(output, other):
                raise BadInput(f"{flag} {output}: two outputs would be the same file ({other})")
        for source in given:
            if (
                source.is_dir()
                and source.resolve() in output.resolve().parents
                and _log_name(output)
            ):
                raise BadInput(
                    f"{flag} {output}: inside the bundle folder {source}, where it would be read "
                    "back as log entries; write it elsewhere"
                )
            if _same(output, source):
                raise BadInput(f"{flag} {output}: is the input {source}; it would be overwritten")
        if output.is_dir():
            raise BadInput(f"{flag} {output}: is a folder")


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
