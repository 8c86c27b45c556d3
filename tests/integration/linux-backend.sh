#!/bin/bash
# The linux backend from both sides of the boundary (issue 3): each probe
# runs unsandboxed first (it must succeed there), then sandboxed.
. "$(dirname "$0")/lib.sh"

echo "host secret" >"$T/secret"; chmod 644 "$T/secret"
mkdir -p "$T/data"; echo "data file" >"$T/data/file"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/data"

# -- the filesystem view
check_out "control: a host file is readable unsandboxed" "host secret" as_user "$PROBE" read "$T/secret"
check_out "a host file outside the view is absent" "ENOENT" cordon run -- "$PROBE" read "$T/secret"
check_out "control: /root exists on the host" "OK" as_user "$PROBE" stat /root
check_out "control: /home exists on the host" "OK" as_user "$PROBE" stat /home
check_out "/root is absent" "ENOENT" cordon run -- "$PROBE" stat /root
check_out "/home is absent" "ENOENT" cordon run -- "$PROBE" stat /home
check_out "control: the data dir is writable unsandboxed" "OK" as_user "$PROBE" create "$T/data/control"
rm -f "$T/data/control"
check_out "a ro expose rejects writes (EROFS)" "EROFS" cordon run --expose "$T/data" -- "$PROBE" create "$T/data/x"
check_out "a ro expose is readable" "data file" cordon run --expose "$T/data" -- "$PROBE" read "$T/data/file"
check_out "an rw expose accepts writes" "OK" cordon run --expose "$T/data:rw" -- "$PROBE" create "$T/data/new"
check "the rw write is on the host afterwards" test -f "$T/data/new"
check_out "source -> target remapping" "data file" cordon run --expose "$T/data:/opt/remapped:ro" -- "$PROBE" read /opt/remapped/file
check_out "the remapped source is not at its host path" "ENOENT" cordon run --expose "$T/data:/opt/remapped:ro" -- "$PROBE" read "$T/data/file"
check_out "the root is read-only" "EROFS" cordon run -- "$PROBE" create /newfile
check_out "/usr is read-only" "EROFS" cordon run -- "$PROBE" create /usr/cordon-x
check_out "/tmp is writable" "OK" cordon run -- "$PROBE" create /tmp/x
# the system view's /etc files and directories: the host's own inodes,
# read-only by the mount alone (Landlock off), nothing else of /etc
check_out "control: /etc/hosts is the host's and readable" "OK" as_user "$PROBE" stat /etc/hosts
check "/etc/hosts inside is the host's file" cmp -s /etc/hosts <(cordon run -- cat /etc/hosts)
check_out "/etc/hosts is read-only without Landlock (EROFS)" "EROFS" cordon run --landlock off -- "$PROBE" openw /etc/hosts
check_out "/etc/ssl is read-only without Landlock (EROFS)" "EROFS" cordon run --landlock off -- "$PROBE" create /etc/ssl/cordon-x
check_out "a new /etc file cannot be made without Landlock (EROFS)" "EROFS" cordon run --landlock off -- "$PROBE" create /etc/cordon-x
check_out "control: /etc/shadow exists on the host" "OK" as_user "$PROBE" stat /etc/shadow
check_out "/etc/shadow is not in the view" "ENOENT" cordon run -- "$PROBE" stat /etc/shadow
check_out "/etc/passwd holds only the sandbox user" "1" cordon run -- sh -c 'wc -l < /etc/passwd'
check_contains "/etc/passwd names the caller's uid" ":$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0):" cordon run -- cat /etc/passwd
check_out "hostname is cordon" "cordon" cordon run -- cat /proc/sys/kernel/hostname
check_out "the caller's uid is kept" "$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0)" cordon run -- id -u
check_out "the workspace is writable" "OK" cordon run -- "$PROBE" create "$H/.cordon/workspace/w"
as_user "$PROBE" create "$H/.cordon/logs/planted" >/dev/null
check_out "control: a file in logs/ is readable unsandboxed" "cordon" as_user "$PROBE" read "$H/.cordon/logs/planted"
check_out "logs/ is hidden" "ENOENT" cordon run -- "$PROBE" read "$H/.cordon/logs/planted"
rm -f "$H/.cordon/logs/planted"

# -- processes
host_procs=$(ls /proc | grep -c '^[0-9]')
n=$(cordon run -- sh -c 'ls /proc | grep -c "^[0-9]"')
if [ "$host_procs" -gt 10 ] && [ "${n:-99}" -le 4 ]; then ok "/proc lists only sandbox processes ($n vs $host_procs)"; else not_ok "/proc lists only sandbox processes ($n vs $host_procs)"; fi
bg_as_user sleep 300 >/dev/null 2>&1; victim=$BG_PID
check_out "control: a host process can be signalled" "OK" as_user "$PROBE" kill "$victim" 0
check_out "a host process cannot be signalled" "ESRCH" cordon run -- "$PROBE" kill "$victim" 0
kill $victim 2>/dev/null
check_status "exit code 42 passes through" 42 cordon run -- sh -c 'exit 42'
check_status "death by SIGKILL is 137" 137 cordon run -- sh -c 'kill -9 $$'
check_status "a missing command is 127" 127 cordon run -- cordon-no-such-command
echo data >"$W/notexec"; chmod 644 "$W/notexec"
check_status "a non-executable file is 126" 126 cordon run -- ./notexec

# SIGTERM to cordon reaches the command
( cd "$W" && as_user "$CORDON" run -- sh -c 'trap "echo got-term; exit 7" TERM; echo ready; while :; do sleep 0.1; done' >"$T/term.out" 2>&1 ) &
bg=$!
for i in $(seq 50); do grep -q ready "$T/term.out" 2>/dev/null && break; sleep 0.1; done
cpid=$(pgrep -P $bg -f "$CORDON" | head -1); [ -z "$cpid" ] && cpid=$(pgrep -f "bin/cordon run -- sh -c trap" | head -1)
kill -TERM "$cpid" 2>/dev/null
wait $bg; st=$?
if [ "$st" -eq 7 ] && grep -q got-term "$T/term.out"; then ok "SIGTERM to cordon reaches the command"; else not_ok "SIGTERM to cordon reaches the command (status $st)"; diag <"$T/term.out"; fi

# SIGKILL to cordon kills what is left in the sandbox
marker=$((900000 + RANDOM))
( cd "$W" && as_user "$CORDON" run -- sh -c "sleep $marker & echo started; wait" >"$T/kill.out" 2>&1 ) &
bg=$!
for i in $(seq 50); do grep -q started "$T/kill.out" 2>/dev/null && break; sleep 0.1; done
pgrep -f "^sleep $marker" >/dev/null && ok "control: the background sleep runs" || not_ok "control: the background sleep runs"
pkill -KILL -f "bin/cordon run -- sh -c sleep $marker"
gone=no
for i in $(seq 20); do pgrep -f "^sleep $marker" >/dev/null || { gone=yes; break; }; sleep 0.1; done
[ $gone = yes ] && ok "SIGKILL to cordon kills the sandbox within 2 s" || not_ok "SIGKILL to cordon kills the sandbox within 2 s"
pkill -KILL -f "^sleep $marker" 2>/dev/null
wait $bg 2>/dev/null

# -- descriptors and data
exec 7<"$T/secret"
check_contains "control: an inherited fd is visible unsandboxed" "7" as_user "$PROBE" fds
check_out "an fd opened in the launcher is not usable inside" "end" cordon run --expose "$T/bin" -- sh -c '"$1" fds; echo end' sh "$PROBE"
exec 7<&-
head -c 10485760 /dev/urandom >"$T/in.bin"; chmod 644 "$T/in.bin"
cordon run -- cat <"$T/in.bin" >"$T/out.bin" 2>"$T/.err"
check "10 MiB of binary data round-trips byte for byte" cmp "$T/in.bin" "$T/out.bin"
want=$(printf '[%s]\n' "a b" "'q\"" $'x\ny' "" '$HOME' '*')
check_out "argv with spaces, quotes, newlines and an empty string is preserved" "$want" cordon run -- printf '[%s]\n' "a b" "'q\"" $'x\ny' "" '$HOME' '*'

# -- privileges
cp "$PROBE" "$T/bin/suid"
if is_root_run; then chown $TEST_UID "$T/bin/suid"; else chown 0 "$T/bin/suid"; fi
chmod 4755 "$T/bin/suid"
ctl=$(as_user "$T/bin/suid" setuid-check)
me=$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0)
case "$ctl" in "$me "*" $me"|"$me $me "*) not_ok "control: the setuid bit works on the host ($ctl)";; *) ok "control: the setuid bit works on the host ($ctl)";; esac
check_out "a setuid binary gains nothing" "$me $me $me" cordon run -- "$T/bin/suid" setuid-check
check_out "capabilities are all cleared" "0000000000000000" cordon run -- sh -c 'grep CapEff /proc/self/status | cut -f2'
check_out "no_new_privs is set" "1" cordon run -- sh -c 'grep NoNewPrivs /proc/self/status | cut -f2'
check_out "signals the launcher ignores are reset for the command" "SigIgn:	0000000000000000" as_user sh -c "trap '' PIPE INT HUP; cd '$W'; exec '$CORDON' run -- grep SigIgn /proc/self/status"
# (the runner may start with SIGINT/SIGQUIT ignored too: the bits, not the mask)
ign=$(as_user "$PROBE" exec-ignoring grep SigIgn /proc/self/status | cut -f2)
[ -n "$ign" ] && [ $(( 0x$ign & 0x180001000 )) -eq $(( 0x180001000 )) ] &&
    ok "control: the launcher ignores signals 13, 32 and 33 ($ign)" || not_ok "control: the launcher ignores signals 13, 32 and 33 ($ign)"
check_out "... even glibc's internal ones (32, 33) are reset" "SigIgn:	0000000000000000" as_user sh -c "cd '$W'; exec '$PROBE' exec-ignoring '$CORDON' run -- grep SigIgn /proc/self/status"
check_out "the command runs in its own session" "yes" cordon run -- sh -c '[ "$(ps -o sid= -p $$ | tr -d " ")" = "$$" ] && echo yes || echo no'
if is_root_run; then
    check_out "control: core_pattern is writable by root on the host" "OK" "$PROBE" openw /proc/sys/kernel/core_pattern
    check_out "core_pattern is not writable when started as root" "EROFS" cordon run -- "$PROBE" openw /proc/sys/kernel/core_pattern
fi
# host-wide knobs of /proc beside /proc/sys (a write-open only: nothing is
# written); some kernels have no sysrq-trigger. Root only: a user's open is
# refused by the file's mode (EACCES) before any mount is consulted, inside
# as outside, so there is nothing to observe.
knobs=0
for f in /proc/sysrq-trigger /proc/irq/default_smp_affinity; do
    is_root_run && [ -e "$f" ] || continue
    knobs=$((knobs + 1))
    check_out "control: $f opens for writing as root" "OK" "$PROBE" openw "$f"
    check_out "$f is read-only" "EROFS" cordon run -- "$PROBE" openw "$f"
done
is_root_run && [ $knobs -eq 0 ] && not_ok "a /proc knob to probe (neither /proc/sysrq-trigger nor /proc/irq)"
out=$(cd "$W" && as_user env CORDON_MARKER_SECRET=sk-marker-123 "$CORDON" run --set VISIBLE=1 -- sh -c 'cat /proc/1/environ 2>/dev/null | tr "\0" "\n"; cat /proc/1/cmdline | tr "\0" " "' 2>&1)
case "$out" in *sk-marker-123*|*--set*) not_ok "/proc/1 holds none of the launcher's environment or arguments"; echo "$out" | diag ;; *) ok "/proc/1 holds none of the launcher's environment or arguments";; esac
check_out "control: /proc/1 is visible unsandboxed" "OK" as_user "$PROBE" stat /proc/1
check_out "the init is invisible: /proc/1 does not exist for the command" "ENOENT" cordon run -- "$PROBE" stat /proc/1
fork_init() { (cd "$W" && as_user env CORDON_DEBUG=fork-init "$CORDON" "$@"); }
check_out "the init is invisible with a copied init too" "ENOENT" fork_init run -- "$PROBE" stat /proc/1
check_out "the command sees its own processes" "OK" cordon run -- "$PROBE" stat /proc/self/exe
for f in environ exe; do
    out=$(cordon run -- "$PROBE" read /proc/1/$f 2>&1)
    case "$out" in ENOENT|EACCES) ok "/proc/1/$f cannot be read ($out)";; *) not_ok "/proc/1/$f readable ($out)";; esac
done

# -- network
port=$((20000 + RANDOM % 20000))
bg_as_user "$PROBE" listen $port >"$T/listen.out" 2>&1; lpid=$BG_PID
for i in $(seq 30); do grep -q LISTENING "$T/listen.out" && break; sleep 0.1; done
out=$(cordon run -- "$PROBE" connect 127.0.0.1 $port 2>&1)
case "$out" in ENETUNREACH|EACCES) ok "network none: a host listener on 127.0.0.1 is unreachable ($out)";; *) not_ok "network none: a host listener on 127.0.0.1 is unreachable ($out)";; esac
check_out "network loopback: a host listener is unreachable" "ECONNREFUSED" cordon run --network loopback -- "$PROBE" connect 127.0.0.1 $port
# the network full is the host's network namespace: refused where Landlock
# has no scopes, Linux < 6.12 (tests/escape/kernel-fallbacks.sh)
"$CORDON" check --json 2>/dev/null | grep -q '"landlock_scopes": true' && FULL_OK=1 || FULL_OK=
if [ -n "$FULL_OK" ]; then
    check_out "network full: the host listener is reachable" "OK" cordon run --network full -- "$PROBE" connect 127.0.0.1 $port
else
    check_status "network full: refused on this kernel (no Landlock scopes)" 125 cordon run --network full -- "$PROBE" connect 127.0.0.1 $port
fi
kill $lpid 2>/dev/null
check_out "network loopback: lo is up inside" "OK" cordon run --network loopback --expose "$T/bin" -- sh -c "\"$PROBE\" listen 4444 >/dev/null & sleep 0.3; \"$PROBE\" connect 127.0.0.1 4444"
check_out "network none: the marker is set" "1" cordon run -- sh -c 'echo $CORDON_SANDBOX_NETWORK_DISABLED'
[ -n "$FULL_OK" ] && check_out "network full: no marker" "" cordon run --network full -- sh -c 'echo $CORDON_SANDBOX_NETWORK_DISABLED'

# -- failing loudly
rm -f "$W/ran"
( cd "$W" && as_user unshare --user --map-root-user sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" run -- touch "$1"' "$CORDON" "$W/ran" ) >"$T/nons.out" 2>&1
st=$?
if [ $st -eq 125 ] && grep -q "max_user_namespaces" "$T/nons.out" && [ ! -e "$W/ran" ]; then
    ok "without user namespaces: exit 125 with the fix, the command never runs"
else
    not_ok "without user namespaces: exit 125 with the fix, the command never runs (status $st)"; diag <"$T/nons.out"
fi
echo '{"isolation": {"network": "wifi"}}' >"$T/bad.json"; chmod 644 "$T/bad.json"
check_status "a bad config exits 125" 125 cordon run --config "$T/bad.json" -- touch "$W/ran2"
check "... and the command never ran" test ! -e "$W/ran2"
done_testing
