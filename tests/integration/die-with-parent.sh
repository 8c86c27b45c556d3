#!/bin/bash
# --die-with-parent: the process that started cordon (an agent) dies, and
# cordon ends the sandbox as on SIGTERM, its post-run git check included,
# instead of running on with PPID 1. Each property against a control:
#   - without the flag, a SIGKILLed caller leaves the sandbox running;
#   - with it, nothing is left, also of a command that ignores SIGTERM
#     (cordon kills what still runs --kill-after seconds after the SIGTERM);
#   - a repository the command made, with a hook, is checked after the
#     caller's death (the control: a SIGKILL of cordon itself skips the
#     check, and the hook stays live);
#   - the exit of the caller's thread that started cordon is not a death;
#   - a caller already gone at cordon's start (--die-with-parent=PID, or
#     the parent noted at the start): nothing runs;
#   - a SIGTERM to cordon ends a command that ignores it in bounded time;
#   - DWP_TRIALS (default 200) callers SIGKILLed at random moments, most in
#     the first milliseconds (before cordon runs, before it watches its
#     parent, while it plans, clones, mounts), some while the command runs:
#     no process (the killer is a child subreaper, so whatever outlives the
#     caller becomes its child), no process with the trial's marker, no
#     mount naming the scratch directory, no cgroup of a dead launcher.
. "$(dirname "$0")/lib.sh"

N=${DWP_TRIALS:-200}
MAX_US=${DWP_MAX_US:-80000}
cc -O2 -w -o "$T/bin/killer" "$TOP/tests/helpers/killer.c" || { not_ok "build the killer"; done_testing; exit 1; }
KILLER=$T/bin/killer
in_w() { (cd "$W" && "$@"); }
sleeps() { pgrep -c -f "^sleep 1000\.$1\$"; }
await_sleeps() { # MARK N: until N sleeps named MARK run (or 10 s)
    local i
    for i in $(seq 200); do [ "$(sleeps "$1")" -ge "$2" ] && break; sleep 0.05; done
    [ "$(sleeps "$1")" -ge "$2" ]
}
gone() { # MARK: until none runs (or 5 s)
    local i
    for i in $(seq 100); do [ "$(sleeps "$1")" -eq 0 ] && return 0; sleep 0.05; done
    return 1
}
# A caller: a shell that starts cordon and waits for it (its pid in $BG_PID).
# IGNORE_TERM: the command's sleeps ignore SIGTERM.
caller() { # MARK CORDON-FLAGS...
    local mark=$1; shift
    (cd "$W" && as_user sh -c '"$0" run --quiet "$@"; exit $?' "$CORDON" "$@" -- \
        sh -c "${IGNORE_TERM:+trap '' TERM; }sleep 1000.$mark & exec sleep 1000.$mark" >/dev/null 2>&1) &
    sleep 0.05
}
# The caller is the shell's child: find it by the marker in its arguments.
caller_pid() { pgrep -o -f "^sh -c \"\\\$0\" run --quiet .*1000\.$1" ; }

# -- the control: without the flag the sandbox outlives its caller
m=$((100000 + RANDOM % 900000))
caller "$m"
if await_sleeps "$m" 2; then
    kill -KILL "$(caller_pid "$m")"
    sleep 1
    if [ "$(sleeps "$m")" -eq 2 ]; then ok "control: without --die-with-parent the sandbox outlives its SIGKILLed caller"
    else not_ok "control: without --die-with-parent the sandbox outlives its SIGKILLed caller ($(sleeps "$m") left)"; fi
else not_ok "control: the sandbox starts"; fi
pkill -KILL -f "^sleep 1000\.$m\$"; pkill -KILL -f "1000\.$m" 2>/dev/null

for b in linux landlock; do
    for ign in "" 1; do
        m=$((100000 + RANDOM % 900000))
        what="$b: the caller's SIGKILL ends the sandbox${ign:+ (its command ignores SIGTERM)}"
        IGNORE_TERM=$ign caller "$m" --backend "$b" --kill-after 0.5 --die-with-parent
        if ! await_sleeps "$m" 2; then not_ok "$what (it did not start)"; continue; fi
        kill -KILL "$(caller_pid "$m")"
        if gone "$m" && ! pgrep -f "$CORDON run --quiet --backend $b" >/dev/null; then ok "$what, and cordon exits"
        else not_ok "$what ($(sleeps "$m") left)"; ps -eo pid,ppid,args | grep -E "1000\.$m|$CORDON" | grep -v grep | diag; fi
        pkill -KILL -f "1000\.$m" 2>/dev/null
    done
done

# -- the post-run git check after the caller's death
WS=$W/ws
PLANT='git init -q new && printf "#!/bin/sh\ntouch \"$0.ran\"\n" >new/.git/hooks/post-checkout &&
    chmod +x new/.git/hooks/post-checkout && touch planted && trap "" TERM && exec sleep 1000.$1'
git_run() { # MARK CORDON-FLAGS...: in a fresh workspace, until the hook is planted
    local mark=$1; shift
    rm -rf "$WS"; mkdir -p "$WS"
    [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$WS"
    (cd "$WS" && as_user "$CORDON" run --quiet --workspace "$WS" --kill-after 0.5 "$@" -- \
        sh -c "$PLANT" sh "$mark" >/dev/null 2>&1; :) &
    local i
    for i in $(seq 200); do [ -e "$WS/planted" ] && [ "$(sleeps "$mark")" -ge 1 ] && return 0; sleep 0.05; done
    return 1
}
for b in linux landlock; do
    m=$((100000 + RANDOM % 900000))
    if git_run "$m" --backend "$b"; then
        pkill -KILL -f "$CORDON run --quiet --workspace $WS" # cordon and its clean-up helper (its command line), SIGKILLed
        gone "$m"
        check "$b: control: a SIGKILL of cordon skips the check: the planted hook stays live" \
            test -x "$WS/new/.git/hooks/post-checkout"
    else not_ok "$b: control: the command plants its hook"; fi
    pkill -KILL -f "1000\.$m" 2>/dev/null
    m=$((100000 + RANDOM % 900000))
    if git_run "$m" --backend "$b" --die-with-parent; then
        # cordon's parent is git_run's subshell: kill it
        cpid=$(pgrep -o -f "$CORDON run --quiet --workspace $WS")
        kill -KILL "$(ps -o ppid= -p "$cpid")"
        for i in $(seq 100); do pgrep -f "$CORDON run --quiet --workspace $WS" >/dev/null || break; sleep 0.05; done
        check "$b: after the caller's SIGKILL cordon ran its git check: the hook is no longer live" \
            test ! -e "$WS/new/.git/hooks/post-checkout"
        check "$b: ... it was set aside, not run" sh -c 'ls "$1" | grep -q cordon-quarantine && test ! -e "$1/hooks/post-checkout.ran"' sh "$WS/new/.git"
    else not_ok "$b: the command plants its hook"; fi
    pkill -KILL -f "1000\.$m" 2>/dev/null
done

# -- the exit of the thread that started cordon is not the caller's death
m=$((100000 + RANDOM % 900000))
cat >"$T/thread.py" <<'EOF'
import subprocess, sys, threading, time
procs = []
t = threading.Thread(target=lambda: procs.append(subprocess.Popen(
    [sys.argv[1], "run", "--quiet", "--die-with-parent", "--", "sleep", sys.argv[2]])))
t.start(); t.join()        # the thread that forked cordon is gone
time.sleep(1.5)
print("alive" if procs[0].poll() is None else "ended %s" % procs[0].returncode)
procs[0].terminate(); procs[0].wait()
EOF
check_out "the exit of the caller's thread that started cordon does not end the sandbox" alive \
    in_w as_user python3 "$T/thread.py" "$CORDON" "1000.$m"
pkill -KILL -f "1000\.$m" 2>/dev/null

# -- the parent death signal from anyone else (its number is no secret):
# the parent lives, so the sandbox goes on
m=$((100000 + RANDOM % 900000))
caller "$m" --die-with-parent
if await_sleeps "$m" 1; then
    kill -s RTMAX "$(pgrep -o -f "^$CORDON run --quiet --die-with-parent -- sh -c sleep 1000\.$m")" 2>/dev/null
    sleep 0.5
    if [ "$(sleeps "$m")" -ge 1 ]; then ok "a parent death signal sent while the parent lives does not end the sandbox"
    else not_ok "a parent death signal sent while the parent lives does not end the sandbox"; fi
else not_ok "the sandbox starts (RTMAX)"; fi
pkill -KILL -f "1000\.$m" 2>/dev/null

# -- a caller gone before cordon watches it: nothing runs
rm -f "$W/ran"
check_status "--die-with-parent=PID of a process that is not cordon's parent: 125" 125 \
    cordon run --die-with-parent=1 -- touch "$W/ran"
check "... and nothing ran" test ! -e "$W/ran"
check_contains "... it says why" "the process that started cordon (pid 1) is gone: nothing runs" \
    cordon run --die-with-parent=1 -- touch "$W/ran"
check_status "--die-with-parent=PID of the caller itself runs" 0 \
    in_w as_user sh -c '"$0" run --die-with-parent=$$ -- true; exit $?' "$CORDON"
echo '{"isolation": {"die_with_parent": true}}' >"$T/dwp.json"
chmod 644 "$T/dwp.json"
check_status "the config key, isolation.die_with_parent, as the flag" 0 in_w as_user "$CORDON" run --config "$T/dwp.json" -- true
check_status "... with a parent gone: 125" 125 in_w as_user "$CORDON" run --config "$T/dwp.json" --die-with-parent=1 -- true

# -- SIGTERM: the command gets it; one that ignores it is killed --kill-after later
m=$((100000 + RANDOM % 900000))
(cd "$W" && as_user "$CORDON" run --quiet --kill-after 0.5 -- sh -c "trap '' TERM; exec sleep 1000.$m" >/dev/null 2>&1
    echo $? >"$T/term.st") &
await_sleeps "$m" 1
t0=$(date +%s%N)
kill -TERM "$(pgrep -o -f "^$CORDON run --quiet --kill-after 0.5 .*1000\.$m")"
for i in $(seq 100); do [ -s "$T/term.st" ] && break; sleep 0.05; done
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$(cat "$T/term.st" 2>/dev/null)" = 137 ] && [ "$(sleeps "$m")" = 0 ]; then
    ok "a SIGTERM ends a command that ignores it --kill-after later (status 137, in $ms ms)"
else not_ok "a SIGTERM ends a command that ignores it --kill-after later (status $(cat "$T/term.st" 2>/dev/null), $(sleeps "$m") left)"; fi
pkill -KILL -f "1000\.$m" 2>/dev/null

# -- random moments
cg_parents=()
while read -r _ _ _ root mnt _ rest; do
    fstype=${rest#*- }; fstype=${fstype%% *}
    case $fstype in cgroup|cgroup2) ;; *) continue ;; esac
    for own in $(awk -F: '{ print $3 }' /proc/self/cgroup | sort -u); do
        rel=${own#"$root"}
        for d in "$mnt$rel" "$mnt$rel/cordon" "$(dirname "$mnt$rel")" "$mnt/cordon"; do
            [ -d "$d" ] && cg_parents+=("$d")
        done
    done
done </proc/self/mountinfo
mapfile -t cg_parents < <(printf '%s\n' "${cg_parents[@]}" | sort -u)
dead_cgroups() { # the cgroups named after a launcher that no longer runs
    local d c pid
    for d in "${cg_parents[@]}"; do
        for c in "$d"/cordon-[0-9]*-*; do
            [ -d "$c" ] || continue
            pid=${c##*/cordon-}; pid=${pid%%-*}
            [ -d "/proc/$pid" ] || echo "$c"
        done
    done
}
base_mounts=$(grep -c "$T" /proc/self/mountinfo)
if is_root_run; then LIMITS=(--memory 256M --pids 64); else LIMITS=(--pids 64 --limits-best-effort); fi
fail_leaks=0 fail_marker=0 fail_mounts=0 fail_cgroups=0 early=0
for ((i = 0; i < N; i++)); do
    mark=$((100000 + RANDOM % 900000))
    extra=()
    [ $((i % 4)) = 1 ] && extra=("${LIMITS[@]}")
    [ $((i % 4)) = 3 ] && extra=(--backend landlock)
    ign=""; [ $((i % 2)) = 1 ] && ign="trap '' TERM; "
    (cd "$W" && as_user KILLER_KEEP_LEAKS=1 "$KILLER" 9 "$MAX_US" "$((RANDOM * 32768 + RANDOM))" 4000 -- \
        sh -c '"$0" run --quiet --kill-after 0.2 --die-with-parent=$$ "$@"; exit $?' "$CORDON" "${extra[@]}" -- \
        sh -c "${ign}sleep 1000.$mark & exec sleep 1000.$mark") >"$T/killer.out" 2>&1
    rc=$?
    out=$(cat "$T/killer.out")
    d=$(sed -n 's/.* delay_us \([0-9]*\) .*/\1/p' <<<"$out")
    [ "${d:-0}" -lt 5000 ] && early=$((early + 1))
    what="trial $i (${extra[*]:-no extras}${ign:+, TERM ignored}): $(head -1 <<<"$out")"
    if [ $rc -ne 0 ]; then
        fail_leaks=$((fail_leaks + 1))
        [ $fail_leaks -le 5 ] && { echo "# $what"; grep -E '^(leak|killer)' <<<"$out" | diag; }
        for p in $(sed -n 's/^leak: \([0-9]*\) .*/\1/p' <<<"$out"); do kill -KILL "$p" 2>/dev/null; done
    fi
    if grep -qsF "1000.$mark" /proc/[0-9]*/cmdline 2>/dev/null; then
        fail_marker=$((fail_marker + 1))
        [ $fail_marker -le 5 ] && echo "# marked process left: $what"
        pkill -KILL -f "1000\.$mark" 2>/dev/null
    fi
    if [ "$(grep -c "$T" /proc/self/mountinfo)" != "$base_mounts" ]; then
        fail_mounts=$((fail_mounts + 1))
        [ $fail_mounts -le 5 ] && { echo "# host mount left: $what"; grep "$T" /proc/self/mountinfo | diag; }
    fi
    left=$(dead_cgroups)
    if [ -n "$left" ]; then
        fail_cgroups=$((fail_cgroups + 1))
        [ $fail_cgroups -le 5 ] && { echo "# cgroup of a dead launcher: $what"; echo "$left" | diag; }
        for c in $left; do rmdir "$c" 2>/dev/null; done
    fi
done
echo "# $N callers SIGKILLed, $early of them in the first 5 ms, delays 0-$((MAX_US / 1000)) ms (cubed)"
report() { if [ "$2" -eq 0 ]; then ok "$1: none in $N trials"; else not_ok "$1: $2 of $N trials"; fi; }
report "a process outliving its SIGKILLed caller (subreaper)" $fail_leaks
report "a process with the trial's marker" $fail_marker
report "a host mount" $fail_mounts
report "a cgroup of a dead launcher" $fail_cgroups

done_testing
