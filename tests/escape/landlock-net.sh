#!/bin/bash
# The landlock backend's network: no namespace stands behind Landlock and
# the call supervisor, so every way past them reaches the host itself.
# The ways an attacker would try, each run unsandboxed first (the control):
#   - connect without connect(): TCP Fast Open (sendto, sendmsg, sendmmsg
#     with MSG_FASTOPEN and an address), TCP_FASTOPEN_CONNECT's deferred
#     connect, UDP sendto to any address, io_uring's connect and sendmsg;
#   - a port the host reaches: listen() on a TCP socket never bound (the
#     kernel binds it to 0.0.0.0), bind() to port 0, an abstract unix
#     listener (any host process may connect to one: no namespace here);
#   - the host's unix sockets (a docker socket, an ssh-agent, a session bus)
#     on every network, "full" included: by path, and abstract;
#   - /proc/sysvipc: the host's System V IPC listing (documented, see below).
# The "remote" target is a loopback listener of the test's that is not the
# proxy; everything the test starts is bounded and stops itself.
. "$(dirname "$0")/../integration/lib.sh"
LL="run --backend landlock --quiet --expose $T/bin"
NETS="proxy none loopback full"
net_flags() { [ "$1" = proxy ] && echo "--allow-net example.org" || echo "--network $1"; }
user_dir() { mkdir -p "$@" && { is_root_run || chown -R $TEST_UID:$TEST_GID "$@"; }; }
wait_for() { for _ in $(seq 50); do [ -e "$1" ] && [ -s "$1" -o -S "$1" ] && return; sleep 0.1; done; }

user_dir "$T/port-dir"
bg_as_user "$PROBE" llnet-serve "$T/port-dir/port" 120
wait_for "$T/port-dir/port"
port=$(cat "$T/port-dir/port")

# -- implicit connects and UDP: denied but with the network "full" (the
# host's network: nothing to keep from it); io_uring on every network
for k in tfo-sendto tfo-sendmsg tfo-sendmmsg tfo-connect; do
    check_out "control: llnet-$k reaches 127.0.0.1:$port unsandboxed" "OK" as_user "$PROBE" llnet-$k 127.0.0.1 $port
done
for k in tfo-sendto tfo-sendmsg tfo-sendmmsg; do
    check_out "proxy: $k (TCP Fast Open's implicit connect) is refused, as where TFO is off" "EOPNOTSUPP" \
        cordon $LL $(net_flags proxy) -- "$PROBE" llnet-$k 127.0.0.1 $port
done
check_out "proxy: TCP_FASTOPEN_CONNECT's deferred connect is checked as connect is" "EACCES" \
    cordon $LL $(net_flags proxy) -- "$PROBE" llnet-tfo-connect 127.0.0.1 $port
to_proxy='p=${http_proxy##*:}; p=${p%/}; echo $("$0" connect 127.0.0.1 $p) $("$0" llnet-tfo-sendto 127.0.0.1 $p)'
check_out "proxy: ... while connect to the proxy works (TCP Fast Open to it does not)" "OK EOPNOTSUPP" \
    cordon $LL $(net_flags proxy) -- sh -c "$to_proxy" "$PROBE"
for net in none loopback; do
    for k in tfo-sendto tfo-sendmsg tfo-sendmmsg tfo-connect; do
        check_out "$net: $k has no TCP socket" "EPERM" cordon $LL $(net_flags $net) -- "$PROBE" llnet-$k 127.0.0.1 $port
    done
done
check_out "full: TCP Fast Open works (the host network)" "OK" \
    cordon $LL $(net_flags full) -- "$PROBE" llnet-tfo-sendto 127.0.0.1 $port
check_out "full: connect (performed by the supervisor) works" "OK" \
    cordon $LL $(net_flags full) -- "$PROBE" connect 127.0.0.1 $port
check_out "full: ... and says ECONNREFUSED where nothing listens, as unsandboxed" \
    "$(as_user "$PROBE" connect 127.0.0.1 1)" cordon $LL $(net_flags full) -- "$PROBE" connect 127.0.0.1 1
check_out "control: UDP sendto 127.0.0.1 unsandboxed" "OK" as_user "$PROBE" llnet-udp-sendto 127.0.0.1 $port
holds "control: io_uring_setup unsandboxed (EFAULT: it exists)" "EFAULT" as_user "$PROBE" syscall io_uring_setup &&
    uring=1 || uring=
for net in $NETS; do
    [ $net = full ] || check_out "$net: no UDP socket (sendto reaches any address, autobind receives)" "EPERM" \
        cordon $LL $(net_flags $net) -- "$PROBE" llnet-udp-sendto 127.0.0.1 $port
    [ -z "$uring" ] || check_out "$net: io_uring is denied" "EPERM" cordon $LL $(net_flags $net) -- "$PROBE" syscall io_uring_setup
done

# -- listeners the host reaches
check_out "control: listen() without bind() unsandboxed" "OK" as_user "$PROBE" llnet-listen-unbound
check_out "control: bind() to port 0 unsandboxed" "OK" as_user "$PROBE" bind 0
for net in proxy none loopback; do
    check_out "$net: listen() without bind() is refused (autobind on 0.0.0.0)" "EPERM" \
        cordon $LL $(net_flags $net) -- "$PROBE" llnet-listen-unbound
done
check_out "proxy: bind() to port 0 is refused" "EACCES" cordon $LL $(net_flags proxy) -- "$PROBE" bind 0
check_out "full: listen() works (the host network)" "OK" cordon $LL $(net_flags full) -- "$PROBE" llnet-listen-unbound
abstract_listen='import socket
s = socket.socket(socket.AF_UNIX); s.bind("\0cordon-llnet-'$$'")
try: s.listen(); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: an abstract unix listener unsandboxed" "OK" as_user python3 -c "$abstract_listen"
for net in $NETS; do
    check_out "$net: no abstract unix listener (the host could connect to it)" "Operation not permitted" \
        cordon $LL $(net_flags $net) -- python3 -c "$abstract_listen"
done
unbound_listen='import socket
try: socket.socket(socket.AF_UNIX).listen(); print("OK")
except OSError as e: print(e.strerror)'
for net in proxy full; do
    check_out "$net: listen() on an unbound unix socket fails as unsandboxed" "$(as_user python3 -c "$unbound_listen")" \
        cordon $LL $(net_flags $net) -- python3 -c "$unbound_listen"
done
ws=$H/.cordon/workspace
own_listener='import os, socket
p = "'"$ws"'/own.sock"
os.path.exists(p) and os.unlink(p)
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen()
c = socket.socket(socket.AF_UNIX); c.connect(p); a, _ = l.accept(); a.send(b"own"); print(c.recv(3).decode())'
for net in $NETS; do
    check_out "$net: a unix listener of its own in the workspace works" "own" \
        cordon $LL $(net_flags $net) -- python3 -c "$own_listener"
done

# -- the host's unix sockets, on every network
user_dir "$T/host-ipc" "$T/exposed"
bg_as_user "$PROBE" llnet-unix-serve "$T/host-ipc/sock" 120
bg_as_user "$PROBE" llnet-unix-serve "$T/exposed/sock" 120
bg_as_user "$PROBE" llnet-abstract-serve "cordon-llnet-host-$$" 120
cordon $LL -- true # makes the workspace
bg_as_user "$PROBE" llnet-unix-serve "$ws/sock" 120
wait_for "$T/host-ipc/sock"; wait_for "$T/exposed/sock"; wait_for "$ws/sock"
# the exposed service is one for others (as root the command is the sandbox user)
chmod 666 "$T/exposed/sock"
check_out "control: an AF_UNIX datagram socket and pair unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' unix-dgram) \$('$PROBE' unix-dgram-pair)"
for net in $NETS; do
    check_out "$net: no AF_UNIX datagram socket nor pair (sendto names any path)" "EPERM EPERM" \
        cordon $LL $(net_flags $net) -- sh -c "echo \$('$PROBE' unix-dgram) \$('$PROBE' unix-dgram-pair)"
done
check_out "control: the host's unix socket connects unsandboxed" "OK" as_user "$PROBE" unix-connect "$T/host-ipc/sock"
check_out "control: the host's abstract socket connects unsandboxed" "OK" \
    as_user "$PROBE" abstract-connect "cordon-llnet-host-$$"
for net in $NETS; do
    check_out "$net: the host's unix socket is refused" "EACCES" \
        cordon $LL $(net_flags $net) -- "$PROBE" unix-connect "$T/host-ipc/sock"
    check_out "$net: ... the host's abstract socket too" "EPERM" \
        cordon $LL $(net_flags $net) -- "$PROBE" abstract-connect "cordon-llnet-host-$$"
    check_out "$net: ... a socket beneath the workspace connects" "OK" \
        cordon $LL $(net_flags $net) -- "$PROBE" unix-connect "$ws/sock"
    check_out "$net: ... and one beneath an explicit read-only exposure" "OK" \
        cordon $LL $(net_flags $net) --expose "$T/exposed" -- "$PROBE" unix-connect "$T/exposed/sock"
done
# other routes to the same socket: an O_PATH descriptor (/proc/self/fd/N),
# a hard link into the workspace (a symlink there: landlock-metadata.sh)
by_fd='import os, socket
fd = os.open("'"$T/host-ipc/sock"'", os.O_PATH)
s = socket.socket(socket.AF_UNIX)
try: s.connect("/proc/self/fd/%d" % fd); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: connect through an O_PATH descriptor of it unsandboxed" "OK" as_user python3 -c "$by_fd"
check_out "full: ... refused" "Permission denied" cordon $LL --network full -- python3 -c "$by_fd"
hard_link='import os, sys
try: os.link("'"$T/host-ipc/sock"'", sys.argv[1]); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: a hard link to it unsandboxed" "OK" as_user python3 -c "$hard_link" "$T/host-ipc/link"
# (as root the sandbox user is refused by the kernel first: not its file)
check_out "full: ... none into the workspace (Landlock)" \
    "$(is_root_run && echo "Operation not permitted" || echo "Invalid cross-device link")" \
    cordon $LL --network full -- python3 -c "$hard_link" "$ws/host-link"
if [ "$(uname -m)" = x86_64 ]; then
    check_out "control: i386 connect to the host's unix socket unsandboxed" "OK" \
        as_user "$PROBE" llnet-i386-connect "$T/host-ipc/sock"
    check_out "control: i386 listen on an abstract unix socket unsandboxed" "OK" \
        as_user "$PROBE" llnet-i386-listen "cordon-llnet-i386-$$"
    for net in $NETS; do
        check_out "$net: i386 connect (not supervised) is refused" "EPERM" \
            cordon $LL $(net_flags $net) -- "$PROBE" llnet-i386-connect "$T/host-ipc/sock"
        check_out "$net: i386 listen (not supervised) is refused" "EPERM" \
            cordon $LL $(net_flags $net) -- "$PROBE" llnet-i386-listen "cordon-llnet-i386-$$"
    done
fi
check_out "full: the socket exposed by itself connects" "OK" \
    cordon $LL --network full --expose "$T/exposed/sock" -- "$PROBE" unix-connect "$T/exposed/sock"
CWD=$T/host-ipc check_out "full: the auto-exposed working directory does not expose its sockets" "EACCES" \
    cordon $LL --network full -- "$PROBE" unix-connect sock
check_contains "full: the refusal names the path and the flag that allows it" \
    "refused connect to $T/host-ipc/sock: outside the writable paths and the exposed ones (to allow it, expose the path: --expose)" \
    cordon run --backend landlock --expose "$T/bin" --network full -- "$PROBE" unix-connect "$T/host-ipc/sock"

# -- /proc/sysvipc: Landlock cannot refuse a part of /proc (its rule on
# /proc is what lets the command read /proc/self). As root the command gets
# an IPC namespace of its own, whose listing holds none of the host's
# objects; as a user the host's listing stays readable (the objects in it do
# not: tests/escape/landlock.sh), and cordon check says so.
ipckey=$(printf '1c%06x' $(($$ & 0xffffff)))
as_user "$PROBE" shm-remove "$ipckey" >/dev/null 2>&1
check_out "control: a System V segment of the host is made" "OK" as_user "$PROBE" shm-create "$ipckey" "x"
dec=$((0x$ipckey))
check_contains "control: /proc/sysvipc/shm lists it unsandboxed" " $dec " as_user cat /proc/sysvipc/shm
# (root with CAP_SYS_ADMIN: in a container without it, as Docker's and
# Podman's defaults, root cannot make an IPC namespace either, cordon check says)
if is_root_run && unshare -i true 2>/dev/null; then
    out=$(cordon run --backend landlock -- cat /proc/sysvipc/shm 2>&1)
    case "$out" in *" $dec "*) not_ok "root: /proc/sysvipc/shm inside lists the host's segment";;
        *"key"*) ok "root: /proc/sysvipc/shm inside lists none of the host's objects (an IPC namespace of its own)";;
        *) not_ok "root: /proc/sysvipc/shm inside ($out)";; esac
elif is_root_run; then
    check_contains "root without CAP_SYS_ADMIN (a container's): /proc/sysvipc/shm inside lists it, as documented" \
        " $dec " cordon run --backend landlock -- cat /proc/sysvipc/shm
fi
as_user "$PROBE" shm-remove "$ipckey" >/dev/null 2>&1
check_contains "cordon check names /proc/sysvipc among what the landlock backend lacks" "/proc/sysvipc" \
    cordon check --backend landlock
check_contains "cordon check says what docs/backends.md says of the unix sockets, on every network" \
    "on every network no connect to a unix socket outside the writable and explicitly exposed paths nor to an abstract one, no listen on an abstract one" \
    cordon check --backend landlock
check_contains "... and of the proxy's TCP" "the proxy adds TCP: connect to it only, no listen, no TCP Fast Open" \
    cordon check --backend landlock
done_testing
