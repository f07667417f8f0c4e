"""Error objects cut down to fit the connection's ``max_frame`` (RFC-0002 4.1, 5.1).

Errors often repeat what the caller sent (an unknown verb or param name, a config key), so an
error can be longer than the message that caused it. Every error the server writes goes
through `fit_error`: when the encoded message would be longer than the limit, every string in
``message`` and ``data`` (object keys included) longer than a bound is cut to that bound and
ends with :data:`TRUNCATED`; arrays and objects keep that many members, a last
:data:`TRUNCATED` element or key marking the cut. The bound halves until the message fits; if
even the smallest does not, ``data`` is dropped, and as a last resort the error becomes
``internal.too_large``. ``code`` is never changed while anything else can give way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import VenomError

__all__ = ("TRUNCATED", "fit_error")

#: Ends every string, and marks every array or object, that the server cut to fit max_frame.
TRUNCATED = "…[truncated]"
#: Longest strings kept, tried in order, before ``data`` is given up.
_BOUNDS = (1024, 256, 64, 16)

Encode = Callable[[dict[str, Any]], bytes]
"""Encodes an error object as the whole message it travels in (NDJSON line or frame)."""


def _cut(value: Any, bound: int) -> Any:
    kind = type(value)
    if kind is str:
        return value if len(value) <= bound else value[:bound] + TRUNCATED
    if kind is list:
        items = [_cut(item, bound) for item in value[:bound]]
        if len(value) > bound:
            items.append(TRUNCATED)
        return items
    if kind is dict:
        out: dict[Any, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if index == bound:
                out[TRUNCATED] = len(value) - bound
                break
            # Two keys cut to the same text: the first one stays.
            out.setdefault(_cut(key, bound), _cut(item, bound))
        return out
    return value


def _encoded(encode: Encode, obj: dict[str, Any]) -> bytes:
    try:
        return encode(obj)
    except TypeError:  # data a handler made unserialisable: drop it, keep code and message
        if "data" not in obj:
            raise
        return encode({"code": obj["code"], "message": obj["message"]})


def fit_error(err: VenomError, limit: int, encode: Encode) -> bytes:
    """``encode(err.to_object())``, cut down until it is at most ``limit`` bytes long."""
    obj = err.to_object()
    message = _encoded(encode, obj)
    if len(message) <= limit:
        return message
    for bound in _BOUNDS:
        cut = {"code": obj["code"], "message": _cut(obj["message"], bound)}
        if err.data is not None:
            cut["data"] = _cut(err.data, bound)
        message = _encoded(encode, cut)
        if len(message) <= limit:
            return message
    message = encode({"code": obj["code"], "message": _cut(obj["message"], _BOUNDS[-1])})
    if len(message) <= limit:
        return message
    return encode({"code": "internal.too_large", "message": "error larger than max_frame"})
