"""The per-connection protocol state of a server (RFC-0002 4.2, 5.2, 6.4), free of I/O.

The transport feeds parsed requests (NDJSON lines or CONTROL payloads) to
:meth:`ServerConnectionState.receive_request` and binary frames to
:meth:`~ServerConnectionState.receive_frame`; the state answers what to do or raises the error
to send. It tracks whether hello happened, which ids are in flight, and the negotiated caps.

Transitions (NDJSON)::

    state      input                    result
    fresh      hello, valid             -> negotiated (reply outcome.result)
    fresh      hello, invalid params    -> fresh (VenomError invalid_params.*; hello may retry)
    fresh      hello, no common version -> protocol.version_mismatch, close
    fresh      other request            -> negotiated with IMPLICIT_HELLO, dispatch
    negotiated hello                    -> protocol.hello_order
    negotiated request, id in flight    -> protocol.duplicate_id (old request unaffected)
    negotiated request                  -> dispatch; finish(id) after its final response

On a binary connection the first frame must be HELLO (``protocol.hello_required``), and every
hello failure is fatal, since an ERROR frame on stream 0 closes the connection.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._json import loads
from .errors import ProtocolViolation, VenomError
from .frames import CLOSE, CONTROL, ERROR, HELLO, PING, PONG, Frame, bad_frame
from .hello import HelloOutcome, implicit_hello, negotiate_hello
from .messages import Request
from .ndjson import DEFAULT_MAX_FRAME

__all__ = ("MAX_PING_PAYLOAD", "ServerConnectionState")

#: RFC-0002 5.2: a PING payload is opaque and at most 64 bytes.
MAX_PING_PAYLOAD = 64
_CLIENT_CORE_FRAMES = frozenset({ERROR, PING, PONG, CLOSE, CONTROL})


class ServerConnectionState:
    """Hello ordering, in-flight ids and negotiated caps for one server connection."""

    __slots__ = (
        "_caps",
        "_frame_caps",
        "_max_frame",
        "_schema",
        "_server",
        "_versions",
        "binary",
        "hello",
        "in_flight",
    )

    def __init__(
        self,
        *,
        server_name: str,
        server_version: str,
        caps: frozenset[str] = frozenset(),
        versions: Iterable[int] = (1,),
        max_frame: int = DEFAULT_MAX_FRAME,
        schema: str | None = None,
        frame_caps: Mapping[int, str] | None = None,
        binary: bool = False,
    ) -> None:
        self._server = (server_name, server_version)
        self._caps = caps
        self._versions = tuple(versions)
        self._max_frame = max_frame
        self._schema = schema
        self._frame_caps = dict(frame_caps or {})
        self.binary = binary
        #: The settled hello, or ``None`` before hello (or before the first request).
        self.hello: HelloOutcome | None = None
        #: Ids of dispatched requests whose final response is not yet sent.
        self.in_flight: set[int | str] = set()

    @property
    def caps(self) -> frozenset[str]:
        """The negotiated capabilities (empty before hello)."""
        return self.hello.caps if self.hello is not None else frozenset()

    @property
    def max_frame(self) -> int:
        """The connection's effective max_frame."""
        return self.hello.max_frame if self.hello is not None else self._max_frame

    def _negotiate(self, params: dict[str, Any]) -> HelloOutcome:
        name, version = self._server
        outcome = negotiate_hello(
            params,
            server_name=name,
            server_version=version,
            versions=self._versions,
            caps=self._caps,
            max_frame=self._max_frame,
            schema=self._schema,
        )
        self.hello = outcome
        return outcome

    def receive_request(self, request: Request) -> HelloOutcome | None:
        """Admit one request.

        Returns the :class:`HelloOutcome` when it was hello (reply ``outcome.result`` to
        ``request.id``), else ``None``: dispatch it, then call :meth:`finish`. Raises
        ``ProtocolViolation`` (``.id`` set, ``.close`` honoured) or ``VenomError`` for bad hello
        params; either way reply to ``request.id``.
        """
        id_ = request.id
        if request.verb == "hello":
            if self.hello is not None:
                raise ProtocolViolation(
                    "protocol.hello_order",
                    "hello must be the first request and is allowed once",
                    id=id_,
                )
            try:
                return self._negotiate(request.params)
            except ProtocolViolation as exc:
                exc.id = id_
                raise
        if self.hello is None:
            if self.binary:
                raise ProtocolViolation(
                    "protocol.hello_required", "HELLO must be the first frame", close=True
                )
            try:
                self.hello = implicit_hello(self._versions)
            except ProtocolViolation as exc:
                exc.id = id_
                raise
        if id_ in self.in_flight:
            raise ProtocolViolation(
                "protocol.duplicate_id", f"id {id_!r} is already in flight", id=id_
            )
        self.in_flight.add(id_)
        return None

    def finish(self, id: int | str) -> None:
        """Forget ``id`` once its final response is sent (or it was cancelled)."""
        self.in_flight.discard(id)

    def receive_frame(self, frame: Frame) -> HelloOutcome | Frame:
        """Admit one binary frame.

        Returns the :class:`HelloOutcome` for the HELLO frame (send HELLO_OK with
        ``outcome.result``), else the frame itself for the transport to act on by type: CONTROL
        (parse its payload as a request), PING (answer PONG), PONG, ERROR and CLOSE, or a tool
        frame whose capability was negotiated. Everything else raises a closing violation.
        """
        type_ = frame.type
        if self.hello is None:
            if type_ != HELLO:
                raise ProtocolViolation(
                    "protocol.hello_required", "HELLO must be the first frame", close=True
                )
            return self._binary_hello(frame)
        if type_ == HELLO:
            raise ProtocolViolation("protocol.hello_order", "a second HELLO frame", close=True)
        if type_ in _CLIENT_CORE_FRAMES:
            if type_ != ERROR and type_ != CLOSE and frame.stream != 0:
                raise bad_frame(f"frame type {type_} belongs on stream 0", type=type_)
            if type_ == PING and len(frame.payload) > MAX_PING_PAYLOAD:
                raise bad_frame("PING payload longer than 64 bytes", type=type_)
            return frame
        cap = self._frame_caps.get(type_)
        if cap is None or cap not in self.hello.caps:
            raise bad_frame(f"frame type {type_:#06x} is not allowed here", type=type_)
        return frame

    def _binary_hello(self, frame: Frame) -> HelloOutcome:
        if frame.stream != 0:
            raise bad_frame("HELLO belongs on stream 0", type=HELLO)
        try:
            params = loads(frame.payload)
        except ValueError as exc:
            raise ProtocolViolation("protocol.parse", f"HELLO: {exc}", close=True) from None
        if type(params) is not dict:
            raise ProtocolViolation("protocol.parse", "HELLO payload is not an object", close=True)
        try:
            return self._negotiate(params)
        except ProtocolViolation:
            raise
        except VenomError as exc:
            raise ProtocolViolation(exc.code, exc.message, exc.data, close=True) from None
