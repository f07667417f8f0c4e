"""The real daemon keeps serving while it writes its token store (rfcs/0005 §7.3): a slow disk
(every ``fsync`` in the daemon takes a second, through a ``sitecustomize`` on its path) holds
only the ``token.issue`` that waits for it, never another connection's ``ping``."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from venom_gen.testing import DaemonProcess

SLOW_FSYNC = 0.6

SITECUSTOMIZE = f"""
import os, time
_fsync = os.fsync
def _slow(fd):
    time.sleep({SLOW_FSYNC})
    _fsync(fd)
os.fsync = _slow
"""


@pytest.fixture
def slow_disk_daemon(tmp_path: Path) -> Any:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    with DaemonProcess("venom_echo.product:PRODUCT", env={"PYTHONPATH": str(site)}) as d:
        yield d


@pytest.mark.covers("socket", "token.issue")
def test_a_ping_is_answered_while_token_issue_waits_on_the_disk(slow_disk_daemon: Any) -> None:
    d = slow_disk_daemon
    issued: dict[str, Any] = {}

    def issue() -> None:
        with d.client() as c:
            issued.update(c.call("token.issue", {"name": "ci", "grants": ["read"]}))

    with d.client() as other:
        writer = threading.Thread(target=issue)
        started = time.monotonic()
        writer.start()
        time.sleep(0.2)  # token.issue is now in its write
        pinged = time.monotonic()
        other.ping()
        ping_took = time.monotonic() - pinged
        writer.join(30)
        issue_took = time.monotonic() - started
    assert issued["token"].startswith("vt1_")
    assert issue_took >= SLOW_FSYNC  # the write really was slow ...
    assert ping_took < SLOW_FSYNC / 2  # ... and the ping did not wait for it


@pytest.mark.covers("socket", "token.issue", "token.list")
def test_parallel_issues_over_many_connections_are_all_kept(slow_disk_daemon: Any) -> None:
    d = slow_disk_daemon
    names = [f"p{i}" for i in range(4)]
    errors: list[BaseException] = []

    def issue(name: str) -> None:
        try:
            with d.client() as c:
                c.call("token.issue", {"name": name, "grants": ["read"]})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=issue, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with d.client() as c:
        listed = sorted(t["name"] for t in c.call("token.list", {})["tokens"])
    assert listed == names
