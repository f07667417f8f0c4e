"""The pytest plugin of the black-box conformance suite: it knows the RFCs, not the
implementation. ``venom_mcp.conformance.main`` loads it (``-p venom_mcp.conformance.plugin``).

Options: ``--cli CMD`` (default ``TOOL``), ``--daemon CMD`` (default ``CLI serve``), ``--tool
NAME`` (default: the CLI's program name, else the daemon's, else venom-echo; a guess is
corrected by the socket the daemon creates), ``--model PATH`` (the normalized model as JSON, for
a daemon without the ``manifest`` verb), ``--auth JSON`` (``hello.auth`` for the owner's
grants), ``--generated DIR`` (the shipped docs, man pages, completions and SKILL.md), ``--stream
'VERB JSON'`` (a finite streaming call), ``--endless-stream 'VERB JSON'`` (one that runs until
cancelled) and ``--report-json PATH`` (the summary per RFC section, as JSON). The daemon is
started for real on a private runtime directory and reached only through its socket, its CLI
and its MCP adapter. Every check is derived from the daemon's own model; a check whose feature
the model lacks (no streaming verb, no bundle) is reported "not applicable", naming it.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import shlex
import shutil
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from venom_gen.testing import PrivateDirs
from venom_mcp.conformance import _model as conformance_model
from venom_mcp.conformance._kit import (
    NOT_APPLICABLE,
    RESOURCES,
    Daemon,
    StartError,
    Target,
    not_applicable,
)
from venom_mcp.conformance._model import TargetModel, fetch_model, load_model_file

__all__ = (
    "daemon",
    "fresh",
    "model",
    "private_dirs",
    "pytest_addoption",
    "pytest_collection",
    "pytest_configure",
    "pytest_runtest_makereport",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "report",
    "short_root",
    "target",
)

atexit.register(RESOURCES.cleanup)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("venom conformance")
    group.addoption("--tool", default=None, help="tool name (default: from --cli or --daemon)")
    group.addoption("--daemon", default=None, help="command that runs the daemon (CLI serve)")
    group.addoption("--cli", default=None, help="command that runs the CLI (TOOL)")
    group.addoption("--model", default=None, help="the normalized model as a JSON file")
    group.addoption("--stream", default=None, help="'VERB JSON': a finite streaming call")
    group.addoption(
        "--generated", default=None, help="DIR with the tool's generated docs/, man/, completions/"
    )
    group.addoption("--auth", default=None, help="JSON: hello.auth granting the owner's rights")
    group.addoption(
        "--endless-stream", default=None, help="'VERB JSON': a stream that runs until cancelled"
    )
    group.addoption(
        "--report-json", default=None, help="PATH: write the summary per RFC section as JSON"
    )


def pytest_configure(config: pytest.Config) -> None:
    global _CONFIG
    _CONFIG = config
    conformance_model.BOOT = _booted
    config.addinivalue_line("markers", "rfc(section): the RFC section a conformance test checks")
    config.addinivalue_line(
        "markers",
        "uses_verbs(*names): replays an RFC trace written for these verbs (the worked example's);"
        " not applicable unless the model declares them all",
    )
    config.addinivalue_line(
        "markers", "bundles(*names): checks those shared bundles; not applicable without them"
    )


def _resolve_target(config: pytest.Config) -> Target:
    """The target from the options; a missing program is one clear usage error."""
    cli_opt, daemon_opt = config.getoption("--cli"), config.getoption("--daemon")
    tool = config.getoption("--tool")
    guessed = tool is None
    if tool is None:
        source = cli_opt or daemon_opt
        tool = os.path.basename(shlex.split(source)[0]) if source else "venom-echo"
    cli = shlex.split(cli_opt) if cli_opt else [tool]
    daemon = shlex.split(daemon_opt) if daemon_opt else [*cli, "serve"]
    for what, argv in (("CLI", cli), ("daemon", daemon)):
        if not argv or shutil.which(argv[0]) is None:
            raise pytest.UsageError(
                f"conformance: the {what} program {argv[0] if argv else ''!r} is not on PATH"
                " (give --cli/--daemon as commands that run it)"
            )
    auth = config.getoption("--auth")
    return Target(tool, daemon, cli, json.loads(auth) if auth else None, guessed=guessed)


class _Run:
    """The run's target, its shared daemon and the model read from it, made once."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.target = _resolve_target(config)
        self._daemon: Daemon | None = None
        self._model: TargetModel | None = None

    def boot(self) -> None:
        """Start the shared daemon and read its model; any failure ends the run, once."""
        d = Daemon(self.target, RESOURCES.private_dirs("vs"))
        self._daemon = d
        try:
            d.start()
        except StartError as err:
            d.stop()
            raise pytest.UsageError(
                f"conformance: `{shlex.join(self.target.daemon)}` did not start: {err}"
            ) from None
        path = self.config.getoption("--model")
        try:
            raw = load_model_file(Path(path)) if path else fetch_model(d)
        except (OSError, ValueError) as err:
            raise pytest.UsageError(f"conformance: cannot read the model: {err}") from None
        self._model = conformance_model.CURRENT = TargetModel(
            raw,
            stream=self.config.getoption("--stream"),
            endless=self.config.getoption("--endless-stream"),
        )
        if self._model.tool != self.target.tool:
            raise pytest.UsageError(
                f"conformance: the daemon's model is tool {self._model.tool!r}, not"
                f" {self.target.tool!r}; pass --tool {self._model.tool}"
            )

    @property
    def daemon(self) -> Daemon:
        assert self._daemon is not None
        return self._daemon

    @property
    def model(self) -> TargetModel:
        assert self._model is not None
        return self._model

    def shutdown(self) -> None:
        if self._daemon is not None:
            self._daemon.stop()
        RESOURCES.cleanup()


_SUITE: _Run | None = None
_CONFIG: pytest.Config | None = None


def _booted() -> _Run:
    """The booted suite; booted here when this directory is collected as part of a larger run."""
    global _SUITE
    if _SUITE is None:
        assert _CONFIG is not None
        _SUITE = _Run(_CONFIG)
        try:
            _SUITE.boot()
        except BaseException:
            _SUITE.shutdown()
            raise
    return _SUITE


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Boot before collecting: the generated checks are parametrized from the model."""
    _booted()


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--report-json", None)
    if path and _results:
        Path(path).write_text(
            json.dumps(report(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    if _SUITE is not None:
        _SUITE.shutdown()


@pytest.fixture(scope="session")
def target() -> Target:
    return _booted().target


@pytest.fixture(scope="session")
def model() -> TargetModel:
    return _booted().model


@pytest.fixture(scope="session")
def daemon() -> Daemon:
    """One running daemon shared by the tests that don't change its state."""
    return _booted().daemon


@pytest.fixture(autouse=True)
def _applicable(request: pytest.FixtureRequest) -> None:
    """Checks whose ground the model lacks end as not applicable, naming what is missing."""
    m = _booted().model
    for marker in request.node.iter_markers("uses_verbs"):
        missing = [v for v in marker.args if v not in m.verbs]
        if missing:
            not_applicable(
                f"an RFC trace replayed byte for byte; the model lacks {', '.join(missing)}"
            )
    for marker in request.node.iter_markers("bundles"):
        missing = [b for b in marker.args if b not in m.bundles()]
        if missing:
            not_applicable(f"checks shared bundles the model lacks: {', '.join(missing)}")


@pytest.fixture
def private_dirs() -> Iterator[PrivateDirs]:
    """Short private directories of the test kit, removed after the test."""
    dirs = RESOURCES.private_dirs("vc")
    try:
        yield dirs
    finally:
        RESOURCES.release(dirs)


@pytest.fixture
def short_root(private_dirs: PrivateDirs) -> Path:
    return private_dirs.root


@pytest.fixture
def fresh(target: Target, private_dirs: PrivateDirs) -> Iterator[Daemon]:
    """A daemon set up but not started; it and every process it started stop after the test."""
    d = Daemon(target, private_dirs)
    try:
        yield d
    finally:
        d.stop()


_results: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
_reasons: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
_failed: set[str] = set()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    marker = item.get_closest_marker("rfc")
    section = str(marker.args[0]) if marker is not None else "(no section)"
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = {"skipped": "n/a"}.get(report.outcome, report.outcome)
        _results[section][outcome] += 1
        if report.failed:
            _failed.add(item.nodeid)
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
            _reasons[section][reason.removeprefix(NOT_APPLICABLE)] += 1
    return report


def report() -> dict[str, Any]:
    """The run's summary per RFC section: passed, failed, and the checks not applicable with
    the feature the target lacks (what ``--report-json`` writes)."""
    sections = []
    total: collections.Counter[str] = collections.Counter()
    for section in sorted(_results, key=_section_key):
        c = _results[section]
        total.update(c)
        sections.append(
            {
                "section": section,
                "passed": c["passed"],
                "failed": c["failed"],
                "not_applicable": c["n/a"],
                "missing": dict(sorted(_reasons[section].items())),
            }
        )
    return {
        "tool": _SUITE.target.tool if _SUITE is not None else None,
        "sections": sections,
        "total": {
            "passed": total["passed"],
            "failed": total["failed"],
            "not_applicable": total["n/a"],
        },
        "failed": sorted(_failed),
    }


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _results:
        return
    tr = terminalreporter
    summary = report()
    tr.section(f"conformance of {summary['tool']} by RFC section")
    tr.write_line(f"{'section':<24} {'passed':>7} {'failed':>7} {'n/a':>5}")
    for row in [*summary["sections"], {"section": "total", **summary["total"]}]:
        tr.write_line(
            f"{row['section']:<24} {row['passed']:>7} {row['failed']:>7} {row['not_applicable']:>5}"
        )
    missing = [(row["section"], r, n) for row in summary["sections"]
               for r, n in row["missing"].items()]  # fmt: skip
    if missing:
        tr.write_line("")
        tr.write_line("not applicable (the feature the target lacks):")
        for section, reason, n in missing:
            tr.write_line(f"  {section}: {reason} ({n})")


def _section_key(section: str) -> list[Any]:
    rfc, _, rest = section.partition(" §")
    return [rfc, *(int(p) if p.isdigit() else p for p in rest.split("."))]
