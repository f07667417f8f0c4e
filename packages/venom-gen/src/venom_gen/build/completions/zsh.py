"""zsh completion script (RFC-0004 §6): a ``#compdef`` function over the shared tree.

Works both autoloaded from ``$fpath`` (file named ``_<tool>``) and sourced after ``compinit``.
"""

from __future__ import annotations

from venom_gen.build.completions._sh_tables import sh_tables, sq
from venom_gen.build.completions._tree import build_tree, shell_function_name
from venom_schema.model import Model

__all__ = ("render_zsh",)

# zsh keeps `--flag=value` as one word; the `--flag=` part moves to IPREFIX so compadd
# matches and quotes the value alone.
_BODY = r"""
@FN@_kind() {
  local c
  local -a reply
  kind=value
  @FN@_flags "$1"
  for c in "${reply[@]}"; do
    if [[ ${c#*:} == "$2" ]]; then kind=${c%%:*}; return 0; fi
  done
  return 0
}

@FN@() {
  local REPLY i w node=0 pending= dd= kind flag c
  local -a reply used
  for (( i = 2; i < CURRENT; i++ )); do
    w=${(Q)words[i]}
    [[ -n $dd ]] && continue
    if [[ -n $pending ]]; then
      pending=
      [[ $w == -* ]] || continue
    fi
    case $w in
      (--) dd=1 ;;
      (--*=*) used+=("${w%%=*}") ;;
      (-*)
        used+=("$w")
        @FN@_kind "$node" "$w"
        [[ $kind != switch ]] && pending=1 ;;
      (*) @FN@_child "$node" "$w"; [[ -n $REPLY ]] && node=$REPLY ;;
    esac
  done
  [[ -n $dd ]] && return 1
  [[ $PREFIX == -* && $PREFIX != --*=* ]] && pending=
  if [[ -n $pending || $PREFIX == --*=* ]]; then
    if [[ -n $pending ]]; then
      flag=${(Q)words[CURRENT-1]}
    else
      flag=${PREFIX%%=*}
      IPREFIX="$IPREFIX$flag="
      PREFIX=${PREFIX#*=}
    fi
    @FN@_kind "$node" "$flag"
    if [[ $kind == path ]]; then _files; return; fi
    [[ -n $pending && $kind != value ]] && return 1
    @FN@_choices "$node" "$flag"
    (( ${#reply} )) && compadd -- "${reply[@]}"
    return
  fi
  reply=()
  [[ $PREFIX != -* ]] && @FN@_cmds "$node"
  if [[ $PREFIX == -* || ${#reply} -eq 0 ]]; then
    @FN@_flags "$node"
    for c in "${reply[@]}"; do
      flag=${c#*:}
      (( ${used[(Ie)$flag]} )) && continue
      if [[ ${c%%:*} == bool ]]; then
        compadd -S '' -- "$flag="
      else
        compadd -- "$flag"
      fi
    done
  else
    compadd -- "${reply[@]}"
  fi
}
"""


def render_zsh(model: Model) -> str:
    """The zsh script: install as ``_<tool>`` in ``$fpath``, or source it after compinit."""
    tree = build_tree(model)
    fn = shell_function_name(tree.tool)
    lines = [
        f"#compdef {tree.tool}",
        f"# zsh completion for {tree.tool} (generated from the verb schema; do not edit)",
    ]
    lines += sh_tables(tree, fn)
    lines += _BODY.replace("@FN@", fn).strip("\n").split("\n")
    lines += [
        "",
        "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then",
        f'  {fn} "$@"',
        "else",
        f"  compdef {fn} {sq(tree.tool)}",
        "fi",
    ]
    return "\n".join(lines) + "\n"
