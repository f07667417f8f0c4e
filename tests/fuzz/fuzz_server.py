"""The server core under fuzzed input: one helper the NDJSON and frame fuzzers share.

`serve` feeds a byte stream to `ServerConnection` (in the chunks given, with or without the
fast path), acts as a minimal application for its events and returns every byte written.
`check_output` holds that output to the RFC: every message within max_frame, well formed, one
of ok/error/item, and never an id the RFC does not allow.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import orjson

from venom_proto.sansio import (
    CONTROL,
    HEADER,
    NEED_DATA,
    PAUSED,
    PENDING,
    CallStarted,
    ConnectionClosed,
    ServerConnection,
    ServerSettings,
    VenomError,
    VerbSpec,
    is_valid_id,
)

__all__ = ("check_output", "serve")


@dataclass(frozen=True)
class _Verb:
    streams: bool = False
    capability: str | None = None
    deferred: bool = False


VERBS: dict[str, VerbSpec] = {
    "echo": _Verb(),
    "echo.repeat": _Verb(streams=True, deferred=True),
    "events": _Verb(streams=True, deferred=True),
    "config.set": _Verb(capability="t.cfg"),
}


class _Runner:
    verbs = VERBS

    def run(self, id: int | str, verb: str, params: dict[str, Any], spec: VerbSpec) -> Any:
        assert isinstance(spec, _Verb)
        return PENDING if spec.deferred else params

    def failed(self, id: int | str, verb: str, exc: Exception) -> VenomError:
        return VenomError("internal", "internal")


def serve(stream: list[bytes], max_frame: int, fast: bool, eof: bool = True) -> bytes:
    """Every byte the core writes for ``stream`` (chunks), then end of input."""
    settings = ServerSettings(
        "t", "1", VERBS, frozenset({"cancel", "t.cfg", "t.bytes"}), {0x0100: "t.bytes"},
        max_frame=max_frame,
    )  # fmt: skip
    conn = ServerConnection(settings, None, _Runner() if fast else None)
    out = bytearray()
    chunks = [chunk for chunk in stream if chunk]  # b"" would mean end of input
    for chunk in [*chunks, b""] if eof else chunks:
        conn.receive_data(chunk)
        while True:
            event = conn.next_event()
            if event is NEED_DATA or isinstance(event, ConnectionClosed):
                break
            if event is PAUSED:
                out += conn.data_to_send()
            elif isinstance(event, CallStarted) and not event.spec.streams:
                conn.send_ok(event.id, event.params)
        out += conn.data_to_send()
        assert conn.buffered <= max(map(len, stream), default=0) + max_frame + HEADER
        if conn.closed:
            break
    return bytes(out)


def _check_reply(reply: Any) -> None:
    assert type(reply) is dict, reply
    assert next(iter(reply)) == "id"
    kinds = [k for k in ("ok", "error", "item") if k in reply]
    assert len(kinds) == 1, reply
    assert reply["id"] is None or is_valid_id(reply["id"]), reply["id"]
    if "error" in reply:
        assert type(reply["error"]["code"]) is str


def check_output(out: bytes, binary: bool) -> None:
    """Hold the core's output to RFC-0002 4.1, 4.2 and 5.1 (limit: at most 16 MiB)."""
    if not binary:
        for line in out.splitlines(keepends=True):
            assert line.endswith(b"\n")
            assert len(line) <= 1 << 20  # no test negotiates above the default
            _check_reply(orjson.loads(line))
        return
    pos = 0
    while pos < len(out):
        type_, _, length = struct.unpack_from(">HII", out, pos)
        payload = out[pos + HEADER : pos + HEADER + length]
        assert len(payload) == length, "a frame cut short"
        assert length <= 1 << 20
        if type_ == CONTROL:
            _check_reply(orjson.loads(payload))
        pos += HEADER + length
