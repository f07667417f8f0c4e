# bash completion for venom-notes (generated from the verb schema; do not edit)
_venom_notes_child() {
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
    ('0 events') REPLY=21 ;;
    ('0 man') REPLY=22 ;;
    ('0 man.install') REPLY=24 ;;
    ('0 manifest') REPLY=25 ;;
    ('0 mcp') REPLY=26 ;;
    ('0 mcp.config') REPLY=28 ;;
    ('0 note') REPLY=29 ;;
    ('0 note.add') REPLY=31 ;;
    ('0 note.get') REPLY=33 ;;
    ('0 note.list') REPLY=35 ;;
    ('0 note.remove') REPLY=37 ;;
    ('0 note.search') REPLY=39 ;;
    ('0 note.watch') REPLY=41 ;;
    ('0 ping') REPLY=42 ;;
    ('0 serve') REPLY=43 ;;
    ('0 service') REPLY=44 ;;
    ('0 service.install') REPLY=46 ;;
    ('0 shutdown') REPLY=47 ;;
    ('0 skill') REPLY=48 ;;
    ('0 skill.install') REPLY=50 ;;
    ('0 token') REPLY=51 ;;
    ('0 token.issue') REPLY=53 ;;
    ('0 token.list') REPLY=55 ;;
    ('0 token.revoke') REPLY=57 ;;
    ('2 bash') REPLY=3 ;;
    ('2 fish') REPLY=5 ;;
    ('2 zsh') REPLY=7 ;;
    ('9 check') REPLY=10 ;;
    ('9 get') REPLY=12 ;;
    ('9 reload') REPLY=14 ;;
    ('9 schema') REPLY=16 ;;
    ('9 set') REPLY=18 ;;
    ('22 install') REPLY=23 ;;
    ('26 config') REPLY=27 ;;
    ('29 add') REPLY=30 ;;
    ('29 get') REPLY=32 ;;
    ('29 list') REPLY=34 ;;
    ('29 remove') REPLY=36 ;;
    ('29 search') REPLY=38 ;;
    ('29 watch') REPLY=40 ;;
    ('44 install') REPLY=45 ;;
    ('48 install') REPLY=49 ;;
    ('51 issue') REPLY=52 ;;
    ('51 list') REPLY=54 ;;
    ('51 revoke') REPLY=56 ;;
    (*) REPLY= ;;
  esac
}
_venom_notes_cmds() {
  case "$1" in
    (0) reply=('bridge' 'completion' 'completion.bash' 'completion.fish' 'completion.zsh' 'config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'events' 'man' 'man.install' 'manifest' 'mcp' 'mcp.config' 'note' 'note.add' 'note.get' 'note.list' 'note.remove' 'note.search' 'note.watch' 'ping' 'serve' 'service' 'service.install' 'shutdown' 'skill' 'skill.install' 'token' 'token.issue' 'token.list' 'token.revoke') ;;
    (2) reply=('bash' 'fish' 'zsh') ;;
    (9) reply=('check' 'get' 'reload' 'schema' 'set') ;;
    (22) reply=('install') ;;
    (26) reply=('config') ;;
    (29) reply=('add' 'get' 'list' 'remove' 'search' 'watch') ;;
    (44) reply=('install') ;;
    (48) reply=('install') ;;
    (51) reply=('issue' 'list' 'revoke') ;;
    (*) reply=() ;;
  esac
}
_venom_notes_flags() {
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
    (21) reply=('value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (22) reply=('value:--page' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (23) reply=('value:--dir' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (24) reply=('value:--dir' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (25) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (26) reply=('value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (27) reply=('value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (28) reply=('value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (29) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (30) reply=('value:--text' 'value:--tags' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (31) reply=('value:--text' 'value:--tags' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (32) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (33) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (34) reply=('value:--tag' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (35) reply=('value:--tag' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (36) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (37) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (38) reply=('value:--query' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (39) reply=('value:--query' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (40) reply=('value:--cursor' 'value:--limit' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (41) reply=('value:--cursor' 'value:--limit' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (42) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (43) reply=('bool:--reload' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (44) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (45) reply=('value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (46) reply=('value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (47) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (48) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (49) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (50) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (51) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (52) reply=('value:--name' 'value:--grants' 'value:--expires-in' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (53) reply=('value:--name' 'value:--grants' 'value:--expires-in' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (54) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (55) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (56) reply=('value:--name' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (57) reply=('value:--name' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (*) reply=() ;;
  esac
}
_venom_notes_choices() {
  case "$1 $2" in
    ('21 --follow') reply=(true false) ;;
    ('26 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('27 --format') reply=('mcpServers' 'vscode' 'gemini' 'zed' 'codex' 'goose' 'claude-add') ;;
    ('27 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('28 --format') reply=('mcpServers' 'vscode' 'gemini' 'zed' 'codex' 'goose' 'claude-add') ;;
    ('28 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('43 --reload') reply=(true false) ;;
    ('45 --manager') reply=('systemd' 'launchd') ;;
    ('45 --force') reply=(true false) ;;
    ('46 --manager') reply=('systemd' 'launchd') ;;
    ('46 --force') reply=(true false) ;;
    ('49 --force') reply=(true false) ;;
    ('50 --force') reply=(true false) ;;
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
