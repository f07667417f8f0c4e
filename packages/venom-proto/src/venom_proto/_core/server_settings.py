"""What every connection of one server shares: identity, verbs, capabilities and limits."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .errors import VenomError
from .ndjson import DEFAULT_MAX_FRAME

__all__ = ("CallBudget", "Deadline", "InlineRunner", "ServerSettings", "VerbSpec")


class VerbSpec(Protocol):
    """What the core needs to know of a tool verb (`venom_proto.VerbHandler` is one)."""

    @property
    def streams(self) -> bool: ...

    @property
    def capability(self) -> str | None: ...


class InlineRunner(Protocol):
    """Runs sync verbs on the spot, so the core can answer pipelined calls to them in a loop.

    Given to `ServerConnection`, it lets the core's fast path skip the `CallStarted` event for
    the verbs in ``verbs``: the core admits the call exactly as for the event, calls ``run``
    and writes the reply itself. ``run`` returns the result (or `PENDING` when the call goes
    on in a task) and raises `VenomError` for an error reply; for any other exception, and
    for a result that cannot be encoded, the core sends what ``failed`` returns.
    """

    @property
    def verbs(self) -> Mapping[str, VerbSpec]: ...

    def run(self, id: int | str, verb: str, params: dict[str, Any], spec: VerbSpec) -> Any: ...

    def failed(self, id: int | str, verb: str, exc: Exception) -> VenomError: ...


@dataclass(frozen=True, slots=True, eq=False)
class Deadline:
    """A deadline the connection is under: ``seconds`` from the moment it was set.

    ``idle``: the first byte must arrive (RFC-0002 3); ``hello``: a binary connection's
    ``HELLO`` must complete; ``message``: a message that has begun must be completed. Each one
    set is a new object, so the transport restarts its timer when ``deadline`` is not the one
    it armed.
    """

    kind: Literal["idle", "hello", "message"]
    seconds: float


class CallBudget:
    """Calls in flight across every connection of a daemon, and how many may be."""

    __slots__ = ("active", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A server's identity and limits; one object shared by all of its connections.

    ``verbs`` maps the tool's wire names to their specs (``hello``, ``cancel`` and ``ping`` are
    the core's own); ``frame_caps`` maps tool frame types to the capability each needs.
    ``max_inflight`` bounds a connection's calls awaiting their final reply; the timeouts are
    the three `Deadline` kinds, in seconds.
    """

    name: str
    version: str
    verbs: Mapping[str, VerbSpec] = field(default_factory=dict)
    caps: frozenset[str] = frozenset()
    frame_caps: Mapping[int, str] = field(default_factory=dict)
    versions: tuple[int, ...] = (1,)
    max_frame: int = DEFAULT_MAX_FRAME
    schema: str | None = None
    max_inflight: int = 1024
    idle_timeout: float = 10.0
    hello_timeout: float = 10.0
    message_timeout: float = 10.0
    #: Where to report a bug: appended to every ``internal`` error's message (RFC-0002 §7.2).
    report: Callable[[], str] | None = None
