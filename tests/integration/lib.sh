# Sourced by the integration tests. TAP output; runs the CLI as root or as an
# unprivileged user (TEST_AS=root|user) from a scratch directory.
#
#   T       scratch dir (world-readable), removed at exit
#   H       the test user's HOME ($T/home); the instance root is $H/.cordon
#   W       a project directory ($T/proj), the default cwd
#   PROBE   $T/bin/probe (tests/helpers/probe.c, no sanitizers)
#   cordon ARGS...        run the CLI as the test user, in $W
#   as_user CMD...        run CMD as the test user (unsandboxed: negative controls)
#   own_fs DIR            a tmpfs of the test's own on DIR (as root; removed at exit), so
#                         that a control does not depend on what holds /tmp on this machine
#   check DESC CMD...     ok when CMD succeeds
#   check_fails DESC CMD...
#   check_status DESC N CMD...
#   check_out DESC EXPECTED CMD...   stdout equals EXPECTED
#   check_contains DESC NEEDLE CMD...
#   skip DESC REASON      (a failure under CI=true)
# CORDON_TEST_NO_LINUX=1 (container.sh, inside a container where the linux
# backend cannot run): a check whose description starts with "linux" is
# reported skipped ("needs the linux backend"), not run.
# CORDON_TEST_IN_CONTAINER=1 (container.sh): a control that does not hold
# because the container itself refuses the probe (holds DESC WANT CMD...)
# is reported skipped ("the container refuses it"), with what leans on it.
set -u
# The system's PATH, not the developer's (toolchains in a home would add
# cordon's note on PATH entries not visible inside to every run's stderr).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CORDON_BUILD=${CORDON_BUILD:?set CORDON_BUILD to a build directory}
TEST_AS=${TEST_AS:-root}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TEST_UID=65534
TEST_GID=65534
_n=0

T=$(mktemp -d /tmp/cordon-test.XXXXXX)
chmod 755 "$T"
trap 'cleanup_test' EXIT
cleanup_test() {
    [ -n "${CLEANUP_PIDS:-}" ] && kill $CLEANUP_PIDS 2>/dev/null
    local m
    for m in ${CLEANUP_MOUNTS:-}; do umount -l "$m" 2>/dev/null; done
    rm -rf "$T"
}
mkdir -p "$T/bin" "$T/home" "$T/proj"
cp "$CORDON_BUILD/cordon" "$T/bin/cordon"
cc -O2 -w -o "$T/bin/probe" "$TOP/tests/helpers/probe.c" || { echo "not ok 1 - build probe"; exit 1; }
H=$T/home
W=$T/proj
PROBE=$T/bin/probe
CORDON=$T/bin/cordon
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/home" "$T/proj"

ok() { _no_linux "$*" && return 0; _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _no_linux "$*" && return 0; _n=$((_n + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
diag() { sed 's/^/# /' | head -${DIAG_LINES:-25}; }

as_user() {
    if [ "$TEST_AS" = user ]; then
        setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all -- env HOME="$H" "$@"
    else
        env HOME="$H" "$@"
    fi
}

# Start CMD in the background as the test user; its pid (not a wrapper's)
# is in $BG_PID and it is killed at exit.
bg_as_user() {
    if [ "$TEST_AS" = user ]; then
        setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups -- "$@" &
    else
        "$@" &
    fi
    BG_PID=$!
    CLEANUP_PIDS="${CLEANUP_PIDS:-} $BG_PID"
    # until setpriv has executed CMD: in between it is not yet the user's,
    # or not dumpable (a ptrace or signal control would fail)
    [ "$TEST_AS" = user ] || return 0
    local i
    for i in $(seq 100); do
        [ "$(cat /proc/$BG_PID/comm 2>/dev/null)" != setpriv ] && return 0
        sleep 0.02
    done
}

cordon() { (cd "${CWD:-$W}" && as_user "$CORDON" "$@"); }

# A tmpfs on DIR (made) for files whose metadata a control changes (chattr,
# user xattrs, times, modes: each works on a tmpfs, not on every file system
# that may hold /tmp). Needs root, which the suites have (TEST_AS=user drops
# only in as_user); where mounting is refused (a container without
# CAP_SYS_ADMIN), DIR stays where it is and a control that fails there fails.
own_fs() {
    mkdir -p "$1" || return 1
    if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o mode=755,size=64m cordon-test "$1" 2>/dev/null; then
        CLEANUP_MOUNTS="${CLEANUP_MOUNTS:-} $1"
    fi
}

_no_linux() {
    [ -n "${CORDON_TEST_NO_LINUX:-}" ] || return 1
    case $1 in
    linux:* | "linux "*) skip "$1" "needs the linux backend (namespaces), which cannot run here"; return 0 ;;
    esac
    return 1
}
check() {
    local d=$1; shift
    _no_linux "$d" && return 0
    if "$@" >"$T/.out" 2>&1; then ok "$d"; else not_ok "$d"; diag <"$T/.out"; fi
}
check_fails() {
    local d=$1; shift
    _no_linux "$d" && return 0
    if "$@" >"$T/.out" 2>&1; then not_ok "$d (succeeded)"; diag <"$T/.out"; else ok "$d"; fi
}
check_status() {
    local d=$1 want=$2; shift 2
    _no_linux "$d" && return 0
    "$@" >"$T/.out" 2>&1
    local got=$?
    if [ "$got" -eq "$want" ]; then ok "$d"; else not_ok "$d (status $got, want $want)"; diag <"$T/.out"; fi
}
check_out() {
    local d=$1 want=$2; shift 2
    _no_linux "$d" && return 0
    local got
    got=$("$@" 2>"$T/.err")
    if [ "$got" = "$want" ]; then ok "$d"; else
        not_ok "$d"
        { echo "want: $want"; echo "got:  $got"; cat "$T/.err"; } | diag
    fi
}
check_contains() {
    local d=$1 needle=$2; shift 2
    _no_linux "$d" && return 0
    "$@" >"$T/.out" 2>&1
    if grep -qF -- "$needle" "$T/.out"; then ok "$d"; else
        not_ok "$d (no \"$needle\")"; diag <"$T/.out"; fi
}
is_root_run() { [ "$TEST_AS" = root ]; }
# holds DESC WANT CMD...: the control "DESC" (CMD's stdout is WANT); true
# when it holds. In a container (CORDON_TEST_IN_CONTAINER) a control that
# does not hold is skipped, and the caller skips what leans on it: the
# container refuses it to everyone, the sandbox's own refusal is moot.
holds() {
    local d=$1 want=$2 got; shift 2
    got=$("$@" 2>"$T/.err")
    if [ "$got" = "$want" ]; then ok "$d"; return 0; fi
    if [ -n "${CORDON_TEST_IN_CONTAINER:-}" ]; then
        skip "$d" "the container refuses it unsandboxed too (got ${got:-nothing})"
        return 1
    fi
    not_ok "$d"; { echo "want: $want"; echo "got:  $got"; cat "$T/.err"; } | diag
    return 1
}
done_testing() { echo "1..$_n"; }
