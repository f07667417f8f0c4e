"""Drive the sans-I/O server core in memory, as `venom_proto._server` does over a socket.

`CoreApp` is a minimal application on a `ServerConnection`: it runs sync verbs either on the
core's fast path (``fast=True``, as an `InlineRunner`) or from `CallStarted` events, and keeps
"deferred" verbs (stand-ins for async handlers) in flight until the test answers them.
`Pair` wires a client core to it back to back (h11's ConnectionPair), no socket or thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from venom_proto import VenomError
from venom_proto._client_core import ClientCore
from venom_proto._core.server_connection import ServerConnection
from venom_proto._core.server_events import (
    NEED_DATA,
    PAUSED,
    PENDING,
    CallCancelled,
    CallStarted,
    ConnectionClosed,
    Event,
    FrameReceived,
    HelloSettled,
    Sentinel,
)
from venom_proto._core.server_settings import CallBudget, ServerSettings, VerbSpec

ECHO_BYTES = 0x0100


@dataclass(frozen=True)
class Spec:
    """A test verb: ``fn(params)`` gives the result; ``deferred`` ones wait for the test."""

    fn: Callable[[dict[str, Any]], Any] = lambda params: params
    streams: bool = False
    capability: str | None = None
    deferred: bool = False


def _fail(params: dict[str, Any]) -> Any:
    raise VenomError("not_found.thing", f"no thing {params.get('thing')!r}", dict(params))


def _boom(params: dict[str, Any]) -> Any:
    raise RuntimeError("secret detail")


VERBS: dict[str, Spec] = {
    "echo": Spec(),
    "fail": Spec(_fail),
    "boom": Spec(_boom),
    "big": Spec(lambda params: "x" * params["size"]),
    "unencodable": Spec(lambda params: {1, 2}),
    "gated": Spec(capability="t.gated"),
    "wait": Spec(deferred=True),
    "events": Spec(streams=True, deferred=True),
}


def settings(**options: Any) -> ServerSettings:
    values: dict[str, Any] = {
        "name": "t",
        "version": "1.0",
        "verbs": VERBS,
        "caps": frozenset({"cancel", "t.gated", "t.bytes"}),
        "frame_caps": {ECHO_BYTES: "t.bytes"},
    }
    values.update(options)
    return ServerSettings(**values)


class Runner:
    """The `InlineRunner` of a `CoreApp`: the same outcome as its event handling."""

    def __init__(self, app: CoreApp) -> None:
        self._app = app
        self.verbs: dict[str, VerbSpec] = dict(app.conn_settings.verbs)

    def run(self, id: int | str, verb: str, params: dict[str, Any], spec: VerbSpec) -> Any:
        assert isinstance(spec, Spec)
        if spec.deferred:
            self._app.deferred[id] = verb
            return PENDING
        return spec.fn(params)

    def failed(self, id: int | str, verb: str, exc: Exception) -> VenomError:
        return VenomError("internal", f"internal error in verb {verb!r}")


@dataclass
class CoreApp:
    """A `ServerConnection` and the application around it; `feed` returns what it wrote."""

    fast: bool = True
    calls: CallBudget | None = None
    options: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    deferred: dict[int | str, str] = field(default_factory=dict)
    frames: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.conn_settings = settings(**self.options)
        self.conn = ServerConnection(
            self.conn_settings, self.calls, Runner(self) if self.fast else None
        )

    def feed(self, data: bytes) -> bytes:
        """Feed ``data`` (``b""``: end of input), handle every event, return the output."""
        self.conn.receive_data(data)
        return self.pump()

    def feed_chunks(self, data: bytes, sizes: Iterable[int]) -> bytes:
        out, pos = b"", 0
        for size in sizes:
            out += self.feed(data[pos : pos + size]) if data[pos : pos + size] else b""
            pos += size
        if data[pos:]:
            out += self.feed(data[pos:])
        return out

    def pump(self) -> bytes:
        conn, out = self.conn, b""
        while True:
            event = conn.next_event()
            if event is NEED_DATA:
                break
            if event is PAUSED:
                out += bytes(conn.data_to_send())
                continue
            assert not isinstance(event, Sentinel)
            self.events.append(event)
            if isinstance(event, CallStarted):
                self._start(event)
            elif isinstance(event, CallCancelled):
                self.deferred.pop(event.id, None)
            elif isinstance(event, FrameReceived):
                self.frames.append(event.frame)
            elif isinstance(event, ConnectionClosed):
                break
            else:
                assert isinstance(event, HelloSettled)
        return out + bytes(conn.data_to_send())

    def _start(self, event: CallStarted) -> None:
        spec = event.spec
        assert isinstance(spec, Spec)
        if spec.deferred:
            self.deferred[event.id] = event.verb
            return
        try:
            result = spec.fn(event.params)
            self.conn.send_ok(event.id, result)
        except VenomError as exc:
            self.conn.send_error(event.id, exc)
        except Exception:
            self.conn.send_error(
                event.id, VenomError("internal", f"internal error in verb {event.verb!r}")
            )

    def answer(self, id: int | str, value: Any = None) -> bytes:
        """A deferred call finishes with ``value``."""
        self.deferred.pop(id)
        self.conn.send_ok(id, value)
        return bytes(self.conn.data_to_send())

    @property
    def closed(self) -> bool:
        return self.conn.closed


class Pair:
    """A client core and a `CoreApp` joined by in-memory bytes."""

    def __init__(self, client: ClientCore, app: CoreApp | None = None) -> None:
        self.client = client
        self.app = app or CoreApp()

    def send(self, data: bytes) -> list[int | str]:
        """Client bytes to the server; the server's answer back to the client."""
        return self.client.receive_data(self.app.feed(data)) if data else []
