"""`--output=PATH`: the report written to a file, whole or not at all; and the checks, before
anything runs, that no file the tool writes is another one it writes or reads.

A regular file is written beside its destination under a temporary name and
renamed over it once the command succeeded, so a failed run leaves no half
report (and an earlier report stays as it was). Anything else at PATH (a
FIFO, `/dev/stdout`) is written directly. `-` means standard output.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from pathways_workload.errors import InputFileError, OutputError, UsageError


def _unwritable(path: str, error: OSError, flag: str = "--output") -> OutputError:
    reason = error.strerror or str(error)
    return OutputError(f"{flag}={path}: cannot write it ({reason}); choose a writable path")


def _mode_for(target: Path) -> int:
    """The destination's mode if it exists, else what the umask gives a new file."""
    if target.is_file():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _check_writable(path: str, target: Path, flag: str) -> None:
    """Renaming over a file needs only its folder writable: a file the user may not write
    (read-only, another user's) is refused as `>` would refuse it."""
    if os.path.isfile(target) and not os.access(target, os.W_OK):
        raise _unwritable(path, PermissionError(errno.EACCES, os.strerror(errno.EACCES)), flag)


@contextlib.contextmanager
def _replacing(path: str, target: Path, flag: str) -> Iterator[TextIO]:
    _check_writable(path, target, flag)
    try:
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".partial"
        )
        stream = os.fdopen(handle, "w", encoding="utf-8")
    except OSError as error:
        raise _unwritable(path, error, flag) from None
    try:
        yield stream
        try:
            stream.close()
            os.chmod(temporary, _mode_for(target))
            os.replace(temporary, target)
        except OSError as error:
            raise _unwritable(path, error, flag) from None
    finally:
        with contextlib.suppress(OSError):
            stream.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _direct(path: str, stream: TextIO, flag: str) -> Iterator[TextIO]:
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
        raise _unwritable(path, error, flag) from None


@contextlib.contextmanager
def destination(
    path: str | None, stdout: TextIO | None, flag: str = "--output"
) -> Iterator[TextIO | None]:
    """Standard output when `path` is None or `-`; else a stream whose text lands at `path`
    when the block ends without an exception. An unwritable path is an OutputError naming
    `flag`, the option that gave it."""
    if path is None or path == "-":
        yield stdout
        return
    given = Path(path)
    # A device, a FIFO, /dev/stdout on a pipe. (os.path answers False for a path it cannot
    # examine, where Path.exists() raises: writing it then says why.)
    if os.path.exists(given) and not os.path.isfile(given):
        try:
            direct = given.open("w", encoding="utf-8")
        except OSError as error:
            raise _unwritable(path, error, flag) from None
        yield from _direct(path, direct, flag)
        return
    # A symbolic link stays one: the file it points to is the one replaced.
    with _replacing(path, Path(os.path.realpath(path)), flag) as stream:
        yield stream


def _same_file(one: Path, other: Path) -> bool:
    """Whether two resolved paths are one regular file or folder (a terminal or a pipe both
    streams name is not overwritten)."""
    if os.path.exists(one) and not (os.path.isfile(one) or os.path.isdir(one)):
        return False
    try:
        return one == other or (one.exists() and other.exists() and os.path.samefile(one, other))
    except OSError:
        return False


def _check_working_directory(
    outputs: Sequence[tuple[str, str | None]], inputs: Sequence[str]
) -> None:
    """A relative path is resolved in the working directory: once that was deleted, say so
    for the first such path (an output's exit code, or an input's), instead of crashing."""
    paths = [*outputs, *(("--logs_file", source) for source in inputs)]
    relative = [(flag, path) for flag, path in paths if path and path != "-"]
    relative = [(flag, path) for flag, path in relative if not os.path.isabs(path)]
    if not relative:
        return
    try:
        os.getcwd()
    except FileNotFoundError:
        flag, path = relative[0]
        error = InputFileError if flag == "--logs_file" else OutputError
        raise error(
            f"{flag}={path}: a relative path, but the working directory no longer exists; "
            "cd to a folder that exists, or give the absolute path"
        ) from None


def check_destinations(outputs: Sequence[tuple[str, str | None]], inputs: Sequence[str]) -> None:
    """Refuse, before anything runs, a file written twice (`--output` and `--commands_out`
    the same) or written over what `--logs_file` reads (the export would be lost), and a
    `--commands_out` that cannot be written (found only after every query ran otherwise)."""
    _check_working_directory(outputs, inputs)
    written = [(flag, path, Path(os.path.realpath(path))) for flag, path in outputs if path]
    written = [(flag, path, real) for flag, path, real in written if path != "-"]
    for index, (flag, path, real) in enumerate(written):
        for other_flag, _, other in written[index + 1 :]:
            if _same_file(real, other):
                raise UsageError(
                    f"{flag}={path} and {other_flag} name the same file: give each its own"
                )
        for source in inputs:
            read = Path(os.path.realpath(source))
            within = os.path.isdir(read) and read in real.parents
            if source == "-" or not (within or _same_file(real, read)):
                continue
            what = "the folder it is in" if within else "it"
            raise UsageError(
                f"{flag}={path}: --logs_file={source} reads {what}; write elsewhere (the "
                "export would be overwritten, or replayed next time)"
            )
        if flag == "--commands_out" and (os.path.isdir(real) or not os.path.isdir(real.parent)):
            reason = "it is a folder" if os.path.isdir(real) else "its folder does not exist"
            raise OutputError(f"{flag}={path}: cannot write it ({reason}); choose a writable path")
        if flag == "--commands_out":
            _check_writable(path, real, flag)
