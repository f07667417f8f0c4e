"""Request ids and verb names (RFC-0002 4.1, 4.2, 4.5)."""

from __future__ import annotations

__all__ = ("CORE_VERBS", "MAX_ID_BYTES", "MAX_SAFE_INT", "is_valid_id", "is_verb_name")

#: RFC-0002 4.1: integers on the wire lie within ±(2**53-1).
MAX_SAFE_INT = 2**53 - 1
#: RFC-0002 4.2: a string id is at most 64 bytes of UTF-8.
MAX_ID_BYTES = 64
#: RFC-0002 4.5: the verbs proto answers itself, in every daemon; a tool cannot override them.
CORE_VERBS = frozenset({"hello", "cancel", "ping"})

# Verb names (and error codes, which share their grammar) are checked by hand, not with a regex:
# `re` (with enum, functools...) would cost every CLI call a few ms, and every client imports
# this module.
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = _NAME_START | frozenset("0123456789_")


def is_valid_id(value: object) -> bool:
    """True for an int within ±(2**53-1) (``bool`` is not an int here) or a str of <= 64 bytes."""
    if type(value) is int:
        return -MAX_SAFE_INT <= value <= MAX_SAFE_INT
    if type(value) is str:
        # Cheap first: 16 or fewer code points are at most 64 bytes of UTF-8.
        return len(value) <= 16 or len(value.encode("utf-8", "surrogatepass")) <= MAX_ID_BYTES
    return False


def is_verb_name(name: str) -> bool:
    """True when ``name`` matches ``^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$``."""
    return all(part[:1] in _NAME_START and _NAME_CHARS.issuperset(part) for part in name.split("."))
