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
got=$(in_pty "$CORDON" $LL -- sh -c "\"$PROBE\" openw \$(tty); \"$PROBE\" openw $other; echo done >\$(tty)" | tail -3 | tr '\n' ' ')
[ "$got" = "OK EACCES done " ] && ok "landlock: its own terminal reopens and is written, another is denied" ||
    not_ok "landlock: its own terminal reopens and is written, another is denied (got: $got)"
kill "$BG_PID" 2>/dev/null

done_testing
