"""venom-proto: the Venom wire protocol (RFC-0002).

Public names are loaded lazily (PEP 562) so that ``import venom_proto.sync_client`` stays light:
it must not pull in anyio, orjson or the server.
"""

from __future__ import annotations

import sys

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow the CLI.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._core.errors import CLASS_EXIT, ProtocolViolation, VenomError, exit_code_for
    from ._core.fitting import TRUNCATED
    from ._core.frames import Frame, FrameDecoder, encode_frame, select_protocol
    from ._core.hello import IMPLICIT_HELLO, HelloOutcome, negotiate_hello
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
    from ._core.ndjson import LineDecoder
    from ._core.server_connection import ServerConnection
    from ._core.server_events import (
        NEED_DATA,
        PAUSED,
        CallCancelled,
        CallStarted,
        ConnectionClosed,
        FrameReceived,
        HelloSettled,
    )
    from ._core.server_settings import CallBudget, Deadline, ServerSettings

    # --- BEGIN server re-exports (owned by the server engineer) ---------------------------
    from ._server.api import Call, ConnectionInfo, FrameContext, FrameHandler, Handler, Verb
    from ._server.server import Server
    from .client import AsyncClient, AsyncStreamCall
    from .sync_client import StreamCall, SyncClient
    # --- END server re-exports ------------------------------------------------------------

__all__ = (
    "CLASS_EXIT",
    "IMPLICIT_HELLO",
    "NEED_DATA",
    "PAUSED",
    "TRUNCATED",
    "AsyncClient",
    "AsyncStreamCall",
    "Call",
    "CallBudget",
    "CallCancelled",
    "CallStarted",
    "ConnectionClosed",
    "ConnectionInfo",
    "Deadline",
    "Frame",
    "FrameContext",
    "FrameDecoder",
    "FrameHandler",
    "FrameReceived",
    "Handler",
    "HelloOutcome",
    "HelloSettled",
    "LineDecoder",
    "ProtocolViolation",
    "Reply",
    "Request",
    "Server",
    "ServerConnection",
    "ServerSettings",
    "StreamCall",
    "SyncClient",
    "VenomError",
    "Verb",
    "encode_error",
    "encode_frame",
    "encode_item",
    "encode_ok",
    "encode_request",
    "exit_code_for",
    "negotiate_hello",
    "parse_reply",
    "parse_request",
    "select_protocol",
)

_CORE = "venom_proto._core"
#: Where each public name lives; `__getattr__` imports the module on first use.
_EXPORTS: dict[str, str] = {
    "CLASS_EXIT": f"{_CORE}.errors",
    "ProtocolViolation": f"{_CORE}.errors",
    "VenomError": f"{_CORE}.errors",
    "exit_code_for": f"{_CORE}.errors",
    "Frame": f"{_CORE}.frames",
    "FrameDecoder": f"{_CORE}.frames",
    "encode_frame": f"{_CORE}.frames",
    "select_protocol": f"{_CORE}.frames",
    "IMPLICIT_HELLO": f"{_CORE}.hello",
    "HelloOutcome": f"{_CORE}.hello",
    "negotiate_hello": f"{_CORE}.hello",
    "Reply": f"{_CORE}.messages",
    "Request": f"{_CORE}.messages",
    "encode_error": f"{_CORE}.messages",
    "encode_item": f"{_CORE}.messages",
    "encode_ok": f"{_CORE}.messages",
    "encode_request": f"{_CORE}.messages",
    "parse_reply": f"{_CORE}.messages",
    "parse_request": f"{_CORE}.messages",
    "LineDecoder": f"{_CORE}.ndjson",
    "TRUNCATED": f"{_CORE}.fitting",
    "ServerConnection": f"{_CORE}.server_connection",
    "NEED_DATA": f"{_CORE}.server_events",
    "PAUSED": f"{_CORE}.server_events",
    "CallCancelled": f"{_CORE}.server_events",
    "CallStarted": f"{_CORE}.server_events",
    "ConnectionClosed": f"{_CORE}.server_events",
    "FrameReceived": f"{_CORE}.server_events",
    "HelloSettled": f"{_CORE}.server_events",
    "CallBudget": f"{_CORE}.server_settings",
    "Deadline": f"{_CORE}.server_settings",
    "ServerSettings": f"{_CORE}.server_settings",
    "AsyncClient": "venom_proto.client",
    "AsyncStreamCall": "venom_proto.client",
    "StreamCall": "venom_proto.sync_client",
    "SyncClient": "venom_proto.sync_client",
    # --- BEGIN server re-exports (owned by the server engineer) -------------------------------
    "Call": "venom_proto._server.api",
    "ConnectionInfo": "venom_proto._server.api",
    "FrameContext": "venom_proto._server.api",
    "FrameHandler": "venom_proto._server.api",
    "Handler": "venom_proto._server.api",
    "Server": "venom_proto._server.server",
    "Verb": "venom_proto._server.api",
    # --- END server re-exports ----------------------------------------------------------------
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'venom_proto' has no attribute {name!r}")
    # __import__ rather than importlib.import_module: importlib (and warnings) would cost every
    # CLI call, which passes through this package on its way to the sync client.
    __import__(module)
    value = getattr(sys.modules[module], name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
