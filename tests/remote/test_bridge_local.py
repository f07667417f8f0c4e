"""``venom-echo bridge`` run directly: a refused hello never reaches the socket (rfcs/0006 §2.1)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
from pathlib import Path

from integration_kit import venom_echo_command

TIMEOUT = 20.0


def test_a_refused_hello_never_connects_to_the_socket() -> None:
    """The bridge answers denied.auth without opening the daemon's socket at all."""
    root = Path(tempfile.mkdtemp(prefix="vb", dir="/tmp"))
    os.chmod(root, 0o700)
    path = str(root / "venom-echo.sock")
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(path)
        listener.listen(8)
        listener.setblocking(False)
        for token in (None, "f" * 64, "vt1_" + "0" * 12 + "_" + "0" * 64):
            params: dict[str, object] = {"proto": [1], "client": {"name": "t", "version": "0"}}
            if token is not None:
                params["auth"] = {"token": token}
            hello = json.dumps({"id": 1, "verb": "hello", "params": params}).encode() + b"\n"
            env = {**os.environ, "XDG_STATE_HOME": str(root / "state")}
            out = subprocess.run(
                [venom_echo_command(), "bridge", "--socket", path],
                input=hello,
                capture_output=True,
                timeout=TIMEOUT,
                env=env,
                check=False,
            )
            assert out.returncode == 4
            assert json.loads(out.stdout)["error"]["code"] == "denied.auth"
            try:
                listener.accept()
            except BlockingIOError:
                pass
            else:
                raise AssertionError("the bridge connected to the socket before refusing")
    finally:
        listener.close()
        subprocess.run(["rm", "-rf", str(root)], check=False)


def test_no_hello_in_time_or_too_large_is_refused() -> None:
    """A hello larger than 64 KiB is refused with reason too_large, without a newline seen."""
    out = subprocess.run(
        [venom_echo_command(), "bridge", "--socket", "/nonexistent/x.sock"],
        input=b"{" + b" " * (70 * 1024),
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert out.returncode == 4
    assert json.loads(out.stdout)["error"]["data"]["reason"] == "too_large"
