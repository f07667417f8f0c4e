"""Raw NDJSON lines and binary frames on the daemon's socket (RFC-0002; rfcs/0001, 0003, 0005)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from integration_kit import ECHO_VERSION, Daemon, frame, hello_params, request

from venom_echo.handlers import ECHO_BYTES, ECHO_BYTES_CAP

HELLO, HELLO_OK, ERROR, CONTROL = 0x0001, 0x0002, 0x0003, 0x0010


@pytest.mark.covers("socket", "hello")
def test_hello_result(daemon: Daemon) -> None:
    """RFC-0002 §6.2; RFC-0004 §7: proto 1, server identity, negotiated caps, schema digest."""
    with daemon.connect() as c:
        ok = c.hello()
    assert ok["proto"] == 1
    assert ok["server"] == {"name": "venom-echo", "version": ECHO_VERSION}
    assert ok["caps"] == ["cancel"]
    assert ok["max_frame"] == 1048576
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", ok["schema"])


@pytest.mark.covers("socket", "hello")
def test_second_hello_is_refused(daemon: Daemon) -> None:
    """RFC-0002 §4.5: hello at most once per connection."""
    with daemon.connect() as c:
        c.hello()
        reply = c.call(1, "hello", hello_params())
    assert reply["id"] == 1
    assert reply["error"]["code"].startswith("protocol.")


SIMPLE: list[tuple[str, dict[str, Any], Any]] = [
    ("echo", {"text": "hi"}, {"text": "hi"}),
    ("echo", {"text": "hi", "style": "upper"}, {"text": "HI"}),
    ("echo.exit", {"status": 3}, {"status": 3}),
    ("ping", {}, {}),
    ("config.get", {"key": "greeting"}, {"key": "greeting", "value": '"hello"'}),
    (
        "echo.types",
        {"nested": {"name": "n"}, "tags": []},
        {
            "count": 1,
            "ratio": 0.5,
            "flag": False,
            "tags": [],
            "nested": {"name": "n", "level": 0},
            "mode": None,
        },
    ),
]


@pytest.mark.covers("socket", "echo", "echo.exit", "ping", "config.get", "echo.types")
@pytest.mark.parametrize(("verb", "params", "ok"), SIMPLE)
def test_ndjson_call_without_hello(
    daemon: Daemon, verb: str, params: dict[str, Any], ok: Any
) -> None:
    """RFC-0002 §4.2, §6.4: a connection may skip hello; one request, one ok, same id."""
    with daemon.connect() as c:
        assert c.call(7, verb, params) == {"id": 7, "ok": ok}


@pytest.mark.covers("socket", "echo.fail")
@pytest.mark.parametrize(
    ("code", "data"),
    [
        ("failed.echo", {"reason": "asked to fail"}),
        ("not_found.echo", {"what": "text"}),
        ("conflict.echo_busy", {"retry_after_ms": 100}),
        ("timeout.echo", {"waited_ms": 0, "hint": None}),
    ],
)
def test_fail_error_objects(daemon: Daemon, code: str, data: dict[str, Any]) -> None:
    """RFC-0002 §7.1: error replies carry the declared code and data verbatim."""
    with daemon.connect() as c:
        reply = c.call(3, "echo.fail", {"code": code})
    assert reply["id"] == 3
    assert (reply["error"]["code"], reply["error"]["data"]) == (code, data)
    assert isinstance(reply["error"]["message"], str)


@pytest.mark.covers("socket", "echo")
def test_invalid_params_over_the_wire(daemon: Daemon) -> None:
    """RFC-0004 §3: the daemon validates; unknown and missing params are refused."""
    with daemon.connect() as c:
        unknown = c.call(1, "echo", {"text": "a", "loud": True})
        missing = c.call(2, "echo", {})
    assert unknown["error"]["code"] == "invalid_params.unknown"
    assert unknown["error"]["data"] == {"param": "loud"}
    assert missing["error"]["code"] == "invalid_params.missing"


@pytest.mark.covers("socket", "echo.repeat")
def test_repeat_streams_items_then_ok(daemon: Daemon) -> None:
    """RFC-0002 §4.4: zero or more items, then one final ok."""
    with daemon.connect() as c:
        c.send_lines(request(5, "echo.repeat", {"text": "x", "count": 3}))
        replies = c.json_lines(4)
        c.send_lines(request(6, "echo.repeat", {"text": "x", "count": 0}))
        empty = c.json_lines(1)
    assert replies == [
        *({"id": 5, "item": {"index": i, "text": "x"}} for i in range(3)),
        {"id": 5, "ok": {"count": 3}},
    ]
    assert empty == [{"id": 6, "ok": {"count": 0}}]


@pytest.mark.covers("socket", "cancel")
def test_cancel_unknown_request(daemon: Daemon) -> None:
    """RFC-0002 §4.5: cancelling an id not in flight is not_found.request."""
    with daemon.connect() as c:
        c.hello()
        reply = c.call(1, "cancel", {"id": 99})
    assert reply["error"]["code"] == "not_found.request"


@pytest.mark.covers("socket", "skill")
def test_skill_content(daemon: Daemon) -> None:
    """RFC-0004 §6: skill returns {"content": SKILL.md} with front matter name: venom-echo."""
    with daemon.connect() as c:
        ok = c.call(1, "skill")["ok"]
    assert list(ok) == ["content"]
    assert ok["content"].startswith("---\nname: venom-echo\n")


@pytest.mark.covers("socket", "doctor", "config.check", "config.schema")
def test_read_verbs_need_no_token(daemon: Daemon) -> None:
    """rfcs/0005 §2: a connection without a token holds read: doctor, config.check/schema run."""
    with daemon.connect() as c:
        doctor = c.call(1, "doctor")["ok"]
        check = c.call(2, "config.check")["ok"]
        schema = c.call(3, "config.schema")["ok"]
    assert (doctor["status"], doctor["exit"]) == ("ok", 0)
    assert check == {"path": str(daemon.config_file), "valid": True, "exit": 0, "errors": []}
    parsed = json.loads(schema["schema"])
    assert parsed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(parsed["properties"]) == {"log_level", "greeting"}


@pytest.mark.covers("socket", "config.set", "config.reload", "skill.install")
@pytest.mark.parametrize(
    ("verb", "grant", "params"),
    [
        ("config.set", "write", {"key": "greeting", "value": "x"}),
        ("config.reload", "write", {}),
        ("skill.install", "files", {"dir": "/tmp/never-written"}),
    ],
)
@pytest.mark.parametrize("token", [None, "0" * 64, "not-a-token"])
def test_privileged_verbs_denied_without_owner_token(
    daemon: Daemon, verb: str, grant: str, params: dict[str, Any], token: str | None
) -> None:
    """rfcs/0005 §2, §4: no, wrong or malformed token: denied.grant with {verb, grant}, exit 4."""
    with daemon.connect() as c:
        assert c.hello(token=token)["proto"] == 1  # a bad token is not a hello error
        reply = c.call(1, verb, params)
    assert reply["error"]["code"] == "denied.grant"
    identity = "peer" if token is None else "unrecognized"
    assert reply["error"]["data"] == {"verb": verb, "grant": grant, "identity": identity}
    assert not Path("/tmp/never-written").exists()


@pytest.mark.covers("socket", "skill.install")
def test_skill_install_with_owner_token(daemon: Daemon, tmp_path: Path) -> None:
    """rfcs/0005 §2; rfcs/0001 §4: the owner token holds files; install is idempotent."""
    with daemon.connect() as c:
        c.hello(token=daemon.token())
        first = c.call(1, "skill.install", {"dir": str(tmp_path)})
        again = c.call(2, "skill.install", {"dir": str(tmp_path)})
        content = c.call(3, "skill")["ok"]["content"]
    path = str(tmp_path / "SKILL.md")
    assert first == {"id": 1, "ok": {"path": path, "written": True}}
    assert again == {"id": 2, "ok": {"path": path, "written": False}}
    assert (tmp_path / "SKILL.md").read_text(encoding="utf-8") == content


@pytest.mark.covers("socket", "config.set", "config.get", "config.reload")
def test_config_set_and_reload_with_owner_token(own_daemon: Daemon) -> None:
    """rfcs/0005 §2; rfcs/0001 §6: with the token config.set writes and applies; reload works."""
    with own_daemon.connect() as c:
        c.hello(token=own_daemon.token())
        assert c.call(1, "config.set", {"key": "greeting", "value": "wire"})["ok"] == {
            "key": "greeting",
            "value": '"wire"',
        }
        assert c.call(2, "config.get", {"key": "greeting"})["ok"]["value"] == '"wire"'
        assert c.call(3, "config.reload")["ok"] == {
            "path": str(own_daemon.config_file),
            "changed": [],
        }
    assert 'greeting = "wire"' in own_daemon.config_file.read_text(encoding="utf-8")


def _binary_hello(caps: tuple[str, ...]) -> bytes:
    return b"\xf5" + frame(HELLO, 0, json.dumps(hello_params(caps=caps)).encode())


@pytest.mark.covers("socket", "hello", "ping")
def test_binary_echo_bytes_roundtrip(daemon: Daemon) -> None:
    """RFC-0002 §5.3: HELLO/HELLO_OK, ECHO_BYTES 0x0100 echoed on its stream, CONTROL verbs."""
    payload = bytes(range(256)) + b"hi\n"
    with daemon.connect() as c:
        c.sock.sendall(_binary_hello(("cancel", ECHO_BYTES_CAP)))
        type_, stream, body = c.read_frame()
        assert (type_, stream) == (HELLO_OK, 0)
        assert json.loads(body)["caps"] == ["cancel", ECHO_BYTES_CAP]
        c.sock.sendall(frame(ECHO_BYTES, 1, payload) + frame(ECHO_BYTES, 3, b""))
        assert c.read_frame() == (ECHO_BYTES, 1, payload)
        assert c.read_frame() == (ECHO_BYTES, 3, b"")
        c.sock.sendall(frame(CONTROL, 0, request(3, "ping")))
        type_, stream, body = c.read_frame()
    assert (type_, stream, json.loads(body)) == (CONTROL, 0, {"id": 3, "ok": {}})


@pytest.mark.covers("socket", "hello")
def test_binary_echo_bytes_needs_capability(daemon: Daemon) -> None:
    """RFC-0002 §5.2: a tool frame outside the negotiated caps is protocol.bad_frame."""
    with daemon.connect() as c:
        c.sock.sendall(_binary_hello(("cancel",)))
        assert c.read_frame()[0] == HELLO_OK
        c.sock.sendall(frame(ECHO_BYTES, 1, b"x"))
        type_, _stream, body = c.read_frame()
    assert type_ == ERROR
    assert json.loads(body)["code"] == "protocol.bad_frame"
