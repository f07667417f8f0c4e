# fish completion for venom-echo (generated from the verb schema; do not edit)
function __venom_echo_child
    switch "$argv[1] $argv[2]"
        case '0 config'
            echo 1
        case '0 config.check'
            echo 3
        case '0 config.get'
            echo 5
        case '0 config.reload'
            echo 7
        case '0 config.schema'
            echo 9
        case '0 config.set'
            echo 11
        case '0 doctor'
            echo 12
        case '0 echo'
            echo 13
        case '0 echo.exit'
            echo 15
        case '0 echo.fail'
            echo 17
        case '0 echo.repeat'
            echo 19
        case '0 echo.types'
            echo 21
        case '0 events'
            echo 22
        case '0 manifest'
            echo 23
        case '0 mcp'
            echo 24
        case '0 ping'
            echo 25
        case '0 serve'
            echo 26
        case '0 skill'
            echo 27
        case '0 skill.install'
            echo 29
        case '1 check'
            echo 2
        case '1 get'
            echo 4
        case '1 reload'
            echo 6
        case '1 schema'
            echo 8
        case '1 set'
            echo 10
        case '13 exit'
            echo 14
        case '13 fail'
            echo 16
        case '13 repeat'
            echo 18
        case '13 types'
            echo 20
        case '27 install'
            echo 28
    end
end
function __venom_echo_cmds
    switch "$argv[1]"
        case 0
            printf '%s\n' 'config' 'config.check' 'config.get' 'config.reload' 'config.schema' 'config.set' 'doctor' 'echo' 'echo.exit' 'echo.fail' 'echo.repeat' 'echo.types' 'events' 'manifest' 'mcp' 'ping' 'serve' 'skill' 'skill.install'
        case 1
            printf '%s\n' 'check' 'get' 'reload' 'schema' 'set'
        case 13
            printf '%s\n' 'exit' 'fail' 'repeat' 'types'
        case 27
            printf '%s\n' 'install'
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
            printf '%s\n' 'value:--key' 'switch:--json' 'path:--socket' 'switch:--help'
        case 5
            printf '%s\n' 'value:--key' 'switch:--json' 'path:--socket' 'switch:--help'
        case 6
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 7
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 8
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 9
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 10
            printf '%s\n' 'value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help'
        case 11
            printf '%s\n' 'value:--key' 'value:--value' 'switch:--json' 'path:--socket' 'switch:--help'
        case 12
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 13
            printf '%s\n' 'value:--text' 'value:--style' 'switch:--json' 'path:--socket' 'switch:--help'
        case 14
            printf '%s\n' 'value:--status' 'switch:--json' 'path:--socket' 'switch:--help'
        case 15
            printf '%s\n' 'value:--status' 'switch:--json' 'path:--socket' 'switch:--help'
        case 16
            printf '%s\n' 'value:--code' 'switch:--json' 'path:--socket' 'switch:--help'
        case 17
            printf '%s\n' 'value:--code' 'switch:--json' 'path:--socket' 'switch:--help'
        case 18
            printf '%s\n' 'value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help'
        case 19
            printf '%s\n' 'value:--text' 'value:--count' 'value:--interval-ms' 'switch:--json' 'path:--socket' 'switch:--help'
        case 20
            printf '%s\n' 'value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help'
        case 21
            printf '%s\n' 'value:--count' 'value:--ratio' 'bool:--flag' 'value:--tags' 'value:--nested' 'value:--mode' 'switch:--json' 'path:--socket' 'switch:--help'
        case 22
            printf '%s\n' 'value:--types' 'value:--cursor' 'bool:--follow' 'switch:--json' 'path:--socket' 'switch:--help'
        case 23
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 24
            printf '%s\n' 'value:--max-grant' 'switch:--json' 'path:--socket' 'switch:--help'
        case 25
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 26
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 27
            printf '%s\n' 'switch:--json' 'path:--socket' 'switch:--help'
        case 28
            printf '%s\n' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help'
        case 29
            printf '%s\n' 'value:--dir' 'bool:--force' 'switch:--json' 'path:--socket' 'switch:--help'
    end
end
function __venom_echo_choices
    switch "$argv[1] $argv[2]"
        case '13 --style'
            printf '%s\n' 'plain' 'upper'
        case '16 --code'
            printf '%s\n' 'failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo'
        case '17 --code'
            printf '%s\n' 'failed.echo' 'not_found.echo' 'conflict.echo_busy' 'timeout.echo'
        case '20 --flag'
            printf '%s\n' 'true' 'false'
        case '20 --mode'
            printf '%s\n' 'fast' 'safe'
        case '21 --flag'
            printf '%s\n' 'true' 'false'
        case '21 --mode'
            printf '%s\n' 'fast' 'safe'
        case '22 --follow'
            printf '%s\n' 'true' 'false'
        case '24 --max-grant'
            printf '%s\n' 'none' 'read' 'write' 'respond' 'files' 'spawn' 'admin'
        case '28 --force'
            printf '%s\n' 'true' 'false'
        case '29 --force'
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
