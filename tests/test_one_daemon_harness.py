"""One daemon harness: the repository's tests and benches start daemons with the test kit.

`venom_gen.testing.DaemonProcess` starts, waits for and stops every daemon (docs/testing.md).
A module that starts a process itself and then treats it as a daemon is a second harness
drifting from the first: it runs ``... serve`` (an argv display holding ``"serve"``), polls
for a socket in a sleeping loop, or waits for a ``READY`` line. Running the CLI as a
subprocess stays fine; that is how the real CLI is tested.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Where the repository's own tests and benches live.
SCANNED = ("tests", "bench", "packages/*/tests", "examples/*/tests")

#: Modules that start a daemon some other way on purpose, with the reason.
ALLOWED = {
    "tests/test_readme.py": "runs the README's shell lines as a user types them",
    "tests/test_tutorial.py": "runs docs/tutorial.md's shell lines as a user types them",
    "tests/console_kit.py": "runs the docs' shell lines (`serve &`) as a user types them",
    "tests/test_service_files.py": "runs the service files' own command lines (sh, activate)",
    "tests/integration/test_integ_activation.py": (
        "systemd-socket-activate owns the socket and starts serve on the first connection"
    ),
    "tests/remote/remote_kit.py": "OpenSSH's sshd, not a venom daemon",
    "bench/bench_reload.py": "times `serve --reload` swapping daemons, as a user runs it",
}

#: venom-proto is below venom-gen: its tests check the bare server's own start-up and cannot
#: use a higher layer's kit.
ALLOWED_TREES = ("packages/venom-proto/tests/",)

_SPAWNERS = {"Popen", "create_subprocess_exec", "create_subprocess_shell", "open_process"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def _runs_serve(node: ast.List | ast.Tuple) -> bool:
    """``[binary, "serve", ...]`` or ``[*command, "serve", ...]``: an argv, not a word list
    (whose words are all constants)."""
    elts = node.elts
    for i, elt in enumerate(elts):
        if isinstance(elt, ast.Constant) and elt.value == "serve":
            return i == 1 or (i > 0 and not isinstance(elts[i - 1], ast.Constant))
    return False


def _probes_socket(call: ast.Call) -> bool:
    name = _name(call.func)
    if name in ("connect", "create_connection"):
        return True
    return name in ("exists", "is_socket") and "sock" in ast.unparse(call).lower()


def daemon_signs(source: str) -> list[str]:
    """Why ``source`` looks like a hand-rolled daemon harness (empty: it does not)."""
    tree = ast.parse(source)
    if not any(_name(call.func) in _SPAWNERS for call in _calls(tree)):
        return []
    signs: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple) and _runs_serve(node):
            signs.append((node.lineno, "an argv running serve"))
        elif isinstance(node, ast.While):
            calls = _calls(node)
            if any(map(_probes_socket, calls)) and any(_name(c.func) == "sleep" for c in calls):
                signs.append((node.lineno, "a loop polling for a socket"))
        elif isinstance(node, ast.Constant) and node.value in (b"READY\n", "READY", b"READY"):
            signs.append((node.lineno, "a READY handshake"))
    return [f"line {line}: {what}" for line, what in sorted(signs)]


def hand_rolled(root: Path) -> dict[str, list[str]]:
    """Every scanned module under ``root`` with daemon signs, outside the allowed ones."""
    found: dict[str, list[str]] = {}
    for pattern in SCANNED:
        for path in sorted(root.glob(f"{pattern}/**/*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in ALLOWED or rel.startswith(ALLOWED_TREES) or rel == _SELF:
                continue
            signs = daemon_signs(path.read_text(encoding="utf-8"))
            if signs:
                found[rel] = signs
    return found


_SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()


def test_no_hand_rolled_daemon_harness() -> None:
    """Every daemon of the tests and benches is started by venom_gen.testing.DaemonProcess."""
    assert hand_rolled(ROOT) == {}


def test_every_allowed_module_still_exists() -> None:
    """An allowance outlives nothing: a moved or deleted module leaves the list."""
    assert [rel for rel in ALLOWED if not (ROOT / rel).is_file()] == []


HAND_ROLLED = """\
import socket, subprocess, time
proc = subprocess.Popen(["my-tool", "serve", "--socket", path])
while True:
    try:
        socket.socket(socket.AF_UNIX).connect(path)
        break
    except OSError:
        time.sleep(0.01)
"""

WITH_THE_KIT = """\
import subprocess
from venom_gen.testing import DaemonProcess
with DaemonProcess(tool="my-tool", argv=["my-tool", "serve"]) as daemon:
    subprocess.run([*daemon.command, "ping"], env=daemon.env, check=True)
"""


def test_the_scan_sees_a_hand_rolled_harness_and_not_the_kit() -> None:
    assert daemon_signs(HAND_ROLLED) == [
        "line 2: an argv running serve",
        "line 3: a loop polling for a socket",
    ]
    assert daemon_signs(WITH_THE_KIT) == []
