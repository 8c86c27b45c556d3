#!/bin/bash
# cordon inside a container's seccomp profile that refuses the keyring calls,
# and one that refuses only keyctl (container.sh runs the engines' own
# profiles with runc; tests/helpers/container-exec.c builds this one: a read-only root,
# Docker's default capabilities, no_new_privs, a seccomp filter that refuses
# new namespaces, mount and the keyring calls). There the linux backend
# cannot run (no user namespaces): `cordon check` says what is missing and
# points to --backend landlock, which runs. The keyring calls refused from
# outside are not a reason to fail: the command cannot reach a keyring
# either. What an attacker (or a weaker profile) would use, each tested:
# - a profile that refuses keyctl only: add_key and request_key still
#   reach the launcher's session keyring, so cordon still fails closed;
# - the command inside: keyctl, add_key and request_key refused all the same;
# - the filesystem rules of the landlock backend hold there (a write
#   outside the writable paths refused).
. "$(dirname "$0")/lib.sh"

cc -O2 -Wall -Werror -o "$T/bin/container-exec" "$TOP/tests/helpers/container-exec.c" ||
    { not_ok "build container-exec"; echo "1..$_n"; exit 1; }
mkdir -p "$T/ctr" && chmod 777 "$T/ctr"
ctr() { (cd "$W" && as_user "$T/bin/container-exec" "$T" "$@"); }
incordon() { ctr "$CORDON" "$@"; }

# negative controls: the environment is what it claims
check_contains "control: the container's root is read-only" "EROFS" ctr "$PROBE" create /cordon-ctr-test
check_contains "control: the container refuses keyctl" "EPERM" ctr "$PROBE" syscall keyctl
check_contains "control: ... add_key" "EPERM" ctr "$PROBE" syscall add_key
check_contains "control: ... and user namespaces" "Operation not permitted" ctr unshare -U true
check_contains "control: outside it, keyctl is allowed" "OK" as_user "$PROBE" syscall keyctl

# cordon check there
incordon check >"$T/check" 2>&1
check_contains "cordon check: the linux backend cannot run there" "backend linux: cannot run" cat "$T/check"
check_contains "cordon check: ... because user namespaces are refused, with the fix" "--backend landlock" cat "$T/check"
check_contains "cordon check: says the keyrings are refused, and that runs go without one" \
    "keyrings: refused here" cat "$T/check"
check_contains "cordon check --backend landlock: can run there" "backend landlock: can run" \
    incordon check --backend landlock
check_contains "cordon check --json: keyrings_refused" '"keyrings_refused": true' incordon check --json
check_contains "cordon check --json outside: the keyrings are reachable" '"keyrings_refused": false' \
    as_user "$CORDON" check --json
check_fails "cordon check outside: no keyring line" grep -q keyrings: <(as_user "$CORDON" check 2>&1)

# runs there
check_out "the landlock backend runs a command there" "hello landlock" \
    incordon run --backend landlock -- sh -c 'echo hello $CORDON_SANDBOX'
check_status "the linux backend refuses to run there (125), it does not run unisolated" 125 \
    incordon run --backend linux -- "$PROBE" create "$T/ctr/ran-unisolated"
check_fails "... and the command did not run" test -e "$T/ctr/ran-unisolated"
for call in keyctl add_key request_key; do
    check_contains "inside, $call is refused" "EPERM" incordon run --backend landlock -- "$PROBE" syscall $call
done
check_contains "the landlock backend's filesystem rules hold there (a write outside refused)" "EACCES" \
    incordon run --backend landlock -- "$PROBE" create "$T/ctr/outside"
check_fails "... and nothing was written" test -e "$T/ctr/outside"

# a profile refusing keyctl but not add_key/request_key: still fail closed
check_contains "control: keyctl only refused: add_key is allowed" "ENODEV" \
    env CONTAINER_ONLY_KEYCTL=1 "$T/bin/container-exec" "$T" "$PROBE" syscall add_key
only() { (cd "$W" && as_user env CONTAINER_ONLY_KEYCTL=1 "$T/bin/container-exec" "$T" "$CORDON" "$@"); }
check_status "with keyctl only refused, cordon still fails closed (125)" 125 \
    only run --backend landlock -- "$PROBE" create "$T/ctr/ran-partial"
cp "$T/.out" "$T/partial.out"
check_contains "... naming the session keyring and keyctl's error" \
    "creating a session keyring: Operation not permitted" cat "$T/partial.out"
check_fails "... and the command did not run" test -e "$T/ctr/ran-partial"
check_fails "cordon check there does not claim the keyrings are refused" grep -q "keyrings: refused" \
    <(only check 2>&1)

echo "1..$_n"
