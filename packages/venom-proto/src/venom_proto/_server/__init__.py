"""The daemon side of RFC-0002: socket paths, start-up, and the asyncio server.

Names are loaded lazily (PEP 562): clients import ``venom_proto._server.paths`` and must not pay
for asyncio, anyio or orjson.
"""

from __future__ import annotations

import sys

# Named so mypy treats it as typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .api import Call, ConnectionInfo, FrameContext, FrameHandler, Handler, Verb
    from .server import Server

__all__ = ("Call", "ConnectionInfo", "FrameContext", "FrameHandler", "Handler", "Server", "Verb")

_EXPORTS = {
    "Call": ".api",
    "ConnectionInfo": ".api",
    "FrameContext": ".api",
    "FrameHandler": ".api",
    "Handler": ".api",
    "Verb": ".api",
    "Server": ".server",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # __import__ rather than importlib: importlib (and warnings) would cost every CLI call,
    # which passes through this package on its way to venom_proto._server.paths.
    full = __name__ + module
    __import__(full)
    value = getattr(sys.modules[full], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
