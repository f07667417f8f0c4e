"""Hooks of the fuzz suite: the ``fuzz`` fixture, the seed header and the input summary.

``FUZZ_EXAMPLES`` (default 100000) is the total number of inputs one run must try, split across
the targets by weight; the nox ``fuzz`` session raises it (e.g. to 1000000). ``FUZZ_SEED`` replays
a run: the seed in use is printed in the header and in the terminal summary. When every fuzz test
ran and passed, the session fails if fewer than ``FUZZ_EXAMPLES`` inputs were tried.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterator
from typing import Any

import pytest
from fuzz_kit import SEED, TOTAL, WEIGHTS, Fuzz, counts, cpu_guard

_outcomes: Counter[str] = Counter()
_SHORT = pytest.StashKey[bool]()
_MARK = "fuzz_target"


@pytest.fixture
def fuzz(request: pytest.FixtureRequest) -> Iterator[Fuzz]:
    """The `Fuzz` helper for the target named by the test module's ``TARGET``."""
    with cpu_guard():
        yield Fuzz(str(request.module.TARGET))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{_MARK}: a fuzz test that counts its inputs")


def pytest_report_header(config: pytest.Config) -> str:
    return f"fuzz: FUZZ_EXAMPLES={TOTAL} FUZZ_SEED={SEED}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "fuzz" in getattr(item, "fixturenames", ()):
            item.add_marker(_MARK)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call" and item.get_closest_marker(_MARK) is not None:
        _outcomes[report.outcome] += 1
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    fuzz_tests = sum(1 for item in session.items if item.get_closest_marker(_MARK) is not None)
    complete = fuzz_tests > 0 and _outcomes["passed"] == fuzz_tests and set(WEIGHTS) <= set(counts)
    if complete and sum(counts.values()) < TOTAL:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        session.config.stash[_SHORT] = True


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not counts:
        return
    tr = terminalreporter
    tr.section("fuzz inputs")
    for target in sorted(counts):
        tr.write_line(f"{target:<10} {counts[target]:>10,}")
    total = sum(counts.values())
    tr.write_line(f"{'total':<10} {total:>10,}  (FUZZ_EXAMPLES={TOTAL}, FUZZ_SEED={SEED})")
    if config.stash.get(_SHORT, False):
        tr.write_line(f"FAILED: fewer than {TOTAL} inputs were tried", red=True)
