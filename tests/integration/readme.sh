#!/bin/bash
# The README's examples ("Examples:" under "Usage"), run exactly as printed
# from a project that has what each needs (a Makefile, a Go module, an
# empty requirements.txt, a Cargo crate, /opt/go), each against its control:
# the same command without cordon. The block is read from README.md, so an
# example changed there is what runs here. /opt is the test's own (a mount
# namespace of its own, a tmpfs on /opt holding an empty /opt/go).
if [ -z "${README_NS:-}" ]; then
    exec env README_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

export CORDON_PROFILE_PATH=$TOP/profiles # the profiles as installed
mount -t tmpfs tmpfs /opt && mkdir /opt/go || { not_ok "a tmpfs of the test's own on /opt"; done_testing; exit 0; }
P=$W/project
mkdir -p "$P/src"
printf 'all:\n\techo built >out\n' >"$P/Makefile"
printf 'module example.com/m\n\ngo 1.19\n' >"$P/go.mod"
printf 'package m\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {}\n' >"$P/m_test.go"
: >"$P/requirements.txt"
printf '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2018"\n' >"$P/Cargo.toml"
printf '#[test]\nfn one() {}\n' >"$P/src/lib.rs"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$P"

awk '/^Examples:/ { f = 1; next } f && /^```sh/ { b = 1; next } b && /^```/ { exit } b && /^cordon run|^[A-Z_]+=.* cordon run/' \
    "$TOP/README.md" >"$T/examples"
check_out "control: the README has its six examples" 6 sh -c "wc -l <'$T/examples'"
# EXAMPLE N: line N as printed, cordon being this build's; CONTROL N: the
# same without cordon (its environment prefix, then what follows --)
example() { local l; l=$(sed -n "$1p" "$T/examples"); (cd "$P" && as_user env PATH="$PATH" bash -c "cordon() { \"$CORDON\" \"\$@\"; }; $l" 2>&1); }
control() {
    local l; l=$(sed -n "$1p" "$T/examples")
    local pre=${l%%cordon run*} cmd=${l#* -- }
    (cd "$P" && as_user env PATH="$PATH" bash -c "$pre $cmd" 2>&1)
}
times() { sed -E 's/[0-9]+\.[0-9]+s/T/g; s/in [0-9.]+s/in T/'; }

for n in 1 2 3 4 5; do
    example $n >"$T/ex$n" 2>&1; echo "status $?" >>"$T/ex$n"
    rm -f "$P/out" "$P/run.json.control"; [ -e "$P/run.json" ] && mv "$P/run.json" "$T/run$n.json"
    control $n >"$T/ctl$n" 2>&1; echo "status $?" >>"$T/ctl$n"
    rm -rf "$P/out" "$P/target" "$P/Cargo.lock"
done
same() { check_out "$1" "$(times <"$T/ctl$2" | grep -E "$3")" sh -c "sed -E 's/[0-9]+\.[0-9]+s/T/g' '$T/ex$2' | grep -E '$3'"; }

# 1. the current directory read-only, no /home, no API keys
check "1: make -n runs in the project" grep -qx 'echo built >out' "$T/ex1"
check "1: /home is not there" grep -q "cannot access '/home'" "$T/ex1"
check "1: the key is not there" grep -qx 'no key' "$T/ex1"
check "1: control: without cordon the key is there" grep -qx 'sk-...' "$T/ctl1"
# 2. go test with the project read-write and /opt/go read-only
same "2: go test ./... gives the control's result" 2 '^(ok|FAIL|status)'
check "2: ... which passes" grep -qx 'status 0' "$T/ex2"
# 3. pip install through the proxy: Debian's pip refuses a system-wide
# install (PEP 668) before it needs a host, with and without cordon
same "3: pip install -r requirements.txt gives the control's result" 3 '^(error|status)'
# 4. the limits and the report, the project as the workspace (where this
# user can have cgroup limits: as root, or in a delegated cgroup v2 tree;
# elsewhere the memory limit is refused, saying what to do)
if (cd "$P" && as_user "$CORDON" run --memory 1G -- true) >/dev/null 2>&1; then
    same "4: make -j8 gives the control's result" 4 '^(echo|status)'
    check "4: ... which passes" grep -qx 'status 0' "$T/ex4"
    check "4: the report says the command exited 0" \
        python3 -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['exit_code'] == 0, o" "$T/run4.json"
else
    check "4: no cgroup limits for this user here: refused (125), naming --limits-best-effort" \
        grep -q 'cannot enforce the memory limit 1G.*--limits-best-effort' "$T/ex4"
    check "4: ... and the report says why" \
        python3 -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['status'] == 125 and 'memory' in o['error']['message'], o" "$T/run4.json"
    check "4: control: the make itself passes" grep -qx 'status 0' "$T/ctl4"
fi
# 5. toolchains and the git identity from the home, the project read-write
same "5: cargo test gives the control's result" 5 '^(test result|status)'
check "5: ... which passes" grep -qx 'status 0' "$T/ex5"
# 6. what was refused, and the flag that would allow it, when the command
# fails: a home of the test's own holding ~/.npmrc
H6=$T/home6; mkdir -p "$H6"; echo 'registry=https://registry.example/' >"$H6/.npmrc"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$H6"
l6=$(sed -n 6p "$T/examples")
(cd "$P" && as_user env PATH="$PATH" HOME="$H6" bash -c "cordon() { \"$CORDON\" \"\$@\"; }; $l6") >"$T/ex6" 2>&1
echo "status $?" >>"$T/ex6"
(cd "$P" && as_user env HOME="$H6" sh -c 'cat ~/.npmrc') >"$T/ctl6" 2>&1
check "6: control: without cordon ~/.npmrc is read" grep -q '^registry=' "$T/ctl6"
check "6: under cordon the read fails" grep -qvx 'status 0' "$T/ex6"
check_contains "6: ... and cordon names the refusal" "refused read" cat "$T/ex6"
check_contains "6: ... and the flag that allows it" "--expose '$H6/.npmrc:\$HOME/.npmrc'" cat "$T/ex6"
(cd "$P" && as_user env HOME="$H6" "$CORDON" run --expose "$H6/.npmrc:\$HOME/.npmrc" -- sh -c 'cat ~/.npmrc') >"$T/fix6" 2>&1
check_out "6: with that flag the read works" "registry=https://registry.example/" cat "$T/fix6"
done_testing
