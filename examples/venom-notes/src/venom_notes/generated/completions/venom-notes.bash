# bash completion for venom-notes (generated from the verb schema; do not edit)
_venom_notes_child() {
  case "$1 $2" in
    ('0 completion') REPLY=1 ;;
    ('0 completion.bash') REPLY=3 ;;
    ('0 completion.fish') REPLY=5 ;;
    ('0 completion.zsh') REPLY=7 ;;
    ('0 config') REPLY=8 ;;
    ('0 config.check') REPLY=10 ;;
    ('0 config.get') REPLY=12 ;;
    ('0 config.reload') REPLY=14 ;;
    ('0 config.schema') REPLY=16 ;;
    ('0 config.set') REPLY=18 ;;
    ('0 doctor') REPLY=19 ;;
    ('0 events') REPLY=20 ;;
    ('0 man') REPLY=21 ;;
    ('0 man.install') REPLY=23 ;;
    ('0 mcp') REPLY=24 ;;
    ('0 mcp.config') REPLY=26 ;;
    ('0 note') REPLY=27 ;;
    ('0 note.add') REPLY=29 ;;
    ('0 note.get') REPLY=31 ;;
    ('0 note.list') REPLY=33 ;;
    ('0 note.remove') REPLY=35 ;;
    ('0 note.search') REPLY=37 ;;
    ('0 ping') REPLY=38 ;;
    ('0 serve') REPLY=39 ;;
    ('0 service') REPLY=40 ;;
    ('0 service.install') REPLY=42 ;;
    ('0 shutdown') REPLY=43 ;;
    ('0 skill') REPLY=44 ;;
    ('0 skill.install') REPLY=46 ;;
    ('1 bash') REPLY=2 ;;
    ('1 fish') REPLY=4 ;;
    ('1 zsh') REPLY=6 ;;
    ('8 check') REPLY=9 ;;
    ('8 get') REPLY=11 ;;
    ('8 reload') REPLY=13 ;;
    ('8 schema') REPLY=15 ;;
    ('8 set') REPLY=17 ;;
    ('21 install') REPLY=22 ;;
    ('24 config') REPLY=25 ;;
    ('27 add') REPLY=28 ;;
    ('27 get') REPLY=30 ;;
    ('27 list') REPLY=32 ;;
    ('27 remove') REPLY=34 ;;
    ('27 search') REPLY=36 ;;
    ('40 install') REPLY=41 ;;
    ('44 install') REPLY=45 ;;
    (*) REPLY= ;;
  esac
}
_venom_notes_cmds() {
  case "$1" in
    (0) reply=('completion' 'completion.bash' 'completion.fish' 'completion.zsh' 'config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'events' 'man' 'man.install' 'mcp' 'mcp.config' 'note' 'note.add' 'note.get' 'note.list' 'note.remove' 'note.search' 'ping' 'serve' 'service' 'service.install' 'shutdown' 'skill' 'skill.install') ;;
    (1) reply=('bash' 'fish' 'zsh') ;;
    (8) reply=('check' 'get' 'reload' 'schema' 'set') ;;
    (21) reply=('install') ;;
    (24) reply=('config') ;;
    (27) reply=('add' 'get' 'list' 'remove' 'search') ;;
    (40) reply=('install') ;;
    (44) reply=('install') ;;
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
    (11) reply=('value:--key' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (12) reply=('value:--key' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (13) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (14) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (15) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (16) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (17) reply=('value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (18) reply=('value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (19) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (20) reply=('value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (21) reply=('value:--page' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (22) reply=('value:--dir' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (23) reply=('value:--dir' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (24) reply=('value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (25) reply=('value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (26) reply=('value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (27) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (28) reply=('value:--text' 'value:--tags' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (29) reply=('value:--text' 'value:--tags' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (30) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (31) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (32) reply=('value:--tag' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (33) reply=('value:--tag' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (34) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (35) reply=('value:--id' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (36) reply=('value:--query' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (37) reply=('value:--query' 'value:--limit' 'value:--after' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (38) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (39) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (40) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (41) reply=('value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (42) reply=('value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (43) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (44) reply=('switch:--json' 'path:--socket' 'switch:--help') ;;
    (45) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (46) reply=('value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help') ;;
    (*) reply=() ;;
  esac
}
_venom_notes_choices() {
  case "$1 $2" in
    ('20 --follow') reply=(true false) ;;
    ('24 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('25 --format') reply=('mcpServers' 'vscode') ;;
    ('25 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('26 --format') reply=('mcpServers' 'vscode') ;;
    ('26 --max-grant') reply=('none' 'read' 'write' 'respond' 'files' 'spawn' 'admin') ;;
    ('41 --manager') reply=('systemd' 'launchd') ;;
    ('41 --force') reply=(true false) ;;
    ('42 --manager') reply=('systemd' 'launchd') ;;
    ('42 --force') reply=(true false) ;;
    ('45 --force') reply=(true false) ;;
    ('46 --force') reply=(true false) ;;
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
