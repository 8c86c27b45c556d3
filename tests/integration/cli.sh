#!/bin/bash
# The CLI surface: plan (text and --json), env, check, --help, --version, and
# exit status 125 with one "cordon: ..." line for cordon's own failures.
. "$(dirname "$0")/lib.sh"

# A secret in the launcher's environment: the child environment must not
# carry it unless asked.
export OPENAI_API_KEY=sk-cli-test GH_TOKEN=ghp_cli aws_secret_access_key=wJal

# JSON checks run unsandboxed, with node (a test dependency) or python3.
json_js() { # FILE JS-EXPRESSION-ON-o: ok when it is true
    if command -v node >/dev/null 2>&1; then
        node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                 if (!(eval(process.argv[2]))) { console.log(JSON.stringify(o, null, 1)); process.exit(1); }' "$1" "$2"
    else
        echo "node is missing (scripts/deps.sh test installs it)"; return 1
    fi
}
json_parses() { # FILE
    if command -v node >/dev/null 2>&1; then
        node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1"
    elif command -v python3 >/dev/null 2>&1; then
        python3 -m json.tool "$1" >/dev/null
    else
        echo "neither node nor python3"; return 1
    fi
}

# Runs cordon ARGS..., stores stdout in $T/out, stderr in $T/err, status in $st.
run_cli() { cordon "$@" >"$T/out" 2>"$T/err"; st=$?; }

# cordon's own failure: exit 125, and exactly one "cordon: " line on stderr,
# the first, equal to (or, with a trailing *, starting with) WANT.
check_fails_125() { # DESC WANT ARGS...
    local d=$1 want=$2; shift 2
    run_cli "$@"
    local first n
    first=$(head -1 "$T/err")
    n=$(grep -c '^cordon: ' "$T/err")
    local match=no
    case $want in
    *'*') [[ $first == "${want%\*}"* ]] && match=yes ;;
    *) [ "$first" = "$want" ] && match=yes ;;
    esac
    if [ "$st" -eq 125 ] && [ "$n" -eq 1 ] && [ $match = yes ] && [ ! -s "$T/out" ]; then
        ok "$d"
    else
        not_ok "$d (status $st, $n \"cordon:\" lines)"
        { echo "want: $want"; cat "$T/err" "$T/out"; } | diag
    fi
}

# -- how the CLI is linked: with musl where the build was set up for it
# (make does: meson.build says why), which glibc's ABI note would betray
musl_jansson=$(python3 -c 'import json, sys
print(next((o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "musl_jansson"), ""))' \
    "$CORDON_BUILD/meson-info/intro-buildoptions.json" 2>/dev/null)
if [ -n "$musl_jansson" ]; then
    check_fails "set up with -Dmusl_jansson: the CLI is linked with musl (no glibc ABI note)" \
        sh -c "readelf -n '$CORDON' | grep -q NT_GNU_ABI_TAG"
    check_contains "... and it runs a command" "musl-ok" "$CORDON" run -- echo musl-ok
fi

# -- --version, --help
run_cli --version
if [ "$st" -eq 0 ] && grep -qxE 'cordon [0-9]+\.[0-9]+\.[0-9]+' "$T/out" && [ ! -s "$T/err" ]; then
    ok "--version prints \"cordon X.Y.Z\" and exits 0"
else not_ok "--version (status $st)"; diag <"$T/out"; fi
check_out "version prints the same" "$(cat "$T/out")" cordon version
for h in --help -h help; do
    run_cli $h
    if [ "$st" -eq 0 ] && [ "$(head -1 "$T/out")" = "usage: cordon COMMAND [flags] ..." ] && grep -q '^  run ' "$T/out"; then
        ok "cordon $h: the overview, exit 0"
    else not_ok "cordon $h (status $st)"; diag <"$T/out"; fi
done
for sub in run plan env check; do
    for h in --help -h; do
        run_cli $sub $h
        if [ "$st" -eq 0 ] && [[ $(head -1 "$T/out") == "usage: cordon $sub "* ]] && [ ! -s "$T/err" ]; then
            ok "cordon $sub $h: its usage on stdout, exit 0"
        else not_ok "cordon $sub $h (status $st)"; cat "$T/out" "$T/err" | diag; fi
    done
done
check_contains "run --help lists the limits" "--memory SIZE" cordon run --help
check_contains "plan --help lists --json" "--json" cordon plan --help

# -- plan: text
run_cli plan -- true
if [ "$st" -eq 0 ] && [ "$(head -1 "$T/out")" = "linux isolation mount plan" ]; then
    ok "plan: the first line is \"linux isolation mount plan\""
else not_ok "plan: first line (status $st)"; cat "$T/out" "$T/err" | diag; fi
check "plan: /usr is read-only (system)" grep -qxE 'ro  (/usr -> /usr|symlink .* -> /usr)  \(system\)' "$T/out"
check "plan: the project directory is the cwd, read-only" grep -qxF "ro  $W -> $W  (cwd)" "$T/out"
check "plan: the instance root is read-write" grep -qxF "rw  $H/.cordon -> $H/.cordon  (instance)" "$T/out"
check "plan: logs/ is hidden" grep -qxF "ro  tmpfs -> $H/.cordon/logs  (instance)" "$T/out"
check "plan: namespaces" grep -qxF "namespaces: user mount pid ipc uts cgroup net" "$T/out"
check "plan: network none" grep -qxF "network: none" "$T/out"
check "plan: argv" grep -qxF 'argv: ["true"]' "$T/out"
check "plan: cwd" grep -qxF "cwd: $W" "$T/out"
# The default excludes (*KEY*, *SECRET*, *TOKEN*) where they decide: under
# --inherit all (core never inherits those names), with the control that
# the same variable passes when they are off.
run_cli plan --inherit all -- true
check_fails "plan --inherit all: no OPENAI_API_KEY in the env" grep -q OPENAI_API_KEY "$T/out"
run_cli plan --inherit all --ignore-default-excludes -- true
check "control: plan --inherit all --ignore-default-excludes shows it" grep -q "OPENAI_API_KEY=sk-cli-test" "$T/out"
# cordon's addition to Codex's three: PASSWORD, PASSWD, CREDENTIAL, PRIVATE, *_PAT
for v in DB_PASSWORD=pw MYSQL_PASSWD=pw MY_CREDENTIALS=c SSH_PRIVATE=k GH_PAT=ghp; do
    (export "$v"; run_cli plan --inherit all -- true; cp "$T/out" "$T/env-ex")
    check_fails "plan --inherit all: ${v%%=*} is dropped" grep -qx "  $v" "$T/env-ex"
    (export "$v"; run_cli plan --inherit all --ignore-default-excludes -- true; cp "$T/out" "$T/env-ex")
    check "control: ... kept with --ignore-default-excludes" grep -qx "  $v" "$T/env-ex"
done
run_cli plan -- true
run_cli plan --memory 512M --pids 64 --timeout 1.5 -- true
if is_root_run; then by="the pids cgroup"; else by="RLIMIT_NPROC in the sandbox's user namespace"; fi
check "plan: limits are shown exactly, with what enforces the process limit" \
    grep -qxF "limits: wall_time_s=1.5 memory_bytes=512M pids=64 (by $by)" "$T/out"
run_cli plan --backend landlock -- true
check "plan --backend landlock: the first line names the rules" test "$(head -1 "$T/out")" = "landlock isolation access rules"

# -- plan: JSON
export W H T  # for the checks in node
run_cli plan --json -- true
check "plan --json exits 0" test "$st" -eq 0
check "plan --json parses" json_parses "$T/out"
check "plan --json has the documented keys with their types" json_js "$T/out" '
    typeof o.backend === "string" && o.enabled === true && !("disabled_by" in o) && o.network === "none" &&
    Array.isArray(o.namespaces) && o.namespaces.join(" ") === "user mount pid ipc uts cgroup net" &&
    Array.isArray(o.argv) && o.argv[0] === "true" && typeof o.exe === "string" && o.exe.endsWith("/true") &&
    o.cwd === process.env.W && typeof o.env === "object" && !Array.isArray(o.env) &&
    Array.isArray(o.mounts) && o.mounts.length > 5 &&
    typeof o.proc === "object" && Array.isArray(o.proc.read_only) && Array.isArray(o.proc.masked) &&
    typeof o.limits === "object" && o.limits.memory_bytes === 0 && o.limits.kill_after_s === 2 &&
    o.instance_root === process.env.H + "/.cordon" && o.workspace === process.env.H + "/.cordon/workspace" &&
    Number.isInteger(o.uid) && Number.isInteger(o.gid) && o.hostname === "cordon"'
check "plan --json: every mount has type, source, target, mode, origin" json_js "$T/out" '
    o.mounts.every(m => ["bind", "tmpfs", "proc", "dev", "symlink", "file"].includes(m.type) &&
        (m.source === null || typeof m.source === "string") && m.target.startsWith("/") &&
        ["ro", "rw"].includes(m.mode) &&
        ["system", "instance", "workspace", "expose", "protect", "exe", "cwd", "arg", "generated"].includes(m.origin)) &&
    o.mounts.some(m => m.target === "/proc" && m.type === "proc") &&
    o.mounts.some(m => m.target === "/etc/passwd" && m.type === "file" && m.source === null)'
check "plan --json: mounts are ordered parents first" json_js "$T/out" '
    o.mounts.every((m, i) => i === 0 || !o.mounts[i - 1].target.startsWith(m.target + "/"))'
check "plan --json: uid is the caller's" json_js "$T/out" "o.uid === $( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0)"
check "plan --json: the env has the markers and the instance's HOME" json_js "$T/out" '
    o.env.CORDON_SANDBOX === "linux" && o.env.CORDON_SANDBOX_NETWORK_DISABLED === "1" &&
    o.env.HOME === process.env.H + "/.cordon/runtime-user-env/home"'
run_cli plan --json --inherit all -- true
check "plan --json --inherit all: the env drops OPENAI_API_KEY, GH_TOKEN, aws_secret_access_key" json_js "$T/out" '
    !("OPENAI_API_KEY" in o.env) && !("GH_TOKEN" in o.env) && !("aws_secret_access_key" in o.env) &&
    o.env.PATH !== undefined'
run_cli plan --json --inherit all --ignore-default-excludes -- true
check "control: ... all three kept with --ignore-default-excludes" json_js "$T/out" '
    o.env.OPENAI_API_KEY === "sk-cli-test" && o.env.GH_TOKEN === "ghp_cli" && o.env.aws_secret_access_key === "wJal"'
run_cli plan --json --network full --expose "$T/bin:/opt/bin:ro" -C "$T/bin" -- ./probe --x
check "plan --json: network full, no net namespace, the expose, -C inside it" json_js "$T/out" '
    o.network === "full" && !o.namespaces.includes("net") && !("CORDON_SANDBOX_NETWORK_DISABLED" in o.env) &&
    o.mounts.some(m => m.type === "bind" && m.target === "/opt/bin" && m.source === process.env.T + "/bin" &&
                       m.mode === "ro" && m.origin === "expose") &&
    o.exe === "/opt/bin/probe" && o.cwd === "/opt/bin" && o.argv.join(" ") === "./probe --x" &&
    !o.mounts.some(m => m.origin === "cwd" || m.origin === "exe")'
echo '{"isolation": {"enabled": false}}' >"$W/off.json"; chmod 644 "$W/off.json"
run_cli plan --json --config off.json -- true
check "plan --json with isolation disabled: backend none, disabled_by, no mounts" json_js "$T/out" '
    o.backend === "none" && o.enabled === false && o.disabled_by === "off.json:1:27" && o.mounts.length === 0 &&
    o.namespaces.length === 0 && !("CORDON_SANDBOX" in o.env)'
run_cli plan --config off.json -- true
check "plan with isolation disabled says so on its first line" \
    test "$(head -1 "$T/out")" = "isolation disabled by off.json:1:27: the command runs on the host, unisolated"

# -- env
run_cli env
check "env exits 0" test "$st" -eq 0
check "env prints NAME=VALUE lines" test -z "$(grep -vE '^[A-Za-z_][A-Za-z0-9_]*=' "$T/out")"
check "env is sorted by name" sh -c "cut -d= -f1 '$T/out' | LC_ALL=C sort -c"
check "env redirects HOME into the instance" grep -qxF "HOME=$H/.cordon/runtime-user-env/home" "$T/out"
check "env sets CORDON_SANDBOX" grep -qxF "CORDON_SANDBOX=linux" "$T/out"
run_cli env --inherit all
check_fails "env --inherit all drops OPENAI_API_KEY" grep -q '^OPENAI_API_KEY=' "$T/out"
check_fails "env --inherit all drops GH_TOKEN" grep -q '^GH_TOKEN=' "$T/out"
check_fails "env --inherit all drops aws_secret_access_key" grep -q '^aws_secret_access_key=' "$T/out"
run_cli env --inherit all --ignore-default-excludes
check "env --ignore-default-excludes keeps OPENAI_API_KEY" grep -qxF "OPENAI_API_KEY=sk-cli-test" "$T/out"
check "env --ignore-default-excludes keeps GH_TOKEN" grep -qxF "GH_TOKEN=ghp_cli" "$T/out"
check "env --ignore-default-excludes keeps aws_secret_access_key" grep -qxF "aws_secret_access_key=wJal" "$T/out"
run_cli env --inherit all --ignore-default-excludes --keep-default-excludes
check_fails "env --keep-default-excludes (later) drops it again" grep -q '^OPENAI_API_KEY=' "$T/out"
run_cli env --inherit none --set B=2 --set A=1 --set A0=x --include-only 'a*' --include-only HOME
want="A=1
A0=x
CORDON_SANDBOX=linux
CORDON_SANDBOX_NETWORK_DISABLED=1
HOME=$H/.cordon/runtime-user-env/home
TMPDIR=$H/.cordon/runtime-user-env/tmp
XDG_CACHE_HOME=$H/.cordon/runtime-user-env/cache
XDG_CONFIG_HOME=$H/.cordon/runtime-user-env/config
XDG_STATE_HOME=$H/.cordon/runtime-user-env/state"
if [ "$st" -eq 0 ] && [ "$(cat "$T/out")" = "$want" ]; then ok "env: set, include_only, then redirection and markers"
else not_ok "env: set, include_only, then redirection and markers"; { echo "want: $want"; cat "$T/out" "$T/err"; } | diag; fi
run_cli env --config off.json --inherit none --set X=1
check_out "env with isolation disabled: no redirection, no markers" "X=1" cat "$T/out"

# -- check
run_cli check
if [ "$st" -eq 0 ] && grep -qxF "backend linux: can run" "$T/out"; then ok "check exits 0 on this host"
else not_ok "check (status $st)"; cat "$T/out" "$T/err" | diag; fi
run_cli check --json
check "check --json parses" json_parses "$T/out"
check "check --json has the backend verdict" json_js "$T/out" 'o.backend === "linux" && o.backend_ok === true'
run_cli check --backend bwrap
if [ "$st" -eq 1 ] && grep -qxF "backend bwrap: cannot run" "$T/out" && grep -q "fix: " "$T/out"; then
    ok "check --backend bwrap (unavailable) exits 1 with the fix"
else not_ok "check --backend bwrap (status $st)"; cat "$T/out" "$T/err" | diag; fi

# -- exit status 125 and one "cordon: ..." line
cat >"$W/bad.json" <<'EOF'
{
  "isolation": {
    "network": "wifi"
  }
}
EOF
chmod 644 "$W/bad.json"
bad_msg='cordon: bad.json:3:16: isolation.network: must be one of "none", "loopback", "full" or "proxy", got "wifi"'
for sub in run plan env; do
    args=(--config bad.json); [ $sub = env ] || args+=(-- true)
    run_cli $sub "${args[@]}"
    if [ "$st" -eq 125 ] && [ "$(cat "$T/err")" = "$bad_msg" ] && [ ! -s "$T/out" ]; then
        ok "$sub: a bad config is exit 125 and one line with file:line:col"
    else not_ok "$sub: bad config (status $st)"; cat "$T/err" "$T/out" | diag; fi
done
run_cli check --config bad.json
check "check: a bad config is exit 125" test "$st" -eq 125
check_fails_125 "a missing config file" 'cordon: nope.json: cannot read config: No such file or directory' \
    plan --config nope.json -- true
check_fails_125 "an unknown subcommand" 'cordon: unknown command "frob" (run, plan, env, check, profiles, learn)' frob
check_fails_125 "no subcommand" 'cordon: missing command (run, plan, env, check, profiles, learn)'
check_fails_125 "run without a command" 'cordon: run: missing the command to run (cordon run [flags] -- CMD [ARGS...])' run
check_fails_125 "an unknown flag" 'cordon: run: unknown option "--bogus" (see cordon run --help)' run --bogus -- true
check_fails_125 "a flag without its value" 'cordon: plan: option "--network" needs a value' plan --network
check_fails_125 "env takes no command" 'cordon: env: unexpected argument "ls"' env ls
check_fails_125 "--network wifi" 'cordon: --network wifi: must be one of "none", "loopback", "full" or "proxy"' \
    plan --network wifi -- true
check_fails_125 "--memory 12Q" 'cordon: --memory 12Q: must be a size such as 512M' \
    run --memory 12Q -- true
check_fails_125 "--pids -1" 'cordon: --pids -1: must be a non-negative whole number' run --pids -1 -- true
check_fails_125 "--expose of a missing path" 'cordon: --expose /nonexistent/x: source does not exist: /nonexistent/x' \
    run --expose /nonexistent/x -- true
check_fails_125 "--expose with a bad mode" 'cordon: --expose /usr:rwx: mode must be "ro" or "rw", got "rwx"' \
    plan --expose /usr:rwx -- true
check_fails_125 "--expose onto /" 'cordon: --expose /usr:/: target must not be "/", got "/"' plan --expose /usr:/ -- true
check_fails_125 "--backend docker" 'cordon: --backend docker: must be one of "auto", "linux", "landlock", "seatbelt" or "windows"' \
    plan --backend docker -- true
check_fails_125 "--home relative" 'cordon: --home rel: must be an absolute path' env --home rel
check_fails_125 "--set without =" 'cordon: --set FOO: must be NAME=VALUE' env --set FOO
check_fails_125 "--include-only ''" 'cordon: --include-only : the pattern must not be empty' env --include-only ''
check_fails_125 "the cwd is the home directory" "cordon: -C $H: the working directory $H is your home directory or above it*" \
    plan -C "$H" -- true
# started in the home directory without -C (an MCP client's server entry
# without "cwd"): the workspace instead, and a note only when it fails
mkdir -p "$T/cwd-home"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/cwd-home"
in_home() { CWD="$H" cordon run --home "$T/cwd-home" "$@" 2>&1; }
check_out "the caller's cwd is the home directory: the command starts in the workspace" "$T/cwd-home/workspace" \
    in_home -- pwd
check_contains "... with a note when it fails" "exit status 3: the working directory $H is your home directory or above it: the command started in the workspace $T/cwd-home/workspace instead" \
    in_home -- sh -c 'exit 3'


# -- 126 / 127 from plan as well as run
echo data >"$W/notexec"; chmod 644 "$W/notexec"
run_cli plan -- cordon-no-such-command
check "plan: a missing command is 127" test "$st" -eq 127
check_out "plan: ... with one line" "cordon: cordon-no-such-command: command not found in the sandbox's PATH" cat "$T/err"
run_cli plan -- ./notexec
check "plan: a non-executable file is 126" test "$st" -eq 126
check_out "plan: ... with one line" "cordon: ./notexec: permission denied (not an executable file)" cat "$T/err"
run_cli run -- cordon-no-such-command
check "run: a missing command is 127" test "$st" -eq 127

# -- the first run with the whole home directory exposed (the instance root
# does not exist yet; cordon creates it inside the exposure)
check "control: no instance root yet" test ! -e "$H/.cordon"
run_cli run --expose "$H" -- sh -c 'test -d "$HOME" && test -w "$HOME" && echo ok'
if [ "$st" -eq 0 ] && [ "$(cat "$T/out")" = ok ]; then ok "run --expose \$HOME on a fresh instance root"
else not_ok "run --expose \$HOME on a fresh instance root (status $st)"; cat "$T/out" "$T/err" | diag; fi

# -- started from / (MCP clients often start servers there): the sandbox's
# own /, which exists and shows nothing of the host's
CWD=/ check_out "run from /: the command starts in /" "/" cordon run -- pwd
CWD=/ check_out "... in the sandbox's own / (no /home, no /work)" "no" cordon run -- sh -c 'test -e /home || test -e /work && echo yes || echo no'
CWD=/ cordon plan --json -- true >"$T/root.json" 2>&1
check "... which is not exposed" node -e '
const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
process.exit(o.cwd === "/" && !o.mounts.some(m => m.origin === "cwd" || m.target === "/") ? 0 : 1)' "$T/root.json"
CWD=/ check_out "... on the landlock backend too" "/" cordon run --backend landlock -- pwd
check_fails_125 "another non-exposable cwd stays an error with its hint" \
    "cordon: -C /proc: the working directory /proc is a kernel interface (the sandbox has its own /proc, /sys and /dev), which cordon never exposes automatically: run from the workspace*" plan -C /proc -- true

# -- the plan says what the run will warn of, and its notes
mkdir -p "$T/unseen-bin"
run_with_path() { local p=$1; shift; PATH=$p cordon "$@"; }
check_contains "cordon plan: the run's warnings, one line each" \
    "warning: on the landlock backend the proxy listens on the host's loopback" \
    cordon plan --backend landlock --allow-net example.org -- true
check_contains "cordon plan: its notes (a PATH entry not visible inside)" \
    "note: PATH entries not visible inside: $T/unseen-bin (--expose $T/unseen-bin)" \
    run_with_path "$T/unseen-bin:/usr/bin:/bin" plan -- true
cordon plan --json --backend landlock --allow-net example.org -- true >"$T/warn.json" 2>&1
check "cordon plan --json: warnings as an array" node -e '
const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
process.exit(o.warnings.length === 1 && o.warnings[0].includes("host'"'"'s loopback") ? 0 : 1)' "$T/warn.json"
cordon plan --json -- true >"$T/nowarn.json" 2>&1
check "... and none when there is nothing to say" node -e '
const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
process.exit(!("warnings" in o) ? 0 : 1)' "$T/nowarn.json"

# -- Flags, config keys and setters: one validator. The ways a caller (or a
# model that writes the invocation) would use this surface, each refused in
# its flag form (exit 125, the message names the flag as typed) and its
# config form (the message names file:line:column and the key), with
# nothing made on the host, and a control showing the valid form works:
#  - a kernel interface of the host made visible or writable (--workspace
#    /proc, /sys, /dev; --expose /proc:/x; --expose /sys:/x:rw)
#  - the whole host, a system directory, the caller's home or above it, or
#    cordon's own instance root made writable (--workspace, --expose X:rw,
#    --expose-rw, --home)
#  - a typo that would make a new tree on the host (--workspace /typo/ws)
#  - a path that means something else inside (-C ., -C sub, '~/x')
#  - conflicting flags silently resolved (--network none --allow-net H)
#  - a URL where a host is meant (--allow-net http://...)
#  - every other flag with a value, against its config key
# run_refused DESC PATTERN ARGS...: exit 125, one "cordon:" line matching
# the glob PATTERN, nothing on stdout.
run_refused() {
    local d=$1 want=$2; shift 2
    run_cli "$@"
    local first n
    first=$(head -1 "$T/err")
    n=$(grep -c '^cordon: ' "$T/err")
    # shellcheck disable=SC2053 # $want is a glob
    if [ "$st" -eq 125 ] && [ "$n" -eq 1 ] && [[ $first == $want ]] && [ ! -s "$T/out" ]; then
        ok "$d"
    else
        not_ok "$d (status $st, $n \"cordon:\" lines)"
        { echo "want: $want"; cat "$T/err" "$T/out"; } | diag
    fi
}
# both_refused "FLAG ARGS" JSON KEY REASON: the flag form and the config
# form of one value, both refused for REASON (a glob).
both_refused() {
    local flags=$1 json=$2 key=${3//\[/\\[} reason=$4
    local -a argv
    read -r -a argv <<<"$flags"
    run_refused "$flags: refused, naming the flag" "cordon: $flags: $reason" run "${argv[@]}" -- true
    printf '%s\n' "$json" >"$W/v.json"
    chmod 644 "$W/v.json"
    run_refused "... and as a config key: $json" "cordon: v.json:1:*: $key: $reason" run --config v.json -- true
}
mkdir -p "$T/ws" "$T/rwdir" "$W/sub"
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/ws" "$T/rwdir" "$W/sub"
kernel='*must not be under /proc, /sys or /dev*'
system='*must not be a system directory*'
for d in /proc /sys /dev /proc/self; do
    both_refused "--workspace $d" "{\"isolation\": {\"workspace\": \"$d\"}}" isolation.workspace "$kernel"
done
both_refused "--workspace /" '{"isolation": {"workspace": "/"}}' isolation.workspace '*must not be "/"*'
for d in /etc /usr /usr/local; do
    both_refused "--workspace $d" "{\"isolation\": {\"workspace\": \"$d\"}}" isolation.workspace "$system"
done
for d in "$H" "$T"; do
    both_refused "--workspace $d" "{\"isolation\": {\"workspace\": \"$d\"}}" isolation.workspace \
        "$d is your home directory or above it*"
done
both_refused "--workspace $H/.cordon" "{\"isolation\": {\"workspace\": \"$H/.cordon\"}}" isolation.workspace \
    "$H/.cordon is the instance root or above it*"
ln -sfn "$H" "$T/home-link"
both_refused "--workspace $T/home-link" "{\"isolation\": {\"workspace\": \"$T/home-link\"}}" isolation.workspace \
    "$T/home-link (a link to $H) is your home directory or above it*"
both_refused "--workspace $T/typo/ws" "{\"isolation\": {\"workspace\": \"$T/typo/ws\"}}" isolation.workspace \
    "$T/typo/ws does not exist: create it first*"
check "... and nothing was created on the host" test ! -e "$T/typo"
run_refused "--workspace /typo/ws (at /) is refused too" "cordon: --workspace /typo/ws: /typo/ws does not exist*" \
    run --workspace /typo/ws -- true
check "... without creating /typo" test ! -e /typo
check "control: an existing --workspace is the writable one" \
    cordon run --workspace "$T/ws" -- sh -c "touch '$T/ws/made' && test ! -w '$W'"
check "... (the file is there on the host)" test -f "$T/ws/made"
printf '{"isolation": {"workspace": "%s"}}\n' "$T/ws" >"$W/v.json"
check "control: ... and as a config key" cordon run --config v.json -- sh -c "touch '$T/ws/made2'"

both_refused "--expose /proc:/x" '{"isolation": {"expose_paths": [{"source": "/proc", "target": "/x"}]}}' \
    'isolation.expose_paths[0].source' '*must not be under /proc*'
for d in /sys /dev; do
    both_refused "--expose $d:/x:rw" \
        "{\"isolation\": {\"expose_paths\": [{\"source\": \"$d\", \"target\": \"/x\", \"mode\": \"rw\"}]}}" \
        'isolation.expose_paths[0].source' "$kernel"
done
both_refused "--expose /:/x:rw" '{"isolation": {"expose_paths": [{"source": "/", "target": "/x", "mode": "rw"}]}}' \
    'isolation.expose_paths[0].source' '*must not be "/"*'
for d in /etc /usr; do
    both_refused "--expose $d:rw" "{\"isolation\": {\"expose_paths\": [{\"source\": \"$d\", \"mode\": \"rw\"}]}}" \
        'isolation.expose_paths[0].source' "$system"
done
check "control: --expose-rw /dev/shm (shared memory, world-writable) is allowed" cordon plan --expose-rw /dev/shm -- true
run_refused "--expose-rw /dev/shm/../sda is not" "cordon: --expose-rw /dev/shm/../sda: source must not contain*" \
    plan --expose-rw /dev/shm/../sda -- true
run_refused "--expose-rw /etc: refused, naming the flag" "cordon: --expose-rw /etc: $system" run --expose-rw /etc -- true
for d in "$H" "$T"; do
    both_refused "--expose $d:/x:rw" \
        "{\"isolation\": {\"expose_paths\": [{\"source\": \"$d\", \"target\": \"/x\", \"mode\": \"rw\"}]}}" \
        'isolation.expose_paths[0].source' "$d is your home directory or above it*"
done
both_refused "--expose-rw $H/.cordon" \
    "{\"isolation\": {\"expose_paths\": [{\"source\": \"$H/.cordon\", \"mode\": \"rw\"}]}}" \
    'isolation.expose_paths[0].source' "$H/.cordon is the instance root or above it*"
check "control: a read-only exposure of the home is allowed" cordon plan --expose "$H:/x" -- true
check "control: a read-write exposure of a project directory works" \
    cordon run --expose "$T/rwdir:rw" -- touch "$T/rwdir/made"
check "... (the file is there on the host)" test -f "$T/rwdir/made"
both_refused "--expose ~/x" '{"isolation": {"expose_paths": [{"source": "~/x"}]}}' \
    'isolation.expose_paths[0].source' "source does not exist: $H/x*"
echo hi >"$H/seen"; chmod 644 "$H/seen"
check_out "control: --expose '~/seen' shows the caller's ~/seen" hi cordon run --expose '~/seen' -- cat "$H/seen"
check_out "control: --expose '~/seen:\$HOME/seen' puts it in the instance's home" hi \
    cordon run --expose '~/seen:$HOME/seen' -- sh -c 'cat "$HOME/seen"'

# (names of this run's own: were the check to regress, the run would create them)
for d in /etc/cordon-test-$$ /proc/x /usr/local/cordon-test-$$; do
    both_refused "--home $d" "{\"isolation\": {\"home\": \"$d\"}}" isolation.home '*must not be*'
done
# the instance root is mounted read-write: never the caller's home or above it
for d in "$H" "$T"; do
    both_refused "--home $d" "{\"isolation\": {\"home\": \"$d\"}}" isolation.home \
        "the instance root $d is your home directory or above it*"
done
CORDON_HOME=$H run_refused "CORDON_HOME=\$HOME: refused, naming the variable" \
    "cordon: \$CORDON_HOME: the instance root $H is your home directory or above it*" run -- true
check "... and nothing was created in the home" test ! -e "$H/skills" -a ! -e "$H/runtime-user-env"
check "... and nothing was created there" test ! -e /etc/cordon-test-$$ -a ! -e /usr/local/cordon-test-$$
is_root_run && rm -rf "/etc/cordon-test-$$" "/usr/local/cordon-test-$$"
check "control: a new --home is created (the instance root may be new)" \
    cordon run --home "$T/ws/inst" -- true
check "... with its directories" test -d "$T/ws/inst/skills" -a -d "$T/ws/inst/workspace"

run_refused "--network none --allow-net example.org: refused, naming both flags" \
    'cordon: --allow-net example.org: conflicts with --network none: an allowlist means network "proxy"*' \
    run --network none --allow-net example.org -- true
printf '%s\n' '{"isolation": {"network": "none", "network_allow": ["example.org"]}}' >"$W/v.json"
run_refused "... and as config keys, naming both" \
    'cordon: v.json:1:53: isolation.network_allow\[0\]: conflicts with v.json:1:27: isolation.network: an allowlist*' \
    run --config v.json -- true
run_refused "--allow-net first, --network loopback after: the same conflict" \
    'cordon: --allow-net example.org: conflicts with --network loopback:*' \
    run --allow-net example.org --network loopback -- true
run_refused "--network full --allow-net example.org" 'cordon: --allow-net example.org: conflicts with --network full:*' \
    run --network full --allow-net example.org -- true
# Between layers the later wins (each case with its same-layer conflict above as control)
printf '{"isolation": {"network": "none"}}\n' >"$W/none.json"; chmod 644 "$W/none.json"
printf '{"isolation": {"network_allow": ["example.org"]}}\n' >"$W/allow.json"; chmod 644 "$W/allow.json"
check_contains "a config's network \"none\", then --allow-net (a later layer): proxy" "network: proxy" \
    cordon plan --config none.json --allow-net example.org -- true
check_contains "a layer's network_allow over an earlier layer's \"none\": proxy with its hosts" \
    "allow: example.org" cordon plan --config none.json --config allow.json -- true
check_contains "an earlier allowlist, then a layer's \"none\": none (the list dropped)" "network: none" \
    cordon plan --config allow.json --config none.json -- true
check_contains "an allowlist, then --network full: full" "network: full" \
    cordon plan --config allow.json --network full -- true
check_contains "control: an allowlist, then \"proxy\": keeps the list" "allow: example.org" \
    cordon plan --config allow.json --network proxy -- true
check_contains "control: --allow-net alone means proxy" "network: proxy" cordon plan --allow-net example.org -- true
check_contains "control: --network proxy --allow-net agrees" "network: proxy" \
    cordon plan --network proxy --allow-net example.org -- true
both_refused "--allow-net http://example.org" '{"isolation": {"network_allow": ["http://example.org"]}}' \
    'isolation.network_allow[0]' '*is a URL, not a host: give the host name alone (example.org)*'
check_contains "control: --allow-net example.org:8080 is a host and port" "allow: example.org:8080" \
    cordon plan --allow-net example.org:8080 -- true

# -C and --cwd: relative to the caller's directory, as every tool; inside,
# the same path (or where an exposure puts it)
check_out "-C . is the caller's directory" "$W" cordon run -C . -- pwd
check_out "-C sub is below the caller's directory" "$W/sub" cordon run -C sub -- pwd
check_out "--cwd sub too" "$W/sub" cordon run --cwd sub -- pwd
check_out "-C .. is its parent" "$T" cordon run --expose "$T" -C .. -- pwd
CWD=$T/bin check_out "-C . under an exposure with another target: its path inside" /opt/bin \
    cordon run --expose "$T/bin:/opt/bin" -C . -- pwd
run_refused "-C nope: refused, naming the flag and the directory" \
    "cordon: -C nope: the working directory $W/nope does not exist" run -C nope -- true
run_refused "--cwd '': refused, naming the flag" 'cordon: --cwd : the working directory "" is empty' \
    run --cwd '' -- true

# every other flag with a value, against its config key
both_refused "--backend docker" '{"isolation": {"backend": "docker"}}' isolation.backend 'must be one of "auto"*'
both_refused "--network wifi" '{"isolation": {"network": "wifi"}}' isolation.network 'must be one of "none"*'
both_refused "--landlock maybe" '{"isolation": {"landlock": "maybe"}}' isolation.landlock 'must be one of*'
both_refused "--inherit some" '{"shell_environment_policy": {"inherit": "some"}}' \
    shell_environment_policy.inherit 'must be one of "core"*'
both_refused "--protect rel" '{"isolation": {"protect": ["rel"]}}' 'isolation.protect[0]' 'must be an absolute path*'
both_refused "--protect /a/../b" '{"isolation": {"protect": ["/a/../b"]}}' 'isolation.protect[0]' 'must not contain ".."*'
both_refused "--home rel" '{"isolation": {"home": "rel"}}' isolation.home 'must be an absolute path*'
both_refused "--workspace /a/../b" '{"isolation": {"workspace": "/a/../b"}}' isolation.workspace 'must not contain ".."*'
# A build tree's cordon finds the profiles of its source tree (after the
# installed ones), with no CORDON_PROFILE_PATH.
check_contains "cordon profiles from the build tree lists the source tree's git profile" \
    "git ($TOP/profiles/git.json)" as_user env -u CORDON_PROFILE_PATH "$CORDON_BUILD/cordon" profiles
check "--profile git works from the build tree" as_user env -u CORDON_PROFILE_PATH "$CORDON_BUILD/cordon" plan --profile git -- true
check_contains "a copy of it outside the build tree does not look in the source tree" "no profile \"git\"" as_user env -u CORDON_PROFILE_PATH "$CORDON" plan --profile git -- true
both_refused "--profile ../x" '{"isolation": {"profiles": ["../x"]}}' 'isolation.profiles[0]' 'not a profile name*'
both_refused "--profile cordon-no-such-profile" '{"isolation": {"profiles": ["cordon-no-such-profile"]}}' \
    'isolation.profiles[0]' 'no profile "cordon-no-such-profile"*'
printf '%s\n' '{"shell_environment_policy": {"exclude": [""]}}' >"$W/v.json"
run_refused "an empty exclude as a config key" 'cordon: v.json:1:43: shell_environment_policy.exclude\[0\]: must not be empty' \
    run --config v.json -- true
printf '%s\n' '{"shell_environment_policy": {"include_only": [""]}}' >"$W/v.json"
run_refused "an empty include_only as a config key" \
    'cordon: v.json:1:48: shell_environment_policy.include_only\[0\]: must not be empty' run --config v.json -- true
run_refused "--exclude '': refused, naming the flag" "cordon: --exclude : the pattern must not be empty" \
    run --exclude '' -- true
run_refused "--include-only '': refused, naming the flag" "cordon: --include-only : the pattern must not be empty" \
    run --include-only '' -- true
both_refused "--set =1" '{"shell_environment_policy": {"set": {"": "1"}}}' 'shell_environment_policy.set.' \
    '*not a valid variable name*'
both_refused "--expose /usr:rwx" '{"isolation": {"expose_paths": [{"source": "/usr", "mode": "rwx"}]}}' \
    'isolation.expose_paths[0].mode' '*must be "ro" or "rw"*'
both_refused "--expose /usr:/" '{"isolation": {"expose_paths": [{"source": "/usr", "target": "/"}]}}' \
    'isolation.expose_paths[0].target' '*must not be "/"*'
both_refused "--expose /usr:/proc/x" '{"isolation": {"expose_paths": [{"source": "/usr", "target": "/proc/x"}]}}' \
    'isolation.expose_paths[0].target' '*must not be under /proc*'
both_refused "--expose usr" '{"isolation": {"expose_paths": [{"source": "usr"}]}}' \
    'isolation.expose_paths[0].source' '*must be an absolute path*'
both_refused "--memory 12Q" '{"isolation": {"limits": {"memory_bytes": "12Q"}}}' isolation.limits.memory_bytes \
    'must be a size such as 512M*'
both_refused "--fsize 1Q" '{"isolation": {"limits": {"file_size_bytes": "1Q"}}}' isolation.limits.file_size_bytes \
    'must be a size such as 512M*'
both_refused "--tmp-size 1Q" '{"isolation": {"limits": {"tmp_size_bytes": "1Q"}}}' isolation.limits.tmp_size_bytes \
    'must be a size such as 512M*'
both_refused "--pids 2.5" '{"isolation": {"limits": {"pids": 2.5}}}' isolation.limits.pids 'must be a*whole number*'
both_refused "--nofile 1.5" '{"isolation": {"limits": {"open_files": 1.5}}}' isolation.limits.open_files \
    'must be a*whole number*'
both_refused "--cpu-time 1.5" '{"isolation": {"limits": {"cpu_time_s": 1.5}}}' isolation.limits.cpu_time_s \
    'must be a*whole number*'
both_refused "--timeout -1" '{"isolation": {"limits": {"wall_time_s": -1}}}' isolation.limits.wall_time_s \
    'must*n*negative*'
both_refused "--kill-after -1" '{"isolation": {"limits": {"kill_after_s": -1}}}' isolation.limits.kill_after_s \
    'must*n*negative*'
both_refused "--cpus -1" '{"isolation": {"limits": {"cpu_quota": -1}}}' isolation.limits.cpu_quota 'must*n*negative*'
run_refused "--expose remapped on the landlock backend: refused when planning, naming the flag" \
    'cordon: --expose /usr/share:/x: /usr/share -> /x: the landlock backend cannot remap paths*' \
    plan --backend landlock --expose /usr/share:/x -- true
run_refused "--expose with an unknown \$NAME target: refused when planning, naming the flag" \
    'cordon: --expose /usr/share:$CORDON_NO_SUCH/x: /usr/share -> $CORDON_NO_SUCH/x: *no such absolute variable' \
    plan --expose '/usr/share:$CORDON_NO_SUCH/x' -- true
run_refused "--stats-fd x: refused, naming the flag" 'cordon: --stats-fd: not a file descriptor: "x"' \
    run --stats-fd x -- true

# -- cordon plan --stats: the record of a refusal, machine-readable (as run's)
mkdir -p "$T/planstats" && chmod 777 "$T/planstats"
echo '{"isolation": {"expose_paths": [{"source": "/no/such/dir"}]}}' >"$T/planstats/bad.json"
chmod 644 "$T/planstats/bad.json"
check_status "plan --stats of a refused config: 125" 125 cordon plan --config "$T/planstats/bad.json" --stats "$T/planstats/r.json" -- true
check_out "... its record names the key, file, line and column" \
    "isolation.expose_paths[0].source $T/planstats/bad.json 1 44 125 None" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["error"]
print(e["key"], e["file"], e["line"], e["column"], e["code"], json.load(open(sys.argv[1])).get("exit_code"))' "$T/planstats/r.json"
check_status "plan --stats of a good config: 0" 0 cordon plan --stats "$T/planstats/r.json" -- true
check_out "... and the file is left empty, not with the earlier refusal" 0 stat -c %s "$T/planstats/r.json"
check_status "plan --stats-fd: the record on the descriptor" 125 \
    sh -c 'cd "$1" && "$2" plan --config "$3" --stats-fd 3 -- true 3>"$4"' sh "$W" "$CORDON" "$T/planstats/bad.json" "$T/planstats/fd.json"
check_contains "... which is the same record" '"key": "isolation.expose_paths[0].source"' cat "$T/planstats/fd.json"

done_testing
