"""Fixtures for the venom-mcp tests; helpers live in ``mcp_testkit`` (importable from here)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from mcp_testkit import REVISIONS, Daemon, load_model

from venom_gen.testing import PrivateDirs
from venom_schema.model import Model


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=REVISIONS)
def revision(request: pytest.FixtureRequest) -> str:
    """Each MCP revision the adapter is held to (rfcs/0004 D-S70)."""
    version: str = request.param
    return version


@pytest.fixture
def model() -> Model:
    return load_model()


@pytest.fixture
def socket_path(venom_dirs: PrivateDirs) -> str:
    """A socket path in a fresh short private directory (the test kit's; removed afterwards)."""
    return os.path.join(venom_dirs.root, "venom-echo.sock")


@pytest.fixture
def daemon(socket_path: str) -> Iterator[Daemon]:
    """The test daemon, running on ``socket_path``."""
    with Daemon(socket_path) as running:
        yield running
