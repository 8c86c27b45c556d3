#!/bin/bash
# Limits and lifecycle: wall-clock timeout, cgroup limits (memory, pids,
# cpus), rlimits (cpu time, open files, file size), /tmp size, fail-closed
# and best-effort, the --stats report and the one-line explanation. Each
# limit has a negative control: the same probe without the limit does what
# the limit prevents.
#
# cgroup limits run for real only where this user can create cgroups (root
# on this v1 host); as the unprivileged user they must fail closed instead.
. "$(dirname "$0")/lib.sh"

# A JSON field of a flat one-line object (the --stats format).
field() { sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1"; }
now() { date +%s.%N; }
# awk float comparison: in_range VALUE LOW HIGH
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
# Wait up to 5 s for a process whose command line starts with $1.
wait_for_proc() { for _ in $(seq 50); do pgrep -f "^$1" >/dev/null && return 0; sleep 0.1; done; return 1; }
gone_within() { # PATTERN SECONDS
    for _ in $(seq $(($2 * 10))); do pgrep -f "^$1" >/dev/null || return 0; sleep 0.1; done; return 1
}

# Can this user enforce cgroup limits here? (root on v1, delegated v2)
if is_root_run; then CG=yes; else CG=no; fi
x=$(cordon check 2>&1)
case "$x" in *"memory: v"[12]", usable"*) cg_usable=yes ;; *) cg_usable=no ;; esac
if [ $CG = yes ] && [ $cg_usable = yes ]; then ok "cordon check: the memory cgroup is usable as root"
elif [ $CG = no ] && [ $cg_usable = no ]; then ok "cordon check: the memory cgroup is not usable unprivileged"
else not_ok "cordon check reports cgroups as expected (root pass: $CG, usable: $cg_usable)"; echo "$x" | diag; fi
check_contains "cordon check names the cgroup setup" "cgroups: memory: v" cordon check

# ---- wall-clock timeout -------------------------------------------------------------

check_status "control: a short command ends normally under --timeout" 0 cordon run --timeout 5 -- sleep 0.2
marker=$((800000 + RANDOM))
t0=$(now)
( cd "$W" && as_user "$CORDON" run --timeout 1 -- sleep $marker >"$T/to.out" 2>&1; echo $? >"$T/to.st" ) &
bg=$!
wait_for_proc "sleep $marker" && ok "control: the sandboxed sleep is visible from the host" \
    || not_ok "control: the sandboxed sleep is visible from the host"
wait $bg
t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
st=$(cat "$T/to.st")
[ "$st" = 124 ] && ok "--timeout 1 on sleep exits 124" || { not_ok "--timeout 1 on sleep exits 124 (got $st)"; diag <"$T/to.out"; }
in_range "$t" 0.8 2.5 && ok "--timeout 1 ends in about 1 s ($t s)" || not_ok "--timeout 1 ends in about 1 s ($t s)"
pgrep -f "^sleep $marker" >/dev/null && not_ok "no sandbox process survives the timeout" || ok "no sandbox process survives the timeout"
grep -qx "cordon: command exceeded time limit 1s" "$T/to.out" && ok "the timeout is explained on stderr" \
    || { not_ok "the timeout is explained on stderr"; diag <"$T/to.out"; }
check_out "--quiet drops the explanation" "" cordon run --quiet --timeout 0.3 -- sleep 5
check_status "fractional --timeout 0.3" 124 cordon run --timeout 0.3 -- sleep 5

# The command itself ignores SIGTERM: SIGKILL after --kill-after.
marker=$((800000 + RANDOM))
t0=$(now)
check_status "a command ignoring SIGTERM is killed after --kill-after: 124" 124 \
    cordon run --quiet --timeout 0.5 --kill-after 1 -- "$PROBE" sleep-ignore-term $marker
t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
in_range "$t" 1.3 3.5 && ok "... after the 1 s grace ($t s)" || not_ok "... after the 1 s grace ($t s)"
gone_within "$PROBE sleep-ignore-term $marker" 1 && ok "... and it is gone" || not_ok "... and it is gone"

# A background grandchild that ignores SIGTERM outlives its parent's death
# by SIGTERM; the sandbox still kills it.
marker=$((800000 + RANDOM))
( cd "$W" && as_user "$CORDON" run --quiet --timeout 1.5 --expose "$T/bin" -- \
      sh -c "\"$PROBE\" sleep-ignore-term $marker & sleep 600" >/dev/null 2>&1; echo $? >"$T/gc.st" ) &
bg=$!
wait_for_proc "$PROBE sleep-ignore-term $marker" && ok "control: the TERM-ignoring grandchild runs" \
    || not_ok "control: the TERM-ignoring grandchild runs"
wait $bg
[ "$(cat "$T/gc.st")" = 124 ] && ok "timeout with a TERM-ignoring grandchild: 124" || not_ok "timeout with a TERM-ignoring grandchild: 124 (got $(cat "$T/gc.st"))"
gone_within "$PROBE sleep-ignore-term $marker" 1 && ok "the TERM-ignoring grandchild does not survive" \
    || { not_ok "the TERM-ignoring grandchild does not survive"; pkill -KILL -f "^$PROBE sleep-ignore-term $marker"; }

# ---- --stats ------------------------------------------------------------------------------

cordon run --stats "$W/exit.json" -- sh -c 'exit 3' >/dev/null 2>&1
check_out "stats, normal exit: exit_code" "3" field "$W/exit.json" exit_code
check_out "stats, normal exit: signal" "0" field "$W/exit.json" signal
check_out "stats, normal exit: timed_out" "false" field "$W/exit.json" timed_out
check_out "stats, normal exit: oom_killed" "false" field "$W/exit.json" oom_killed
ok_stats=yes
for k in wall_s user_s sys_s max_rss_bytes pids_peak; do
    v=$(field "$W/exit.json" $k)
    in_range "${v:-x}" 0 1e15 || ok_stats="no ($k=$v)"
done
[ "$ok_stats" = yes ] && ok "stats, normal exit: wall_s user_s sys_s max_rss_bytes pids_peak are numbers" \
    || { not_ok "stats: numeric fields ($ok_stats)"; diag <"$W/exit.json"; }
in_range "$(field "$W/exit.json" max_rss_bytes)" 1 1e12 && ok "stats: max_rss_bytes is known" || not_ok "stats: max_rss_bytes is known"
check_out "stats is one line of JSON" "1" sh -c "wc -l < '$W/exit.json' | tr -d ' '"
cordon run --stats-fd 3 -- true 3>"$W/fd.json" >/dev/null 2>&1
check_out "--stats-fd writes the report to the descriptor" "0" field "$W/fd.json" exit_code
cordon run --quiet --timeout 0.3 --stats "$W/to.json" -- sleep 5 >/dev/null 2>&1
check_out "stats, timeout: timed_out" "true" field "$W/to.json" timed_out
check_out "stats, timeout: status 124" "124" field "$W/to.json" status
check_out "stats, timeout: signal (SIGTERM)" "15" field "$W/to.json" signal
check_out "stats, timeout: exit_code" "-1" field "$W/to.json" exit_code
in_range "$(field "$W/to.json" wall_s)" 0.25 2 && ok "stats, timeout: wall_s about 0.3" || not_ok "stats, timeout: wall_s about 0.3 ($(field "$W/to.json" wall_s))"

# ---- memory (cgroup) ---------------------------------------------------------------------

check_out "control: 300 MiB can be allocated without a limit" "OK" cordon run -- "$PROBE" alloc 300
touch "$T/stamp"
if [ $CG = yes ]; then
    check_out "control: 300 MiB fit in --memory 1G" "OK" cordon run --memory 1G -- "$PROBE" alloc 300
    cordon run --memory 100M --stats "$W/oom.json" -- "$PROBE" alloc 1024 >"$T/oom.out" 2>&1
    st=$?
    [ $st = 137 ] && ok "1 GiB under --memory 100M is killed (137)" || { not_ok "1 GiB under --memory 100M is killed (got $st)"; diag <"$T/oom.out"; }
    check_out "stats, OOM: oom_killed" "true" field "$W/oom.json" oom_killed
    check_out "stats, OOM: signal 9" "9" field "$W/oom.json" signal
    in_range "$(field "$W/oom.json" max_rss_bytes)" 50000000 110000000 && ok "stats, OOM: peak memory near the limit" \
        || not_ok "stats, OOM: peak memory near the limit ($(field "$W/oom.json" max_rss_bytes))"
    grep -qx "cordon: command exceeded memory limit 100M" "$T/oom.out" && ok "the OOM kill is explained with the value" \
        || { not_ok "the OOM kill is explained with the value"; diag <"$T/oom.out"; }
    check_out "control: 150 MB fit in /tmp" "OK" cordon run -- "$PROBE" write-bytes /tmp/big 150000000
    check_status "/tmp (tmpfs) counts against --memory: the writer is OOM-killed" 137 \
        cordon run --quiet --memory 64M -- "$PROBE" write-bytes /tmp/big 150000000
    # The kernel holds the value while it runs, and the cgroup goes afterwards.
    ( cd "$W" && exec env HOME="$H" "$CORDON" run --memory 100M -- sleep 1.5 ) >/dev/null 2>&1 &
    cpid=$!
    sleep 0.7
    dir=$(find /sys/fs/cgroup/memory /sys/fs/cgroup -maxdepth 6 -type d -name "cordon-$cpid-*" 2>/dev/null | head -1)
    lim=$(cat "$dir/memory.limit_in_bytes" "$dir/memory.max" 2>/dev/null | head -1)
    [ "$lim" = 104857600 ] && ok "the sandbox's cgroup holds the limit while it runs ($dir)" \
        || not_ok "the sandbox's cgroup holds the limit while it runs (dir '$dir', limit '$lim')"
    wait $cpid
    [ -n "$dir" ] && [ ! -e "$dir" ] && ok "the cgroup is removed afterwards" || not_ok "the cgroup is removed afterwards ($dir)"
else
    check_status "unprivileged --memory fails closed: 125" 125 cordon run --memory 100M -- echo ran
    check_out "... and the command never ran" "" cordon run --memory 100M -- echo ran
    check_contains "... naming the limit and the cause" "cannot enforce the memory limit 100M (--memory): the cgroup v1 hierarchy" \
        cordon run --memory 100M -- true
    check_contains "... and the way out" "--limits-best-effort" cordon run --memory 100M -- true
    cordon run --memory 100M --limits-best-effort -- echo ran >"$T/be.stdout" 2>"$T/be.out"
    st=$?
    [ $st = 0 ] && [ "$(cat "$T/be.stdout")" = ran ] && ok "--limits-best-effort runs the command" || { not_ok "--limits-best-effort runs the command ($st)"; diag <"$T/be.out"; }
    n=$(grep -c "^cordon: warning: limits_best_effort: running without the memory limit 100M" "$T/be.out")
    [ "$n" = 1 ] && [ "$(wc -l <"$T/be.out")" = 1 ] && ok "... warning once on stderr" || { not_ok "... warning once on stderr"; diag <"$T/be.out"; }
    echo '{"isolation": {"limits_best_effort": true, "limits": {"memory_bytes": "100M", "pids": 10}}}' >"$T/be.json"
    chmod 644 "$T/be.json"
    cordon run --config "$T/be.json" -- true >"$T/be2.out" 2>&1
    st=$?
    # the process limit falls to RLIMIT_NPROC: the warning is the memory limit's alone
    [ $st = 0 ] && [ "$(grep -c warning "$T/be2.out")" = 1 ] && grep -q "the memory limit 100M (--memory)" "$T/be2.out" &&
        ! grep -q -- "--pids" "$T/be2.out" \
        && ok "config limits_best_effort: runs, one warning, for the memory limit only" \
        || { not_ok "config limits_best_effort: runs, one warning, for the memory limit only ($st)"; diag <"$T/be2.out"; }
    check_status "unprivileged --cpus fails closed" 125 cordon run --cpus 0.5 -- true
    echo "# the OOM kill, the pids and CPU share limits run in the root pass: cgroups are root's on this host"
fi

# ---- pids (cgroup, else RLIMIT_NPROC) ----------------------------------------------------

check_out "control: 200 processes without a limit" "200" cordon run -- "$PROBE" fork-many 200
# Without a pids cgroup (as the unprivileged user on this v1 host) the
# limit is RLIMIT_NPROC, counted in the sandbox's own user namespace
# (Linux >= 5.14): the same cap, and cordon check and cordon plan say so.
kernel_ok=no
awk -F. '{ exit !($1 > 5 || ($1 == 5 && $2 >= 14)) }' /proc/sys/kernel/osrelease && kernel_ok=yes
if [ $CG = no ] && [ $kernel_ok = yes ]; then
    check_contains "cordon check: the process limit is RLIMIT_NPROC" \
        "process limit (--pids): RLIMIT_NPROC in the sandbox's user namespace (no pids cgroup: " cordon check
    check_contains "cordon plan: ... and says so" "pids=16 (by RLIMIT_NPROC in the sandbox's user namespace)" \
        cordon plan --pids 16 -- true
    out=$(cordon run --pids 16 -- "$PROBE" fork-many 200 2>"$T/nproc.err")
    # 16 processes for the command: the probe and 15 children
    [ "$out" = 15 ] && ok "a fork bomb under --pids 16 without a cgroup stays at 16 processes (made $out children)" \
        || { not_ok "a fork bomb under --pids 16 without a cgroup stays at 16 processes (made '$out')"; diag <"$T/nproc.err"; }
    check_out "... the limit counts only the sandbox: the host can still fork" "50" as_user "$PROBE" fork-many 50
    # per sandbox, not per user: another sandbox holding 13 tasks meanwhile
    # does not count against this one
    ( cd "$W" && as_user "$CORDON" run --pids 16 -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 3 & done; echo held; wait' >"$T/held.out" 2>&1 ) &
    bg=$!
    for _ in $(seq 50); do grep -q held "$T/held.out" 2>/dev/null && break; sleep 0.1; done
    check_out "... counted per sandbox: another one holding 13 tasks meanwhile does not count" "15" \
        cordon run --pids 16 -- "$PROBE" fork-many 200
    wait $bg
    check_status "--pids on the landlock backend (no user namespace) fails closed" 125 \
        cordon run --backend landlock --pids 16 -- true
    check_contains "... saying why RLIMIT_NPROC cannot stand in" "RLIMIT_NPROC cannot stand in" \
        cordon run --backend landlock --pids 16 -- true
elif [ $CG = no ]; then
    check_status "unprivileged --pids fails closed before Linux 5.14" 125 cordon run --pids 32 -- true
else
    check_contains "cordon check: the process limit is the pids cgroup" "process limit (--pids): the pids cgroup" cordon check
fi
if [ $CG = yes ]; then
    out=$(cordon run --pids 32 --stats "$W/pids.json" -- "$PROBE" fork-many 200 2>"$T/pids.err")
    # 32 processes for the command: the probe and 31 children
    [ "$out" = 31 ] && ok "a fork bomb under --pids 32 stays at 32 processes (made $out children)" \
        || { not_ok "a fork bomb under --pids 32 stays at 32 processes (made '$out')"; diag <"$T/pids.err"; }
    check_out "stats: pids_limited" "true" field "$W/pids.json" pids_limited
    check_out "stats: pids_peak is the limit" "32" field "$W/pids.json" pids_peak
    check_out "the host can still fork afterwards" "50" as_user "$PROBE" fork-many 50
fi

# ---- CPU share (cgroup) -------------------------------------------------------------------

ratio() { awk -v w="$(field "$1" wall_s)" -v u="$(field "$1" user_s)" -v s="$(field "$1" sys_s)" 'BEGIN { printf "%.2f", (u + s) / w }'; }
if [ $CG = yes ]; then
    # The kernel holds the quota while the sandbox runs (independent of load).
    ( cd "$W" && exec env HOME="$H" "$CORDON" run --cpus 0.5 -- sleep 1.5 ) >/dev/null 2>&1 &
    cpid=$!
    sleep 0.7
    dir=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "cordon-$cpid-*" 2>/dev/null | head -1)
    q=$(cat "$dir/cpu.cfs_quota_us" 2>/dev/null)/$(cat "$dir/cpu.cfs_period_us" 2>/dev/null)
    [ -f "$dir/cpu.max" ] && q=$(tr ' ' / <"$dir/cpu.max")
    [ "$q" = 50000/100000 ] && ok "--cpus 0.5: the sandbox's cgroup holds quota/period $q" \
        || not_ok "--cpus 0.5: the sandbox's cgroup holds quota/period 50000/100000 (dir '$dir', got '$q')"
    wait $cpid
    # The effect, measured: CPU time over wall time. The control needs a
    # whole CPU to be free; on a busy machine (up to three tries) it cannot
    # tell, and says so.
    rs=""
    for _ in 1 2 3; do
        cordon run --quiet --timeout 2 --stats "$W/spin.json" -- "$PROBE" spin >/dev/null 2>&1
        r=$(ratio "$W/spin.json"); rs="$rs $r"
        in_range "$r" 0.7 1.1 && break
    done
    in_range "$r" 0.7 1.1 && ok "control: a busy loop uses a whole CPU ($rs)" \
        || skip "control: a busy loop uses a whole CPU" "the host is too busy: an unlimited busy loop got only$rs of a CPU"
    cordon run --quiet --cpus 0.5 --timeout 3 --stats "$W/half.json" -- "$PROBE" spin >/dev/null 2>&1
    r=$(ratio "$W/half.json")
    in_range "$r" 0.3 0.65 && ok "--cpus 0.5: a busy loop uses about half a CPU ($r)" || not_ok "--cpus 0.5: a busy loop uses about half a CPU ($r)"
fi

# ---- CPU time (RLIMIT_CPU) ----------------------------------------------------------------

check_status "control: a busy loop runs until the timeout" 124 cordon run --quiet --timeout 1.5 -- "$PROBE" spin
t0=$(now)
cordon run --cpu-time 1 --stats "$W/cpu.json" -- "$PROBE" spin >"$T/cpu.out" 2>&1
st=$?
t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
case $st in 152|137) ok "--cpu-time 1 ends a busy loop by SIGXCPU/SIGKILL ($st)" ;; *) not_ok "--cpu-time 1 ends a busy loop by SIGXCPU/SIGKILL (got $st)"; diag <"$T/cpu.out" ;; esac
in_range "$t" 0.8 4 && ok "... in about a second ($t s)" || not_ok "... in about a second ($t s)"
check_out "stats: cpu_limited" "true" field "$W/cpu.json" cpu_limited
grep -qx "cordon: command exceeded CPU time limit 1s" "$T/cpu.out" && ok "the CPU time kill is explained" || { not_ok "the CPU time kill is explained"; diag <"$T/cpu.out"; }
# Catching SIGXCPU does not help: SIGKILL one second later.
check_status "a process catching SIGXCPU is killed at the hard limit (137)" 137 cordon run --quiet --cpu-time 1 -- \
    sh -c 'trap "" XCPU; while :; do :; done'

# ---- open files and file size (rlimits) ------------------------------------------------------

check_out "control: 100 files can be open" "100 OK" cordon run -- "$PROBE" open-many 100
check_out "--nofile 16 caps open files (13 besides stdio)" "13 EMFILE" cordon run --nofile 16 -- "$PROBE" open-many 100
hard=$(ulimit -Hn)
check_status "control: --nofile at the hard limit ($hard) runs" 0 cordon run --nofile "$hard" -- true
check_status "--nofile above the hard limit fails closed: 125" 125 cordon run --nofile $((hard + 1)) -- true
check_contains "... naming the limit and the fix" "the open files limit $((hard + 1)) (--nofile) is above this process's hard limit $hard" \
    cordon run --nofile $((hard + 1)) -- true
check_out "control: a 200 kB file can be written" "OK" cordon run -- "$PROBE" write-bytes /tmp/f 200000
check_out "--fsize 100K: writing past it fails with EFBIG" "EFBIG" cordon run --fsize 100K -- "$PROBE" write-bytes /tmp/f 200000
check_out "--fsize 100K: a smaller file is fine" "OK" cordon run --fsize 100K -- "$PROBE" write-bytes /tmp/f 100000

# ---- /tmp size -------------------------------------------------------------------------------

tmp_kb() { cordon run "$@" -- df -k /tmp | awk 'NR == 2 { print $2 }'; }
kb=$(tmp_kb)
[ "${kb:-0}" -gt 1024 ] 2>/dev/null && ok "control: /tmp is larger than 1 MiB by default ($kb kB)" || not_ok "control: /tmp is larger than 1 MiB by default ($kb kB)"
ram_kb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)
in_range "$kb" $((ram_kb / 4 - 8192)) $((ram_kb / 4 + 8192)) && ok "/tmp defaults to 25% of RAM" || not_ok "/tmp defaults to 25% of RAM ($kb of $ram_kb kB)"
check_out "--tmp-size 1M makes /tmp 1 MiB" "1024" tmp_kb --tmp-size 1M
check_out "control: 2 MB fit in /tmp" "OK" cordon run -- "$PROBE" write-bytes /tmp/big 2000000
check_out "--tmp-size 1M: 2 MB do not fit (ENOSPC)" "ENOSPC" cordon run --tmp-size 1M -- "$PROBE" write-bytes /tmp/big 2000000

# ---- fail closed where a limit has no mechanism ------------------------------------------------

# With isolation disabled there is no private /tmp to size.
echo '{"isolation": {"enabled": false}}' >"$T/off.json"; chmod 644 "$T/off.json"
check_status "--tmp-size without a private /tmp (isolation disabled) fails closed" 125 \
    cordon run --config "$T/off.json" --tmp-size 1M -- echo ran
check_out "... and the command never ran" "" cordon run --config "$T/off.json" --tmp-size 1M -- echo ran
check_contains "... saying why" "cannot enforce the /tmp size 1M (--tmp-size): only the linux backend mounts a private /tmp" \
    cordon run --config "$T/off.json" --tmp-size 1M -- true
cordon run --config "$T/off.json" --tmp-size 1M --limits-best-effort -- echo ran >"$T/off.stdout" 2>"$T/off.err"
[ "$(cat "$T/off.stdout")" = ran ] && grep -q "^cordon: warning: limits_best_effort: running without the /tmp size 1M" "$T/off.err" \
    && ok "... and runs with --limits-best-effort, warning" || { not_ok "... and runs with --limits-best-effort, warning"; diag <"$T/off.err"; }
marker=$((800000 + RANDOM))
check_status "--timeout with isolation disabled: 124" 124 cordon run --quiet --config "$T/off.json" --timeout 0.5 -- sleep $marker
gone_within "sleep $marker" 1 && ok "... and the command is gone" || { not_ok "... and the command is gone"; pkill -f "^sleep $marker"; }

done_testing
