"""Option values to JSON values, by the param's type descriptor (RFC-0004 §4).

Spellings, chosen once for every product:

- ``string``: the token verbatim. ``--text null`` sends the *string* ``"null"``: params are
  never nullable in format 1 (RFC-0004 §3), so the one valid reading of ``null`` for a string
  param is the string itself.
- ``integer``: ASCII decimal digits with an optional leading ``-`` (``+5``, ``5.0``, ``1e3``
  and ``0x10`` are refused, like in JSON). Magnitudes beyond 2**53-1 fail with ``.range``,
  the RFC-0002 §4.1 wire limit; declared ``min``/``max`` are left to the validator.
- ``number``: JSON number syntax only (no ``+1``, ``1.``, ``.5``, ``inf``, ``nan``), read as
  the daemon's JSON decoder reads the same literal: without fraction or exponent it is an
  integer, held to ±(2**53-1) with ``.range`` (never rounded to a double); with one it is a
  double, and one that overflows (``1e999``) fails with ``.range``.
- ``boolean``: ``true`` or ``false`` (the parser insists on the ``--x=true`` form).
- ``null`` kind: the literal ``null``.
- ``array`` and ``object``: exactly one strict JSON document (no NaN, no lone surrogates).
- For every non-string kind the literal ``null`` becomes JSON null, which the validator then
  refuses with ``invalid_params.type``, exactly as the daemon would.

Malformed values raise ``invalid_params.type`` (``.range`` for the limits above) with
``data.param`` naming the param, the same shape the validator uses.
"""

from __future__ import annotations

from venom_proto import VenomError
from venom_proto.stdjson import std_dumps, std_loads

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from venom_schema.model import Descriptor

__all__ = ("MAX_SAFE_INTEGER", "convert_value")

#: RFC-0002 §4.1 / RFC-0004 §3: integers must survive every JSON parser exactly.
MAX_SAFE_INTEGER = 2**53 - 1

_SHOWN = 40
_INF = float("inf")

# The integer and number grammars below are checked by hand, not with regexes: importing `re`
# (with enum, functools...) would cost every CLI call a few ms.


def _is_digits(text: str) -> bool:
    """``[0-9]+``: ASCII digits only (``str.isdigit`` alone also accepts ``²`` or ``٣``)."""
    return text.isascii() and text.isdigit()


def _unsigned(text: str, signs: str) -> str:
    return text[1:] if text[:1] and text[0] in signs else text


def _number_shape(text: str) -> bool | None:
    """Whether a JSON number has a fraction or exponent; ``None`` if ``text`` is no JSON number.

    The grammar is ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?`` (RFC 8259 §6).
    """
    mantissa, exp_mark, exponent = _unsigned(text, "-").replace("E", "e").partition("e")
    integer, dot, fraction = mantissa.partition(".")
    if not _is_digits(integer) or (len(integer) > 1 and integer[0] == "0"):
        return None
    if dot and not _is_digits(fraction):
        return None
    if exp_mark and not _is_digits(_unsigned(exponent, "+-")):
        return None
    return bool(dot or exp_mark)


def _show(text: str) -> str:
    shown = text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
    return repr(shown)


def _fail(reason: str, flag: str, param: str, problem: str) -> VenomError:
    return VenomError(f"invalid_params.{reason}", f"{flag}: {problem}", {"param": param})


def _integer(text: str, flag: str, param: str) -> int:
    if not _is_digits(_unsigned(text, "-")):
        raise _fail("type", flag, param, f"expected an integer (decimal digits), got {_show(text)}")
    return _safe_integer(text, flag, param)


def _safe_integer(text: str, flag: str, param: str) -> int:
    digits = text.lstrip("-").lstrip("0")
    # Check the length first: int() refuses very long digit strings with its own ValueError.
    if len(digits) > len(str(MAX_SAFE_INTEGER)) or int(digits or "0") > MAX_SAFE_INTEGER:
        raise _fail("range", flag, param, f"integer {_show(text)} is beyond ±{MAX_SAFE_INTEGER}")
    return int(text)


def _number(text: str, flag: str, param: str) -> int | float:
    shape = _number_shape(text)
    if shape is None:
        raise _fail("type", flag, param, f"expected a JSON number, got {_show(text)}")
    if not shape:
        # An integer literal stays an integer, as in the daemon's JSON decoder, so one beyond
        # the RFC-0002 §4.1 range fails with .range instead of being rounded to a double.
        return _safe_integer(text, flag, param)
    value = float(text)
    if not -_INF < value < _INF:
        raise _fail("range", flag, param, f"number {_show(text)} is not a finite double")
    return value


def _json_document(desc: Descriptor, text: str, flag: str, param: str) -> Any:
    try:
        return std_loads(text.encode("utf-8"))
    except ValueError:
        # The decoder's "Extra data: line 1 column 2" names no fix: say what the flag takes.
        raise _fail("type", flag, param, _json_hint(desc, text, flag)) from None


#: A sample JSON value per item kind, for the example in a JSON flag's error.
_SAMPLES = {"string": '"a"', "integer": "1", "number": "1.5", "boolean": "true", "null": "null"}


def _json_hint(desc: Descriptor, text: str, flag: str) -> str:
    """``takes one JSON value, an array (e.g. --tags '[1,2]'); got '1,2'``."""
    if desc.get("kind") == "array":
        what, example = "an array", "[" + ",".join(text.split()) + "]"
        try:  # '1,2', '1 2' or '"a","b"' are the items of the array the user meant
            std_loads(example.encode("utf-8"))
        except ValueError:
            items = desc.get("items")
            kind = str(items["kind"]) if items is not None else ""
            if kind == "string":  # 'a,b' meant ["a","b"]
                words = (std_dumps(word).decode("utf-8") for word in text.split(","))
                example = "[" + ",".join(words) + "]"
            else:
                sample = _SAMPLES.get(kind, "{}")
                example = f"[{sample},{sample}]"
    else:
        fields = desc.get("fields") or []
        what = "an object"
        example = "{" + ",".join(f'"{f["name"]}":...' for f in fields[:2]) + "}"
    quoted = "'" + example.replace("'", "'\\''") + "'"
    return f"takes one JSON value, {what} (e.g. {flag} {quoted}); got {_show(text)}"


def convert_value(desc: Descriptor, text: str, *, flag: str, param: str) -> Any:
    """Turn one option value into the JSON value sent as ``params[param]``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # argv bytes that are not UTF-8 arrive as surrogate escapes; JSON cannot carry them.
        raise _fail("type", flag, param, "value is not valid UTF-8") from None
    kind = desc.get("kind")
    if kind == "string":
        return text
    if kind in ("array", "object"):
        return _json_document(desc, text, flag, param)
    if text == "null":
        return None
    if kind == "boolean":
        if text in ("true", "false"):
            return text == "true"
        raise _fail("type", flag, param, f"expected true or false, got {_show(text)}")
    if kind == "integer":
        return _integer(text, flag, param)
    if kind == "number":
        return _number(text, flag, param)
    raise _fail("type", flag, param, f"expected null, got {_show(text)}")
