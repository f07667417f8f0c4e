"""``venom`` as a real process against a daemon whose code this environment cannot import.

The daemon (`family_kit.Tiny`) lives only in the test's own directory; ``venom`` learns its
verbs from its ``manifest`` and checks params against them (rfcs/0004 D-S65..D-S69).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from family_kit import MODEL, TIMEOUT, TOOL, VENOM, Tiny, error_code, is_root, json_out, venom

from venom_gen.family._ls import LS_VERB, list_sockets
from venom_gen.testing import PrivateDirs
from venom_schema.canonical import digest
from venom_schema.runtime import compile_verb

#: ``venom ls``'s result checked against the descriptor it prints through (rfcs/0004 D-S68).
LS_RESULT = compile_verb(LS_VERB).result


@pytest.fixture
def tiny(tmp_path: Path) -> Iterator[Tiny]:
    with Tiny(tmp_path) as daemon:
        yield daemon


def _wait_for(predicate: object, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def test_the_client_cannot_import_the_daemon(tiny: Tiny) -> None:
    """The premise: the daemon's code is nowhere on venom's path."""
    probe = subprocess.run(
        [sys.executable, "-c", "import tinyd"],
        env={k: v for k, v in tiny.env.items() if k != "PYTHONPATH"},
        cwd=tiny.env["HOME"],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert probe.returncode == 1
    assert b"No module named 'tinyd'" in probe.stderr


def test_call_describe_and_ls_a_daemon_known_only_by_its_socket(tiny: Tiny) -> None:
    out = venom("call", TOOL, "greet", '{"name":"ann"}', "--json", env=tiny.env)
    assert (out.returncode, out.stdout) == (0, '{"text":"hello ann"}\n'), out.stderr
    by_path = venom("call", tiny.socket, "greet", '{"name":"bo"}', env=tiny.env)
    assert (by_path.returncode, by_path.stdout) == (0, "text: hello bo\n"), by_path.stderr
    shown = venom("describe", TOOL, "greet", env=tiny.env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Usage: tiny-thing greet [options]\n\nGreet someone\n")
    assert "  --name TEXT  Who (string; required)" in shown.stdout
    missing = venom("describe", TOOL, "nope.verb", "--json", env=tiny.env)
    assert (missing.returncode, error_code(missing)) == (10, "unsupported.verb")
    described = json_out(venom("describe", TOOL, "--json", env=tiny.env))
    assert described["model"] == MODEL
    assert described["schema"] == digest(MODEL)
    assert described["server"] == {"name": TOOL, "version": "9.9.9"}
    listed = json_out(venom("ls", "--json", env=tiny.env))
    LS_RESULT(listed)
    assert listed["sockets"] == [
        {
            "tool": TOOL,
            "status": "live",
            "pid": tiny.pid,
            "version": "9.9.9",
            "schema": digest(MODEL),
            "socket": tiny.socket,
        }
    ]


def test_streams_print_each_item_and_params_come_from_stdin(tiny: Tiny) -> None:
    out = venom("call", TOOL, "count", "-", "--json", env=tiny.env, input='{"n": 3}')
    assert out.returncode == 0, out.stderr
    assert out.stdout == '{"i":0}\n{"i":1}\n{"i":2}\n'


def test_bad_params_are_refused_before_sending(tiny: Tiny) -> None:
    """Checked against the daemon's own model: exit 2, and the verb never reached it."""
    cases = {
        '{"name":"x","nme":1}': "invalid_params.unknown",
        "{}": "invalid_params.missing",
        '{"name":1}': "invalid_params.type",
        "[1]": "invalid_params.usage",
        "{nope": "invalid_params.usage",
    }
    for params, code in cases.items():
        out = venom("call", TOOL, "greet", params, "--json", env=tiny.env)
        assert (out.returncode, error_code(out)) == (2, code), (params, out.stdout)
    assert "greet" not in tiny.calls()
    human = venom("call", TOOL, "greet", '{"nme":"x"}', env=tiny.env)
    assert human.returncode == 2
    assert human.stderr.endswith(f"Try 'venom describe {TOOL} greet'.\n")
    unknown = venom("call", TOOL, "nope", "--json", env=tiny.env)
    assert (unknown.returncode, error_code(unknown)) == (10, "unsupported.verb")


def test_the_model_is_cached_by_its_digest(tiny: Tiny) -> None:
    """The manifest is fetched once per digest; a damaged entry is fetched again."""
    for _ in range(2):
        out = venom("call", TOOL, "greet", '{"name":"x"}', env=tiny.env)
        assert out.returncode == 0, out.stderr
    assert tiny.calls().count("manifest") == 1
    entry = Path(tiny.env["XDG_CACHE_HOME"], "venom", "models", digest(MODEL)[7:] + ".json")
    assert json.loads(entry.read_bytes()) == MODEL
    assert entry.stat().st_mode & 0o777 == 0o600
    entry.write_text("{broken")
    out = venom("call", TOOL, "greet", '{"name":"x"}', env=tiny.env)
    assert out.returncode == 0, out.stderr
    assert tiny.calls().count("manifest") == 2
    assert json.loads(entry.read_bytes()) == MODEL


def test_a_model_that_is_not_the_advertised_one_is_refused(tmp_path: Path) -> None:
    """The manifest's digest must be hello's schema (rfcs/0001 §16): internal.model, 11."""
    with Tiny(tmp_path, lie=True) as liar:
        for args in (("describe", TOOL), ("call", TOOL, "greet", '{"name":"x"}')):
            out = venom(*args, "--json", env=liar.env)
            assert (out.returncode, error_code(out)) == (11, "internal.model"), out.stdout
        assert "greet" not in liar.calls()


_FROB = {"kind": "frob"}


@pytest.mark.parametrize(
    "verb",
    [
        {"name": "greet", "params": "oops"},
        {"name": "greet", "summary": 7, "params": [{"name": "x"}], "result": None},
        {**MODEL["verbs"][1], "params": [{**MODEL["verbs"][1]["params"][0], "type": _FROB}]},
    ],
    ids=["params-not-a-list", "fields-missing", "unknown-kind"],
)
def test_a_malformed_served_model_is_internal_model(tmp_path: Path, verb: dict[str, Any]) -> None:
    """The daemon's model is input: a bad one is internal.model (11), never a traceback."""
    served = {**MODEL, "verbs": [verb]}
    with Tiny(tmp_path, served=served) as odd:
        for args in (("describe", TOOL), ("describe", TOOL, "greet"), ("call", TOOL, "greet")):
            out = venom(*args, "--json", env=odd.env)
            assert (out.returncode, error_code(out)) == (11, "internal.model"), (args, out)
            assert out.stderr == ""
        assert "greet" not in odd.calls()


def test_ctrl_c_cancels_the_stream_upstream(tiny: Tiny) -> None:
    proc = subprocess.Popen(
        [VENOM, "call", TOOL, "tail", "--json"],
        env=tiny.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == '{"i":0}\n'
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)
    assert proc.returncode == 8
    assert json.loads(rest)["error"]["code"] == "cancelled"
    _wait_for(lambda: "cancelled" in tiny.calls() or "ended" in tiny.calls(), "the handler's end")
    assert tiny.calls()[-1] == "cancelled"


def _runtime(dirs: PrivateDirs) -> Path:
    venom_dir = dirs.runtime / "venom"
    venom_dir.mkdir(mode=0o700, exist_ok=True)
    return venom_dir


def test_a_stale_socket_is_flagged_and_left_alone() -> None:
    dirs = PrivateDirs()
    try:
        dead = _runtime(dirs) / "dead-one.sock"
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(dead))  # closed without listening or unlinking: what a crash leaves
        env = dirs.env(TOOL)
        listed = json_out(venom("ls", "--json", env=env))
        LS_RESULT(listed)
        assert [(r["tool"], r["status"], r["pid"]) for r in listed["sockets"]] == [
            ("dead-one", "stale", None)
        ]
        assert dead.exists()
        out = venom("call", str(dead), "ping", "--json", env=env)
        assert (out.returncode, error_code(out)) == (6, "unavailable.not_running")
        assert dead.exists()
    finally:
        dirs.remove()


def test_another_users_socket_is_flagged_and_never_spoken_to(tiny: Tiny) -> None:
    """By the file's owner, without root: the listing's ``uid`` is someone else's."""
    directory = str(Path(tiny.socket).parent)
    rows = list_sockets(directory, uid=os.getuid() + 1, timeout=TIMEOUT)
    assert [(r["status"], r.get("uid"), r["pid"]) for r in rows] == [("foreign", os.getuid(), None)]


@pytest.mark.skipif(not is_root(), reason="needs root to chown a socket to another user")
def test_a_foreign_owned_socket_file_is_flagged(tiny: Tiny) -> None:
    other = Path(tiny.socket).with_name("other-tool.sock")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(other))
        s.listen()
        os.chown(other, 65534, 65534)
        s.settimeout(0.0)
        listed = json_out(venom("ls", "--json", env=tiny.env))
        with pytest.raises(BlockingIOError):
            s.accept()  # ls never connected to it
    LS_RESULT(listed)
    rows = {r["tool"]: r for r in listed["sockets"]}
    assert rows["other-tool"]["status"] == "foreign"
    assert rows["other-tool"]["uid"] == 65534
    assert rows[TOOL]["status"] == "live"


_FOREIGN_LISTENER = """\
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen()
print("ready", flush=True)
conn, _ = s.accept()
conn.settimeout(5)
try:
    data = conn.recv(100)
except OSError:
    data = b""
print(repr(data), flush=True)
"""


@pytest.mark.skipif(
    not is_root() or not os.path.exists("/usr/bin/setpriv"),
    reason="needs root and setpriv to run a listener as another uid",
)
def test_a_socket_served_by_another_user_is_closed_unspoken(tiny: Tiny) -> None:
    """The file is ours, the listener another user's (peer credentials): not one byte sent."""
    spot = Path(tempfile.mkdtemp(dir="/tmp"))  # somewhere the other user can reach and bind
    os.chown(spot, 65534, 65534)
    elsewhere = spot / "x.sock"
    proc = subprocess.Popen(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            _FOREIGN_LISTENER,
            str(elsewhere),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        moved = Path(tiny.socket).with_name("borrowed.sock")
        os.rename(elsewhere, moved)
        os.chown(moved, os.getuid(), os.getgid())
        listed = json_out(venom("ls", "--json", env=tiny.env))
        heard, _ = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)
        shutil.rmtree(spot, ignore_errors=True)
    LS_RESULT(listed)
    rows = {r["tool"]: r for r in listed["sockets"]}
    assert rows["borrowed"]["status"] == "foreign"
    assert rows["borrowed"]["uid"] == 65534
    assert rows["borrowed"]["pid"] == proc.pid  # setpriv execs the listener in its place
    assert heard.strip() == "b''"


def test_an_open_runtime_directory_is_refused() -> None:
    """RFC-0002 §2.4: the client checks the directory before it lists it (exit 4)."""
    dirs = PrivateDirs()
    try:
        os.chmod(_runtime(dirs), 0o755)
        out = venom("ls", "--json", env=dirs.env(TOOL))
        assert (out.returncode, error_code(out)) == (4, "denied.insecure_path")
        empty = PrivateDirs()
        try:
            listed = json_out(venom("ls", "--json", env=empty.env(TOOL)))
            assert listed["sockets"] == []
        finally:
            empty.remove()
    finally:
        dirs.remove()
