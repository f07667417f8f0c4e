"""The strict ZON reader (RFC-0004 §2): Zig's ZON grammar, checked against the Zig compiler;
and `dump_zon`, its writer (what `parse_zon` reads back to the same value)."""

from ._errors import ZonError
from ._json import JSON_TAGS, zon_to_json
from ._parser import MAX_DEPTH, parse_zon
from ._values import ZON_EMPTY, ZonChar, ZonEmpty, ZonEnum, ZonValue
from ._writer import dump_zon

__all__ = (
    "JSON_TAGS",
    "MAX_DEPTH",
    "ZON_EMPTY",
    "ZonChar",
    "ZonEmpty",
    "ZonEnum",
    "ZonError",
    "ZonValue",
    "dump_zon",
    "parse_zon",
    "zon_to_json",
)
