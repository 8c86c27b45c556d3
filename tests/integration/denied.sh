#!/bin/bash
# What the boundary refused, as data (the record's "denied"), on both
# Linux backends: each case's control runs unsandboxed first (the probe
# succeeds there), then the refusal must appear with its kind, target and
# the flag that would allow it. What an ordinary run sees: the proxy's
# refusals, the landlock backend's call supervisor's, a hidden PATH entry
# on exit 127; with --explain also the reads, writes and executions the
# view refused, while every attack is refused as without it.
# --explain-on-failure: a few lines on stderr when the command fails.
. "$(dirname "$0")/lib.sh"

user_dir() { mkdir -p "$@" && { is_root_run || chown -R $TEST_UID:$TEST_GID "$@"; }; }
mkdir -p "$T/hidden" "$H/.local/bin" "$H/.ssh"
echo hidden >"$T/hidden/file"
echo "registry=https://r.example/" >"$H/.npmrc"
echo "-----BEGIN OPENSSH PRIVATE KEY-----" >"$H/.ssh/id_rsa"
printf '#!/bin/sh\necho tool\n' >"$H/.local/bin/mytool"
chmod 755 "$H/.local/bin/mytool"
user_dir "$T/ro" "$T/own"
echo mine >"$T/own/file"
is_root_run || chown -R $TEST_UID:$TEST_GID "$H" "$T/own"
chmod 644 "$H/.ssh/id_rsa"  # readable by the control (the suggestion is what is checked)
TOOLPATH="$H/.local/bin:$PATH"

# denied_has FILE KIND TARGET SUGGESTION [SEEN_BY]: the record lists it
denied_has() {
    python3 - "$@" <<'EOF'
import json, sys
f, kind, target, sug = sys.argv[1:5]
seen = sys.argv[5] if len(sys.argv) > 5 else None
try:
    d = json.load(open(f))["denied"]
except Exception as e:
    print("no record:", e); sys.exit(1)
for e in d:
    if e["kind"] == kind and e["target"] == target and e["suggestion"] == sug and (seen is None or e["seen_by"] == seen):
        sys.exit(0)
print(json.dumps(d, indent=1)); sys.exit(1)
EOF
}
# denied_count FILE: how many entries
denied_count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["denied"]))' "$1"; }
run_in() { (cd "$W" && as_user env PATH="$TOOLPATH" "$CORDON" run --quiet "$@"); }

check_out "control: the hidden file is readable unsandboxed" "hidden" as_user cat "$T/hidden/file"
check_out "control: ~/.npmrc is readable unsandboxed" "registry=https://r.example/" as_user cat "$H/.npmrc"
check_out "control: the tool runs unsandboxed" "tool" as_user env PATH="$TOOLPATH" sh -c mytool
check_out "control: a file in the directory to expose read-only can be made" "OK" as_user "$PROBE" create "$T/ro/made"
rm -f "$T/ro/made"

check_out "control: a new user namespace can be made unsandboxed" "OK" as_user sh -c 'unshare -Ur true && echo OK'
check_out "control: unshare reaches the kernel unsandboxed (EINVAL for the probe's flag)" "EINVAL" \
    as_user "$PROBE" syscall unshare
# own_file PATH: an empty file of the command's user
own_file() { rm -f "$1" && touch "$1" && { is_root_run || chown $TEST_UID:$TEST_GID "$1"; }; }
own_file "$W/suid"
check_out "control: a set-uid mode can be set unsandboxed" "OK" as_user "$PROBE" chmod-suid "$W/suid"
check_out "control: a set-uid file can be made unsandboxed" "OK" as_user "$PROBE" create-suid "$W/suid2"
rm -f "$W/suid2"
I386=false
[ "$(as_user "$PROBE" syscall getpid-i386 2>&1)" = OK ] && I386=true
# syscall_targets FILE: the targets of the kind syscall entries
syscall_targets() {
    python3 -c 'import json,sys; print(" ".join(e["target"] for e in json.load(open(sys.argv[1]))["denied"] if e["kind"] == "syscall"))' "$1"
}

for b in linux landlock; do
    S=$W/s-$b.json
    # -- every run: a hidden PATH entry on 127, the proxy's refusals
    run_in --backend $b --stats "$S" -- sh -c mytool >/dev/null 2>&1
    check "$b: exit 127 with a hidden PATH entry: denied exec of it, --expose it" \
        denied_has "$S" exec "$H/.local/bin" "--expose $H/.local/bin" exit-status
    run_in --backend $b --stats "$S" -- sh -c 'mytool; exit 1' >/dev/null 2>&1
    check_out "$b: ... only on 127 (another failure does not name it)" 0 denied_count "$S"
    run_in --backend $b --allow-net example.org --stats "$S" -- curl -s -o /dev/null http://other.test:81/ 2>/dev/null
    check "$b: a connect to an unlisted host: denied connect, --allow-net HOST:PORT" \
        denied_has "$S" connect other.test:81 "--allow-net other.test:81" proxy
    run_in --backend $b --allow-net example.org --allow-net other.test:81 --stats "$S" -- \
        curl -s -o /dev/null --max-time 5 http://other.test:81/ 2>/dev/null
    check_out "$b: control: the same connect, listed, is not denied by the allowlist" "" \
        python3 -c 'import json,sys; print(" ".join(e["target"] for e in json.load(open(sys.argv[1]))["denied"] if e["rule"] == "not in the allowlist"))' "$S"
    run_in --backend $b --stats "$S" -- true
    check_out "$b: nothing refused: denied is empty" 0 denied_count "$S"

    # -- --explain: what the ordinary run cannot see
    run_in --backend $b --stats "$S" -- cat "$T/hidden/file" >/dev/null 2>&1
    check_out "$b: without --explain a hidden read is not seen" 0 denied_count "$S"
    run_in --backend $b --explain --stats "$S" -- cat "$T/hidden/file" >/dev/null 2>&1
    check "$b: --explain: a read of a hidden host file: denied read, --expose it" \
        denied_has "$S" read "$T/hidden/file" "--expose $T/hidden/file" explain
    run_in --backend $b --explain --stats "$S" -- sh -c 'cat ~/.npmrc' >/dev/null 2>&1
    inner=$(python3 -c 'import json,sys; print(" ".join(e["target"] for e in json.load(open(sys.argv[1]))["denied"]))' "$S")
    if [ $b = linux ]; then want="--expose '$H/.npmrc:\$HOME/.npmrc'"; else want="--expose $H/.npmrc"; fi
    check "$b: --explain: ~/.npmrc (the sandbox's HOME is its own): the caller's, named" \
        denied_has "$S" read "${inner%% *}" "$want" explain
    run_in --backend $b --explain --stats "$S" -- sh -c 'cat ~/.ssh/id_rsa' >/dev/null 2>&1
    check "$b: --explain: a private key is never suggested" \
        denied_has "$S" read "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["denied"][0]["target"])' "$S")" \
        "cannot be allowed" explain
    run_in --backend $b --explain --expose "$T/ro" --stats "$S" -- "$PROBE" create "$T/ro/x" >/dev/null 2>&1
    check "$b: --explain: a write to a read-only exposure: denied write, --expose DIR:rw" \
        denied_has "$S" write "$T/ro/x" "--expose $T/ro:rw" explain
    run_in --backend $b --explain --stats "$S" -- "$PROBE" create /usr/x >/dev/null 2>&1
    check "$b: --explain: a write to the system: cannot be allowed" \
        denied_has "$S" write /usr/x "cannot be allowed" explain
    # (the landlock backend leaves a hidden PATH entry out of the command's PATH)
    run_in --backend $b --explain --stats "$S" -- sh -c mytool >/dev/null 2>&1
    [ $b = linux ] && check "$b: --explain: the hidden tool itself is named" \
        python3 -c 'import json,sys; sys.exit(not any(e["target"] == sys.argv[2] and e["seen_by"] == "explain" for e in json.load(open(sys.argv[1]))["denied"]))' \
        "$S" "$H/.local/bin/mytool"
    echo '{"isolation": {"explain": true}}' >"$T/explain-$b.json"
    run_in --backend $b --config "$T/explain-$b.json" --stats "$S" -- cat "$T/hidden/file" >/dev/null 2>&1
    check "$b: isolation.explain: true, as the flag" denied_has "$S" read "$T/hidden/file" "--expose $T/hidden/file"

    # -- --explain never widens: each attack refused as without it
    for probe in "read $T/hidden/file" "create $T/hidden/new" "create $T/ro/y" "write /etc/hostname" \
        "read /etc/shadow" "syscall mount" "syscall unshare" "syscall keyctl" "mkdir /usr/cordon-x"; do
        without=$(run_in --backend $b --expose "$T/ro" -- "$PROBE" $probe 2>&1)
        with=$(run_in --backend $b --explain --expose "$T/ro" -- "$PROBE" $probe 2>&1)
        if [ "$with" = "$without" ] && [ "$with" != OK ]; then ok "$b: --explain: $probe refused as without it ($with)"
        else not_ok "$b: --explain: $probe: \"$with\" with, \"$without\" without"; fi
    done
    [ -e "$T/hidden/new" ] && not_ok "$b: a file was made in the hidden directory"

    # -- --explain: the seccomp filter's refusals (kind syscall), each with
    # the errno of every run; an ordinary run does not see them
    for c in "syscall mount:mount" "syscall unshare:unshare" "syscall keyctl:keyctl" "syscall bpf:bpf" \
        "syscall clone-newns:clone" "syscall personality:personality" "atk-socket 40 1 0:socket" \
        "chmod-suid $W/suid:chmod" "create-suid $W/suid2:openat"; do
        probe=${c%:*} name=${c##*:}
        own_file "$W/suid"; rm -f "$W/suid2"
        without=$(run_in --backend $b --stats "$S" -- "$PROBE" $probe 2>&1)
        seen=$(syscall_targets "$S")
        with=$(run_in --backend $b --explain --stats "$S" -- "$PROBE" $probe 2>&1)
        if [ "$with" = "$without" ] && [ "$with" != OK ] && [ -z "$seen" ]; then
            ok "$b: --explain: $probe refused with $with as without it (which notes none)"
        else not_ok "$b: --explain: $probe: \"$with\" with, \"$without\" without (noted without: $seen)"; fi
        check "$b: --explain: $probe: denied syscall $name, cannot be allowed" \
            denied_has "$S" syscall "$name" "cannot be allowed" explain
    done
    [ -e "$W/suid2" ] && not_ok "$b: --explain: a set-id file was made"
    out=$(run_in --backend $b --explain --stats "$S" -- sh -c 'unshare -Ur true && echo made' 2>&1)
    case $out in *made*) not_ok "$b: --explain: unshare -Ur made a user namespace" ;;
        *) ok "$b: --explain: unshare -Ur is refused" ;; esac
    check_out "$b: ... and named" unshare syscall_targets "$S"
    cp "$S" "$W/s-syscall-$b.json"
    # what the filter allows stays allowed, and is not noted
    own_file "$T/own/plain"
    check_out "$b: --explain: a fork, a unix socket, a chmod, a thread (clone3 falls back) as before" \
        "$(printf 'OK\nOK\nthread')" run_in --backend $b --explain --expose-ro "$PROBE" --expose "$T/own:rw" --stats "$S" -- sh -c \
        '(true) & wait && "$1" socket unix && "$1" meta chmod "$2" && python3 -c "
import threading; t = threading.Thread(target=print, args=(\"thread\",)); t.start(); t.join()"' sh "$PROBE" "$T/own/plain"
    check_out "$b: ... nothing noted (not clone3's ENOSYS)" "" syscall_targets "$S"
    if $I386; then
        for call in umount-i386 getpid-i386; do
            without=$(run_in --backend $b -- "$PROBE" syscall $call 2>&1)
            check_out "$b: --explain: i386's $call as without it ($without)" "$without" \
                run_in --backend $b --explain --stats "$S" -- "$PROBE" syscall $call
            check_out "$b: ... not handed over (nothing noted)" "" syscall_targets "$S"
        done
    else skip "$b: i386 calls under --explain" "no ia32 emulation (int \$0x80 fails)"; fi

    # -- --explain-on-failure
    if [ $b = linux ]; then rule="not in the sandbox's view"; else rule="Landlock: outside the plan's paths"; fi
    check_contains "$b: --explain-on-failure: the refusal and the flag after a failure" \
        "cordon: refused read $T/hidden/file ($rule; the host has it): allow it with --expose $T/hidden/file" \
        run_in --backend $b --explain --explain-on-failure -- cat "$T/hidden/file"
    check_out "$b: ... silent on success" "" run_in --backend $b --explain --explain-on-failure -- \
        sh -c "cat $T/hidden/file 2>/dev/null; true"
    out=$(run_in --backend $b --explain -- cat "$T/hidden/file" 2>&1)
    case $out in *"cordon: refused"*) not_ok "$b: without the flag, no summary" ;; *) ok "$b: without the flag, no summary" ;; esac
    echo '{"isolation": {"explain_on_failure": true}}' >"$T/eof-$b.json"
    check_contains "$b: isolation.explain_on_failure, as the flag" "allow it with --expose $H/.local/bin" \
        run_in --backend $b --config "$T/eof-$b.json" -- sh -c mytool
done

# -- the landlock backend's call supervisor, in every run
check_out "control: chmod of one's own file outside the writable paths works unsandboxed" "OK" \
    as_user "$PROBE" meta chmod "$T/own/file"
run_in --backend landlock --stats "$W/s.json" -- "$PROBE" meta chmod "$T/own/file" >/dev/null 2>&1
check "landlock: a chmod outside the writable paths: denied write, --expose FILE:rw" \
    denied_has "$W/s.json" write "$T/own/file" "--expose $T/own/file:rw" supervisor
check_out "landlock: ... and the command saw EPERM" "EPERM" run_in --backend landlock -- "$PROBE" meta chmod "$T/own/file"

# -- the record stays valid with denials in it (the schema's shape)
python3 - "$TOP/schema/stats.schema.json" "$W/s.json" "$W/s-syscall-linux.json" "$W/s-syscall-landlock.json" <<'EOF' && ok "the record's denied matches the schema's required keys" || not_ok "the record's denied matches the schema's required keys"
import json, sys
schema = json.load(open(sys.argv[1]))
item = schema["$defs"]["ran"]["properties"]["denied"]["items"]
for f in sys.argv[2:]:
    for e in json.load(open(f))["denied"]:
        assert set(e) == set(item["required"]), e
        assert e["kind"] in item["properties"]["kind"]["enum"]
        assert e["seen_by"] in item["properties"]["seen_by"]["enum"]
        assert e["kind"] != "syscall" or (e["host_has"] is None and e["suggestion"] == "cannot be allowed"), e
EOF
done_testing
