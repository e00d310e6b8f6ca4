"""The exports a run reads: files, folders of them, and streams.

A folder is read recursively in name order, except that a container's live log
(`0.log`) comes after the kubelet's rotations of it (`0.log.YYYYMMDD-hhmmss`), as it
was written; names below it that start with a dot are skipped (the folder given
may itself sit under a hidden folder). A subfolder that cannot be read, a broken
symbolic link or a special file inside a folder stops the run naming the path,
rather than being skipped quietly.
`-` (standard input), a FIFO, `<(command)` or `/dev/stdin` is a stream: it is
copied once into an unnamed temporary file, so that later stages (node
discovery, follow-up queries) can read it again.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, BinaryIO

from pathways_workload.errors import InputFileError, UsageError

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
_COPY_BYTES = 1 << 20
# A container's live log in a node's /var/log/pods (RESTARTS.log); its rotations add `.TIME`.
_LIVE_CRI_LOG_RE = re.compile(r"([0-9]+\.log)(?:\.gz)?")


class _Spool(io.RawIOBase):
    """An independent reader of a temporary file (positional reads, its own offset)."""

    def __init__(self, spool: IO[bytes]) -> None:
        super().__init__()
        self._spool = spool
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position}.get(whence)
        if base is None:
            base = os.fstat(self._spool.fileno()).st_size
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = os.pread(self._spool.fileno(), len(buffer), self._position)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)


@dataclasses.dataclass(frozen=True)
class ExportFile:
    """One export: its name in messages, and its bytes (a path, or a spooled stream)."""

    name: str
    path: Path | None = None
    spool: IO[bytes] | None = None

    def open(self) -> BinaryIO:
        """A fresh reader of the raw (maybe compressed) bytes, positioned at the start."""
        if self.spool is not None:
            return io.BufferedReader(_Spool(self.spool), buffer_size=_COPY_BYTES)
        assert self.path is not None
        try:
            return self.path.open("rb")
        except OSError as error:
            raise InputFileError(f"{self.name}: cannot read it ({error.strerror})") from None

    @property
    def empty(self) -> bool:
        """Whether the export holds no byte at all (an empty file, or an empty stream)."""
        if self.spool is not None:
            return os.fstat(self.spool.fileno()).st_size == 0
        assert self.path is not None
        try:
            return self.path.stat().st_size == 0
        except OSError:
            return False  # reading it says why

    def read_at(self, offset: int, size: int) -> bytes:
        """`size` raw bytes from `offset`, read again (an uncompressed export's block)."""
        with self.open() as handle:
            handle.seek(offset)
            data = handle.read(size)
        if len(data) != size:
            raise InputFileError(f"{self.name}: the file changed while it was read; read it again")
        return data


def _copy(stream: IO[bytes], spool: IO[bytes]) -> None:
    """Copy a stream, stopping after the first piece that holds a NUL byte unless it is
    gzipped: no export holds one, so reading the copy refuses it (naming its line, or the
    encoding of UTF-16 text) rather than filling the disk with an endless stream first."""
    gzipped = None
    while chunk := stream.read(_COPY_BYTES):
        gzipped = chunk.startswith(GZIP_MAGIC) if gzipped is None else gzipped
        spool.write(chunk)
        if not gzipped and b"\x00" in chunk:
            return


def _spooled(name: str, stream: IO[bytes]) -> ExportFile:
    # Kept open as long as the export is: later stages read it again.
    spool = tempfile.TemporaryFile(prefix="pathways-workload-")  # noqa: SIM115
    try:
        _copy(stream, spool)
        spool.flush()
    except OSError as error:
        raise InputFileError(f"{name}: cannot read it ({error.strerror})") from None
    return ExportFile(name, spool=spool)


def _stdin() -> ExportFile:
    if sys.stdin is None:
        raise UsageError("--logs_file=- reads standard input, which is closed: pipe an export in")
    if sys.stdin.isatty():
        raise UsageError(
            "--logs_file=- reads standard input, which is a terminal: pipe an export in"
        )
    return _spooled("<stdin>", sys.stdin.buffer)


def _stream(name: str) -> ExportFile:
    try:
        with open(name, "rb") as stream:
            return _spooled(name, stream)
    except OSError as error:
        raise InputFileError(f"{name}: cannot read it ({error.strerror})") from None


def _folder(folder: Path) -> list[Path]:
    """The files below a folder, in name order, hidden names skipped (symlinks followed once)."""
    found: list[Path] = []
    seen = {os.path.realpath(folder)}
    pending = [folder]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            raise InputFileError(
                f"{directory}: cannot read this folder ({error.strerror})"
            ) from None
        subfolders = []
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError as error:  # a symbolic link that loops
                raise InputFileError(
                    f"{path}: a symbolic link that cannot be followed ({error.strerror}); "
                    "remove it or fix its target"
                ) from None
            if is_dir:
                real = os.path.realpath(path)
                if real not in seen:
                    seen.add(real)
                    subfolders.append(path)
            elif entry.is_file():
                found.append(path)
            elif entry.is_symlink():
                raise InputFileError(f"{path}: a broken symbolic link; remove it or fix its target")
            else:
                raise InputFileError(f"{path}: not a regular file; move it out of the folder")
        pending.extend(reversed(subfolders))
    return sorted(found, key=_reading_order)


def _reading_order(path: Path) -> tuple[str, ...]:
    """A file's place in a folder's reading order: by path, a container's live log after the
    kubelet's rotations of it (a line split across a rotation is joined in that order)."""
    live = _LIVE_CRI_LOG_RE.fullmatch(path.name)
    return (*path.parts[:-1], f"{live[1]}.~" if live else path.name, path.name)


def _one(name: str) -> list[ExportFile]:
    try:
        mode = os.stat(name).st_mode
    except PermissionError as error:  # a folder on the path that cannot be searched
        raise InputFileError(
            f"{name}: cannot read it ({error.strerror}); check the permissions of the folders "
            "on its path"
        ) from None
    except OSError:
        if os.path.lexists(name):
            raise InputFileError(f"{name}: a broken symbolic link; check --logs_file") from None
        raise InputFileError(f"{name}: no such file or folder; check --logs_file") from None
    if stat.S_ISDIR(mode):
        files = _folder(Path(name))
        if not files:
            raise InputFileError(
                f"{name}: no export files in this folder (names starting with '.' are skipped)"
            )
        return [ExportFile(str(path), path) for path in files]
    if stat.S_ISREG(mode):
        return [ExportFile(name, Path(name))]
    return [_stream(name)]


def export_files(names: Sequence[str]) -> list[ExportFile]:
    """Every export the `--logs_file` values name, streams copied aside once."""
    if list(names).count(STDIN) > 1:
        raise UsageError("--logs_file=- can be given once: standard input is read once")
    files: list[ExportFile] = []
    for name in names:
        files.extend([_stdin()] if name == STDIN else _one(name))
    return files
