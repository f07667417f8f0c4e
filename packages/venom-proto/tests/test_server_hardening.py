"""Real sockets against the limits of issue 12: descriptors, memory, signals, logging.

The protocol rules themselves are tested on the core without sockets (test_core_*.py); what
is here needs the kernel: descriptors, a process's memory, signals and a blocked stderr.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from venom_proto._server.accept import too_many_connections

SPAWN = 15.0

#: A daemon with the test's limits, run by ``python -c DAEMON SOCKET NOFILE OPTIONS-JSON``;
#: it prints READY and whether SIGTERM was handled when the socket did not exist yet.
DAEMON = """
import asyncio, json, logging, resource, signal, sys
from venom_proto import Server, VerbHandler

path, nofile, options = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
if nofile:
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
if options.pop("log", False):
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)

def shout(call, params):
    for n in range(params["n"]):
        logging.getLogger("shout").info("line %d %s", n, "x" * 60)
    return {}

async def events(call, params):
    await call.emit({"n": 1})
    await asyncio.sleep(3600)

def echo(call, params):
    return params

def locked(_):
    handled = signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
    print("TERM-HANDLED-BEFORE-LISTEN", handled, flush=True)

verbs = {
    "echo": VerbHandler(echo),
    "events": VerbHandler(events, streams=True),
    "shout": VerbHandler(shout),
}
server = Server("test-tool", "1.0", verbs, **options)

async def main():
    await server.run(path, on_locked=locked, ready=lambda _: print("READY", flush=True))

asyncio.run(main())
"""


def start(path: str, nofile: int = 0, stderr: Any = subprocess.PIPE, **options: Any) -> Any:
    proc = subprocess.Popen(
        [sys.executable, "-c", DAEMON, path, str(nofile), orjson.dumps(options).decode()],
        stdout=subprocess.PIPE,
        stderr=stderr,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + SPAWN
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith(b"READY") or not line:
            break
    assert proc.poll() is None, "daemon exited"
    return proc


def stop(proc: Any) -> int:
    proc.send_signal(signal.SIGTERM)
    status: int = proc.wait(SPAWN)
    return status


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.connect(path)
    return sock


def call(sock: socket.socket, obj: Any) -> Any:
    sock.sendall(orjson.dumps(obj) + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        assert chunk, "closed"
        data += chunk
    return orjson.loads(data)


def wait_for(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def test_signal_handlers_are_installed_before_the_socket_exists(sock_path: str) -> None:
    """Issue 12 §2: SIGTERM is handled from before any client can connect."""
    proc = subprocess.Popen(
        [sys.executable, "-c", DAEMON, sock_path, "0", "{}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"TERM-HANDLED-BEFORE-LISTEN True\n"
    assert proc.stdout.readline() == b"READY\n"
    assert stop(proc) == 0


def test_sigterm_right_after_the_first_accept_is_a_clean_stop(sock_path: str) -> None:
    """Issue 12 §2: a SIGTERM the moment the socket accepts exits 0 and cleans up."""
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", DAEMON, sock_path, "0", "{}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + SPAWN
        while time.monotonic() < deadline:
            try:
                connect(sock_path).close()
                break
            except OSError:
                time.sleep(0.001)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(SPAWN) == 0
        assert not os.path.exists(sock_path)


def test_connection_cap_answers_with_an_error_line(sock_path: str) -> None:
    """Issue 12 §2: past max_connections the next peer gets one error line and a close."""
    proc = start(sock_path, max_connections=3)
    try:
        held = [connect(sock_path) for _ in range(3)]
        for sock in held:
            assert call(sock, {"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
        extra = connect(sock_path)
        data = extra.recv(1000)
        assert (
            data
            == b'{"id":null,"error":' + orjson.dumps(too_many_connections(3).to_object()) + b"}\n"
        )
        assert extra.recv(1000) == b""
        held.pop().close()
        assert wait_for(lambda: _pings(sock_path))
    finally:
        assert stop(proc) == 0


def _pings(path: str) -> bool:
    try:
        with connect(path) as sock:
            return bool(call(sock, {"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}})
    except (OSError, AssertionError):
        return False


def test_out_of_descriptors_pauses_accepting_with_one_log_line(sock_path: str) -> None:
    """Issue 12 §2: EMFILE on accept pauses accepting with back-off and logs one line, not a
    traceback per attempt; the daemon serves its connections and recovers."""
    proc = start(sock_path, nofile=40, max_connections=1000)
    try:
        held: list[socket.socket] = []
        for _ in range(80):  # far more than 40 descriptors allow
            try:
                held.append(connect(sock_path))
            except OSError:
                break
        time.sleep(1.5)  # several back-off rounds
        assert fd_count(proc.pid) <= 40
        answered = 0
        for sock in held[:5]:
            with contextlib.suppress(OSError, AssertionError):
                answered += call(sock, {"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
        assert answered == 5
        for sock in held:
            sock.close()
        assert wait_for(lambda: _pings(sock_path))
    finally:
        assert stop(proc) == 0
    err = proc.stderr.read().decode()
    assert err.count("cannot accept connections") == 1, err
    assert "Traceback" not in err
    assert len(err) < 2000


def test_a_partial_message_must_complete_within_the_deadline(sock_path: str) -> None:
    """Issue 12 §2: `{` and then nothing is closed after message_timeout, with an error."""
    proc = start(sock_path, message_timeout=0.3, hello_timeout=0.3)
    try:
        before = fd_count(proc.pid)
        socks = [connect(sock_path) for _ in range(20)]
        for sock in socks:
            sock.sendall(b"{")
        binary = connect(sock_path)
        binary.sendall(b"\xf5" + struct.pack(">HII", 1, 0, 50) + b'{"pro')
        for sock in socks:
            line = sock.recv(1000)
            assert orjson.loads(line)["error"]["code"] == "timeout.message"
            assert sock.recv(10) == b""
        assert binary.recv(1000)[:2] == b"\x00\x03"  # an ERROR frame: the hello deadline
        assert wait_for(lambda: fd_count(proc.pid) <= before)  # while the peers still hold theirs
    finally:
        assert stop(proc) == 0


def test_killed_subscribers_leave_nothing_behind(sock_path: str) -> None:
    """Issue 12 §2: clients that die holding quiet subscriptions give back their descriptors
    at once; a half-closed one keeps its stream until it closes its socket too."""
    proc = start(sock_path)
    try:
        base = fd_count(proc.pid)
        code = (
            "import socket,sys,os\n"
            "s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1])\n"
            's.sendall(b\'{"id":1,"verb":"events"}\\n\');s.recv(100)\n'
            "os.kill(os.getpid(), 9)\n"
        )
        clients = [subprocess.Popen([sys.executable, "-c", code, sock_path]) for _ in range(30)]
        for client in clients:
            client.wait(SPAWN)
        assert wait_for(lambda: fd_count(proc.pid) <= base)
        half = connect(sock_path)  # a half-closed subscriber still gets its stream
        half.sendall(b'{"id":1,"verb":"events"}\n')
        assert orjson.loads(half.recv(100)) == {"id": 1, "item": {"n": 1}}
        half.shutdown(socket.SHUT_WR)
        time.sleep(0.3)
        assert fd_count(proc.pid) == base + 1
        half.close()  # ... until it goes away altogether, which the daemon notices
        assert wait_for(lambda: fd_count(proc.pid) <= base)
    finally:
        assert stop(proc) == 0


def test_input_budget_is_daemon_wide(sock_path: str) -> None:
    """Issue 12 §2: partial lines are budgeted across the daemon, not only per connection:
    past max_input the connection holding the most is dropped; the others are served."""
    proc = start(sock_path, max_input=4 * 1024 * 1024, message_timeout=30)
    try:
        hogs = [connect(sock_path) for _ in range(8)]
        for sock in hogs:
            sock.sendall(b'{"x":"' + b"x" * 900_000)
        time.sleep(0.3)
        dropped = 0
        for sock in hogs:
            sock.settimeout(0.2)
            try:
                data = sock.recv(1000)
            except TimeoutError:
                continue
            assert orjson.loads(data)["error"]["code"] == "unavailable.overloaded"
            dropped += 1
        assert dropped >= 4  # 8 x 0.9 MB into 4 MiB
        assert _pings(sock_path)
    finally:
        assert stop(proc) == 0


def test_a_stderr_nobody_reads_never_blocks_the_daemon(sock_path: str) -> None:
    """Issue 12 §2: logging goes through a queue drained off the loop; with stderr a pipe
    nobody reads, a handler logging 20,000 lines returns at once, the daemon keeps
    answering, and the records that did not fit are counted and reported, not waited for."""
    read_end, write_end = os.pipe()
    try:
        proc = start(sock_path, stderr=write_end, log=True)
        try:
            with connect(sock_path) as sock:
                started = time.monotonic()
                assert call(sock, {"id": 1, "verb": "shout", "params": {"n": 20_000}})["ok"] == {}
                assert call(sock, {"id": 2, "verb": "ping"}) == {"id": 2, "ok": {}}
                assert time.monotonic() - started < 3
        finally:
            proc.send_signal(signal.SIGTERM)
            os.set_blocking(read_end, False)
            log = b""
            deadline = time.monotonic() + SPAWN
            while time.monotonic() < deadline:  # drain, so it can flush and exit
                try:
                    chunk = os.read(read_end, 1 << 20)
                except BlockingIOError:
                    if proc.poll() is not None:
                        break
                    time.sleep(0.01)
                    continue
                log += chunk
            assert proc.wait(SPAWN) == 0
    finally:
        os.close(read_end)
        os.close(write_end)
    assert b"log records dropped: the log output was not read" in log
