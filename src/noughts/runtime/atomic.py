"""Files written whole or not at all: every file noughts writes goes through here.

Each file is written to a temporary file in its own directory, flushed to the disk
(``fsync``), then renamed over the old one, so a reader sees the earlier file or the new
one, never half of either. A failed write (a full disk, a read-only directory) removes
the temporary file, leaves the earlier file whole and raises :class:`WriteError`, a
:class:`~noughts.errors.NoughtsError` that names the file. :func:`check_writable` lets a
command that will write find out before it spends its time.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "result.json"
...     write_atomic(path, "{}\\n")
...     write_if_changed(path, b"{}\\n"), path.read_text(), [p.name for p in path.parent.iterdir()]
(False, '{}\\n', ['result.json'])
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from noughts.errors import NoughtsError

__all__ = [
    "WriteError",
    "write_atomic",
    "write_files",
    "write_if_changed",
    "check_writable",
    "BLOCK_BYTES",
]

_PROBE_BYTES = 64 * 1024
"""Free space a file of unknown size is expected to need at least."""

BLOCK_BYTES = 4096
"""The least a small file takes on a disk (one block of the usual file systems)."""


class WriteError(NoughtsError):
    """A file could not be written (the earlier file, if any, is left whole)."""


def _failure(path: Path, error: OSError) -> WriteError:
    reason = error.strerror or str(error)
    return WriteError(f"cannot write {path}: {reason}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stage(path: Path, data: bytes) -> Path:
    """``data`` in a new temporary file beside ``path``, on the disk; its path."""
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    staged = Path(name)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        os.chmod(staged, mode)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    return staged


def _sync_directory(folder: Path) -> None:
    """Make the renames in ``folder`` durable (best effort: not every system can)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def write_files(contents: Mapping[Path, bytes | str]) -> None:
    """Write several files together: every one is staged on the disk first, and only
    then are they renamed into place, so a failure leaves all the earlier files as
    they were (text is written as UTF-8). Raises :class:`WriteError`."""
    staged: dict[Path, Path] = {}
    try:
        for path, data in contents.items():
            raw = data.encode() if isinstance(data, str) else data
            try:
                staged[path] = _stage(Path(path), raw)
            except OSError as error:
                raise _failure(Path(path), error) from None
        for path, temporary in list(staged.items()):
            try:
                os.replace(temporary, path)
            except OSError as error:
                raise _failure(Path(path), error) from None
            del staged[path]
    finally:
        for temporary in staged.values():
            temporary.unlink(missing_ok=True)
    for folder in {Path(path).parent for path in contents}:
        _sync_directory(folder)


def write_atomic(path: Path | str, data: bytes | str) -> None:
    """Write one file atomically (see :func:`write_files`)."""
    write_files({Path(path): data})


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically, unless the file already holds exactly these
    bytes: then it is left alone, so a build with nothing to do changes no file. True if
    it was written."""
    if path.is_file() and path.read_bytes() == data:
        return False
    write_atomic(path, data)
    return True


def check_writable(path: Path | str, *, needed_bytes: int | None = None,
                   at_least: int = _PROBE_BYTES) -> None:
    """Raise :class:`WriteError` now if ``path`` could not be written later: its
    directory missing or not writable (a file is created there and removed), the path a
    directory, or less free space than ``needed_bytes`` (default: the file's present
    size, which its rewrite stages a copy of, and at least ``at_least``: 64 KiB for a
    file of unknown size, :data:`BLOCK_BYTES` for one that starts small).

    >>> check_writable("/proc/noughts-test")
    Traceback (most recent call last):
    ...
    noughts.runtime.atomic.WriteError: cannot write /proc/noughts-test: No such file or directory
    """
    target = Path(path)
    if target.is_dir():
        raise WriteError(f"cannot write {target}: it is a directory")
    folder = target.parent
    if not folder.is_dir():
        raise WriteError(f"cannot write {target}: no such directory {str(folder)!r}")
    try:
        _stage(target, b"").unlink()
    except OSError as error:
        raise _failure(target, error) from None
    if needed_bytes is None:
        needed_bytes = max(at_least, target.stat().st_size if target.is_file() else 0)
    try:
        space = os.statvfs(folder)
    except OSError:
        return  # no figure to go by
    free = space.f_bavail * space.f_frsize
    if free < needed_bytes:
        raise WriteError(
            f"cannot write {target}: No space left on device ({free:,} bytes free, "
            f"about {needed_bytes:,} needed)"
        )
