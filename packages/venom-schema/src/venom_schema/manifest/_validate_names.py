"""Name rules across the merged verb list (RFC-0004 §4-§6, RFC-0002 §8).

Per verb: reserved verb names, reserved and global-flag param names, the MCP name length.
Across verbs: CLI command paths and man page file names must be unique.
"""

from __future__ import annotations

from venom_proto.conventions import MCP_NAME_MAX_BYTES, mcp_name
from venom_schema.manifest._errors import Problems
from venom_schema.model import Verb
from venom_schema.names import (
    GLOBAL_FLAGS,
    RESERVED_PARAMS,
    RESERVED_VERBS,
    cli_path,
    flag_name,
    man_name,
)

__all__ = ("check_names", "check_verb_names")


def check_verb_names(
    name: str | None, params: list[str], path: str, problems: Problems, *, bundle: bool = False
) -> None:
    """Rules on one verb's own names: ``name`` (None if invalid) and its declared params.

    A standard bundle (``bundle``) may declare a reserved name: that is what reserving it for
    the toolkit means (``bridge``, rfcs/0006).
    """
    if name in RESERVED_VERBS and not bundle:
        problems.add(f"{path}.name", f'verb name "{name}" is reserved (RFC-0002 §8)')
    size = 0 if name is None else len(mcp_name(name).encode("utf-8"))
    if size > MCP_NAME_MAX_BYTES:
        problems.add(
            f"{path}.name",
            f"MCP tool name is {size} bytes after encoding; the limit is {MCP_NAME_MAX_BYTES}",
        )
    for param in params:
        if param in GLOBAL_FLAGS:
            problems.add(
                f"{path}.params[{param}]",
                f'param name "{param}" collides with the global flag {flag_name(param)}',
            )
        elif param in RESERVED_PARAMS:
            problems.add(
                f"{path}.params[{param}]",
                f'param name "{param}" is reserved for a future shared deadline policy',
            )


def check_names(tool: str | None, verbs: list[Verb], problems: Problems) -> None:
    """Collisions between verbs, in wire-name order so the later verb is reported."""
    cli_paths: dict[tuple[str, ...], str] = {}
    man_pages: dict[str, str] = {}
    for verb in sorted(verbs, key=lambda v: str(v["name"])):
        name = verb["name"]
        path = f"verbs[{name}]"
        command = tuple(cli_path(name))
        # Unreachable with valid wire names (they contain no "-"); kept as a guard.
        if command in cli_paths:
            problems.add(
                path,
                f'CLI command "{" ".join(command)}" collides with verb "{cli_paths[command]}"',
            )
        cli_paths.setdefault(command, name)
        if tool is None:
            continue
        page = man_name(tool, name)
        if page in man_pages:
            problems.add(path, f'man page name "{page}" collides with verb "{man_pages[page]}"')
        man_pages.setdefault(page, name)
