"""The black-box conformance suite: it knows the RFCs, not the implementation.

Options: ``--tool NAME`` (default venom-echo), ``--daemon CMD`` (default ``NAME serve``) and
``--cli CMD`` (default ``NAME``). The daemon is started for real on a private runtime directory
and reached only through its socket, its CLI and its MCP adapter.
"""

from __future__ import annotations

import collections
import shlex
import shutil
import sys
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conformance_kit import Daemon, Target


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("venom conformance")
    group.addoption("--tool", default="venom-echo", help="tool name of the daemon under test")
    group.addoption("--daemon", default=None, help="command that runs the daemon (TOOL serve)")
    group.addoption("--cli", default=None, help="command that runs the CLI (TOOL)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rfc(section): the RFC section a conformance test checks")
    config.addinivalue_line(
        "markers", "needs_echo: uses venom-echo's own verbs (echo.*, ECHO_BYTES); other tools skip"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need venom-echo's product verbs skip for any other daemon under test."""
    tool = config.getoption("--tool")
    if tool == "venom-echo":
        return
    skip = pytest.mark.skip(reason=f"needs venom-echo's own verbs; {tool} is under test")
    for item in items:
        if item.get_closest_marker("needs_echo"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    tool = pytestconfig.getoption("--tool")
    daemon = pytestconfig.getoption("--daemon") or f"{tool} serve"
    cli = pytestconfig.getoption("--cli") or tool
    argv = shlex.split(cli)
    if shutil.which(argv[0]) is None:
        pytest.exit(f"conformance: {argv[0]!r} is not on PATH", returncode=4)
    return Target(tool, shlex.split(daemon), argv)


@pytest.fixture
def short_root() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="vc", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def fresh(target: Target, short_root: Path) -> Iterator[Daemon]:
    """A daemon set up but not started, stopped after the test."""
    d = Daemon(target, short_root)
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture(scope="session")
def daemon(target: Target) -> Iterator[Daemon]:
    """One running daemon shared by the tests that don't change its state."""
    root = Path(tempfile.mkdtemp(prefix="vs", dir="/tmp"))
    d = Daemon(target, root)
    d.start()
    try:
        yield d
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)


_results: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    marker = item.get_closest_marker("rfc")
    if marker is not None and (
        report.when == "call" or (report.when == "setup" and report.outcome != "passed")
    ):
        _results[str(marker.args[0])][report.outcome] += 1
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _results:
        return
    tr = terminalreporter
    tr.section("conformance by RFC section")
    tr.write_line(f"{'section':<24} {'passed':>7} {'failed':>7} {'skipped':>8}")
    for section in sorted(_results, key=_section_key):
        c = _results[section]
        tr.write_line(f"{section:<24} {c['passed']:>7} {c['failed']:>7} {c['skipped']:>8}")


def _section_key(section: str) -> list[Any]:
    rfc, _, rest = section.partition(" §")
    return [rfc, *(int(p) if p.isdigit() else p for p in rest.split("."))]
