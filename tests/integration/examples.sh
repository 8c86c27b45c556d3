#!/bin/bash
# libcordon as an outside program sees it: the exported symbols, the
# installed copy found through pkg-config, and the two examples in examples/
# (exec-tool: an agent's shell tool; hook: a hook script with a JSON payload)
# driven as an agent would, checked from both sides of the boundary.
. "$(dirname "$0")/lib.sh"

# node parses the examples' JSON (a parse error fails the check).
jget() { # FILE .path  -> the value (strings raw, the rest as JSON)
    node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
             const v = process.argv[2].split(".").slice(1).reduce((a, k) => a == null ? a : a[k], o);
             console.log(typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2"
}
sanitize=$(node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                    console.log((o.find(x => x.name === "b_sanitize") || {}).value || "none")' \
    "$CORDON_BUILD/meson-info/intro-buildoptions.json")
SANFLAGS=
if [ "$sanitize" != none ]; then
    # Sanitizer reports (leaks included) of the examples and the programs
    # built here go to files; the last check wants none.
    SANFLAGS="-fsanitize=$sanitize"
    mkdir -p "$T/san"; chmod 1777 "$T/san"
    export ASAN_OPTIONS="log_path=$T/san/asan" UBSAN_OPTIONS="log_path=$T/san/ubsan:print_stacktrace=1"
fi

# -- the library's surface
nm -D --defined-only "$CORDON_BUILD/libcordon.so" | awk '{print $3}' >"$T/syms"
n=$(grep -c '^cordon_' "$T/syms")
if [ "$n" -ge 40 ]; then ok "control: nm lists the API ($n cordon_* symbols)"; else not_ok "control: nm lists the API ($n cordon_* symbols)"; fi
check_out "libcordon.so exports only cordon_* symbols" "" grep -v '^cordon_' "$T/syms"
# every function the header declares is exported, and nothing else
grep -o '^CORDON_API [^(]*(' "$TOP/include/cordon.h" | sed 's/.*[ *]\(cordon_[a-z0-9_]*\)(/\1/' | sort >"$T/declared"
sort "$T/syms" >"$T/exported"
check_out "the exported symbols are exactly the functions cordon.h declares" "" diff "$T/declared" "$T/exported"
# No global mutable state: nothing of the library's own in .data or .bss
# (constant tables are in .rodata/.data.rel.ro; what is left there belongs
# to the toolchain or to ASan).
own_rw() { objdump -t "$1" | grep -E '[[:space:]]\.(data|bss|tdata|tbss)[[:space:]]' | awk '{print $NF}' |
    grep -v -E '^(\.|completed\.0$|__dso_handle$|__TMC_END__$|__odr_asan\.)' | sort; }
printf 'int counter;\nstatic int hidden = 3;\nint get(void) { return counter + hidden++; }\n' >"$T/mutable.c"
cc -shared -fPIC -o "$T/mutable.so" "$T/mutable.c"
check_out "control: a library with mutable globals shows them" "$(printf 'counter\nhidden')" own_rw "$T/mutable.so"
check_out "libcordon has no mutable global of its own" "" own_rw "$CORDON_BUILD/libcordon.so"
check_contains "the soname is versioned (libcordon.so.0)" "Library soname: [libcordon.so.0]" readelf -d "$CORDON_BUILD/libcordon.so"

# -- the installed copy, through pkg-config (what `make install` puts in PREFIX)
meson install -C "$CORDON_BUILD" --no-rebuild --destdir "$T/dest" >"$T/install.log" 2>&1 ||
    { not_ok "meson install --destdir"; diag <"$T/install.log"; }
pc=$(find "$T/dest" -name cordon.pc | head -1)
aa=$(find "$T/dest" -path '*/share/cordon/apparmor/cordon' | head -1)
check_contains "the AppArmor profile is installed in the data directory, for the installed binary" \
    "profile cordon $(dirname "${aa:-/x}" | sed 's|^'"$T/dest"'||; s|/share/cordon/apparmor$||')/bin/cordon flags=(unconfined) {" \
    cat "${aa:-/nonexistent}"
export PKG_CONFIG_PATH=$(dirname "${pc:-/nonexistent/x}") PKG_CONFIG_SYSROOT_DIR=$T/dest
check_contains "pkg-config finds the installed cordon.pc" "-lcordon" pkg-config --cflags --libs cordon
libdir=$(pkg-config --variable=libdir cordon)
# The program is docs/embedding.md's example, as printed there.
mkdir -p "$T/tiny"
awk '/^# Embedding cordon/ {f = 1} f && /^```c$/ {p = 1; next} p && /^```$/ {exit} p' "$TOP/docs/embedding.md" >"$T/tiny/tiny.c"
check_contains "docs/embedding.md has a complete C example" "int main(void)" cat "$T/tiny/tiny.c"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/tiny"
# shellcheck disable=SC2046
check "a program compiles against the installed header (C11, -pedantic -Werror)" \
    as_user cc -std=c11 -pedantic -Wall -Wextra -Werror $SANFLAGS -o "$T/tiny/tiny" "$T/tiny/tiny.c" \
    $(pkg-config --cflags --libs cordon) -Wl,-rpath,"$libdir"
check_contains "... and links the installed libcordon.so.0" "$libdir/libcordon.so.0" ldd "$T/tiny/tiny"
TINY_OUT=$(printf 'sandbox said: hello from the sandbox\nstatus 3')
inw() { (cd "$W" && as_user "$@"); }
check_out "... and runs a sandbox with it, capturing its output" "$TINY_OUT" inw "$T/tiny/tiny"
# shellcheck disable=SC2046
check "the header compiles as C++ too" as_user g++ -Wall -Wextra -Werror -x c++ -c -o /dev/null "$T/tiny/tiny.c" \
    $(pkg-config --cflags cordon)
static_libs=$(pkg-config --static --libs cordon | sed "s#-lcordon#$libdir/libcordon.a#")
# shellcheck disable=SC2086
check "the static library links with pkg-config --static" \
    as_user cc $SANFLAGS -o "$T/tiny/tiny-static" "$T/tiny/tiny.c" $(pkg-config --cflags cordon) $static_libs
check_out "... and runs a sandbox" "$TINY_OUT" inw "$T/tiny/tiny-static"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# -- the examples (copied with the library, like lib.sh copies the CLI)
mkdir -p "$T/lib"
cp "$CORDON_BUILD/examples/exec-tool" "$CORDON_BUILD/examples/hook" "$CORDON_BUILD/libcordon.so.0" "$T/lib/"
EXEC=$T/lib/exec-tool
HOOK=$T/lib/hook
ex() { (cd "$W" && as_user env LD_LIBRARY_PATH="$T/lib" "$@"); }
exfield() { # .path CMD... -> that field of CMD's JSON output
    local path=$1; shift
    ex "$@" >"$T/.ex.json" 2>/dev/null
    jget "$T/.ex.json" "$path"
}
echo "host secret" >"$T/secret"; chmod 644 "$T/secret"
me=$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0)

# exec-tool: the agent's shell tool
ex "$EXEC" 'echo out; echo err >&2; exit 3' >"$T/e1.json"
check_out "exec-tool: stdout captured" "out" jget "$T/e1.json" .stdout
check_out "exec-tool: stderr captured separately" "err" jget "$T/e1.json" .stderr
check_out "exec-tool: the exit code" "3" jget "$T/e1.json" .exit_code
check_out "exec-tool: not truncated" "false" jget "$T/e1.json" .truncated
check_out "exec-tool: runs as the caller's uid inside" "$me" exfield .stdout "$EXEC" 'id -u'
check_out "control: the shell string reads the host secret unsandboxed" "host secret" as_user sh -c "cat '$T/secret'"
ex "$EXEC" "cat '$T/secret'" >"$T/e2.json"
check_out "exec-tool: the host secret is not visible" "1" jget "$T/e2.json" .exit_code
check_contains "exec-tool: ... cat says it does not exist" "No such file" jget "$T/e2.json" .stderr
check_out "control: OPENAI_API_KEY is set in the agent" "sk-ex" as_user env OPENAI_API_KEY=sk-ex sh -c 'echo $OPENAI_API_KEY'
ex env OPENAI_API_KEY=sk-ex "$EXEC" 'echo "${OPENAI_API_KEY:-absent}"' >"$T/e3.json"
check_out "exec-tool: OPENAI_API_KEY is absent inside" "absent" jget "$T/e3.json" .stdout
ex "$EXEC" --max-bytes 1000 'head -c 200000 /dev/zero | tr "\0" a; echo done >&2' >"$T/e4.json"
check_out "exec-tool: stdout is cut at --max-bytes" "1000" node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).stdout.length)' "$T/e4.json"
check_out "exec-tool: ... the truncated flag is set" "true" jget "$T/e4.json" .truncated
check_out "exec-tool: ... and the command still ran to the end" "done" jget "$T/e4.json" .stderr
ex "$EXEC" 'printf "\377\376 bytes \001\n"' >"$T/e5.json"
check_out "exec-tool: output that is not UTF-8 still gives valid JSON (U+FFFD)" "$(printf '\357\277\275\357\277\275 bytes \001')" jget "$T/e5.json" .stdout
marker=$((800000 + RANDOM))
t0=$(date +%s.%N)
ex "$EXEC" --timeout 1 "sleep $marker & sleep $((marker + 1))" >"$T/e6.json" &
expid=$!
for _ in $(seq 50); do pgrep -f "^sleep $marker" >/dev/null && break; sleep 0.1; done
check "exec-tool: control: the background job runs meanwhile" pgrep -f "^sleep $marker"
wait $expid
t1=$(date +%s.%N)
check_out "exec-tool: --timeout sets timed_out" "true" jget "$T/e6.json" .timed_out
check_out "exec-tool: ... and status 124" "124" jget "$T/e6.json" .status
if node -e "process.exit($t1 - $t0 < 5 ? 0 : 1)"; then ok "exec-tool: ... within 5 s"; else not_ok "exec-tool: ... within 5 s ($t0 -> $t1)"; fi
check_fails "exec-tool: ... and the background job is gone too" pgrep -f "^sleep $marker"
echo '{"isolation": {"network": "wifi"}}' >"$T/bad.json"; chmod 644 "$T/bad.json"
check_status "exec-tool: a bad config exits 125" 125 ex "$EXEC" --config "$T/bad.json" true
ex "$EXEC" --config "$T/bad.json" true >"$T/e7.json"
check_contains "exec-tool: ... with the file, line and key in the error" "bad.json:1:" jget "$T/e7.json" .error

# hook: a JSON payload in, a JSON answer out
mkdir -p "$W/hooks"
cat >"$W/hooks/guard.sh" <<'EOF'
#!/bin/sh
payload=$(cat)
echo "guard: $(printf %s "$payload" | wc -c) bytes" >&2
case $payload in
*'rm -rf'*) printf '{"decision": "deny", "reason": "destructive", "event": %s}\n' "$payload" ;;
*) printf '{"decision": "allow", "bytes": %d}\n' "$(printf %s "$payload" | wc -c)" ;;
esac
EOF
cat >"$W/hooks/snoop.sh" <<EOF
#!/bin/sh
cat >/dev/null
if s=\$(cat '$T/secret' 2>/dev/null); then printf '{"secret": "%s"}\n' "\$s"; else echo '{"secret": null}'; fi
EOF
chmod 755 "$W/hooks/guard.sh" "$W/hooks/snoop.sh"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$W/hooks"
ex "$HOOK" --payload '{"tool": "exec", "command": "rm -rf /"}' ./hooks/guard.sh >"$T/h1.json" 2>"$T/h1.err"
check_out "hook: the answer is read from stdout" "deny" jget "$T/h1.json" .answer.decision
check_out "hook: ... the hook saw the payload on stdin" "rm -rf /" jget "$T/h1.json" .answer.event.command
check_contains "hook: ... its stderr reaches ours" "guard:" cat "$T/h1.err"
check_status "hook: exit 0 for a good answer" 0 ex "$HOOK" --payload '{"tool": "exec", "command": "ls"}' ./hooks/guard.sh
head -c 300000 /dev/zero | tr '\0' x | sed 's/.*/{"blob": "&"}/' >"$T/big.json"; chmod 644 "$T/big.json"
ex "$HOOK" --payload-file "$T/big.json" ./hooks/guard.sh >"$T/h2.json" 2>/dev/null
check_out "hook: a 300 kB payload goes through the pipe whole" "$(wc -c <"$T/big.json")" jget "$T/h2.json" .answer.bytes
check_out "hook: a hook that ignores a large payload still answers" "{}" exfield .answer "$HOOK" --payload-file "$T/big.json" -- sh -c 'echo {}'
check_out "control: the snoop hook reads the host secret unsandboxed" '{"secret": "host secret"}' as_user sh -c "echo '{}' | '$W/hooks/snoop.sh'"
ex "$HOOK" --payload '{}' ./hooks/snoop.sh >"$T/h3.json"
check_out "hook: the host secret is not visible to the hook" "null" jget "$T/h3.json" .answer.secret
ex "$HOOK" --payload '{}' -- sh -c 'echo not json' >"$T/h4.json"
check_contains "hook: an answer that is not JSON is an error" "not JSON" jget "$T/h4.json" .error
check_status "hook: ... exit 1" 1 ex "$HOOK" --payload '{}' -- sh -c 'echo not json'
ex "$HOOK" --timeout 0.5 --payload '{}' -- sh -c 'sleep 30' >"$T/h5.json"
check_out "hook: a hook that does not answer in time is killed" "true" jget "$T/h5.json" .timed_out
ex "$HOOK" --payload '{}' -- sh -c 'exit 2' >"$T/h6.json"
check_out "hook: a failing hook's status" "2" jget "$T/h6.json" .status
check_status "hook: a hook that does not exist exits 127" 127 ex "$HOOK" --payload '{}' ./hooks/missing.sh
if [ "$sanitize" != none ]; then
    check_out "no $sanitize reports (leaks included) from the examples or the programs built here" "" \
        sh -c "ls '$T/san'; cat '$T'/san/* 2>/dev/null"
fi
done_testing
