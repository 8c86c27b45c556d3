#!/bin/bash
# The landlock backend's supervisor (src/supervise.c): no metadata change
# outside the writable paths by any route, no connect to the host's unix
# sockets, while the same calls keep working in the workspace. Each probe
# succeeds unsandboxed (the control) and is denied on the backend.
. "$(dirname "$0")/../integration/lib.sh"
user_dir() { mkdir -p "$@" && { is_root_run || chown -R $TEST_UID:$TEST_GID "$@"; }; }
# the host files the probes change lie on a file system of the test's own
# (the controls, chattr above all, hold there whatever holds /tmp)
OUT=$T/outside
own_fs "$OUT"
user_dir "$OUT" "$OUT/sub"
ws=$H/.cordon/workspace
LL="run --backend landlock --expose $T/bin"
# readable, so that the fd routes (open O_RDONLY, then fchmod...) can be tried
LLR="$LL --expose-ro $OUT"

fresh() { # the host file, as the test user made it: 0644, mtime 1000
    rm -f "$OUT/f"
    as_user sh -c "echo secret >'$OUT/f' && chmod 644 '$OUT/f' && touch -d @1000 '$OUT/f'"
}
state() { stat -c '%a %Y' "$OUT/f"; }
xattr() { python3 -c 'import os, sys; print(os.listxattr(sys.argv[1]))' "$1"; }

KINDS="chmod chmod-nofollow fd-chmod opath-chmod chown lchown fd-chown opath-chown utime utime-nofollow utimes
       fd-utime setxattr lsetxattr fd-setxattr chattr"
[ "$(uname -m)" = x86_64 ] && KINDS="$KINDS chmod-i386"
for k in $KINDS; do
    fresh
    check_out "control: $k on a host file succeeds unsandboxed" "OK" as_user "$PROBE" meta "$k" "$OUT/f"
    fresh
    check_out "landlock: $k on a readable host file is refused" "EPERM" cordon $LLR -- "$PROBE" meta "$k" "$OUT/f"
    check_out "landlock: ... the file is unchanged" "644 1000 []" sh -c "echo \$(stat -c '%a %Y' '$OUT/f') \$(python3 -c 'import os; print(os.listxattr(\"$OUT/f\"))')"
done
fresh
check_out "landlock: chmod of a host file not exposed at all is refused" "EPERM" cordon $LL -- "$PROBE" meta chmod "$OUT/f"
check_out "landlock: chmod of a host directory is refused" "EPERM" cordon $LLR -- "$PROBE" meta chmod "$OUT/sub"
check_out "control: fchmodat on a directory fd unsandboxed" "OK" as_user "$PROBE" meta dirfd-chmod "$OUT"
fresh
check_out "landlock: fchmodat relative to a host directory fd is refused" "EPERM" cordon $LLR -- "$PROBE" meta dirfd-chmod "$OUT"
check_out "landlock: a relative path from a host working directory is refused" "EPERM" \
    cordon $LLR -- sh -c "cd '$OUT' && '$PROBE' meta chmod f"
check_out "landlock: setxattrat (arguments in memory) is not available" "ENOSYS" cordon $LLR -- "$PROBE" meta setxattrat "$OUT/f"
check_out "... the file is unchanged" "644 1000" state
# a link planted in the workspace (this run or an earlier one) to the host
cordon $LL -- ln -sfn "$OUT/f" "$ws/to-host"
check_out "landlock: chmod through a workspace link to a host file is refused" "EPERM" cordon $LL -- "$PROBE" meta chmod "$ws/to-host"
check_out "landlock: utime through it too" "EPERM" cordon $LL -- "$PROBE" meta utime "$ws/to-host"
check_out "landlock: but the link itself may be changed (lchown, touch -h)" "OK OK" \
    cordon $LL -- sh -c "echo \$('$PROBE' meta lchown '$ws/to-host') \$('$PROBE' meta utime-nofollow '$ws/to-host')"
cordon $LL -- ln -sfn "$OUT" "$ws/dir-to-host"
check_out "landlock: chmod beneath a workspace link to a host directory is refused" "EPERM" \
    cordon $LL -- "$PROBE" meta chmod "$ws/dir-to-host/f"
check_out "... the file is unchanged" "644 1000" state
if is_root_run; then
    # root without capabilities: a root-owned host file (as /etc/shadow)
    echo x >"$T/rootfile" && chmod 600 "$T/rootfile"
    check_out "landlock as root: a root-owned 0600 file cannot be made world-readable" "EPERM" \
        cordon $LL --expose-ro "$T/rootfile" -- "$PROBE" meta chmod "$T/rootfile"
    check_out "... its mode is unchanged" "600" stat -c %a "$T/rootfile"
fi

# -- the same calls work in the workspace and the other writable paths
# (but chattr and i386 calls: refused everywhere)
for k in ${KINDS//chattr/}; do
    [ "$k" = chmod-i386 ] && continue
    check_out "landlock: $k in the workspace works" "OK" cordon $LL -- sh -c "echo x >'$ws/f' && '$PROBE' meta $k '$ws/f'"
done
check_out "landlock: fchmodat relative to a workspace directory fd works" "OK" cordon $LL -- "$PROBE" meta dirfd-chmod "$ws"
check_out "landlock: ... in the instance's tmp too" "OK" cordon $LL -- sh -c 'echo x >"$TMPDIR/f" && '"'$PROBE'"' meta chmod "$TMPDIR/f"'
user_dir "$T/rw" && as_user touch "$T/rw/f"
check_out "landlock: ... and in an rw exposure" "OK" cordon $LL --expose-rw "$T/rw" -- "$PROBE" meta chmod "$T/rw/f"
check_out "landlock: ... but not in its read-only neighbour" "EPERM" cordon $LL --expose-rw "$T/rw" --expose-ro "$OUT" -- \
    "$PROBE" meta chmod "$OUT/f"
# (as the user, the host refuses it too: only root's run has a control)
is_root_run && check_out "control: utime of /dev/null works as root unsandboxed" "OK" "$PROBE" meta utime /dev/null
check_out "landlock: a device's metadata is the host's (utime /dev/null)" "EPERM" cordon $LL -- "$PROBE" meta utime /dev/null

# an npm package with a bin (npm chmods it), a tarball with modes, times and links
user_dir "$T/npmpkg" "$T/npmpkg/bin"
as_user sh -c "cd '$T/npmpkg' && printf '{\"name\":\"cordon-bin-test\",\"version\":\"1.0.0\",\"bin\":{\"cordon-bin-test\":\"bin/cli.js\"}}' >package.json &&
    printf '#!/usr/bin/env node\nconsole.log(\"from-npm\")\n' >bin/cli.js && chmod 644 bin/cli.js && HOME='$T/home' npm pack --silent >/dev/null"
check_out "landlock: npm install of a local package with a bin, then run it" "from-npm" \
    cordon $LL --expose-ro "$T/npmpkg" -- sh -c "cd '$ws' && npm install --offline --no-audit --no-fund --silent '$T/npmpkg/cordon-bin-test-1.0.0.tgz' >/dev/null 2>&1; node_modules/.bin/cordon-bin-test"
mkdir -p "$T/tarsrc/t/d" && echo a >"$T/tarsrc/t/d/a" && chmod 750 "$T/tarsrc/t/d" && ln -s d/a "$T/tarsrc/t/link" &&
    touch -h -d @2000 "$T/tarsrc/t/link" && touch -d @3000 "$T/tarsrc/t/d/a" && tar -C "$T/tarsrc" -cf "$T/t.tar" t && chmod 644 "$T/t.tar"
check_out "landlock: tar x keeps modes and times, links included, and exits 0" "750 3000 2000 0" \
    cordon $LL --expose-ro "$T/t.tar" -- sh -c "cd '$ws' && rm -rf t && tar xpf '$T/t.tar'; r=\$?; echo \$(stat -c %a t/d) \$(stat -c %Y t/d/a) \$(stat -c %Y t/link) \$r"
check_out "landlock: make (touch, chmod) in the workspace" "ok" cordon $LL -- sh -c \
    "cd '$ws' && printf 'all:\n\ttouch out && chmod 700 out && echo ok\n' >Makefile && make -s"

# -- unix sockets: a host service's socket outside the writable paths. The
# supervisor connects the command's own socket, which it takes with
# pidfd_getfd: where that is refused from outside (Docker's default
# profile), connect fails closed (container.sh shows it) and this section
# has no control. (Not indented: it holds a here-document and Python.)
bg_as_user sleep 60
getfd_sib=$BG_PID
if holds "control: pidfd_getfd of another process of the user works here" "OK" \
    as_user "$PROBE" atk-pidfd-getfd "$getfd_sib" 0; then
rm -f "$OUT/sock"
bg_as_user python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(64)
while True:
    c, _ = s.accept()
    try: c.send(b"host")
    except OSError: pass
    c.close()' "$OUT/sock"
for _ in $(seq 50); do [ -S "$OUT/sock" ] && break; sleep 0.1; done
chmod 666 "$OUT/sock" # a service for others (as root the command is the sandbox user)
check_out "control: the host's socket accepts unsandboxed" "OK" as_user "$PROBE" unix-connect "$OUT/sock"
check_out "landlock: connect to the host's socket is refused" "EACCES" cordon $LL -- "$PROBE" unix-connect "$OUT/sock"
check_out "landlock: ... but connects where its directory is exposed (--expose-ro), as on the linux backend" "OK" \
    cordon $LLR -- "$PROBE" unix-connect "$OUT/sock"
check_out "landlock: ... and with the network loopback" "EACCES" cordon $LL --network loopback -- "$PROBE" unix-connect "$OUT/sock"
check_out "landlock: ... and by a relative path" "EACCES" cordon $LL -- sh -c "cd '$OUT' && '$PROBE' unix-connect sock"
cordon $LL -- ln -sfn "$OUT/sock" "$ws/sock-link"
check_out "landlock: ... and through a link planted in the workspace" "EACCES" cordon $LL -- "$PROBE" unix-connect "$ws/sock-link"
check_out "landlock: ... and with the network full (the internet, not the host's IPC)" "EACCES" \
    cordon $LL --network full -- "$PROBE" unix-connect "$OUT/sock"
check_out "landlock: the command's own socket in the workspace works" "own" cordon $LL -- python3 -c 'import os, socket
p = "'"$ws"'/own.sock"
os.path.exists(p) and os.unlink(p)
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen()
c = socket.socket(socket.AF_UNIX); c.connect(p); a, _ = l.accept(); a.send(b"own"); print(c.recv(3).decode())'
# A blocking connect that waits (the listener's backlog is full) holds up
# only its caller: other supervised calls go on meanwhile, the wait ends when
# the listener accepts, and SO_SNDTIMEO still gives up (EAGAIN), as unsandboxed.
cat >"$T/bin/busy.py" <<'PY'
import os, signal, socket, struct, subprocess, sys, time
signal.alarm(30) # a supervisor that waits with the connect fails here, not hangs
d = sys.argv[1]
p = d + "/busy.sock"
os.path.exists(p) and os.unlink(p)
open(d + "/script", "w").close()
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen(0)
first = socket.socket(socket.AF_UNIX); first.connect(p) # the backlog is full now
waiter = subprocess.Popen([sys.executable, "-c", "import socket, sys\n"
    "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('connected', flush=True)", p],
    stdout=subprocess.PIPE, text=True)
time.sleep(0.3)
try:
    subprocess.run(["chmod", "+x", d + "/script"], timeout=5, check=True)
    print("chmod while it waits:", oct(os.stat(d + "/script").st_mode & 0o111))
except subprocess.TimeoutExpired:
    print("chmod while it waits: stalled")
print("still waiting:", waiter.poll() is None)
s = socket.socket(socket.AF_UNIX)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 300000))
try: s.connect(p); print("timed connect: connected")
except OSError as e: print("timed connect:", os.strerror(e.errno))
l.accept() # room for one more: the waiter's connect completes
try: print("then:", waiter.communicate(timeout=5)[0].strip())
except subprocess.TimeoutExpired: print("then: still waiting"); waiter.kill()
PY
busy_want="chmod while it waits: 0o111
still waiting: True
timed connect: Resource temporarily unavailable
then: connected"
check_out "control: a connect that waits for a full backlog, unsandboxed" "$busy_want" as_user python3 "$T/bin/busy.py" "$OUT"
check_out "landlock: ... the same: other calls go on while it waits, SO_SNDTIMEO gives up" "$busy_want" \
    cordon $LL -- python3 "$T/bin/busy.py" "$ws"
fi # pidfd_getfd
check_out "control: an AF_UNIX datagram socket unsandboxed" "OK" as_user "$PROBE" unix-dgram
check_out "landlock: no AF_UNIX datagram sockets (sendto reaches any path)" "EPERM" cordon $LL -- "$PROBE" unix-dgram
check_out "landlock: nor datagram socket pairs" "EPERM" cordon $LL -- "$PROBE" unix-dgram-pair
check_out "landlock: stream socket pairs work" "OK" cordon $LL -- python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"x"); b.recv(1); print("OK")'
fresh
refusals() { cordon "$@" 2>&1 >/dev/null | grep refused | uniq -c | sed 's/^ *//'; }
check_out "landlock: a refusal is reported once on stderr, naming the call and the path" \
    "1 cordon: refused chmod $OUT/f: outside the writable paths (to allow it, expose the path read-write: --expose-rw)" \
    refusals $LLR -- sh -c "'$PROBE' meta chmod '$OUT/f'; '$PROBE' meta chmod '$OUT/f'"
check_out "landlock: ... and not with --quiet" "" refusals $LLR --quiet -- "$PROBE" meta chmod "$OUT/f"
# a path is any bytes but NUL and /: the report escapes what a terminal
# would act on (an OSC title, CSI); the control: the raw name is on disk
esc_name=$(printf 'f\033]0;pwned\007\033[2J')
as_user touch "$OUT/$esc_name"
check_out "control: the file's name holds raw ESC bytes" "1" sh -c 'ls "$1" | grep -c "$(printf "\033")"' sh "$OUT"
check_out "landlock: a refused path is reported escaped" \
    "1 cordon: refused chmod $OUT/f\\x1b]0;pwned\\x07\\x1b[2J: outside the writable paths (to allow it, expose the path read-write: --expose-rw)" \
    refusals $LLR -- "$PROBE" meta chmod "$OUT/$esc_name"
esc_err() { cordon $LLR -- "$PROBE" meta chmod "$OUT/$esc_name" 2>&1 >/dev/null | grep -c "$(printf '\033')"; }
check_out "landlock: ... no raw ESC byte on stderr" "0" esc_err
check_contains "cordon plan --backend landlock says what is supervised" \
    "supervised: mode, owner, times, xattrs only beneath the rw rules; connect: unix sockets beneath them or explicit exposures; listen: unix sockets with a path" \
    cordon plan --backend landlock -- true
done_testing
