"""fish completion script (RFC-0004 §6): one ``complete -a`` function over the shared tree."""

from __future__ import annotations

from venom_gen.build.completions._tree import CommandTree, build_tree, shell_function_name
from venom_schema.model import Model

__all__ = ("fish_quote", "render_fish")


def fish_quote(text: str) -> str:
    """A fish single-quoted string: only ``\\`` and ``'`` are escaped there."""
    if "\0" in text:
        raise ValueError("completion words cannot contain NUL")
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _printf(words: list[str]) -> str:
    # fish reads one candidate per output line (TAB starts a description), so a choice holding
    # either cannot be offered verbatim; it is left out rather than mangled.
    safe = [w for w in words if "\n" not in w and "\t" not in w]
    return "printf '%s\\n' " + " ".join(fish_quote(w) for w in safe) if safe else "true"


def _tables(tree: CommandTree, fn: str) -> list[str]:
    child = [f"function {fn}_child", '    switch "$argv[1] $argv[2]"']
    cmds = [f"function {fn}_cmds", '    switch "$argv[1]"']
    flags = [f"function {fn}_flags", '    switch "$argv[1]"']
    choices = [f"function {fn}_choices", '    switch "$argv[1] $argv[2]"']
    for node in tree.nodes:
        for token, target in node.children.items():
            child += [
                f"        case {fish_quote(f'{node.id} {token}')}",
                f"            echo {target}",
            ]
        if node.children:
            cmds += [f"        case {node.id}", f"            {_printf(list(node.children))}"]
        kinds = [f"{flag.kind}:{flag.name}" for flag in node.flags]
        flags += [f"        case {node.id}", f"            {_printf(kinds)}"]
        for flag in node.flags:
            values = list(flag.choices) if flag.kind == "value" else ["true", "false"]
            if (flag.kind == "value" and flag.choices) or flag.kind == "bool":
                key = fish_quote(f"{node.id} {flag.name}")
                choices += [f"        case {key}", f"            {_printf(values)}"]
    return [part for table in (child, cmds, flags, choices) for part in (*table, "    end", "end")]


_BODY = r"""
function @FN@_kind
    for c in (@FN@_flags $argv[1])
        if test (string split -m1 : -- $c)[2] = "$argv[2]"
            string split -m1 : -- $c | head -n1
            return 0
        end
    end
    echo value
end

function @FN@_offer
    set -l cur $argv[1]
    set -l n (string length -- "$cur")
    for c in $argv[2..-1]
        if test (string sub -l $n -- "$c") = "$cur"
            printf '%s\n' $c
        end
    end
end

function @FN@_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l node 0
    set -l pending 0
    set -l dd 0
    set -l used
    for w in $tokens[2..-1]
        if test $dd = 1
            continue
        end
        if test $pending = 1
            set pending 0
            if not string match -q -- '-*' $w
                continue
            end
        end
        if test "$w" = --
            set dd 1
        else if string match -q -- '--*=*' $w
            set -a used (string split -m1 = -- $w)[1]
        else if string match -q -- '-*' $w
            set -a used $w
            if test (@FN@_kind $node $w) != switch
                set pending 1
            end
        else
            set -l child (@FN@_child $node $w)
            if test -n "$child"
                set node $child
            end
        end
    end
    test $dd = 1; and return 0
    set -l flag
    set -l prefix
    if test $pending = 1; and not string match -q -- '-*' $cur
        set flag $tokens[-1]
    else if string match -q -- '--*=*' $cur
        set flag (string split -m1 = -- $cur)[1]
        set prefix "$flag="
    end
    if test -n "$flag"
        if test (@FN@_kind $node $flag) = path
            set -l rest (string sub -s (math (string length -- "$prefix") + 1) -- "$cur")
            for p in (__fish_complete_path "$rest")
                printf '%s\n' "$prefix$p"
            end
            return 0
        end
        set -l kind (@FN@_kind $node $flag)
        if test -z "$prefix"; and test $kind != value
            return 0
        end
        set -l values
        for v in (@FN@_choices $node $flag)
            set -a values "$prefix$v"
        end
        @FN@_offer "$cur" $values
        return 0
    end
    set -l words
    if not string match -q -- '-*' $cur
        set words (@FN@_cmds $node)
    end
    if string match -q -- '-*' $cur; or test (count $words) -eq 0
        set words
        for c in (@FN@_flags $node)
            set -l parts (string split -m1 : -- $c)
            contains -- $parts[2] $used; and continue
            if test $parts[1] = bool
                set -a words "$parts[2]="
            else
                set -a words $parts[2]
            end
        end
    end
    @FN@_offer "$cur" $words
end
"""


def render_fish(model: Model) -> str:
    """The fish script: source it or install as ``completions/<tool>.fish``."""
    tree = build_tree(model)
    fn = "_" + shell_function_name(tree.tool)
    lines = [f"# fish completion for {tree.tool} (generated from the verb schema; do not edit)"]
    lines += _tables(tree, fn)
    lines += _BODY.replace("@FN@", fn).strip("\n").split("\n")
    lines.append(f"complete -c {fish_quote(tree.tool)} -f -a '({fn}_complete)'")
    return "\n".join(lines) + "\n"
