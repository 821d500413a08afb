"""Files written whole or not at all: a reader (a browser, a spreadsheet, sbatch) never meets half of one, and a
full disk or a kill leaves the earlier file as it was."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str, mode: int = 0o644) -> None:
    """Write `text` to a temporary file beside `path`, flush it to disk, then rename it over `path`; `mode`: its
    permissions (0o600: its owner's alone)."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), mode)   # a left-over temporary file keeps its old mode otherwise
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
