"""pytest plugin (``-p release_installed``): the run must have used the installed wheels.

``VENOM_RELEASE_MODULES`` names the top-level modules under check, the first being the package
whose tests run. The session fails if any of them was imported from outside the environment's
site-packages (a source tree, an editable install, a ``sys.path`` entry a test added) or if the
package under test was never imported at all.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

import pytest

ENV = "VENOM_RELEASE_MODULES"
_REPORT = pytest.StashKey[tuple[bool, list[str]]]()


def _outside(purelib: Path, modules: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in modules:
            continue
        file = getattr(module, "__file__", None)
        if file is not None and not Path(file).resolve().is_relative_to(purelib):
            found[name] = file
    return found


def _check(names: list[str]) -> tuple[list[str], int]:
    """What is wrong with the imports of ``names`` (empty when nothing), and how many there are."""
    purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
    outside = _outside(purelib, set(names))
    problems = [f"{name} imported from {file}, not {purelib}" for name, file in outside.items()]
    if len(problems) > 5:
        problems[5:] = [f"... and {len(problems) - 5} more modules from outside site-packages"]
    if names[0] not in sys.modules:
        problems.append(f"{names[0]} was never imported: the tests did not exercise it")
    return problems, sum(1 for n in sys.modules if n.partition(".")[0] in names)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    names = [n for n in os.environ.get(ENV, "").split(",") if n]
    if not names or not session.testscollected:
        return
    problems, count = _check(names)
    if problems:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        session.config.stash[_REPORT] = (False, problems)
    else:
        lines = [f"{count} modules of {', '.join(names)}, all from site-packages"]
        session.config.stash[_REPORT] = (True, lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    ok, lines = terminalreporter.config.stash.get(_REPORT, (True, []))
    for line in lines:
        terminalreporter.write_line(f"release-check: {line}", red=not ok)
