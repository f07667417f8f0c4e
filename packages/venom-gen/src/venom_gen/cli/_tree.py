"""The command tree of a product CLI, derived from the normalized model (RFC-0004 §4).

Each wire name splits at dots into command tokens with ``_`` replaced by ``-``
(``pane.set_title`` -> ``pane set-title``). A node may hold a verb and children at once: a
prefix verb such as ``skill`` beside ``skill.install``. Transport verbs (``hello``, ``cancel``)
are the client's own business and never become commands.
"""

from __future__ import annotations

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any


__all__ = ("Command", "CommandTree", "build_tree", "cli_token", "flag_for")


def cli_token(segment: str) -> str:
    """One wire-name segment as a command token: underscores become hyphens."""
    return segment.replace("_", "-")


def flag_for(param: str) -> str:
    """The option spelling of a top-level param: ``max_count`` -> ``--max-count``."""
    return "--" + param.replace("_", "-")


class Command:
    """One node of the tree: the canonical tokens leading to it, its verb and its children."""

    __slots__ = ("children", "path", "verb")

    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path
        self.verb: Mapping[str, Any] | None = None
        self.children: dict[str, Command] = {}

    def verbs(self) -> Iterator[Mapping[str, Any]]:
        """Every verb at or below this node, in wire-name order."""
        found: list[Mapping[str, Any]] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.verb is not None:
                found.append(node.verb)
            stack.extend(node.children.values())
        yield from sorted(found, key=lambda v: str(v["name"]))


class CommandTree:
    """The root node plus the exact dotted wire names accepted as one token at the root."""

    __slots__ = ("by_wire", "root", "tool")

    def __init__(self, tool: str, root: Command, by_wire: Mapping[str, Command]) -> None:
        self.tool = tool
        self.root = root
        self.by_wire = by_wire


def build_tree(model: Mapping[str, Any]) -> CommandTree:
    """Build the tree for every verb that is not a transport operation."""
    root = Command(())
    by_wire: dict[str, Command] = {}
    for verb in model["verbs"]:
        if verb.get("dispatch") == "transport":
            continue
        node = root
        for segment in str(verb["name"]).split("."):
            token = cli_token(segment)
            child = node.children.get(token)
            if child is None:
                child = node.children[token] = Command((*node.path, token))
            node = child
        node.verb = verb
        by_wire[str(verb["name"])] = node
    return CommandTree(str(model["tool"]), root, by_wire)
