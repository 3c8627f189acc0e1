"""Writing a file the user named on the command line (a report, a scenario, a log)."""

from __future__ import annotations

from pathlib import Path

from . import errors
from .errors import BaoError


def write_output(path: Path, text: str) -> None:
    """Write the text under the user's name for it: a path that cannot be written is bad input.

    A regular file is written whole or not at all (`language.errors.write_output`: beside it, then renamed).
    A device or a pipe (/dev/stdout, /dev/null, a named pipe) is written into instead: renamed over, it would
    be replaced by a plain file, /dev/null included when run as root. Closing it reports what the writes
    could not (a full disk)."""
    if not path.exists() or path.is_file():
        errors.write_output(path, text)
        return
    try:
        with path.open("w", encoding="utf-8") as out:
            out.write(text)
    except OSError as err:
        raise BaoError(f"{path}: cannot write: {err.strerror}") from None
