#!/bin/bash
# Defence in depth (issue 4): seccomp, Landlock, protected paths, the
# landlock backend. Each denial with its negative control.
. "$(dirname "$0")/lib.sh"
me=$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0)
mkdir -p "$T/rw" "$T/data"; echo secret >"$T/data/file"; echo x >"$T/rw/f"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/rw" "$T/data"

# -- seccomp: every listed call is refused, on both backends
calls="keyctl add_key request_key bpf perf_event_open userfaultfd io_uring_setup io_uring_enter io_uring_register
kexec_load kexec_file_load init_module finit_module delete_module acct swapon swapoff reboot mount umount2
pivot_root move_mount open_tree fsopen fsmount setns unshare clone-newns open_by_handle_at syslog settimeofday
clock_settime adjtimex personality"
for backend in linux landlock; do
    bad=""
    for c in $calls; do
        got=$(cordon run --backend $backend -- "$PROBE" syscall $c 2>&1)
        [ "$got" = EPERM ] || bad="$bad $c=$got"
    done
    got=$(cordon run --backend $backend -- "$PROBE" syscall clone3 2>&1)
    [ "$got" = ENOSYS ] || bad="$bad clone3=$got"
    [ -z "$bad" ] && ok "$backend: every denied syscall returns EPERM (clone3: ENOSYS)" || not_ok "$backend: denied syscalls:$bad"
done
# controls: unsandboxed as root, no probe gets EPERM (each reaches the
# kernel's own checks: a bad argument, a missing file). As the user, those
# that check a capability first are EPERM unsandboxed too, and inside, where
# no capability is left, EPERM is theirs as well as the filter's: the
# filter alone, call by call, is test-seccomp's.
bad=""
for c in $calls; do
    got=$("$PROBE" syscall $c 2>&1)
    case $got in EPERM|E\?|"") bad="$bad $c=$got";; esac
done
got=$("$PROBE" syscall clone3 2>&1); [ "$got" = ENOSYS ] && bad="$bad clone3=$got"
[ -z "$bad" ] && ok "control: as root unsandboxed no probe is refused" || not_ok "control: as root unsandboxed, refused:$bad"
ctl=$(as_user "$PROBE" syscall keyctl)
[ "$ctl" = OK ] && ok "control: keyctl works unsandboxed" || not_ok "control: keyctl works unsandboxed ($ctl)"

# -- set-id bits
check_out "control: chmod u+s works unsandboxed" "OK" as_user "$PROBE" chmod-suid "$T/rw/f"
chmod 644 "$T/rw/f"
for backend in linux landlock; do
    check_out "$backend: chmod u+s in an rw dir fails" "EPERM" cordon run --backend $backend --expose "$T/rw:rw" -- "$PROBE" chmod-suid "$T/rw/f"
    check_out "$backend: creating a setgid file fails" "EPERM" cordon run --backend $backend --expose "$T/rw:rw" -- "$PROBE" create-suid "$T/rw/g"
done
check "... and the file is not setuid on the host" test ! -u "$T/rw/f"

# -- TIOCSTI under a pty (script's EOF for its stdin may reach the command's
# own terminal as a NUL, echoed "^@": removed). The control must succeed:
# Linux's own refusal (dev.tty.legacy_tiocsti=0) would be EIO, not EPERM.
on_pty() {
    local u=$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0) g=$( [ "$TEST_AS" = user ] && echo $TEST_GID || echo 0)
    (cd "$W" && script -qec "$(printf '%q ' setpriv --reuid=$u --regid=$g --clear-groups env HOME="$H" "$@")" /dev/null </dev/null) | tr -d '\r#' | sed 's/\^@//g' | grep . | tail -1
}
if command -v script >/dev/null; then
    ctl=$(on_pty "$PROBE" tiocsti)
    [ "$ctl" = OK ] && ok "control: TIOCSTI works on a pty unsandboxed" ||
        not_ok "control: TIOCSTI works on a pty unsandboxed ($ctl, dev.tty.legacy_tiocsti=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null))"
    got=$(on_pty "$CORDON" run -- "$PROBE" tiocsti)
    [ "$got" = EPERM ] && ok "TIOCSTI injection under a pty fails ($got)" || not_ok "TIOCSTI injection under a pty fails ($got)"
else
    skip "TIOCSTI under a pty" "script(1) missing"
fi

# -- the session keyring
if command -v keyctl >/dev/null; then
    out=$(cd "$W" && as_user keyctl session - sh -c 'id=$(keyctl add user cordon-test sk-keyring-secret @s) && "$0" keyring-read $id; "$1" run -- "$0" keyring-read $id' "$PROBE" "$CORDON" 2>&1)
    case "$out" in *OK*EPERM) ok "a key in the launcher's session keyring is not readable inside";;
        *) not_ok "a key in the launcher's session keyring is not readable inside"; echo "$out" | diag;; esac
else
    skip "session keyring" "keyctl (keyutils) missing"
fi

# -- Landlock behind the mounts: read-only binds mounted writable on purpose.
# (Landlock rights follow the sandbox's path hierarchy, so the bind is placed
# outside the writable /tmp: /opt/cordon-data.)
check_out "control: with rw-binds and Landlock off, a ro expose is writable" "OK" \
    env CORDON_DEBUG=rw-binds bash -c "cd '$W' && $(declare -f as_user); TEST_AS=$TEST_AS TEST_UID=$TEST_UID TEST_GID=$TEST_GID H='$H' as_user '$CORDON' run --landlock off --expose '$T/data:/opt/cordon-data' -- '$PROBE' create /opt/cordon-data/landlock-off"
check_out "Landlock denies the write even when the bind is writable" "EACCES" \
    env CORDON_DEBUG=rw-binds bash -c "cd '$W' && $(declare -f as_user); TEST_AS=$TEST_AS TEST_UID=$TEST_UID TEST_GID=$TEST_GID H='$H' as_user '$CORDON' run --expose '$T/data:/opt/cordon-data' -- '$PROBE' create /opt/cordon-data/landlock-on"
check "... and nothing was written" test ! -e "$T/data/landlock-on"
check "... while the control did write" test -e "$T/data/landlock-off"

# -- protected paths
repo=$T/repo; mkdir -p "$repo/.git/hooks"; echo "[core]" >"$repo/.git/config"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$repo"
check_out "control: .git/hooks is writable unsandboxed" "OK" as_user "$PROBE" create "$repo/.git/hooks/control"
rm -f "$repo/.git/hooks/control"
check_out "the workspace itself is writable" "OK" cordon run --expose "$repo:rw" -- "$PROBE" create "$repo/file"
check_out ".git/hooks/x cannot be created in an rw workspace" "EROFS" cordon run --expose "$repo:rw" -- "$PROBE" create "$repo/.git/hooks/x"
check_out ".git/config cannot be changed" "EROFS" cordon run --expose "$repo:rw" -- "$PROBE" append "$repo/.git/config" "[core] hooksPath = /tmp"
check_out ".git/objects stays writable (git still works)" "OK" cordon run --expose "$repo:rw" -- "$PROBE" mkdir "$repo/.git/objects"
rmdir "$repo/.git/hooks"
check_out "a missing .git/hooks cannot be created" "EROFS" cordon run --expose "$repo:rw" -- "$PROBE" create "$repo/.git/hooks/x"
check "... and its placeholder is gone afterwards" test ! -e "$repo/.git/hooks"
out=$(cordon run --expose "$repo:rw" --expose "$T/bin" --protect "$repo/.env" -- sh -c "\"$PROBE\" create \"$repo/.env\"; \"$PROBE\" write \"$repo/.env\" x" 2>&1 | tr '\n' ' ')
case "$out" in "EEXIST EROFS ") ok "a missing --protect path cannot be created ($out)";; *) not_ok "a missing --protect path cannot be created ($out)";; esac
check "... and nothing is left on the host" test ! -e "$repo/.env"
check_out "control: without --protect the file is writable" "OK" cordon run --expose "$repo:rw" -- "$PROBE" append "$repo/file"
check_out "an existing --protect path is read-only" "EROFS" cordon run --expose "$repo:rw" --protect "$repo/file" -- "$PROBE" append "$repo/file"
check_out "the landlock backend, --quiet: no word that it cannot protect paths" "" \
    cordon run --quiet --backend landlock --expose "$repo:rw" -- true
rm -f "$H"/.cordon/logs/said-*
check_contains "the landlock backend says it cannot protect paths" "cannot keep" cordon run --backend landlock --expose "$repo:rw" -- true
check_out "... once per instance: not on the next run" "" cordon run --backend landlock --expose "$repo:rw" -- true
check_contains "... which cordon plan still shows" "cannot keep" cordon plan --backend landlock --expose "$repo:rw" -- true
check_contains "... and a new instance is told again" "cannot keep" \
    cordon run --home "$T/other-home" --backend landlock --expose "$repo:rw" -- true

# -- the landlock backend as root: the sandbox user gets search on the
# directories above each exposed path (ACLs), once a directory however
# many paths share it
if [ "$TEST_AS" = root ]; then
    anc=$T/anc
    mkdir -p "$anc/x/ws" "$anc/x/e1" "$anc/y/e2"
    echo one >"$anc/x/e1/f"; echo two >"$anc/y/e2/g"
    chmod 700 "$anc" "$anc/x" "$anc/y"; chmod 755 "$anc/x/ws" "$anc/x/e1" "$anc/y/e2"
    check_out "control: another user cannot reach paths below 0700 directories" "denied" \
        sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups cat "$1" >/dev/null 2>&1 && echo read || echo denied' \
        sh "$anc/x/e1/f"
    anc_run() { CWD=$anc/x/ws cordon run --backend landlock --workspace "$anc/x/ws" "$@"; }
    check_out "landlock as root: two exposures and the workspace under the same and other 0700 directories are reachable" \
        "one two wrote" anc_run --expose "$anc/x/e1" --expose "$anc/y/e2" -- \
        sh -c 'echo $(cat "$1/x/e1/f" "$1/y/e2/g"; touch "$1/x/ws/t" && echo wrote)' sh "$anc"
    check_out "... by search alone: the directories above stay unlistable" "denied" \
        anc_run -- sh -c 'ls "$1/x" >/dev/null 2>&1 && echo listed || echo denied' sh "$anc"
fi

# -- abstract unix sockets
name=cordon-test-$$-$RANDOM
bg_as_user "$PROBE" abstract-listen "$name" >"$T/abs.out" 2>&1
for i in $(seq 30); do grep -q LISTENING "$T/abs.out" && break; sleep 0.1; done
check_out "control: a host abstract socket is reachable" "OK" as_user "$PROBE" abstract-connect "$name"
check_out "network none: a host abstract socket is unreachable" "ECONNREFUSED" cordon run -- "$PROBE" abstract-connect "$name"
if "$CORDON" check --json 2>/dev/null | grep -q '"landlock_scopes": true'; then
    check_out "network full: Landlock scopes abstract sockets" "EPERM" cordon run --network full -- "$PROBE" abstract-connect "$name"
else
    check_status "network full: refused without Landlock's scopes (Linux < 6.12)" 125 cordon run --network full -- "$PROBE" abstract-connect "$name"
fi
check_out "landlock backend: a host abstract socket is unreachable" "EPERM" cordon run --backend landlock -- "$PROBE" abstract-connect "$name"

# -- the landlock backend
check_out "control: the host file is readable unsandboxed" "secret" as_user "$PROBE" read "$T/data/file"
check_out "landlock: a host file outside the allowed paths is denied" "EACCES" cordon run --backend landlock -- "$PROBE" read "$T/data/file"
check_out "landlock: an exposed file is readable" "secret" cordon run --backend landlock --expose "$T/data" -- "$PROBE" read "$T/data/file"
check_out "landlock: a ro expose is not writable" "EACCES" cordon run --backend landlock --expose "$T/data" -- "$PROBE" create "$T/data/x"
check_out "landlock: the workspace is writable" "OK" cordon run --backend landlock -- "$PROBE" create "$H/.cordon/workspace/ll"
check_out "control: the host /tmp is writable unsandboxed" "OK" as_user "$PROBE" create "/tmp/cordon-ll-ctl-$$"
rm -f "/tmp/cordon-ll-ctl-$$"
check_out "landlock: the host /tmp is not writable" "EACCES" cordon run --backend landlock -- "$PROBE" create "/tmp/cordon-ll-$$"
check_out "landlock: socket(AF_INET) fails with network none" "EPERM" cordon run --backend landlock -- "$PROBE" socket inet
check_out "landlock: socket(AF_UNIX) works" "OK" cordon run --backend landlock -- "$PROBE" socket unix
check_out "landlock: socket(AF_INET) works with network full" "OK" cordon run --backend landlock --network full -- "$PROBE" socket inet
check_out "landlock: the markers are set" "landlock 1" cordon run --backend landlock -- sh -c 'echo $CORDON_SANDBOX $CORDON_SANDBOX_NETWORK_DISABLED'
check_out "linux: the markers are set" "linux 1" cordon run -- sh -c 'echo $CORDON_SANDBOX $CORDON_SANDBOX_NETWORK_DISABLED'
bg_as_user sleep 300 >/dev/null 2>&1
check_out "control: a host process can be signalled unsandboxed" "OK" as_user "$PROBE" kill "$BG_PID" 0
check_out "landlock: a host process cannot be signalled" "EPERM" cordon run --backend landlock -- "$PROBE" kill "$BG_PID" 0
check_out "control: the parent's /proc/PID/environ is readable unsandboxed" "OK" as_user sh -c "\"$PROBE\" read /proc/\$\$/environ >/dev/null && echo OK"
check_out "landlock: the launcher's /proc/PID/environ is denied" "EACCES" cordon run --backend landlock --expose "$T/bin" -- sh -c "\"$PROBE\" read /proc/\$PPID/environ"
check_out "landlock: remapping is refused" "125" sh -c "cd '$W' && $(declare -f as_user); TEST_AS=$TEST_AS TEST_UID=$TEST_UID TEST_GID=$TEST_GID H='$H' as_user '$CORDON' run --backend landlock --expose '$T/data:/elsewhere' -- true >/dev/null 2>&1; echo \$?"
is_root_run && check_fails "control: root has capabilities unsandboxed" grep -q 'CapEff:.0000000000000000' /proc/self/status
check_out "landlock: capabilities are cleared" "0000000000000000" cordon run --backend landlock -- sh -c 'grep CapEff /proc/self/status | cut -f2'
check_out "control: core dumps are allowed unsandboxed" "unlimited" as_user sh -c 'ulimit -c unlimited 2>/dev/null; ulimit -c'
for backend in linux landlock; do
    check_out "$backend: no core dumps (RLIMIT_CORE 0, hard)" "0 0" cordon run --backend $backend -- sh -c 'ulimit -c unlimited 2>/dev/null; echo $(ulimit -c) $(ulimit -Hc)'
done
check_contains "check names the Landlock ABI" "landlock: ABI" cordon check
done_testing
