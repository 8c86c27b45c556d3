#!/bin/bash
# The seatbelt backend from the CLI: `cordon plan --backend seatbelt` shows
# the profile and its -D parameters on any host; `cordon run` refuses on
# Linux (exit 125, the command never runs), except in a build made with
# -Dseatbelt_standin=true, where a stand-in for sandbox-exec runs it (and
# does not isolate it: only the code path is tested).
. "$(dirname "$0")/lib.sh"

json() { # FILE PYTHON-EXPRESSION-ON-o: ok when it is true
    python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$@"
}

ws="$T/proj/we\"ird (deny default) name"
mkdir -p "$ws"
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$ws"

cordon plan --backend seatbelt --workspace "$ws" -- true >"$T/plan.txt" 2>&1
st=$?
if [ $st -eq 0 ] && grep -qx 'seatbelt profile (sandbox-exec -p):' "$T/plan.txt" &&
    grep -qx '(deny default)' "$T/plan.txt" && grep -qx "  WORKSPACE=/private$ws" "$T/plan.txt"; then
    ok "cordon plan --backend seatbelt prints the profile and its parameters"
else
    not_ok "cordon plan --backend seatbelt prints the profile and its parameters (status $st)"; diag <"$T/plan.txt"
fi

cordon plan --backend seatbelt --json --workspace "$ws" --network loopback -- true >"$T/plan.json" 2>"$T/err"
check "the JSON plan has the profile and the parameters, the odd path only among them" \
    json "$T/plan.json" "o['backend'] == 'seatbelt' and '(deny default)' in o['seatbelt']['profile']
        and o['seatbelt']['parameters']['WORKSPACE'] == '/private' + sys.argv[3]
        and 'we\"ird' not in o['seatbelt']['profile'] and 'localhost:*' in o['seatbelt']['profile']" "$ws"
# the control: the path is in the plan itself (the profile leaves it out on purpose)
check "the control: the odd path is in the plan's env and mounts" grep -qF 'we\"ird' "$T/plan.json"

if grep -q 'a test stand-in replaces sandbox-exec' "$CORDON"; then
    cordon run --backend seatbelt --workspace "$ws" -- sh -c 'echo "ran $CORDON_SANDBOX"' >"$T/out" 2>"$T/err"
    st=$?
    if [ $st -eq 0 ] && [ "$(cat "$T/out")" = "ran seatbelt" ] && grep -q 'does NOT isolate' "$T/err"; then
        ok "stand-in build: cordon run --backend seatbelt runs the command, and warns that it does not isolate"
    else
        not_ok "stand-in build: cordon run --backend seatbelt (status $st)"; diag <"$T/err"
    fi
else
    cordon run --backend seatbelt --workspace "$ws" -- sh -c "touch '$ws/ran'" >"$T/out" 2>"$T/err"
    st=$?
    want='cordon: the seatbelt backend runs only on macOS; `cordon plan --backend seatbelt` shows its profile'
    if [ $st -eq 125 ] && [ "$(cat "$T/err")" = "$want" ] && [ ! -e "$ws/ran" ]; then
        ok "cordon run --backend seatbelt on Linux: exit 125, one clear line, the command never ran"
    else
        not_ok "cordon run --backend seatbelt on Linux (status $st)"; diag <"$T/err"
    fi
    # the control: the same command runs with the linux backend
    check "the control: the linux backend runs it" cordon run --workspace "$ws" -- sh -c "touch '$ws/ran'"
    check "the control: ... and it wrote its file" test -e "$ws/ran"
fi
# A build without the linux backend (make check-seatbelt): the seatbelt
# backend's own process handling (src/seatbelt/process.c), and clear errors
# for what is not in the build.
if cordon check 2>/dev/null | grep -qx 'linux backend: not in this build (-Dlinux_backend=false)'; then
    rm -f "$ws/ran"
    cordon run --backend linux --workspace "$ws" -- sh -c "touch '$ws/ran'" >"$T/out" 2>"$T/err"
    st=$?
    if [ $st -eq 125 ] && grep -q 'built without the linux backend' "$T/err" && [ ! -e "$ws/ran" ]; then
        ok "no linux backend: --backend linux is an error (125) naming the build option, the command never ran"
    else
        not_ok "no linux backend: --backend linux (status $st)"; diag <"$T/err"
    fi
    cordon run --backend seatbelt --network proxy --allow-net localhost --workspace "$ws" -- \
        sh -c "touch '$ws/ran'" >"$T/out" 2>"$T/err"
    st=$?
    if [ $st -eq 125 ] && grep -q 'without the network proxy' "$T/err" && [ ! -e "$ws/ran" ]; then
        ok "no linux backend: the proxy network is an error (125), the command never ran"
    else
        not_ok "no linux backend: the proxy network (status $st)"; diag <"$T/err"
    fi
    check "the control: the seatbelt backend (stand-in) runs the command" \
        cordon run --backend seatbelt --network loopback --workspace "$ws" -- sh -c "touch '$ws/ran'"
    check "the control: ... and it wrote its file" test -e "$ws/ran"
    check_status "the control: the command's exit status comes back" 7 \
        cordon run --backend seatbelt --workspace "$ws" -- sh -c 'exit 7'
    t0=$(date +%s)
    check_status "--timeout: the seatbelt backend stops the command, status 124" 124 \
        cordon run --backend seatbelt --timeout 0.5 --workspace "$ws" -- sh -c "(sleep 1.5; touch '$ws/late') & sleep 30"
    check "--timeout: ... well before the command's end" test $(($(date +%s) - t0)) -lt 10
    sleep 2
    check "--timeout: the command's other processes died with it (its process group)" test ! -e "$ws/late"
    check "the control: without a timeout the background process writes its file" \
        cordon run --backend seatbelt --workspace "$ws" -- sh -c "(sleep 0.2; touch '$ws/late') & wait"
    check "the control: ... it is there" test -e "$ws/late"
fi
echo "1..$_n"
