"""The standard verb bundles merged into every manifest (RFC-0004 §7).

* ``core``: RFC-0002 §4.5 ``hello``, ``cancel`` (transport operations) and ``ping``.
* ``agent``: RFC-0001 as designed in ``rfcs/0001-shared-verbs.md``: ``serve`` and ``mcp``
  (local bootstrap), ``skill``, ``skill.install``, ``doctor`` and ``config.*``.
* ``events``: ``events`` as designed in ``rfcs/0003-events.md``.

They are declared with the Python declaration API and pass the same validator as product verbs.
"""

from __future__ import annotations

from typing import Final

from venom_schema.manifest._builder import (
    Array,
    Boolean,
    Error,
    Field,
    Integer,
    Null,
    Object,
    String,
    Verb,
)
from venom_schema.manifest._bundle_agent import AGENT
from venom_schema.zon._values import ZonValue

__all__ = ("BUNDLES", "DEFAULT_BUNDLES", "SHARED_NAMES", "bundle_verbs")

_NAME_VERSION = Object(
    [
        Field("name", "Program name", String(), required=True),
        Field("version", "Program version", String(), required=True),
    ]
)

_CORE = (
    Verb(
        name="hello",
        summary="Negotiate the protocol version, capabilities and frame size (RFC-0002 §6)",
        params=[
            Field(
                "proto", "Protocol versions the client speaks", Array(Integer(min=1)), required=True
            ),
            Field("client", "Client name and version, for logs and doctor", _NAME_VERSION),
            Field("caps", "Capabilities the client wants to use", Array(String())),
            Field(
                "max_frame",
                "Largest message the client accepts, in bytes",
                Integer(min=4096, max=16777216),
            ),
            Field(
                "auth",
                "Caller credentials (rfcs/0005-local-grants.md)",
                Object([Field("token", "The owner token from the token file", String())]),
            ),
        ],
        result=Object(
            [
                Field("proto", "The chosen protocol version", Integer(min=1), required=True),
                Field("server", "Tool name and daemon version", _NAME_VERSION, required=True),
                Field("caps", "The negotiated capability set", Array(String()), required=True),
                Field(
                    "max_frame",
                    "Effective frame limit for this connection, in bytes",
                    Integer(min=4096, max=16777216),
                    required=True,
                ),
                Field("schema", "Digest of the daemon's verb schema", String()),
            ]
        ),
        errors=[
            Error(
                "protocol.version_mismatch",
                "No protocol version in common",
                Object(
                    [
                        Field(
                            "supported",
                            "Versions the server speaks",
                            Array(Integer(min=1)),
                            required=True,
                        )
                    ]
                ),
            ),
            Error("protocol.hello_order", "hello sent twice or after another request"),
        ],
        grant="none",
        shared="core",
        dispatch="transport",
    ),
    Verb(
        name="cancel",
        summary="End an in-flight request of this connection with error cancelled",
        params=[
            Field(
                "id",
                "Id of the request to cancel (the wire also accepts a string id)",
                Integer(),
                required=True,
            ),
        ],
        result=Null(),
        errors=[Error("not_found.request", "No request with that id is in flight")],
        grant="none",
        shared="core",
        dispatch="transport",
    ),
    Verb(
        name="ping",
        summary="Check that the daemon is alive",
        result=Object(),
        grant="none",
        shared="core",
    ),
)

_EVENTS = (
    Verb(
        name="events",
        summary="Stream events, optionally replaying from a cursor",
        params=[
            Field(
                "types",
                "Event type globs (at most 64, of at most 128 characters each);"
                " * matches any run of characters",
                Array(String()),
                default=["*"],
            ),
            Field("cursor", "Replay retained events with seq greater than this", Integer(min=0)),
            Field(
                "follow",
                "After the replay, keep streaming live events until cancelled",
                Boolean(),
                default=False,
            ),
        ],
        result=Object(
            [
                Field(
                    "last",
                    "Seq of the last item sent, or the cursor, or 0",
                    Integer(min=0),
                    required=True,
                )
            ]
        ),
        errors=[
            Error(
                "invalid_params.pattern",
                "A type glob uses characters outside [a-z0-9_.*]",
                Object(
                    [Field("param", "Path of the pattern, e.g. types.0", String(), required=True)]
                ),
            )
        ],
        grant="read",
        streams=True,
        item=Object(
            [
                Field(
                    "seq",
                    "Position in this daemon run, strictly increasing from 1",
                    Integer(min=0),
                    required=True,
                ),
                Field(
                    "type",
                    "Dotted event type; events.gap marks lost events",
                    String(),
                    required=True,
                ),
                Field("time", "RFC 3339 UTC time with milliseconds", String(), required=True),
                Field("data", "Event payload object as compact JSON text", String(), required=True),
            ]
        ),
        shared="events",
    ),
)

#: Bundle name -> its verbs, in declaration order.
BUNDLES: Final[dict[str, tuple[Verb, ...]]] = {"core": _CORE, "agent": AGENT, "events": _EVENTS}
#: The bundles merged when the caller names none.
DEFAULT_BUNDLES: Final = ("core", "agent", "events")
#: Shared wire name -> bundle name.
SHARED_NAMES: Final = {verb.name: name for name, verbs in BUNDLES.items() for verb in verbs}


def bundle_verbs(names: tuple[str, ...] | list[str]) -> list[dict[str, ZonValue]]:
    """The raw records of the named bundles (``core`` is always included)."""
    wanted = {"core", *names}
    unknown = wanted - BUNDLES.keys()
    if unknown:
        raise ValueError(f"unknown bundle(s): {', '.join(sorted(unknown))}")
    return [verb.to_raw() for name, verbs in BUNDLES.items() if name in wanted for verb in verbs]
