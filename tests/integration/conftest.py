"""The integration suite: venom-echo booted for real, driven over the socket, the CLI and MCP.

``@pytest.mark.covers(surface, verb, ...)`` names the verbs a test exercises over one surface;
``test_integ_registry.py`` fails for any verb a surface exposes that no test names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from integration_kit import Daemon
from integration_mcp import Mcp


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "covers(surface, *verbs): verbs a test exercises over socket, cli or mcp"
    )


@pytest.fixture
def idle_daemon() -> Iterator[Daemon]:
    """A daemon of the test's own, not started (the test may start it), stopped after."""
    d = Daemon()
    try:
        yield d
    finally:
        d.close()


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    """One running daemon shared by tests that leave its configuration alone."""
    with Daemon() as d:
        yield d


@pytest.fixture
def own_daemon() -> Iterator[Daemon]:
    """A daemon of the test's own (its config may change), stopped after the test."""
    with Daemon() as d:
        yield d


@pytest.fixture(scope="session", params=Mcp.REVISIONS)
def mcp_session(daemon: Daemon, request: pytest.FixtureRequest) -> Iterator[Mcp]:
    """One ``venom-echo mcp`` adapter session on the shared daemon, per revision the SDK client
    offers (rfcs/0004 D-S70)."""
    m = Mcp(daemon, revision=request.param)
    try:
        yield m
    finally:
        m.close()
