"""Python values for the ZON literals that have no JSON counterpart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

__all__ = ("ZON_EMPTY", "ZonChar", "ZonEmpty", "ZonEnum", "ZonValue")


@dataclass(frozen=True, slots=True)
class ZonEnum:
    """An enum literal: ``.read`` or ``.@"with spaces"``. Never equal to a string."""

    name: str


@dataclass(frozen=True, slots=True)
class ZonChar:
    """A character literal such as ``'a'`` or ``'\\u{1F600}'``: its Unicode code point."""

    codepoint: int


class ZonEmpty:
    """The type of ``.{}``, which is both an empty struct and an empty tuple."""

    __slots__ = ()
    _instance: ZonEmpty | None = None

    def __new__(cls) -> ZonEmpty:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ZON_EMPTY"


#: The one ``.{}`` value.
ZON_EMPTY: Final = ZonEmpty()

ZonValue: TypeAlias = (
    bool
    | int
    | float
    | str
    | ZonChar
    | ZonEnum
    | ZonEmpty
    | dict[str, "ZonValue"]
    | list["ZonValue"]
    | None
)
