"""The command tree as POSIX-shell ``case`` tables, shared by the bash and zsh scripts.

Every user string is emitted inside single quotes (``'`` written ``'\\''``), so nothing from
the manifest is ever expanded or executed by the shell that sources the script.
"""

from __future__ import annotations

from venom_gen.build.completions._tree import CommandTree

__all__ = ("sh_tables", "sq")


def sq(text: str) -> str:
    """Always-quoted POSIX single-quoted word; NUL cannot live in a shell string."""
    if "\0" in text:
        raise ValueError("completion words cannot contain NUL")
    return "'" + text.replace("'", "'\\''") + "'"


def _array(name: str, words: list[str]) -> str:
    return f"{name}=(" + " ".join(sq(w) for w in words) + ")"


def sh_tables(tree: CommandTree, fn: str) -> list[str]:
    """Functions ``<fn>_child``, ``<fn>_cmds``, ``<fn>_flags`` and ``<fn>_choices``.

    They answer through the caller's ``REPLY`` (child node id) and ``reply`` (array) variables.
    """
    child = [f"{fn}_child() {{", '  case "$1 $2" in']
    cmds = [f"{fn}_cmds() {{", '  case "$1" in']
    flags = [f"{fn}_flags() {{", '  case "$1" in']
    choices = [f"{fn}_choices() {{", '  case "$1 $2" in']
    for node in tree.nodes:
        for token, target in node.children.items():
            child.append(f"    ({sq(f'{node.id} {token}')}) REPLY={target} ;;")
        if node.children:
            cmds.append(f"    ({node.id}) {_array('reply', list(node.children))} ;;")
        kinds = [f"{flag.kind}:{flag.name}" for flag in node.flags]
        flags.append(f"    ({node.id}) {_array('reply', kinds)} ;;")
        for flag in node.flags:
            if flag.kind == "value" and flag.choices:
                key = sq(f"{node.id} {flag.name}")
                choices.append(f"    ({key}) {_array('reply', list(flag.choices))} ;;")
            elif flag.kind == "bool":
                choices.append(f"    ({sq(f'{node.id} {flag.name}')}) reply=(true false) ;;")
    child.append("    (*) REPLY= ;;")
    cmds.append("    (*) reply=() ;;")
    flags.append("    (*) reply=() ;;")
    choices.append("    (*) reply=() ;;")
    return [*(part for table in (child, cmds, flags, choices) for part in (*table, "  esac", "}"))]
