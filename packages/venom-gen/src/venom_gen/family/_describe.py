"""``venom describe TARGET [VERB]``: a daemon's model, shown as its own CLI's help.

The model comes from the daemon (`._models`: its ``manifest``, digest checked against hello).
Without ``--json`` the text is exactly what ``<tool> [VERB...] --help`` prints on a machine
where the product is installed: the same command tree and help renderer. With ``--json`` it
is one object: the server, the digest, the model (or the verb's record) and that help text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from venom_gen.cli._help import render_help
from venom_gen.cli._output import Output
from venom_gen.cli._tree import Command, CommandTree, build_tree
from venom_proto import VenomError
from venom_schema.model import Model
from venom_schema.names import cli_path

from ._models import daemon_model
from ._target import Session, resolve_target

__all__ = ("run_describe",)

#: What interpreting a malformed model raises (a descriptor nested past the stack included).
_MALFORMED = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)


def _tree(model: Model) -> CommandTree:
    """The command tree of a model whose every verb compiles, as a call would need it to."""
    from venom_schema.runtime import compile_verb

    try:
        for verb in model["verbs"]:
            compile_verb(verb)
        return build_tree(model)
    except _MALFORMED as exc:
        raise VenomError(
            "internal.model", f"malformed verb in the daemon's model: {exc!r}"
        ) from None


def _command(tree: CommandTree, name: str) -> Command:
    """The node of ``name``: a verb's wire name (``config.get``) or a group (``config``)."""
    node = tree.by_wire.get(name)
    if node is not None:
        return node
    node = tree.root
    for token in cli_path(name) if name else ():
        child = node.children.get(token)
        if child is None:
            raise VenomError(
                "unsupported.verb", f"the daemon has no verb or group {name!r}", {"verb": name}
            )
        node = child
    return node


def run_describe(
    target_text: str,
    verb_name: str | None,
    *,
    tool: str | None,
    out: Output,
    environ: Mapping[str, str],
) -> int:
    """Run ``venom describe``; returns the exit status, raises ``VenomError`` on failure."""
    target = resolve_target(target_text, tool=tool, environ=environ)
    session = Session(target, environ)
    try:
        model, digest = daemon_model(session)
        hello = session.hello
    finally:
        session.close()
    tree = _tree(model)
    command = _command(tree, verb_name) if verb_name is not None else tree.root
    try:
        text = render_help(model, tree, command)
    except _MALFORMED as exc:
        raise VenomError("internal.model", f"malformed model: {exc!r}") from None
    if not out.json:
        return out.help(text)
    server = hello.get("server")
    shown: dict[str, Any] = {"server": server, "schema": digest, "socket": target.socket}
    if verb_name is None:
        shown["model"] = model
    else:
        shown["verbs"] = [command.verb] if command.verb is not None else list(command.verbs())
    shown["help"] = text
    out.value(shown)
    return 0
