#!/bin/bash
# The landlock backend's network, attacked as a hostile command would: every
# call that connects, binds, listens or sends to an address by a route other
# than the supervised connect() and listen() (tests/escape/landlock-net.sh has
# the first round: TCP Fast Open, UDP, io_uring, listen without bind, the
# host's unix and abstract sockets, i386 connect and listen). The ways tried
# here, each run unsandboxed first (the control):
#   - i386's socketcall multiplexer (102), whose arguments are in memory: its
#     connect to the host's unix socket, listen on an abstract name, an
#     AF_UNIX datagram socket sending to the host's, a socket of any family;
#     the direct i386 socket call too;
#   - the supervisor's own copy of the address: a unix address longer than a
#     sockaddr_un (it must neither overflow nor die); /dev/fd/N, which names
#     the supervisor's own descriptor when it resolves the link itself;
#   - socket families and types past the filters: AF_VSOCK (the VM's host,
#     past any network namespace: the linux backend too), netlink's
#     NETLINK_USERSOCK (IPC with any host process; the linux backend's full
#     network is the host's namespace too), AF_UNIX of SOCK_RAW (the kernel
#     makes it a datagram socket), MPTCP (past Landlock's TCP rules), a
#     unix socket bound outside the writable paths, AF_PACKET and raw
#     sockets (root), type flags (SOCK_NONBLOCK|SOCK_CLOEXEC) and bits above
#     32 in the arguments (the kernel reads ints);
#   - root inside: no capabilities (no change to the host's addresses by
#     rtnetlink, no raw sockets);
#   - the proxy's port by another form of the address (::ffff:127.0.0.1,
#     0.0.0.0), and a socket connected to the proxy, dissolved (AF_UNSPEC)
#     and connected elsewhere;
#   - unix listeners the host reaches: autobind (bind with only the family)
#     then listen, on stream and seqpacket sockets;
#   - a race on the socket's name: a symlink swapped between the command's
#     own socket and the host's while connecting;
#   - a seccomp listener of the command's own, which would take the calls
#     before cordon's supervisor (and could let them go on);
#   - the launcher that runs the supervisor, and any other process of the
#     user's: ptrace, pidfd_getfd of their descriptors (sockets among them).
# Everything the test starts is bounded and stops itself.
. "$(dirname "$0")/../integration/lib.sh"
LL="run --backend landlock --quiet --expose $T/bin"
NETS="proxy none loopback full"
net_flags() { [ "$1" = proxy ] && echo "--allow-net example.org" || echo "--network $1"; }
user_dir() { mkdir -p "$@" && { is_root_run || chown -R $TEST_UID:$TEST_GID "$@"; }; }
wait_for() { for _ in $(seq 50); do [ -e "$1" ] && [ -s "$1" -o -S "$1" ] && return; sleep 0.1; done; }
x86=$([ "$(uname -m)" = x86_64 ] && echo yes)

user_dir "$T/host-ipc" "$T/race"
cordon $LL -- true # makes the workspace
ws=$H/.cordon/workspace
bg_as_user "$PROBE" llnet-unix-serve "$T/host-ipc/sock" 120
bg_as_user "$PROBE" llnet-unix-serve "$ws/sock" 120
bg_as_user python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(120)' "$T/host-ipc/dgram"
bg_as_user "$PROBE" llnet-serve "$T/host-ipc/port" 120
wait_for "$T/host-ipc/sock"; wait_for "$ws/sock"; wait_for "$T/host-ipc/dgram"; wait_for "$T/host-ipc/port"
port=$(cat "$T/host-ipc/port")

# -- i386's socketcall: refused on every network, "full" included
if [ -n "$x86" ]; then
    check_out "control: socketcall's connect to the host's unix socket unsandboxed" "OK" \
        as_user "$PROBE" atk-socketcall-connect "$T/host-ipc/sock"
    check_out "control: socketcall's listen on an abstract name unsandboxed" "OK" \
        as_user "$PROBE" atk-socketcall-listen "cordon-atk-$$"
    check_out "control: socketcall's AF_UNIX datagram socket sends to the host's unsandboxed" "OK" \
        as_user "$PROBE" atk-socketcall-dgram "$T/host-ipc/dgram"
    check_out "control: socketcall's and i386's socket of AF_VSOCK unsandboxed" "OK OK" \
        as_user sh -c "echo \$('$PROBE' atk-socketcall-socket 40) \$('$PROBE' atk-socketcall-i386-socket 40)"
    for net in $NETS; do
        check_out "$net: socketcall's connect (not supervised) is refused" "EPERM" \
            cordon $LL $(net_flags $net) -- "$PROBE" atk-socketcall-connect "$T/host-ipc/sock"
        check_out "$net: socketcall's listen on an abstract name is refused" "EPERM" \
            cordon $LL $(net_flags $net) -- "$PROBE" atk-socketcall-listen "cordon-atk-$$"
        check_out "$net: socketcall makes no AF_UNIX datagram socket" "EPERM" \
            cordon $LL $(net_flags $net) -- "$PROBE" atk-socketcall-dgram "$T/host-ipc/dgram"
    done
    for net in proxy full; do
        check_out "linux backend, $net: no AF_VSOCK socket by socketcall nor i386's socket" "EPERM EPERM" \
            cordon run --backend linux --quiet --expose $T/bin $(net_flags $net) -- \
            sh -c "echo \$('$PROBE' atk-socketcall-socket 40) \$('$PROBE' atk-socketcall-i386-socket 40)"
    done
    check_out "full: ... while i386's own socket call makes a unix socket" "OK" \
        cordon $LL --network full -- "$PROBE" atk-socketcall-i386-socket 1
fi

# -- the supervisor's copy of a unix address longer than a sockaddr_un
check_out "control: a unix address of 128 bytes is EINVAL unsandboxed" "EINVAL" as_user "$PROBE" atk-unix-long
for net in $NETS; do
    check_out "$net: ... EINVAL too, and the supervisor goes on serving" "EINVAL OK" \
        cordon $LL $(net_flags $net) -- sh -c "echo \$('$PROBE' atk-unix-long) \$('$PROBE' unix-connect '$ws/sock')"
done

# -- /dev/fd/N: the command's fd N (an O_PATH descriptor of the socket), not
# the supervisor's
by_dev_fd='import os, socket, sys
fd = os.open(sys.argv[1], os.O_PATH)
s = socket.socket(socket.AF_UNIX)
try: s.connect("/dev/fd/%d" % fd); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: the host's socket through /dev/fd/N unsandboxed" "OK" as_user python3 -c "$by_dev_fd" "$T/host-ipc/sock"
for net in proxy full; do
    check_out "$net: ... refused" "Permission denied" \
        cordon $LL $(net_flags $net) -- python3 -c "$by_dev_fd" "$T/host-ipc/sock"
    check_out "$net: ... while the workspace's connects" "OK" cordon $LL $(net_flags $net) -- python3 -c "$by_dev_fd" "$ws/sock"
done

# -- families and types
check_out "control: AF_VSOCK, NETLINK_USERSOCK sockets unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' atk-socket 40 1) \$('$PROBE' atk-socket 16 3 2)"
usersock='import socket
a = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2); a.bind((0, 0))
b = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2); b.bind((0, 0))
try: b.sendto(bytes(16), (a.getsockname()[0], 0)); a.settimeout(2); a.recv(16); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: NETLINK_USERSOCK carries a message between two processes' sockets unsandboxed" "OK" \
    as_user python3 -c "$usersock"
check_out "control: bits above 32 in socket()'s family and type reach the kernel as ints" "OK OK" \
    as_user sh -c "echo \$('$PROBE' atk-socket 0x100000028 1) \$('$PROBE' atk-socket 0x100000001 0x100000002)"
check_out "control: SOCK_NONBLOCK|SOCK_CLOEXEC datagram sockets unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' atk-socket 1 0x80802) \$('$PROBE' atk-socket 2 0x80802)"
for net in $NETS; do
    check_out "$net: no AF_VSOCK socket (the VM's host), nor with bits above 32" "EPERM EPERM" \
        cordon $LL $(net_flags $net) -- sh -c "echo \$('$PROBE' atk-socket 40 1) \$('$PROBE' atk-socket 0x100000028 1)"
    check_out "$net: no NETLINK_USERSOCK socket (IPC with the host's processes)" "EPERM" \
        cordon $LL $(net_flags $net) -- "$PROBE" atk-socket 16 3 2
    check_out "$net: no AF_UNIX datagram socket with bits above 32, nor with type flags" "EPERM EPERM" \
        cordon $LL $(net_flags $net) -- sh -c "echo \$('$PROBE' atk-socket 0x100000001 0x100000002) \$('$PROBE' atk-socket 1 0x80802)"
done
check_out "control: an AF_UNIX socket of SOCK_RAW (a datagram socket) sends to the host's, and pairs, unsandboxed" \
    "OK OK" as_user sh -c "echo \$('$PROBE' atk-unix-raw '$T/host-ipc/dgram') \$('$PROBE' atk-unix-raw pair)"
for net in $NETS; do
    check_out "$net: no AF_UNIX socket nor pair of SOCK_RAW" "EPERM EPERM" cordon $LL $(net_flags $net) -- \
        sh -c "echo \$('$PROBE' atk-unix-raw '$T/host-ipc/dgram') \$('$PROBE' atk-unix-raw pair)"
    check_out "$net: ... while stream and seqpacket ones work" "OK OK" cordon $LL $(net_flags $net) -- \
        sh -c "echo \$('$PROBE' atk-socket 1 0x80801) \$('$PROBE' atk-socket 1 5)"
done
check_out "control: MPTCP sockets over IPv4 and IPv6 unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' atk-socket 2 1 262) \$('$PROBE' atk-socket 10 1 262)"
check_out "proxy: no MPTCP socket (past Landlock's TCP rules)" "EPERM EPERM" cordon $LL $(net_flags proxy) -- \
    sh -c "echo \$('$PROBE' atk-socket 2 1 262) \$('$PROBE' atk-socket 10 1 262)"
unix_bind='import socket, sys
try: socket.socket(socket.AF_UNIX).bind(sys.argv[1]); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: a unix socket bound beside the host's unsandboxed" "OK" as_user python3 -c "$unix_bind" "$T/host-ipc/bound-ctl"
for net in proxy full; do
    check_out "$net: no unix socket bound outside the writable paths (Landlock)" "Permission denied" \
        cordon $LL $(net_flags $net) -- python3 -c "$unix_bind" "$T/host-ipc/bound-$net"
done
check_out "proxy: no UDP socket with type flags" "EPERM" cordon $LL $(net_flags proxy) -- "$PROBE" atk-socket 2 0x80802
check_out "full: ... while TCP, UDP, IPv6 and rtnetlink sockets work (the host's network)" "OK OK OK OK" \
    cordon $LL --network full -- sh -c \
    "echo \$('$PROBE' atk-socket 2 1) \$('$PROBE' atk-socket 2 2) \$('$PROBE' atk-socket 10 1) \$('$PROBE' atk-socket 16 3 0)"
for net in proxy full; do
    check_out "linux backend, $net: no AF_VSOCK socket (no network namespace holds it)" "EPERM" \
        cordon run --backend linux --quiet --expose $T/bin $(net_flags $net) -- "$PROBE" atk-socket 40 1
done
check_out "linux backend, full (the host's network namespace): no NETLINK_USERSOCK socket" "EPERM" \
    cordon run --backend linux --quiet --expose $T/bin --network full -- "$PROBE" atk-socket 16 3 2

# -- root inside has no capabilities: no raw or packet socket, no change to
# the host's addresses (the control: root in a network namespace of its own)
if is_root_run; then
    holds "control: root has capabilities, raw and packet sockets unsandboxed" "CAPS OK OK" \
        sh -c "echo \$('$PROBE' atk-caps) \$('$PROBE' atk-socket 2 3 1) \$('$PROBE' atk-socket 17 3 0)" &&
        raw_ctl=1 || raw_ctl=
    holds "control: root adds an address to lo by rtnetlink (in a network namespace of its own)" "OK" \
        unshare -n "$PROBE" atk-netlink-addr && netlink_ctl=1 || netlink_ctl=
    for net in proxy full; do
        check_out "$net: root inside has no capability" "NONE" cordon $LL $(net_flags $net) -- "$PROBE" atk-caps
    done
    holds "control: root makes an AF_XDP socket unsandboxed" "OK" "$PROBE" atk-socket 44 3 || raw_ctl=
    [ -n "$raw_ctl" ] && check_out "full: root inside gets no raw, packet nor AF_XDP socket" "EPERM EPERM EPERM" \
        cordon $LL --network full -- \
        sh -c "echo \$('$PROBE' atk-socket 2 3 1) \$('$PROBE' atk-socket 17 3 0) \$('$PROBE' atk-socket 44 3)"
    [ -n "$netlink_ctl" ] && check_out "full: root inside changes no address of the host's" "EPERM" \
        cordon $LL --network full -- "$PROBE" atk-netlink-addr
fi

# -- the proxy's port by other forms of the address
check_out "control: ::ffff:127.0.0.1 and 0.0.0.0 reach a 127.0.0.1 listener unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' atk-connect6 ::ffff:127.0.0.1 $port) \$('$PROBE' connect 0.0.0.0 $port)"
check_out "control: a socket connected, dissolved (AF_UNSPEC) and connected again unsandboxed" "OK" \
    as_user "$PROBE" atk-unspec-reconnect 127.0.0.1 $port 127.0.0.1 $port
to_proxy='p=${http_proxy##*:}; p=${p%/}; echo $("$0" atk-connect6 ::ffff:127.0.0.1 $p) $("$0" atk-connect6 ::ffff:127.0.0.1 '$port') \
    $("$0" connect 0.0.0.0 $p) $("$0" atk-unspec-reconnect 127.0.0.1 $p 127.0.0.1 '$port') $("$0" atk-unspec-reconnect 127.0.0.1 $p 127.0.0.1 $p)'
# (::ffff:127.0.0.1 is 127.0.0.1 itself: a JVM's dual-stack socket reaches
# the proxy so; another port by that form is refused as by the plain one)
check_out "proxy: the proxy's port as ::ffff:127.0.0.1 works, another port so is refused, as 0.0.0.0 refused; connected to it, dissolved, then elsewhere: refused; to it again: works" \
    "OK EACCES EACCES EACCES OK" cordon $LL $(net_flags proxy) -- sh -c "$to_proxy" "$PROBE"

# -- an IPv6 TCP socket listening unbound (the kernel binds it to [::])
listen6='import socket
try: socket.socket(socket.AF_INET6).listen(); print("OK")
except OSError as e: print(e.strerror)'
check_out "control: listen() on an unbound IPv6 socket unsandboxed" "OK" as_user python3 -c "$listen6"
check_out "proxy: ... refused" "Operation not permitted" cordon $LL $(net_flags proxy) -- python3 -c "$listen6"

# -- unix listeners the host reaches: autobind's abstract name
check_out "control: autobind then listen, stream and seqpacket, unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' atk-autobind-listen stream) \$('$PROBE' atk-autobind-listen seqpacket)"
for net in $NETS; do
    check_out "$net: no listen on an autobound (abstract) unix socket" "EPERM EPERM" \
        cordon $LL $(net_flags $net) -- sh -c \
        "echo \$('$PROBE' atk-autobind-listen stream) \$('$PROBE' atk-autobind-listen seqpacket)"
done

# -- a race on the name: a symlink swapped between the command's own socket
# (a silent listener) and the host's while it connects 400 times
race_ok() { local out; out=$("$@" 2>/dev/null); case $out in "host 0 connected "[1-9]*) return 0 ;; esac; echo "$out"; return 1; }
own_listener='import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(512); s.settimeout(60)
while True: s.accept()[0].close()'
bg_as_user python3 -c "$own_listener" "$T/race/own.sock"
bg_as_user python3 -c "$own_listener" "$ws/own.sock"
wait_for "$T/race/own.sock"; wait_for "$ws/own.sock"
out=$(as_user "$PROBE" atk-race-connect "$T/race/link" "$T/host-ipc/sock" "$T/race/own.sock" 400)
case $out in "host "[1-9]*) ok "control: the swapped symlink reaches the host's socket unsandboxed ($out)" ;;
    *) not_ok "control: the swapped symlink reaches the host's socket unsandboxed"; echo "$out" | diag ;; esac
for net in proxy full; do
    check "$net: the swapped symlink never reaches the host's socket (the pinned file is connected)" \
        race_ok cordon $LL $(net_flags $net) -- "$PROBE" atk-race-connect "$ws/link" "$T/host-ipc/sock" "$ws/own.sock" 400
done

# -- a seccomp listener of its own: the kernel gives a call to the newest
# filter's listener, so one under cordon's could answer "go on"
check_out "control: a seccomp filter with a listener of its own unsandboxed" "OK" as_user "$PROBE" atk-seccomp-listener
for net in $NETS; do
    check_out "$net: no seccomp listener of its own (EBUSY: the kernel allows one per chain)" "EBUSY" \
        cordon $LL $(net_flags $net) -- "$PROBE" atk-seccomp-listener
done

# -- the launcher, whose thread is the supervisor, and the user's others
bg_as_user sleep 60
sib=$BG_PID
holds "control: ptrace and pidfd_getfd of another process of the user unsandboxed" "OK OK" \
    as_user sh -c "echo \$('$PROBE' ptrace $sib) \$('$PROBE' atk-pidfd-getfd $sib 0)" && getfd_ctl=1 || getfd_ctl=
launcher='tree=$PPID; l=$(awk "/^PPid/{print \$2}" /proc/$tree/status); echo $(cat /proc/$l/comm) $("$0" ptrace $l) $("$0" atk-pidfd-getfd $l 0)'
for net in proxy full; do
    check_out "$net: the launcher cannot be traced nor its descriptors taken" "cordon EPERM EPERM" \
        cordon $LL $(net_flags $net) -- sh -c "$launcher" "$PROBE"
    check_out "$net: ... nor another process of the user's" "EPERM EPERM" \
        cordon $LL $(net_flags $net) -- sh -c "echo \$('$PROBE' ptrace $sib) \$('$PROBE' atk-pidfd-getfd $sib 0)"
done
check_contains "cordon check names the families the network full keeps" \
    "by AF_UNIX, AF_INET, AF_INET6 and netlink sockets but NETLINK_USERSOCK" cordon check --backend landlock
check_contains "... and that socketcall is refused with it" "connect, listen and socketcall) (refused here)" \
    cordon check --backend landlock
done_testing
