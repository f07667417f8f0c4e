"""NDJSON messages (RFC-0002 4.2, 4.6): request parsing and reply encoding for the server,
request encoding and reply parsing for clients.

Parsing follows the 4.6 table. A verb that is a string but not a valid verb name is accepted
here: no schema can hold it, so dispatch answers ``unsupported.verb`` like any unknown verb.
``params`` may be omitted (meaning ``{}``); present, it must be an object, else
``protocol.invalid_request`` (``null`` included). Unknown members are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._json import dumps_line, loads
from .errors import MAX_ID_BYTES, MAX_SAFE_INT, ProtocolViolation, VenomError
from .replies import Reply, reply_from_object

__all__ = (
    "Reply",
    "Request",
    "encode_error",
    "encode_item",
    "encode_ok",
    "encode_request",
    "parse_reply",
    "parse_request",
    "read_request",
)


@dataclass(frozen=True, slots=True)
class Request:
    """A parsed request: ``id`` (int or str), ``verb`` and ``params`` (always a dict)."""

    id: int | str
    verb: str
    params: dict[str, Any]


# Frozen dataclass __init__ costs a setattr detour per field; the slot descriptors do not.
_new = object.__new__
_set_id = vars(Request)["id"].__set__
_set_verb = vars(Request)["verb"].__set__
_set_params = vars(Request)["params"].__set__


def _make_request(id_: int | str, verb: str, params: dict[str, Any]) -> Request:
    req: Request = _new(Request)
    _set_id(req, id_)
    _set_verb(req, verb)
    _set_params(req, params)
    return req


def _parse_error(message: str) -> ProtocolViolation:
    return ProtocolViolation("protocol.parse", message)


def _invalid(message: str, id_: int | str | None) -> ProtocolViolation:
    return ProtocolViolation("protocol.invalid_request", message, id=id_)


def read_request(line: bytes) -> tuple[int | str, str, dict[str, Any]]:
    """Read one request line (without its ``\\n``) as ``(id, verb, params)``.

    The one reading of a request: the server core admits every NDJSON line and ``CONTROL``
    payload through it, and `parse_request` wraps it. Violations carry ``.id`` when readable.
    """
    try:
        obj = loads(line)
    except ValueError as exc:
        raise _parse_error(f"invalid JSON: {exc}") from None
    if type(obj) is not dict:
        raise _parse_error("message is not a JSON object")
    # Subscripts in a try, not .get: free when the member is there, which is the common case.
    try:
        id_: Any = obj["id"]
    except KeyError:
        id_ = None
    kind = type(id_)
    if kind is int:
        if not -MAX_SAFE_INT <= id_ <= MAX_SAFE_INT:
            raise _invalid("id is an integer outside ±(2^53-1)", None)
    elif kind is str:
        # Cheap first: 16 or fewer code points are at most 64 bytes of UTF-8.
        if len(id_) > 16 and len(id_.encode("utf-8", "surrogatepass")) > MAX_ID_BYTES:
            raise _invalid("id is a string longer than 64 bytes", None)
    else:
        raise _invalid("request without a usable id (an integer or a string)", None)
    try:
        verb: Any = obj["verb"]
    except KeyError:
        verb = None
    if type(verb) is not str:
        raise _invalid("verb missing or not a string", id_)
    try:
        params: Any = obj["params"]
    except KeyError:
        return id_, verb, {}
    if type(params) is not dict:
        raise _invalid("params must be an object", id_)
    return id_, verb, params


def parse_request(line: bytes) -> Request:
    """Parse one request line (without its ``\\n``); violations carry ``.id`` when readable."""
    return _make_request(*read_request(line))


def encode_ok(id: int | str, value: Any) -> bytes:
    """The success response line."""
    return dumps_line({"id": id, "ok": value})


def encode_item(id: int | str, value: Any) -> bytes:
    """One streamed item line."""
    return dumps_line({"id": id, "item": value})


def encode_error(id: int | str | None, err: VenomError) -> bytes:
    """The error response line; ``id`` is ``None`` when the request's id was unreadable."""
    return dumps_line({"id": id, "error": err.to_object()})


def encode_request(id: int | str, verb: str, params: dict[str, Any] | None = None) -> bytes:
    """A request line; ``params`` defaults to ``{}`` and is always sent."""
    return dumps_line({"id": id, "verb": verb, "params": {} if params is None else params})


def parse_reply(line: bytes) -> Reply:
    """Parse one server line; bad JSON or shape raises ``protocol.invalid_reply`` (close)."""
    try:
        obj = loads(line)
    except ValueError as exc:
        raise ProtocolViolation(
            "protocol.invalid_reply", f"invalid JSON from server: {exc}", close=True
        ) from None
    return reply_from_object(obj)
