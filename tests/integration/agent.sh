#!/bin/bash
# What an agent gets back from `cordon run`: nothing from cordon on stderr
# when the command succeeds, the reason when it fails (exit 127: the PATH
# entries the view hides), a --stats record for every run (cordon's refusal
# or the command's status, valid against schema/stats.schema.json), one
# secret passed on purpose (--pass-env, shell_environment_policy.pass), and
# text that survives as UTF-8. On both Linux backends.
#
# How a hostile command would use this surface, each tested below:
# - exit 125/126/127 itself to pass for a refusal of cordon's: the record
#   has exit_code and no error;
# - ask the proxy for host names with quotes, invalid UTF-8 or control
#   bytes to break the record a caller parses or forge keys in it: the
#   record parses, holds the name (UTF-8 as is, other bytes \xNN), no more;
# - leave a symlink where --stats points, for a later run that cordon
#   refuses to write through: it is not followed;
# - read a secret the caller did not name: only the named variable passes,
#   the others stay out, and a value never travels in argv (NAME=VALUE is
#   refused).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
SCHEMA=$TOP/schema/stats.schema.json
# jtest FILE EXPR: EXPR (python, the record is o) holds for the JSON in FILE.
jtest() {
    $PY -c 'import json, sys; o = json.load(open(sys.argv[1], encoding="utf-8")); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
# valid FILE: the record is valid against the schema (draft 2020-12).
valid() {
    $PY - "$SCHEMA" "$1" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2], encoding="utf-8")))
EOF
}
# rec DESC FILE EXPR: one record, valid against the schema, and EXPR holds.
rec() {
    if valid "$2" >"$T/.v" 2>&1 && jtest "$2" "$3"; then ok "$1"; else
        not_ok "$1"; { cat "$2"; cat "$T/.v"; } | diag; fi
}
out() { printf '%s' "$W/$1"; } # a stats path the test user can write

# A host directory on PATH that the view does not show, holding a tool.
mkdir -p "$T/hidden-bin"
printf '#!/bin/sh\necho hidden tool ran\n' >"$T/hidden-bin/hidden-tool"
chmod -R a+rX "$T/hidden-bin"
chmod 755 "$T/hidden-bin/hidden-tool"
HPATH="$T/hidden-bin:/usr/bin:/bin"
hp() { (cd "$W" && as_user env PATH="$HPATH" "$@"); }

check_out "control: unsandboxed, a script finds hidden-tool on PATH" "hidden tool ran" hp sh -c hidden-tool

for backend in linux landlock; do
    R="run --backend $backend"
    # ---- quiet on success
    check_contains "$backend: control: --verbose notes the hidden PATH entry" \
        "cordon: note: PATH entries not visible inside" hp "$CORDON" $R --verbose -- true
    hp "$CORDON" $R -- sh -c 'echo out; printf "own\n" >&2' >"$T/so" 2>"$T/se"
    rc=$?
    [ $rc -eq 0 ] && [ "$(cat "$T/so")" = out ] && [ "$(cat "$T/se")" = own ] &&
        ok "$backend: stderr a file, command succeeds: only the command's own bytes there" ||
        { not_ok "$backend: stderr a file, command succeeds: only the command's own bytes there (rc $rc)"; diag <"$T/se"; }
    hp "$CORDON" $R -- true 2>"$T/se"
    check_out "$backend: ... and nothing at all for a silent command" "" cat "$T/se"

    # ---- exit 127: the note comes with the failure it explains
    hp "$CORDON" $R -- sh -c 'hidden-tool' >/dev/null 2>"$T/se"
    rc=$?
    [ $rc -eq 127 ] && ok "$backend: a script calling a command the view hides exits 127" ||
        not_ok "$backend: a script calling a command the view hides exits 127 (got $rc)"
    check_contains "$backend: ... and cordon names the hidden entry and how to bring it" \
        "cordon: note: exit status 127 (a command not found): PATH entries not visible inside" cat "$T/se"
    check_contains "$backend: ... with the --expose that shows it" "$T/hidden-bin (--expose $T/hidden-bin)" cat "$T/se"
    hp "$CORDON" $R --quiet -- sh -c 'hidden-tool 2>/dev/null' 2>"$T/se"
    check_out "$backend: --quiet: not even then" "" cat "$T/se"
    check_out "$backend: with --expose, the script finds it (the note's advice works)" "hidden tool ran" \
        hp "$CORDON" $R --expose "$T/hidden-bin" -- sh -c hidden-tool

    # ---- the record: the command's own 125 is told apart from cordon's
    hp "$CORDON" $R --stats "$(out own.json)" -- sh -c 'exit 125' 2>"$T/se"
    rc=$?
    [ $rc -eq 125 ] && ok "$backend: the command's own exit 125 is cordon's exit status" || not_ok "$backend: own exit 125 (got $rc)"
    rec "$backend: ... its record has exit_code 125 and no error" "$(out own.json)" \
        "o['exit_code'] == 125 and o['status'] == 125 and 'error' not in o"
    check_out "$backend: ... and cordon said nothing" "" cat "$T/se"
    hp "$CORDON" $R --stats "$(out s127.json)" -- sh -c 'exit 127' 2>/dev/null
    rec "$backend: a command's own exit 127: exit_code 127, no error" "$(out s127.json)" \
        "o['exit_code'] == 127 and 'error' not in o"

    # ---- --pass-env: exactly the named variable
    sec() { (cd "$W" && as_user env GITHUB_TOKEN=ghp_named OTHER_SECRET=s3cr3t API_KEY=k "$CORDON" $R "$@" \
        -- sh -c 'echo "${GITHUB_TOKEN-unset} ${OTHER_SECRET-unset} ${API_KEY-unset}"'); }
    check_out "$backend: control: without --pass-env the default excludes drop the token" "unset unset unset" sec
    check_out "$backend: --pass-env GITHUB_TOKEN passes it, the other secrets stay out" "ghp_named unset unset" \
        sec --pass-env GITHUB_TOKEN
    printf '{"shell_environment_policy": {"pass": ["GITHUB_TOKEN"]}}\n' >"$T/pass.json"
    chmod 644 "$T/pass.json"
    check_out "$backend: shell_environment_policy.pass passes it, the others stay out" "ghp_named unset unset" \
        sec --config "$T/pass.json"
    check_out "$backend: pass wins over an exclude and include_only, nothing else comes" "ghp_named unset unset" \
        sec --pass-env GITHUB_TOKEN --exclude 'GITHUB_*' --include-only PATH
    check_out "$backend: --set for the same name still wins" "set unset unset" \
        sec --pass-env GITHUB_TOKEN --set GITHUB_TOKEN=set
done

# ---- refusals: the record holds the error, never an exit_code
check_status "refusal: a bad flag value is cordon's 125" 125 cordon run --stats "$(out bad.json)" --timeout abc -- true
rec "... the record holds the error with the flag, no exit_code" "$(out bad.json)" \
    "o['error']['flag'] == '--timeout' and o['error']['code'] == 125 and o['status'] == 125 and 'exit_code' not in o and 'abc' in o['error']['message']"
cordon run --stats "$(out unk.json)" --no-such-flag -- true 2>/dev/null
rec "refusal: an unknown flag after --stats" "$(out unk.json)" \
    "o['error']['flag'] == '--no-such-flag' and 'exit_code' not in o"
cordon run --no-such-flag --stats "$(out unk2.json)" -- true 2>/dev/null
rec "refusal: --stats after the unknown flag is still written" "$(out unk2.json)" \
    "o['error']['flag'] == '--no-such-flag' and 'exit_code' not in o"
cordon run --stats "$(out noval.json)" --network 2>/dev/null
rec "refusal: a flag without its value" "$(out noval.json)" "o['error']['flag'] == '--network'"
check_status "refusal: a path to expose that does not exist: 125" 125 \
    cordon run --stats "$(out miss.json)" --expose "$T/no-such-dir" -- true
rec "... the record names --expose and the path" "$(out miss.json)" \
    "o['error']['flag'] == '--expose' and '$T/no-such-dir' in o['error']['message'] and 'exit_code' not in o"
printf '{\n  "isolation": {\n    "network": 3\n  }\n}\n' >"$T/badcfg.json"
chmod 644 "$T/badcfg.json"
cordon run --stats "$(out cfg.json)" --config "$T/badcfg.json" -- true 2>/dev/null
rec "refusal: a bad config: file, line, column and key" "$(out cfg.json)" \
    "o['error']['file'] == '$T/badcfg.json' and o['error']['line'] == 3 and o['error']['column'] == 16 and o['error']['key'] == 'isolation.network' and 'flag' not in o['error'] and 'exit_code' not in o"
check_status "refusal: a command not found anywhere: 127" 127 cordon run --stats "$(out nf.json)" -- no-such-command-xyz
rec "... the record says 127 and has no exit_code" "$(out nf.json)" \
    "o['error']['code'] == 127 and o['status'] == 127 and 'exit_code' not in o"
cordon run --stats-fd 3 --timeout abc -- true 3>"$T/fd.json" 2>/dev/null
rec "refusal: --stats-fd gets the record too" "$T/fd.json" "o['error']['flag'] == '--timeout'"
check_contains "refusal: the message is on stderr as before" "cordon: --timeout abc: must be a non-negative number" \
    cordon run --stats "$(out bad.json)" --timeout abc -- true
check_status "--pass-env NAME=VALUE is refused (a value belongs to --set, not argv)" 125 \
    cordon run --stats "$(out pe.json)" --pass-env GITHUB_TOKEN=ghp_x -- true
rec "... naming --set" "$(out pe.json)" "o['error']['flag'] == '--pass-env' and '--set' in o['error']['message']"
check_status "... as is an empty name" 125 cordon run --pass-env "" -- true
check_status "--pass-env with a glob is refused (AWS_* would never match)" 125 cordon run --pass-env 'AWS_*' -- true
check_contains "... saying to list the names" "takes exact variable names, not globs" cordon run --pass-env 'AWS_?' -- true
check_status "control: the exact name passes" 0 cordon run --pass-env AWS_REGION -- true
# a run the command can write to: a symlink it plants at the stats path is
# not followed when a later run is refused
as_user ln -s "$T/victim" "$W/planted.json"
echo intact >"$T/victim"
chmod 666 "$T/victim"
cordon run --stats "$W/planted.json" --timeout abc -- true 2>/dev/null
check_out "refusal: a symlink at the stats path is not followed" "intact" cat "$T/victim"
check "... and is still a symlink" test -L "$W/planted.json"

# ---- the schema has teeth (negative controls for the validator)
printf '{"error": {"message": "x", "code": 125}, "status": 125, "exit_code": 0}\n' >"$T/forged.json"
if valid "$T/forged.json" >/dev/null 2>&1; then not_ok "schema: a record with both error and exit_code is invalid"; else
    ok "schema: a record with both error and exit_code is invalid"; fi
cordon run --stats "$(out ok.json)" -- true
rec "schema: a successful run's record is valid" "$(out ok.json)" "o['exit_code'] == 0 and o['network_denied'] == []"
sed 's/"wall_s"/"wall"/' "$(out ok.json)" >"$T/renamed.json"
if valid "$T/renamed.json" >/dev/null 2>&1; then not_ok "schema: a record missing wall_s is invalid"; else
    ok "schema: a record missing wall_s is invalid"; fi

# ---- warnings that change what a run means are printed, quiet or not
printf '{"isolation": {"enabled": false}}\n' >"$T/off.json"
chmod 644 "$T/off.json"
check_contains "a config that disables isolation still warns on a non-terminal stderr" \
    "cordon: warning: isolation is disabled by $T/off.json" cordon run --config "$T/off.json" -- true

# ---- text: UTF-8 survives, other bytes are escaped, the record parses
ask='import os, socket, sys
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
for host in sys.argv[1:]:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"CONNECT " + os.fsencode(host) + b":443 HTTP/1.1\r\n\r\n")
    s.recv(100)
    s.close()'
for backend in linux landlock; do
    cordon run --backend $backend --allow-net example.org --stats "$(out utf8.json)" -- \
        $PY -c "$ask" "bücher.example" "$(printf 'b\xffq"x.example')" 2>/dev/null
    rec "$backend: a denied non-ASCII name is intact in --stats" "$(out utf8.json)" \
        "[d['host'] for d in o['network_denied']][:1] == ['bücher.example']"
    rec "$backend: ... an invalid byte is \\xNN, a quote stays a quote, nothing else added" "$(out utf8.json)" \
        "[d['host'] for d in o['network_denied']] == ['bücher.example', 'b\\\\xFFq\"x.example'] and set(o['network_denied'][1]) == {'host', 'port', 'reason'}"
    check "$backend: the file itself is UTF-8 (not \\u00c3\\u00bc)" grep -q "bücher.example" "$(out utf8.json)"
done
cordon plan --json -- echo "bücher" "$(printf 'a\xffb')" >"$T/plan.json" 2>/dev/null
check "plan --json keeps UTF-8 arguments and escapes invalid bytes" jtest "$T/plan.json" \
    "o['argv'][1:] == ['bücher', 'a\\\\xFFb']"
# ---- the package database: read-only, and nothing else of /var
lines() { cordon "$@" 2>/dev/null | wc -l; }
pkgs() { cordon "$@" 2>/dev/null | grep -c /; }
if [ -d /var/lib/dpkg ]; then
    n=$(as_user dpkg-query -W | wc -l)
    [ "$n" -gt 10 ] && ok "control: dpkg-query -W lists $n packages unsandboxed" || not_ok "control: dpkg-query -W ($n)"
    check "control: /var/log is listable unsandboxed" as_user ls /var/log
    for backend in linux landlock; do
        check_out "$backend: dpkg-query -W lists the same packages" "$n" lines run --backend $backend -- dpkg-query -W
        check_fails "$backend: /var/lib/dpkg is read-only inside" cordon run --backend $backend -- touch /var/lib/dpkg/cordon-test
        check_fails "$backend: the rest of /var is not readable" cordon run --backend $backend -- ls /var/log
    done
    [ "$TEST_AS" = root ] && check "control: as root, /var/lib/dpkg is writable unsandboxed" test -w /var/lib/dpkg
    check "... and nothing was written there" test ! -e /var/lib/dpkg/cordon-test
    apt_n=$(as_user apt list --installed 2>/dev/null | grep -c /)
    check_out "linux: apt list --installed works in the default view" "$apt_n" pkgs run -- apt list --installed
fi
# ---- git: the identity of ~/.gitconfig, or a note on the failure that says how
GH=$T/git-home
mkdir -p "$GH"
printf '[user]\n\tname = Ada Fixture\n\temail = ada@example.org\n' >"$GH/.gitconfig"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$GH"
gh() { (cd "$W" && as_user env HOME="$GH" CORDON_PROFILE_PATH="$TOP/profiles" "$@"); }
commit='d=$(mktemp -d) && cd "$d" && git init -q && git commit -q --allow-empty -m x && git log --format="%an <%ae>"'
check_out "control: unsandboxed, a commit carries the identity of ~/.gitconfig" "Ada Fixture <ada@example.org>" \
    gh sh -c "$commit"
for backend in linux landlock; do
    gh "$CORDON" run --backend $backend -- sh -c "$commit" >/dev/null 2>"$T/se"
    rc=$?
    [ $rc -eq 128 ] && ok "$backend: without --profile git the commit fails (128)" ||
        not_ok "$backend: without --profile git the commit fails (128; got $rc)"
    advice="--profile git"
    [ $backend = landlock ] && advice="--expose-ro $GH/.gitconfig --set GIT_CONFIG_GLOBAL=$GH/.gitconfig"
    check_contains "$backend: ... and cordon's note says how" \
        "cordon: note: exit status 128: git: $GH/.gitconfig (your identity) is not visible inside: $advice shows it" cat "$T/se"
    check_out "$backend: following it, the commit carries the identity" "Ada Fixture <ada@example.org>" \
        gh "$CORDON" run --backend $backend $advice -- sh -c "$commit"
    gh "$CORDON" run --backend $backend -- git --version >/dev/null 2>"$T/se"
    check_out "$backend: a git command that succeeds gets no note" "" cat "$T/se"
done
gh env CORDON_PROFILE_PATH=/nonexistent "$CORDON" run -- sh -c "$commit" >/dev/null 2>"$T/se"
check_contains "without the git profile installed (a build tree) the note names GIT_CONFIG_GLOBAL" \
    "--expose-ro $GH/.gitconfig --set GIT_CONFIG_GLOBAL=$GH/.gitconfig shows it read-only" cat "$T/se"
check_out "... which works" "Ada Fixture <ada@example.org>" \
    gh env CORDON_PROFILE_PATH=/nonexistent "$CORDON" run --expose-ro "$GH/.gitconfig" --set GIT_CONFIG_GLOBAL="$GH/.gitconfig" -- sh -c "$commit"
check_fails "... read-only: git config --global cannot write it" \
    gh "$CORDON" run --expose-ro "$GH/.gitconfig" --set GIT_CONFIG_GLOBAL="$GH/.gitconfig" -- git config --global user.name Eve
check_out "... the fixture's ~/.gitconfig is unchanged" "Ada Fixture" git config -f "$GH/.gitconfig" user.name
done_testing
