#!/bin/bash
# The packages for agents (bindings/go, bindings/python, bindings/node):
# each one's own tests, against this build's cordon and probe, as root and
# as the unprivileged user, with that cordon installed on PATH (no
# $CORDON_BIN: as a user's install puts it). Each test of a package is one
# line here ("go: TestName", "python: test_name", "node: name"); a package
# whose tool is missing is a skip (a failure under CI=true). The MCP tests
# drive the real @modelcontextprotocol/server-filesystem with the official
# SDK client, the npm parts of tests/mcp/ (with typescript and the Node
# types, for tsc --strict on the Node package's types); mypy --strict
# (Debian's) checks a program on the Python package, go vet one on the Go
# package.
. "$(dirname "$0")/lib.sh"

# -- the npm parts: installed from tests/mcp's lock file when missing or stale
MCP_SRC=$TOP/tests/mcp
installed() { node -p "require('$MCP_SRC/node_modules/$1/package.json').version" 2>/dev/null; }
pinned() { node -p "require('$MCP_SRC/package.json').dependencies['$1']"; }
if command -v node >/dev/null; then
    fresh=yes
    for p in @modelcontextprotocol/server-filesystem @modelcontextprotocol/sdk typescript @types/node; do
        [ "$(installed $p)" = "$(pinned $p)" ] || fresh=no
    done
    [ $fresh = yes ] || (cd "$MCP_SRC" && npm ci --no-audit --no-fund --loglevel=error) >"$T/npm.log" 2>&1 ||
        { not_ok "npm ci in tests/mcp"; diag <"$T/npm.log"; }
fi

# The packages and node_modules under $T, readable by the test user; its
# temporary files (t.TempDir, tempfile, os.tmpdir) in $T/tmp.
cp -a "$TOP/bindings" "$T/bindings"
mkdir -p "$T/mcp" "$T/tmp" "$T/installed/bin"
[ -d "$MCP_SRC/node_modules" ] && cp -a "$MCP_SRC/node_modules" "$T/mcp/"
cp "$MCP_SRC/client.mjs" "$MCP_SRC/package.json" "$T/mcp/"
chmod -R a+rX "$T/bindings" "$T/mcp"
chmod 1777 "$T/tmp"
MODS=$T/mcp/node_modules
# cordon as installed: on PATH, found by name
cp "$CORDON" "$T/installed/bin/cordon"
chmod -R a+rX "$T/installed"
unset CORDON_BIN
export PATH=$T/installed/bin:$PATH TMPDIR=$T/tmp
export CORDON_TEST_MCP_MODULES=$MODS CORDON_TEST_MCP_SERVER=$MODS/@modelcontextprotocol/server-filesystem/dist/index.js
export CORDON_TEST_MCP_CLIENT=$T/mcp/client.mjs

# the lines of the log from the one naming TEST to the next test's verdict
failure_of() { awk -v t="$1" 'index($0, t) { on = 1 } on { print } on && /^(--- |(not )?ok |FAIL:|ERROR:)/ && !index($0, t) { exit }'; }

# suite NAME TOOL DIR SED CMD...: run CMD in DIR as the test user; each line
# of its output the sed -E expression SED turns into "VERDICT TEST" is a
# test here (VERDICT ok or PASS, SKIP or skipped, anything else a failure).
# A suite that fails without a failing test fails too.
suite() {
    local name=$1 tool=$2 dir=$3 expr=$4 st
    shift 4
    if ! command -v "$tool" >/dev/null; then
        skip "$name: its tests" "$tool is not installed (scripts/deps.sh test)"
        return
    fi
    (cd "$dir" && as_user timeout 300 "$@") >"$T/$name.log" 2>&1 # a hang fails
    st=$?
    local results=$T/$name.results n=0 verdict test
    sed -nE "$expr" "$T/$name.log" >"$results"
    while read -r verdict test; do
        n=$((n + 1))
        case $verdict in
        ok | PASS) ok "$name: $test" ;;
        SKIP | skipped) skip "$name: $test" "skipped by the package's test" ;;
        *) not_ok "$name: $test"; failure_of "$test" <"$T/$name.log" | diag ;;
        esac
    done <"$results"
    if [ $n -eq 0 ] || { [ $st -ne 0 ] && ! grep -qvE '^(ok|PASS) ' "$results"; }; then
        not_ok "$name: the suite ran ($n tests, status $st)"; DIAG_LINES=40 diag <"$T/$name.log"
    fi
}

# Go: standard library only, no network, every cache in $T.
suite go go "$T/bindings/go" 's/^--- (PASS|FAIL|SKIP): ([A-Za-z0-9_]+).*/\1 \2/p' \
    env GOCACHE="$T/tmp/go-cache" GOPATH="$T/tmp/go-path" GOPROXY=off GOTOOLCHAIN=local GOFLAGS= GOWORK=off \
    GO111MODULE=on go test -count=1 -timeout 120s -v ./...
if command -v go >/dev/null; then
    check_out "go: gofmt has nothing to change" "" gofmt -l "$T/bindings/go"
    check "go: go vet is clean" as_user env GOCACHE="$T/tmp/go-cache" GOPATH="$T/tmp/go-path" GOPROXY=off \
        GOTOOLCHAIN=local GOFLAGS= GOWORK=off GO111MODULE=on sh -c 'cd "$1" && go vet ./...' sh "$T/bindings/go"
fi

# Python: the package from its directory (PYTHONPATH), python3 -m unittest.
suite python python3 "$T/bindings/python" 's/^(test_[a-z0-9_]+) \(.*\) \.\.\. (ok|FAIL|ERROR|skipped).*/\2 \1/p' \
    env PYTHONPATH="$T/bindings/python" PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -v -s tests -t .

# ... and pip installs it from its directory (offline: --no-index, and
# Debian's setuptools with --no-build-isolation), its types marker included
as_user cp -r "$T/bindings/python" "$T/tmp/pysrc"
check_out "python: pip installs the package from its directory offline, and it imports from there" \
    "$T/tmp/pip/cordon/__init__.py $T/tmp/pip/cordon/py.typed" \
    as_user sh -c 'python3 -m pip install -q --no-index --no-build-isolation --target "$1/pip" "$1/pysrc" >"$1/pip.log" 2>&1 &&
        cd / && PYTHONPATH="$1/pip" python3 -c "import cordon, os; print(cordon.__file__, os.path.join(os.path.dirname(cordon.__file__), \"py.typed\"))" &&
        test -f "$1/pip/cordon/py.typed" || cat "$1/pip.log" >&2' sh "$T/tmp"

# ... and its types: mypy --strict on a program using it; a wrong call fails
if command -v mypy >/dev/null; then
    check "python: mypy --strict passes on a program using the package" \
        as_user env MYPY_CACHE_DIR="$T/tmp/mypy-cache" sh -c 'cd "$1" && mypy --strict tests/typed_agent.py' sh "$T/bindings/python"
    check_fails "python: ... and fails on one calling it wrongly (control)" \
        as_user env MYPY_CACHE_DIR="$T/tmp/mypy-cache" sh -c 'cd "$1" && mypy --strict tests/typed_bad.py' sh "$T/bindings/python"
else skip "python: mypy --strict" "mypy is not installed (scripts/deps.sh test)"; fi

# Node: node --test, its TAP's top-level lines.
suite node node "$T/bindings/node" \
    's/^ok [0-9]+ - (.*) # SKIP.*/SKIP \1/p;t;s/^ok [0-9]+ - (.*)/ok \1/p;s/^not ok [0-9]+ - (.*)/FAIL \1/p' \
    node --test --test-reporter=tap test/

# ... and its types: tsc --strict on a program using index.d.ts; a wrong option fails
TSC=(node "$MODS/typescript/bin/tsc")
if [ -f "$MODS/typescript/bin/tsc" ]; then
    check "node: tsc --strict passes on a program using the package's types" \
        as_user "${TSC[@]}" -p "$T/bindings/node/test/types" --typeRoots "$MODS/@types"
    check_fails "node: ... and fails on one passing a wrong option (control)" \
        as_user "${TSC[@]}" --strict --noEmit --module nodenext --moduleResolution nodenext --types node \
        --typeRoots "$MODS/@types" "$T/bindings/node/test/types/bad.ts"
else not_ok "node: typescript is installed (npm ci in tests/mcp)"; fi

done_testing
