"""Logging that never blocks the event loop: records go through a bounded queue to a thread.

While `queued_logging` is active, the root logger's handlers (or Python's last-resort stderr
handler when it has none) sit behind one queue handler; a daemon thread hands them each record.
If that thread is stuck (the daemon's stderr is a pipe nobody reads), the queue fills and
further records are dropped and counted instead of blocking; the thread reports the count
before the next record it writes (rfcs/0002-wire-decisions.md D-W28).
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import queue
import threading
from collections.abc import Iterator

__all__ = ("QUEUE_RECORDS", "dropped_records", "queued_logging")

#: Records the queue holds before it drops.
QUEUE_RECORDS = 10000
_STOP = logging.makeLogRecord({"msg": "stop"})
_lock = threading.Lock()


class _DroppingHandler(logging.handlers.QueueHandler):
    """A queue handler that drops (and counts) a record rather than wait for room."""

    def __init__(self, records: queue.Queue[logging.LogRecord]) -> None:
        super().__init__(records)
        self.dropped = 0
        self._count = threading.Lock()

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            with self._count:
                self.dropped += 1

    def take_dropped(self) -> int:
        with self._count:
            dropped, self.dropped = self.dropped, 0
        return dropped


class _Installed:
    def __init__(self) -> None:
        self.root = logging.getLogger()
        self.handlers = list(self.root.handlers)
        self.downstream = self.handlers or [logging.lastResort or logging.StreamHandler()]
        self.records: queue.Queue[logging.LogRecord] = queue.Queue(QUEUE_RECORDS)
        self.handler = _DroppingHandler(self.records)
        self.thread = threading.Thread(target=self._drain, name="venom-log", daemon=True)
        self.users = 0

    def start(self) -> None:
        for handler in self.handlers:
            self.root.removeHandler(handler)
        self.root.addHandler(self.handler)
        self.thread.start()

    def stop(self) -> None:
        self.root.removeHandler(self.handler)
        for handler in self.handlers:
            self.root.addHandler(handler)
        with contextlib.suppress(queue.Full):  # full: the thread is stuck; leave it be
            self.records.put_nowait(_STOP)
            self.thread.join(timeout=1.0)

    def _drain(self) -> None:
        while (record := self.records.get()) is not _STOP:
            dropped = self.handler.take_dropped()
            if dropped:
                self._handle(
                    logging.makeLogRecord(
                        {
                            "name": "venom_proto.server",
                            "levelno": logging.WARNING,
                            "levelname": "WARNING",
                            "msg": f"{dropped} log records dropped: the log output was not read",
                        }
                    )
                )
            self._handle(record)

    def _handle(self, record: logging.LogRecord) -> None:
        for handler in self.downstream:
            if record.levelno >= handler.level:
                handler.handle(record)


_active: _Installed | None = None


@contextlib.contextmanager
def queued_logging() -> Iterator[None]:
    """Route the root logger through the dropping queue for the duration (nests)."""
    global _active
    with _lock:
        if _active is None:
            _active = _Installed()
            _active.start()
        installed = _active
        installed.users += 1
    try:
        yield
    finally:
        with _lock:
            installed.users -= 1
            last = installed.users == 0
            if last:
                _active = None
        if last:
            installed.stop()


def dropped_records() -> int:
    """Records dropped so far and not yet reported (0 when the queue is not active)."""
    installed = _active
    return 0 if installed is None else installed.handler.dropped
