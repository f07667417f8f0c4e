"""Settings shared by every connection of one server, and the daemon-wide limits."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from venom_proto._core.errors import CORE_VERBS
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME
from venom_proto._core.server_settings import ServerSettings

from .api import FrameHandler, VerbHandler

__all__ = ("CORE_CAPS", "CORE_VERBS", "ServerConfig", "default_max_connections")

#: Capabilities proto itself implements (RFC-0002 6.3).
CORE_CAPS = frozenset({"cancel"})

#: Descriptors kept back from connections for the daemon's own files, pipes and children.
RESERVED_FDS = 64
#: The default connection cap never goes above this, however many descriptors there are.
MAX_DEFAULT_CONNECTIONS = 4096


def default_max_connections() -> int:
    """The process's descriptor limit less `RESERVED_FDS`, between 16 and 4096."""
    import resource  # only when a server is built: not on any client's path

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_DEFAULT_CONNECTIONS
    return max(16, min(MAX_DEFAULT_CONNECTIONS, soft - RESERVED_FDS))


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything a connection needs to know about its server; built once by `Server`.

    Per connection: ``max_frame``, the three timeouts, ``max_write_buffer`` (unsent output
    before a slow reader is dropped) and ``max_inflight``. Per daemon: ``max_connections``,
    ``max_calls`` (in flight across all connections), ``max_input`` (received bytes held) and
    ``max_output`` (unsent bytes). rfcs/0002-wire-decisions.md D-W15..D-W17, D-W24..D-W28.
    """

    tool: str
    version: str
    verbs: Mapping[str, VerbHandler]
    caps: frozenset[str]
    frame_handlers: Mapping[int, FrameHandler] = field(default_factory=dict)
    schema: str | None = None
    max_frame: int = DEFAULT_MAX_FRAME
    versions: tuple[int, ...] = (1,)
    idle_timeout: float = 10.0
    hello_timeout: float = 10.0
    message_timeout: float = 10.0
    max_write_buffer: int = 8 * 1024 * 1024
    max_inflight: int = 1024
    max_connections: int = 512
    max_calls: int = 16384
    max_input: int = 64 * 1024 * 1024
    max_output: int = 128 * 1024 * 1024
    report: Callable[[], str] | None = None
    settings: ServerSettings = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        settings = ServerSettings(
            name=self.tool,
            version=self.version,
            verbs=self.verbs,
            caps=self.caps,
            frame_caps={t: fh.capability for t, fh in self.frame_handlers.items()},
            versions=self.versions,
            max_frame=self.max_frame,
            schema=self.schema,
            max_inflight=self.max_inflight,
            idle_timeout=self.idle_timeout,
            hello_timeout=self.hello_timeout,
            message_timeout=self.message_timeout,
            report=self.report,
        )
        object.__setattr__(self, "settings", settings)
