"""The one gateway to JSON for the core: strict orjson ``loads``/``dumps`` and stdlib twins.

``loads`` rejects NaN/Infinity, out-of-range floats, invalid UTF-8, a BOM, lone surrogates and
nesting deeper than :data:`MAX_DEPTH` with ``ValueError`` (orjson's ``JSONDecodeError`` is one).
``std_loads``/``std_dumps`` (`venom_proto.stdjson`, re-exported here) give the same results
without importing orjson, for the sync client.
"""

from __future__ import annotations

from typing import Any

import orjson

from venom_proto.stdjson import MAX_DEPTH, std_dumps, std_loads

__all__ = (
    "APPEND_NEWLINE",
    "MAX_DEPTH",
    "dumps",
    "dumps_line",
    "fast_dumps",
    "loads",
    "std_dumps",
    "std_loads",
)

loads = orjson.loads
_dumps = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE
#: orjson's own ``dumps`` and its newline option, for hot paths that cannot afford a wrapper:
#: ``fast_dumps(obj, option=APPEND_NEWLINE)`` is `dumps_line` without the extra call.
fast_dumps = orjson.dumps
APPEND_NEWLINE = orjson.OPT_APPEND_NEWLINE


def dumps(value: Any) -> bytes:
    """Encode compactly as UTF-8 bytes, no trailing newline."""
    return _dumps(value)


def dumps_line(value: Any) -> bytes:
    """Encode as one NDJSON line: compact UTF-8 plus ``\\n``, in a single orjson call."""
    return _dumps(value, option=_NEWLINE)
