"""bash completion script (RFC-0004 §6): ``complete -F`` over the shared command tree."""

from __future__ import annotations

from venom_gen.build.completions._sh_tables import sh_tables, sq
from venom_gen.build.completions._tree import build_tree, shell_function_name
from venom_schema.model import Model

__all__ = ("render_bash",)

# The walk: rejoin the `--flag = value` pieces readline splits at COMP_WORDBREAKS, follow
# command tokens, skip option values, remember used flags, stop at `--`. Replies are
# trimmed back to readline's own word (after the `=`), and %q-quoted so a choice is
# inserted literally.
_BODY = r"""
@FN@() {
  local REPLY i w node=0 pending= dd= used=' ' kind flag cur raw prefix c
  local -a reply lw=() cands=() out=()
  for ((i = 1; i <= COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    local n=${#lw[@]}
    if [[ $w == '=' && $n -gt 0 && ${lw[n-1]} == --* && ${lw[n-1]} != *=* ]]; then
      lw[n-1]+='='
    elif [[ $n -gt 0 && ${lw[n-1]} == --*= && ${COMP_WORDS[i-1]} == '=' ]]; then
      lw[n-1]+=$w
    else
      lw+=("$w")
    fi
  done
  cur=${lw[${#lw[@]}-1]}
  raw=${COMP_WORDS[COMP_CWORD]}
  [[ $raw == '=' ]] && raw=
  for ((i = 0; i < ${#lw[@]} - 1; i++)); do
    w=${lw[i]}
    if [[ -n $dd ]]; then continue; fi
    if [[ -n $pending ]]; then
      pending=
      [[ $w == -* ]] || continue
    fi
    case $w in
      --) dd=1 ;;
      --*=*) used+="${w%%=*} " ;;
      -*)
        used+="$w "
        @FN@_kind "$node" "$w"
        [[ $kind != switch ]] && pending=1 ;;
      *) @FN@_child "$node" "$w"; [[ -n $REPLY ]] && node=$REPLY ;;
    esac
  done
  COMPREPLY=()
  [[ -n $dd ]] && return 0
  if [[ -n $pending && $cur != -* ]]; then
    @FN@_kind "$node" "${lw[${#lw[@]}-2]}"
    if [[ $kind == path ]]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
    fi
    [[ $kind == value ]] && @FN@_choices "$node" "${lw[${#lw[@]}-2]}"
    for c in "${reply[@]}"; do cands+=("$c"); done
  elif [[ $cur == --*=* ]]; then
    flag=${cur%%=*}
    @FN@_kind "$node" "$flag"
    if [[ $kind == path ]]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "${cur#*=}"))
      return 0
    fi
    @FN@_choices "$node" "$flag"
    for c in "${reply[@]}"; do cands+=("$flag=$c"); done
  else
    reply=()
    [[ $cur != -* ]] && @FN@_cmds "$node"
    if [[ $cur == -* || ${#reply[@]} -eq 0 ]]; then
      @FN@_flags "$node"
      for c in "${reply[@]}"; do
        flag=${c#*:}
        [[ $used == *" $flag "* ]] && continue
        [[ ${c%%:*} == bool ]] && flag+='='
        cands+=("$flag")
      done
    else
      cands=("${reply[@]}")
    fi
  fi
  prefix=${cur:0:${#cur}-${#raw}}
  for c in "${cands[@]}"; do
    [[ $c == "$cur"* ]] || continue
    c=${c:${#prefix}}
    if [[ $c == *= ]]; then
      compopt -o nospace 2>/dev/null
      out+=("$c")
    else
      printf -v c '%q' "$c"
      out+=("$c")
    fi
  done
  COMPREPLY=("${out[@]}")
  return 0
}

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
"""


def render_bash(model: Model) -> str:
    """The bash script: source it (or drop it in bash-completion's directory)."""
    tree = build_tree(model)
    fn = shell_function_name(tree.tool)
    lines = [f"# bash completion for {tree.tool} (generated from the verb schema; do not edit)"]
    lines += sh_tables(tree, fn)
    lines += _BODY.replace("@FN@", fn).strip("\n").split("\n")
    lines.append(f"complete -F {fn} {sq(tree.tool)}")
    return "\n".join(lines) + "\n"
