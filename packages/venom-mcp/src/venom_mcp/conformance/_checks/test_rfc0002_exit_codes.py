"""RFC-0002 §7: error classes, exit codes and what the CLI prints (§7.3)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from venom_mcp.conformance._kit import RESOURCES, TIMEOUT, Daemon, mask_messages, not_applicable
from venom_mcp.conformance._model import (
    TargetModel,
    cli_text,
    cli_words,
    endless,
    flag,
    valid_value,
)

CLASS_EXIT = {
    "failed": 1,
    "invalid_params": 2,
    "not_found": 3,
    "denied": 4,
    "conflict": 5,
    "unavailable": 6,
    "timeout": 7,
    "cancelled": 8,
    "protocol": 9,
    "unsupported": 10,
    "internal": 11,
}


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §7.2")
@pytest.mark.parametrize(
    ("code", "exit_code"),
    [("failed.echo", 1), ("not_found.echo", 3), ("conflict.echo_busy", 5), ("timeout.echo", 7)],
)
def test_declared_errors_exit_by_class(daemon: Daemon, code: str, exit_code: int) -> None:
    """RFC-0002 §7.2/§7.3: --json prints {"error":...} and the CLI exits by class."""
    r = daemon.cli("echo", "fail", "--code", code, "--json")
    assert r.returncode == exit_code
    out = json.loads(r.stdout)
    assert out["error"]["code"] == code
    assert isinstance(out["error"]["data"], dict)
    assert r.stdout.count("\n") == 1


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §7.3")
def test_human_mode_prints_message_on_stderr(daemon: Daemon) -> None:
    """RFC-0002 §7.3: without --json the error message goes to stderr, nothing to stdout."""
    r = daemon.cli("echo", "fail", "--code", "not_found.echo")
    assert r.returncode == 3
    assert r.stdout == ""
    assert r.stderr.strip()


@pytest.mark.rfc("RFC-0002 §7.3")
def test_human_mode_usage_error_goes_to_stderr(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §7.3: a failed call without --json writes stderr only, and exits by class."""
    verbs = [v for v in model.product_verbs() if any(p.get("required") for p in v["params"])]
    if not verbs:
        not_applicable("the model declares no verb with a required param")
    r = daemon.cli(*cli_words(verbs[0]["name"]))
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.strip()


@pytest.mark.rfc("RFC-0002 §7.2")
def test_ping_exits_zero_with_its_ok_value(daemon: Daemon) -> None:
    """RFC-0002 §7.3: --json prints exactly the ok value, here ping's {}."""
    r = daemon.cli("--json", "ping")
    assert (r.returncode, r.stdout) == (0, "{}\n")


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §7.2")
def test_success_exits_zero_with_the_ok_value(daemon: Daemon) -> None:
    """RFC-0002 §7.3: --json prints exactly the ok value."""
    r = daemon.cli("echo", "--text", "hi", "--json")
    assert (r.returncode, r.stdout) == (0, '{"text":"hi"}\n')


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §7.2")
def test_invalid_params_exit_2(daemon: Daemon) -> None:
    """RFC-0002 §7.2 / §1: invalid params exit 2 with the wrapper on stdout."""
    r = daemon.cli("echo", "--json")
    assert r.returncode == 2
    assert mask_messages(r.stdout) == mask_messages(
        '{"error":{"code":"invalid_params.missing","message":"missing required param '
        '\'text\'","data":{"param":"text"}}}\n'
    )


@pytest.mark.rfc("RFC-0002 §7.2")
def test_missing_param_exits_2_with_the_wrapper(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §7.2/§7.3 / RFC-0004 §3: a verb called without a required param exits 2 and
    --json prints {"error": {"code": "invalid_params.missing", "data": {"param": NAME}, ...}},
    one line (any daemon: the first verb of its model with a required param)."""
    verbs = [v for v in model.product_verbs() if any(p.get("required") for p in v["params"])]
    if not verbs:
        not_applicable("the model declares no verb with a required param")
    verb = verbs[0]
    required = [p["name"] for p in verb["params"] if p.get("required")]
    rest = [f"{flag(n)}={cli_text(valid_value(p['type']))}" for p in verb["params"]
            if (n := p["name"]) in required[1:]]  # fmt: skip
    r = daemon.cli("--json", *cli_words(verb["name"]), *rest)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout.count("\n") == 1
    out = json.loads(r.stdout)
    assert set(out) == {"error"}
    assert out["error"]["code"] == "invalid_params.missing"
    assert out["error"]["data"] == {"param": required[0]}
    assert isinstance(out["error"]["message"], str)


@pytest.mark.rfc("RFC-0002 §7.2")
def test_cancelled_exit_8_on_ctrl_c(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §7.2: Ctrl-C cancels the call upstream and exits 8."""
    verb, params = endless(model)
    argv = [f"{flag(k)}={cli_text(v)}" for k, v in params.items()]
    proc = RESOURCES.popen(
        [*daemon.target.cli, "--json", *cli_words(verb), *argv],
        env=daemon.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    # The stream may never send an item to wait for: give the CLI time to send its request.
    time.sleep(1.5)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 8
    assert json.loads(out.decode().strip().splitlines()[-1])["error"]["code"] == "cancelled"


class FakeDaemon:
    """A minimal peer that answers hello and then fails every request with one error code."""

    def __init__(self, path: str, code: str) -> None:
        self.code = code
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(path)
        os.chmod(path, 0o600)
        self.sock.listen()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            while True:
                conn, _ = self.sock.accept()
                with conn:
                    buf = b""
                    while True:
                        data = conn.recv(65536)
                        if not data:
                            break
                        buf += data
                        while b"\n" in buf:
                            line, buf = buf.split(b"\n", 1)
                            req = json.loads(line)
                            if req["verb"] == "hello":
                                ok = {"proto": 1, "server": {"name": "fake", "version": "0"},
                                      "caps": ["cancel"], "max_frame": 1048576}  # fmt: skip
                                reply = {"id": req["id"], "ok": ok}
                            else:
                                err = {"code": self.code, "message": f"fake {self.code}"}
                                reply = {"id": req["id"], "error": err}
                            conn.sendall(json.dumps(reply).encode() + b"\n")
        except OSError:
            return


@pytest.fixture
def fake_dir(short_root: Path) -> Path:
    d = short_root / "fake"
    d.mkdir(mode=0o700)
    return d


@pytest.mark.rfc("RFC-0002 §7.2")
@pytest.mark.parametrize(
    ("code", "exit_code"),
    [
        *((cls + ".x", n) for cls, n in CLASS_EXIT.items()),
        ("brand_new_class.x", 1),
        ("protocol", 9),
    ],
)
def test_every_class_maps_to_its_exit_code(
    daemon: Daemon, fake_dir: Path, code: str, exit_code: int
) -> None:
    """RFC-0002 §7.1/§7.2: each class exits with its code; an unknown class exits like failed."""
    path = str(fake_dir / f"f{int(time.monotonic_ns() % 1_000_000)}.sock")
    fake = FakeDaemon(path, code)
    try:
        r = daemon.cli("ping", "--json", "--socket", path)
    finally:
        fake.sock.close()
    assert r.returncode == exit_code, r.stderr
    assert json.loads(r.stdout)["error"]["code"] == code
