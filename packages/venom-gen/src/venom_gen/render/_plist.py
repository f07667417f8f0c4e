"""launchd property lists, written so that launchd's XML reader reads back exactly what was
meant: the one place plist text is made.

`plistlib` escapes ``&``, ``<`` and ``>``, but XML 1.0 cannot carry most control characters
(plistlib refuses them), a carriage return (the reader turns it into a newline), U+FFFE,
U+FFFF or a lone surrogate (the file would not parse). Such a string is refused with
`PlistValueError`, never written.
"""

from __future__ import annotations

import plistlib
import re
from collections.abc import Mapping
from typing import Any

__all__ = ("PlistValueError", "plist_xml")

_NOT_XML = re.compile("[\x00-\x08\x0b-\x1f\ufffe\uffff\ud800-\udfff]")


class PlistValueError(ValueError):
    """A string XML cannot carry unchanged; ``value`` is it, ``reason`` why."""

    def __init__(self, value: str, reason: str) -> None:
        super().__init__(f"{value!r} cannot be written in a property list: {reason}")
        self.value = value
        self.reason = reason


def _check(value: Any) -> None:
    if isinstance(value, str):
        if _NOT_XML.search(value):
            raise PlistValueError(
                value, "it holds a control character, a carriage return or a non-character"
            )
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check(key)
            _check(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check(item)


def plist_xml(document: Mapping[str, Any]) -> str:
    """``document`` as XML plist text (keys sorted), every string checked first."""
    _check(document)
    return plistlib.dumps(dict(document), sort_keys=True).decode("utf-8")
