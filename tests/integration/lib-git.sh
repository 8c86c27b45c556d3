# Sourced after lib.sh by the suites that attack the host's git through
# what the command leaves (tests/escape/landlock-git.sh, git-handoff.sh):
#   MK          markers: a planted command that ran on the host touches $MK/NAME
#   U           the test user's scratch (stats records)
#   OFF         a config that disables isolation (the controls)
#   own PATH... the test user's (as lib.sh's TEST_AS says)
#   cdn ARGS... cordon as the test user from $W, never hanging
#   unbox WS ARGS...  the same run with isolation disabled (the control)
#   host_git ARGS...  the host's git as the test user, no system config
#   fresh_repo NAME   a new repository with one commit: $WS
#   ran NAME, not_ran NAME: did the marker appear?
MK=$T/marks
U=$T/u
mkdir -p "$MK" "$U" "$T/ws"
OFF=$T/unisolated.json
echo '{"isolation": {"enabled": false}}' >"$OFF"
chmod 644 "$OFF"
own() { if [ "$TEST_AS" = user ]; then chown -R $TEST_UID:$TEST_GID "$@"; fi; }
own "$MK" "$U" "$T/ws"
cdn() { (cd "$W" && as_user timeout -k 5 60 "$CORDON" "$@"); }
unbox() { local ws=$1; shift; cdn run --config "$OFF" --workspace "$ws" -C "$ws" "$@"; }
host_git() {
    as_user env GIT_CONFIG_NOSYSTEM=1 HOME="$H" timeout 60 git -c user.name=t -c user.email=t@t \
        -c init.defaultBranch=main -c protocol.file.allow=always "$@"
}
fresh_repo() {
    WS=$T/ws/$1; rm -rf "$WS"; mkdir -p "$WS"; own "$WS"
    host_git init -q "$WS" && host_git -C "$WS" commit -q --allow-empty -m init
}
ran() { test -e "$MK/$1"; }
not_ran() { test ! -e "$MK/$1"; }
