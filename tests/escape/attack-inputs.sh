#!/bin/bash
# The files cordon opens on the host by a path on its command line, when
# the path lies where the command writes (the workspace): the command
# plants something there in one run, a model passes the path in the next.
#
# How an attacker would use this surface, each tested below:
#   S  --stats FILE: a symlink as FILE (cordon would overwrite its target
#      with the caller's rights), a symlink as a directory on the way
#      (ws/sub/authorized_keys, sub -> ~/.ssh), a fifo as FILE (the open
#      blocks for good: cordon hangs, SIGTERM does not end it), a hard
#      link to a file elsewhere (made where the command shares a file
#      system with it, or left by another tool)
#   C  --config FILE: a fifo (the read blocks for good), /dev/zero or a
#      huge file (the read fills the memory)
#   W  --config FILE that lies in a path this run makes writable (the
#      workspace, an rw exposure, the instance root), written by the
#      command in an earlier run ("enabled": false, an rw exposure of the
#      home): by its name, relative, through a symlink, as a profile
#      ($CORDON_PROFILE_PATH in the workspace); on every backend
#   P  --profile NAME: a path as the name (../ws/evil) loads a file the
#      command wrote
#   R  /run, /var/run, /run/user, /run/user/UID as the workspace or an rw
#      exposure (every host daemon's and session's socket connectable),
#      by any spelling (trailing slash, //, a symlink to it)
#   X  the exit-status contract: the command's own 125 against cordon's
#      (told apart by the record), 126, 127, 124, 128+N with the record
# Each refusal exits 125 at once, and the host file stays as it was.
. "$(dirname "$0")/../integration/lib.sh"

OUT=$T/outside
mkdir -p "$OUT" "$T/ws"
own() { if [ "$TEST_AS" = user ]; then chown -R $TEST_UID:$TEST_GID "$@"; fi; }
own "$OUT" "$T/ws"
WS=$T/ws
run() { (cd "$WS" && as_user timeout -k 5 30 "$CORDON" run --workspace "$WS" -C "$WS" "$@"); }
capture() { "$@" >"$T/.out" 2>&1; RC=$?; }
refused() {
    if [ "$RC" -eq 125 ] && grep -qF -- "$2" "$T/.out"; then ok "$1"; else
        not_ok "$1 (status $RC, want 125 and \"$2\")"; diag <"$T/.out"; fi
}
victim() { echo keep >"$OUT/$1"; own "$OUT/$1"; }

# ---- S. --stats FILE planted by the command ---------------------------------------------
victim authorized_keys
check "plant: the command links ws/sub to a host directory" run -- ln -s "$OUT" "$WS/sub"
as_user sh -c "echo x >'$WS/sub/ctl'" 2>/dev/null
check "control: a write through ws/sub reaches the host directory" test -s "$OUT/ctl"
capture run --stats "$WS/sub/authorized_keys" -- true
refused "--stats through a planted directory symlink is refused" "passes through a symlink"
check_out "... and the host file is unchanged" keep cat "$OUT/authorized_keys"
capture run --stats sub/authorized_keys -- true
refused "... also as a relative path" "passes through a symlink"

victim report
check "plant: the command links ws/st.json to a host file" run -- ln -s "$OUT/report" "$WS/st.json"
capture run --stats "$WS/st.json" -- true
refused "--stats on a planted symlink is refused" "st.json: is a symlink"
check_out "... and the host file is unchanged" keep cat "$OUT/report"

check "plant: the command makes a fifo ws/fifo.json" run -- mkfifo "$WS/fifo.json"
check_status "control: writing to that fifo blocks" 124 as_user timeout 2 sh -c "echo x >'$WS/fifo.json'"
SECONDS=0
capture run --stats "$WS/fifo.json" -- true
refused "--stats on a planted fifo is refused" "not a regular file"
check "... at once (no hang)" test "$SECONDS" -lt 20

victim hl
as_user ln "$OUT/hl" "$WS/hl.json" 2>/dev/null || { ln "$OUT/hl" "$WS/hl.json"; }
check "control: ws/hl.json is a hard link of a host file" test "$OUT/hl" -ef "$WS/hl.json"
capture run --stats "$WS/hl.json" -- true
refused "--stats on a hard link is refused" "has other hard links"
check_out "... and the host file is unchanged" keep cat "$OUT/hl"

capture run --stats "$WS/good.json" -- true
check_contains "control: --stats on a new file in the workspace is written" '"exit_code": 0' cat "$WS/good.json"
capture run --stats /dev/null -- true
check "control: --stats /dev/null is fine (status $RC)" test "$RC" -eq 0

# ---- C. --config FILE planted by the command ---------------------------------------------
check "plant: the command makes a fifo ws/cfg.json" run -- mkfifo "$WS/cfg.json"
check_status "control: reading that fifo blocks" 124 as_user timeout 2 cat "$WS/cfg.json"
SECONDS=0
capture run --config "$WS/cfg.json" -- true
refused "--config on a fifo is refused" "not a regular file"
check "... at once (no hang)" test "$SECONDS" -lt 20
capture as_user sh -c "cd '$WS' && echo '{}' | timeout 30 '$CORDON' run --workspace '$WS' --config /dev/fd/0 -- true"
check "control: --config of a pipe the caller passes (/dev/fd/N) is read (status $RC)" test "$RC" -eq 0
capture run --config /dev/zero -- true
refused "--config /dev/zero is refused (no endless read)" "not a regular file"
as_user truncate -s 5M "$T/big.json" 2>/dev/null || { truncate -s 5M "$T/big.json"; own "$T/big.json"; }
capture run --config "$T/big.json" -- true
refused "--config on a 5 MiB file is refused" "larger than 4 MiB"

# ---- W. --config FILE written by the command -----------------------------------------------
mkdir -p "$T/rw" "$T/prof"; own "$T/rw"
check "plant: the command writes ws/off.json disabling isolation" \
    run -- sh -c "echo '{\"isolation\": {\"enabled\": false}}' >'$WS/off.json'"
check "plant: ... and a profile in the workspace" run -- sh -c "echo '{\"isolation\": {\"enabled\": false}}' >'$WS/off-p.json'"
echo '{"isolation": {"enabled": false}}' >"$T/rw/off.json"; own "$T/rw/off.json"
echo '{"isolation": {"enabled": false}}' >"$T/prof/off-p.json"; chmod 644 "$T/prof/off-p.json"
capture run --config "$T/rw/off.json" -- sh -c "touch '$OUT/escaped'"
check "control: a config outside the writable paths disables isolation (the command wrote outside)" test -e "$OUT/escaped"
rm -f "$OUT/escaped"
as_user ln -s "$WS" "$T/ws-link" 2>/dev/null || ln -s "$WS" "$T/ws-link"
for be in linux landlock; do
    for cfg in "$WS/off.json" off.json "$T/ws-link/off.json"; do
        capture run --backend $be --config "$cfg" -- sh -c "touch '$OUT/escaped'"
        refused "$be: --config $cfg in the workspace is refused" "which this run makes writable"
    done
    capture run --backend $be --expose "$T/rw:rw" --config "$T/rw/off.json" -- sh -c "touch '$OUT/escaped'"
    refused "$be: --config inside an rw exposure is refused" "$T/rw, which this run makes writable"
    capture as_user env CORDON_PROFILE_PATH="$WS" timeout 30 "$CORDON" run --backend $be --workspace "$WS" \
        --profile off-p -- sh -c "touch '$OUT/escaped'"
    refused "$be: a profile found in the workspace is refused" "which this run makes writable"
    capture as_user env CORDON_PROFILE_PATH="$T/prof" timeout 30 "$CORDON" run --backend $be --workspace "$WS" \
        --profile off-p -- true
    check "$be: control: the same profile outside the writable paths loads (status $RC)" test "$RC" -eq 0
done
check "... and the command never wrote outside" test ! -e "$OUT/escaped"

# ---- P. --profile NAME as a path --------------------------------------------------------
echo '{"isolation": {"enabled": false}}' >"$WS/evil.json"; own "$WS/evil.json"
check "control: the file a path-like name would reach exists" test -f "$WS/../ws/evil.json"
for name in ../ws/evil "$WS/evil" ./evil evil/; do
    capture run --profile "$name" -- true
    refused "--profile '$name' is not a profile name" "not a profile name"
done
capture run --config /dev/null -- true
refused "--config /dev/null (not a regular file) is refused" "not a regular file"

# ---- R. the host's socket directories as writable paths ------------------------------------
ln -sfn /run "$T/run-link"
for be in linux landlock; do
    for w in /run /run/ //run /var/run /run/user /run/user/$TEST_UID "$T/run-link"; do
        capture run --backend $be --workspace "$w" -- true
        refused "$be: --workspace $w is refused" "must not be /run, /run/user or /run/user/UID"
    done
    capture run --backend $be --expose /run:/r:rw -- true
    refused "$be: --expose /run:/r:rw is refused" "must not be /run, /run/user or /run/user/UID"
    capture run --backend $be --expose /run:ro -- true
    check "$be: control: --expose /run:ro runs (status $RC)" test "$RC" -eq 0
done

# ---- X. the exit-status contract ----------------------------------------------------------
st() { capture run --stats "$WS/x.json" "$@"; }
st -- sh -c 'exit 125'
check "the command's own 125 is its status" test "$RC" -eq 125
check_contains "... and the record has its exit_code" '"exit_code": 125' cat "$WS/x.json"
st --bogus-flag -- true
check "cordon's refusal is 125" test "$RC" -eq 125
check_contains "... and the record has an error, not an exit_code" '"error"' cat "$WS/x.json"
check_fails "... without exit_code" grep -q exit_code "$WS/x.json"
st -- /nonexistent-cmd
check "a missing command is 127 (status $RC)" test "$RC" -eq 127
echo 'true' >"$WS/noexec"; own "$WS/noexec"; chmod 644 "$WS/noexec"
st -- "$WS/noexec"
check "a file that cannot be executed is 126 (status $RC)" test "$RC" -eq 126
st -- sh -c 'kill -9 $$'
check "a command killed by SIGKILL is 137 (status $RC)" test "$RC" -eq 137
check_contains "... and the record names the signal" '"signal": 9' cat "$WS/x.json"
st --timeout 1 -- sleep 30
check "a timeout is 124 (status $RC)" test "$RC" -eq 124
check_contains "... and the record says timed_out" '"timed_out": true' cat "$WS/x.json"

done_testing
