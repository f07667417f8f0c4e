"""The sans-I/O protocol core: bytes in, events out, no sockets and no event loop.

The face for transport authors, in the manner of h11's ``Connection``: the daemon's asyncio
server and both clients are thin transports around these objects, and so is any other
transport (an in-memory pair for tests, a fuzzer, a pipe).

- Server side: one `ServerConnection` per connection. Feed it with ``receive_data(bytes)``
  (``b""`` for end of input), take events with ``next_event()`` (`HelloSettled`,
  `CallStarted`, `CallCancelled`, `FrameReceived`, `ConnectionClosed`, or the sentinels
  `NEED_DATA` and `PAUSED`), answer calls with its ``send_*`` methods and write what
  ``data_to_send()`` returns. It alone decides sniffing, hello, ids, capabilities, bounds and
  closing (RFC-0002 §§3-6); `ServerSettings` holds its limits, and its ``state`` is a
  `ConnectionState`.
- Client side: `ClientCore` numbers requests and sorts replies per id.
- The codecs underneath, for fuzzers and raw peers: NDJSON lines (`LineBuffer`,
  `LineDecoder`), binary frames (`FrameBuffer`, `FrameDecoder`, `encode_frame`), first-byte
  selection (`select_protocol`), message encoders and parsers.

Everything raises `VenomError` or its `ProtocolViolation` subclass.
"""

from __future__ import annotations

from ._client_core import ClientCore, hello_params
from ._core.errors import (
    CORE_VERBS,
    MAX_ID_BYTES,
    MAX_SAFE_INT,
    ProtocolViolation,
    VenomError,
    is_valid_id,
)
from ._core.frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HARD_MAX_FRAME,
    HEADER,
    HELLO,
    HELLO_OK,
    PING,
    PONG,
    PREAMBLE_BINARY_V1,
    PREAMBLE_NDJSON,
    SUPPORTED_PREAMBLES,
    Frame,
    FrameBuffer,
    FrameDecoder,
    encode_frame,
    select_protocol,
)
from ._core.hello import HelloOutcome
from ._core.messages import (
    Reply,
    Request,
    encode_error,
    encode_item,
    encode_ok,
    encode_request,
    parse_reply,
    parse_request,
)
from ._core.ndjson import DEFAULT_MAX_FRAME, LineBuffer, LineDecoder
from ._core.server_connection import ServerConnection
from ._core.server_events import (
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
from ._core.server_settings import CallBudget, Deadline, InlineRunner, ServerSettings, VerbSpec
from ._core.server_states import ConnectionState

__all__ = (
    "CLOSE",
    "CONTROL",
    "CORE_VERBS",
    "DEFAULT_MAX_FRAME",
    "ERROR",
    "HARD_MAX_FRAME",
    "HEADER",
    "HELLO",
    "HELLO_OK",
    "MAX_ID_BYTES",
    "MAX_SAFE_INT",
    "NEED_DATA",
    "PAUSED",
    "PENDING",
    "PING",
    "PONG",
    "PREAMBLE_BINARY_V1",
    "PREAMBLE_NDJSON",
    "SUPPORTED_PREAMBLES",
    "CallBudget",
    "CallCancelled",
    "CallStarted",
    "ClientCore",
    "ConnectionClosed",
    "ConnectionState",
    "Deadline",
    "Event",
    "Frame",
    "FrameBuffer",
    "FrameDecoder",
    "FrameReceived",
    "HelloOutcome",
    "HelloSettled",
    "InlineRunner",
    "LineBuffer",
    "LineDecoder",
    "ProtocolViolation",
    "Reply",
    "Request",
    "Sentinel",
    "ServerConnection",
    "ServerSettings",
    "VenomError",
    "VerbSpec",
    "encode_error",
    "encode_frame",
    "encode_item",
    "encode_ok",
    "encode_request",
    "hello_params",
    "is_valid_id",
    "parse_reply",
    "parse_request",
    "select_protocol",
)
