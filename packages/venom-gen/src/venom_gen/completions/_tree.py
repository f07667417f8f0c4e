"""The command tree every shell completion is generated from (RFC-0004 §4, §6).

Node 0 is the root. Canonical paths (``config`` -> ``get``) and dotted aliases (``config.get``,
a separate leaf under the root carrying the same flags) both lead to a verb's flags, so the
three shells offer exactly the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from venom_gen._model import GenerationError, cli_path, flag_name, surface_verbs

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


def _verb_flags(verb: Mapping[str, Any]) -> tuple[Flag, ...]:
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


def build_tree(model: Mapping[str, Any]) -> CommandTree:
    """Derive the command tree: canonical paths, dotted aliases, per-command flags."""
    nodes = [Node(0, None)]

    def child(parent: Node, token: str) -> Node:
        if token not in parent.children:
            nodes.append(Node(len(nodes), None))
            parent.children[token] = len(nodes) - 1
        return nodes[parent.children[token]]

    for verb in surface_verbs(model, "cli"):
        node = nodes[0]
        for token in cli_path(verb["name"]):
            node = child(node, token)
        if node.verb is not None:
            raise GenerationError(f"verbs {node.verb!r} and {verb['name']!r} share a command path")
        node.verb = verb["name"]
        node.flags = _verb_flags(verb)
        if "." in verb["name"]:
            alias = child(nodes[0], verb["name"])
            alias.verb, alias.flags = verb["name"], node.flags
    for node in nodes:
        node.children = dict(sorted(node.children.items()))
    return CommandTree(model["tool"], tuple(nodes))


def shell_function_name(tool: str) -> str:
    """``venom-echo`` -> ``_venom_echo`` (tool names match ``[a-z][a-z0-9-]*``)."""
    return "_" + tool.replace("-", "_")
