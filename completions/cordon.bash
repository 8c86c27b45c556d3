# bash completion for cordon                            -*- shell-script -*-
# SPDX-License-Identifier: MIT
# The flags are those of `cordon run --help` (tests/integration/docs.sh
# checks that they are the same).

_cordon_run_flags='--config --profile --expose --expose-ro --expose-rw --network
 --allow-net --home --workspace --backend --protect --landlock --user --inherit --set
 --pass-env --exclude --include-only --ignore-default-excludes
 --keep-default-excludes --timeout --kill-after --memory --pids --cpus
 --cpu-time --nofile --fsize --tmp-size --limits-best-effort -C --cwd
 --log-plan --stats --stats-fd --control-fd --die-with-parent --explain --explain-on-failure --quiet --verbose --pty --no-pty'

_cordon()
{
    local cur prev cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --) # the command and its arguments: complete as a command line
            if ((i + 1 == COMP_CWORD)); then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return ;;
        run | plan | env | check | profiles | learn) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
        esac
    done
    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W 'run plan env check profiles learn --version --help' -- "$cur"))
        return
    fi
    case $prev in
    --backend) COMPREPLY=($(compgen -W 'auto linux landlock seatbelt windows' -- "$cur")); return ;;
    --network) COMPREPLY=($(compgen -W 'none loopback full proxy' -- "$cur")); return ;;
    --landlock) COMPREPLY=($(compgen -W 'required best_effort off' -- "$cur")); return ;;
    --user) COMPREPLY=($(compgen -W 'auto sandbox caller' -- "$cur")); return ;;
    --inherit) COMPREPLY=($(compgen -W 'core all none' -- "$cur")); return ;;
    --profile)
        COMPREPLY=($(compgen -W "$(cordon profiles 2>/dev/null | sed -n 's/^\([^ ]*\) (.*)$/\1/p')" -- "$cur"))
        return ;;
    --config | --stats) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --home | --workspace | --cwd | -C) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --expose | --expose-ro | --expose-rw | --protect) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --allow-net | --set | --pass-env | --exclude | --include-only | --timeout | --kill-after | \
        --memory | --pids | --cpus | --cpu-time | --nofile | --fsize | --tmp-size | --stats-fd | --control-fd)
        return ;;
    esac
    case $cmd in
    check) COMPREPLY=($(compgen -W '--config --backend --json --help' -- "$cur")) ;;
    profiles) COMPREPLY=($(compgen -W '--config --help' -- "$cur")) ;;
    plan) COMPREPLY=($(compgen -W "$_cordon_run_flags --json --help --" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$_cordon_run_flags --help --" -- "$cur")) ;;
    esac
}
complete -F _cordon cordon
