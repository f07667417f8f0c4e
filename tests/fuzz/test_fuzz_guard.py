"""The fuzz suite's own guards: a hanging input is stopped and reported, and counted."""

from __future__ import annotations

import pytest
from fuzz_kit import Fuzz, FuzzHang, counts, cpu_guard


def _spin() -> None:
    while True:
        pass


def test_an_input_that_spins_is_stopped_by_the_cpu_guard() -> None:
    """A decoder stuck in a loop fails its test instead of hanging the run."""
    guard = Fuzz("guard-selftest")
    guard.cpu_limit = 0.05
    with cpu_guard(), pytest.raises(FuzzHang):
        guard.run(_spin)
    assert counts.pop("guard-selftest") == 1
