"""`--output=PATH`: the report written to a file, whole or not at all.

A regular file is written beside its destination under a temporary name and
renamed over it once the command succeeded, so a failed run leaves no half
report (and an earlier report stays as it was). Anything else at PATH (a
FIFO, `/dev/stdout`) is written directly. `-` means standard output.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from pathways_workload.errors import OutputError


def _unwritable(path: str, error: OSError) -> OutputError:
    reason = error.strerror or str(error)
    return OutputError(f"--output={path}: cannot write it ({reason}); choose a writable path")


def _mode_for(target: Path) -> int:
    """The destination's mode if it exists, else what the umask gives a new file."""
    if target.is_file():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def _replacing(path: str, target: Path) -> Iterator[TextIO]:
    try:
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".partial"
        )
        stream = os.fdopen(handle, "w", encoding="utf-8")
    except OSError as error:
        raise _unwritable(path, error) from None
    try:
        yield stream
        try:
            stream.close()
            os.chmod(temporary, _mode_for(target))
            os.replace(temporary, target)
        except OSError as error:
            raise _unwritable(path, error) from None
    finally:
        with contextlib.suppress(OSError):
            stream.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _direct(path: str, stream: TextIO) -> Iterator[TextIO]:
    """A stream written in place, closed whatever happens; failing to close it (the last
    of the text not written) is an OutputError, unless an error is already on its way."""
    try:
        yield stream
    except BaseException:
        with contextlib.suppress(OSError):
            stream.close()
        raise
    try:
        stream.close()
    except OSError as error:
        raise _unwritable(path, error) from None


@contextlib.contextmanager
def destination(path: str | None, stdout: TextIO | None) -> Iterator[TextIO | None]:
    """Standard output when `path` is None or `-`; else a stream whose text lands at `path`
    when the block ends without an exception. An unwritable path is an OutputError."""
    if path is None or path == "-":
        yield stdout
        return
    # A symbolic link stays one: the file it points to is the one replaced.
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        try:
            direct = target.open("w", encoding="utf-8")
        except OSError as error:
            raise _unwritable(path, error) from None
        yield from _direct(path, direct)
        return
    with _replacing(path, target) as stream:
        yield stream
