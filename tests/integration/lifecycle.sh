#!/bin/bash
# Lifecycle under fault injection: the launcher killed at any instant leaves
# nothing behind. Many launches (on the linux backend, every other five on
# the landlock backend) of
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

# A killed run's git-check journal (logs/gitcheck.*, or tmp-gitcheck.* while
# it was written) is left on purpose: a later run on the same writable
# paths checks the killed run's window and removes it (workspace.sh and
# landlock-git.sh test that).
# The saved listing of /etc (logs/view/tree) is replaced by an unlink and
# a link of a file written whole without a name (whole-file.c): a launcher
# killed between the two leaves no listing, which the next run makes
# again; what it writes is never left behind under any name.
snapshot() { find "$CI_ROOT" "$W" -xdev 2>/dev/null | grep -v '/logs/\(tmp-\)\?gitcheck\.\|/logs/view/tree$' | sort; }
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

# A process anywhere with the launch's marker in its command line or
# environment. -q: a match is a match even when another process vanished
# while grep read (without it, that error makes the status 2).
marked() { # MARK
    grep -qsF "1000.$1" /proc/[0-9]*/cmdline 2>/dev/null ||
        grep -qsF "CORDON_LIFECYCLE_MARK=$1" /proc/[0-9]*/environ 2>/dev/null
}
# What the killer left running (its "leak: PID ..." lines), once the checks
# have seen it.
kill_leaks() {
    local p
    for p in $(sed -n 's/^leak: \([0-9]*\) .*/\1/p' <<<"$1"); do kill -KILL "$p" 2>/dev/null; done
}

# Control for the detection itself: an unsandboxed `sh` whose background
# sleep outlives it is seen as a leak, and left running for the marker
# check, which sees it too.
m=$((100000 + RANDOM))
# (The killer's report goes to a file: what it leaves running holds the
# descriptors it inherited, which a $(...) would wait for.)
as_user KILLER_KEEP_LEAKS=1 "$KILLER" 9 =200000 1 300 -- sh -c "sleep 1000.$m & sleep 1000.$m" >"$T/killer.out" 2>&1
out=$(cat "$T/killer.out")
case $out in *"leaked "[1-9]*"leak: "*"sleep 1000.$m"*) ok "control: the killer sees a process that outlives what it killed" ;;
    *) not_ok "control: the killer sees a process that outlives what it killed"; echo "$out" | diag ;; esac
if marked "$m"; then ok "control: ... and the marker check sees it, left running"; else
    not_ok "control: ... and the marker check sees it, left running"; { cat "$T/killer.out"; ps -ef | grep "1000.$m"; } | diag; fi
kill_leaks "$out"

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
    # every other five on the landlock backend (its tree supervisor, no
    # pid namespace; it has no placeholders)
    if [ $((i / 5 % 2)) = 1 ]; then
        case $((i % 5)) in 1 | 4) extra=(--backend landlock "${LIMITS[@]}") ;; *) extra=(--backend landlock) ;; esac
    fi
    # the killer leaves what survived running: the marker check below
    # must see it too (then it is killed)
    (cd "$W" && as_user KILLER_KEEP_LEAKS=1 "$KILLER" "$sig" "$MAX_US" "$((RANDOM * 32768 + RANDOM))" 2000 -- \
        "$CORDON" run --quiet "${extra[@]}" --set "CORDON_LIFECYCLE_MARK=$mark" -- \
        sh -c "sleep 1000.$mark & sleep 1000.$mark & exec sleep 1000.$mark") >"$T/killer.out" 2>&1
    rc=$?
    out=$(cat "$T/killer.out")
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
    if marked "$mark"; then
        fail_marker=$((fail_marker + 1))
        [ $fail_marker -le 5 ] && { echo "# marked process left: $what"; grep -lsF "1000.$mark" /proc/[0-9]*/cmdline | diag; }
        pkill -KILL -f "1000.$mark" 2>/dev/null
    fi
    kill_leaks "$out"
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

# -- the launcher killed from outside, by a tree that tries to outlive it
# How a launcher dies from outside: a SIGKILL to it alone, to its process
# group (a terminal's job control, a supervisor killing a job), to every
# process of its session (pkill -s), or to its parent first and then to it
# (an orphaned launcher). How the command's tree tries to outlive it: a
# session and group of its own (setsid), a double fork (an orphan, handed
# to a subreaper), both at once. Each kill is made against the same tree
# without cordon first (the control: something survives), then on each
# backend (nothing may survive: the landlock backend's tree supervisor is
# not in the launcher's group nor session, and kills the tree on the
# launcher's death; the linux backend's init dies with it and takes its
# pid namespace along).
tree_of() { # MARK: a shell command for such a tree, three sleeps named MARK
    echo "setsid sh -c 'sleep 1000.$1 & exit' & (sleep 1000.$1 &); exec sleep 1000.$1"
}
sleeps() { pgrep -c -f "^sleep 1000\.$1\$"; }
# until N sleeps named MARK run (or 10 s): their count
await_sleeps() { # MARK N
    local i
    for i in $(seq 200); do [ "$(sleeps "$1")" -ge "$2" ] && break; sleep 0.05; done
    sleeps "$1"
}
# until none runs (or 3 s): how many survived
survivors() { # MARK
    local i
    for i in $(seq 60); do [ "$(sleeps "$1")" -eq 0 ] && break; sleep 0.05; done
    sleeps "$1"
}
# kill_job HOW PID: PID is a session and group leader; for "parent" it is
# the launcher's parent shell, killed first.
kill_job() {
    case $1 in
        alone) kill -KILL "$2" ;;
        group) kill -KILL -- "-$2" ;;
        session) pkill -KILL -s "$2" ;;
        parent)
            local child
            child=$(pgrep -P "$2" | head -1)
            kill -KILL "$2"
            sleep 0.2
            kill -KILL "$child" ;;
        *) return 1 ;;
    esac
}
# group_kill_run HOW MARK LAUNCHER...: start the launcher as the test user,
# in a session and group of its own (as a terminal starts a job), kill it
# once its tree runs; prints how many of the tree's processes survived.
group_kill_run() {
    local how=$1 mark=$2; shift 2
    local user=(env HOME="$H")
    is_root_run || user=(setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all -- "${user[@]}")
    [ "$how" = parent ] && set -- sh -c '"$@" & wait' sh "$@"
    (cd "$W" && exec "${user[@]}" setsid "$@" >/dev/null 2>&1 </dev/null) &
    local pid=$!
    if [ "$(await_sleeps "$mark" 3)" -lt 3 ]; then
        echo "tree did not start"
        kill -KILL -- "-$pid" 2>/dev/null
    else
        kill_job "$how" "$pid"
        survivors "$mark"
    fi
    wait "$pid" 2>/dev/null
    pkill -KILL -f "^sleep 1000\.$mark\$"
}
for how in alone group session parent; do
    mark=$((100000 + RANDOM % 900000))
    n=$(group_kill_run "$how" "$mark" sh -c "$(tree_of "$mark")")
    if [ "$n" -gt 0 ] 2>/dev/null; then ok "control: a kill ($how) of the tree's launcher without cordon leaves $n running"
    else not_ok "control: a kill ($how) of the tree's launcher without cordon leaves some running (got: $n)"; fi
    for backend in linux landlock; do
        mark=$((100000 + RANDOM % 900000))
        n=$(group_kill_run "$how" "$mark" "$CORDON" run --quiet --backend "$backend" -- sh -c "$(tree_of "$mark")")
        if [ "$n" = 0 ]; then ok "$backend backend: a SIGKILL ($how) of the launcher kills the setsid, double-forked tree"
        else not_ok "$backend backend: a SIGKILL ($how) of the launcher kills the setsid, double-forked tree (survivors: $n)"; fi
    done
done

done_testing
