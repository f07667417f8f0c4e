"""What handlers see: `VerbHandler`, `Call`, `ConnectionInfo`, `FrameHandler` and `FrameContext`."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from venom_proto._core.frames import Frame
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME

if TYPE_CHECKING:
    from venom_proto.peercred import PeerCredentials

__all__ = (
    "Call",
    "ConnectionInfo",
    "FrameContext",
    "FrameHandler",
    "FrameHandlerFn",
    "Handler",
    "VerbHandler",
)

Handler = Callable[["Call", dict[str, Any]], Any]
"""A verb handler: ``def`` (runs inline) or ``async def`` (runs in its own task)."""

FrameHandlerFn = Callable[["FrameContext", Frame], Any]
"""A tool frame handler: ``def`` or ``async def``, given the frame and a context to reply on."""


@dataclass(frozen=True, slots=True)
class VerbHandler:
    """A tool verb: its handler, whether it streams items, and the capability that gates it."""

    handler: Handler
    streams: bool = False
    capability: str | None = None
    is_async: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.handler))


@dataclass(frozen=True, slots=True)
class FrameHandler:
    """Handles binary frames of one tool ``type`` (0x0100-0xEFFF) once ``capability`` is agreed."""

    type: int
    capability: str
    handler: FrameHandlerFn

    def __post_init__(self) -> None:
        if not 0x0100 <= self.type <= 0xFFFF:
            raise ValueError(f"frame type {self.type:#06x} is not a tool or experimental type")


@dataclass(slots=True, eq=False)
class ConnectionInfo:
    """One connection as handlers see it; the server fills it in, handlers only read it.

    ``hello`` holds the client's hello params (``client``, ``auth``, ...), ``caps`` the
    negotiated capabilities; before hello (or with an implicit one) ``caps`` is empty.
    ``grants`` is the one field proto never reads: the layer that checks grants (venom-schema,
    rfcs/0005) caches there what this connection holds, since hello cannot change once settled.
    """

    id: int
    uid: int
    gid: int
    pid: int | None
    protocol: Literal["ndjson", "binary"] | None = None
    proto: int | None = None
    caps: frozenset[str] = frozenset()
    max_frame: int = DEFAULT_MAX_FRAME
    hello: dict[str, Any] = field(default_factory=dict)
    grants: Container[str] | None = None

    @classmethod
    def from_peer(cls, conn_id: int, creds: PeerCredentials) -> ConnectionInfo:
        """A fresh record for an accepted peer."""
        return cls(id=conn_id, uid=creds.uid, gid=creds.gid, pid=creds.pid)


class CallHost(Protocol):
    """The dispatcher side of a `Call`: where its items go."""

    async def emit_item(self, call: Call, item: Any) -> None: ...


class Call:
    """One request being handled: its ``id``, ``verb`` and ``connection``.

    Streaming handlers ``await call.emit(item)`` for each item, then return the final result.
    ``cancelled`` turns true once the request was cancelled or its connection went away; after
    that, emitted items and the result are dropped.
    """

    __slots__ = ("_host", "cancelled", "connection", "id", "streams", "verb")

    def __init__(
        self,
        id: int | str,
        verb: str,
        connection: ConnectionInfo,
        host: CallHost,
        *,
        streams: bool = False,
    ) -> None:
        self.id = id
        self.verb = verb
        self.connection = connection
        self.streams = streams
        self.cancelled = False
        self._host = host

    async def emit(self, item: Any) -> None:
        """Send one item (streaming verbs only); waits while the peer is slow to read."""
        if not self.streams:
            raise RuntimeError(f"verb {self.verb!r} does not stream; it cannot emit items")
        await self._host.emit_item(self, item)

    def __repr__(self) -> str:
        return f"Call(id={self.id!r}, verb={self.verb!r}, connection={self.connection.id})"


class FrameSink(Protocol):
    """The binary session side of a `FrameContext`."""

    def send_frame(self, type_: int, stream: int, payload: bytes) -> None: ...

    async def drain(self) -> None: ...


class FrameContext:
    """Given to frame handlers: the ``connection``, the frame's ``stream``, and a way to reply."""

    __slots__ = ("_sink", "connection", "stream")

    def __init__(self, connection: ConnectionInfo, stream: int, sink: FrameSink) -> None:
        self.connection = connection
        self.stream = stream
        self._sink = sink

    def send(self, type_: int, payload: bytes, stream: int | None = None) -> None:
        """Queue a frame on ``stream`` (default: this frame's stream)."""
        self._sink.send_frame(type_, self.stream if stream is None else stream, payload)

    async def drain(self) -> None:
        """Wait until the peer has read enough of the output; fast producers call it often."""
        await self._sink.drain()
