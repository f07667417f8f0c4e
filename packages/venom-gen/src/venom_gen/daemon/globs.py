"""Event type globs (rfcs/0003 §1): ``*`` matches any run of characters, matched in linear time.

A glob is split at its stars into literal segments once, when the subscription starts. A type
matches when it starts with the first segment, ends with the last, and holds the others in
order between them; finding each middle segment at its leftmost place is enough (a later place
never leaves more room for the rest), so one left-to-right pass decides, with no backtracking.
A regex built from the glob (``.*`` per star) backtracks instead: ``"*" * 20 + "q"`` held the
event loop for seconds.

How many globs a call may pass and how long each may be are bounded too (`MAX_GLOBS`,
`MAX_GLOB_LENGTH`), so the work per event is bounded whatever a caller sends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from venom_proto import VenomError

__all__ = (
    "MAX_GLOBS",
    "MAX_GLOB_LENGTH",
    "Matcher",
    "compile_globs",
    "glob_matches",
)

#: At most this many globs in one ``events`` call (``invalid_params.range``, ``param`` = types).
MAX_GLOBS = 64
#: At most this many characters in one glob (``invalid_params.range``, ``param`` = types.N).
MAX_GLOB_LENGTH = 128
#: Distinct event types whose answer one subscription remembers; products publish few types.
_MEMO = 256

_CHARS = re.compile(r"[a-z0-9_.*]+\Z")

Matcher = Callable[[str], bool]


def glob_matches(segments: Sequence[str], text: str) -> bool:
    """Whether ``text`` matches the glob that ``str.split("*")`` turned into ``segments``."""
    if len(segments) == 1:
        return text == segments[0]
    first, last = segments[0], segments[-1]
    end = len(text) - len(last)
    if end < len(first) or not text.startswith(first) or not text.endswith(last):
        return False
    pos = len(first)
    for middle in segments[1:-1]:
        if middle:
            found = text.find(middle, pos, end)
            if found < 0:
                return False
            pos = found + len(middle)
    return True


def _always(type_: str) -> bool:
    return True


def _never(type_: str) -> bool:
    return False


class _AnyGlob:
    """Matches a type against any of several globs, remembering the answer per type."""

    __slots__ = ("_globs", "_memo")

    def __init__(self, globs: list[list[str]]) -> None:
        self._globs = globs
        self._memo: dict[str, bool] = {}

    def __call__(self, type_: str) -> bool:
        hit = self._memo.get(type_)
        if hit is None:
            hit = any(glob_matches(segments, type_) for segments in self._globs)
            if len(self._memo) < _MEMO:
                self._memo[type_] = hit
        return hit


def compile_globs(types: Sequence[str]) -> Matcher:
    """The matcher for an ``events`` call's ``types``, or the ``invalid_params`` error."""
    if len(types) > MAX_GLOBS:
        raise VenomError(
            "invalid_params.range",
            f"at most {MAX_GLOBS} type globs are allowed, got {len(types)}",
            {"param": "types"},
        )
    globs: dict[str, None] = {}
    for i, glob in enumerate(types):
        if len(glob) > MAX_GLOB_LENGTH:
            raise VenomError(
                "invalid_params.range",
                f"type glob {i} is {len(glob)} characters long; the limit is {MAX_GLOB_LENGTH}",
                {"param": f"types.{i}"},
            )
        if not _CHARS.match(glob):
            raise VenomError(
                "invalid_params.pattern",
                f"type glob {glob!r} uses characters outside [a-z0-9_.*]",
                {"param": f"types.{i}"},
            )
        globs[glob] = None
    if not globs:
        return _never
    if any(not glob.strip("*") for glob in globs):
        return _always
    return _AnyGlob([glob.split("*") for glob in globs])
