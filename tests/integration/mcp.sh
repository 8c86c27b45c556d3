#!/bin/bash
# An MCP stdio server under cordon, with real parts from the npm registry:
# @modelcontextprotocol/server-filesystem, driven by the official SDK's
# client (tests/mcp/client.mjs, StdioClientTransport), both pinned in
# tests/mcp/package-lock.json. The server is started with directories its
# own policy allows but the sandbox does not show; the same client without
# cordon is the negative control. node runs the server straight from
# node_modules (no npx), so nothing is fetched at run time.
. "$(dirname "$0")/lib.sh"

# -- the npm parts: installed from the lock file when missing or stale
MCP_SRC=$TOP/tests/mcp
installed() { node -p "require('$MCP_SRC/node_modules/$1/package.json').version" 2>/dev/null; }
pinned() { node -p "require('$MCP_SRC/package.json').dependencies['$1']"; }
fresh=yes
for p in @modelcontextprotocol/server-filesystem @modelcontextprotocol/sdk; do
    [ "$(installed $p)" = "$(pinned $p)" ] || fresh=no
done
if [ $fresh = no ]; then
    (cd "$MCP_SRC" && npm ci --no-audit --no-fund --loglevel=error) >"$T/npm.log" 2>&1
fi
check_out "the pinned server-filesystem is installed (npm ci from package-lock.json)" \
    "$(pinned @modelcontextprotocol/server-filesystem)" installed @modelcontextprotocol/server-filesystem
[ -s "$T/npm.log" ] && diag <"$T/npm.log"
check_out "the pinned SDK is installed" "$(pinned @modelcontextprotocol/sdk)" installed @modelcontextprotocol/sdk

# The client and node_modules go under $T, readable by the test user.
mkdir -p "$T/mcp"
cp "$MCP_SRC/client.mjs" "$MCP_SRC/package.json" "$T/mcp/"
cp -a "$MCP_SRC/node_modules" "$T/mcp/"
chmod -R a+rX "$T/mcp"
MODS=$T/mcp/node_modules
SERVER=$MODS/@modelcontextprotocol/server-filesystem/dist/index.js
client() { as_user node "$T/mcp/client.mjs" "$@"; }

# The layout. The server is told to allow $T/proj (the project, whose
# workspace ws/ is exposed read-write, and which holds secret.txt beside it)
# and $T/hostsecrets: its own policy allows both secrets, the sandbox shows
# neither.
WS=$W/ws
mkdir -p "$WS" "$T/hostsecrets"
echo "inside the workspace" >"$WS/hello.txt"
echo "project secret" >"$W/secret.txt"
echo "host secret" >"$T/hostsecrets/secret.txt"
echo "outside" >"$T/outside.txt"
chmod 644 "$W/secret.txt" "$T/hostsecrets/secret.txt" "$T/outside.txt"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$WS"
READS=(--read "$WS/hello.txt" --read "$W/secret.txt" --read "$T/hostsecrets/secret.txt" --read "$T/outside.txt")

# -- the negative control: the same server and client, no cordon
client --cwd "$WS" "${READS[@]}" --write "$W/planted-control.txt=x" -- node "$SERVER" "$W" "$T/hostsecrets" >"$T/control.out" 2>"$T/control.err"
check_contains "control: without cordon the server reads the workspace file" \
    "read \"$WS/hello.txt\" ok \"inside the workspace\\n\"" cat "$T/control.out"
check_contains "control: without cordon the server reads the secret beside the workspace" \
    "read \"$W/secret.txt\" ok \"project secret\\n\"" cat "$T/control.out"
check_contains "control: without cordon the server reads the host secret" \
    "read \"$T/hostsecrets/secret.txt\" ok \"host secret\\n\"" cat "$T/control.out"

# -- under cordon
session() { # NAME WHAT CLIENT-ARGS...: a session whose output is in $T/NAME.out and .err, run to its end
    local name=$1 what=$2 st
    shift 2
    client "$@" >"$T/$name.out" 2>"$T/$name.err"
    st=$?
    if [ $st -eq 0 ] && grep -q '^closed$' "$T/$name.out"; then ok "$what"; else
        not_ok "$what (status $st)"; cat "$T/$name.out" "$T/$name.err" | diag; fi
}
session mcp "the MCP session under cordon runs to the end" \
    --cwd "$WS" "${READS[@]}" --write "$WS/new.txt=written by the server" --write "$W/planted.txt=x" \
    -- "$CORDON" run --expose "$WS:rw" --expose "$MODS" -- node "$SERVER" "$W" "$T/hostsecrets"
check_contains "initialize: the server answers" 'server "secure-filesystem-server"' cat "$T/mcp.out"
check_contains "tools/list: read_text_file is offered" '"read_text_file"' cat "$T/mcp.out"
check_contains "a file in the workspace is read" "read \"$WS/hello.txt\" ok \"inside the workspace\\n\"" cat "$T/mcp.out"
check_contains "the secret beside the workspace, which the server's policy allows, is not there (ENOENT)" \
    "read \"$W/secret.txt\" error \"ENOENT" cat "$T/mcp.out"
check_contains "the host secret's directory, which the server's policy allows, cannot be seen" \
    "Cannot access directory $T/hostsecrets" cat "$T/mcp.err"
check_contains "... so the host secret is denied" "read \"$T/hostsecrets/secret.txt\" error" cat "$T/mcp.out"
check_contains "a file outside the allowed directories is denied" "read \"$T/outside.txt\" error" cat "$T/mcp.out"
if grep -qE 'project secret|host secret' "$T/mcp.out"; then not_ok "no secret appears in the session"; diag <"$T/mcp.out"
else ok "no secret appears in the session"; fi
check_contains "a write into the workspace succeeds" "write \"$WS/new.txt\" ok" cat "$T/mcp.out"
check_out "... and is on the host" "written by the server" cat "$WS/new.txt"
check "control: without cordon the server writes beside the workspace" test -e "$W/planted-control.txt"
check "a write beside the workspace never reaches the host" test ! -e "$W/planted.txt"

# -- the same session on the landlock backend (no namespaces: the paths
# exist there, Landlock refuses them). The server is given the workspace
# itself this time: it lists each directory from its allowed one down to a
# file, and on this backend the directory above the workspace cannot be
# listed (it would show the names beside it), where the linux backend shows
# it empty. The host secret's directory stays allowed by the server.
session ll "landlock: the MCP session runs to the end" \
    --cwd "$WS" "${READS[@]}" --write "$WS/new-ll.txt=written on landlock" \
    -- "$CORDON" run --backend landlock --expose "$WS:rw" --expose "$MODS" -- node "$SERVER" "$WS" "$T/hostsecrets"
check_contains "landlock: a file in the workspace is read" "read \"$WS/hello.txt\" ok \"inside the workspace\\n\"" cat "$T/ll.out"
check_contains "landlock: the secret beside the workspace is denied" "read \"$W/secret.txt\" error" cat "$T/ll.out"
check_contains "landlock: the host secret is denied" "read \"$T/hostsecrets/secret.txt\" error" cat "$T/ll.out"
if grep -qE 'project secret|host secret' "$T/ll.out"; then not_ok "landlock: no secret appears in the session"
    diag <"$T/ll.out"; else ok "landlock: no secret appears in the session"; fi
check_out "landlock: a write into the workspace reaches the host" "written on landlock" cat "$WS/new-ll.txt"

# -- the same server from an MCP client config file (the README's entry)
cat >"$T/mcp-config.json" <<EOF
{
  "mcpServers": {
    "filesystem": {
      "command": "$CORDON",
      "args": ["run", "--expose", "$WS:rw", "--expose", "$MODS", "--",
               "node", "$SERVER", "$WS"],
      "cwd": "$WS"
    }
  }
}
EOF
chmod 644 "$T/mcp-config.json"
client --config "$T/mcp-config.json" --server filesystem --read "$WS/hello.txt" --read "$W/secret.txt" \
    >"$T/cfg.out" 2>"$T/cfg.err"
check_contains "from a client config: the workspace file is read" \
    "read \"$WS/hello.txt\" ok \"inside the workspace\\n\"" cat "$T/cfg.out"
check_contains "from a client config: a path outside is denied" "read \"$W/secret.txt\" error" cat "$T/cfg.out"

# -- when the client closes, the server and everything it started are gone
marker=$((700000 + RANDOM))
rm -f "$T/proceed"
bg_as_user env HOME="$H" node "$T/mcp/client.mjs" --cwd "$WS" --read "$WS/hello.txt" --wait-for "$T/proceed" -- \
    "$CORDON" run --expose "$WS:rw" --expose "$MODS" -- \
    sh -c 'sleep "$0" & exec node "$@"' "$marker" "$SERVER" "$WS" >"$T/life.out" 2>"$T/life.err"
cpid=$BG_PID
for i in $(seq 100); do grep -q '^read' "$T/life.out" && break; sleep 0.1; done
check_contains "control: the session is up" "read \"$WS/hello.txt\" ok" cat "$T/life.out"
check "control: the server runs (seen from the host)" pgrep -f "node $SERVER $WS"
check "control: the server's background child runs (seen from the host)" pgrep -f "^sleep $marker\$"
touch "$T/proceed"
wait $cpid
st=$?
if [ $st -eq 0 ] && grep -q '^closed$' "$T/life.out"; then ok "the client closes the session"; else
    not_ok "the client closes the session (status $st)"; cat "$T/life.out" "$T/life.err" | diag; fi
gone=no
for i in $(seq 30); do
    pgrep -f "^sleep $marker\$" >/dev/null || pgrep -f "node $SERVER" >/dev/null ||
        pgrep -f "$CORDON run" >/dev/null || { gone=yes; break; }
    sleep 0.1
done
if [ $gone = yes ]; then ok "after close: no server, no child of it, no cordon left on the host"; else
    not_ok "after close: no server, no child of it, no cordon left on the host"
    ps -eo pid,ppid,args | grep -E "sleep $marker|$SERVER|$CORDON" | grep -v grep | diag
fi
done_testing
