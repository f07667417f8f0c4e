"""venom-proto: the Venom wire protocol (RFC-0002): the daemon's server and its clients.

The names below are what a daemon's handlers and a client need. The rest of the public face is
in submodules: `venom_proto.sansio` (the sans-I/O core, for transports), `venom_proto.conventions`
(names, environment variables, the files beside a socket, the cached model),
`venom_proto.stdjson` (strict JSON on the standard library), `venom_proto.client`,
`venom_proto.sync_client` and `venom_proto.typed` (what generated typed clients build on).

Names are loaded lazily (PEP 562), so that the CLI's path through this package
(``venom_proto.sync_client``) pays for neither anyio, orjson nor the server.
"""

from __future__ import annotations

import sys

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow the CLI.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._core.errors import CLASS_EXIT, CORE_VERBS, ProtocolViolation, VenomError, exit_code_for
    from ._core.frames import Frame
    from ._core.messages import encode_item
    from ._server.api import Call, ConnectionInfo, FrameContext, FrameHandler, Handler, VerbHandler
    from ._server.server import Server
    from .client import AsyncClient, AsyncStreamCall
    from .conventions import resolve_socket_path
    from .sync_client import StreamCall, SyncClient

__all__ = (
    "CLASS_EXIT",
    "CORE_VERBS",
    "AsyncClient",
    "AsyncStreamCall",
    "Call",
    "ConnectionInfo",
    "Frame",
    "FrameContext",
    "FrameHandler",
    "Handler",
    "ProtocolViolation",
    "Server",
    "StreamCall",
    "SyncClient",
    "VenomError",
    "VerbHandler",
    "encode_item",
    "exit_code_for",
    "resolve_socket_path",
)

#: Where each public name lives; `__getattr__` imports the module on first use.
_EXPORTS: dict[str, str] = {
    "CLASS_EXIT": "venom_proto._core.errors",
    "ProtocolViolation": "venom_proto._core.errors",
    "VenomError": "venom_proto._core.errors",
    "exit_code_for": "venom_proto._core.errors",
    "Frame": "venom_proto._core.frames",
    "CORE_VERBS": "venom_proto._core.errors",
    "encode_item": "venom_proto._core.messages",
    "Call": "venom_proto._server.api",
    "ConnectionInfo": "venom_proto._server.api",
    "FrameContext": "venom_proto._server.api",
    "FrameHandler": "venom_proto._server.api",
    "Handler": "venom_proto._server.api",
    "VerbHandler": "venom_proto._server.api",
    "Server": "venom_proto._server.server",
    "AsyncClient": "venom_proto.client",
    "AsyncStreamCall": "venom_proto.client",
    "resolve_socket_path": "venom_proto.conventions",
    "StreamCall": "venom_proto.sync_client",
    "SyncClient": "venom_proto.sync_client",
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
