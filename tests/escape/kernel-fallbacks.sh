#!/bin/bash
# Landlock's scopes (ABI 6, Linux 6.12: signals and abstract unix sockets),
# its truncate right (ABI 3), and what keeps their guarantees on kernels
# without them: the escape
# probes proc_kill_host (a host process of the user signalled from inside,
# by every call that signals) and unix_abstract_netfull (a host abstract
# socket reached with the network "full"). Each with its control (the
# probe succeeds unsandboxed). Run twice: as this kernel is, and as if its
# Landlock lacked scopes (CORDON_TEST_LANDLOCK_ABI=5: cordon decides as on
# such a kernel, the ruleset keeps the kernel's own rights), where the
# landlock backend's call supervisor refuses the calls (its refusal on
# stderr shows that it, not Landlock behind it, refused) and the linux
# backend refuses the network "full" with the kernel it needs.
. "$(dirname "$0")/../integration/lib.sh"
LL="run --backend landlock --expose $T/bin"
KABI=$("$CORDON" check --json 2>/dev/null | sed -n 's/^ *"landlock_abi": \([0-9]*\).*/\1/p')
KABI=${KABI:-0}
SIG_KINDS="kill tkill tgkill sigqueue tgsigqueue pidfd-open pidfd-proc"
# a child with a trap for SIGWINCH, ready; then kill(-1)
KILL_ALL='r=$TMPDIR/ready-$$; bash -c "trap \"echo got; exit 0\" WINCH; touch $r; sleep 5 & wait" &
for _ in $(seq 100); do [ -e "$r" ] && break; sleep 0.05; done; kill -WINCH -1; wait'

# as the kernel is (MODE kernel) or as without scopes (MODE fallback)
run_mode() {
    if [ "$MODE" = fallback ]; then CORDON_TEST_LANDLOCK_ABI=5 cordon "$@"; else cordon "$@"; fi
}
scoped() { [ "$MODE" = kernel ] && [ "$KABI" -ge 6 ]; }
alive() { kill -0 "$1" 2>/dev/null; }
# gone PID: within 2 s
gone() { for _ in $(seq 20); do alive "$1" || return 0; sleep 0.1; done; return 1; }

# -- proc_kill_host: the controls
bg_as_user sleep 300 >/dev/null 2>&1
HOST=$BG_PID
for k in $SIG_KINDS; do
    holds "control: proc_kill_host by $k: a host process of the user is signalled unsandboxed" OK \
        as_user "$PROBE" sig "$k" "$HOST" 0
done
bg_as_user sleep 300 >/dev/null 2>&1
as_user "$PROBE" kill "$BG_PID" 9 >/dev/null
check "control: proc_kill_host: SIGKILL kills it unsandboxed" gone "$BG_PID"
bg_as_user sleep 300 >/dev/null 2>&1
as_user "$PROBE" sig setown "$BG_PID" 0 >/dev/null
check "control: proc_kill_host by fcntl(F_SETOWN): its SIGIO kills it unsandboxed" gone "$BG_PID"
PGRP=$(ps -o pgid= -p "$HOST" | tr -d ' ')
[ "${PGRP:-0}" -gt 1 ] || { bg_as_user setsid sleep 300 >/dev/null 2>&1; sleep 0.2; PGRP=$(ps -o pgid= -p "$BG_PID" | tr -d ' '); }
check_out "control: proc_kill_host by its process group unsandboxed" OK as_user "$PROBE" kill "-$PGRP" 0

for MODE in kernel fallback; do
    # -- proc_kill_host on the landlock backend
    for k in $SIG_KINDS; do
        if scoped && [ "$k" = pidfd-open ]; then
            continue # Landlock scopes signals, not pidfds: its pidfd_send_signal is scoped
        fi
        check_out "landlock ($MODE): proc_kill_host by $k is refused" EPERM run_mode $LL -- "$PROBE" sig "$k" "$HOST" 0
        if [ "$MODE" = fallback ]; then
            case $k in sigqueue) call=rt_sigqueueinfo ;; tgsigqueue) call=rt_tgsigqueueinfo ;;
                pidfd-open) call=pidfd_open ;; pidfd-proc) call=pidfd_send_signal ;; *) call=$k ;; esac
            check_contains "landlock ($MODE): ... by the call supervisor, which says so" "refused $call" \
                run_mode $LL -- "$PROBE" sig "$k" "$HOST" 0
        fi
    done
    bg_as_user sleep 300 >/dev/null 2>&1
    check_out "landlock ($MODE): proc_kill_host: SIGKILL is refused" EPERM run_mode $LL -- "$PROBE" kill "$BG_PID" 9
    check "landlock ($MODE): ... and the host process lives" alive "$BG_PID"
    check_out "landlock ($MODE): proc_kill_host: the supervisor (cordon-tree) cannot be killed" EPERM \
        run_mode $LL -- sh -c "\"$PROBE\" kill \$PPID 9"
    out=$(run_mode $LL -- "$PROBE" kill "-$PGRP" 0 2>/dev/null)
    case $out in EPERM | ESRCH) ok "landlock ($MODE): proc_kill_host by a host process group is refused ($out)" ;;
        *) not_ok "landlock ($MODE): proc_kill_host by a host process group is refused ($out)" ;; esac
    bg_as_user sleep 300 >/dev/null 2>&1
    out=$(run_mode $LL -- "$PROBE" sig setown "$BG_PID" 0 2>/dev/null)
    check "landlock ($MODE): proc_kill_host by fcntl(F_SETOWN): the host process lives ($out)" alive "$BG_PID"
    [ "$MODE" = fallback ] && check_out "landlock ($MODE): ... F_SETOWN to it is refused" EPERM echo "$out"

    # -- signals inside the sandbox work as before
    check_out "landlock ($MODE): kill of its own child" 143 run_mode $LL -- sh -c 'sleep 30 & kill $!; wait $!; echo $?'
    check_out "landlock ($MODE): kill of its own process group" OK run_mode $LL -- sh -c "\"$PROBE\" kill 0 0"
    check_out "landlock ($MODE): kill of a job's group (set -m)" 143 \
        run_mode $LL -- bash -c 'set -m; sleep 30 & kill -TERM -- -$!; wait $!; echo $?'
    check_out "landlock ($MODE): a double-forked (orphaned, setsid) process is still its own" OK \
        run_mode $LL -- bash -c '(setsid sleep 30 & echo $! >"$TMPDIR/o"); sleep 0.2; kill $(cat "$TMPDIR/o") && echo OK'
    check_out "landlock ($MODE): raise, abort's route (tgkill of itself)" 134 \
        run_mode $LL -- sh -c 'python3 -c "import os; os.abort()" 2>/dev/null; echo $?'
    for k in kill tkill tgkill sigqueue tgsigqueue pidfd-open; do
        check_out "landlock ($MODE): $k of its own child" OK \
            run_mode $LL -- sh -c "sleep 30 & p=\$!; \"$PROBE\" sig $k \$p 0; kill \$p"
    done
    check_out "landlock ($MODE): pthread_kill between its threads (python's signal.pthread_kill)" got \
        run_mode $LL -- python3 -c 'import signal, threading
signal.signal(signal.SIGUSR1, lambda *a: print("got"))
signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)'
    # kill(-1): the sandbox's processes only (a host process of the user
    # with a trap for the harmless SIGWINCH does not get it)
    rm -f "$H/winch"
    bg_as_user bash -c "trap 'echo got >\"$H/winch\"' WINCH; while :; do sleep 0.1; done" >/dev/null 2>&1
    WP=$BG_PID
    check_out "landlock ($MODE): kill(-1) reaches the sandbox's processes" got run_mode $LL -- bash -c "$KILL_ALL"
    sleep 0.3
    check "landlock ($MODE): ... and not the host's" test ! -e "$H/winch"
    kill "$WP" 2>/dev/null
done
bg_as_user bash -c "trap 'echo got >\"$H/winch\"' WINCH; while :; do sleep 0.1; done" >/dev/null 2>&1
sleep 0.3
as_user kill -WINCH "$BG_PID"
sleep 0.4
check "control: that host process gets a SIGWINCH sent unsandboxed" test -e "$H/winch"
kill "$BG_PID" 2>/dev/null
check "the host process signalled by every route above still lives" alive "$HOST"

# -- unix_abstract_netfull
name=cordon-scopes-$$-$RANDOM
bg_as_user "$PROBE" abstract-listen "$name" >"$T/abs.out" 2>&1
for _ in $(seq 30); do grep -q LISTENING "$T/abs.out" && break; sleep 0.1; done
holds "control: unix_abstract_netfull: a host abstract socket is reachable unsandboxed" OK \
    as_user "$PROBE" abstract-connect "$name"
for MODE in kernel fallback; do
    check_out "landlock ($MODE): unix_abstract_netfull is refused (the call supervisor)" EPERM \
        run_mode $LL --network full -- "$PROBE" abstract-connect "$name"
    check_out "linux ($MODE): with the network none it is not there (own network namespace)" ECONNREFUSED \
        run_mode run --expose "$T/bin" -- "$PROBE" abstract-connect "$name"
    if scoped; then
        check_out "linux ($MODE): unix_abstract_netfull is refused (Landlock's scope)" EPERM \
            run_mode run --network full --expose "$T/bin" -- "$PROBE" abstract-connect "$name"
    else
        check_status "linux ($MODE): unix_abstract_netfull: the network full is refused without scopes" 125 \
            run_mode run --network full --expose "$T/bin" -- "$PROBE" abstract-connect "$name"
        check_contains "linux ($MODE): ... naming the kernel it needs" "Linux >= 6.12" \
            run_mode run --network full --expose "$T/bin" -- "$PROBE" abstract-connect "$name"
    fi
done
check_status "linux: Landlock off with the network full is refused (no scope)" 125 \
    cordon run --landlock off --network full -- true

# -- truncate(2) by path: a Landlock right from ABI 3 (Linux 6.2); below, the
# call supervisor serves it beneath the writable paths only
as_user sh -c "echo host file >'$H/trunc'"
TR='import os, sys
try:
    os.truncate(sys.argv[1], 0); print("OK")
except OSError as e:
    print(e.errno == 13 and "EACCES" or e.strerror)'
as_user cp "$H/trunc" "$H/trunc-ctl"
check_out "control: truncate(2) of a host file of the user works unsandboxed" OK as_user python3 -c "$TR" "$H/trunc-ctl"
ws=$H/.cordon/workspace
for abi in "" 2; do
    m=${abi:-kernel}
    check_out "landlock (ABI ${abi:-$KABI}): truncate(2) of a host file is refused" EACCES \
        env CORDON_TEST_LANDLOCK_ABI="$abi" "$CORDON" run --backend landlock -- python3 -c "$TR" "$H/trunc"
    [ -n "$abi" ] && check_contains "landlock (ABI $abi): ... by the call supervisor, which says so" "refused truncate $H/trunc" \
        env CORDON_TEST_LANDLOCK_ABI="$abi" "$CORDON" run --backend landlock -- python3 -c "$TR" "$H/trunc"
    check_out "landlock (ABI ${abi:-$KABI}): ... and it is intact" "host file" cat "$H/trunc"
    check_out "landlock (ABI ${abi:-$KABI}): truncate(2) in the workspace works" "OK 0" \
        env CORDON_TEST_LANDLOCK_ABI="$abi" bash -c "cd '$W' && $(declare -f as_user); TEST_AS=$TEST_AS TEST_UID=$TEST_UID TEST_GID=$TEST_GID H='$H' as_user '$CORDON' run --backend landlock -- sh -c 'echo x >\"\$1/t\" && python3 -c \"\$2\" \"\$1/t\" | tr -d \"\\n\"; echo \" \$(stat -c %s \"\$1/t\")\"' sh '$ws' '$TR'"
done

# -- prlimit64 of another process: Landlock governs it on no ABI, and
# RLIMIT_CPU 0 kills a host process (SIGKILL at its next CPU second)
PL='import resource, sys, os
pid = int(sys.argv[1]) if sys.argv[1] != "self" else os.getpid()
try:
    resource.prlimit(pid, resource.RLIMIT_CPU, (0, 0)); print("OK")
except OSError as e:
    print(e.errno == 1 and "EPERM" or e.strerror)'
bg_as_user sh -c 'while :; do :; done' >/dev/null 2>&1
BUSY=$BG_PID
for MODE in kernel fallback; do
    check_out "landlock ($MODE): prlimit64 of a host process is refused" EPERM run_mode $LL -- python3 -c "$PL" "$BUSY"
    check "landlock ($MODE): ... and the busy host process lives on" alive "$BUSY"
    check_out "landlock ($MODE): prlimit64 of the command's own process works" OK \
        run_mode $LL -- python3 -c "$(printf '%s\n' "$PL" | sed 's/RLIMIT_CPU, (0, 0)/RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)/')" self
done
check_contains "landlock: ... the call supervisor says so" "refused prlimit of process $BUSY" run_mode $LL -- python3 -c "$PL" "$BUSY"
check_out "control: prlimit64 of the busy host process works unsandboxed" OK as_user python3 -c "$PL" "$BUSY"
check "control: ... and kills it" gone "$BUSY"

# -- open(O_RDONLY|O_TRUNC): the kernel truncates on the write permission,
# Landlock below ABI 3 sees a read; there the filter refuses it (everywhere:
# a workspace file too, which is how it shows on a newer kernel), also
# under --explain, whose observer lets the calls it sees on
OT='import os, sys
try:
    os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_TRUNC)); print("OK", os.stat(sys.argv[1]).st_size)
except OSError as e:
    print(e.errno == 13 and "EACCES" or e.strerror)'
as_user sh -c "echo host file >'$H/otrunc'"
check_out "control: open(O_RDONLY|O_TRUNC) of a file of the user empties it unsandboxed" "OK 0" as_user python3 -c "$OT" "$H/otrunc"
for x in "" --explain; do
    for abi in "" 2; do
        inws="cd '$W' && $(declare -f as_user); TEST_AS=$TEST_AS TEST_UID=$TEST_UID TEST_GID=$TEST_GID H='$H' as_user '$CORDON' run $x --backend landlock -- sh -c 'echo x >\"\$1/ot\" && python3 -c \"\$2\" \"\$1/ot\"' sh '$ws' '$OT'"
        if [ -n "$abi" ] || [ "$KABI" -lt 3 ]; then
            check_out "landlock (ABI ${abi:-$KABI}${x:+, $x}): open(O_RDONLY|O_TRUNC) is refused, in the workspace too" EACCES \
                env CORDON_TEST_LANDLOCK_ABI="$abi" bash -c "$inws"
        else
            check_out "landlock (ABI $KABI${x:+, $x}): open(O_RDONLY|O_TRUNC) in the workspace truncates (Landlock's own right)" "OK 0" \
                bash -c "$inws"
        fi
    done
    check_out "landlock (ABI 2${x:+, $x}): truncate(2) of a host file is refused" EACCES \
        env CORDON_TEST_LANDLOCK_ABI=2 "$CORDON" run $x --backend landlock -- python3 -c "$TR" "$H/trunc"
done

# -- what held: cordon check and the --stats record name it
# rec FILE EXPR: the record is valid against the schema and EXPR holds (o: its protections)
rec() {
    /usr/bin/python3 - "$TOP/schema/stats.schema.json" "$1" "$2" <<'EOF'
import json, sys, jsonschema
rec = json.load(open(sys.argv[2], encoding="utf-8"))
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(rec)
o = rec["protections"]
sys.exit(0 if eval(sys.argv[3]) else 1)
EOF
}
for MODE in kernel fallback; do
    rm -f "$W/st.json"
    run_mode $LL --stats "$W/st.json" -- true
    run_mode run --stats "$W/st-linux.json" -- true
    check "linux ($MODE): the record says the pid and network namespaces keep signals and abstract sockets" \
        rec "$W/st-linux.json" 'o["backend"] == "linux" and o["signals"][0] == "pid namespace" and o["abstract_unix"][0] == "network namespace" and o["call_supervisor"] == [] and o["seccomp_filters"] == 1'
    if [ "$MODE" = fallback ]; then
        check "landlock ($MODE): the record names the call supervisor for signals, and the ABI relied on" \
            rec "$W/st.json" '"call supervisor" in o["signals"] and "signals" in o["call_supervisor"] and o.get("landlock_abi_relied", o["landlock_abi"]) <= 5 and o["seccomp_filters"] == 2'
        check_contains "landlock ($MODE): cordon check names the call supervisor for signals" \
            "landlock: signals: the call supervisor (ABI < 6)" run_mode check --backend landlock
        check_contains "linux ($MODE): cordon check says the network full is refused, and the kernel it needs" \
            "with the network full (the host's): nothing: refused here (needs Landlock ABI >= 6, Linux >= 6.12)" run_mode check
    elif scoped; then
        check "landlock ($MODE): the record names Landlock's scope for signals, no supervisor for them" \
            rec "$W/st.json" 'o["signals"] == ["landlock scope"] and "signals" not in o["call_supervisor"] and o["landlock_scopes"] and "landlock_abi_relied" not in o'
        check_contains "landlock ($MODE): cordon check names Landlock's scope for signals" \
            "landlock: signals: Landlock's scope" run_mode check --backend landlock
    fi
done

# -- the test knob only narrows
check_status "CORDON_TEST_LANDLOCK_ABI=3: the landlock backend's proxy is refused (needs ABI 4)" 125 \
    env CORDON_TEST_LANDLOCK_ABI=3 "$CORDON" run --backend landlock --allow-net example.org -- true
check_status "CORDON_TEST_LANDLOCK_ABI=0: the landlock backend is refused (no Landlock)" 125 \
    env CORDON_TEST_LANDLOCK_ABI=0 "$CORDON" run --backend landlock -- true
check_status "CORDON_TEST_LANDLOCK_ABI=0: --landlock required is refused" 125 \
    env CORDON_TEST_LANDLOCK_ABI=0 "$CORDON" run --landlock required -- true
if [ "$KABI" -ge 6 ]; then
    for v in 99 "$KABI" x -1 ""; do
        check_status "CORDON_TEST_LANDLOCK_ABI='$v' (not below the kernel's) is ignored: the linux backend's network full runs" 0 \
            env CORDON_TEST_LANDLOCK_ABI="$v" "$CORDON" run --network full -- true
    done
fi
done_testing
