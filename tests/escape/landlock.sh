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

done_testing
