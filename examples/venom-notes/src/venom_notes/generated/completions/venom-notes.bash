# bash completion for venom-notes (generated from the verb schema; do not edit)
_venom_notes_child() {
  case "$1 $2" in
    ('0 config') REPLY=1 ;;
    ('0 config.check') REPLY=3 ;;
    ('0 config.get') REPLY=5 ;;
    ('0 config.reload') REPLY=7 ;;
    ('0 config.schema') REPLY=9 ;;
    ('0 config.set') REPLY=11 ;;
    ('0 doctor') REPLY=12 ;;
    ('0 events') REPLY=13 ;;
    ('0 manifest') REPLY=14 ;;
    ('0 mcp') REPLY=15 ;;
    ('0 note') REPLY=16 ;;
    ('0 note.add') REPLY=18 ;;
    ('0 note.get') REPLY=20 ;;
    ('0 note.list') REPLY=22 ;;
    ('0 note.remove') REPLY=24 ;;
    ('0 note.search') REPLY=26 ;;
    ('0 ping') REPLY=27 ;;
    ('0 serve') REPLY=28 ;;
    ('0 skill') REPLY=29 ;;
    ('0 skill.install') REPLY=31 ;;
    ('1 check') REPLY=2 ;;
    ('1 get') REPLY=4 ;;
    ('1 reload') REPLY=6 ;;
    ('1 schema') REPLY=8 ;;
    ('1 set') REPLY=10 ;;
    ('16 add') REPLY=17 ;;
    ('16 get') REPLY=19 ;;
    ('16 list') REPLY=21 ;;
    ('16 remove') REPLY=23 ;;
    ('16 search') REPLY=25 ;;
    ('29 install') REPLY=30 ;;
    (*) REPLY= ;;
  esac
}
_venom_notes_cmds() {
  case "$1" in
    (0) reply=('config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'events' 'manifest' 'mcp' 'note' 'note.add' 'note.get' 'note.list' 'note.remove' 'note.search' 'ping' 'serve' 'skill' 'skill.install') ;;
    (1) reply=('check' 'get' 'reload' 'schema' 'set') ;;
    (16) reply=('add' 'get' 'list' 'remove' 'search') ;;
    (29) reply=('install') ;;
    (*) reply=() ;;
  esac
}
_venom_notes_flags() {
  case "$1" in
    (0) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (1) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (2) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (3) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (4) reply=('value:--key' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (5) reply=('value:--key' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (6) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (7) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (8) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (9) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (10) reply=('value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (11) reply=('value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (12) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (13) reply=('value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (14) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (15) reply=('value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (16) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (17) reply=('value:--text' 'value:--tags' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (18) reply=('value:--text' 'value:--tags' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (19) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (20) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (21) reply=('value:--tag' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (22) reply=('value:--tag' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (23) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (24) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (25) reply=('value:--query' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (26) reply=('value:--query' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (27) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (28) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (29) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (30) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (31) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (*) reply=() ;;
  esac
}
_venom_notes_choices() {
  case "$1 $2" in
    ('13 --follow') reply=(true false) ;;
    ('15 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('30 --force') reply=(true false) ;;
    ('31 --force') reply=(true false) ;;
    (*) reply=() ;;
  esac
}
_venom_notes() {
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
        _venom_notes_kind "$node" "$w"
        [[ $kind != switch ]] && pending=1 ;;
      *) _venom_notes_child "$node" "$w"; [[ -n $REPLY ]] && node=$REPLY ;;
    esac
  done
  COMPREPLY=()
  [[ -n $dd ]] && return 0
  if [[ -n $pending && $cur != -* ]]; then
    _venom_notes_kind "$node" "${lw[${#lw[@]}-2]}"
    if [[ $kind == path ]]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
    fi
    [[ $kind == value ]] && _venom_notes_choices "$node" "${lw[${#lw[@]}-2]}"
    for c in "${reply[@]}"; do cands+=("$c"); done
  elif [[ $cur == --*=* ]]; then
    flag=${cur%%=*}
    _venom_notes_kind "$node" "$flag"
    if [[ $kind == path ]]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "${cur#*=}"))
      return 0
    fi
    _venom_notes_choices "$node" "$flag"
    for c in "${reply[@]}"; do cands+=("$flag=$c"); done
  else
    reply=()
    [[ $cur != -* ]] && _venom_notes_cmds "$node"
    if [[ $cur == -* || ${#reply[@]} -eq 0 ]]; then
      _venom_notes_flags "$node"
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

_venom_notes_kind() {
  local c
  local -a reply
  kind=value
  _venom_notes_flags "$1"
  for c in "${reply[@]}"; do
    if [[ ${c#*:} == "$2" ]]; then kind=${c%%:*}; return 0; fi
  done
  return 0
}
complete -F _venom_notes 'venom-notes'
