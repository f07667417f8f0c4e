"""The daemon's own files, read and written without trusting what is at the path.

A path the daemon reads (``config.toml``, an installed ``SKILL.md``) may name a FIFO, a device,
a symlink or a huge sparse file. `read_regular` opens it with ``O_NOFOLLOW | O_NONBLOCK`` (so
neither a link nor a FIFO with no writer can hold it), refuses anything but a regular file, and
reads at most ``limit`` bytes. `write_atomic` writes a file by rename, so readers see the old
bytes or the new ones, never a torn file: the data goes first to an unnamed file
(``O_TMPFILE``), which a crash simply frees, and gets a temporary name only for the instant
before the rename. Where ``O_TMPFILE`` is missing the temporary file is named from the start.
Either way each temporary file is ``flock``ed by its writer, so `remove_stale` can tell one
that a killed writer left (no lock) from one being written (locked) and remove only the first.

These calls block; the verbs run them in worker threads (`in_worker`), never on the event loop.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
from anyio import to_thread

__all__ = (
    "MAX_CONFIG_BYTES",
    "FileRefused",
    "FileWorkers",
    "read_regular",
    "remove_stale",
    "write_atomic",
)

#: The largest ``config.toml`` the daemon reads or writes (rfcs/0001 §6).
MAX_CONFIG_BYTES = 1024 * 1024

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_CHUNK = 1024 * 1024
#: Temporary files that writers before the locking scheme left (``mkstemp``'s 8 characters)
#: are removed only once this old, since their writer holds no lock to ask.
_LEGACY_AGE = 60.0

T = TypeVar("T")


class FileRefused(Exception):
    """Raised by `read_regular` for a path that holds something other than a small regular file.

    The message describes the file ("it is a FIFO, not a regular file"); callers name the path.
    """


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "something else"


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path``, None if nothing is there.

    Raises `FileRefused` for a symlink, anything but a regular file, or more than ``limit``
    bytes; ``OSError`` for other failures (permissions, I/O).
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileRefused("it is a symbolic link, which the daemon does not follow") from None
        if exc.errno == errno.ENXIO:  # a Unix socket
            raise FileRefused("it is a socket, not a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"it is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise FileRefused(f"it is {st.st_size} bytes; the limit is {limit}")
        chunks: list[bytes] = []
        left = limit + 1  # one byte more tells a file that grew past the limit
        while left > 0:
            chunk = os.read(fd, min(left, _CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise FileRefused(f"it is larger than the limit of {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _temp_name(directory: Path, prefix: str) -> Path:
    return directory / f"{prefix}{secrets.token_hex(8)}.tmp"


def _named_temp(directory: Path, prefix: str, mode: int) -> tuple[int, Path]:
    """A new temporary file, locked, still under its name (a cleaner may have raced us)."""
    while True:
        tmp = _temp_name(directory, prefix)
        try:
            fd = os.open(tmp, _CREATE_FLAGS, mode)
        except FileExistsError:
            continue
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(tmp, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                return fd, tmp
        except FileNotFoundError:
            pass  # `remove_stale` took it before we locked it: start again
        os.close(fd)


#: False once linking an ``O_TMPFILE`` file into a directory failed (some sandboxes refuse the
#: ``/proc/self/fd`` link): from then on temporary files are named from the start.
_link_unnamed_works = True


def _unnamed_temp(directory: Path, mode: int) -> int | None:
    """An ``O_TMPFILE`` file in ``directory``, or None where the system or file system has none."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not _link_unnamed_works or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        fd = os.open(directory, flag | os.O_WRONLY | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise
    fcntl.flock(fd, fcntl.LOCK_EX)  # before it has a name, so no cleaner ever sees it unlocked
    return fd


def write_atomic(path: Path, data: bytes, mode: int, *, prefix: str) -> None:
    """Replace ``path`` by a file holding ``data`` (``mode``), durably and atomically.

    Temporary names are ``<prefix><16 hex digits>.tmp`` beside ``path``. Raises ``OSError``;
    after a failure ``path`` is unchanged and no temporary file is left.
    """
    global _link_unnamed_works
    directory = path.parent
    # The temporary file stays open, so locked, until it is renamed: a cleaner never takes it.
    fd = _unnamed_temp(directory, mode)
    if fd is not None:
        try:
            _fill(fd, data, mode)
            try:
                tmp = _link_unnamed(fd, directory, prefix)
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.ENOENT, errno.EPERM, errno.EACCES):
                    raise
                _link_unnamed_works = False  # write it again below, under a name
            else:
                _rename(tmp, path)
                return
        finally:
            os.close(fd)
    fd, tmp = _named_temp(directory, prefix, mode)
    try:
        try:
            _fill(fd, data, mode)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _rename(tmp, path)
    finally:
        os.close(fd)


def _fill(fd: int, data: bytes, mode: int) -> None:
    os.fchmod(fd, mode)  # exactly ``mode``: open() applied the umask to it
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _rename(tmp: Path, path: Path) -> None:
    try:
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_directory(path.parent)


def _link_unnamed(fd: int, directory: Path, prefix: str) -> Path:
    while True:
        tmp = _temp_name(directory, prefix)
        try:
            os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
            return tmp
        except FileExistsError:
            continue


def _sync_directory(directory: Path) -> None:
    """Make the rename durable; best effort, since the new file is already in place."""
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def remove_stale(directory: Path, prefix: str, legacy_suffix: str = ".tmp") -> int:
    """Remove temporary files that killed writers left in ``directory``; returns how many.

    A file counts when its name is ``<prefix><16 hex>.tmp`` (ours) or ``<prefix><8 chars>
    <legacy_suffix>`` (an older writer's ``mkstemp``), it is a regular file of ours, and no
    writer holds its lock; a legacy one must also be a minute old. Nothing else is touched.
    """
    pattern = re.compile(
        re.escape(prefix)
        + r"(?:(?P<new>[0-9a-f]{16})\.tmp|[a-z0-9_]{8}"
        + re.escape(legacy_suffix)
        + r")\Z"
    )
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        found = pattern.match(entry.name)
        if found is not None and _remove_if_stale(Path(entry.path), legacy=found["new"] is None):
            removed += 1
    return removed


def _remove_if_stale(path: Path, *, legacy: bool) -> bool:
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return False
        if legacy and time.time() - st.st_mtime < _LEGACY_AGE:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live writer
        if os.stat(path, follow_symlinks=False).st_ino != st.st_ino:
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


class FileWorkers:
    """Worker threads for file I/O, at most four at once, so a hung file system (NFS) can hold
    only these and never the threads other handlers use."""

    def __init__(self, limit: int = 4) -> None:
        self._size = limit
        self._limiter: anyio.CapacityLimiter | None = None

    async def run(self, fn: Callable[[], T], *, abandon_on_cancel: bool = False) -> T:
        """``fn()`` in a worker thread. ``abandon_on_cancel`` for reads: a cancelled caller
        does not wait for them."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self._size)
        return await to_thread.run_sync(
            fn, abandon_on_cancel=abandon_on_cancel, limiter=self._limiter
        )
