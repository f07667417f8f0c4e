"""`venom_gen.testing.DaemonProcess` running a daemon that is not a product: tool and argv."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from venom_gen.testing import DaemonProcess, DaemonStartError, PrivateDirs
from venom_proto import SyncClient

#: The bare server with one verb; it writes no owner token. argv: SOCKET.
BARE = """\
import sys
from venom_proto import Server, VerbHandler

print("starting", file=sys.stderr, flush=True)
verbs = {"echo": VerbHandler(lambda call, params: params)}
Server("bare-tool", "0", verbs).serve_forever(sys.argv[1])
"""


def _bare(dirs: PrivateDirs, preexec_fn: Callable[[], object] | None = None) -> DaemonProcess:
    script = dirs.root / "bare.py"
    script.write_text(BARE, encoding="utf-8")
    sock = str(dirs.root / "b.sock")
    return DaemonProcess(
        tool="bare-tool",
        argv=[sys.executable, str(script), sock],
        socket=sock,
        dirs=dirs,
        owner_token=False,
        preexec_fn=preexec_fn,
    )


def test_a_command_line_daemon_starts_serves_and_stops(venom_dirs: PrivateDirs) -> None:
    with _bare(venom_dirs) as daemon:
        assert daemon.product is None
        assert daemon.running
        assert daemon.token_at_first_connect is False  # ready without a token, as asked
        with SyncClient(daemon.socket, timeout=5) as client:
            assert client.call("echo", {"x": 1}) == {"x": 1}
        assert "starting" in daemon.log
        assert daemon.argv[-1] == daemon.socket
        assert repr(daemon).startswith("DaemonProcess(tool='bare-tool'")
    assert daemon.proc is None
    assert venom_dirs.root.exists()  # the caller's directories stay


def test_spawn_wait_and_signals(venom_dirs: PrivateDirs) -> None:
    daemon = _bare(venom_dirs).spawn().wait_ready()
    try:
        assert os.path.exists(f"/proc/{daemon.pid}")
        daemon.send_signal(signal.SIGKILL)
        assert daemon.wait() == -signal.SIGKILL
        assert not daemon.running
        daemon.start()  # a daemon that ended by itself starts again
        assert daemon.running
    finally:
        assert daemon.stop() == 0


def test_objects_sharing_directories_keep_their_own_logs(venom_dirs: PrivateDirs) -> None:
    first, second = _bare(venom_dirs), _bare(venom_dirs)
    assert first.log_path != second.log_path
    assert first.log_path.parent == second.log_path.parent == venom_dirs.root


def test_preexec_fn_runs_in_the_child(venom_dirs: PrivateDirs) -> None:
    mark = venom_dirs.root / "mark"

    def touch() -> None:
        Path(mark).touch()

    with _bare(venom_dirs, preexec_fn=touch):
        assert mark.exists()


def test_a_daemon_that_exits_raises_with_its_log(venom_dirs: PrivateDirs) -> None:
    daemon = DaemonProcess(
        tool="bare-tool",
        argv=[sys.executable, "-c", "import sys; sys.exit('no luck')"],
        dirs=venom_dirs,
        owner_token=False,
    )
    with pytest.raises(DaemonStartError, match="no luck"):
        daemon.start()
    assert daemon.proc is None


def test_a_daemon_needs_a_product_or_a_tool() -> None:
    with pytest.raises(TypeError, match="product reference or a tool"):
        DaemonProcess()
