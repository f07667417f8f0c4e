"""A small TOML writer for configuration files: tables, strings, numbers, booleans, arrays.

The standard library reads TOML (tomllib) but cannot write it; configuration values are JSON
data checked against a format-1 descriptor, so this subset is all a config file ever holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ("dumps_toml", "toml_key", "toml_value")

_BARE = re.compile(r"[A-Za-z0-9_-]+\Z")


def toml_key(key: str) -> str:
    """A key, bare when TOML allows it, else quoted."""
    return key if _BARE.match(key) else _string(key)


_ESCAPES = {c: f"\\u{c:04x}" for c in [*range(0x20), 0x7F]}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\t"): "\\t"})


def _string(text: str) -> str:
    # str.translate: one pass in C, so a megabyte value costs milliseconds, not a Python loop.
    return '"' + text.translate(_ESCAPES) + '"'


def toml_value(value: Any) -> str:
    """A value in TOML syntax (inline tables for mappings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("configuration numbers must be finite")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"cannot write {type(value).__name__} to TOML")


def dumps_toml(doc: Mapping[str, Any]) -> str:
    """Render ``doc`` as TOML: scalars first, then one ``[table]`` per nested object."""
    lines: list[str] = []

    def table(prefix: list[str], data: Mapping[str, Any]) -> None:
        subtables = []
        for key, value in data.items():
            if value is None:
                continue  # TOML has no null: an absent key is the only spelling
            if isinstance(value, Mapping):
                subtables.append((key, value))
            else:
                lines.append(f"{toml_key(key)} = {toml_value(value)}")
        for key, value in subtables:
            if lines:
                lines.append("")
            lines.append("[" + ".".join(toml_key(k) for k in [*prefix, key]) + "]")
            table([*prefix, key], value)

    table([], doc)
    return "\n".join(lines) + "\n" if lines else ""
