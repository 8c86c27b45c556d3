#!/bin/bash
# Lifecycle under fault injection: the launcher killed at any instant leaves
# nothing behind. Many launches of
#     cordon run -- sh -c 'sleep S & sleep S & exec sleep S'
# each killed by SIGKILL, SIGTERM or SIGINT after a random delay, most in the
# first milliseconds (planning, clone, id maps, cgroup, mounts, exec), some
# while the command runs. Every launch fails the test on anything left 2 s
# after the signal:
#   - a process: the killer (tests/helpers/killer.c) is a child subreaper,
#     so whatever outlives the launcher becomes its child; and no process
#     anywhere has the launch's marker in its command line or environment;
#   - a mount on the host naming the scratch directory;
#   - a cgroup named after the launcher (cordon-PID-*);
#   - a file in the instance root, the workspace or the project, or in /tmp
#     a .cordon-* entry (what the backend makes, in the sandbox's own /tmp)
#     or one named with the marker.
# Some launches ask for a cgroup (--memory, --pids; as root on this host) or
# a placeholder for a missing protected path, so that what is made on the
# host is killed in the middle too.
#
# LIFECYCLE_ITERATIONS (default 300 per pass, about 20 s) sets the number
# of launches; `make soak` runs many more. A race that leaks once in 100
# launches shows here with a probability of 95%.
. "$(dirname "$0")/lib.sh"

N=${LIFECYCLE_ITERATIONS:-300}
MAX_US=${LIFECYCLE_MAX_US:-20000}
cc -O2 -w -o "$T/bin/killer" "$TOP/tests/helpers/killer.c" || { not_ok "build the killer"; done_testing; exit 1; }
KILLER=$T/bin/killer
CI_ROOT=$H/.cordon

# cgroup limits are real as root here; unprivileged, --pids falls to
# RLIMIT_NPROC and --memory to the best-effort warning.
if is_root_run; then LIMITS=(--memory 256M --pids 64); else LIMITS=(--memory 256M --pids 64 --limits-best-effort); fi
PROTECTED=$CI_ROOT/workspace/cordon-protected-placeholder

# Where this process's cgroups (and so the launcher's) would be made.
cg_parents=()
while read -r _ _ _ root mnt _ rest; do
    fstype=${rest#*- }; fstype=${fstype%% *}
    case $fstype in cgroup|cgroup2) ;; *) continue ;; esac
    for own in $(awk -F: -v m="$mnt" '{ print $3 }' /proc/self/cgroup | sort -u); do
        rel=${own#"$root"}
        for d in "$mnt$rel" "$mnt$rel/cordon" "$(dirname "$mnt$rel")" "$mnt/cordon"; do
            [ -d "$d" ] && cg_parents+=("$d")
        done
    done
done </proc/self/mountinfo
mapfile -t cg_parents < <(printf '%s\n' "${cg_parents[@]}" | sort -u)

snapshot() { find "$CI_ROOT" "$W" -xdev 2>/dev/null | sort; }
# What the backend makes is named .cordon-* (in the sandbox's own /tmp);
# other tests' scratch directories come and go meanwhile.
tmp_cordon() { ls -A /tmp 2>/dev/null | grep '^\.cordon' | sort; }

# A first run creates the instance root; what exists then is the baseline.
cordon run -- true >/dev/null 2>&1
check_status "control: a run with limits and a placeholder works" 0 cordon run "${LIMITS[@]}" --protect "$PROTECTED" -- true
check "control: the placeholder is removed after a normal run" test ! -e "$PROTECTED"
base_files=$(snapshot)
base_tmp=$(tmp_cordon)
base_mounts=$(grep -c "$T" /proc/self/mountinfo)

# Control for the detection itself: an unsandboxed `sh` whose background
# sleep outlives it is seen as a leak.
m=$((100000 + RANDOM))
out=$(as_user "$KILLER" 9 =200000 1 300 -- sh -c "sleep 1000.$m & sleep 1000.$m" 2>&1)
case $out in *"leaked "[1-9]*"leak: "*"sleep 1000.$m"*) ok "control: the killer sees a process that outlives what it killed" ;;
    *) not_ok "control: the killer sees a process that outlives what it killed"; echo "$out" | diag ;; esac

fail_leaks=0 fail_files=0 fail_cgroups=0 fail_mounts=0 fail_marker=0 fail_tmp=0 fail_status=0
sigs=(9 15 2)
declare -A by_sig=([9]=0 [15]=0 [2]=0)
for ((i = 0; i < N; i++)); do
    sig=${sigs[$((i % 3))]}
    mark=$((100000 + RANDOM % 900000))
    extra=()
    case $((i % 5)) in
        1) extra=("${LIMITS[@]}") ;;
        3) extra=(--protect "$PROTECTED") ;;
        4) extra=("${LIMITS[@]}" --protect "$PROTECTED") ;;
    esac
    out=$( (cd "$W" && as_user "$KILLER" "$sig" "$MAX_US" "$((RANDOM * 32768 + RANDOM))" 2000 -- \
        "$CORDON" run --quiet "${extra[@]}" --set "CORDON_LIFECYCLE_MARK=$mark" -- \
        sh -c "sleep 1000.$mark & sleep 1000.$mark & exec sleep 1000.$mark") 2>&1)
    rc=$?
    pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' <<<"$out")
    by_sig[$sig]=$((by_sig[$sig] + 1))
    what="launch $i (signal $sig, ${extra[*]:-no extras}): $(head -1 <<<"$out")"
    if [ "$rc" -ne 0 ]; then
        fail_leaks=$((fail_leaks + 1))
        [ $fail_leaks -le 5 ] && { echo "# $what"; grep -E '^(leak|killer)' <<<"$out" | diag; }
    fi
    # SIGTERM and SIGINT are forwarded: the command ends and cordon exits
    # with its status; SIGKILL is 137.
    st=$(sed -n 's/.* status \([0-9-]*\) .*/\1/p' <<<"$out")
    case $sig:$st in 9:137|15:143|2:130|15:0|2:0|15:125|2:125) ;;
        *) fail_status=$((fail_status + 1)); [ $fail_status -le 5 ] && echo "# unexpected status: $what" ;; esac
    if grep -lsF "1000.$mark" /proc/[0-9]*/cmdline >/dev/null 2>&1 ||
        grep -lsF "CORDON_LIFECYCLE_MARK=$mark" /proc/[0-9]*/environ >/dev/null 2>&1; then
        fail_marker=$((fail_marker + 1))
        [ $fail_marker -le 5 ] && { echo "# marked process left: $what"; grep -lsF "1000.$mark" /proc/[0-9]*/cmdline | diag; }
        pkill -KILL -f "1000.$mark" 2>/dev/null
    fi
    if [ -n "$pid" ]; then
        for d in "${cg_parents[@]}"; do
            for c in "$d"/cordon-"$pid"-*; do
                [ -d "$c" ] || continue
                fail_cgroups=$((fail_cgroups + 1))
                [ $fail_cgroups -le 5 ] && echo "# cgroup left: $c: $what"
                rmdir "$c" 2>/dev/null
            done
        done
    fi
    if [ "$(grep -c "$T" /proc/self/mountinfo)" != "$base_mounts" ]; then
        fail_mounts=$((fail_mounts + 1))
        [ $fail_mounts -le 5 ] && { echo "# host mount left: $what"; grep "$T" /proc/self/mountinfo | diag; }
    fi
    now=$(snapshot)
    if [ "$now" != "$base_files" ]; then
        fail_files=$((fail_files + 1))
        [ $fail_files -le 5 ] && { echo "# files changed: $what"; diff <(echo "$base_files") <(echo "$now") | diag; }
        rm -f "$PROTECTED"; rmdir "$PROTECTED" 2>/dev/null
    fi
    if [ "$(tmp_cordon)" != "$base_tmp" ] || ls -A /tmp 2>/dev/null | grep -qF "$mark"; then
        new=$(comm -13 <(echo "$base_tmp") <(tmp_cordon); ls -A /tmp 2>/dev/null | grep -F "$mark")
        if [ -n "$new" ]; then
            fail_tmp=$((fail_tmp + 1))
            [ $fail_tmp -le 5 ] && { echo "# /tmp entry left: $what"; echo "$new" | diag; }
        fi
    fi
done
echo "# $N launches: ${by_sig[9]} SIGKILL, ${by_sig[15]} SIGTERM, ${by_sig[2]} SIGINT, delays 0-$((MAX_US / 1000)) ms (cubed)"
report() { if [ "$2" -eq 0 ]; then ok "$1: none in $N launches"; else not_ok "$1: $2 of $N launches"; fi; }
report "a surviving process (subreaper)" $fail_leaks
report "a process with the launch's marker" $fail_marker
report "a cgroup of the killed launcher" $fail_cgroups
report "a host mount" $fail_mounts
report "a file in the instance root, the workspace or the project" $fail_files
report "a .cordon-* or marked entry in /tmp" $fail_tmp
report "an exit status other than the signal's or the command's" $fail_status

done_testing
