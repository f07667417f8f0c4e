"""Files read and written without trusting what is at the path: the one atomic writer.

Every file a Venom package writes (the owner token, the model cache, ``config.toml``, the
token store, an installed ``SKILL.md``, unit files, man pages, MCP host configuration) goes
through `write_atomic`, under one durability rule: the data goes to a temporary file in the
same directory, created with its final mode, which is ``fsync``ed, renamed over the path, and
then the directory is ``fsync``ed, so a reader sees the old bytes or the new ones, never a
torn file, and a crash after the call returns loses neither.

Where the system has ``O_TMPFILE`` the temporary file is unnamed until the instant before the
rename, so a crash simply frees it; elsewhere it is named from the start. Either way each
temporary file is ``flock``ed by its writer, so `remove_stale` can tell one that a killed
writer left (no lock) from one being written (locked) and remove only the first.

A path a process reads (``config.toml``, an installed ``SKILL.md``) may name a FIFO, a
device, a symlink or a huge sparse file: `read_regular` opens it with ``O_NOFOLLOW |
O_NONBLOCK`` (so neither a link nor a FIFO with no writer can hold it), refuses anything but
a regular file, and reads at most ``limit`` bytes.

These calls block; a daemon runs them in worker threads, never on its event loop. The module
imports only C and core modules (``re`` only when cleaning up), since `write_all` is on the
path of ``<tool> bridge``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import stat
import time

__all__ = (
    "FileRefused",
    "read_regular",
    "remove_stale",
    "write_all",
    "write_atomic",
)

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_CHUNK = 1024 * 1024
#: Temporary files that writers before the locking scheme left (``mkstemp``'s 8 characters)
#: are removed only once this old, since their writer holds no lock to ask.
_LEGACY_AGE = 60.0


class FileRefused(Exception):
    """Raised by `read_regular` for a path that holds something other than a small regular file.

    The message describes the file ("it is a FIFO, not a regular file"); callers name the path.
    """


def write_all(fd: int, data: bytes | bytearray | memoryview) -> None:
    """Write all of ``data`` to ``fd``, waiting for it to be writable if it is non-blocking."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])


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


def read_regular(
    path: str | os.PathLike[str], limit: int, *, private: bool = False
) -> bytes | None:
    """The bytes of the regular file at ``path``, None if nothing is there.

    Raises `FileRefused` for a symlink, anything but a regular file, or more than ``limit``
    bytes, and with ``private`` for a file another user owns or others may read or write
    (a secret's file, mode 0600 at most); ``OSError`` for other failures (permissions, I/O).
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
        if private and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            mode = stat.S_IMODE(st.st_mode)
            raise FileRefused(f"it is owned by uid {st.st_uid} with mode {mode:o}, not 600")
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


def _temp_name(directory: str, prefix: str) -> str:
    return os.path.join(directory, f"{prefix}{os.urandom(8).hex()}.tmp")


def _named_temp(directory: str, prefix: str, mode: int) -> tuple[int, str]:
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


def _unnamed_temp(directory: str, mode: int) -> int | None:
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


def write_atomic(
    path: str | os.PathLike[str], data: bytes, mode: int = 0o600, *, prefix: str | None = None
) -> None:
    """Replace ``path`` by a file holding ``data`` with exactly ``mode``, durably and atomically.

    The file is ``fsync``ed before the rename and its directory after it. Temporary names are
    ``<prefix><16 hex digits>.tmp`` beside ``path``, ``prefix`` defaulting to ``.<name>.``
    (what `remove_stale` is given to clean up after a killed writer). Raises ``OSError``;
    after a failure ``path`` is unchanged and no temporary file is left.
    """
    global _link_unnamed_works
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    if prefix is None:
        prefix = f".{os.path.basename(target)}."
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
                _rename(tmp, target)
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
        _rename(tmp, target)
    finally:
        os.close(fd)


def _fill(fd: int, data: bytes, mode: int) -> None:
    os.fchmod(fd, mode)  # exactly ``mode``: open() applied the umask to it
    write_all(fd, data)
    os.fsync(fd)


def _rename(tmp: str, path: str) -> None:
    try:
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_directory(os.path.dirname(path) or ".")


def _link_unnamed(fd: int, directory: str, prefix: str) -> str:
    while True:
        tmp = _temp_name(directory, prefix)
        try:
            os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
            return tmp
        except FileExistsError:
            continue


def _sync_directory(directory: str) -> None:
    """Make the rename durable; best effort, since the new file is already in place."""
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def remove_stale(
    directory: str | os.PathLike[str], prefix: str, legacy_suffix: str = ".tmp"
) -> int:
    """Remove temporary files that killed writers left in ``directory``; returns how many.

    A file counts when its name is ``<prefix><16 hex>.tmp`` (ours) or ``<prefix><8 chars>
    <legacy_suffix>`` (an older writer's ``mkstemp``), it is a regular file of ours, and no
    writer holds its lock; a legacy one must also be a minute old. Nothing else is touched.
    """
    import re

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
        if found is not None and _remove_if_stale(entry.path, legacy=found["new"] is None):
            removed += 1
    return removed


def _remove_if_stale(path: str, *, legacy: bool) -> bool:
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
