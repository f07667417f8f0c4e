"""Fixtures of venom-notes' tests: real daemons from the test kit (venom_gen.testing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from venom_gen.testing import DaemonProcess, McpPeer, PrivateDirs


@pytest.fixture
def venom_product() -> str:
    """The product the kit's fixtures (venom_daemon, venom_app, ...) start."""
    return "venom_notes.product:PRODUCT"


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio: the daemon's server (and so ``venom_app``) is asyncio's."""
    return "asyncio"


@pytest.fixture
def fresh(venom_product: str, venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    """A daemon on an empty notes database, not started; stopped after the test."""
    d = DaemonProcess(venom_product, dirs=venom_dirs)
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture
def daemon(fresh: DaemonProcess) -> DaemonProcess:
    """A running daemon on an empty notes database."""
    return fresh.start()


@pytest.fixture
def mcp(daemon: DaemonProcess) -> Iterator[McpPeer]:
    with daemon.mcp() as peer:
        yield peer
