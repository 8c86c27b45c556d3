#!/bin/bash
# The landlock backend where it has no namespace to lean on: the host's
# System V IPC, terminals, and processes that outlive the launcher. Each
# probe succeeds unsandboxed (the control) and is denied on the backend;
# the workspace workflow keeps working.
. "$(dirname "$0")/../integration/lib.sh"
LL="run --backend landlock --expose $T/bin"

# -- System V IPC: a 0600 segment of another process of the same user
key=$(printf '4c4c%04x' $(($$ & 0xffff)))
as_user "$PROBE" shm-remove "$key" >/dev/null 2>&1
check_out "control: a 0600 System V segment is created" "OK" as_user "$PROBE" shm-create "$key" "host secret"
check_out "control: it is readable unsandboxed" "host secret" as_user "$PROBE" shm-read "$key"
check_out "landlock: the host's segment cannot be looked up" "EPERM" cordon $LL -- "$PROBE" shm-read "$key"
check_out "landlock: nor overwritten" "EPERM" cordon $LL -- "$PROBE" shm-write "$key" "overwritten"
check_out "landlock: nor removed" "EPERM" cordon $LL -- "$PROBE" shm-remove "$key"
check_out "... and it is intact" "host secret" as_user "$PROBE" shm-read "$key"
check_out "linux: the IPC namespace hides it" "ENOENT" cordon run --expose "$T/bin" -- "$PROBE" shm-read "$key"
as_user "$PROBE" shm-remove "$key" >/dev/null 2>&1

# -- POSIX shared memory and named semaphores: /dev/shm is the host's here
shm=/dev/shm/cordon-test-$$
as_user sh -c "echo host shm >'$shm'"
check_out "control: a host process's /dev/shm object is readable unsandboxed" "host shm" as_user cat "$shm"
check_contains "landlock: it is not readable" "Permission denied" cordon $LL -- cat "$shm"
check_contains "landlock: nor writable" "Permission denied" cordon $LL -- sh -c "echo x >'$shm'"
check_out "... and it is intact" "host shm" cat "$shm"
# Landlock does not govern stat (nor access, readlink of a known name): a
# guessed name under a refused directory answers whether it exists, and its
# size, owner and times (a documented limit: the README's "cannot enforce"
# row, cordon check); its content stays refused. The linux backend shows no
# such directory at all.
check_out "landlock (a documented limit): a guessed host /dev/shm name can be stat'ed" "regular file 9" \
    cordon $LL -- stat -c '%F %s' "$shm"
check_contains "landlock: ... its content stays refused" "Permission denied" cordon $LL -- cat "$shm"
check_contains "landlock: ... and the directory cannot be listed" "Permission denied" cordon $LL -- ls /dev/shm
check_contains "linux: the name does not exist there" "No such file" cordon run -- stat -c '%F %s' "$shm"
check_contains "cordon check --backend landlock says so" "Landlock does not govern stat" \
    cordon check --backend landlock
rm -f "$shm"
sem='import multiprocessing as m; l = m.Lock(); l.acquire(); l.release(); print("semaphore OK")'
check_out "control: a named semaphore (Python multiprocessing's Lock) unsandboxed" "semaphore OK" as_user python3 -c "$sem"
check_contains "landlock: refused by default (EACCES)" "PermissionError" cordon $LL -- python3 -c "$sem"
check_out "landlock: ... works with --expose-rw /dev/shm" "semaphore OK" cordon $LL --quiet --expose-rw /dev/shm -- python3 -c "$sem"
check_out "linux: the sandbox's own /dev/shm" "semaphore OK" cordon run --quiet -- python3 -c "$sem"

# -- PATH: a host directory the sandbox does not show is left out of the
# command's PATH (it exists here, only refused: a lookup would stop at it)
mkdir -p "$T/hidden-bin" && ln -sf /usr/bin/python3 "$T/hidden-bin/python3" && chmod -R a+rX "$T/hidden-bin"
exe='import sys; print(sys.executable)'
check_out "control: unsandboxed, python3 is found in the first PATH entry" "$T/hidden-bin/python3" \
    as_user env PATH="$T/hidden-bin:/usr/bin:/bin" python3 -c "$exe"
PATH_BEFORE=$PATH
export PATH="$T/hidden-bin:/usr/bin:/bin"
check_out "landlock: the hidden entry is not in the command's PATH" "/usr/bin:/bin" cordon $LL --quiet -- sh -c 'echo $PATH'
check_out "landlock: ... so a PATH lookup finds the program it may run" "/usr/bin/python3" cordon $LL --quiet -- python3 -c "$exe"
check_contains "landlock: the note says so" "PATH entries not visible inside (left out of its PATH): $T/hidden-bin" \
    cordon $LL --verbose -- true
check_out "landlock: an exposed directory stays in PATH" "$T/hidden-bin:/usr/bin:/bin" \
    cordon $LL --quiet --expose "$T/hidden-bin" -- sh -c 'echo $PATH'
export PATH=$PATH_BEFORE

# -- terminals: another terminal of the same user (its typed input, and
# escape sequences written into it)
: >"$T/pty-name"; chmod 666 "$T/pty-name"
bg_as_user /usr/bin/python3 -c 'import os, pty, sys, time
m, s = pty.openpty()
open(sys.argv[1], "w").write(os.ttyname(s) + "\n")
time.sleep(120)' "$T/pty-name" </dev/null >/dev/null 2>&1
for _ in $(seq 50); do [ -s "$T/pty-name" ] && break; sleep 0.1; done
other=$(cat "$T/pty-name")
check_out "control: the other terminal $other opens unsandboxed" "OK" as_user "$PROBE" openw "$other"
check_out "landlock: another terminal cannot be opened for writing" "EACCES" cordon $LL -- "$PROBE" openw "$other"
check_out "landlock: nor for reading" "EACCES" cordon $LL -- "$PROBE" read "$other"
check_out "landlock: no /dev/pts listing" "EACCES" cordon $LL -- sh -c 'ls /dev/pts >/dev/null 2>&1 && echo OK || echo EACCES'
# the command's own terminal, as an agent's terminal tool gives it (script(1))
in_pty() { # CMD... run in a new pty of the test user's, as cordon's stdio
    (cd "$W" && as_user script -qec "$(printf '%q ' "$@")" /dev/null </dev/null | tr -d '\r')
}
# (on its own terminal: new by default, the caller's with --no-pty; the
# ^@ is the echo of what script(1) sends at the end of its stdin)
# (as root the command is the sandbox user: the caller's terminal, which it
# is given as it is with --no-pty, is root's and does not reopen by name;
# its own, --pty's, is the sandbox user's)
for pty in --pty --no-pty; do
    got=$(in_pty "$CORDON" $LL $pty -- sh -c "\"$PROBE\" openw \$(tty); \"$PROBE\" openw $other; echo done >\$(tty)" |
        tail -3 | sed 's/\^@//g' | tr '\n' ' ')
    if is_root_run && [ $pty = --no-pty ]; then
        case $got in "EACCES EACCES "*) ok "landlock $pty, as the sandbox user: the caller's terminal (root's) does not reopen by name, another is denied" ;;
            *) not_ok "landlock $pty, as the sandbox user: the caller's terminal does not reopen (got: $got)" ;; esac
    else
        [ "$got" = "OK EACCES done " ] && ok "landlock $pty: its own terminal reopens and is written, another is denied" ||
            not_ok "landlock $pty: its own terminal reopens and is written, another is denied (got: $got)"
    fi
done
kill "$BG_PID" 2>/dev/null

# -- the whole process tree dies with the command and with the launcher,
# without a pid namespace: double forks and setsid included
cd "$W"
gone() { # MARKER: no process has it in its command line within 2 s
    for _ in $(seq 20); do pgrep -f "$1" >/dev/null || return 0; sleep 0.1; done
    return 1
}
escape="(setsid bash -c 'exec -a \$0 sleep 30' MARKER </dev/null >/dev/null 2>&1 &); sleep 0.2"
m=cordon-ll-ctl-$$
as_user sh -c "${escape//MARKER/$m}"
check "control: unsandboxed, a setsid'd double-forked sleep outlives its parent" pgrep -f "$m"
pkill -f "$m"
m=cordon-ll-end-$$
check "landlock: the command starts a setsid'd double-forked sleep" cordon $LL -- sh -c "${escape//MARKER/$m}"
check "landlock: ... which is gone when the command ends" gone "$m"
m=cordon-ll-kill-$$
bg_as_user env HOME="$H" "$CORDON" $LL -- sh -c "${escape//MARKER/$m}; sleep 29.$$"
for _ in $(seq 50); do pgrep -f "$m" >/dev/null && break; sleep 0.1; done
check "landlock: the escaped sleep runs while the launcher lives" pgrep -f "$m"
{ kill -KILL "$BG_PID"; wait "$BG_PID"; } 2>/dev/null
check "landlock: launcher SIGKILLed: the escaped sleep is gone within 2 s" gone "$m"
check "landlock: ... and so is the command" gone "sleep 29.$$"
m=cordon-ll-timeout-$$
check_status "landlock: --timeout ends the command" 124 cordon $LL --timeout 0.5 -- sh -c "${escape//MARKER/$m}; sleep 30"
check "landlock: ... and what escaped its session" gone "$m"
check_out "landlock: the command cannot signal its supervisor" "EPERM" cordon $LL -- sh -c "\"$PROBE\" kill \$PPID 9"

# -- the workspace workflow keeps working
ws=$H/.cordon/workspace
mkdir -p "$T/tarsrc/pkg/bin" && printf '#!/bin/sh\necho from-tar\n' >"$T/tarsrc/pkg/bin/run" && chmod 755 "$T/tarsrc/pkg/bin/run"
tar -C "$T/tarsrc" -cf "$T/pkg.tar" pkg && chmod 644 "$T/pkg.tar"
check_out "landlock: chmod +x and run a script, touch, mkdir -m 700, tar x in the workspace" "hi 700 from-tar" \
    cordon $LL --expose "$T/pkg.tar" -- sh -c "cd '$ws' && printf '#!/bin/sh\necho hi\n' >s.sh && chmod +x s.sh &&
        touch -d 2020-01-01 s.sh && mkdir -m 700 d && tar xf '$T/pkg.tar' && echo \$(./s.sh) \$(stat -c %a d) \$(pkg/bin/run)"
check "landlock: ... and the work is there" test -x "$ws/s.sh" -a -d "$ws/d"
check "landlock: check says what only the linux backend gives" sh -c \
    "'$CORDON' check --backend landlock | grep -q 'only the linux backend gives' && '$CORDON' check --backend landlock | grep -q 'no System V IPC'"
"$CORDON" check --backend landlock | sed -n '/only the linux backend gives/,/^[^ ]/p' >"$T/lacks"
if grep -q '/dev/shm' "$T/lacks" && grep -q 'abstract unix sockets' "$T/lacks" &&
    ! grep -qi 'metadata (mode\|pathname unix sockets' "$T/lacks"; then
    ok "landlock: ... and not what the call supervisor now enforces (metadata, host unix sockets)"
else not_ok "landlock: ... and not what the call supervisor now enforces (metadata, host unix sockets)"; diag <"$T/lacks"; fi

done_testing
