# bash completion for venom-echo (generated from the verb schema; do not edit)
_venom_echo_child() {
  case "$1 $2" in
    ('0 config') REPLY=1 ;;
    ('0 config.check') REPLY=3 ;;
    ('0 config.get') REPLY=5 ;;
    ('0 config.reload') REPLY=7 ;;
    ('0 config.schema') REPLY=9 ;;
    ('0 config.set') REPLY=11 ;;
    ('0 doctor') REPLY=12 ;;
    ('0 echo') REPLY=13 ;;
    ('0 echo.exit') REPLY=15 ;;
    ('0 echo.fail') REPLY=17 ;;
    ('0 echo.repeat') REPLY=19 ;;
    ('0 echo.types') REPLY=21 ;;
    ('0 events') REPLY=22 ;;
    ('0 manifest') REPLY=23 ;;
    ('0 mcp') REPLY=24 ;;
    ('0 ping') REPLY=25 ;;
    ('0 serve') REPLY=26 ;;
    ('0 skill') REPLY=27 ;;
    ('0 skill.install') REPLY=29 ;;
    ('1 check') REPLY=2 ;;
    ('1 get') REPLY=4 ;;
    ('1 reload') REPLY=6 ;;
    ('1 schema') REPLY=8 ;;
    ('1 set') REPLY=10 ;;
    ('13 exit') REPLY=14 ;;
    ('13 fail') REPLY=16 ;;
    ('13 repeat') REPLY=18 ;;
    ('13 types') REPLY=20 ;;
    ('27 install') REPLY=28 ;;
    (*) REPLY= ;;
  esac
}
_venom_echo_cmds() {
  case "$1" in
    (0) reply=('config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'echo' 'echo.exit' 'echo.fail' 'echo.repeat' 'echo.types' 'events' 'manifest' 'mcp' 'ping' 'serve' 'skill' 'skill.install') ;;
    (1) reply=('check' 'get' 'reload' 'schema' 'set') ;;
    (13) reply=('exit' 'fail' 'repeat' 'types') ;;
    (27) reply=('install') ;;
    (*) reply=() ;;
  esac
}
_venom_echo_flags() {
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
    (13) reply=('value:--text' 'value:--style' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (14) reply=('value:--status' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (15) reply=('value:--status' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (16) reply=('value:--code' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (17) reply=('value:--code' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (18) reply=('value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (19) reply=('value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (20) reply=('value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (21) reply=('value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (22) reply=('value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (23) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (24) reply=('value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (25) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (26) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (27) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (28) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (29) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (*) reply=() ;;
  esac
}
_venom_echo_choices() {
  case "$1 $2" in
    ('13 --style') reply=('plain' 'upper') ;;
    ('16 --code') reply=('failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo') ;;
    ('17 --code') reply=('failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo') ;;
    ('20 --flag') reply=(true false) ;;
    ('20 --mode') reply=('fast' 'safe') ;;
    ('21 --flag') reply=(true false) ;;
    ('21 --mode') reply=('fast' 'safe') ;;
    ('22 --follow') reply=(true false) ;;
    ('24 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('28 --force') reply=(true false) ;;
    ('29 --force') reply=(true false) ;;
    (*) reply=() ;;
  esac
}
_venom_echo() {
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
        _venom_echo_kind "$node" "$w"
        [[ $kind != switch ]] && pending=1 ;;
      *) _venom_echo_child "$node" "$w"; [[ -n $REPLY ]] && node=$REPLY ;;
    esac
  done
  COMPREPLY=()
  [[ -n $dd ]] && return 0
  if [[ -n $pending && $cur != -* ]]; then
    _venom_echo_kind "$node" "${lw[${#lw[@]}-2]}"
    if [[ $kind == path ]]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
    fi
    [[ $kind == value ]] && _venom_echo_choices "$node" "${lw[${#lw[@]}-2]}"
    for c in "${reply[@]}"; do cands+=("$c"); done
  elif [[ $cur == --*=* ]]; then
    flag=${cur%%=*}
    _venom_echo_kind "$node" "$flag"
    if [[ $kind == path ]]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "${cur#*=}"))
      return 0
    fi
    _venom_echo_choices "$node" "$flag"
    for c in "${reply[@]}"; do cands+=("$flag=$c"); done
  else
    reply=()
    [[ $cur != -* ]] && _venom_echo_cmds "$node"
    if [[ $cur == -* || ${#reply[@]} -eq 0 ]]; then
      _venom_echo_flags "$node"
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

_venom_echo_kind() {
  local c
  local -a reply
  kind=value
  _venom_echo_flags "$1"
  for c in "${reply[@]}"; do
    if [[ ${c#*:} == "$2" ]]; then kind=${c%%:*}; return 0; fi
  done
  return 0
}
complete -F _venom_echo 'venom-echo'
