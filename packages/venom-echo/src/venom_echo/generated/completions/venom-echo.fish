# fish completion for venom-echo (generated from the verb schema; do not edit)
function __venom_echo_child
    switch "$argv[1] $argv[2]"
        case '0 bridge'
            echo 1
        case '0 completion'
            echo 2
        case '0 completion.bash'
            echo 4
        case '0 completion.fish'
            echo 6
        case '0 completion.zsh'
            echo 8
        case '0 config'
            echo 9
        case '0 config.check'
            echo 11
        case '0 config.get'
            echo 13
        case '0 config.reload'
            echo 15
        case '0 config.schema'
            echo 17
        case '0 config.set'
            echo 19
        case '0 doctor'
            echo 20
        case '0 echo'
            echo 21
        case '0 echo.exit'
            echo 23
        case '0 echo.fail'
            echo 25
        case '0 echo.repeat'
            echo 27
        case '0 echo.types'
            echo 29
        case '0 events'
            echo 30
        case '0 man'
            echo 31
        case '0 man.install'
            echo 33
        case '0 manifest'
            echo 34
        case '0 mcp'
            echo 35
        case '0 mcp.config'
            echo 37
        case '0 ping'
            echo 38
        case '0 serve'
            echo 39
        case '0 service'
            echo 40
        case '0 service.install'
            echo 42
        case '0 shutdown'
            echo 43
        case '0 skill'
            echo 44
        case '0 skill.install'
            echo 46
        case '0 token'
            echo 47
        case '0 token.issue'
            echo 49
        case '0 token.list'
            echo 51
        case '0 token.revoke'
            echo 53
        case '2 bash'
            echo 3
        case '2 fish'
            echo 5
        case '2 zsh'
            echo 7
        case '9 check'
            echo 10
        case '9 get'
            echo 12
        case '9 reload'
            echo 14
        case '9 schema'
            echo 16
        case '9 set'
            echo 18
        case '21 exit'
            echo 22
        case '21 fail'
            echo 24
        case '21 repeat'
            echo 26
        case '21 types'
            echo 28
        case '31 install'
            echo 32
        case '35 config'
            echo 36
        case '40 install'
            echo 41
        case '44 install'
            echo 45
        case '47 issue'
            echo 48
        case '47 list'
            echo 50
        case '47 revoke'
            echo 52
    end
end
function __venom_echo_cmds
    switch "$argv[1]"
        case 0
            printf '%s\n' 'bridge' 'completion' 'completion.bash' 'completion.fish' 'completion.zsh' 'config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'echo' 'echo.exit' 'echo.fail' 'echo.repeat' 'echo.types' 'events' 'man' 'man.install' 'manifest' 'mcp' 'mcp.config' 'ping' 'serve' 'service' 'service.install' 'shutdown' 'skill' 'skill.install' 'token' 'token.issue' 'token.list' 'token.revoke'
        case 2
            printf '%s\n' 'bash' 'fish' 'zsh'
        case 9
            printf '%s\n' 'check' 'get' 'reload' 'schema' 'set'
        case 21
            printf '%s\n' 'exit' 'fail' 'repeat' 'types'
        case 31
            printf '%s\n' 'install'
        case 35
            printf '%s\n' 'config'
        case 40
            printf '%s\n' 'install'
        case 44
            printf '%s\n' 'install'
        case 47
            printf '%s\n' 'issue' 'list' 'revoke'
    end
end
function __venom_echo_flags
    switch "$argv[1]"
        case 0
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 1
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 2
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 3
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 4
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 5
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 6
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 7
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 8
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 9
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 10
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 11
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 12
            printf '%s\n' 'value:--key' 'switch:--json' 'path:--socket' 'switch:--help'
        case 13
            printf '%s\n' 'value:--key' 'switch:--json' 'path:--socket' 'switch:--help'
        case 14
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 15
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 16
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 17
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 18
            printf '%s\n' 'value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help'
        case 19
            printf '%s\n' 'value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help'
        case 20
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 21
            printf '%s\n' 'value:--text' 'value:--style' 'switch:--json' 'path:--socket' 'switch:--help'
        case 22
            printf '%s\n' 'value:--status' 'switch:--json' 'path:--socket' 'switch:--help'
        case 23
            printf '%s\n' 'value:--status' 'switch:--json' 'path:--socket' 'switch:--help'
        case 24
            printf '%s\n' 'value:--code' 'switch:--json' 'path:--socket' 'switch:--help'
        case 25
            printf '%s\n' 'value:--code' 'switch:--json' 'path:--socket' 'switch:--help'
        case 26
            printf '%s\n' 'value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help'
        case 27
            printf '%s\n' 'value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help'
        case 28
            printf '%s\n' 'value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help'
        case 29
            printf '%s\n' 'value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help'
        case 30
            printf '%s\n' 'value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help'
        case 31
            printf '%s\n' 'value:--page' 'switch:--json' 'path:--socket' 'switch:--help'
        case 32
            printf '%s\n' 'value:--dir' 'switch:--json' 'path:--socket' 'switch:--help'
        case 33
            printf '%s\n' 'value:--dir' 'switch:--json' 'path:--socket' 'switch:--help'
        case 34
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 35
            printf '%s\n' 'value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help'
        case 36
            printf '%s\n' 'value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help'
        case 37
            printf '%s\n' 'value:--format' 'value:--max-grant' 'value:--name' 'value:--write' 'switch:--json' 'path:--socket' 'switch:--help'
        case 38
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 39
            printf '%s\n' 'bool:--reload' 'switch:--json' 'path:--socket' 'switch:--help'
        case 40
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 41
            printf '%s\n' 'value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help'
        case 42
            printf '%s\n' 'value:--manager' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help'
        case 43
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 44
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 45
            printf '%s\n' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help'
        case 46
            printf '%s\n' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help'
        case 47
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 48
            printf '%s\n' 'value:--name' 'value:--grants' 'value:--expires-in' 'switch:--json' 'path:--socket' 'switch:--help'
        case 49
            printf '%s\n' 'value:--name' 'value:--grants' 'value:--expires-in' 'switch:--json' 'path:--socket' 'switch:--help'
        case 50
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 51
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 52
            printf '%s\n' 'value:--name' 'switch:--json' 'path:--socket' 'switch:--help'
        case 53
            printf '%s\n' 'value:--name' 'switch:--json' 'path:--socket' 'switch:--help'
    end
end
function __venom_echo_choices
    switch "$argv[1] $argv[2]"
        case '21 --style'
            printf '%s\n' 'plain' 'upper'
        case '24 --code'
            printf '%s\n' 'failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo'
        case '25 --code'
            printf '%s\n' 'failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo'
        case '28 --flag'
            printf '%s\n' 'true' 'false'
        case '28 --mode'
            printf '%s\n' 'fast' 'safe'
        case '29 --flag'
            printf '%s\n' 'true' 'false'
        case '29 --mode'
            printf '%s\n' 'fast' 'safe'
        case '30 --follow'
            printf '%s\n' 'true' 'false'
        case '35 --max-grant'
            printf '%s\n' 'none' 'read' 'write' 'respond' 'files' 'spawn' 'admin'
        case '36 --format'
            printf '%s\n' 'mcpServers' 'vscode' 'gemini' 'zed' 'codex' 'goose' 'claude-add'
        case '36 --max-grant'
            printf '%s\n' 'none' 'read' 'write' 'respond' 'files' 'spawn' 'admin'
        case '37 --format'
            printf '%s\n' 'mcpServers' 'vscode' 'gemini' 'zed' 'codex' 'goose' 'claude-add'
        case '37 --max-grant'
            printf '%s\n' 'none' 'read' 'write' 'respond' 'files' 'spawn' 'admin'
        case '39 --reload'
            printf '%s\n' 'true' 'false'
        case '41 --manager'
            printf '%s\n' 'systemd' 'launchd'
        case '41 --force'
            printf '%s\n' 'true' 'false'
        case '42 --manager'
            printf '%s\n' 'systemd' 'launchd'
        case '42 --force'
            printf '%s\n' 'true' 'false'
        case '45 --force'
            printf '%s\n' 'true' 'false'
        case '46 --force'
            printf '%s\n' 'true' 'false'
    end
end
function __venom_echo_kind
    for c in (__venom_echo_flags $argv[1])
        if test (string split -m1 : -- $c)[2] = "$argv[2]"
            string split -m1 : -- $c | head -n1
            return 0
        end
    end
    echo value
end

function __venom_echo_offer
    set -l cur $argv[1]
    set -l n (string length -- "$cur")
    for c in $argv[2..-1]
        if test (string sub -l $n -- "$c") = "$cur"
            printf '%s\n' $c
        end
    end
end

function __venom_echo_complete
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
            if test (__venom_echo_kind $node $w) != switch
                set pending 1
            end
        else
            set -l child (__venom_echo_child $node $w)
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
        if test (__venom_echo_kind $node $flag) = path
            set -l rest (string sub -s (math (string length -- "$prefix") + 1) -- "$cur")
            for p in (__fish_complete_path "$rest")
                printf '%s\n' "$prefix$p"
            end
            return 0
        end
        set -l kind (__venom_echo_kind $node $flag)
        if test -z "$prefix"; and test $kind != value
            return 0
        end
        set -l values
        for v in (__venom_echo_choices $node $flag)
            set -a values "$prefix$v"
        end
        __venom_echo_offer "$cur" $values
        return 0
    end
    set -l words
    if not string match -q -- '-*' $cur
        set words (__venom_echo_cmds $node)
    end
    if string match -q -- '-*' $cur; or test (count $words) -eq 0
        set words
        for c in (__venom_echo_flags $node)
            set -l parts (string split -m1 : -- $c)
            contains -- $parts[2] $used; and continue
            if test $parts[1] = bool
                set -a words "$parts[2]="
            else
                set -a words $parts[2]
            end
        end
    end
    __venom_echo_offer "$cur" $words
end
complete -c 'venom-echo' -f -a '(__venom_echo_complete)'
