"""Shared text views of the normalized model for every renderer (docs, man pages, SKILL.md,
the MCP catalog, CLI help): the name mappings (from ``venom_schema.names``), MCP tool names,
exit codes and example command lines. Which verbs a surface shows is `venom_schema.surfaces`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from venom_gen.render._escape import json_compact, sh_quote
from venom_proto import CLASS_EXIT, conventions, exit_code_for
from venom_schema import names
from venom_schema.names import cli_path, flag_name, man_name

if TYPE_CHECKING:  # --help imports this module: keep its start-up small
    from venom_schema.model import Verb

__all__ = (
    "GLOBAL_FLAGS",
    "GenerationError",
    "cli_path",
    "cli_spelling",
    "error_exit",
    "example_argv",
    "example_command",
    "exit_table",
    "flag_name",
    "man_name",
    "mcp_name",
)

#: Client options present on every command (RFC-0004 §4); never params.
GLOBAL_FLAGS: tuple[str, ...] = tuple(flag_name(flag) for flag in names.GLOBAL_FLAGS)


class GenerationError(ValueError):
    """Raised by a generator when the model cannot be rendered (name too long, collision)."""


def cli_spelling(tool: str, wire: str) -> str:
    """The canonical command line prefix, e.g. ``venom-echo config get``."""
    return " ".join([tool, *cli_path(wire)])


def mcp_name(wire: str) -> str:
    """The MCP tool name (`venom_proto.conventions.mcp_name`), refused past 128 bytes (§5)."""
    name = conventions.mcp_name(wire)
    limit = conventions.MCP_NAME_MAX_BYTES
    if len(name.encode("utf-8")) > limit:
        raise GenerationError(f"MCP tool name for verb {wire!r} exceeds {limit} bytes")
    return name


_CLASS_MEANING: dict[str, str] = {
    "failed": "The verb ran and the operation failed; also unknown classes",
    "invalid_params": "Bad params or a CLI usage error",
    "not_found": "The thing named in params does not exist",
    "denied": "The caller lacks the grant, or a path failed the permission checks",
    "conflict": "The current state forbids the operation",
    "unavailable": "The daemon cannot be reached or is shutting down",
    "timeout": "A deadline passed",
    "cancelled": "The call was cancelled",
    "protocol": "Malformed message, bad frame or version mismatch",
    "unsupported": "Unknown verb, or a capability not negotiated",
    "internal": "A bug in the daemon",
}


def exit_table() -> list[tuple[int, str, str]]:
    """RFC-0002 §7.2 as ``(exit, class, meaning)`` rows, success first."""
    rows = [(0, "(success)", "The ok response")]
    rows.extend((code, cls, _CLASS_MEANING[cls]) for cls, code in CLASS_EXIT.items())
    return rows


def error_exit(code: str) -> int:
    """The class-derived exit status of an error code (RFC-0002 §7.2, RFC-0004 §3)."""
    return exit_code_for(code)


def example_argv(verb: Verb, params: Mapping[str, Any]) -> list[str]:
    """CLI tokens after the command path for an example's params (RFC-0004 §4 spelling).

    Params follow declaration order. Values starting with ``-`` use the ``--flag=value`` form,
    booleans always do; arrays and objects are one compact JSON token.
    """
    order = [f["name"] for f in verb["params"]]
    names = [n for n in order if n in params] + [n for n in params if n not in order]
    argv: list[str] = []
    for name in names:
        value = params[name]
        flag = flag_name(name)
        if isinstance(value, bool):
            argv.append(f"{flag}={'true' if value else 'false'}")
            continue
        token = value if isinstance(value, str) else json_compact(value)
        if token.startswith("-"):
            argv.append(f"{flag}={token}")
        else:
            argv.extend((flag, token))
    return argv


def example_command(tool: str, verb: Verb, params: Mapping[str, Any], *, json: bool) -> str:
    """A POSIX-quoted example command line, e.g. ``venom-echo echo --text hi --json``."""
    words = [tool, *cli_path(verb["name"]), *example_argv(verb, params)]
    if json:
        words.append("--json")
    return " ".join(sh_quote(w) for w in words)
