#!/bin/bash
# The reference as installed: man pages, shell completions, the JSON Schemas.
# One source of truth each, so that they cannot drift apart:
# - the flags of `cordon run --help` = those cordon-run(1) documents = those
#   the bash, zsh and fish completions offer (both directions: a flag
#   missing on either side fails);
# - the config keys the parser accepts (src/core/config-parse.c's key tables) =
#   those cordon.json(5) documents = those config.schema.json describes;
# - every config in the repository (profiles, examples, the valid fixtures)
#   is valid against the schema and accepted by cordon; every invalid
#   fixture is rejected by both (the exceptions a schema cannot see listed
#   below, still rejected by cordon);
# - the man pages render without warnings; `meson install --destdir`
#   installs all of it where man, bash-completion, zsh and fish look.
. "$(dirname "$0")/lib.sh"

KEYS="python3 $TOP/tests/helpers/doc-keys.py"
SCHEMA=$TOP/schema/config.schema.json
MAN=$CORDON_BUILD/man
cordon run --help >"$T/help" 2>&1

# same DESC FILE_A FILE_B: the two sorted lists are equal (and not empty)
same() {
    if [ -s "$2" ] && diff "$2" "$3" >"$T/.diff"; then ok "$1 ($(wc -l <"$2") names)"; else
        not_ok "$1"; { echo "< ${2##*/}  > ${3##*/}"; cat "$T/.diff"; } | diag; fi
}

# ---- flags: --help, cordon-run(1), completions
$KEYS help-flags <"$T/help" >"$T/flags.help"
n=$(wc -l <"$T/flags.help")
if [ "$n" -ge 35 ] && grep -qx -- -C "$T/flags.help" && grep -qx -- --stats-fd "$T/flags.help"; then
    ok "control: the flags are read from --help ($n)"; else not_ok "control: the flags are read from --help ($n)"; fi
$KEYS man-flags "$TOP/man/cordon-run.1.scd" >"$T/flags.man"
same "cordon-run(1) documents exactly the flags of cordon run --help" "$T/flags.help" "$T/flags.man"
# negative control: a flag dropped from the man page is seen
grep -v -- '^\*--pids\*' "$TOP/man/cordon-run.1.scd" >"$T/dropped.scd"
if $KEYS man-flags "$T/dropped.scd" | diff -q "$T/flags.help" - >/dev/null; then
    not_ok "control: a flag missing in the man page is seen"; else ok "control: a flag missing in the man page is seen"; fi

# bash: the completion, loaded as bash-completion loads it, for COMP_WORDS
complete_bash() { # WORD... (the last is the one being completed)
    PATH=$T/bin:$PATH CORDON_PROFILE_PATH=$TOP/profiles HOME=$H bash -c '
        . "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cordon
        printf "%s\n" "${COMPREPLY[@]}" | sort -u' bash "$TOP/completions/cordon.bash" cordon "$@"
}
complete_bash run '' | grep -v -x -e --help -e -- >"$T/flags.bash"
same "bash completes the flags of cordon run --help after 'cordon run'" "$T/flags.help" "$T/flags.bash"
check_out "bash completes the commands" "$(printf '%s\n' --help --version check env learn plan profiles run)" complete_bash ''
check_out "bash completes a prefix" "$(printf '%s\n' --pass-env --pids --profile --protect --pty)" complete_bash run --p
for flag in --backend --network --landlock --inherit; do
    $KEYS help-values "$flag" <"$T/help" >"$T/values.help"
    complete_bash run "$flag" '' >"$T/values.bash"
    same "bash completes the values of $flag as --help lists them" "$T/values.help" "$T/values.bash"
done
check_out "bash completes profile names from cordon profiles" "$(printf '%s\n' git go gpg node python rust ssh)" \
    complete_bash plan --profile ''
mkdir -p "$T/cpl/dir-a" && touch "$T/cpl/file-b"
check_out "bash completes directories for --workspace" "$T/cpl/dir-a" complete_bash run --workspace "$T/cpl/"
check_out "bash completes files for --config" "$(printf '%s\n' "$T/cpl/dir-a" "$T/cpl/file-b")" \
    complete_bash env --config "$T/cpl/"
check_out "bash completes the command after --" "truncate" complete_bash run --network none -- truncat

# zsh and fish: syntax, and their flags
check "zsh -n _cordon" zsh -n "$TOP/completions/_cordon"
check "fish -n cordon.fish" fish -n "$TOP/completions/cordon.fish"
sed -n "/^_cordon_run_flags=(/,/^)/p" "$TOP/completions/_cordon" | grep -o -E "(^|[{,'*])-{1,2}[A-Za-z][A-Za-z-]*" |
    grep -o -E -- '-{1,2}[A-Za-z][A-Za-z-]*' | sort -u >"$T/flags.zsh"
same "zsh completes exactly the flags of cordon run --help" "$T/flags.help" "$T/flags.zsh"
grep -F '"$runlike"' "$TOP/completions/cordon.fish" |
    sed -E -n 's/.* -s ([A-Za-z]) -l ([a-z-]+) .*/-\1\n--\2/p; s/.* -l ([a-z-]+) .*/--\1/p' | sort -u >"$T/flags.fish"
same "fish completes exactly the flags of cordon run --help" "$T/flags.help" "$T/flags.fish"
complete_fish() { # LINE: the candidates fish offers, without their descriptions
    PATH=$T/bin:$PATH CORDON_PROFILE_PATH=$TOP/profiles HOME=$H \
        fish --no-config -c "source $TOP/completions/cordon.fish; complete -C '$1'" | cut -f1 | sort -u
}
check_out "fish completes profile names from cordon profiles" "$(printf '%s\n' git go gpg node python rust ssh)" \
    complete_fish 'cordon run --profile '
check_out "fish completes the values of --backend" "$(printf '%s\n' auto landlock linux seatbelt windows)" \
    complete_fish 'cordon plan --backend '
check_out "zsh: _cordon loads as a completion function" "" zsh -f -c "autoload -Uz compinit && compinit -u -D; fpath=($TOP/completions \$fpath); autoload -Uz _cordon && whence -w _cordon >/dev/null"

# ---- config keys: the parser, cordon.json(5), the schema
$KEYS parser-keys "$TOP/src/core/config-parse.c" >"$T/keys.parser"
n=$(wc -l <"$T/keys.parser")
if [ "$n" -ge 29 ] && grep -qx 'isolation.expose_paths\[\].optional' "$T/keys.parser"; then
    ok "control: the keys are read from config-parse.c's tables ($n)"; else not_ok "control: the keys are read from config-parse.c's tables ($n)"; fi
$KEYS man-keys "$TOP/man/cordon.json.5.scd" >"$T/keys.man"
same "cordon.json(5) documents exactly the keys the parser accepts" "$T/keys.parser" "$T/keys.man"
$KEYS schema-keys "$SCHEMA" >"$T/keys.schema"
same "config.schema.json describes exactly the keys the parser accepts" "$T/keys.parser" "$T/keys.schema"

# ---- the schema both ways, against cordon
# valid FILE...: "valid FILE" or "invalid FILE: why", each; a duplicate key
# (which JSON Schema cannot see: the parsed object has one) is invalid JSON
# to this strict loader, as to cordon.
valid() {
    python3 - "$SCHEMA" "$@" <<'PY'
import json, sys, jsonschema
def once(pairs):
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("duplicate key")
    return dict(pairs)
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for f in sys.argv[2:]:
    try:
        e = next(iter(v.iter_errors(json.load(open(f, encoding="utf-8"), object_pairs_hook=once))), None)
        print(f"valid {f}" if e is None else f"invalid {f}: {e.message[:120]}")
    except ValueError as err:
        print(f"invalid {f}: {str(err)[:120]}")
PY
}
accepted() { CORDON_PROFILE_PATH=$TOP/tests/data/config/profiles cordon plan --home "$H/.cordon" --config "$1" -- /bin/true; }
mkdir -p "$H/.cargo/bin" && touch "$H/.gitconfig" && chown -R "$(stat -c %u:%g "$H")" "$H"

good=("$TOP"/profiles/*.json "$TOP"/examples/*.json "$TOP"/tests/data/config/layers/*.json
    "$TOP"/tests/data/config/profiles/{tools,nested}.json)
bad=($(ls "$TOP"/tests/data/config/invalid/*.json | grep -v /source-missing.json) "$TOP"/tests/data/config/profiles/{bad,bad-target,dotdot,names-bad}.json)
# Beyond a schema: what only the host can say (a source that does not
# exist), and a cycle of profiles across files. cordon rejects them.
beyond="invalid/source-missing.json profiles/loop-a.json profiles/loop-b.json"
valid "${good[@]}" >"$T/good" 2>&1
check_out "every profile, example and valid fixture is valid against the schema (${#good[@]})" "" grep -v '^valid ' "$T/good"
valid "${bad[@]}" >"$T/bad" 2>&1
check_out "every invalid fixture is invalid against the schema (${#bad[@]})" "" grep -v '^invalid ' "$T/bad"
for f in $beyond; do
    check_out "schema: ${f##*/} is beyond it (valid JSON as far as a schema sees)" "valid $TOP/tests/data/config/$f" \
        valid "$TOP/tests/data/config/$f"
done
nok=0
for f in "${good[@]}"; do accepted "$f" >/dev/null 2>"$T/.err" || { nok=$((nok + 1)); echo "$f: $(cat "$T/.err")"; }; done >"$T/good.cordon"
check_out "cordon accepts every config the schema accepts (${#good[@]})" "" cat "$T/good.cordon"
for f in "${bad[@]}" $(printf "$TOP/tests/data/config/%s " $beyond); do
    accepted "$f" >/dev/null 2>&1; s=$?
    [ $s -eq 125 ] || echo "$f: status $s"
done >"$T/bad.cordon"
check_out "cordon rejects every invalid fixture, with exit status 125 ($((${#bad[@]} + 3)))" "" cat "$T/bad.cordon"
# the schema has teeth: each kind of mistake, checked against cordon too
teeth() { # DESC JSON
    printf '%s\n' "$2" >"$T/teeth.json"
    if valid "$T/teeth.json" | grep -q '^invalid ' && { accepted "$T/teeth.json" >/dev/null 2>&1; [ $? -eq 125 ]; }; then
        ok "schema and cordon reject $1"; else not_ok "schema and cordon reject $1"; valid "$T/teeth.json" | diag; fi
}
teeth "an unknown key in isolation" '{"isolation": {"netwrk": "none"}}'
teeth "a read-write source under /etc" '{"isolation": {"expose_paths": [{"source": "/etc", "mode": "rw"}]}}'
teeth "a read-write source that is /" '{"isolation": {"expose_paths": [{"source": "/", "target": "/h", "mode": "rw"}]}}'
teeth "a workspace under /dev" '{"isolation": {"workspace": "//dev/./sda"}}'
teeth "a fractional pid count" '{"isolation": {"limits": {"pids": 1.5}}}'
teeth "a port above 65535" '{"isolation": {"network_allow": ["example.org:65536"]}}'
teeth "a target under /proc" '{"isolation": {"expose_paths": [{"source": "/usr", "target": "/./proc/1"}]}}'
printf '{"isolation": {"workspace": "/dev/shm", "expose_paths": [{"source": "/dev/shm", "target": "/s", "mode": "rw"}],
  "limits": {"memory_bytes": "1.5G", "cpu_quota": 0.5}, "network_allow": ["*.example.org:8443", "[::1]:80", "10.0.0.0/8"]}}\n' >"$T/edge.json"
check_out "schema: /dev/shm may be writable, sizes, fractions, hosts" "valid $T/edge.json" valid "$T/edge.json"
check_status "cordon: the same config is accepted" 0 accepted "$T/edge.json"

# ---- the man pages
for page in cordon.1 cordon-run.1 cordon.json.5; do
    check_out "man --warnings renders $page without a warning" "" \
        sh -c 'MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null' sh "$MAN/$page"
done
check_contains "cordon-run(1) renders its flags" "--stats-fd" env MANWIDTH=80 man -l "$MAN/cordon-run.1"
check_contains "cordon.json(5) renders its keys" "isolation.expose_paths[].optional" env MANWIDTH=80 man -l "$MAN/cordon.json.5"

# ---- install into a DESTDIR (as root: the build directory is root's)
if is_root_run; then
    prefix=$(python3 -c 'import json,sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "prefix"))' \
        "$CORDON_BUILD/meson-info/intro-buildoptions.json")
    datadir=$(python3 -c 'import json,sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "datadir"))' \
        "$CORDON_BUILD/meson-info/intro-buildoptions.json")
    mandir=$(python3 -c 'import json,sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "mandir"))' \
        "$CORDON_BUILD/meson-info/intro-buildoptions.json")
    check "meson install --destdir" meson install -C "$CORDON_BUILD" --no-rebuild --quiet --destdir "$T/dest"
    D=$T/dest$prefix
    missing=
    for f in bin/cordon "$mandir"/man1/cordon.1 "$mandir"/man1/cordon-run.1 "$mandir"/man5/cordon.json.5 \
        "$datadir"/bash-completion/completions/cordon "$datadir"/zsh/site-functions/_cordon \
        "$datadir"/fish/vendor_completions.d/cordon.fish \
        "$datadir"/cordon/schema/config.schema.json "$datadir"/cordon/schema/stats.schema.json \
        "$datadir"/cordon/profiles/git.json include/cordon.h; do
        [ -s "$D/$f" ] || missing="$missing $f"
    done
    check_out "the DESTDIR holds the binary, man pages, completions, schemas, profiles, header" "" echo $missing
    check_out "the installed man page is the built one" "" cmp "$MAN/cordon.1" "$D/$mandir/man1/cordon.1"
    check_contains "man finds the installed pages by name" "cordon-run - run a command" \
        env MANPATH="$D/$mandir" MANWIDTH=80 man cordon-run
fi

echo "1..$_n"
