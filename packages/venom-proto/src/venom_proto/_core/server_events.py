"""What `ServerConnection.next_event` tells the transport, and its two sentinels.

The core answers ``hello``, ``ping``, ``cancel``, malformed input and every refusal itself; an
event is only raised for what the application has to act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .errors import VenomError
from .frames import Frame
from .hello import HelloOutcome
from .server_settings import VerbSpec

__all__ = (
    "NEED_DATA",
    "PAUSED",
    "PENDING",
    "CallCancelled",
    "CallStarted",
    "ConnectionClosed",
    "Event",
    "FrameReceived",
    "HelloSettled",
    "Sentinel",
)


class Sentinel:
    """A named marker returned by `ServerConnection.next_event` instead of an event."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: No complete message is waiting: feed more bytes with ``receive_data``.
NEED_DATA = Sentinel("NEED_DATA")
#: Replies are waiting to be written: send ``data_to_send()``, then ask again (input is kept).
PAUSED = Sentinel("PAUSED")
#: Returned by an `InlineRunner` whose call goes on (in a task): it stays in flight.
PENDING = Sentinel("PENDING")


@dataclass(frozen=True, slots=True)
class HelloSettled:
    """Hello settled the connection (explicitly, or implicitly by its first request)."""

    outcome: HelloOutcome


@dataclass(frozen=True, slots=True)
class CallStarted:
    """A tool verb call was admitted: it is in flight until its final reply is sent.

    ``spec`` is the object the verb was registered with in `ServerSettings.verbs`.
    """

    id: int | str
    verb: str
    params: dict[str, Any]
    spec: VerbSpec


@dataclass(frozen=True, slots=True)
class CallCancelled:
    """A call in flight was ended by the core (its ``cancelled`` error is already written).

    ``reason`` is ``"client"``: a ``cancel`` request. Stop its work; any reply sent for it
    afterwards is dropped.
    """

    id: int | str
    reason: Literal["client"]


@dataclass(frozen=True, slots=True)
class FrameReceived:
    """A tool frame whose type's capability was negotiated (binary connections)."""

    frame: Frame


@dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The core is done with the connection: write ``data_to_send()``, then close it.

    ``error`` is what ended it when it was an error the core sent (a fatal violation, a
    deadline); ``None`` when the peer closed, or when the last reply after its end of input
    went out. Every later ``next_event`` returns this same event.
    """

    error: VenomError | None = None


Event = HelloSettled | CallStarted | CallCancelled | FrameReceived | ConnectionClosed
