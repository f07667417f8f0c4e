"""Name checks (venom_proto.conventions) and CLI, MCP and man page mappings (RFC-0004 §4-§6)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from venom_proto import conventions
from venom_schema import names


@pytest.mark.parametrize(
    ("wire", "path"),
    [
        ("echo", ["echo"]),
        ("pane.split", ["pane", "split"]),
        ("pane.set_title", ["pane", "set-title"]),
        ("skill.install", ["skill", "install"]),
        ("a_b.c_d_e", ["a-b", "c-d-e"]),
    ],
)
def test_cli_path(wire: str, path: list[str]) -> None:
    """RFC-0004 §4: dots split into subcommands, underscores become hyphens."""
    assert names.cli_path(wire) == path
    assert names.cli_command(wire) == " ".join(path)


def test_flag_name() -> None:
    """RFC-0004 §4: --name with underscores replaced by hyphens."""
    assert names.flag_name("dry_run") == "--dry-run"
    assert names.flag_name("text") == "--text"


@pytest.mark.parametrize(
    ("wire", "mcp"),
    [
        ("pane.split", "pane_dsplit"),
        ("pane_split", "pane__split"),
        ("config.get", "config_dget"),
        ("a_d", "a__d"),
        ("a.d", "a_dd"),
        ("echo", "echo"),
    ],
)
def test_mcp_name_round_trip(wire: str, mcp: str) -> None:
    """RFC-0004 §5: _ -> __ and . -> _d, reversibly."""
    assert conventions.mcp_name(wire) == mcp
    assert conventions.mcp_decode(mcp) == wire


@pytest.mark.parametrize("bad", ["a_x", "a_", "_d", "a_dB", "A"])
def test_mcp_decode_rejects_non_encodings(bad: str) -> None:
    with pytest.raises(ValueError, match="not an encoded MCP tool name"):
        conventions.mcp_decode(bad)


_wire = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6}){0,3}", fullmatch=True)


@given(_wire, _wire)
def test_mcp_mapping_is_injective(a: str, b: str) -> None:
    """RFC-0004 §5: the reversible mapping avoids collisions."""
    assert conventions.mcp_decode(conventions.mcp_name(a)) == a
    assert (conventions.mcp_name(a) == conventions.mcp_name(b)) == (a == b)


def test_man_name() -> None:
    """RFC-0004 §6: <tool>- + hyphenated command path; a.b_c and a_b.c collide."""
    assert names.man_name("venomx", "pane.split") == "venomx-pane-split"
    assert names.man_name("venom-echo", "echo") == "venom-echo-echo"
    assert names.man_name("t", "a.b_c") == names.man_name("t", "a_b.c") == "t-a-b-c"


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("venomx", True),
        ("venom-echo", True),
        ("a" * 32, True),
        ("a" * 33, False),
        ("Venom", False),
        ("9x", False),
        ("-x", False),
        ("x\n", False),
        ("", False),
    ],
)
def test_tool_name(name: str, ok: bool) -> None:
    """RFC-0002 §2.1: ^[a-z][a-z0-9-]{0,31}$."""
    assert conventions.is_tool_name(name) is ok


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("echo", True),
        ("pane.set_title", True),
        ("a.b.c", True),
        ("a1_", True),
        ("a.", False),
        (".a", False),
        ("a..b", False),
        ("a.1b", False),
        ("a-b", False),
        ("echo\n", False),
        ("", False),
    ],
)
def test_wire_name(name: str, ok: bool) -> None:
    """RFC-0002 §4.2 verb name pattern."""
    assert conventions.is_wire_name(name) is ok


def test_param_and_error_component() -> None:
    """RFC-0004 §3, §4: [a-z][a-z0-9_]*."""
    assert conventions.is_name_component("interval_ms")
    assert not conventions.is_name_component("a.b")
    assert not conventions.is_name_component("_a")
    assert conventions.is_name_component("echo_busy")
    assert not conventions.is_name_component("Busy")


def test_reserved_names() -> None:
    """RFC-0004 §4 and RFC-0002 §7.2, §8."""
    assert names.GLOBAL_FLAGS == ("json", "socket", "help")
    assert names.RESERVED_PARAMS == ("timeout",)
    assert names.RESERVED_VERBS == ("bridge",)
    assert conventions.MCP_NAME_MAX_BYTES == 128
    assert names.ERROR_CLASSES[0] == "failed"
    assert names.ERROR_CLASSES[-1] == "internal"
    assert len(names.ERROR_CLASSES) == 11
