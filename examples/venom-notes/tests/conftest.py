"""Fixtures of venom-notes' tests: real daemons on short private temporary roots."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from notes_kit import Daemon, McpPeer


@pytest.fixture
def short_root() -> Iterator[Path]:
    # /tmp, not pytest's tmp_path: a Unix socket path must fit in about 100 bytes.
    root = Path(tempfile.mkdtemp(prefix="vn", dir="/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fresh(short_root: Path) -> Iterator[Daemon]:
    """A daemon on an empty notes database, not started; stopped after the test."""
    d = Daemon(short_root)
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture
def daemon(fresh: Daemon) -> Daemon:
    """A running daemon on an empty notes database."""
    fresh.start()
    return fresh


@pytest.fixture
def mcp(daemon: Daemon) -> Iterator[McpPeer]:
    peer = McpPeer(daemon)
    try:
        yield peer
    finally:
        peer.close()
