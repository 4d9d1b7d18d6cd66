"""Writing output files so that no reader, and no failure, ever leaves half a file."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path | str, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8, newlines untouched) through a temporary file beside
    `path`, then rename it into place; the temporary file never outlives the call."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
