"""The states of one server connection and the moves between them, as data (RFC-0002 3, 6.4).

`TRANSITIONS` is the whole machine: for each `ConnectionState`, the triggers (`Trigger`) it
accepts and the state each one leads to. `ServerConnection` changes state only through
`advance`, which refuses a trigger the table does not list for the current state, so a path
the protocol does not allow fails loudly instead of leaving a connection in a state nobody
planned for.

What each state answers to each message (``protocol.hello_order``, ``protocol.hello_required``,
the implicit hello...) is `ServerConnection`'s; ``tests/test_core_states.py`` drives a
connection through every row of the table and checks each against the RFC's rules.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ("TRANSITIONS", "ConnectionState", "StateError", "Trigger", "advance")


class ConnectionState(enum.Enum):
    """Where a server connection is; the deadline that runs in it, if any, is noted."""

    #: Accepted, no byte yet (deadline ``idle``).
    AWAIT_FIRST_BYTE = "await_first_byte"
    #: ``{`` came first: NDJSON lines, hello not settled (deadline ``message`` per partial line).
    NDJSON_PRE_HELLO = "ndjson_pre_hello"
    #: ``0xF5`` came first: binary frames, only ``HELLO`` may follow (deadline ``hello``).
    BINARY_AWAIT_HELLO = "binary_await_hello"
    #: Hello settled, explicitly or implicitly: calls flow (deadline ``message`` per partial
    #: message).
    OPEN = "open"
    #: The peer ended its input with calls in flight: they are still answered (no deadline).
    DRAINING = "draining"
    #: Done: write what is left, then close the transport.
    CLOSED = "closed"


class Trigger(enum.Enum):
    """What moves a connection from one state to another."""

    #: The first byte is ``{`` (RFC-0002 3).
    NDJSON_PREAMBLE = "ndjson_preamble"
    #: The first byte is ``0xF5``, envelope v1 (RFC-0002 3).
    BINARY_PREAMBLE = "binary_preamble"
    #: A valid ``hello`` (or ``HELLO`` frame) settled version, caps and max_frame (6.1-6.3).
    HELLO = "hello"
    #: An NDJSON connection's first request is not hello: version 1, no caps (6.4).
    IMPLICIT_HELLO = "implicit_hello"
    #: The peer's input ended, every message in it was taken, and calls are in flight.
    END_OF_INPUT = "end_of_input"
    #: A fatal error, a passed deadline, shutdown, the peer's ``CLOSE``, end of input with
    #: nothing left to answer, or the transport gone.
    CLOSE = "close"


_S, _T = ConnectionState, Trigger

TRANSITIONS: Mapping[ConnectionState, Mapping[Trigger, ConnectionState]] = MappingProxyType(
    {
        _S.AWAIT_FIRST_BYTE: MappingProxyType(
            {
                _T.NDJSON_PREAMBLE: _S.NDJSON_PRE_HELLO,
                _T.BINARY_PREAMBLE: _S.BINARY_AWAIT_HELLO,
                _T.CLOSE: _S.CLOSED,
            }
        ),
        _S.NDJSON_PRE_HELLO: MappingProxyType(
            {
                _T.HELLO: _S.OPEN,
                _T.IMPLICIT_HELLO: _S.OPEN,
                _T.CLOSE: _S.CLOSED,
            }
        ),
        _S.BINARY_AWAIT_HELLO: MappingProxyType({_T.HELLO: _S.OPEN, _T.CLOSE: _S.CLOSED}),
        _S.OPEN: MappingProxyType({_T.END_OF_INPUT: _S.DRAINING, _T.CLOSE: _S.CLOSED}),
        _S.DRAINING: MappingProxyType({_T.CLOSE: _S.CLOSED}),
        _S.CLOSED: MappingProxyType({}),
    }
)
"""From each state, the triggers it accepts and where each leads; nothing leaves CLOSED."""


class StateError(RuntimeError):
    """A trigger the table does not allow in the connection's state: a bug in the core."""


def advance(state: ConnectionState, trigger: Trigger) -> ConnectionState:
    """The state ``trigger`` leads to from ``state``; raises `StateError` if the table has no
    such row."""
    try:
        return TRANSITIONS[state][trigger]
    except KeyError:
        raise StateError(f"{trigger.name} is not allowed in state {state.name}") from None
