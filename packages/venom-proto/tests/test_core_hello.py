"""Hello negotiation (RFC-0002 6.1-6.4) as a table of params -> result or error."""

from __future__ import annotations

from typing import Any

import pytest

from venom_proto import ProtocolViolation, VenomError
from venom_proto._core._json import dumps
from venom_proto._core.hello import (
    IMPLICIT_HELLO,
    HelloOutcome,
    implicit_hello,
    negotiate_hello,
)

SERVER_CAPS = frozenset({"cancel", "venom-echo.bytes"})


def negotiate(params: dict[str, Any], **kw: Any) -> HelloOutcome:
    options: dict[str, Any] = {
        "server_name": "venom-echo",
        "server_version": "0.1.0",
        "caps": SERVER_CAPS,
    }
    options.update(kw)
    return negotiate_hello(params, **options)


def test_section_1_hello_result_trace() -> None:
    """RFC-0002 §1, §6.2: the hello result of the socat session, byte for byte."""
    outcome = negotiate(
        {"proto": [1], "client": {"name": "socat", "version": "0"}},
        caps=frozenset({"cancel"}),
    )
    line = b'{"id":1,"ok":' + dumps(outcome.result) + b"}\n"
    assert line == (
        b'{"id":1,"ok":{"proto":1,"server":{"name":"venom-echo","version":"0.1.0"},'
        b'"caps":["cancel"],"max_frame":1048576}}\n'
    )
    assert outcome.caps == frozenset({"cancel"})


def test_omitted_caps_mean_the_core_caps_only() -> None:
    """RFC-0002 §1 with §6.3: no caps asked -> bare-name core caps; tool caps must be asked."""
    outcome = negotiate({"proto": [1]})
    assert outcome.result is not None
    assert outcome.result["caps"] == ["cancel"]


@pytest.mark.parametrize(
    ("params", "versions", "proto"),
    [
        ({"proto": [1]}, (1,), 1),
        ({"proto": [1, 2]}, (1, 2), 2),
        ({"proto": [2, 1]}, (1, 2), 2),
        ({"proto": [1, 5]}, (1, 2), 1),
        ({"proto": [3, 2]}, (1, 2, 3), 3),
    ],
)
def test_highest_common_version(
    params: dict[str, Any], versions: tuple[int, ...], proto: int
) -> None:
    """RFC-0002 §6.2, §6.5: the highest version in both lists; list order does not matter."""
    outcome = negotiate(params, versions=versions)
    assert outcome.proto == proto
    assert outcome.result is not None
    assert outcome.result["proto"] == proto


@pytest.mark.parametrize("proto", [[99], [0, 2], [-1]])
def test_no_common_version_is_version_mismatch(proto: list[int]) -> None:
    """RFC-0002 §6.2, §6.5: {"proto":[99]} -> protocol.version_mismatch, data.supported, close."""
    with pytest.raises(ProtocolViolation) as info:
        negotiate({"proto": proto})
    err = info.value
    assert (err.code, err.data, err.close) == (
        "protocol.version_mismatch",
        {"supported": [1]},
        True,
    )


def test_version_mismatch_lists_every_supported_version() -> None:
    """RFC-0002 §6.5: data.supported lists both versions during a transition."""
    with pytest.raises(ProtocolViolation) as info:
        negotiate({"proto": [99]}, versions=(2, 1))
    assert info.value.data == {"supported": [1, 2]}


@pytest.mark.parametrize(
    ("client_caps", "granted"),
    [
        ([], []),
        (["cancel"], ["cancel"]),
        (["venom-echo.bytes", "cancel", "cancel"], ["cancel", "venom-echo.bytes"]),
        (["cancel", "venomx.pane_stream", "future"], ["cancel"]),
    ],
)
def test_caps_are_intersected_and_unknown_ones_dropped(
    client_caps: list[str] | None, granted: list[str]
) -> None:
    """RFC-0002 §6.3: unknown capabilities are dropped from the result, never an error."""
    params: dict[str, Any] = {"proto": [1]}
    if client_caps is not None:
        params["caps"] = client_caps
    outcome = negotiate(params)
    assert outcome.result is not None
    assert outcome.result["caps"] == granted
    assert outcome.caps == frozenset(granted)


@pytest.mark.parametrize(
    ("client", "server", "effective"),
    [
        (None, 1048576, 1048576),
        (4096, 1048576, 4096),
        (16777216, 1048576, 1048576),
        (65536, 32768, 32768),
    ],
)
def test_max_frame_is_the_smaller(client: int | None, server: int, effective: int) -> None:
    """RFC-0002 §6.2: the effective max_frame is the smaller of the two peers' values."""
    params: dict[str, Any] = {"proto": [1]}
    if client is not None:
        params["max_frame"] = client
    outcome = negotiate(params, max_frame=server)
    assert outcome.max_frame == effective
    assert outcome.result is not None
    assert outcome.result["max_frame"] == effective


def test_schema_member_only_when_the_server_has_one() -> None:
    """RFC-0002 §6.2: schema is optional."""
    without = negotiate({"proto": [1]}).result
    assert without is not None
    assert "schema" not in without
    with_schema = negotiate({"proto": [1]}, schema="sha256:9f2c").result
    assert with_schema is not None
    assert with_schema["schema"] == "sha256:9f2c"


@pytest.mark.parametrize(
    ("params", "code", "param"),
    [
        ({}, "invalid_params.missing", "proto"),
        ({"proto": 1}, "invalid_params.type", "proto"),
        ({"proto": ["1"]}, "invalid_params.type", "proto"),
        ({"proto": [True]}, "invalid_params.type", "proto"),
        ({"proto": [1.0]}, "invalid_params.type", "proto"),
        ({"proto": []}, "invalid_params.range", "proto"),
        ({"proto": [1], "caps": "cancel"}, "invalid_params.type", "caps"),
        ({"proto": [1], "caps": [1]}, "invalid_params.type", "caps"),
        ({"proto": [1], "client": "me"}, "invalid_params.type", "client"),
        ({"proto": [1], "client": {"name": 1}}, "invalid_params.type", "client.name"),
        ({"proto": [1], "max_frame": "big"}, "invalid_params.type", "max_frame"),
        ({"proto": [1], "max_frame": True}, "invalid_params.type", "max_frame"),
        ({"proto": [1], "max_frame": 4095}, "invalid_params.range", "max_frame"),
        ({"proto": [1], "max_frame": 16777217}, "invalid_params.range", "max_frame"),
    ],
)
def test_invalid_params(params: dict[str, Any], code: str, param: str) -> None:
    """RFC-0002 §6.1: proto is a non-empty int array; max_frame lies in 4096..16777216."""
    with pytest.raises(VenomError) as info:
        negotiate(params)
    assert not isinstance(info.value, ProtocolViolation)
    assert (info.value.code, info.value.data) == (code, {"param": param})


def test_unknown_members_and_auth_are_kept_for_the_server() -> None:
    """RFC-0002 §4.1: unknown members are ignored; auth is opaque here (RFC-0005)."""
    params = {"proto": [1], "auth": {"token": "t"}, "future": [1, 2]}
    outcome = negotiate(params)
    assert outcome.params["auth"] == {"token": "t"}
    assert outcome.result is not None
    assert set(outcome.result) == {
        "proto",
        "server",
        "caps",
        "max_frame",
    }


def test_implicit_hello_is_pinned_to_version_1() -> None:
    """RFC-0002 §6.4: no hello means version 1, no caps, default max_frame."""
    assert implicit_hello((1, 2)) is IMPLICIT_HELLO
    assert (IMPLICIT_HELLO.proto, IMPLICIT_HELLO.caps, IMPLICIT_HELLO.max_frame) == (
        1,
        frozenset(),
        1048576,
    )


def test_implicit_hello_without_version_1_is_version_mismatch() -> None:
    """RFC-0002 §6.4: a server that no longer speaks 1 refuses a connection without hello."""
    with pytest.raises(ProtocolViolation) as info:
        implicit_hello((2,))
    assert (info.value.code, info.value.data, info.value.close) == (
        "protocol.version_mismatch",
        {"supported": [2]},
        True,
    )
