#!/bin/bash
# The workspace is hostile: the small hardening items, each property with
# its control (the same probe succeeding unsandboxed, or with the knob off).
. "$(dirname "$0")/lib.sh"
unset CORDON_DEBUG
mkdir -p "$T/data"; echo secret >"$T/data/file"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/data"

# cordon with CORDON_DEBUG=$1
cordon_debug() { local v=$1; shift; (export CORDON_DEBUG="$v"; cordon "$@"); }
# ok when file $2 has (or, with "!" first, lacks) the fixed string $3
has() { local neg=""; [ "$1" = "!" ] && { neg=1; shift; }
    local d=$1 f=$2 s=$3
    if grep -qF -- "$s" "$f"; then [ -z "$neg" ] && ok "$d" || { not_ok "$d"; diag <"$f"; }
    else [ -n "$neg" ] && ok "$d" || { not_ok "$d (no \"$s\")"; diag <"$f"; }; fi
}

# -- CORDON_DEBUG takes whole words. The read-only bind lies outside the
# writable /tmp (Landlock follows the path hierarchy) and Landlock is off, so
# the mount is the only wall.
ro_create=(run --landlock off --expose "$T/data:/opt/cordon-data" -- "$PROBE" create /opt/cordon-data/x)
check_out "CORDON_DEBUG=no-rw-binds-please: a ro bind stays read-only" "EROFS" \
    cordon_debug no-rw-binds-please "${ro_create[@]}"
cordon_debug no-rw-binds-please run -- true 2>"$T/dbg.err"
has ! "... and there is no rw-binds warning" "$T/dbg.err" "rw-binds: read-only binds"
has "... but a warning names the unknown word" "$T/dbg.err" 'CORDON_DEBUG: unknown word "no-rw-binds-please"'
check "... and nothing was written" test ! -e "$T/data/x"
check_out "control: CORDON_DEBUG=rw-binds makes the ro bind writable" "OK" cordon_debug rw-binds "${ro_create[@]}"
rm -f "$T/data/x"
cordon_debug timing,rw-binds run -- true 2>"$T/dbg.err"
has "control: ... and warns (in a list of words)" "$T/dbg.err" "CORDON_DEBUG=rw-binds: read-only binds"
has "... while the other word of the list works too" "$T/dbg.err" "timing (ms)"
# -- CORDON_DEBUG=timing: one line naming every phase (no time asserted)
cordon_debug timing run --workspace "$T/data" -- true 2>"$T/timing.err"
for w in "plan " ", instance " ", git " ", namespaces " ", mounts " "(system " ", dev " ", proc " ", workspace " \
    ", seal " ", caps " ", landlock " ", seccomp " ", exec " "; total "; do
    has "timing: the line names \"$w\"" "$T/timing.err" "$w"
done
check_out "timing: it is one line" "1" sh -c "grep -c 'timing (ms)' '$T/timing.err'"
# and one after the command: the clean-up the caller waits for
for w in "timing after the command (ms): stop " ", placeholders " ", gitcheck " ", cleanup " "; total "; do
    has "timing after the command: the line names \"$w\"" "$T/timing.err" "$w"
done
check_out "... it is one line too" "1" sh -c "grep -c 'timing after the command (ms)' '$T/timing.err'"
cordon_debug timing run --backend landlock -- true 2>"$T/timing-ll.err"
for w in "plan " ", git " ", namespaces " ", landlock " ", seccomp " ", exec "; do
    has "timing, landlock backend: the line names \"$w\"" "$T/timing-ll.err" "$w"
done
has ! "timing, landlock backend: no mounts" "$T/timing-ll.err" ", mounts "
cordon run -- true 2>"$T/notiming.err"
has ! "control: without CORDON_DEBUG=timing there is no timing line" "$T/notiming.err" "timing (ms)"
has ! "... nor the one after the command" "$T/notiming.err" "timing after"

# -- rw-binds never touches protected paths nor cordon's hidden logs/
repo=$T/repo; mkdir -p "$repo/.git/hooks"; echo "[core]" >"$repo/.git/config"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$repo"
# the first write shows the knob is on: Landlock alone refuses it, or nothing
for ll in best_effort off; do
    out=$(cordon_debug rw-binds run --landlock $ll --expose "$T/bin" --expose "$T/data:/opt/cordon-data" \
        --expose "$repo:rw" -- sh -c "\"$PROBE\" create /opt/cordon-data/y-$ll
            \"$PROBE\" create \"$repo/.git/hooks/x\"; \"$PROBE\" append \"$repo/.git/config\" x
            \"$PROBE\" create \"$H/.cordon/logs/x\"" 2>"$T/rw.err" | tr '\n' ' ')
    want="EACCES EROFS EROFS EROFS "; [ $ll = off ] && want="OK EROFS EROFS EROFS "
    d="rw-binds, landlock $ll: .git/hooks, .git/config and logs/ stay read-only"
    [ "$out" = "$want" ] && ok "$d ($out)" || { not_ok "$d ($out, want $want)"; diag <"$T/rw.err"; }
done
check "... and nothing was planted on the host" test ! -e "$repo/.git/hooks/x"
check "... nor .git/config changed" test "$(cat "$repo/.git/config")" = "[core]"
rmdir "$repo/.git/hooks"
check_out "rw-binds: a missing .git/hooks (a placeholder) cannot be created" "EROFS" \
    cordon_debug rw-binds run --landlock off --expose "$repo:rw" -- "$PROBE" create "$repo/.git/hooks/x"
check "... and nothing is left on the host" test ! -e "$repo/.git/hooks"
mkdir -p "$repo/.git/hooks"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$repo/.git/hooks"
check_out "control: .git/hooks is writable unsandboxed" "OK" as_user "$PROBE" create "$repo/.git/hooks/control"
rm -f "$repo/.git/hooks/control"

# -- /dev/shm is sized like /tmp (--tmp-size, default a quarter of RAM)
check_out "--tmp-size 1M: 2 MiB do not fit in /dev/shm" "ENOSPC" \
    cordon run --tmp-size 1M -- "$PROBE" write-bytes /dev/shm/big 2097152
check_out "--tmp-size 1M: 512 KiB fit in /dev/shm" "OK" \
    cordon run --tmp-size 1M -- "$PROBE" write-bytes /dev/shm/small 524288
check_out "control: without --tmp-size, 2 MiB fit in /dev/shm" "OK" \
    cordon run -- "$PROBE" write-bytes /dev/shm/big 2097152
check_out "... as in /tmp" "ENOSPC" cordon run --tmp-size 1M -- "$PROBE" write-bytes /tmp/big 2097152

# -- seccomp: calls libseccomp cannot name, and other architectures' calls
calls="open_tree_attr"
if [ "$(uname -m)" = x86_64 ]; then
    calls="$calls modify_ldt"
    if [ "$(as_user "$PROBE" syscall getpid-i386 2>&1)" = OK ]; then
        calls="$calls umount-i386 umount2-i386 open_tree_attr-i386 modify_ldt-i386"
    else
        skip "i386 system calls" "no ia32 emulation (int \$0x80 fails)"
    fi
fi
for c in $calls; do
    ctl=$(as_user "$PROBE" syscall $c 2>&1)
    case $ctl in EPERM|E\?|"") not_ok "control: $c is not refused unsandboxed ($ctl)";;
        *) ok "control: $c is not refused unsandboxed ($ctl)";; esac
    for backend in linux landlock; do
        check_out "$backend: $c fails with EPERM" "EPERM" cordon run --backend $backend -- "$PROBE" syscall $c
    done
done
# -- a path with a colon: --expose-ro/--expose-rw take the argument whole,
# --expose takes "\:"
xd="$T/x:rw"; mkdir -p "$xd"; echo inside >"$xd/f"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$xd"
check_status "control: --expose $xd reads it as $T/x, rw (which does not exist)" 125 \
    cordon run --expose "$xd" -- true
check_contains "... and says so" "--expose $xd: source does not exist" cordon run --expose "$xd" -- true
check_out "--expose-ro: a directory named x:rw is visible" "inside" cordon run --expose-ro "$xd" -- "$PROBE" read "$xd/f"
check_out "... and read-only" "EROFS" cordon run --expose-ro "$xd" -- "$PROBE" create "$xd/new"
check_out "control: --expose-rw makes it writable" "OK" cordon run --expose-rw "$xd" -- "$PROBE" create "$xd/new"
check "... on the host" test -e "$xd/new"
check_out "--expose with \\: exposes it read-only" "EROFS" \
    cordon run --expose "$T/bin" --expose "${xd%:rw}\\:rw" -- sh -c "cat '$xd/f' >/dev/null && '$PROBE' create '$xd/new2'"
check_out "... or read-write with :rw after it" "OK" \
    cordon run --expose "${xd%:rw}\\:rw:rw" -- "$PROBE" create "$xd/new3"
# -- --stats FILE is opened before the command, never through a symlink
echo original >"$T/victim"
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/victim"
as_user ln -s "$T/victim" "$W/stats.json"
check_status "--stats on a symlink: exit 125" 125 \
    cordon run --expose "$W:rw" --stats "$W/stats.json" -- "$PROBE" create "$W/marker"
check_contains "... naming the path and saying it is a symlink" "--stats $W/stats.json: is a symlink" \
    cordon run --expose "$W:rw" --stats "$W/stats.json" -- "$PROBE" create "$W/marker"
check "... the link's target is unchanged" test "$(cat "$T/victim")" = original
check "... the link is still there" test -L "$W/stats.json"
check "... and the command did not run" test ! -e "$W/marker"
check_status "control: --stats on a plain path runs the command" 0 \
    cordon run --expose "$W:rw" --stats "$W/plain.json" -- "$PROBE" create "$W/marker"
check "... which ran" test -e "$W/marker"
check_contains "... and the report is there" '"exit_code": 0' cat "$W/plain.json"
check_out "... readable by its owner only" "600" stat -c %a "$W/plain.json"
echo "old report, longer than the new one: ${W//?/x}${W//?/x}" >"$W/plain.json"
cordon run --stats "$W/plain.json" -- sh -c 'exit 3' >/dev/null 2>&1
check_contains "control: --stats replaces an existing plain file" '"exit_code": 3' cat "$W/plain.json"
check_out "... whole (truncated first)" "0" grep -c "old report" "$W/plain.json"
done_testing
