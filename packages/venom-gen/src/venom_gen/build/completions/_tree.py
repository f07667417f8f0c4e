"""The CLI's command tree as the table every shell completion is generated from (RFC-0004 §6).

The tree is the CLI's own (`venom_gen.cli.build_tree`), numbered: node 0 is the root.
Canonical paths (``config`` -> ``get``) and dotted aliases (``config.get``, a separate leaf
under the root carrying the same flags) both lead to a verb's flags, so the three shells offer
exactly the words the CLI accepts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from venom_gen.cli import build_tree as build_command_tree
from venom_gen.render._views import GenerationError
from venom_schema.model import Model, Verb
from venom_schema.names import flag_name

__all__ = ("CommandTree", "Flag", "FlagKind", "Node", "build_tree", "shell_function_name")

#: ``switch`` takes no value; ``bool`` needs ``=true|false``; ``value`` takes the next token or
#: ``=value`` (``choices`` when an enum); ``path`` is ``--socket``, the only file completion.
FlagKind = Literal["switch", "bool", "value", "path"]


@dataclass(frozen=True, slots=True)
class Flag:
    """One option of a command."""

    name: str
    kind: FlagKind
    choices: tuple[str, ...] = ()


_GLOBALS = (Flag("--json", "switch"), Flag("--socket", "path"), Flag("--help", "switch"))


@dataclass(slots=True)
class Node:
    """A command position: its sub-command tokens (sorted) and the options valid there."""

    id: int
    verb: str | None
    children: dict[str, int] = field(default_factory=dict)
    flags: tuple[Flag, ...] = _GLOBALS


@dataclass(frozen=True, slots=True)
class CommandTree:
    """The whole tree for one tool; ``nodes[0]`` is the root."""

    tool: str
    nodes: tuple[Node, ...]


def _verb_flags(verb: Verb) -> tuple[Flag, ...]:
    flags: list[Flag] = []
    for param in verb["params"]:
        desc = param["type"]
        if desc["kind"] == "boolean":
            flags.append(Flag(flag_name(param["name"]), "bool"))
        else:
            flags.append(Flag(flag_name(param["name"]), "value", tuple(desc.get("choices", ()))))
    for flag in flags:
        if any(flag.name == g.name for g in _GLOBALS):
            raise GenerationError(f"verb {verb['name']!r}: option {flag.name} is a global option")
    return (*flags, *_GLOBALS)


def build_tree(model: Model) -> CommandTree:
    """Number the CLI's tree: canonical paths, dotted aliases, per-command flags."""
    try:
        tree = build_command_tree(model)
    except ValueError as exc:  # two verbs would share one command
        raise GenerationError(f"{exc} path") from None
    nodes = [Node(0, None)]

    def child(parent: Node, token: str) -> Node:
        if token not in parent.children:
            nodes.append(Node(len(nodes), None))
            parent.children[token] = len(nodes) - 1
        return nodes[parent.children[token]]

    for verb in tree.root.verbs():
        node = nodes[0]
        for token in tree.by_wire[verb["name"]].path:
            node = child(node, token)
        node.verb = verb["name"]
        node.flags = _verb_flags(verb)
        if "." in verb["name"]:
            alias = child(nodes[0], verb["name"])
            alias.verb, alias.flags = verb["name"], node.flags
    for node in nodes:
        node.children = dict(sorted(node.children.items()))
    return CommandTree(tree.tool, tuple(nodes))


def shell_function_name(tool: str) -> str:
    """``venom-echo`` -> ``_venom_echo`` (tool names match ``[a-z][a-z0-9-]*``)."""
    return "_" + tool.replace("-", "_")
