#!/bin/bash
# The clients that read no proxy variable (issue 38 item 2) and the host's
# loopback services (issue 36 item 3), on both Linux backends.
#
# Runtime knobs: the JVM (JAVA_TOOL_OPTIONS), ssh (GIT_SSH_COMMAND and
# CORDON_PROXY_CONNECT, a ProxyCommand through the proxy's CONNECT), Node
# (NODE_USE_ENV_PROXY, read by Node >= 22.21 only). Loopback services:
# --allow-net 127.0.0.1:PORT, localhost:PORT and [::1]:PORT reach that
# service of the host for every client, with or without the proxy
# variables (NO_PROXY sends them straight to loopback: the linux backend
# forwards the listed ports of the sandbox's own lo, the landlock backend
# lets the command connect to exactly those), and nothing else of the
# host's loopback. The named hosts run in a network namespace of the
# test's own (a veth pair, TEST-NET-1 addresses, 192.0.2.0/24: no outside
# address), their names from a test /etc/hosts in a private mount
# namespace, as in proxy.sh; the loopback services on the host's 127.0.0.1
# and ::1. Each allowed request has its control.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

. "$(dirname "$0")/lib-net.sh"
test_hosts_netns pc 192.0.2

mkdir -p "$T/srv"
echo hello >"$T/srv/hello.txt"
chmod -R a+rX "$T/srv"
free_port() { $PY -c 'import socket,sys;s=socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET);s.bind((sys.argv[1],0));print(s.getsockname()[1])' "${1:-127.0.0.1}"; }
serve() { # [in_ns] ADDR PORT: a static HTTP server of $T/srv
    local ns=()
    [ "$1" = in_ns ] && { ns=(ip netns exec "$NS"); shift; }
    "${ns[@]}" $PY -c '
import functools, http.server, socket, sys
class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[3])
Server((sys.argv[1], int(sys.argv[2])), handler).serve_forever()' "$1" "$2" "$T/srv" >/dev/null 2>&1 &
    CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
}
P=8080
serve in_ns "$NSIP" "$P"
# the loopback services: one listed (PL), one not (PO), one on ::1 (P6)
PL=$(free_port)
PO=$(free_port)
P6=$(free_port ::1)
serve 127.0.0.1 "$PL"
serve 127.0.0.1 "$PO"
serve ::1 "$P6"
# an ssh server's first words: it sends its banner, logs the client's
PS=22
ip netns exec "$NS" $PY - "$NSIP" "$PS" "$T/ssh.log" <<'PY' &
import socket, sys
s = socket.socket(); s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(b"SSH-2.0-cordon-test\r\n"); d = c.recv(200)
    with open(sys.argv[3], "a") as log: log.write(d.split(b"\r\n")[0].decode(errors="replace") + "\n")
    c.close()
PY
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
for _ in $(seq 50); do
    curl -s -o /dev/null "http://$NSIP:$P/hello.txt" && curl -s -o /dev/null "http://127.0.0.1:$PL/hello.txt" &&
        curl -s -o /dev/null "http://127.0.0.1:$PO/hello.txt" && curl -s -g -o /dev/null "http://[::1]:$P6/hello.txt" && break
    sleep 0.1
done

cat >"$T/hosts" <<HOSTS
127.0.0.1 localhost
::1 localhost ip6-localhost
$NSIP allowed.test other.test
127.0.0.2 loop.test
HOSTS
chmod 644 "$T/hosts"
in_hosts() {
    local who=()
    [ "$TEST_AS" = user ] && who=(setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all)
    unshare -m --propagation private -- sh -c 'mount --bind "$1" /etc/hosts && cd "$2" && shift 2 && exec "$@"' \
        sh "$T/hosts" "$W" "${who[@]}" env HOME="$H" "$@"
}
ALLOW="allowed.test:$P,allowed.test:$PS"
URL="http://allowed.test:$P/hello.txt"
check_out "control: the test host serves, unsandboxed" "hello" as_user curl -sS "http://$NSIP:$P/hello.txt"
check_out "control: and by its name" "hello" in_hosts curl -sS --noproxy '*' "$URL"

# ---- the JVM: JAVA_TOOL_OPTIONS names the proxy ---------------------------
# (its configuration in /etc/java-*: exposed here until the default view
# shows the host's readable /etc, issue 36 item 1)
JEXPOSE=()
for d in /etc/java-*; do [ -d "$d" ] && JEXPOSE+=(--expose "$d"); done
mkdir -p "$T/java"
cat >"$T/java/Get.java" <<'JAVA'
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
public class Get {
    public static void main(String[] a) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(a[0])).build(), HttpResponse.BodyHandlers.ofString());
            System.out.println(r.statusCode() + " " + r.body().trim());
        } catch (Exception e) {
            System.out.println("failed " + e.getClass().getSimpleName());
        }
    }
}
JAVA
javac -d "$T/java" "$T/java/Get.java" && chmod -R a+rX "$T/java"
java_get() { # BACKEND URL [ENV...]: Get through cordon, JAVA_TOOL_OPTIONS as cordon sets it
    local b=$1 url=$2; shift 2
    in_hosts "$CORDON" run --backend "$b" --allow-net "$ALLOW" --expose "$T/java" "${JEXPOSE[@]}" -- \
        env "$@" java -cp "$T/java" Get "$url"
}
check_out "control: the JVM fetches the upstream unsandboxed" "200 hello" \
    in_hosts java -cp "$T/java" Get "$URL"
for b in linux landlock; do
    check_out "$b: a JVM HttpClient reaches an allowed name (JAVA_TOOL_OPTIONS)" "200 hello" java_get $b "$URL"
    [ $b = landlock ] && check_out "$b control: without JAVA_TOOL_OPTIONS it reaches nothing" "failed ConnectException" \
        java_get $b "$URL" JAVA_TOOL_OPTIONS=
    check_out "$b: a JVM HttpClient to a name not in the list: the proxy's 403" "403 cordon: denied other.test:$P: not in the allowlist (allow it with --allow-net other.test:$P)" \
        java_get $b "http://other.test:$P/hello.txt"
done
check_contains "landlock: JAVA_TOOL_OPTIONS names the port the kernel chose" "-Dhttps.proxyPort=" \
    in_hosts "$CORDON" run --backend landlock --allow-net "$ALLOW" -- sh -c \
    'case "$JAVA_TOOL_OPTIONS" in *"-Dhttp.proxyPort=${HTTP_PROXY##*:} "*"-Dhttps.proxyPort=${HTTP_PROXY##*:} "*) echo "$JAVA_TOOL_OPTIONS";; *) echo "wrong: $JAVA_TOOL_OPTIONS";; esac'
check_out "a JAVA_TOOL_OPTIONS of the policy's is kept, cordon's properties after it" "-Xss2m -Dhttp.proxyHost=127.0.0.1" \
    in_hosts "$CORDON" run --allow-net "$ALLOW" --set JAVA_TOOL_OPTIONS=-Xss2m -- sh -c 'echo "${JAVA_TOOL_OPTIONS%% -Dhttp.proxyPort*}"'

# ---- ssh: a ProxyCommand through the proxy's CONNECT ----------------------
SSH_OPTS="-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=5"
ssh_log() { # DESC: the test server's log since the last call is the client's banner
    local got
    got=$(cat "$T/ssh.log" 2>/dev/null); : >"$T/ssh.log"
    case $got in SSH-2.0-OpenSSH*) ok "$1" ;; *) not_ok "$1"; echo "got: $got" | diag ;; esac
}
no_ssh_log() {
    local got
    got=$(cat "$T/ssh.log" 2>/dev/null); : >"$T/ssh.log"
    if [ -z "$got" ]; then ok "$1"; else not_ok "$1"; echo "got: $got" | diag; fi
}
: >"$T/ssh.log"
as_user ssh $SSH_OPTS -p "$PS" git@$NSIP true >/dev/null 2>&1
ssh_log "control: ssh reaches the test server unsandboxed"
# (as root the landlock backend's command is a sandbox user without a passwd
# entry, which ssh refuses to run as: --user caller, docs/network.md)
SSH_USER=()
is_root_run && SSH_USER=(--user caller)
for b in linux landlock; do
    U=()
    [ $b = landlock ] && U=("${SSH_USER[@]}")
    in_hosts "$CORDON" run --backend $b "${U[@]}" --allow-net "$ALLOW" -- sh -c \
        "GIT_SSH_COMMAND=\"\$GIT_SSH_COMMAND $SSH_OPTS\" git ls-remote ssh://git@allowed.test:$PS/repo.git" >/dev/null 2>&1
    ssh_log "$b: git over ssh reaches an allowed host:port (GIT_SSH_COMMAND's ProxyCommand)"
    in_hosts "$CORDON" run --backend $b "${U[@]}" --allow-net "$ALLOW" -- sh -c \
        "ssh $SSH_OPTS -o \"ProxyCommand=bash -c \\\"\\\$CORDON_PROXY_CONNECT\\\" connect %h %p\" -p $PS git@allowed.test true" >/dev/null 2>&1
    ssh_log "$b: a plain ssh with the same ProxyCommand reaches it"
    in_hosts "$CORDON" run --backend $b "${U[@]}" --allow-net "$ALLOW" -- sh -c \
        "GIT_SSH_COMMAND=\"ssh $SSH_OPTS\" git ls-remote ssh://git@allowed.test:$PS/repo.git" >/dev/null 2>&1
    if [ $b = linux ]; then # the port is intercepted: see below
        ssh_log "$b: git's ssh without the ProxyCommand reaches it too (interception)"
    else
        no_ssh_log "$b control: git's ssh without the ProxyCommand reaches nothing"
    fi
    check_contains "$b: ssh to a port not in the list: the proxy's refusal, with the entry to allow" \
        "cordon: denied allowed.test:$((PS + 1)): port $((PS + 1)) is not in the allowlist for this host (allow it with --allow-net allowed.test:$((PS + 1)))" \
        in_hosts "$CORDON" run --backend $b "${U[@]}" --allow-net "$ALLOW" -- sh -c \
        "GIT_SSH_COMMAND=\"\$GIT_SSH_COMMAND $SSH_OPTS\" git ls-remote ssh://git@allowed.test:$((PS + 1))/repo.git"
    no_ssh_log "$b: ... and nothing reached the server"
done

# ---- Node: NODE_USE_ENV_PROXY --------------------------------------------
node_fetch='fetch(process.argv[1]).then(r => r.text()).then(t => console.log(t.trim()), e => console.log("failed", (e.cause && e.cause.code) || e.message))'
check_out "NODE_USE_ENV_PROXY is set for Node >= 22.21" "1" \
    in_hosts "$CORDON" run --allow-net "$ALLOW" -- sh -c 'echo "$NODE_USE_ENV_PROXY"'
if node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 21) ? 0 : 1)'; then
    for b in linux landlock; do
        check_out "$b: Node's fetch reaches an allowed name (NODE_USE_ENV_PROXY)" "hello" \
            in_hosts "$CORDON" run --backend $b --allow-net "$ALLOW" -- node -e "$node_fetch" "$URL"
    done
else
    # docs/network.md: Node before 22.21 (Debian 12's 20) reads no proxy
    # variable: on the linux backend the interception takes it
    check_out "linux: Node $(node --version)'s fetch reaches an allowed name (interception)" "hello" \
        in_hosts "$CORDON" run --backend linux --allow-net "$ALLOW" -- node -e "$node_fetch" "$URL"
    check_out "landlock: Node $(node --version) reads no proxy variable: its fetch of a name gets no network (documented)" \
        "failed EACCES" in_hosts "$CORDON" run --backend landlock --allow-net "$ALLOW" -- node -e "$node_fetch" "$URL"
fi

# ---- the host's loopback services ------------------------------------------
# each client, with the proxy variables (NO_PROXY: loopback goes direct),
# through the proxy explicitly, and with no proxy at all
mkdir -p "$T/clients"
cat >"$T/clients/get.sh" <<'SH'
# KIND URL: fetch URL with one client; its body, nothing on failure
case $1 in
env) curl -fsS "$2" ;;
proxy) curl -fsS -x "$HTTP_PROXY" --noproxy '' "$2" ;;
noproxy) curl -fsS --noproxy '*' "$2" ;;
python) python3 -c 'import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode().strip())' "$2" ;;
node) node -e 'fetch(process.argv[1]).then(r => r.text()).then(t => console.log(t.trim()), () => {})' "$2" ;;
java) java -cp "${0%/clients/get.sh}/java" Get "$2" | sed -n 's/^200 //p' ;;
esac
SH
chmod -R a+rX "$T/clients"
loop_get() { # BACKEND ENTRY KIND URL
    cordon run --backend "$1" --allow-net "$2" --expose "$T/clients" --expose "$T/java" "${JEXPOSE[@]}" -- \
        sh "$T/clients/get.sh" "$3" "$4" 2>/dev/null
}
client_name() { case $1 in env) echo "curl (proxy variables, NO_PROXY)" ;; proxy) echo "curl through the proxy" ;;
    noproxy) echo "curl --noproxy '*'" ;; python) echo "python urllib" ;; node) echo "Node's fetch" ;; java) echo "a JVM HttpClient" ;; esac; }
check_out "control: the listed service answers unsandboxed" "hello" as_user curl -sS "http://127.0.0.1:$PL/hello.txt"
check_out "control: the unlisted one too" "hello" as_user curl -sS "http://127.0.0.1:$PO/hello.txt"
check_out "control: the one on ::1 too" "hello" as_user curl -sS -g "http://[::1]:$P6/hello.txt"
for b in linux landlock; do
    for e in "127.0.0.1:$PL" "localhost:$PL"; do
        for h in 127.0.0.1 localhost; do
            # an address entry names that address: "localhost" by name is another entry
            [ "$e" = "127.0.0.1:$PL" ] && [ $h = localhost ] && continue
            for k in env proxy noproxy python node java; do
                check_out "$b: --allow-net $e: $(client_name $k) reaches http://$h:PL" "hello" \
                    loop_get $b "$e" $k "http://$h:$PL/hello.txt"
                check_out "$b: --allow-net $e: $(client_name $k) does not reach http://$h:PO (unlisted)" "" \
                    loop_get $b "$e" $k "http://$h:$PO/hello.txt"
            done
        done
        check_out "$b: --allow-net $e: direct TCP to it" "OK" cordon run --backend $b --allow-net "$e" -- "$PROBE" connect 127.0.0.1 "$PL"
        check_out "$b: --allow-net $e: direct TCP to the unlisted port fails" \
            EACCES \
            cordon run --backend $b --allow-net "$e" -- "$PROBE" connect 127.0.0.1 "$PO"
    done
    check_out "$b: --allow-net [::1]:P6 reaches the service on ::1" "hello" \
        cordon run --backend $b --allow-net "[::1]:$P6" -- curl -sS -g "http://[::1]:$P6/hello.txt"
    check_out "$b: --allow-net [::1]:P6 does not reach 127.0.0.1 on that port" "" \
        cordon run --backend $b --allow-net "[::1]:$P6" -- curl -sS "http://127.0.0.1:$PL/hello.txt"
    check_out "$b: --allow-net localhost:P6 reaches the service on ::1 too" "hello" \
        cordon run --backend $b --allow-net "localhost:$P6" -- curl -sS -g "http://[::1]:$P6/hello.txt"
    check_contains "$b: the proxy's denial of an unlisted loopback port names the entry that allows it" \
        "cordon: network: denied 127.0.0.1:$PO: port $PO is not in the allowlist for this host (allow it with --allow-net 127.0.0.1:$PO)" \
        cordon run --backend $b --allow-net "localhost:$PL" -- sh -c 'curl -sS -x "$HTTP_PROXY" --noproxy "" "http://127.0.0.1:$1/"' sh "$PO"
    check_contains "$b: ... and of localhost by name, the localhost entry" \
        "cordon: network: denied localhost:$PO: port $PO is not in the allowlist for this host (allow it with --allow-net localhost:$PO)" \
        cordon run --backend $b --allow-net "localhost:$PL" -- sh -c 'curl -sS -x "$HTTP_PROXY" --noproxy "" "http://localhost:$1/"' sh "$PO"
done
check_contains "a name that resolves to loopback: the hint names the address to list, not the name" \
    "cordon: network: denied loop.test:$PO: resolves to 127.0.0.2 (loopback address; allowed only when the list names that address) (allow it with --allow-net 127.0.0.2:$PO)" \
    in_hosts "$CORDON" run --allow-net "loop.test:$PO" -- curl -sS "http://loop.test:$PO/"
cordon run --allow-net "localhost:$PL" --stats "$W/stats.json" -- sh -c 'curl -s -x "$HTTP_PROXY" --noproxy "" "http://127.0.0.1:$1/"' sh "$PO" >/dev/null 2>&1
check_contains "--stats: the denial's allow entry" "\"allow\": \"127.0.0.1:$PO\"" cat "$W/stats.json"
check_status "linux: 127.0.0.1:3128 inside is cordon's proxy: an error" 125 \
    cordon run --allow-net 127.0.0.1:3128 -- true
check_contains "... that says so" "127.0.0.1:3128: inside the sandbox that is cordon's proxy" \
    cordon run --allow-net 127.0.0.1:3128 -- true
# ---- transparent interception (issue 38 item 1): the linux backend ---------
# every address of the sandbox's namespace is routed to its lo, where the
# proxy listens on 80, 443 and the allowlist's ports; its resolver on
# 127.0.0.1:53 gives an allowed name an address of its own (198.18.0.0/15)
# and refuses every other name. No proxy variable is used by these clients.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=allowed.test \
    -addext "subjectAltName=DNS:allowed.test,DNS:other.test" -keyout "$T/key.pem" -out "$T/cert.pem" >/dev/null 2>&1
chmod a+r "$T/key.pem" "$T/cert.pem"
ip netns exec "$NS" $PY - "$NSIP" "$T" <<'PY' >/dev/null 2>&1 &
import functools, http.server, ssl, sys, threading
ip, t = sys.argv[1], sys.argv[2]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=t + "/srv")
class Kept(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1" # answers pipelined requests
plain = http.server.ThreadingHTTPServer((ip, 80), functools.partial(Kept, directory=t + "/srv"))
tls = http.server.ThreadingHTTPServer((ip, 443), handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(t + "/cert.pem", t + "/key.pem")
tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
threading.Thread(target=plain.serve_forever, daemon=True).start()
tls.serve_forever()
PY
CLEANUP_PIDS="${CLEANUP_PIDS:-} $!"
for _ in $(seq 50); do
    curl -s -o /dev/null --cacert "$T/cert.pem" --resolve "allowed.test:443:$NSIP" https://allowed.test/hello.txt && break
    sleep 0.1
done
TALLOW="$ALLOW,allowed.test"
tget() { # ARGS...: in the linux sandbox, no proxy variable, $TALLOW; the test's files visible
    in_hosts "$CORDON" run --backend linux --allow-net "$TALLOW" --expose "$T/cert.pem" --expose "$T/clients" \
        --expose "$T/java" "${JEXPOSE[@]}" --stats "$W/t.json" -- \
        env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy "$@"
}
tdenied() { # DESC PATTERN: the last tget's record has a denial matching PATTERN
    check_contains "$1" "$2" cat "$W/t.json"
}
PYCONN='import errno, socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
    print(s.recv(100).split(b"\r\n")[0].decode() or "closed")
except OSError as e:
    print(errno.errorcode.get(e.errno, e))'
check_out "control: https to the test host, unsandboxed" "hello" \
    in_hosts curl -sS --cacert "$T/cert.pem" --resolve "allowed.test:443:$NSIP" https://allowed.test/hello.txt
check_out "control: and as other.test (its certificate names both)" "hello" \
    in_hosts curl -sS --cacert "$T/cert.pem" --resolve "other.test:443:$NSIP" https://other.test/hello.txt
check_contains "linux: getent hosts gives an allowed name an address of the resolver's own" "198.18." \
    tget getent hosts allowed.test
check_status "linux: getent hosts of a name not in the list: not found" 2 tget getent hosts other.test
tdenied "... recorded as a refused lookup, with the entry to allow" '"kind": "resolve", "target": "other.test", "rule": "the allowlist names no such host (the sandbox'"'"'s resolver answers only its names)", "host_has": null, "suggestion": "--allow-net other.test"'
check_out "linux: the host's /etc/hosts address of a name is not the sandbox's (the proxy looks it up)" "" \
    sh -c 'tget getent hosts allowed.test | grep -F "$0"' "$NSIP"
check_out "linux: curl --noproxy '*' reaches an allowed name over https" "hello" \
    tget curl -sS --noproxy '*' --cacert "$T/cert.pem" https://allowed.test/hello.txt
check_out "linux: ... over http" "hello" tget curl -sS --noproxy '*' http://allowed.test/hello.txt
check_out "linux: ... on a port of the list" "hello" tget curl -sS --noproxy '*' "$URL"
curl_status() { tget curl -s -o /dev/null --noproxy '*' "$@"; echo $?; }
check_out "linux: curl to a name not in the list does not resolve" "6" curl_status http://other.test/hello.txt
check_out "linux: Python to the test host's address, not in the list: no route" "ENETUNREACH" \
    tget $PY -c "$PYCONN" "$NSIP" 80
check_out "linux: ... which curl reaches once listed (the address routed to lo, then the proxy)" "hello" \
    in_hosts "$CORDON" run --backend linux --allow-net "$NSIP:80" -- curl -sS --noproxy '*' "http://$NSIP/hello.txt"
check_out "linux: ... and as a CIDR entry" "hello" \
    in_hosts "$CORDON" run --backend linux --allow-net "192.0.2.0/24:80" -- curl -sS --noproxy '*' "http://$NSIP/hello.txt"
check_out "linux: a listed address on a port the entry does not name: refused" "" \
    in_hosts "$CORDON" run --backend linux --allow-net "$NSIP:80,allowed.test:$P" --stats "$W/t.json" -- curl -s --noproxy '*' "http://$NSIP:$P/hello.txt"
tdenied "... recorded with the entry to allow" "\"target\": \"$NSIP:$P\", \"rule\": \"port $P is not in the allowlist for this host\", \"host_has\": null, \"suggestion\": \"--allow-net $NSIP:$P\""
check_out "linux: a TLS server name other than the one the address was resolved for is refused" "" \
    tget curl -s --noproxy '*' --cacert "$T/cert.pem" --connect-to other.test:443:allowed.test:443 https://other.test/hello.txt
tdenied "... recorded" '"rule": "the TLS server name (SNI) is not the name this address was resolved for"'
check_contains "linux: an HTTP Host other than the name: the proxy's 403" "403" \
    tget curl -s --noproxy '*' -o /dev/null -w '%{http_code}' -H 'Host: other.test' http://allowed.test/hello.txt
PYGET='import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(sys.argv[3].encode().decode("unicode_escape").encode())
out = b""
while True:
    d = s.recv(4096)
    if not d: break
    out += d
print(out.decode(errors="replace").count("HTTP/1."), out.split(b"\r\n")[0].decode(errors="replace"))'
check_out "linux: an absolute-form request on port 80 is refused (the target is the address's name)" "1 HTTP/1.1 403 Forbidden" \
    tget $PY -c "$PYGET" allowed.test 80 'GET http://other.test/hello.txt HTTP/1.1\r\nHost: allowed.test\r\n\r\n'
check_out "control: two pipelined requests get two answers from the test host" "2 HTTP/1.1 200 OK" \
    in_hosts $PY -c "$PYGET" "$NSIP" 80 'GET /hello.txt HTTP/1.1\r\nHost: allowed.test\r\n\r\nGET /hello.txt HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n'
check_out "linux: through the interception, one request a connection (the second, another Host, is dropped)" "1 HTTP/1.1 200 OK" \
    tget $PY -c "$PYGET" allowed.test 80 'GET /hello.txt HTTP/1.1\r\nHost: allowed.test\r\n\r\nGET /hello.txt HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n'
check_out "linux: Python socket.create_connection to an allowed host:port (ssh's banner)" "SSH-2.0-cordon-test" \
    tget $PY -c "$PYCONN" allowed.test "$PS"
# (Landlock's TCP rules refuse it first, where the kernel has them)
LL_ABI=$(cordon check 2>&1 | sed -n 's/.*landlock: ABI \([0-9]*\).*/\1/p' | head -n 1)
LL_NET=ECONNREFUSED
[ "${LL_ABI:-0}" -ge 4 ] && LL_NET=EACCES
check_out "linux: ... to a port neither listed nor intercepted: refused" "$LL_NET" \
    tget $PY -c "$PYCONN" allowed.test 9
check_out "linux: ... to an address of the pool the resolver never gave: closed" "closed" \
    tget $PY -c "$PYCONN" 198.18.200.1 "$PS"
tdenied "... recorded" '"rule": "an address the sandbox'"'"'s resolver did not give"'
check_out "linux: ... to the sandbox's 127.0.0.1 on an intercepted port, no service listed there: closed" "closed" \
    tget $PY -c "$PYCONN" 127.0.0.1 443
tdenied "... recorded as the host's loopback address" '"target": "127.0.0.1:443"'
: >"$T/ssh.log"
tget ssh $SSH_OPTS -p "$PS" git@allowed.test true >/dev/null 2>&1
ssh_log "linux: a plain ssh, without ProxyCommand, reaches an allowed host:port"
check_out "linux: Node's https.get reaches an allowed name" "hello" \
    tget env NODE_EXTRA_CA_CERTS="$T/cert.pem" node -e 'require("https").get(process.argv[1], r => { let d = ""; r.on("data", c => d += c); r.on("end", () => console.log(d.trim())); }).on("error", e => console.log("failed", e.code))' https://allowed.test/hello.txt
check_out "linux: Node's fetch without NODE_USE_ENV_PROXY too" "hello" \
    tget env NODE_USE_ENV_PROXY= node -e "$node_fetch" "$URL"
check_out "linux: a JVM HttpClient without JAVA_TOOL_OPTIONS" "200 hello" java_get linux "$URL" JAVA_TOOL_OPTIONS=
# each client, sent to a name the list does not hold: nothing, and a record
# of the refused lookup
for k in noproxy python node java; do
    rm -f "$W/t.json"
    check_out "linux: $(client_name $k) without its knob reaches no other name" "" \
        tget env NODE_USE_ENV_PROXY= JAVA_TOOL_OPTIONS= sh "$T/clients/get.sh" $k "http://other.test:$P/hello.txt"
    tdenied "linux: ... the refused lookup recorded" '"kind": "resolve", "target": "other.test"'
done
rm -f "$W/t.json"
tget ssh $SSH_OPTS -p "$PS" git@other.test true >/dev/null 2>&1
no_ssh_log "linux: a plain ssh reaches no other name"
tdenied "linux: ... the refused lookup recorded" '"kind": "resolve", "target": "other.test"'
check_out "linux: UDP to a resolver other than the sandbox's: no route" "ENETUNREACH" \
    tget $PY -c 'import errno, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
try: s.connect(("192.0.2.53", 53)); s.send(b"x"); s.recv(10); print("answered")
except OSError as e: print(errno.errorcode.get(e.errno, e))'
LL_BIND=EADDRINUSE
[ "${LL_ABI:-0}" -ge 4 ] && LL_BIND=EACCES
check_out "linux: the command cannot listen on an intercepted port itself" "$LL_BIND" \
    tget $PY -c 'import errno, socket
try: socket.create_server(("0.0.0.0", 443)); print("listening")
except OSError as e: print(errno.errorcode.get(e.errno, e))'
check_out "landlock: no namespace, no interception: curl --noproxy '*' gets nothing" "" \
    in_hosts "$CORDON" run --backend landlock --allow-net "$TALLOW" -- curl -s --noproxy '*' "$URL"

# ---- live grants: --control-fd (issue 38 item 3) ---------------------------
# a client waits while it is denied; the caller grants its host on the
# control descriptor (a socket pair of the caller's) and the client retries
# in the same sandbox; then the caller removes it again
grant_py='import json, os, socket, subprocess, sys
cordon, backend, url, fdfile = sys.argv[1:5]
a, b = socket.socketpair()
cmd = [cordon, "run", "--backend", backend, "--control-fd", str(b.fileno()), "--allow-net", "example.org",
       "--stats", sys.argv[5], "--", "sh", "-c",
       "[ -e /proc/self/fd/$2 ] && echo leaked || echo closed; for i in 1 2 3; do curl -s -o /dev/null -w \"%{http_code}\\n\" \"$1\"; read x; done",
       "sh", url, str(b.fileno())]
p = subprocess.Popen(cmd, pass_fds=[b.fileno()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
b.close()
f = a.makefile("rw")
def ask(line):
    f.write(line + "\n"); f.flush(); return json.loads(f.readline())
def step():
    p.stdin.write("\n"); p.stdin.flush()
out = [p.stdout.readline().strip(), p.stdout.readline().strip()]
r = ask(json.dumps({"allow_net": "allowed.test:8080"})); out.append("grant " + str(r["ok"]))
step(); out.append(p.stdout.readline().strip())
r = ask(json.dumps({"remove_net": "allowed.test:8080"})); out.append("remove " + str(r["ok"]))
step(); out.append(p.stdout.readline().strip())
r = ask(json.dumps({"remove_net": "allowed.test:8080"})); out.append(r["error"])
r = ask("{\"allow_net\": 1}"); out.append("bad " + str(r["ok"]))
step(); p.wait()
print(" | ".join(out))'
for b in linux landlock; do
    check_out "$b: a grant on --control-fd lets the waiting client through, a removal shuts it out again; the command never holds the descriptor" \
        "closed | 403 | grant True | 200 | remove True | 403 | network allowlist: allowed.test:8080 is not in it | bad False" \
        in_hosts $PY -c "$grant_py" "$CORDON" $b "$URL" "$W/fd" "$W/grants-$b.json"
    check_contains "$b: the --stats record lists the changes in order" \
        '"network_grants": [{"op": "allow", "entry": "allowed.test:8080"}, {"op": "remove", "entry": "allowed.test:8080"}]' \
        cat "$W/grants-$b.json"
done
check_contains "control: without --control-fd no change is made (network_grants empty)" '"network_grants": []' \
    cordon run --allow-net example.org --stats-fd 1 -- true
check_status "--control-fd: a descriptor that is not open is an error before the command runs" 125 \
    cordon run --allow-net example.org --control-fd 77 -- true
for n in 0 1 2; do
    check_status "--control-fd $n: the command's own standard descriptor is refused (125)" 125 \
        cordon run --allow-net example.org --control-fd $n -- true
done
done_testing
