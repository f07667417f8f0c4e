"""RFC-0004 §5 stream buffering: MCP has no item channel, so streams are buffered with hard caps."""

from __future__ import annotations

import json
from typing import Any

from venom_mcp._deps import VenomError

__all__ = ("MAX_ITEMS", "MAX_ITEM_BYTES", "StreamBuffer", "compact_json")

#: Most items one streaming tool call may buffer (RFC-0004 §5).
MAX_ITEMS = 1024
#: Most compact-JSON item bytes one streaming tool call may buffer (RFC-0004 §5: 1 MiB).
MAX_ITEM_BYTES = 1048576


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text: no whitespace, UTF-8 characters kept unescaped."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class StreamBuffer:
    """Collects a stream's items until either cap is crossed.

    ``add`` raises ``unsupported.stream_limit`` on the item that crosses a cap; the caller then
    cancels upstream and drops the buffer, so a truncated success can never be returned.
    """

    __slots__ = ("_bytes", "_items", "max_bytes", "max_items")

    def __init__(self, max_items: int = MAX_ITEMS, max_bytes: int = MAX_ITEM_BYTES) -> None:
        self.max_items = max_items
        self.max_bytes = max_bytes
        self._items: list[Any] = []
        self._bytes = 0

    @property
    def items(self) -> list[Any]:
        """The items buffered so far, in stream order."""
        return self._items

    def add(self, item: Any) -> None:
        """Buffer one item or raise ``unsupported.stream_limit`` (the buffer is then cleared)."""
        size = len(compact_json(item).encode("utf-8"))
        if len(self._items) + 1 > self.max_items:
            self._overflow("items", self.max_items)
        if self._bytes + size > self.max_bytes:
            self._overflow("bytes", self.max_bytes)
        self._items.append(item)
        self._bytes += size

    def _overflow(self, limit: str, value: int) -> None:
        self._items = []
        self._bytes = 0
        raise VenomError(
            "unsupported.stream_limit",
            f"stream exceeded the MCP buffering limit of {value} {limit}; use the CLI with --json",
            {"limit": limit, "max": value},
        )
