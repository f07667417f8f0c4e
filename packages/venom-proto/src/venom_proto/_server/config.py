"""Settings shared by every connection of one server."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from venom_proto._core.connection import ServerConnectionState
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME

from .api import Call, FrameHandler, Verb

__all__ = ("CORE_CAPS", "CORE_VERBS", "OnCall", "ServerConfig")

#: Verbs proto answers itself (RFC-0002 4.5); a tool cannot override them.
CORE_VERBS = frozenset({"hello", "cancel", "ping"})
#: Capabilities proto itself implements (RFC-0002 6.3).
CORE_CAPS = frozenset({"cancel"})

OnCall = Callable[[Call, dict[str, Any]], None]
"""Called before every tool verb's handler; raising `VenomError` fails the call instead."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything a connection needs to know about its server; built once by `Server`."""

    tool: str
    version: str
    verbs: Mapping[str, Verb]
    caps: frozenset[str]
    frame_handlers: Mapping[int, FrameHandler] = field(default_factory=dict)
    schema: str | None = None
    max_frame: int = DEFAULT_MAX_FRAME
    versions: tuple[int, ...] = (1,)
    on_call: OnCall | None = None
    idle_timeout: float = 10.0
    hello_timeout: float = 10.0
    max_write_buffer: int = 8 * 1024 * 1024
    max_inflight: int = 1024

    def new_state(self, *, binary: bool) -> ServerConnectionState:
        """The core's per-connection protocol state for a new connection."""
        return ServerConnectionState(
            server_name=self.tool,
            server_version=self.version,
            caps=self.caps,
            versions=self.versions,
            max_frame=self.max_frame,
            schema=self.schema,
            frame_caps={t: fh.capability for t, fh in self.frame_handlers.items()},
            binary=binary,
        )
