"""RFC-0002 §6: hello, versions and capabilities."""

from __future__ import annotations

import json

import pytest

from venom_mcp.conformance._kit import Daemon, exchange, not_applicable


@pytest.mark.rfc("RFC-0002 §6.5")
def test_unknown_version_gets_version_mismatch_with_supported_then_close(daemon: Daemon) -> None:
    """RFC-0002 §6.2/§6.5: {"proto":[99]} gets protocol.version_mismatch + data.supported."""
    with daemon.connect() as c:
        c.send_lines(b'{"id":1,"verb":"hello","params":{"proto":[99]}}')
        reply = json.loads(c.lines(1)[0])
        assert c.until_closed() == b""
    assert reply["id"] == 1
    assert reply["error"]["code"] == "protocol.version_mismatch"
    assert reply["error"]["data"]["supported"] == [1]


@pytest.mark.rfc("RFC-0002 §6.2")
def test_highest_common_version_is_chosen(daemon: Daemon) -> None:
    """RFC-0002 §6.2: proto is the highest version in both lists, whatever the order."""
    out = exchange(daemon, b'{"id":1,"verb":"hello","params":{"proto":[7,1,3]}}')
    assert json.loads(out[0])["ok"]["proto"] == 1


@pytest.mark.rfc("RFC-0002 §6.3")
def test_unknown_caps_are_dropped_not_errors(daemon: Daemon) -> None:
    """RFC-0002 §6.3: unknown capabilities are dropped from the result, never an error."""
    out = exchange(
        daemon, b'{"id":1,"verb":"hello","params":{"proto":[1],"caps":["cancel","x.nope","zz"]}}'
    )
    assert json.loads(out[0])["ok"]["caps"] == ["cancel"]


@pytest.mark.rfc("RFC-0002 §6.3")
def test_caps_are_the_intersection_even_when_asking_for_less(daemon: Daemon) -> None:
    """RFC-0002 §6.2/§6.3: caps is the intersection of both lists: a client that asks for
    fewer capabilities than the server offers (none at all) gets no more than it asked for."""
    offered = json.loads(
        exchange(daemon, b'{"id":1,"verb":"hello","params":{"proto":[1],"caps":["cancel"]}}')[0]
    )["ok"]["caps"]
    assert offered == ["cancel"]  # every daemon offers cancel (RFC-0002 §4.5)
    with daemon.connect() as c:
        c.send_lines(
            b'{"id":1,"verb":"hello","params":{"proto":[1],"caps":[]}}',
            b'{"id":2,"verb":"cancel","params":{"id":9}}',
        )
        hello, cancel = (json.loads(x) for x in c.lines(2))
    assert hello["ok"]["caps"] == []
    # What was not granted is not usable: cancel without the capability (RFC-0002 §4.5).
    assert cancel["error"]["code"] == "unsupported.capability"


@pytest.mark.rfc("RFC-0002 §6.2")
def test_max_frame_is_the_smaller_of_both(daemon: Daemon) -> None:
    """RFC-0002 §6.2: the effective max_frame is the smaller of the two peers' values."""

    def effective(asked: int) -> int:
        line = b'{"id":1,"verb":"hello","params":{"proto":[1],"max_frame":%d}}' % asked
        value: int = json.loads(exchange(daemon, line)[0])["ok"]["max_frame"]
        return value

    own = effective(16777216)  # the ceiling: what comes back is the daemon's own limit
    assert 4096 <= own <= 16777216
    assert effective(4096) == 4096
    assert effective(own) == own
    if own > 4096:
        assert effective(own - 1) == own - 1


@pytest.mark.rfc("RFC-0002 §6.1")
@pytest.mark.parametrize("bad", [4095, 16777217])
def test_max_frame_outside_range_is_invalid(daemon: Daemon, bad: int) -> None:
    """RFC-0002 §6.1: max_frame must lie in 4096..16777216."""
    line = b'{"id":1,"verb":"hello","params":{"proto":[1],"max_frame":%d}}' % bad
    reply = json.loads(exchange(daemon, line)[0])
    assert reply["error"]["code"].startswith("invalid_params")


@pytest.mark.rfc("RFC-0002 §6.2")
def test_negotiated_max_frame_applies_to_requests(daemon: Daemon) -> None:
    """RFC-0002 §6.2: the negotiated max_frame applies in both directions."""
    with daemon.connect() as c:
        c.send_lines(b'{"id":1,"verb":"hello","params":{"proto":[1],"max_frame":4096}}')
        c.lines(1)
        c.send_lines(b'{"id":2,"verb":"ping","pad":"' + b"a" * 5000 + b'"}')
        reply = json.loads(c.lines(1)[0])
    assert reply["error"]["code"] == "protocol.too_large"


@pytest.mark.rfc("RFC-0002 §6.4")
def test_second_hello_is_hello_order(daemon: Daemon) -> None:
    """RFC-0002 §6.4: a second hello is protocol.hello_order."""
    out = exchange(
        daemon,
        b'{"id":1,"verb":"hello","params":{"proto":[1]}}',
        b'{"id":2,"verb":"hello","params":{"proto":[1]}}',
    )
    assert json.loads(out[1])["error"]["code"] == "protocol.hello_order"


@pytest.mark.rfc("RFC-0002 §6.4")
def test_hello_after_a_request_is_hello_order(daemon: Daemon) -> None:
    """RFC-0002 §6.4: hello after any other request is protocol.hello_order."""
    out = exchange(
        daemon, b'{"id":1,"verb":"ping"}', b'{"id":2,"verb":"hello","params":{"proto":[1]}}'
    )
    assert json.loads(out[1])["error"]["code"] == "protocol.hello_order"


@pytest.mark.rfc("RFC-0002 §6.4")
def test_implicit_hello_is_version_1_without_caps(daemon: Daemon) -> None:
    """RFC-0002 §6.4: no hello means version 1 with no capabilities (cancel is refused)."""
    out = exchange(
        daemon,
        b'{"id":1,"verb":"ping"}',
        b'{"id":2,"verb":"cancel","params":{"id":1}}',
    )
    assert json.loads(out[0]) == {"id": 1, "ok": {}}
    assert json.loads(out[1])["error"]["code"] == "unsupported.capability"


@pytest.mark.rfc("RFC-0002 §6.2")
def test_hello_result_advertises_the_schema_digest(daemon: Daemon) -> None:
    """RFC-0002 §6.2 / RFC-0004 §7: schema is sha256: plus 64 lowercase hex digits."""
    ok = json.loads(exchange(daemon, b'{"id":1,"verb":"hello","params":{"proto":[1]}}')[0])["ok"]
    schema = ok.get("schema")
    if schema is None:
        not_applicable("the daemon advertises no schema digest (optional)")
    assert schema.startswith("sha256:")
    assert len(schema) == 71
    assert all(ch in "0123456789abcdef" for ch in schema[7:])
