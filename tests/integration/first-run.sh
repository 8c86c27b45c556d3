#!/bin/bash
# What a coding agent's shell tool hits on its first run, each checked
# against the same command without cordon (the control): the locale and the
# terminal, the usual /etc, toolchains and git identity through profiles,
# a terminal of its own.
. "$(dirname "$0")/lib.sh"
unset LC_ALL LC_CTYPE LANGUAGE

# Both sides of one probe: unsandboxed it prints WANT, sandboxed too.
both_out() { # DESC WANT CMD...
    local d=$1 want=$2; shift 2
    check_out "$d (control, without cordon)" "$want" as_user "$@"
    check_out "$d" "$want" cordon run -- "$@"
}

# -- 1. the locale and the terminal are kept by the core template
u8=$(printf 'h\303\251llo w\303\266rld')
export LANG=C.UTF-8 TERM=xterm-256color TZ=UTC
both_out "wc -m counts characters of UTF-8 text under LANG=C.UTF-8" 11 sh -c "printf '%s' '$u8' | wc -m"
both_out "TERM, LANG and TZ reach the command" "xterm-256color C.UTF-8 UTC" sh -c 'echo "$TERM $LANG $TZ"'
check_out "... and LC_* with them" "C.UTF-8" env LC_CTYPE=C.UTF-8 "$CORDON" run -- sh -c 'echo "$LC_CTYPE"'
check_out "--inherit none still drops them" "" cordon run --inherit none -- /bin/sh -c 'echo $LANG$TERM$TZ'

# -- 2. /etc: what describes the system, never credentials
os_id=$(. /etc/os-release && echo "$ID")
both_out ". /etc/os-release (a link into /usr/lib on Debian)" "$os_id" sh -c '. /etc/os-release && echo "$ID"'
both_out "getent services https" "https 443/tcp" sh -c 'getent services https | tr -s " "'
both_out "getent protocols tcp" "tcp 6 TCP" sh -c 'getent protocols tcp | tr -s " "'
if command -v python3 >/dev/null; then
    both_out "python3 socket.getservbyname('https')" 443 python3 -c 'import socket; print(socket.getservbyname("https"))'
else not_ok "python3 is missing (scripts/deps.sh test installs it)"; fi
if command -v man >/dev/null && man -w ls >/dev/null 2>&1; then
    both_out "man -w ls (reads /etc/manpath.config)" "$(man -w ls)" man -w ls
else not_ok "man -w ls needs man-db and coreutils' pages (scripts/deps.sh test)"; fi
both_out "/etc/profile and /etc/bash.bashrc are there for login shells" yes \
    sh -c 'test -r /etc/profile && test -r /etc/bash.bashrc && echo yes'
for f in /etc/shadow /etc/sudoers /etc/machine-id /etc/passwd-; do
    [ -e $f ] || continue
    check "$f exists on the host (control)" as_user test -e $f
    check_out "$f is not visible inside" "ENOENT" cordon run -- "$PROBE" stat $f
done
check "os-release inside is read-only" cordon run -- sh -c '! sh -c "echo x >>/etc/os-release" 2>/dev/null'

# -- 3. profiles: toolchains and git identity from the caller's home
export CORDON_PROFILE_PATH=$TOP/profiles
FH=$T/fixture-home                      # HOME=FH: "~/" in profiles
mkdir -p "$FH/.cargo/bin" "$FH/.rustup/toolchains/stable/bin"
printf '[user]\n\tname = Ada Fixture\n\temail = ada@example.org\n' >"$FH/.gitconfig"
printf '#!/bin/sh\necho "cargo 1.99.0 $CARGO_HOME $RUSTUP_HOME"\n' >"$FH/.cargo/bin/cargo"
chmod 755 "$FH/.cargo/bin/cargo"
printf '#!/bin/sh\n[ -d "$RUSTUP_HOME" ] || { echo "error: rustup home not found" >&2; exit 1; }\n' >"$FH/.cargo/bin/rustup-ish"
chmod 755 "$FH/.cargo/bin/rustup-ish"
# a program only ~/.cargo/bin has (Debian's cargo may be in /usr/bin too)
cp "$FH/.cargo/bin/cargo" "$FH/.cargo/bin/cargo-fixture"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$FH"
fh() { (cd "$W" && as_user env HOME="$FH" PATH="$FH/.cargo/bin:/usr/bin:/bin" "$@"); }
commit='d=$(mktemp -d -p "$HOME") && cd "$d" && git init -q && git commit -q --allow-empty -m x && git log --format="%an <%ae>"'
check_out "git commit carries the identity of ~/.gitconfig (control, without cordon)" \
    "Ada Fixture <ada@example.org>" fh sh -c "$commit"
check_fails "git commit without --profile git: no identity" fh "$CORDON" run -- sh -c "$commit"
check_out "git commit with --profile git carries it" "Ada Fixture <ada@example.org>" \
    fh "$CORDON" run --profile git -- sh -c "$commit"
check_fails "... read-only: git config --global cannot write" \
    fh "$CORDON" run --profile git -- git config --global user.name Eve
check_out "the fixture's ~/.gitconfig is unchanged" "Ada Fixture" git config -f "$FH/.gitconfig" user.name
check_out "cargo runs without cordon (control)" "cargo 1.99.0  " fh cargo
check_status "without --profile rust: cargo-fixture (run by a shell) not found" 127 fh "$CORDON" run -- sh -c cargo-fixture
check_contains "... and cordon says which profile would bring its PATH entry" \
    "exit status 127 (a command not found): PATH entries not visible inside: $FH/.cargo/bin (--profile rust)" \
    fh "$CORDON" run -- sh -c cargo-fixture
no_note() { fh "$CORDON" run -- sh -c "$1" 2>&1; }
check_out "exit 127 where no lookup of a hidden program failed (sh -c 'exit 127'): no note" "" no_note 'exit 127'
check_out "... nor for a program no PATH entry has (sh's own message only)" "sh: 1: cordon-nowhere: not found" \
    no_note cordon-nowhere
check_contains "control: the same exit with a word naming the hidden program gets it" \
    "PATH entries not visible inside: $FH/.cargo/bin" no_note 'cargo-fixture; exit 127'
# an executable exposed on its own from a directory a profile exposes: a
# note names the profile when it fails (cordon never applies it itself)
check_status "cargo auto-exposed from ~/.cargo/bin runs (exit 0)" 0 fh "$CORDON" run -- cargo
exe_note() { fh "$CORDON" run "$@" -- rustup-ish 2>&1; }
check_contains "a program of ~/.cargo/bin that fails without ~/.rustup: the note names --profile rust and ~/.rustup" \
    "$FH/.cargo/bin was exposed for the command on its own: --profile rust brings what it needs with it ($FH/.rustup)" \
    exe_note
check_out "control: with --profile rust it runs, no note" "" exe_note --profile rust
check_contains "... with --verbose also when nothing failed" \
    "PATH entries not visible inside: $FH/.cargo/bin (--profile rust)" fh "$CORDON" run --verbose -- true
# The note is named with the profiles only when it is shown: a run that
# succeeds reads no profile (strace lists the files opened); the same run
# with --verbose, which shows the note, reads them (control).
profiles_read() {
    fh strace -f -e trace=open,openat -o "$FH/strace.out" "$CORDON" run "$@" -- true 2>/dev/null
    grep -c 'rust\.json' "$FH/strace.out" || true
}
check_out "a run that succeeds reads no profile for the note" 0 profiles_read
check_out "... one that shows the note reads them (control)" 1 profiles_read --verbose
# A profile in a directory the command can write to is never what the note
# suggests (the command may have planted it): the same profile elsewhere is
# (control).
mkdir -p "$W/ws/prof" "$T/prof"
printf '{"isolation": {"expose_paths": [{"source": "~/.cargo/bin", "mode": "ro"}]}}\n' >"$T/prof/planted.json"
cp "$T/prof/planted.json" "$W/ws/prof/planted.json"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$W/ws"
note_with() { fh env CORDON_PROFILE_PATH="$1:$TOP/profiles" "$CORDON" run --workspace "$W/ws" -- sh -c cargo-fixture 2>&1; }
check_contains "a profile outside the writable paths is suggested (control)" \
    "$FH/.cargo/bin (--profile planted)" note_with "$T/prof"
check_contains "one in the workspace is not" "$FH/.cargo/bin (--profile rust)" note_with "$W/ws/prof"
run_q() { fh "$CORDON" run --quiet -- sh -c 'cargo-fixture 2>/dev/null' 2>&1; }
check_out "--quiet: no note, not even on exit 127" "" run_q
check_out "with --profile rust: cargo runs, RUSTUP_HOME the real one, CARGO_HOME in the instance" \
    "cargo 1.99.0 $FH/.cordon/runtime-user-env/home/.cargo $FH/.rustup" fh "$CORDON" run --profile rust -- sh -c cargo
check_out "~/.cargo/bin is read-only inside" "EROFS" fh "$CORDON" run --profile rust -- "$PROBE" create "$FH/.cargo/bin/evil"
check "... writable without cordon (control)" fh touch "$FH/.cargo/bin/evil"
check "control: ~/.gitconfig is there on the host" fh test -e "$FH/.gitconfig"
check_out "the rest of the home stays invisible" "ENOENT" fh "$CORDON" run --profile rust -- "$PROBE" stat "$FH/.gitconfig"
check_contains "cordon profiles lists what each exposes" "expose ~/.cargo/bin ro (optional)" cordon profiles
check_fails_profile() { fh "$CORDON" run --profile nope -- true; [ $? -eq 125 ]; }
check "an unknown profile is cordon's own failure (125)" check_fails_profile

done_testing
