"""Strict JSON on the standard library, for the light sync-client path (no orjson import).

The codec of every short-lived process (the sync client, the generated CLI): the same contract
as the daemon's orjson codec: NaN/Infinity, out-of-range floats, invalid UTF-8,
a BOM, lone surrogates (raw or escaped) and nesting deeper than :data:`MAX_DEPTH` all raise
``ValueError``. Integers outside orjson's exact range (-2**63 .. 2**64-1) decode as floats, as
orjson does, so both twins return equal values for equal input.

The codec runs directly on CPython's C accelerator ``_json``, the engine under ``json``'s own
decoder and one-shot encoder: ``import json`` pulls in ``re`` (and with it ``enum``,
``functools``, ``collections``), about 5 ms of every CLI call. Where ``_json`` is missing or
its interface differs, the ``json`` module is used instead, with identical results.
"""

from __future__ import annotations

import sys

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ("MAX_DEPTH", "std_dumps", "std_loads")

#: Deepest array/object nesting accepted; orjson's own parser limit.
MAX_DEPTH = 1024
# Below this many brackets the input cannot nest deeper than the stdlib's recursion budget.
_CHEAP_BRACKETS = 512
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_INF = float("inf")
#: JSON's insignificant whitespace (RFC 8259 §2), exactly what ``json.JSONDecoder`` skips.
_WHITESPACE = " \t\n\r"
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKET_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if value == _INF or value == -_INF:
        raise ValueError("number is infinity when parsed as double")
    return value


def _parse_int(text: str) -> int | float:
    value = int(text)
    if _INT_MIN <= value <= _INT_MAX:
        return value
    return _parse_float(text)


def _not_serializable(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


class _ScannerContext:
    """The settings ``_json.make_scanner`` reads, as ``json.JSONDecoder`` would hold them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None  # read by Python 3.15+ scanners
    parse_float = staticmethod(_parse_float)
    parse_int = staticmethod(_parse_int)
    parse_constant = staticmethod(_reject_constant)


def _decode_error(message: str, text: str, pos: int) -> ValueError:
    # Error path only: json's own exception type and "line/column" message, imported lazily.
    from json import JSONDecodeError

    return JSONDecodeError(message, text, pos)


def _c_codec() -> tuple[Callable[[str], Any], Callable[[Any], str]]:
    """Decode and encode on ``_json``; raises if it is missing or its interface differs."""
    import _json

    scan = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
    make_encoder, quote = _json.make_encoder, _json.encode_basestring

    def decode(text: str) -> Any:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except StopIteration as exc:
            raise _decode_error("Expecting value", text, exc.value) from None
        except SystemError:
            # CPython 3.11's scanner takes its error type from json.decoder only if that module
            # is already loaded, and raises SystemError otherwise: load it and scan again.
            if "json.decoder" in sys.modules:
                raise
            import json.decoder  # noqa: F401

            value, end = scan(text, start)
        if end != len(text):
            rest = text[end:]
            if rest.strip(_WHITESPACE):
                pos = end + len(rest) - len(rest.lstrip(_WHITESPACE))
                raise _decode_error("Extra data", text, pos)
        return value

    def encode(value: Any) -> str:
        # A fresh markers dict per call, as json.dumps does: a failed encode leaves ids behind.
        encoder = make_encoder({}, _not_serializable, quote, None, ":", ",", False, False, False)
        return "".join(encoder(value, 0))

    # Catch an interface change here, at import, rather than on the first message.
    if decode(encode(["\u00e9", {"a": 1.5}])) != ["\u00e9", {"a": 1.5}]:
        raise RuntimeError("_json does not round-trip")
    return decode, encode


def _json_codec() -> tuple[Callable[[str], Any], Callable[[Any], str]]:
    """The same codec on the public ``json`` module (slower to import)."""
    import json

    decoder = json.JSONDecoder(
        parse_float=_parse_float, parse_int=_parse_int, parse_constant=_reject_constant
    )
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return decoder.decode, encoder.encode


def _codec() -> tuple[Callable[[str], Any], Callable[[Any], str]]:
    try:
        return _c_codec()
    except Exception:  # any mismatch of a private module means: use json
        return _json_codec()


_decode, _encode = _codec()


def _depth(data: bytes) -> int:
    """The deepest array/object nesting of ``data``, exact for valid JSON.

    No ``re``: escaped backslashes, then escaped quotes, are dropped, so every quote left
    delimits a string, and the text between strings holds the structural brackets.
    """
    from itertools import accumulate  # built in, and only the rare large input needs it

    unescaped = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(unescaped.split(b'"')[::2])
    brackets = outside.translate(None, _NOT_BRACKET)
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def _decode_bytes(data: bytes, *, scan: bool) -> Any:
    text = bytes(data).decode("utf-8")  # strict: invalid UTF-8 and encoded surrogates fail
    brackets = data.count(b"[") + data.count(b"{")
    # Nesting can only pass MAX_DEPTH with more opening brackets than that, so most inputs
    # need no scan.
    if scan and brackets > MAX_DEPTH and _depth(data) > MAX_DEPTH:
        raise ValueError(f"JSON nesting deeper than {MAX_DEPTH}")
    try:
        if brackets > _CHEAP_BRACKETS:
            # The C scanner recurses once per level; give it room for MAX_DEPTH levels.
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(limit + MAX_DEPTH + 64)
            try:
                value = _decode(text)
            finally:
                sys.setrecursionlimit(limit)
        else:
            value = _decode(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if "\\u" in text:
        # An escaped lone surrogate decodes fine but cannot be encoded back to UTF-8.
        try:
            _encode(value).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("lone surrogate in JSON string") from None
    return value


def std_loads(data: bytes) -> Any:
    """Decode one JSON document strictly; any defect raises ``ValueError``."""
    return _decode_bytes(data, scan=True)


def _load_own(data: bytes) -> Any:
    """`std_loads` for JSON this toolkit wrote itself (the model cache), minus the nesting scan.

    Its writer bounds the nesting (the manifest parser stops at 256 levels), so there is
    nothing to scan for; a file nested past the interpreter's budget anyway (damaged or
    forged) still fails cleanly, with ``ValueError``, never a crash.
    """
    return _decode_bytes(data, scan=False)


def std_dumps(value: Any) -> bytes:
    """Encode compactly as UTF-8 bytes; NaN/Infinity and lone surrogates raise ``ValueError``."""
    return _encode(value).encode("utf-8")
