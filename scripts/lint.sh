#!/bin/bash
# make lint: clang-tidy (.clang-tidy) and cppcheck on the project's code,
# the layers' include rule (scripts/check-layers.sh), apparmor_parser on
# the AppArmor profile (scripts/check-apparmor.sh), and valgrind memcheck
# on `cordon plan` and `cordon run` for a few configs (a dynamically
# linked, unsanitized build: build-valgrind/). Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
passed=0 failed=0
log=$(mktemp)
trap 'rm -rf "$log" "$tmp"' EXIT
step() { # description command...
    local d=$1; shift
    if "$@" >"$log" 2>&1; then passed=$((passed + 1)); echo "ok - $d"
    else failed=$((failed + 1)); echo "not ok - $d"; head -40 "$log" | sed 's/^/    /'; fi
}
# The Win32 files (src/windows/ but its pure parts) are checked in the
# Windows build's compile database, for the mingw target.
win32=$(ls src/windows/*.c | grep -v -e cmdline.c -e envblock.c -e render.c -e rules.c)
sources=$(ls src/*/*.c cli/*.c examples/*.c 2>/dev/null | grep -v -F "$win32" | grep -v relay-none.c)
step "clang-tidy" clang-tidy -p "$build" --quiet $sources
step "clang-tidy (the Windows build, mingw target)" clang-tidy -p build-windows --quiet \
    --extra-arg=--target=x86_64-w64-mingw32 $win32 cli/relay-none.c tests/helpers/win-*.c
step "cppcheck" cppcheck -q --enable=warning,portability,performance --std=c11 --inline-suppr --error-exitcode=1 \
    -D_GNU_SOURCE -Iinclude -Isrc/core -Isrc/linux -Isrc --suppress=missingIncludeSystem src cli tests/helpers/win-*.c
step "layers: who may include whom (docs/design.md; scripts/check-layers.sh)" scripts/check-layers.sh
step "layers: the check refuses each planted violation (scripts/check-layers.sh --self-test)" scripts/check-layers.sh --self-test
step "apparmor_parser: the installed AppArmor profile parses (not loaded)" scripts/check-apparmor.sh "$build"

vb=build-valgrind
if [ ! -f $vb/build.ninja ]; then meson setup $vb -Dstatic_cli=false -Dbuildtype=debug >/dev/null || exit 1; fi
ninja -C $vb >/dev/null || { echo "not ok - valgrind build"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
tmp=$(mktemp -d /tmp/cordon-lint.XXXXXX)
chmod 755 "$tmp"; mkdir -p "$tmp/home" "$tmp/data"
echo '{"isolation": {"network": "loopback", "expose_paths": [{"source": "'"$tmp/data"'", "target": "/opt/data"}],
 "limits": {"wall_time_s": 5}}, "shell_environment_policy": {"inherit": "all", "exclude": ["AWS_*"], "set": {"A": "1"}}}' >"$tmp/c.json"
echo '{"isolation": {"network": "wifi"}}' >"$tmp/bad.json"
# valgrind 3.19 knows neither Landlock nor the new mount API: cordon falls
# back to mount(2) and best-effort Landlock, as on an older kernel. Nor can it
# follow a process that shares memory without being a thread: the init gets
# a copy of the launcher's memory (CORDON_DEBUG=fork-init).
vg() { HOME=$tmp/home CORDON_DEBUG=fork-init valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --child-silent-after-fork=yes "$@"; }
ok_or_cordon_error() { "$@"; local rc=$?; [ $rc -ne 99 ]; }
cd "$tmp/data"
step "valgrind: cordon plan" vg $OLDPWD/$vb/cordon plan -- ls -l
step "valgrind: cordon plan --json with a config" vg $OLDPWD/$vb/cordon plan --json --config "$tmp/c.json" -- sh -c true
step "valgrind: cordon plan --backend windows --json" vg $OLDPWD/$vb/cordon plan --backend windows --json -- ls
step "valgrind: cordon env" vg $OLDPWD/$vb/cordon env --config "$tmp/c.json"
step "valgrind: a bad config (error path)" ok_or_cordon_error vg $OLDPWD/$vb/cordon plan --config "$tmp/bad.json" -- true
step "valgrind: cordon run" vg $OLDPWD/$vb/cordon run -- true
step "valgrind: cordon run with a config, exit 3" ok_or_cordon_error vg $OLDPWD/$vb/cordon run --config "$tmp/c.json" -- sh -c 'exit 3'
# valgrind 3.19 does not know the Landlock calls: the landlock backend fails
# cleanly there (the error path is what gets checked)
step "valgrind: cordon run --backend landlock" ok_or_cordon_error vg $OLDPWD/$vb/cordon run --backend landlock -- true
step "valgrind: cordon run, command not found" ok_or_cordon_error vg $OLDPWD/$vb/cordon run -- no-such-command-cordon
vg_pty() { echo hi | vg "$OLDPWD/$vb/cordon" run --pty -- cat >/dev/null; }
step "valgrind: cordon run --pty (the relay)" vg_pty
step "valgrind: cordon check" vg $OLDPWD/$vb/cordon check
cd - >/dev/null
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
