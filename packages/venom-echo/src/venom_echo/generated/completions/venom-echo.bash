# bash completion for venom-echo (generated from the verb schema; do not edit)
_venom_echo_child() {
  case "$1 $2" in
    ('0 bridge') REPLY=1 ;;
    ('0 completion') REPLY=2 ;;
    ('0 completion.bash') REPLY=4 ;;
    ('0 completion.fish') REPLY=6 ;;
    ('0 completion.zsh') REPLY=8 ;;
    ('0 config') REPLY=9 ;;
    ('0 config.check') REPLY=11 ;;
    ('0 config.get') REPLY=13 ;;
    ('0 config.reload') REPLY=15 ;;
    ('0 config.schema') REPLY=17 ;;
    ('0 config.set') REPLY=19 ;;
    ('0 doctor') REPLY=20 ;;
    ('0 echo') REPLY=21 ;;
    ('0 echo.exit') REPLY=23 ;;
    ('0 echo.fail') REPLY=25 ;;
    ('0 echo.repeat') REPLY=27 ;;
    ('0 echo.types') REPLY=29 ;;
    ('0 events') REPLY=30 ;;
    ('0 man') REPLY=31 ;;
    ('0 man.install') REPLY=33 ;;
    ('0 manifest') REPLY=34 ;;
    ('0 mcp') REPLY=35 ;;
    ('0 mcp.config') REPLY=37 ;;
    ('0 ping') REPLY=38 ;;
    ('0 serve') REPLY=39 ;;
    ('0 service') REPLY=40 ;;
    ('0 service.install') REPLY=42 ;;
    ('0 shutdown') REPLY=43 ;;
    ('0 skill') REPLY=44 ;;
    ('0 skill.install') REPLY=46 ;;
    ('0 token') REPLY=47 ;;
    ('0 token.issue') REPLY=49 ;;
    ('0 token.list') REPLY=51 ;;
    ('0 token.revoke') REPLY=53 ;;
    ('2 bash') REPLY=3 ;;
    ('2 fish') REPLY=5 ;;
    ('2 zsh') REPLY=7 ;;
    ('9 check') REPLY=10 ;;
    ('9 get') REPLY=12 ;;
    ('9 reload') REPLY=14 ;;
    ('9 schema') REPLY=16 ;;
    ('9 set') REPLY=18 ;;
    ('21 exit') REPLY=22 ;;
    ('21 fail') REPLY=24 ;;
    ('21 repeat') REPLY=26 ;;
    ('21 types') REPLY=28 ;;
    ('31 install') REPLY=32 ;;
    ('35 config') REPLY=36 ;;
    ('40 install') REPLY=41 ;;
    ('44 install') REPLY=45 ;;
    ('47 issue') REPLY=48 ;;
    ('47 list') REPLY=50 ;;
    ('47 revoke') REPLY=52 ;;
    (*) REPLY= ;;
  esac
}
_venom_echo_cmds() {
  case "$1" in
    (0) reply=('bridge' 'completion' 'completion.bash' 'completion.fish' 'completion.zsh' 'config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'echo' 'echo.exit' 'echo.fail' 'echo.repeat' 'echo.types' 'events' 'man' 'man.install' 'manifest' 'mcp' 'mcp.config' 'ping' 'serve' 'service' 'service.install' 'shutdown' 'skill' 'skill.install' 'token' 'token.issue' 'token.list' 'token.revoke') ;;
    (2) reply=('bash' 'fish' 'zsh') ;;
    (9) reply=('check' 'get' 'reload' 'schema' 'set') ;;
    (21) reply=('exit' 'fail' 'repeat' 'types') ;;
    (31) reply=('install') ;;
    (35) reply=('config') ;;
    (40) reply=('install') ;;
    (44) reply=('install') ;;
    (47) reply=('issue' 'list' 'revoke') ;;
    (*) reply=() ;;
  esac
}
_venom_echo_flags() {
  case "$1" in
    (0) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (1) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (2) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (3) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (4) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (5) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (6) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (7) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (8) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (9) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (10) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (11) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (12) reply=('value:--key' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (13) reply=('value:--key' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (14) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (15) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (16) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (17) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (18) reply=('value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (19) reply=('value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (20) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (21) reply=('value:--text' 'value:--style' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (22) reply=('value:--status' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (23) reply=('value:--status' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (24) reply=('value:--code' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (25) reply=('value:--code' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (26) reply=('value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (27) reply=('value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (28) reply=('value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (29) reply=('value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (30) reply=('value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (31) reply=('value:--page' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (32) reply=('value:--dir' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (33) reply=('value:--dir' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (34) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (35) reply=('value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (36) reply=('value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (37) reply=('value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (38) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (39) reply=('bool:--reload' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (40) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (41) reply=('value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (42) reply=('value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (43) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (44) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (45) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (46) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (47) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (48) reply=('value:--name' 'value:--grants' 'value:--expires-in' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (49) reply=('value:--name' 'value:--grants' 'value:--expires-in' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (50) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (51) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (52) reply=('value:--name' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (53) reply=('value:--name' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (*) reply=() ;;
  esac
}
_venom_echo_choices() {
  case "$1 $2" in
    ('21 --style') reply=('plain' 'upper') ;;
    ('24 --code') reply=('failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo') ;;
    ('25 --code') reply=('failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo') ;;
    ('28 --flag') reply=(true false) ;;
    ('28 --mode') reply=('fast' 'safe') ;;
    ('29 --flag') reply=(true false) ;;
    ('29 --mode') reply=('fast' 'safe') ;;
    ('30 --follow') reply=(true false) ;;
    ('35 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('36 --format') reply=('mcpServers' 'vscode' 'gemini' 'zed' 'codex' 'goose' 'claude-add') ;;
    ('36 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('37 --format') reply=('mcpServers' 'vscode' 'gemini' 'zed' 'codex' 'goose' 'claude-add') ;;
    ('37 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('39 --reload') reply=(true false) ;;
    ('41 --manager') reply=('systemd' 'launchd') ;;
    ('41 --force') reply=(true false) ;;
    ('42 --manager') reply=('systemd' 'launchd') ;;
    ('42 --force') reply=(true false) ;;
    ('45 --force') reply=(true false) ;;
    ('46 --force') reply=(true false) ;;
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
