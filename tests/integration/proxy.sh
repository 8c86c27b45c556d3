#!/bin/bash
# The network allowlist (issue 16): cordon's proxy is the only way out of
# the sandbox, to the hosts and ports of the list. Upstream servers run on
# loopback addresses of the host (127.0.0.2; 127.0.0.1 is in NO_PROXY);
# names come from a test /etc/hosts bind-mounted in a private mount
# namespace (unshare -m as root, then the test user). Each allowed request
# has its control: the same request denied without its entry.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
UP=127.0.0.2

# -- upstreams: a static HTTP server (a file, a dumb git repository) and a
# UDP echo server, on free ports
mkdir -p "$T/srv"
echo hello >"$T/srv/hello.txt"
head -c 300000 /dev/urandom >"$T/srv/big.bin"
git init -q "$T/src" && git -C "$T/src" -c user.email=t@t -c user.name=t commit -q --allow-empty -m first &&
    echo "in git" >"$T/src/file" && git -C "$T/src" add file &&
    git -C "$T/src" -c user.email=t@t -c user.name=t commit -q -m file &&
    git clone -q --bare "$T/src" "$T/srv/repo.git" && git -C "$T/srv/repo.git" update-server-info
# a package index (PEP 503) with one wheel, and an npm package tarball
mkdir -p "$T/srv/simple/cordon-pip-test" "$T/srv/files"
$PY - "$T/srv/files" <<'PY'
import base64, hashlib, sys, zipfile
name = "cordon_pip_test-1.0-py3-none-any.whl"
files = {"cordon_pip_test/__init__.py": "X = 'from the index'\n",
         "cordon_pip_test-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: cordon-pip-test\nVersion: 1.0\n",
         "cordon_pip_test-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: cordon-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = ""
for f, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record += f"{f},sha256={digest},{len(text.encode())}\n"
record += "cordon_pip_test-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1] + "/" + name, "w") as z:
    for f, text in files.items():
        z.writestr(f, text)
    z.writestr("cordon_pip_test-1.0.dist-info/RECORD", record)
PY
echo '<a href="../../files/cordon_pip_test-1.0-py3-none-any.whl">cordon_pip_test-1.0-py3-none-any.whl</a>' \
    >"$T/srv/simple/cordon-pip-test/index.html"
mkdir -p "$T/npmsrc/package"
printf '{"name": "cordon-npm-test", "version": "1.0.0", "main": "index.js"}\n' >"$T/npmsrc/package/package.json"
echo 'module.exports = "from the tarball";' >"$T/npmsrc/package/index.js"
tar czf "$T/srv/files/cordon-npm-test-1.0.0.tgz" -C "$T/npmsrc" package
chmod -R a+rX "$T/srv"
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.2",0));print(s.getsockname()[1])'; }
P=$(free_port)
$PY -c '
import functools, http.server, sys
class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 1024  # hundreds of connections at once
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[2])
Server(("127.0.0.2", int(sys.argv[1])), handler).serve_forever()' "$P" "$T/srv" >/dev/null 2>&1 &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
PU=$(free_port)
$PY -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.2", int(sys.argv[1])))
while True:
    d, a = s.recvfrom(100); s.sendto(d, a)' "$PU" &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
# a server that holds every connection open, never reading or closing
# (PH), and one whose accept queue is full so that a SYN gets no answer (PB)
PH=$(free_port)
PB=$(free_port)
$PY -c '
import socket, sys
hold = socket.socket(); hold.bind(("127.0.0.2", int(sys.argv[1]))); hold.listen(64)
full = socket.socket(); full.bind(("127.0.0.2", int(sys.argv[2]))); full.listen(0)
fillers = []
for _ in range(3):
    s = socket.socket(); s.setblocking(False); s.connect_ex(("127.0.0.2", int(sys.argv[2]))); fillers.append(s)
held = []
while True:
    held.append(hold.accept()[0])' "$PH" "$PB" &
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
# an upstream that answers with the Host header(s) it received, the
# header names, the path and the body, and logs each request to
# $T/echo.log; like some servers it keeps every connection open, whatever
# the Connection header says, and reads the next request on it (PE)
PE=$(free_port)
$PY - "$PE" "$T/echo.log" <<'PY' &
import http.server, sys
class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def parse_request(self):
        r = super().parse_request()
        self.close_connection = False
        return r
    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode(errors="replace") if n else ""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""): pass
                    break
                body += self.rfile.read(size).decode(errors="replace"); self.rfile.readline()
        hosts = ",".join(self.headers.get_all("Host") or [])
        names = ",".join(k.lower() for k in self.headers.keys())
        text = "host=%s path=%s body=%s headers=%s\n" % (hosts, self.path, body, names)
        with open(sys.argv[2], "a") as log: log.write(text)
        data = text.encode()
        self.send_response(200); self.send_header("Content-Length", str(len(data))); self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = answer
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.2", int(sys.argv[1])), Echo).serve_forever()
PY
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
for _ in $(seq 50); do curl -s -o /dev/null "http://$UP:$P/hello.txt" && curl -s -o /dev/null "http://$UP:$PE/" && break; sleep 0.1; done
: >"$T/echo.log"
P2=$((P == 65535 ? P - 1 : P + 1))

cat >"$T/hosts" <<HOSTS
127.0.0.1 localhost
$UP allowed.test other.test loop.test
10.255.0.1 private.test
HOSTS
chmod 644 "$T/hosts"

# CMD... as the test user, with $T/hosts as /etc/hosts, in $W
in_hosts() {
    local who=()
    [ "$TEST_AS" = user ] && who=(setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all)
    unshare -m --propagation private -- sh -c 'mount --bind "$1" /etc/hosts && cd "$2" && shift 2 && exec "$@"' \
        sh "$T/hosts" "$W" "${who[@]}" env HOME="$H" "$@"
}
ALLOW="allowed.test:$P,$UP:$P"
run() { in_hosts "$CORDON" run --allow-net "$ALLOW" "$@"; }
URL="http://allowed.test:$P/hello.txt"

# -- controls: the upstream answers on the host; the name resolves there
check_out "control: the upstream serves, unsandboxed" "hello" as_user curl -sS "http://$UP:$P/hello.txt"
check_out "control: the test hosts file names it" "hello" in_hosts curl -sS --noproxy '*' "$URL"
check_contains "control: without an allowlist the sandbox reaches nothing" "curl: (" \
    in_hosts "$CORDON" run -- curl -sS "$URL"

# -- allowed: HTTP forwarding, CONNECT, SOCKS5; curl, python, git
check_out "an allowed name over HTTP (http_proxy)" "hello" run -- curl -sS "$URL"
check_out "an allowed name over CONNECT" "hello" run -- curl -sS -p "$URL"
check_out "an allowed name over SOCKS5 (ALL_PROXY, names resolved by the proxy)" "hello" \
    run -- sh -c 'exec curl -sS -x "$ALL_PROXY" "$1"' sh "$URL"
check_out "an allowed IP over SOCKS5" "hello" run -- curl -sS -x socks5://127.0.0.1:3128 "http://$UP:$P/hello.txt"
check_out "python urllib through the proxy" "hello" run -- $PY -c \
    "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode().strip())" "$URL"
check_out "git clone over http through the proxy" "in git" run -- sh -c \
    'git clone -q "$1" /tmp/c && cat /tmp/c/file' sh "http://allowed.test:$P/repo.git"
check_out "pip install from an index through the proxy (PIP_PROXY, HTTP_PROXY)" "from the index" run -- sh -c \
    'python3 -m pip install -q --no-cache-dir --disable-pip-version-check --trusted-host allowed.test --index-url "$1" --target /tmp/pt \
        cordon-pip-test && PYTHONPATH=/tmp/pt python3 -c "import cordon_pip_test as m; print(m.X)"' \
    sh "http://allowed.test:$P/simple/"
check_contains "control: the same pip install without the index's entry is refused by the proxy" \
    "cordon: network: denied allowed.test:$P: not in the allowlist" \
    in_hosts "$CORDON" run --allow-net "other.test:$P" -- python3 -m pip install --no-cache-dir \
    --disable-pip-version-check --retries 0 --trusted-host allowed.test --index-url "http://allowed.test:$P/simple/" --target /tmp/pt cordon-pip-test
check_out "npm install of a tarball through the proxy (npm_config_proxy)" "from the tarball" run -- sh -c \
    'cd /tmp && npm install --no-audit --no-fund --no-update-notifier --loglevel=error "$1" >/dev/null &&
        node -p "require(\"cordon-npm-test\")"' sh "http://allowed.test:$P/files/cordon-npm-test-1.0.0.tgz"
want=$(sha256sum <"$T/srv/big.bin" | cut -d' ' -f1)
check_out "a larger download arrives whole" "$want" run -- sh -c \
    'curl -sS "$1" | sha256sum | cut -d" " -f1' sh "http://allowed.test:$P/big.bin"
check_out "20 parallel connections" "20" run -- sh -c \
    'for i in $(seq 20); do curl -sS "$1" & done | grep -c hello' sh "$URL"
# 300 tunnels open at once (each CONNECTed before any sends its request),
# then a request over each; with 1024 descriptors the proxy keeps half of
# them for sockets and copies the tunnels' bytes instead of splicing them
parallel='import os, socket, sys, threading
px = ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
n, host, port = int(sys.argv[1]), sys.argv[2], sys.argv[3]
all_open = threading.Barrier(n, timeout=20)
got = []
def one():
    s = socket.create_connection(px, 20); s.settimeout(20)
    s.sendall(("CONNECT %s:%s HTTP/1.1\r\n\r\n" % (host, port)).encode())
    head = b""
    while b"\r\n\r\n" not in head: head += s.recv(1)
    all_open.wait()
    s.sendall(b"GET /hello.txt HTTP/1.0\r\n\r\n")
    r = b""
    while True:
        d = s.recv(65536)
        if not d: break
        r += d
    got.append(r.endswith(b"\r\nhello\n"))
threads = [threading.Thread(target=one) for _ in range(n)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(got))'
check_out "300 tunnels at once through the proxy" "300" run -- $PY -c "$parallel" 300 allowed.test "$P"
run_1024() { (ulimit -n 1024 && run "$@"); }
check_out "300 tunnels at once with 1024 descriptors (copied, not spliced)" "300" \
    run_1024 -- $PY -c "$parallel" 300 allowed.test "$P"
check_out "the environment points at the proxy" "http://127.0.0.1:3128 proxy unset" run -- sh -c \
    'echo "$HTTPS_PROXY $CORDON_SANDBOX_NETWORK ${CORDON_SANDBOX_NETWORK_DISABLED:-unset}"'
check_out "the variables of npm, yarn, pip and cargo name the proxy too" \
    "http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128" \
    run -- sh -c 'echo "$npm_config_proxy $npm_config_https_proxy $YARN_HTTPS_PROXY $PIP_PROXY $CARGO_HTTP_PROXY"'

# -- denied, with the reason: HTTP 403, SOCKS5 reply 2, stderr, --stats
check_contains "a name not in the list: 403" "X-Cordon-Denied: not in the allowlist" \
    run -- curl -sS -i "http://other.test:$P/hello.txt"
check_contains "control: the same name allowed" "hello" \
    in_hosts "$CORDON" run --allow-net "other.test:$P,$UP:$P" -- curl -sS "http://other.test:$P/hello.txt"
check_contains "another port: 403 naming it" "port $P2 is not in the allowlist for this host" \
    run -- curl -sS -i "http://allowed.test:$P2/hello.txt"
check_contains "a name resolving to a private address" "resolves to 10.255.0.1 (private address" \
    in_hosts "$CORDON" run --allow-net "private.test:$P" -- curl -sS -i "http://private.test:$P/hello.txt"
check_contains "a name resolving to loopback, its address unlisted" "resolves to $UP (loopback address" \
    in_hosts "$CORDON" run --allow-net "loop.test:$P" -- curl -sS -i "http://loop.test:$P/hello.txt"
check_contains "an IP not in the list" "the IP address is not in the allowlist" \
    run -- curl -sS -i "http://127.0.0.3:$P/hello.txt"
check_contains "CONNECT denied: 403" "403" run -- curl -sS -p "http://other.test:$P/hello.txt"
check_contains "SOCKS5 denied: reply 2 (not allowed)" "(2)" \
    run -- curl -sS -x socks5h://127.0.0.1:3128 "http://other.test:$P/hello.txt"
socks='import os, socket, struct, sys
px = ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
def reply(cmd, atyp, addr, port):
    s = socket.create_connection(px, 5); s.settimeout(5)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00": return "no greeting"
    a = bytes([len(addr)]) + addr.encode() if atyp == 3 else socket.inet_aton(addr)
    s.sendall(bytes([5, cmd, 0, atyp]) + a + struct.pack(">H", port))
    r = s.recv(10)
    return str(r[1]) if len(r) > 1 else "none"
print(" ".join(reply(int(c), int(t), a, int(p)) for c, t, a, p in (x.split(",") for x in sys.argv[1:])))'
check_out "SOCKS5 reply codes: 0 allowed, 2 not allowed, 5 refused, 7 no UDP ASSOCIATE, 8 bad address type" \
    "0 2 5 7 8" in_hosts "$CORDON" run --allow-net "$ALLOW,$UP:$P2" -- $PY -c "$socks" \
    "1,3,allowed.test,$P" "1,3,other.test,$P" "1,1,$UP,$P2" "3,1,$UP,$P" "1,9,$UP,$P"
check_contains "the launcher reports the denied host on stderr" \
    "cordon: network: denied other.test:$P: not in the allowlist (allow it with --allow-net other.test:$P)" \
    run -- curl -sS -o /dev/null "http://other.test:$P/"
n=$(run -- sh -c 'curl -s "$1"; curl -s "$1"; curl -s -p "$1"' sh "http://other.test:$P/x" 2>&1 >/dev/null |
    grep -c "denied other.test")
if [ "$n" = 1 ]; then ok "each denied host is reported once"; else not_ok "each denied host is reported once ($n)"; fi
check_out "--quiet: no report" "" run --quiet -- curl -s -o /dev/null "http://other.test:$P/"
run --stats "$W/stats.json" -- curl -s -o /dev/null "http://other.test:$P/" 2>/dev/null
check_contains "--stats lists network_denied, with the entry that allows it" "\"network_denied\": [{\"host\": \"other.test\", \"port\": $P, \"reason\": \"not in the allowlist\", \"allow\": \"other.test:$P\"}]" cat "$W/stats.json"
check_contains "--stats without denials: an empty list" '"network_denied": []' \
    cordon run --stats-fd 1 -- true

# -- what the upstream reads is what the proxy checked. The ways a client
# could make an allowed server read another request than the checked one:
# its own Host header (another tenant, several, another port, an
# origin-form request naming a host only there), hop-by-hop headers
# (Proxy-Authorization, Proxy-Connection, those Connection names), a second
# request after the body (Content-Length or chunked), pipelined or
# smuggled, or on a kept-alive connection to another host, and ambiguous
# framing (Content-Length with Transfer-Encoding, either twice, another
# coding, obs-fold, bare CR, NUL, controls, absurd lengths): each is
# rewritten as RFC 9112 says, or refused with 400. A CONNECT or SOCKS
# tunnel is opaque (TLS and its SNI pass untouched): the tunnel's host is
# checked, what the client says inside it is its business with that host.
EA="allowed.test:$PE,$UP:$PE"
erun() { in_hosts "$CORDON" run --allow-net "$EA" "$@"; }
# PARTS... sent as they are (a pause after each), to the proxy or, with
# --direct PORT, to the upstream; the status lines and echoes that came back
raw='import os, socket, sys, time
args = sys.argv[1:]
eof = args[0] == "--eof"
if eof: args = args[1:]
if args[0] == "--direct": to, args = ("127.0.0.2", int(args[1])), args[2:]
else: to = ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
s = socket.create_connection(to, 5); s.settimeout(2)
for part in args:
    s.sendall(part.encode("latin-1").decode("unicode_escape").encode("latin-1")); time.sleep(0.3)
got, end = b"", "closed"
try:
    while True:
        d = s.recv(65536)
        if not d: break
        got += d
except socket.timeout: end = "open"
except ConnectionResetError: pass
lines = [l.decode(errors="replace").strip() for l in got.split(b"\r\n") if l.startswith((b"HTTP/", b"host="))]
print(" | ".join(lines + ([end] if eof else [])))'
send() { erun -- $PY -c "$raw" "$@"; }
status_of() { send "$@" | cut -d" " -f1-3; }
send_direct() { as_user $PY -c "$raw" --direct "$PE" "$@"; }
log_is() { # DESC WANT: what the upstream logged since the last call
    local d=$1 want=$2 got
    got=$(cat "$T/echo.log"); : >"$T/echo.log"
    if [ "$got" = "$want" ]; then ok "$d"; else not_ok "$d"; printf 'want: %s\ngot:  %s\n' "$want" "$got" | diag; fi
}
check_contains "control: unsandboxed, the upstream serves the Host the client names" \
    "host=other-tenant.example path=/" as_user curl -sS -H "Host: other-tenant.example" "http://$UP:$PE/"
check_contains "a Host header of the client's is replaced by the target's authority" "host=allowed.test:$PE path=/" \
    erun -- curl -sS -H "Host: other-tenant.example" "http://allowed.test:$PE/"
check_contains "the target's authority (case, trailing dot) is sent as it was checked" \
    "host=allowed.test:$PE path=/x" erun -- curl -sS "http://ALLOWED.test.:$PE/x"
check_out "several Host headers, another port: one Host, the target's" "HTTP/1.1 200 OK | host=allowed.test:$PE path=/ body= headers=host,connection" \
    send "GET http://allowed.test:$PE/ HTTP/1.1\r\nHost: other-tenant.example\r\nHost: allowed.test:1\r\nhost: x\r\n\r\n"
check_out "control: unsandboxed, an origin-form request goes where its Host says" \
    "HTTP/1.1 200 OK | host=other-tenant.example path=/ body= headers=host" \
    send_direct "GET / HTTP/1.1\r\nHost: other-tenant.example\r\n\r\n"
check_out "an origin-form request (a host only in Host) is refused: 400" "HTTP/1.1 400 Bad Request" \
    send "GET / HTTP/1.1\r\nHost: allowed.test:$PE\r\n\r\n"
check_contains "... saying how to write it" "names its target in full (GET http://HOST/PATH)" \
    erun -- curl -sS --request-target / "http://allowed.test:$PE/"
check_out "Proxy-Authorization, Proxy-Connection, Keep-Alive and the Connection names stay with the proxy" \
    "HTTP/1.1 200 OK | host=allowed.test:$PE path=/ body= headers=host,x-kept,connection" \
    send "GET http://allowed.test:$PE/ HTTP/1.1\r\nProxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: 5\r\nX-Kept: 2\r\n\r\n"
: >"$T/echo.log"
after="GET /smuggled HTTP/1.1\r\nHost: other-tenant.example\r\n\r\n"
send_direct "POST /a HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 4\r\n\r\nbody$after" >/dev/null
log_is "control: unsandboxed, a request after the body is read as the next one" \
    "host=allowed.test path=/a body=body headers=host,content-length
host=other-tenant.example path=/smuggled body= headers=host"
send "POST http://allowed.test:$PE/a HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody$after" >/dev/null
log_is "a request after a Content-Length body is not forwarded" \
    "host=allowed.test:$PE path=/a body=body headers=host,content-length,connection"
send_direct "POST /c HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\n\r\n$after" >/dev/null
log_is "control: unsandboxed, the same after a chunked body" \
    "host=allowed.test path=/c body=body headers=host,transfer-encoding
host=other-tenant.example path=/smuggled body= headers=host"
send "POST http://allowed.test:$PE/c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbo" "dy\r\n0\r\n\r\n$after" >/dev/null
log_is "a request after a chunked body (sent in parts) is not forwarded" \
    "host=allowed.test:$PE path=/c body=body headers=host,transfer-encoding,connection"
send_direct "GET /1 HTTP/1.1\r\nHost: allowed.test\r\n\r\n" "GET http://other.test:$PE/2 HTTP/1.1\r\nHost: other.test\r\n\r\n" >/dev/null
log_is "control: unsandboxed, the upstream serves a second request on a kept-alive connection" \
    "host=allowed.test path=/1 body= headers=host
host=other.test path=http://other.test:$PE/2 body= headers=host"
send "GET http://allowed.test:$PE/1 HTTP/1.1\r\n\r\n" "GET http://other.test:$PE/2 HTTP/1.1\r\n\r\n" >/dev/null
log_is "a second request on the same client connection, to another host, does not reach the first one" \
    "host=allowed.test:$PE path=/1 body= headers=host,connection"
check_out "... nor one pipelined with it; the connection ends after the first answer" \
    "HTTP/1.1 200 OK | host=allowed.test:$PE path=/1 body= headers=host,connection | closed" \
    send --eof "GET http://allowed.test:$PE/1 HTTP/1.1\r\n\r\nGET http://other.test:$PE/2 HTTP/1.1\r\n\r\n"
log_is "... the upstream saw only the first" "host=allowed.test:$PE path=/1 body= headers=host,connection"
check_out "curl reusing its proxy connection: the second host is checked again (403), the first served" \
    "200 403" erun -- sh -c 'curl -s -o /dev/null -o /dev/null -w "%{http_code}\n" "$@" | xargs' sh \
    "http://allowed.test:$PE/1" "http://other.test:$PE/2"
log_is "... and the upstream saw only the first" "host=allowed.test:$PE path=/1 body= headers=host,user-agent,accept,connection"
# WHAT|REQUEST|THE SAME WITHOUT IT (the control, served)
P1="POST http://allowed.test:$PE/ HTTP/1.1\r\n"
G1="GET http://allowed.test:$PE/ HTTP/1.1\r\n"
while IFS='|' read -r what bad good; do
    check_out "control: without $what the request is served" "HTTP/1.1 200 OK" status_of "$good"
    check_out "$what: refused (400)" "HTTP/1.1 400 Bad Request" send "$bad"
done <<CASES
Content-Length and Transfer-Encoding|${P1}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n|${P1}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n
Transfer-Encoding and Content-Length|${P1}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n|${P1}Content-Length: 5\r\n\r\n0\r\n\r\n
Content-Length twice|${P1}Content-Length: 4\r\nContent-Length: 40\r\n\r\nbody|${P1}Content-Length: 4\r\n\r\nbody
Transfer-Encoding twice|${P1}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n|${P1}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n
a coding other than chunked|${P1}Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n|${P1}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n
an absurd Content-Length|${P1}Content-Length: 99999999999999999999\r\n\r\n|${P1}Content-Length: 0\r\n\r\n
obs-fold|${G1}X-A: 1\r\n Host: other-tenant.example\r\n\r\n|${G1}X-A: 1\r\nX-B: other-tenant.example\r\n\r\n
a bare CR in a value|${G1}X-A: 1\rHost: other-tenant.example\r\n\r\n|${G1}X-A: 1\r\nX-B: other-tenant.example\r\n\r\n
a NUL in a value|${G1}X-A: 1\x00\r\n\r\n|${G1}X-A: 1\r\n\r\n
an ESC in a value|${G1}X-A: \x1b[31m\r\n\r\n|${G1}X-A: [31m\r\n\r\n
a space before the colon|${G1}Host : other-tenant.example\r\n\r\n|${G1}Host: other-tenant.example\r\n\r\n
CASES
# chunked framing the upstream might read otherwise: refused with 400 when
# it comes with the head; once the head went on, the connection is cut,
# and nothing of it is forwarded
chunked="${P1}Transfer-Encoding: chunked\r\n\r\n"
while IFS='|' read -r what bad good; do
    check_out "control: without $what the request is served" "HTTP/1.1 200 OK" status_of "$chunked$good"
    check_out "$what, with the head: refused (400)" "HTTP/1.1 400 Bad Request" send "$chunked$bad"
    : >"$T/echo.log"
    send "$chunked" "$good" >/dev/null
    log_is "control: without $what, the body sent after the head is forwarded" \
        "host=allowed.test:$PE path=/ body=body headers=host,transfer-encoding,connection"
    check_out "$what, after the head: the connection is cut" "" send "$chunked" "$bad"
    log_is "$what, after the head: nothing was served" ""
done <<CASES
a bare LF in the chunk size line|4\nbody\r\n0\r\n\r\n|4\r\nbody\r\n0\r\n\r\n
a bare CR after the chunk|4\r\nbody\r0\r\n\r\n|4\r\nbody\r\n0\r\n\r\n
an absurd chunk size|fffffffffffffffff\r\nbody\r\n0\r\n\r\n|00004\r\nbody\r\n0\r\n\r\n
a chunk size with a sign|+4\r\nbody\r\n0\r\n\r\n|4\r\nbody\r\n0\r\n\r\n
CASES
: >"$T/echo.log"

# -- what the command names reaches the operator's terminal only escaped:
# a SOCKS5 name is any bytes (OSC title, OSC 52 clipboard, CSI, C1 as raw
# byte and as UTF-8, bidi override), an HTTP host any byte above space
socks_esc='import os, socket, struct, sys
px = ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
for name in (b"\x1b]0;pwned\x07evil.test", b"\x1b]52;c;aGVsbG8=\x07clip.test", b"\x1b[2J\x9b31m\xc2\x9b1m\xe2\x80\xaerev.test"):
    s = socket.create_connection(px, 5); s.settimeout(5)
    s.sendall(b"\x05\x01\x00"); s.recv(2)
    req = bytes([5, 1, 0, 3, len(name)]) + name + struct.pack(">H", 80)
    s.sendall(req); print(req.hex(), s.recv(10)[1])'
erun -- $PY -c "$socks_esc" >"$T/esc.out" 2>"$T/esc.err"
check_contains "control: the SOCKS5 requests hold the raw ESC bytes" "1b5d303b70776e6564" cat "$T/esc.out"
check_out "control: and are denied (reply 2)" "2 2 2" sh -c "cut -d' ' -f2 '$T/esc.out' | tr '\n' ' ' | sed 's/ \$//'"
raw_bytes='import sys
d = open(sys.argv[1], "rb").read()
print(sum(d.count(b) for b in (b"\x1b", b"\x07", b"\x9b", b"\xe2\x80\xae")))'
check_out "no raw ESC, BEL, C1 or bidi byte reaches cordon's stderr" "0" $PY -c "$raw_bytes" "$T/esc.err"
check_contains "the denial shows the name escaped" 'cordon: network: denied \x1b]0;pwned\x07evil.test:80: not a valid host name or IP address' \
    cat "$T/esc.err"
check_contains "... OSC 52 too" 'denied \x1b]52;c;aGVsbG8=\x07clip.test:80' cat "$T/esc.err"
check_contains "... C1 raw and as UTF-8, and a bidi override" 'denied \x1b[2J\x9b31m\xc2\x9b1m\xe2\x80\xaerev.test:80' cat "$T/esc.err"
check_out "and suggests no --allow-net for a name that is none" "0" grep -c -- "--allow-net" "$T/esc.err"
check_contains "control: a valid name's denial suggests it" "(allow it with --allow-net other.test:$PE)" \
    erun -- curl -sS -o /dev/null "http://other.test:$PE/"
send "GET http://x\x9b31m.test/ HTTP/1.1\r\n\r\n" >"$T/esc.out" 2>"$T/esc.err"
check_contains "an HTTP host with a C1 byte is denied, escaped" 'denied x\x9b31m.test:80: not a valid host name or IP address' cat "$T/esc.err"
check_out "... no raw C1 byte on stderr" "0" $PY -c "$raw_bytes" "$T/esc.err"

# -- nothing else leaves the sandbox
check_out "control: direct TCP to the upstream, unsandboxed" "OK" as_user "$PROBE" connect $UP "$P"
check_out "direct TCP from inside fails" "EACCES" run -- "$PROBE" connect $UP "$P2"
# a loopback address the list names is a service of the host's loopback
# (proxy-clients.sh): the sandbox's own lo forwards it
check_out "direct TCP to a listed loopback address reaches it (forwarded)" "OK" run -- "$PROBE" connect $UP "$P"
check_out "control: TCP to the proxy port is allowed inside" "OK" run -- "$PROBE" connect 127.0.0.1 3128
udp='import socket,sys
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.settimeout(1)
try:
    s.sendto(b"ping",("127.0.0.2",int(sys.argv[1]))); print(s.recv(10).decode())
except OSError as e: print("no reply")'
check_out "control: UDP reaches the host's echo server, unsandboxed" "ping" as_user $PY -c "$udp" "$PU"
check_out "UDP from inside does not reach the host" "no reply" run -- $PY -c "$udp" "$PU"
check_out "the namespace has only lo" "lo" run -- sh -c "ls /sys/class/net 2>/dev/null || sed -n '3,\$s/:.*//p' /proc/net/dev | tr -d ' '"

# -- timeouts: a head that never ends (HTTP, and a SOCKS5 greeting without
# its request), a connect that gets no answer, an idle tunnel, a half-closed
# one; and a tunnel with traffic, which the idle timeout must not close.
# CORDON_TEST_PROXY_TIMEOUTS (test-only, read by the launcher) makes one of
# them 1 s in each run, the others 30 s: each probe's control is a run where
# its own timeout is the long one (the busy tunnel's: the idle one of the
# same run, closed).
timeouts='import os, socket, sys, threading, time
px = ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
up, hold, full = sys.argv[1], sys.argv[2], sys.argv[3]
def ends(s):  # the proxy closes s within 3.5 s
    s.settimeout(3.5)
    try:
        while s.recv(4096): pass
        return "closed"
    except socket.timeout: return "open"
    except OSError: return "closed"
def connect(port):
    s = socket.create_connection(px, 3)
    s.sendall(("CONNECT %s:%s HTTP/1.1\r\n\r\n" % (up, port)).encode())
    return s
def tunnel():
    s = connect(hold); s.settimeout(3)
    assert s.recv(4096).startswith(b"HTTP/1.1 200"); return s
def busy(s):  # a byte every 0.25 s for 3 s (three idle timeouts), then open?
    for _ in range(12):
        try: s.sendall(b"x")
        except OSError: return "closed"
        time.sleep(0.25)
    s.settimeout(0.3)
    try: return "closed" if s.recv(1) == b"" else "open"
    except socket.timeout: return "open"
    except OSError: return "closed"
def answer(s):
    s.settimeout(3.5)
    try: return s.recv(4096).split(b"\r\n")[0].decode()
    except socket.timeout: return "no answer"
head = socket.create_connection(px, 3); head.sendall(b"GET http://")
socks = socket.create_connection(px, 3); socks.sendall(b"\x05\x01\x00")
assert socks.recv(2) == b"\x05\x00"
pending = connect(full)
idle = tunnel()
half = tunnel(); half.shutdown(socket.SHUT_WR)
waits = {"head": (ends, head), "socks": (ends, socks), "connect": (answer, pending), "idle": (ends, idle),
         "half-open": (ends, half), "busy": (busy, tunnel())}
got = {}
threads = [threading.Thread(target=lambda k=k, f=f, s=s: got.update({k: f(s)})) for k, (f, s) in waits.items()]
for t in threads: t.start()
for t in threads: t.join()
for k in waits: print(k, got[k])'
trun() { CORDON_TEST_PROXY_TIMEOUTS=$1 in_hosts "$CORDON" run --allow-net "$UP:$PH,$UP:$PB" -- $PY -c "$timeouts" $UP "$PH" "$PB"; }
trun 1,30,30 >"$T/t-setup" 2>&1 &
t1=$!
trun 30,1,30 >"$T/t-idle" 2>&1 &
t2=$!
trun 30,30,1 >"$T/t-half" 2>&1 &
wait $t1 $! $t2
check_contains "a request head that never ends is closed (setup timeout)" "head closed" cat "$T/t-setup"
check_contains "control: it stays open while the setup timeout is long" "head open" cat "$T/t-idle"
check_contains "a SOCKS5 greeting without its request is closed (setup timeout)" "socks closed" cat "$T/t-setup"
check_contains "control: it stays open while the setup timeout is long" "socks open" cat "$T/t-idle"
check_contains "a connect without an answer: 504 (setup timeout)" "connect HTTP/1.1 504 Gateway Timeout" cat "$T/t-setup"
check_contains "control: no answer while the setup timeout is long" "connect no answer" cat "$T/t-idle"
check_contains "an idle tunnel is closed (idle timeout)" "idle closed" cat "$T/t-idle"
check_contains "control: it stays open while the idle timeout is long" "idle open" cat "$T/t-half"
check_contains "a tunnel with traffic outlives the idle timeout (each move renews it)" "busy open" cat "$T/t-idle"
check_contains "a half-closed tunnel is closed (half-open timeout)" "half-open closed" cat "$T/t-half"
check_contains "control: it stays open while the half-open timeout is long" "half-open open" cat "$T/t-idle"

# -- the plan shows the list
check_contains "cordon plan shows the allowlist" "allow: allowed.test:$P $UP:$P" \
    cordon plan --allow-net "allowed.test:$P,$UP:$P" -- true
check_status "a bad entry is a config error" 125 cordon plan --allow-net "bad host" -- true

# -- the landlock backend: no network namespace, so the proxy listens on
# the host's loopback on a port the kernel picks; Landlock lets TCP connect
# only to it, seccomp refuses every socket but unix and TCP
run_ll() { in_hosts "$CORDON" run --backend landlock --allow-net "$ALLOW" "$@"; }
check_out "landlock backend: an allowed name over HTTP" "hello" run_ll -- curl -sS "$URL"
check_out "landlock backend: an allowed name over CONNECT" "hello" run_ll -- curl -sS -p "$URL"
check_out "landlock backend: an allowed name over SOCKS5" "hello" \
    run_ll -- sh -c 'exec curl -sS -x "$ALL_PROXY" "$1"' sh "$URL"
check_out "landlock backend: python urllib through the proxy" "hello" run_ll -- $PY -c \
    "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode().strip())" "$URL"
check_contains "landlock backend: a name not in the list: 403" "X-Cordon-Denied: not in the allowlist" \
    run_ll -- curl -sS -i "http://other.test:$P/hello.txt"
check_contains "landlock backend control: the same name allowed" "hello" \
    in_hosts "$CORDON" run --backend landlock --allow-net "other.test:$P,$UP:$P" -- curl -sS "http://other.test:$P/hello.txt"
check_out "landlock backend: the env names the port the kernel chose" "chosen proxy" run_ll -- sh -c \
    'case "$HTTP_PROXY $ALL_PROXY" in *:3128*) echo fixed;; "http://127.0.0.1:${HTTP_PROXY##*:} socks5h://127.0.0.1:${HTTP_PROXY##*:}") echo chosen "$CORDON_SANDBOX_NETWORK";; *) echo "$HTTP_PROXY";; esac'
connect_proxy='import os,socket
s=socket.create_connection(("127.0.0.1",int(os.environ["HTTP_PROXY"].rsplit(":",1)[1])),3); print("OK")'
check_out "landlock backend control: TCP to the proxy's port is allowed" "OK" run_ll -- $PY -c "$connect_proxy"
check_out "landlock backend: direct TCP to another loopback port fails" "EACCES" run_ll -- "$PROBE" connect $UP "$P2"
check_out "landlock backend: direct TCP to 127.0.0.1 fails too" "EACCES" run_ll -- "$PROBE" connect 127.0.0.1 "$P"
# Landlock's rule names the port only: the call supervisor checks the
# address (without it this reaches 127.0.0.2 and gets ECONNREFUSED)
check_out "landlock backend: the proxy's port on another address (127.0.0.2) is refused" "EACCES" \
    run_ll --expose "$T/bin" -- sh -c \
    'exec "$1" connect 127.0.0.2 "${HTTP_PROXY##*:}"' sh "$PROBE"
PB=$(free_port)
check_out "control: binding a TCP port works unsandboxed" "OK" as_user "$PROBE" bind "$PB"
check_out "landlock backend: binding a TCP port fails" "EACCES" run_ll -- "$PROBE" bind "$PB"
for kind in udp udp6 netlink mptcp; do
    check_out "control: a $kind socket, unsandboxed" "OK" as_user "$PROBE" socket $kind
    check_out "landlock backend: a $kind socket is refused" "EPERM" run_ll -- "$PROBE" socket $kind
done
check_contains "landlock backend: UDP to the host's echo server is refused" "PermissionError" \
    run_ll -- $PY -c "$udp" "$PU"
for kind in unix inet inet6; do
    check_out "landlock backend control: a $kind stream socket is made" "OK" run_ll -- "$PROBE" socket $kind
done
check_contains "landlock backend: the launcher warns that any host process may use the proxy" \
    "any process of the host may use it" run_ll -- true
check_status "landlock backend: the proxy without Landlock is an error" 125 \
    run_ll --landlock off -- true
check_out "landlock backend control: with Landlock the same run works" "" run_ll -- true
check_contains "cordon plan --backend landlock shows the proxy mode" "network: proxy" \
    cordon plan --backend landlock --allow-net "allowed.test:$P" -- true
check_contains "cordon plan --backend landlock: the proxy on the host's loopback" \
    "network proxy: 127.0.0.1 on the host, a port chosen at start" \
    cordon plan --backend landlock --allow-net "allowed.test:$P" -- true
done_testing
