"""The generated CLI as a real process against real daemons over Unix sockets.

Uses a small daemon on the real server (``echo``, and the streaming ``count`` and ``tail``) to
check stdout/exit codes, Ctrl-C cancellation, a closed stdout pipe and
the import weight of a verb call.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli_kit import cli, short_dir, write_model

from venom_gen.testing import DaemonProcess, PrivateDirs

__all__ = ("cli", "short_dir")  # fixtures, re-exported for pytest

WAIT = 10.0
RFC_NOT_RUNNING = (
    b'{"error":{"code":"unavailable.not_running","message":"no daemon at /nonexistent/x.sock",'
    b'"data":{"socket":"/nonexistent/x.sock"}}}\n'
)

#: The real server with ``echo`` and two streaming verbs; ``tail`` logs how it ended to argv[2].
STREAM_DAEMON = """\
import sys
import anyio
from venom_proto import Server, VerbHandler

def echo(call, params):
    return {"text": params["text"]}

async def count(call, params):
    for i in range(params["n"]):
        await call.emit({"i": i})
    return {"total": params["n"]}

async def tail(call, params):
    await call.emit({"line": "a"})
    try:
        await anyio.sleep(30)
    finally:
        with open(sys.argv[2], "a") as log:
            log.write("cancelled\\n" if call.cancelled else "ended\\n")
    return {}

Server("venom-echo", "0.1.0", {"echo": VerbHandler(echo), "count": VerbHandler(count, streams=True),
                               "tail": VerbHandler(tail, streams=True)}).serve_forever(sys.argv[1])
"""

#: Top-level modules that must stay off the path of a verb call.
HEAVY = ("pydantic", "pydantic_core", "typer", "click", "mcp", "anyio", "asyncio", "orjson")


def _stream_daemon(dirs: PrivateDirs, name: str, log: str) -> Iterator[DaemonProcess]:
    """The small daemon on ``<root>/<name>.sock``, through the test kit; ``tail`` logs to
    ``<root>/<log>``."""
    script = dirs.root / f"{name}.py"
    script.write_text(STREAM_DAEMON, encoding="utf-8")
    sock = str(dirs.root / f"{name}.sock")
    argv = [sys.executable, str(script), sock, str(dirs.root / log)]
    # The bare server writes no owner token: ready is its socket accepting.
    with DaemonProcess(
        tool="venom-echo", argv=argv, socket=sock, dirs=dirs, owner_token=False, timeout=WAIT
    ) as daemon:
        yield daemon


@pytest.fixture
def demo(venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    """The small daemon, for its verb ``echo``."""
    yield from _stream_daemon(venom_dirs, "demo", "demo.log")


@pytest.fixture
def streamer(venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    """A daemon with streaming verbs ``count`` and ``tail``."""
    yield from _stream_daemon(venom_dirs, "daemon", "tail.log")


def _env(socket_path: str) -> dict[str, str]:
    return {**os.environ, "VENOM_ECHO_SOCKET": socket_path}


def _run(argv: list[str], socket_path: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, env=_env(socket_path), capture_output=True, timeout=WAIT)


def test_cli_process_echo(cli: list[str], demo: DaemonProcess) -> None:
    """RFC-0004 §1: `venom-echo echo --text hi` prints its result and exits 0 (`text: hi`
    without --json, rfcs/0004 D-S60; {"text":"hi"} with it)."""
    res = _run([*cli, "echo", "--text", "hi"], demo.socket)
    assert (res.returncode, res.stdout, res.stderr) == (0, b"text: hi\n", b"")
    res = _run([*cli, "echo", "--text", "hi", "--json"], demo.socket)
    assert (res.returncode, res.stdout, res.stderr) == (0, b'{"text":"hi"}\n', b"")
    res = _run([*cli, "echo", "--json", "--text", "caf\u00e9"], demo.socket)
    assert (res.returncode, res.stdout) == (0, '{"text":"caf\u00e9"}\n'.encode())


def test_cli_process_missing_param(cli: list[str], demo: DaemonProcess) -> None:
    """RFC-0004 §1 / RFC-0002 §1: `echo --json` prints the missing-param wrapper, exit 2."""
    res = _run([*cli, "echo", "--json"], demo.socket)
    assert res.returncode == 2
    assert res.stdout == (
        b'{"error":{"code":"invalid_params.missing","message":"missing required param \'text\'",'
        b'"data":{"param":"text"}}}\n'
    )


def test_cli_process_not_running(cli: list[str]) -> None:
    """RFC-0002 §7.3: no daemon at the socket -> the exact not_running wrapper, exit 6."""
    res = _run([*cli, "ping", "--json"], "/nonexistent/x.sock")
    assert (res.returncode, res.stdout, res.stderr) == (6, RFC_NOT_RUNNING, b"")


def test_cli_process_stream(cli: list[str], streamer: DaemonProcess) -> None:
    """RFC-0002 §7.3: stream items as NDJSON lines; the final ok is not printed."""
    res = _run([*cli, "count", "--n", "3", "--json"], streamer.socket)
    assert (res.returncode, res.stderr) == (0, b"")
    assert res.stdout == b'{"i":0}\n{"i":1}\n{"i":2}\n'


def test_cli_process_ctrl_c_cancels(
    cli: list[str], streamer: DaemonProcess, short_dir: Path
) -> None:
    """RFC-0002 §4.4, §7.2: SIGINT cancels the call upstream, prints `cancelled`, exits 8."""
    proc = subprocess.Popen(
        [*cli, "tail"], env=_env(streamer.socket), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"line\n"  # the table's header, with the first row
        assert proc.stdout.readline() == b"a\n"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)
    assert (proc.returncode, out, err) == (8, b"", b"venom-echo: cancelled by Ctrl-C\n")
    assert _tail_log(short_dir) == "cancelled\n"


def _tail_log(short_dir: Path) -> str:
    """The daemon's ``tail`` log once its line is whole: it may exist before the write ends
    (a busy machine showed the empty file)."""
    log = short_dir / "tail.log"
    deadline = time.monotonic() + WAIT
    text = ""
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        if text.endswith("\n"):
            break
        time.sleep(0.01)
    return text


def _cancel_swallower(upstream: str, path: str) -> socket.socket:
    """A socket at ``path`` that relays to ``upstream`` but drops every ``cancel`` request:
    a daemon that never answers one."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(1)

    def relay() -> None:
        client, _ = listener.accept()
        daemon = socket.socket(socket.AF_UNIX)
        daemon.connect(upstream)

        def down() -> None:
            with contextlib.suppress(OSError):  # the client may be gone first
                while data := daemon.recv(65536):
                    client.sendall(data)
            client.close()

        threading.Thread(target=down, daemon=True).start()
        buf = b""
        while data := client.recv(65536):
            buf += data
            *lines, buf = buf.split(b"\n")
            kept = [line for line in lines if b'"verb":"cancel"' not in line]
            if kept:
                daemon.sendall(b"".join(line + b"\n" for line in kept))
        # The client is gone: so is the daemon's connection (shutdown first: the other
        # thread's pending recv would keep a bare close from reaching the daemon).
        daemon.shutdown(socket.SHUT_RDWR)
        daemon.close()

    threading.Thread(target=relay, daemon=True).start()
    return listener


def test_ctrl_c_does_not_wait_for_a_daemon_that_never_answers_the_cancel(
    cli: list[str], streamer: DaemonProcess, short_dir: Path
) -> None:
    """Issue 27: the CLI waited unbounded for the cancel's reply (the Ctrl-C test timed out
    on a busy machine). It waits at most CANCEL_WAIT, then closes: the daemon ends the call."""
    path = str(short_dir / "swallow.sock")
    listener = _cancel_swallower(streamer.socket, path)
    try:
        proc = subprocess.Popen(
            [*cli, "tail", "--json"], env=_env(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == b'{"line":"a"}\n'
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=WAIT * 3)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=WAIT)
    finally:
        listener.close()
    cancelled = b'{"error":{"code":"cancelled","message":"cancelled by Ctrl-C"}}\n'
    assert (proc.returncode, out, err) == (8, cancelled, b"")  # --json: the error on stdout
    assert _tail_log(short_dir) == "cancelled\n"  # ended by the closed connection


def test_cli_process_broken_pipe(cli: list[str], streamer: DaemonProcess) -> None:
    """`venom-echo count ... | head -1`: the CLI exits quietly (141) without a traceback."""
    proc = subprocess.Popen(
        [*cli, "count", "--n", "100000"],
        env=_env(streamer.socket),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    assert proc.stdout.readline() == b"i\n"
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=WAIT) == 141
    assert err == b""


# The module list is taken before the probe itself imports json to report it.
PROBE = """\
import sys
from venom_gen.cli import main
code = main(sys.argv[1], argv=["echo", "--text", "hi"])
mods = sorted(m for m in sys.modules)
import json
print(json.dumps({"code": code, "modules": mods}), file=sys.stderr)
"""

#: Stdlib modules a verb call does without, a few ms of start-up each: json and re (re brings
#: enum, functools, collections), socket.py (enum, selectors), importlib (warnings), typing.
STARTUP_WEIGHT = (
    "json",
    "re",
    "enum",
    "functools",
    "collections",
    "socket",
    "selectors",
    "importlib",
    "warnings",
    "typing",
    "dataclasses",
    "inspect",
)


def _verb_call_modules(short_dir: Path, demo: DaemonProcess) -> list[str]:
    """The modules loaded by one successful ``echo --text hi`` call in a fresh process."""
    probe = short_dir / "probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    res = _run([sys.executable, str(probe), str(write_model(short_dir))], demo.socket)
    report = json.loads(res.stderr.decode().strip().splitlines()[-1])
    assert report["code"] == 0
    assert res.stdout == b"text: hi\n"
    modules: list[str] = report["modules"]
    return modules


def test_cli_process_imports_stay_light(short_dir: Path, demo: DaemonProcess) -> None:
    """A verb call imports no pydantic, typer, mcp, anyio, asyncio, orjson, ZON or generators."""
    modules = _verb_call_modules(short_dir, demo)
    top = {m.split(".")[0] for m in modules}
    assert sorted(top.intersection(HEAVY)) == []
    assert [m for m in modules if m.startswith("venom_schema.zon")] == []
    light = ("venom_gen.cli", "venom_gen.binary", "venom_gen.product")  # the package's face
    table = "venom_gen.local"  # the local verbs' table; a verb's module loads when it runs
    ours = [
        m for m in modules if m.startswith("venom_gen.") and not m.startswith(light) and m != table
    ]
    assert ours == []
    assert "venom_gen.cli._help" not in modules  # help text is built only for --help
    assert "venom_gen.cli._suggest" not in modules  # "did you mean" only on that error


def test_cli_process_skips_slow_stdlib_modules(short_dir: Path, demo: DaemonProcess) -> None:
    """A verb call runs on ``_json`` and ``_socket``, never loading json, re, socket.py & co."""
    modules = _verb_call_modules(short_dir, demo)
    assert {"_json", "_socket", "venom_proto.sync_client"} <= set(modules)
    assert [m for m in modules if m.split(".")[0] in STARTUP_WEIGHT] == []
