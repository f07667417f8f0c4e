"""The command tree of a product CLI, derived from the normalized model (RFC-0004 §4).

The one tree of commands: the CLI parses argv against it, its help lists it, and the shell
completions (`venom_gen.build.completions`) are generated from it. Each verb on the ``cli``
surface (`venom_schema.surfaces`) splits at dots into command tokens with ``_`` replaced by
``-`` (``pane.set_title`` -> ``pane set-title``); its exact dotted wire name is also accepted
as one token at the root. A node may hold a verb and children at once: a prefix verb such as
``skill`` beside ``skill.install``.
"""

from __future__ import annotations

from venom_schema.names import cli_path
from venom_schema.surfaces import verbs_on

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from venom_schema.model import Model, Verb


__all__ = ("Command", "CommandTree", "build_tree")


class Command:
    """One node of the tree: the canonical tokens leading to it, its verb and its children."""

    __slots__ = ("children", "path", "verb")

    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path
        self.verb: Verb | None = None
        self.children: dict[str, Command] = {}

    def verbs(self) -> Iterator[Verb]:
        """Every verb at or below this node, in wire-name order."""
        found: list[Verb] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.verb is not None:
                found.append(node.verb)
            stack.extend(node.children.values())
        yield from sorted(found, key=_name)


class CommandTree:
    """The root node plus the exact dotted wire names accepted as one token at the root."""

    __slots__ = ("by_wire", "root", "tool")

    def __init__(self, tool: str, root: Command, by_wire: Mapping[str, Command]) -> None:
        self.tool = tool
        self.root = root
        self.by_wire = by_wire


def _name(verb: Verb) -> str:
    return verb["name"]


def build_tree(model: Model) -> CommandTree:
    """Build the tree of the model's ``cli`` verbs; ``ValueError`` when two share a path."""
    root = Command(())
    by_wire: dict[str, Command] = {}
    for verb in verbs_on(model, "cli"):
        node = root
        for token in cli_path(verb["name"]):
            child = node.children.get(token)
            if child is None:
                child = node.children[token] = Command((*node.path, token))
            node = child
        if node.verb is not None:
            raise ValueError(f"verbs {node.verb['name']!r} and {verb['name']!r} share a command")
        node.verb = verb
        by_wire[verb["name"]] = node
    return CommandTree(model["tool"], root, by_wire)
