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

# The proxy network: the profile allows TCP to the proxy's port only, a
# parameter whose value cordon run chooses at start.
cordon plan --backend seatbelt --allow-net example.org --workspace "$ws" -- true >"$T/plan.txt" 2>&1
rule='(allow network-outbound (remote ip (string-append "localhost:" (param "PROXY_PORT"))))'
if grep -qxF "$rule" "$T/plan.txt" && grep -qxF '  PROXY_PORT=(chosen at start)' "$T/plan.txt" &&
    grep -q '^network proxy: 127.0.0.1 on the host, a port chosen at start' "$T/plan.txt" &&
    ! grep -q '(remote ip "localhost:\*")' "$T/plan.txt"; then
    ok "cordon plan --backend seatbelt --allow-net: the proxy rule with its port a parameter chosen at start"
else
    not_ok "cordon plan --backend seatbelt --allow-net: the proxy rule"; diag <"$T/plan.txt"
fi
# the control: without the allowlist, no rule and no parameter
cordon plan --backend seatbelt --workspace "$ws" -- true >"$T/plan.txt" 2>&1
check "the control: without --allow-net the profile has no proxy rule" \
    sh -c '! grep -qF "$1" "$2" && ! grep -q PROXY_PORT= "$2" && grep -qx "; network: none (denied by default)" "$2"' \
    sh "$rule" "$T/plan.txt"

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
# The allowlist through the proxy's POSIX loop (make check-seatbelt): an
# upstream on 127.0.0.2 (127.0.0.1 is in NO_PROXY), reached through the
# proxy, not around it (the stand-in does not isolate: what it shows is
# the proxy's part, the profile's part is in its recorded arguments).
proxy_tests() {
    local up=127.0.0.2 p p2 rec=$W/rec stats=$W/stats.json out
    mkdir -p "$T/srv" && echo hello >"$T/srv/hello.txt" && chmod -R a+rX "$T/srv"
    p=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.2",0));print(s.getsockname()[1])')
    p2=$((p == 65535 ? p - 1 : p + 1))
    python3 -m http.server "$p" --bind $up --directory "$T/srv" >/dev/null 2>&1 &
    CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
    for _ in $(seq 50); do curl -s -o /dev/null "http://$up:$p/hello.txt" && break; sleep 0.1; done
    check_out "control: the upstream serves, unsandboxed" "hello" as_user curl -sS "http://$up:$p/hello.txt"
    # through the proxy: curl's peer is the port HTTP_PROXY names (chosen at start)
    local probe='port=${HTTP_PROXY##*:}; [ "$(curl -sS -w "via %{remote_port}" "$1")" = "$(printf "hello\nvia $port")" ] &&
        curl -sS -x "$HTTP_PROXY" "$1" | grep -qx hello &&
        curl -sS --proxy "$ALL_PROXY" "$1" | grep -qx hello && echo "$port"'
    out=$(cordon run --backend seatbelt --allow-net "$up:$p" --set CORDON_STANDIN_RECORD="$rec" \
        --workspace "$ws" -- sh -c "$probe" sh "http://$up:$p/hello.txt" 2>"$T/err")
    if [ -n "$out" ] && [ "$out" != 3128 ] && grep -qxF "PROXY_PORT=$out" "$rec.params" &&
        grep -qxF "$rule" "$rec.profile" && ! grep -q "localhost:[0-9]" "$rec.profile"; then
        ok "seatbelt: an allowed upstream through the proxy (HTTP_PROXY, curl -x, SOCKS5), its chosen port passed as -D"
    else
        not_ok "seatbelt: an allowed upstream through the proxy (port '$out')"
        { cat "$T/err"; cat "$rec.params"; } 2>&1 | diag
    fi
    rm -f "$rec".*
    # denied: another port, a name not in the list; the control is the allowed request above
    local deny='for u in "$@"; do curl -sS -i "$u"; done'
    cordon run --backend seatbelt --allow-net "$up:$p" --stats "$stats" --workspace "$ws" -- \
        sh -c "$deny" sh "http://$up:$p2/hello.txt" "http://other.test:$p/hello.txt" >"$T/out" 2>"$T/err"
    if grep -q '^HTTP/1.1 403' "$T/out" && grep -qF "X-Cordon-Denied: port $p2 is not in the allowlist" "$T/out" &&
        grep -qF "cordon: denied other.test:$p: not in the allowlist (allow it with --allow-net other.test:$p)" "$T/out" &&
        ! grep -q hello "$T/out"; then
        ok "seatbelt: a port and a name not in the list get the 403 with the reason"
    else
        not_ok "seatbelt: a port and a name not in the list"; diag <"$T/out"
    fi
    check "seatbelt: each denial once on stderr" \
        sh -c '[ $(grep -c "network: denied other.test:$1" "$2") -eq 1 ] && grep -q "network: denied $3:$4" "$2"' \
        sh "$p" "$T/err" "$up" "$p2"
    check "seatbelt: --stats lists them (network_denied)" json "$stats" \
        "sorted((d['host'], d['port']) for d in o['network_denied']) == [(sys.argv[3], int(sys.argv[4])), ('other.test', int(sys.argv[5]))]" \
        "$up" "$p2" "$p"
    # the control: the loopback network has no proxy rule and no parameter
    cordon run --backend seatbelt --network loopback --set CORDON_STANDIN_RECORD="$rec" --workspace "$ws" -- true 2>/dev/null
    check "the control: --network loopback records no PROXY_PORT and no proxy rule" \
        sh -c '! grep -q PROXY_PORT "$1.params" && ! grep -qF "$2" "$1.profile" && grep -q "localhost:\*" "$1.profile"' \
        sh "$rec" "$rule"
}

# A build without the linux backend (make check-seatbelt): the seatbelt
# backend's own process handling (src/seatbelt/backend.c), and clear errors
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
    proxy_tests
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
