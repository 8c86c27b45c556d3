#!/bin/bash
# What a coding agent's shell tool hits on its first run, each checked
# against the same command without cordon (the control): the locale and the
# terminal, the usual /etc, toolchains and git identity through profiles,
# a terminal of its own.
. "$(dirname "$0")/lib.sh"
unset LC_ALL LC_CTYPE LANGUAGE

# Both sides of one probe: unsandboxed it prints WANT, sandboxed too.
both_out() { # DESC WANT CMD...
    local d=$1 want=$2; shift 2
    check_out "$d (control, without cordon)" "$want" as_user "$@"
    check_out "$d" "$want" cordon run -- "$@"
}

# -- 1. the locale and the terminal are kept by the core template
u8=$(printf 'h\303\251llo w\303\266rld')
export LANG=C.UTF-8 TERM=xterm-256color TZ=UTC
both_out "wc -m counts characters of UTF-8 text under LANG=C.UTF-8" 11 sh -c "printf '%s' '$u8' | wc -m"
both_out "TERM, LANG and TZ reach the command" "xterm-256color C.UTF-8 UTC" sh -c 'echo "$TERM $LANG $TZ"'
check_out "... and LC_* with them" "C.UTF-8" env LC_CTYPE=C.UTF-8 "$CORDON" run -- sh -c 'echo "$LC_CTYPE"'
check_out "--inherit none still drops them" "" cordon run --inherit none -- /bin/sh -c 'echo $LANG$TERM$TZ'

# -- 2. /etc: what describes the system, never credentials
os_id=$(. /etc/os-release && echo "$ID")
both_out ". /etc/os-release (a link into /usr/lib on Debian)" "$os_id" sh -c '. /etc/os-release && echo "$ID"'
both_out "getent services https" "https 443/tcp" sh -c 'getent services https | tr -s " "'
both_out "getent protocols tcp" "tcp 6 TCP" sh -c 'getent protocols tcp | tr -s " "'
if command -v python3 >/dev/null; then
    both_out "python3 socket.getservbyname('https')" 443 python3 -c 'import socket; print(socket.getservbyname("https"))'
else not_ok "python3 is missing (scripts/deps.sh test installs it)"; fi
if command -v man >/dev/null && man -w ls >/dev/null 2>&1; then
    both_out "man -w ls (reads /etc/manpath.config)" "$(man -w ls)" man -w ls
else not_ok "man -w ls needs man-db and coreutils' pages (scripts/deps.sh test)"; fi
both_out "/etc/profile and /etc/bash.bashrc are there for login shells" yes \
    sh -c 'test -r /etc/profile && test -r /etc/bash.bashrc && echo yes'
for f in /etc/shadow /etc/sudoers /etc/machine-id /etc/environment; do
    [ -e $f ] || continue
    check "$f exists on the host (control)" as_user test -e $f
    check_fails "$f is not visible inside" cordon run -- test -e $f
done
check "os-release inside is read-only" cordon run -- sh -c '! sh -c "echo x >>/etc/os-release" 2>/dev/null'

done_testing
