#!/bin/bash
# The toolchain matrix: each toolchain Debian installs (scripts/deps.sh
# test) runs a small real task offline under the recommended invocation
# (cordon run --workspace "$P" -C "$P" -- CMD, from the project), on both
# Linux backends, and its output (times and the home's path taken out) must
# be the control's: the same command in the same project without cordon.
# run-tests runs it as root and as a user.
. "$(dirname "$0")/lib.sh"

P=$W/project
mkdir -p "$P"
cd "$P" || exit 1
# Java: compile and run
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello " + a.length); } }\n' >Hello.java
# Node: an offline install of a local package, then npm's test runner
mkdir -p dep
printf '{"name": "dep", "version": "1.0.0", "main": "index.js"}\n' >dep/package.json
printf 'module.exports = "from dep";\n' >dep/index.js
printf '{"name": "m", "version": "1.0.0", "private": true, "dependencies": {"dep": "file:dep"}, "scripts": {"test": "node test.js"}}\n' >package.json
printf 'console.log(require("dep"));\n' >test.js
# Python: unittest
printf 'import unittest\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(1 + 1, 2)\n' >test_m.py
# Go: a module's tests, and a build that runs
printf 'module example.com/m\n\ngo 1.19\n' >go.mod
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("go ok") }\n' >main.go
printf 'package main\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {}\n' >main_test.go
# Rust: cargo's tests, offline
mkdir -p rs/src
printf '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2018"\n' >rs/Cargo.toml
printf '#[test]\nfn one() { assert_eq!(1 + 1, 2); }\n' >rs/src/lib.rs
# Perl: prove; Ruby: the standard library
mkdir -p t
printf 'use strict; use Test::More tests => 1; use JSON::PP; is(encode_json([1]), "[1]");\n' >t/one.t
printf 'require "json"\nputs JSON.generate({"a" => [1, 2]})\n' >m.rb
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$P"

# TASK CMD: the command's output (stdout and stderr), normalised
norm() { sed -E "s#$H#HOME#g; s#[0-9]+(\.[0-9]+)?m?s\b#T#g; s#[0-9]+ wallclock secs.*#wallclock#"; }
ctl() { (cd "$P" && as_user env PATH="$PATH" "$@") 2>&1 | norm; }
in_box() { local be=$1; shift; (cd "$P" && as_user "$CORDON" run --backend "$be" --workspace "$P" -C "$P" -- "$@") 2>&1 | norm; }
matrix() { # DESC CMD...
    local d=$1; shift
    local want; want=$(ctl "$@")
    if [ -z "$want" ]; then not_ok "$d: the control gives no output"; return; fi
    for be in linux landlock; do
        local got; got=$(in_box $be "$@")
        if [ "$got" = "$want" ]; then ok "$be: $d"; else
            not_ok "$be: $d"; { echo "want: $want"; echo "got:  $got"; } | diag; fi
    done
}

matrix "javac and java compile and run" sh -c 'javac Hello.java && java Hello a b'
matrix "mvn -v (Maven's /etc/maven and the JDK)" sh -c 'mvn -B -v | grep -E "^(Apache Maven|Maven home|Java version)"'
matrix "npm install --offline of a local package" sh -c 'rm -rf node_modules package-lock.json; npm install --offline --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null && ls node_modules'
matrix "npm test (npm's runner)" npm test --no-update-notifier
matrix "python3 -m unittest" python3 -m unittest -q
matrix "pip config list sees /etc's pip.conf" sh -c 'python3 -m pip config list | grep "^global\."'
matrix "go test ./... and go run" sh -c 'go test -count=1 ./... && go run .'
matrix "cargo test --offline" sh -c 'cd rs && cargo test --offline -q 2>&1 | grep "test result"'
matrix "perl's prove" prove t
matrix "ruby and its standard library" ruby m.rb
# ssh -G: what the host's /etc/ssh/ssh_config sets (the user's name and
# home-derived lines differ by design: the sandbox's home)
sshg() { ssh -G example.org 2>/dev/null </dev/null | grep -vE '^(user|identityfile|userknownhostsfile|hostname|certificatefile|controlpath|revokedhostkeys|knownhostscommand) '; }
want=$(ctl sh -c "$(declare -f sshg); sshg")
check_out "linux: ssh -G: the host's ssh_config, as without cordon" "$want" in_box linux sh -c "$(declare -f sshg); sshg"
if is_root_run; then
    # the landlock backend's root command is the sandbox user, which has
    # no passwd entry (no mount namespace to show a generated one)
    check_contains "landlock: as root, ssh refuses the sandbox user (a known limit)" "No user exists" \
        in_box landlock ssh -G example.org
    as_caller() { (cd "$P" && "$CORDON" run --backend landlock --user caller --workspace "$P" -C "$P" -- "$@") 2>&1 | norm; }
    check_out "landlock: ... --user caller gives the control's output" "$want" as_caller sh -c "$(declare -f sshg); sshg"
else
    check_out "landlock: ssh -G: the host's ssh_config, as without cordon" "$want" \
        in_box landlock sh -c "$(declare -f sshg); sshg"
fi
done_testing
