#!/bin/bash
# The windows backend: `cordon plan --backend windows` on this host, then
# the cross-built (make windows) cordon.exe and the library's launcher
# (win-spawn.exe drives win_spawn directly) under Wine, running the test
# program (tests/helpers/win-probe.c). Wine enforces no token, integrity
# level or ACL: what is verified here is the process side (status, stdio,
# environment, the job, the handle list, the command line as the real C
# runtime splits it); see docs/backends.md, "Windows".
. "$(dirname "$0")/lib.sh"

json() { # FILE PYTHON-EXPRESSION-ON-o: ok when it is true
    python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$@"
}

# --- on this (Linux) host: the plan as the windows backend renders it
cordon plan --backend windows --network full -- /bin/true >"$T/plan.txt" 2>&1
if grep -qx 'windows isolation access rules' "$T/plan.txt" &&
    grep -q "^  write  $H/.cordon/workspace  (workspace)  D:(A;OICI;0x1301bf;;;S-1-9-[0-9-]*)S:(ML;OICI;NW;;;LW)$" "$T/plan.txt" &&
    ! sed -n '/^windows isolation access rules$/,$p' "$T/plan.txt" | grep -q "logs"; then
    ok "cordon plan --backend windows prints the access rules (the workspace granted, not logs/)"
else not_ok "cordon plan --backend windows prints the access rules (the workspace granted, not logs/)"; diag <"$T/plan.txt"; fi
cordon plan --backend windows --json -- /bin/true >"$T/plan.json" 2>"$T/err"
check "... and as JSON, with what Windows cannot enforce (the network none)" json "$T/plan.json" \
    "o['backend'] == 'windows' and o['windows']['sid'].startswith('S-1-9-') and
     any(r['access'] == 'write' and r['origin'] == 'workspace' for r in o['windows']['rules']) and
     'administrator rights' in o['windows']['refused'][0]"
mkdir -p "$T/src"
check_contains "a source -> target remapping is refused with the reason" "cannot remap paths" \
    cordon plan --backend windows --expose "$T/src:/elsewhere" -- /bin/true
check_status "cordon run --backend windows on Linux: 125" 125 cordon run --backend windows --network full -- /bin/true

WB=${CORDON_WINDOWS_BUILD:-$TOP/build-windows}
WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
if [ ! -x "$WINE" ] || [ ! -f "$WB/src/windows/win-spawn.exe" ] || [ ! -f "$WB/cordon.exe" ]; then
    skip "the windows backend under Wine" "needs make windows and wine64 (scripts/deps.sh wine)"
    done_testing
    exit 0
fi
mkdir -p "$T/win"
cp "$WB"/src/windows/*.exe "$T/win/"
cp "$WB/cordon.exe" "$T/win/"
chmod -R a+rX "$T/win"
winpath() { local p=${1//\//\\}; echo "Z:$p"; }
PROBE_EXE=$(winpath "$T/win/win-probe.exe")
# One Wine prefix per user, kept between runs (making one takes seconds).
uid=0
[ "$TEST_AS" = user ] && uid=$TEST_UID
export WINEPREFIX=/tmp/cordon-wine-$uid WINEDEBUG=-all
[ -d "$WINEPREFIX" ] || as_user mkdir -m 700 "$WINEPREFIX" # Wine makes it only in a directory of the user's
# Wine itself sometimes fails to start a new process (its loader dies before
# the process is up, and CreateProcess reports ERROR_INTERNAL_ERROR, 1359:
# Wine's NtCreateUserProcess when the child never initialised). Such a run is
# made again, at most twice, and counted; any other outcome is the test's.
wine_once() { as_user env WINEPREFIX="$WINEPREFIX" WINEDEBUG=-all "$WINE" "$@"; }
wine_started() { # COMMAND...: runs it, again when Wine failed to start a process
    local attempt st
    for attempt in 1 2 3; do
        "$@" >"$T/wine.out" 2>"$T/wine.err"; st=$?
        grep -q '(Windows error 1359)' "$T/wine.err" || break
        [ $attempt -lt 3 ] && echo "$*" >>"$T/wine-retries"
    done
    cat "$T/wine.out"; cat "$T/wine.err" >&2
    return $st
}
wine() { wine_started wine_once "$@"; }
spawn() { wine "$T/win/win-spawn.exe" "$@"; }
cordon_exe() { wine "$T/win/cordon.exe" "$@"; }
probe() { wine "$T/win/win-probe.exe" "$@"; }
crlf() { "$@" | tr -d '\r'; } # cmd.exe ends its lines with CR LF

# --- status, stdout, stderr
check_status "the command's exit status comes back" 42 spawn -- "$PROBE_EXE" exit 42
spawn -- "$PROBE_EXE" out hello >"$T/o" 2>"$T/e"
if [ "$(cat "$T/o")" = hello ] && [ ! -s "$T/e" ]; then ok "its stdout comes back, on stdout only"; else
    not_ok "its stdout comes back, on stdout only"; diag <"$T/e"; fi
spawn -- "$PROBE_EXE" err oops >"$T/o" 2>"$T/e"
if [ "$(cat "$T/e")" = oops ] && [ ! -s "$T/o" ]; then ok "its stderr comes back, on stderr only"; else
    not_ok "its stderr comes back, on stderr only"; diag <"$T/o"; fi
check_status "a program that does not exist: status 125" 125 spawn -- 'Z:\nonexistent\x.exe'
check_contains "... and the message names the step and the fix" \
    "windows backend: CreateProcessAsUser: " spawn --root 'C:\cordon-i' -- 'Z:\nonexistent\x.exe'

# --- the command line, split by the real C runtime (Wine's msvcrt)
args=(plain "" "two words" 'a"b' '"' 'C:\dir\' 'C:\my dir\' '\"' 'x\\"y' 'tab	in' '&|<>^%!' 'é')
want_args=$(printf '[%s]\n' "${args[@]}")
check_out "tricky arguments arrive exactly as given" "$want_args" spawn -- "$PROBE_EXE" args "${args[@]}"

# --- a batch file runs under cmd.exe, which parses by its own rules (CVE-2024-24576)
printf '@echo off\r\necho arg1=%%1\r\necho arg2=%%2\r\n' >"$T/win/args.bat"
chmod a+r "$T/win/args.bat"
BAT=$(winpath "$T/win/args.bat")
check_out "batch file arguments arrive quoted, their & as text" 'arg1="a b"
arg2="x&echo INJECTED"' crlf spawn -- "$BAT" "a b" "x&echo INJECTED"
spawn -- "$BAT" '"&echo INJECTED' >"$T/o" 2>"$T/e"
st=$?
if [ $st -eq 125 ] && [ ! -s "$T/o" ] && grep -q "CVE-2024-24576" "$T/e"; then
    ok "an argument that would end cmd.exe's quoting is refused (125), nothing runs"
else not_ok "an argument that would end cmd.exe's quoting is refused (125), nothing runs (status $st)"
    diag <"$T/o"; diag <"$T/e"; fi
check_contains "the control: quoted by the C runtime's rules, it runs as a command" 'INJECTED"' \
    probe naive-bat "$BAT" '"&echo INJECTED'
check_status "an argument with % is refused too (cmd.exe expands it inside quotes)" 125 spawn -- "$BAT" '%PATH%'

# --- the environment, redirected into the instance
root='C:\cordon-inst'
u='C:\cordon-inst\runtime-user-env'
want="USERPROFILE=$u
HOME=$u
APPDATA=$u\\AppData\\Roaming
LOCALAPPDATA=$u\\AppData\\Local
TEMP=$u\\tmp
TMP=$u\\tmp
CORDON_SANDBOX=windows"
check_out "the user environment points into the instance, with the marker" "$want" \
    spawn --root "$root" -- "$PROBE_EXE" env USERPROFILE HOME APPDATA LOCALAPPDATA TEMP TMP CORDON_SANDBOX
check_contains "the control: unsandboxed, USERPROFILE is Wine's own" "USERPROFILE=C:\\users\\" \
    probe env USERPROFILE

# --- the job: in it before its first instruction, no way out
check_contains "the process is in the job when its first code runs (a TLS callback)" "early: in-job" \
    spawn --root "$root" -- "$PROBE_EXE" job
check_contains "the control: started without cordon, it is in no job" "early: not-in-job" probe job
check_contains "a child cannot break away from the job" "breakaway: refused" spawn -- "$PROBE_EXE" breakaway
check_contains "the control: outside a job, breakaway is allowed" "breakaway: allowed" probe breakaway

# --- a step that fails after the process exists: it is terminated before it ran
spawn --fail-assign -- "$PROBE_EXE" touch "$(winpath "$W/ran")" >"$T/o" 2>&1
st=$?
if [ $st -eq 125 ] && [ ! -e "$W/ran" ] && grep -q "AssignProcessToJobObject" "$T/o"; then
    ok "a failure after CreateProcess: 125, the step named, the process never ran"
else not_ok "a failure after CreateProcess: 125, the step named, the process never ran (status $st)"; diag <"$T/o"; fi
spawn -- "$PROBE_EXE" touch "$(winpath "$W/ran-control")" >/dev/null 2>&1
check "the control: without the failure, the same command runs" test -e "$W/ran-control"

# --- only stdio is inherited
touch "$T/handle-file"
check_contains "an inheritable handle of the launcher's does not reach the command" "handle: not inherited" \
    spawn --inheritable "$(winpath "$T/handle-file")" -- "$PROBE_EXE" handle
check_contains "the control: a child that inherits everything gets it" "handle: inherited" \
    probe inherit-all "$(winpath "$T/handle-file")"

# --- the CLI, cordon.exe
INST=$(winpath "$T/inst")
mkdir -p "$T/inst"
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/inst"
crun() { wine_started as_user env WINEPREFIX="$WINEPREFIX" WINEDEBUG=-all CORDON_HOME="$INST" MY_API_KEY=secret \
    "$WINE" "$T/win/cordon.exe" run "$@"; }
check_status "cordon.exe run: the command's exit status" 42 crun --network full -- "$PROBE_EXE" exit 42
check_out "cordon.exe run: tricky and non-ASCII arguments arrive exactly as given" "$want_args" \
    crun --network full -- "$PROBE_EXE" args "${args[@]}"
crun --network full -- "$PROBE_EXE" err oops >"$T/o" 2>"$T/e"
if [ "$(cat "$T/e")" = oops ] && [ ! -s "$T/o" ]; then ok "cordon.exe run: stderr on stderr"; else
    not_ok "cordon.exe run: stderr on stderr"; diag <"$T/e"; fi
u="$INST\\runtime-user-env"
check_out "cordon.exe run: the environment redirected into the instance, the secret filtered" \
"USERPROFILE=$u
APPDATA=$u\\AppData\\Roaming
TEMP=$u\\tmp
CORDON_SANDBOX=windows
MY_API_KEY unset" crun --network full --inherit all -- "$PROBE_EXE" env USERPROFILE APPDATA TEMP CORDON_SANDBOX MY_API_KEY
check_contains "the control: with the default excludes ignored, the variable is there" "MY_API_KEY=secret" \
    crun --network full --inherit all --ignore-default-excludes -- "$PROBE_EXE" env MY_API_KEY
check_contains "an exclude glob drops it there too (fnmatch, case-insensitive)" "MY_API_KEY unset" \
    crun --network full --inherit all --ignore-default-excludes --exclude 'my_[a-z]*' -- "$PROBE_EXE" env MY_API_KEY
check "the instance's directories are made (runtime-user-env/AppData/Local)" test -d "$T/inst/runtime-user-env/AppData/Local"
check_contains "cordon.exe run: in the job at its first code" "early: in-job" crun --network full -- "$PROBE_EXE" job
crun -- "$PROBE_EXE" touch "$(winpath "$W/net-ran")" >"$T/o" 2>&1
st=$?
if [ $st -eq 125 ] && [ ! -e "$W/net-ran" ] && grep -q 'network "none": .*administrator rights' "$T/o"; then
    ok "the network none, which it cannot enforce: 125 with the reason, nothing ran"
else not_ok "the network none, which it cannot enforce: 125 with the reason, nothing ran (status $st)"; diag <"$T/o"; fi
check "the control: with --network full it runs" crun --network full -- "$PROBE_EXE" touch "$(winpath "$W/net-ran")"
mkdir -p "$T/home2" "$T/proj2"
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/home2" "$T/proj2"
check_contains "--home with a Windows path: the user environment in it" "USERPROFILE=$(winpath "$T/home2")\\runtime-user-env" \
    crun --network full --home "$(winpath "$T/home2")" -- "$PROBE_EXE" env USERPROFILE
check_contains "--workspace with a Windows path: it gets the grant" "  write  $(winpath "$T/proj2")  (workspace)  D:(A;OICI;" \
    crun --network full --log-plan --workspace "$(winpath "$T/proj2")" -- "$PROBE_EXE" exit 0
check_contains "--home with .. is refused, naming the flag" '--home C:\a\..\b: must not contain ".."' \
    crun --network full --home 'C:\a\..\b' -- "$PROBE_EXE" exit 0
check_contains "--log-plan logs the windows isolation access rules" "windows isolation access rules" \
    crun --network full --log-plan -- "$PROBE_EXE" exit 0
check_status "--timeout ends the job: 124" 124 crun --network full --timeout 1 -- "$PROBE_EXE" sleep
check_status "a command not found: 127" 127 crun --network full -- no-such-command-cordon
check_status "a batch file argument cmd.exe would run: 125" 125 crun --network full -- "$BAT" '"&echo INJECTED'

# --- killing the launcher kills the job (kill on close)
beats() { wc -l <"$1" 2>/dev/null || echo 0; }
still_beating() { # FILE: the heartbeat still grows a second later
    local a b
    a=$(beats "$1"); sleep 1; b=$(beats "$1")
    [ "$b" -gt "$a" ]
}
killed_tree() { # LAUNCHER-ARGS...: starts the tree, kills the launcher, leaves the heartbeat file in $hb
    hb=$T/hb.$RANDOM
    touch "$hb"
    [ "$TEST_AS" = user ] && chown $TEST_UID "$hb"
    if [ "$TEST_AS" = user ]; then
        setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups -- env HOME="$H" WINEPREFIX="$WINEPREFIX" \
            WINEDEBUG=-all CORDON_HOME="${CORDON_HOME:-}" "$WINE" "$@" tree "$(winpath "$hb")" >/dev/null 2>&1 &
    else
        "$WINE" "$@" tree "$(winpath "$hb")" >/dev/null 2>&1 &
    fi
    local pid=$!
    for _ in $(seq 50); do [ "$(beats "$hb")" -gt 2 ] && break; sleep 0.1; done
    kill -9 $pid
    wait $pid 2>/dev/null
    sleep 1.5 # wineserver ends the job when it sees the launcher gone
}
killed_tree "$T/win/win-spawn.exe" -- "$PROBE_EXE"
if [ "$(beats "$hb")" -gt 2 ] && ! still_beating "$hb"; then ok "killing the launcher kills the command's process tree"
else not_ok "killing the launcher kills the command's process tree ($(beats "$hb") beats)"; fi
CORDON_HOME=$INST killed_tree "$T/win/cordon.exe" run --network full -- "$PROBE_EXE"
if [ "$(beats "$hb")" -gt 2 ] && ! still_beating "$hb"; then ok "killing cordon.exe kills the command's process tree"
else not_ok "killing cordon.exe kills the command's process tree ($(beats "$hb") beats)"; fi
killed_tree "$T/win/win-probe.exe"
if still_beating "$hb"; then ok "the control: without the job, the grandchild outlives its killed parent"
else not_ok "the control: without the job, the grandchild outlives its killed parent ($(beats "$hb") beats)"; fi
# the control's orphan: end it (it stops by itself after 60 s)
as_user env WINEPREFIX="$WINEPREFIX" WINEDEBUG=-all "$(dirname "$(readlink -f "$WINE")")/wineserver" -k 2>/dev/null

[ -s "$T/wine-retries" ] && echo "# Wine failed to start a process $(wc -l <"$T/wine-retries") time(s); made again"
done_testing
