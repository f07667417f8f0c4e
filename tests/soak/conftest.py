"""Hooks of the load and fault suite: a daemon fixture, the fd limit and the figures summary.

``SOAK_SCALE=full`` (the nox ``soak`` session) runs issue 8's full sizes; the default runs the
same scenarios smaller, fitting CI.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from soak_kit import FIGURES, FULL, EchoDaemon, raise_fd_limit


@pytest.fixture(scope="session", autouse=True)
def _fd_limit() -> None:
    raise_fd_limit()


@pytest.fixture
def daemon() -> Iterator[EchoDaemon]:
    """A fresh running daemon, stopped and its directory removed afterwards."""
    d = EchoDaemon()
    try:
        d.start()
        yield d
    finally:
        d.cleanup()


def pytest_report_header(config: pytest.Config) -> str:
    return f"soak: SOAK_SCALE={'full' if FULL else 'ci'}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not FIGURES:
        return
    terminalreporter.section(f"soak figures (SOAK_SCALE={'full' if FULL else 'ci'})")
    for name, value in FIGURES.items():
        terminalreporter.write_line(f"{name:<44} {value}")
