"""Stream buffering limits, grant sets and the command line, as units."""

from __future__ import annotations

import pytest

from venom_mcp._cli import UsageError, parse_args
from venom_mcp._grants import GRANTS, allowed_grants, parse_grant
from venom_mcp._limits import MAX_ITEM_BYTES, MAX_ITEMS, StreamBuffer, compact_json
from venom_proto import VenomError


def test_limits_are_the_rfc_values() -> None:
    """RFC-0004 §5: 1024 items and 1 MiB of compact JSON item bytes."""
    assert (MAX_ITEMS, MAX_ITEM_BYTES) == (1024, 1048576)


def test_item_count_limit() -> None:
    """RFC-0004 §5: item 1024 fits, item 1025 fails with unsupported.stream_limit."""
    buffer = StreamBuffer()
    for n in range(MAX_ITEMS):
        buffer.add(n)
    assert len(buffer.items) == MAX_ITEMS
    with pytest.raises(VenomError) as info:
        buffer.add(0)
    assert info.value.code == "unsupported.stream_limit"
    assert info.value.data == {"limit": "items", "max": 1024}
    assert buffer.items == []  # discarded, never a truncated success


def test_item_bytes_limit_counts_compact_utf8() -> None:
    """RFC-0004 §5: bytes are compact JSON, UTF-8; exactly 1 MiB fits, one more byte fails."""
    assert compact_json({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    buffer = StreamBuffer()
    buffer.add("x" * (MAX_ITEM_BYTES - 2 - 2))  # 2 quotes; leaves room for exactly '""'
    buffer.add("")
    with pytest.raises(VenomError) as info:
        buffer.add(0)
    assert info.value.data == {"limit": "bytes", "max": 1048576}
    assert buffer.items == []


def test_grant_sets() -> None:
    """rfcs/0005-local-grants.md §5: the down-set of --max-grant; no flag allows all seven."""
    assert allowed_grants(None) == frozenset(GRANTS)
    assert allowed_grants("admin") == frozenset(GRANTS)
    assert allowed_grants("none") == {"none"}
    assert allowed_grants("read") == {"none", "read"}
    assert allowed_grants("write") == {"none", "read", "write"}
    assert allowed_grants("spawn") == {"none", "read", "spawn"}
    with pytest.raises(ValueError, match="unknown grant"):
        parse_grant("root")


def test_parse_args() -> None:
    """--socket PATH and --max-grant GRANT, as two tokens or with '='."""
    assert parse_args(["--socket", "/s", "--max-grant=write"]) == {
        "socket": "/s",
        "max_grant": "write",
        "help": None,
    }
    for bad in (["--socket"], ["x"], ["--max-grant", "god"], ["--socket=a", "--socket=b"]):
        with pytest.raises(UsageError):
            parse_args(bad)
