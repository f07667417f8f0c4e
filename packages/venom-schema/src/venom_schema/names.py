"""Name patterns and the name mappings of RFC-0004 §4-§6 (CLI, MCP, man pages).

Generators use these helpers so that every surface derives names the same way; the manifest
validator uses them to reject collisions before any generator runs.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = (
    "ERROR_CLASSES",
    "GLOBAL_FLAGS",
    "MCP_NAME_MAX_BYTES",
    "RESERVED_PARAMS",
    "RESERVED_VERBS",
    "cli_command",
    "cli_path",
    "flag_name",
    "is_error_component",
    "is_param_name",
    "is_tool_name",
    "is_wire_name",
    "man_name",
    "mcp_decode",
    "mcp_name",
)

TOOL_NAME_PATTERN: Final = r"^[a-z][a-z0-9-]{0,31}$"
WIRE_NAME_PATTERN: Final = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"
PARAM_NAME_PATTERN: Final = r"^[a-z][a-z0-9_]*$"

# `\Z`, not `$`: `$` also matches before a trailing newline.
_TOOL_RE: Final = re.compile(r"[a-z][a-z0-9-]{0,31}\Z")
_WIRE_RE: Final = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\Z")
_COMPONENT_RE: Final = re.compile(r"[a-z][a-z0-9_]*\Z")

#: RFC-0002 §7.2 error classes, in exit-code order (failed = 1 ... internal = 11).
ERROR_CLASSES: Final = (
    "failed",
    "invalid_params",
    "not_found",
    "denied",
    "conflict",
    "unavailable",
    "timeout",
    "cancelled",
    "protocol",
    "unsupported",
    "internal",
)

#: Client options on every command (RFC-0004 §4); no param may be called this.
GLOBAL_FLAGS: Final = ("json", "socket", "help")
#: Param names reserved for a future shared policy (RFC-0004 §4).
RESERVED_PARAMS: Final = ("timeout",)
#: Verb names reserved by RFC-0002 §8.
RESERVED_VERBS: Final = ("bridge",)
#: RFC-0004 §5: encoded MCP tool names longer than this fail generation.
MCP_NAME_MAX_BYTES: Final = 128


def is_tool_name(name: str) -> bool:
    """True for an RFC-0002 §2.1 tool name such as ``venom-echo``."""
    return _TOOL_RE.match(name) is not None


def is_wire_name(name: str) -> bool:
    """True for an RFC-0002 §4.2 verb name such as ``pane.set_title``."""
    return _WIRE_RE.match(name) is not None


def is_param_name(name: str) -> bool:
    """True for an RFC-0004 §4 parameter (field) name."""
    return _COMPONENT_RE.match(name) is not None


def is_error_component(component: str) -> bool:
    """True for one component of an error code (RFC-0004 §3)."""
    return _COMPONENT_RE.match(component) is not None


def cli_path(wire: str) -> list[str]:
    """Canonical CLI tokens: ``pane.set_title`` -> ``["pane", "set-title"]`` (RFC-0004 §4)."""
    return [segment.replace("_", "-") for segment in wire.split(".")]


def cli_command(wire: str) -> str:
    """Canonical CLI spelling joined by spaces: ``pane set-title``."""
    return " ".join(cli_path(wire))


def flag_name(param: str) -> str:
    """The long option of a top-level param: ``dry_run`` -> ``--dry-run`` (RFC-0004 §4)."""
    return "--" + param.replace("_", "-")


def mcp_name(wire: str) -> str:
    """Reversible MCP tool name: each ``_`` -> ``__``, each ``.`` -> ``_d`` (RFC-0004 §5).

    The 128-byte limit is the validator's job (see :data:`MCP_NAME_MAX_BYTES`).
    """
    return wire.replace("_", "__").replace(".", "_d")


def mcp_decode(name: str) -> str:
    """Invert :func:`mcp_name`; raises ``ValueError`` for a name no wire name encodes to."""
    out: list[str] = []
    i = 0
    while i < len(name):
        char = name[i]
        if char != "_":
            out.append(char)
            i += 1
            continue
        escape = name[i + 1 : i + 2]
        if escape == "_":
            out.append("_")
        elif escape == "d":
            out.append(".")
        else:
            raise ValueError(f"not an encoded MCP tool name: {name!r}")
        i += 2
    wire = "".join(out)
    if not is_wire_name(wire):
        raise ValueError(f"not an encoded MCP tool name: {name!r}")
    return wire


def man_name(tool: str, wire: str) -> str:
    """Man page name: ``<tool>-`` + CLI tokens joined by ``-`` (``venomx-pane-split``, §6)."""
    return "-".join([tool, *cli_path(wire)])
