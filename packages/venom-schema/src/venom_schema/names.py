"""The name mappings of RFC-0004 §4-§6: CLI tokens and flags, man pages, and the reserved names.

Every surface derives names through these helpers, and the manifest validator uses them to
reject collisions before any generator runs. The name *checks* (tool, wire, param names) and
the MCP tool-name encoding are local conventions of venom-proto (`venom_proto.conventions`),
which the generated typed client and the CLI share. Light: the CLI's command tree uses it on
every call, so it imports nothing.
"""

from __future__ import annotations

from venom_proto import CLASS_EXIT

__all__ = (
    "ERROR_CLASSES",
    "GLOBAL_FLAGS",
    "RESERVED_PARAMS",
    "RESERVED_VERBS",
    "cli_command",
    "cli_path",
    "cli_token",
    "flag_name",
    "man_name",
)

#: RFC-0002 §7.2 error classes, in exit-code order (failed = 1 ... internal = 11).
ERROR_CLASSES = tuple(CLASS_EXIT)

#: Client options on every command (RFC-0004 §4); no param may be called this.
GLOBAL_FLAGS = ("json", "socket", "help")
#: Param names reserved for a future shared policy (RFC-0004 §4).
RESERVED_PARAMS = ("timeout",)
#: Verb names reserved by RFC-0002 §8.
RESERVED_VERBS = ("bridge",)


def cli_token(segment: str) -> str:
    """One wire-name segment as a command token: underscores become hyphens."""
    return segment.replace("_", "-")


def cli_path(wire: str) -> list[str]:
    """Canonical CLI tokens: ``pane.set_title`` -> ``["pane", "set-title"]`` (RFC-0004 §4)."""
    return [cli_token(segment) for segment in wire.split(".")]


def cli_command(wire: str) -> str:
    """Canonical CLI spelling joined by spaces: ``pane set-title``."""
    return " ".join(cli_path(wire))


def flag_name(param: str) -> str:
    """The long option of a top-level param: ``dry_run`` -> ``--dry-run`` (RFC-0004 §4)."""
    return "--" + param.replace("_", "-")


def man_name(tool: str, wire: str) -> str:
    """Man page name: ``<tool>-`` + CLI tokens joined by ``-`` (``venomx-pane-split``, §6)."""
    return "-".join([tool, *cli_path(wire)])
