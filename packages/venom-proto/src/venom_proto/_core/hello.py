"""Version and capability negotiation (RFC-0002 6.1-6.4), pure functions over dicts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import ProtocolViolation, VenomError
from .frames import HARD_MAX_FRAME
from .ndjson import DEFAULT_MAX_FRAME

__all__ = (
    "IMPLICIT_HELLO",
    "MIN_MAX_FRAME",
    "HelloOutcome",
    "implicit_hello",
    "negotiate_hello",
    "version_mismatch",
)

#: RFC-0002 6.1: the smallest max_frame a client may ask for.
MIN_MAX_FRAME = 4096


@dataclass(frozen=True, slots=True)
class HelloOutcome:
    """What hello settled for one connection.

    ``result`` is the hello result object sent back (``None`` for an implicit hello); ``params``
    the client's hello params (``client``, ``auth``, ... for logs and grants).
    """

    proto: int
    caps: frozenset[str]
    max_frame: int
    result: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)


#: RFC-0002 6.4: a connection without hello is version 1, no caps, default max_frame.
IMPLICIT_HELLO = HelloOutcome(1, frozenset(), DEFAULT_MAX_FRAME, None, {"proto": [1]})


def version_mismatch(versions: Iterable[int]) -> ProtocolViolation:
    """``protocol.version_mismatch`` with ``data.supported``; the connection closes after it."""
    return ProtocolViolation(
        "protocol.version_mismatch",
        "no protocol version in common",
        {"supported": sorted(versions)},
        close=True,
    )


def implicit_hello(versions: Iterable[int] = (1,)) -> HelloOutcome:
    """The outcome for an NDJSON connection whose first request is not hello (RFC-0002 6.4)."""
    versions = tuple(versions)
    if 1 not in versions:
        raise version_mismatch(versions)
    return IMPLICIT_HELLO


def _is_int(value: object) -> bool:
    return type(value) is int


def _bad(detail: str, param: str, message: str) -> VenomError:
    return VenomError(f"invalid_params.{detail}", message, {"param": param})


def _check_params(params: dict[str, Any]) -> None:
    if "proto" not in params:
        raise _bad("missing", "proto", "missing required param 'proto'")
    proto = params["proto"]
    if type(proto) is not list or not all(map(_is_int, proto)):
        raise _bad("type", "proto", "proto must be an array of integers")
    if not proto:
        raise _bad("range", "proto", "proto must list at least one version")
    client = params.get("client")
    if client is not None:
        if type(client) is not dict:
            raise _bad("type", "client", "client must be an object")
        for key in ("name", "version"):
            if key in client and type(client[key]) is not str:
                raise _bad("type", f"client.{key}", f"client.{key} must be a string")
    caps = params.get("caps")
    if caps is not None and (type(caps) is not list or not all(type(c) is str for c in caps)):
        raise _bad("type", "caps", "caps must be an array of strings")
    if "max_frame" in params:
        max_frame = params["max_frame"]
        if type(max_frame) is not int:
            raise _bad("type", "max_frame", "max_frame must be an integer")
        if not MIN_MAX_FRAME <= max_frame <= HARD_MAX_FRAME:
            raise _bad(
                "range", "max_frame", f"max_frame must be {MIN_MAX_FRAME} to {HARD_MAX_FRAME}"
            )


def negotiate_hello(
    params: dict[str, Any],
    *,
    server_name: str,
    server_version: str,
    versions: Iterable[int] = (1,),
    caps: frozenset[str],
    max_frame: int = DEFAULT_MAX_FRAME,
    schema: str | None = None,
) -> HelloOutcome:
    """Answer hello ``params`` (6.1) with the result (6.2).

       Picks the highest common version, intersects caps (unknown ones dropped, 6.3; omitted caps
       means the server's core caps, as in the section 1 trace), takes the smaller max_frame.
    Bad params raise ``invalid_params.missing|type|range`` with ``data.param``; no common
    version raises ``protocol.version_mismatch`` (close).
    """
    _check_params(params)
    versions = tuple(versions)
    common = set(params["proto"]).intersection(versions)
    if not common:
        raise version_mismatch(versions)
    proto = max(common)
    wanted = params.get("caps")
    if wanted is None:
        # Reconciles RFC-0002 section 1 (a hello without caps is answered "caps":["cancel"])
        # with 6.2/6.3: a client that names no caps gets the core (bare-name) ones; tool caps
        # (<tool>.<name>) gate frame types and verbs and must be asked for.
        granted = frozenset(cap for cap in caps if "." not in cap)
    else:
        granted = caps.intersection(wanted)
    effective = min(max_frame, params.get("max_frame", max_frame))
    result: dict[str, Any] = {
        "proto": proto,
        "server": {"name": server_name, "version": server_version},
        "caps": sorted(granted),
        "max_frame": effective,
    }
    if schema is not None:
        result["schema"] = schema
    return HelloOutcome(proto, frozenset(granted), effective, result, params)
