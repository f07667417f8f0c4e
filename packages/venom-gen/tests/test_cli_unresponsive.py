"""The generated CLI against a daemon that accepts and never answers: bounded, exit 6.

``ping`` used to hang forever on such a daemon. Connect plus hello is now bounded (10 s, or
``<TOOL>_CONNECT_TIMEOUT`` seconds) and ends with ``unavailable.unresponsive``; the verb itself
stays unbounded.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cli_kit import FakeDaemon, cli, fake_daemon, run_cli, short_dir

__all__ = ("cli", "fake_daemon", "run_cli", "short_dir")  # fixtures, re-exported for pytest

WAIT = 10.0


@pytest.fixture
def mute(short_dir: Path) -> Iterator[str]:
    """A socket whose listener accepts every connection, reads it, and never writes."""
    path = str(short_dir / "mute.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    listener.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join(WAIT)
    for conn in held:
        conn.close()
    listener.close()


@pytest.mark.parametrize("argv", [["ping"], ["echo", "--text", "hi"], ["count", "--n", "1"]])
def test_a_mute_daemon_fails_unresponsive(cli: list[str], mute: str, argv: list[str]) -> None:
    """Real CLI, real socket: exit 6 and the specified wrapper within the bound, any verb."""
    env = {**os.environ, "VENOM_ECHO_SOCKET": mute, "VENOM_ECHO_CONNECT_TIMEOUT": "0.5"}
    start = time.monotonic()
    res = subprocess.run([*cli, *argv, "--json"], env=env, capture_output=True, timeout=WAIT)
    took = time.monotonic() - start
    assert (res.returncode, res.stderr) == (6, b"")
    error: dict[str, Any] = json.loads(res.stdout)["error"]
    assert error["code"] == "unavailable.unresponsive"
    assert error["data"] == {"socket": mute, "timeout": 0.5}
    assert 0.5 <= took < 0.5 + 5.0  # start-up included; the bound held
    human = subprocess.run([*cli, *argv], env=env, capture_output=True, timeout=WAIT)
    assert (human.returncode, human.stdout) == (6, b"")
    assert b"did not complete hello within 0.5 s" in human.stderr


def test_the_bound_defaults_to_ten_seconds(run_cli: Any, fake_daemon: FakeDaemon) -> None:
    assert run_cli("ping").code == 0
    assert fake_daemon.hellos[-1]["connect_timeout"] == 10.0


@pytest.mark.parametrize("value", ["0.25", "3", "1e3"])
def test_the_bound_comes_from_the_environment(
    run_cli: Any, fake_daemon: FakeDaemon, tmp_path: Path, value: str
) -> None:
    env = {"VENOM_ECHO_SOCKET": str(tmp_path / "x.sock"), "VENOM_ECHO_CONNECT_TIMEOUT": value}
    assert run_cli("ping", environ=env).code == 0
    assert fake_daemon.hellos[-1]["connect_timeout"] == float(value)


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan", "1e999", " "])
def test_a_bad_bound_is_a_usage_error(
    run_cli: Any, fake_daemon: FakeDaemon, tmp_path: Path, value: str
) -> None:
    env = {"VENOM_ECHO_SOCKET": str(tmp_path / "x.sock"), "VENOM_ECHO_CONNECT_TIMEOUT": value}
    res = run_cli("ping", "--json", environ=env)
    assert res.code == 2
    error = json.loads(res.stdout)["error"]
    assert error["code"] == "invalid_params.usage"
    assert error["data"] == {"env": "VENOM_ECHO_CONNECT_TIMEOUT"}
    assert fake_daemon.hellos == []  # refused before connecting
