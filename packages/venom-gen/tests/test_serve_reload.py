"""``<tool> serve --reload=true``: a real supervisor and real daemons on a real socket.

A small product is written into a scratch directory; its daemon runs under the supervisor
while a client keeps connecting and calling; an edit adds a verb (manifest and handler), an
invalid edit leaves the daemon serving (rfcs/0002-wire-decisions.md D-W43).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from venom_gen.testing import DaemonProcess
from venom_proto import SyncClient, VenomError
from venom_proto.owner_token import read_owner_token
from venom_schema.model_cache import compile_model

pytest.importorskip("watchfiles")

TOOL = "venom-rl"
WAIT = 60.0

_VERB = """
        .{{
            .name = "{name}",
            .summary = "Say {name}",
            .result = .{{ .kind = .object, .fields = .{{
                .{{ .name = "said", .summary = "What was said", .type = .{{ .kind = .string }},
                    .required = true }},
            }} }},
            .grant = .read,
        }},"""

_PRODUCT = """
import os
from venom_gen import Product

PRODUCT = Product(
    tool="venom-rl",
    version="1.0",
    model_path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json"),
    handlers="rlprod.handlers:handlers",
)
"""

_LAUNCH = (
    "import sys\n"
    "from venom_gen.binary import product_main\n"
    "from rlprod.product import PRODUCT\n"
    "sys.exit(product_main(PRODUCT))\n"
)


def _manifest(*verbs: str) -> str:
    body = "".join(_VERB.format(name=v) for v in verbs)
    return (
        f'.{{ .format = 1, .tool = "{TOOL}", .summary = "Reload test", .verbs = .{{{body}\n}} }}\n'
    )


def _handlers(*verbs: str, slow: bool = False) -> str:
    lines = ["import time", "", "", "def handlers(app):", "    return {"]
    for verb in verbs:
        lines.append(f"        {verb!r}: lambda call, params: {{'said': {verb!r}}},")
    lines.append("    }")
    return "\n".join(lines) + "\n"


def _write(package: Path, *verbs: str) -> None:
    (package / "verbs.zon").write_text(_manifest(*verbs), encoding="utf-8")
    (package / "handlers.py").write_text(_handlers(*verbs), encoding="utf-8")


class Supervised:
    """The scratch product, its supervisor run by the test kit's one harness."""

    def __init__(self, root: Path) -> None:
        self.package = root / "rlprod"
        self.package.mkdir()
        (self.package / "__init__.py").write_text("", encoding="utf-8")
        (self.package / "product.py").write_text(_PRODUCT, encoding="utf-8")
        _write(self.package, "hi")
        compile_model(self.package / "verbs.zon")
        self.daemon = DaemonProcess(
            tool=TOOL,
            command=[sys.executable, "-c", _LAUNCH],
            args=["--reload=true"],
            # Bytecode written as a developer's machine writes it (the .pyc is what can be stale).
            env={
                **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                "PYTHONPATH": os.pathsep.join([str(root), *sys.path]),
            },
            timeout=WAIT,
        )
        self.socket = self.daemon.socket

    def text(self) -> str:
        return self.daemon.log

    def wait_for(self, needle: str, count: int = 1) -> None:
        deadline = time.monotonic() + WAIT
        while self.text().count(needle) < count:
            assert self.daemon.running, self.text()
            assert time.monotonic() < deadline, f"no {needle!r} in:\n{self.text()}"
            time.sleep(0.05)

    def client(self) -> SyncClient:
        token = read_owner_token(self.socket)
        auth = None if token is None else {"token": token}
        return SyncClient(self.socket, auth=auth, timeout=WAIT, connect_timeout=WAIT)

    def stop(self) -> int:
        return self.daemon.stop()


@pytest.fixture
def supervised(tmp_path: Path) -> Iterator[Supervised]:
    running = Supervised(tmp_path)
    with running.daemon:  # ready: the socket accepts and the first daemon's token exists
        running.wait_for("serving pid")
        yield running


def test_a_valid_edit_swaps_the_daemon_and_no_client_is_refused(supervised: Supervised) -> None:
    """A client connecting and calling throughout; the old connection's call is answered."""
    failures: list[BaseException] = []
    calls = 0
    done = threading.Event()

    def keep_calling() -> None:
        nonlocal calls
        while not done.is_set():
            try:
                with supervised.client() as client:
                    assert client.call("hi") == {"said": "hi"}
                calls += 1
            except (VenomError, OSError) as exc:
                failures.append(exc)

    held = supervised.client()  # connected to the old daemon across the swap
    caller = threading.Thread(target=keep_calling)
    caller.start()
    try:
        _write(supervised.package, "hi", "added")
        supervised.wait_for("serving pid", count=2)
        with supervised.client() as client:
            assert client.call("added") == {"said": "added"}
        # The held connection belonged to the old daemon: it was answered, then closed.
        with pytest.raises(VenomError):
            held.call("hi")
    finally:
        done.set()
        caller.join(WAIT)
        held.close()
    assert failures == []
    assert calls > 0
    assert supervised.stop() == 0
    assert not os.path.exists(supervised.socket)  # the supervisor owned the path
    assert read_owner_token(supervised.socket) is None


def test_an_answer_in_flight_on_the_old_daemon_is_delivered(supervised: Supervised) -> None:
    (supervised.package / "handlers.py").write_text(
        "import asyncio\n\n\ndef handlers(app):\n"
        "    async def hi(call, params):\n"
        "        await asyncio.sleep(2.0)\n"
        "        return {'said': 'slow'}\n"
        "    return {'hi': hi}\n",
        encoding="utf-8",
    )
    supervised.wait_for("serving pid", count=2)
    answers: list[object] = []
    with supervised.client() as client:
        started = threading.Thread(target=lambda: answers.append(client.call("hi")))
        started.start()
        time.sleep(0.1)  # the call is in flight on this daemon when the next edit lands
        _write(supervised.package, "hi", "added")
        started.join(WAIT)
    assert answers == [{"said": "slow"}]
    supervised.wait_for("serving pid", count=3)


def test_an_invalid_edit_leaves_the_daemon_serving(supervised: Supervised) -> None:
    # A handler for a verb the manifest lacks: the registry refuses it in the new daemon.
    (supervised.package / "handlers.py").write_text(_handlers("hi", "stray"), encoding="utf-8")
    supervised.wait_for("the change was not applied")
    assert "stray" in supervised.text()  # the problem, printed
    with supervised.client() as client:
        assert client.call("hi") == {"said": "hi"}
    # A manifest that does not parse: refused too, with the place of the problem.
    (supervised.package / "verbs.zon").write_text(".{ .format = 1,", encoding="utf-8")
    supervised.wait_for("the change was not applied", count=2)
    assert "verbs.zon" in supervised.text()
    with supervised.client() as client:
        assert client.call("hi") == {"said": "hi"}
    # Fixed: served again.
    _write(supervised.package, "hi", "added")
    supervised.wait_for("serving pid", count=2)
    with supervised.client() as client:
        assert client.call("added") == {"said": "added"}


def test_an_edit_of_the_same_size_in_the_same_second_is_the_code_served(
    supervised: Supervised,
) -> None:
    """A .pyc is checked to the whole second and the size: the supervisor drops the changed
    sources' .pyc files, so the new daemon runs the code as saved, not the cached one."""
    handlers = supervised.package / "handlers.py"
    handlers.write_text(_handlers("hi").replace("{'said': 'hi'}", "{'said': 'h1'}"))
    supervised.wait_for("serving pid", count=2)
    with supervised.client() as client:
        assert client.call("hi") == {"said": "h1"}  # and its .pyc is written
    before = handlers.stat()
    handlers.write_text(_handlers("hi").replace("{'said': 'hi'}", "{'said': 'h2'}"))
    os.utime(handlers, ns=(before.st_atime_ns, before.st_mtime_ns))  # what the .pyc recorded
    assert handlers.stat().st_size == before.st_size
    supervised.wait_for("serving pid", count=3)
    with supervised.client() as client:
        assert client.call("hi") == {"said": "h2"}


def test_the_socket_listens_before_the_first_daemon_serves(tmp_path: Path) -> None:
    """The socket exists from the supervisor's start: an early client waits, never refused."""
    running = Supervised(tmp_path)
    try:
        running.daemon.spawn()
        deadline = time.monotonic() + WAIT
        while not os.path.exists(running.socket):
            assert time.monotonic() < deadline, running.text()
            time.sleep(0.005)
        with socket.socket(socket.AF_UNIX) as early:
            early.connect(running.socket)
        running.wait_for("serving pid")
        assert running.stop() == 0
    finally:
        running.daemon.close()


def test_the_daemon_is_the_same_command_line_less_reload() -> None:
    from venom_gen.local._reload import _child_command

    argv = ["/usr/bin/python3", "/venv/bin/venom-kv", "serve", "--reload=true", "--socket", "s"]
    assert _child_command(argv) == [sys.executable, "/venv/bin/venom-kv", "serve", "--socket", "s"]
    assert _child_command(["python", "-c", "..."]) is None


def test_without_watchfiles_the_refusal_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from venom_gen import Product
    from venom_gen.local._reload import run_reload

    monkeypatch.setitem(sys.modules, "watchfiles", None)  # as if not installed
    product = Product(tool=TOOL, version="1", model_path="verbs.model.json", handlers=dict)
    assert run_reload(product, ["--reload=true"], {}) == 1
    err = capsys.readouterr().err
    assert "pip install 'venom-gen[reload]'" in err
    assert "(failed.dependency)" in err
