#!/bin/bash
# The landlock backend and the host's git. Landlock only adds rights, so
# nothing inside a writable directory can be read-only there: the command
# can write the git control files of the user's own repositories, not only
# of ones it makes. The check after the run (src/linux/gitcheck.c) sets
# aside what it made or changed among them. How an attacker would make the
# host's git run something, each below with its control (the same plant,
# isolation disabled, makes the host's git run it):
#   L1  a new hook in the user's .git/hooks (pre-commit: git commit)
#   L2  a new hook run by checkout (post-checkout: git checkout)
#   L3  an existing hook of the user's rewritten in place (its ctime
#       changes, the hooks directory's does not)
#   L4  core.fsmonitor in the user's .git/config (git status, diff, add)
#   L5  core.pager there (git log on a terminal)
#   L6  core.hooksPath there, naming hooks in the workspace (git commit)
#   L7  .git/commondir naming a fake common dir with core.fsmonitor
#   L8  a nested repository with core.fsmonitor and a gitlink to it in the
#       outer index (issue 22, item 4: git status recurses)
#   L9  a detached process that plants after the command exits
#   L10 the launcher killed: the next run checks for it (its journal)
#   (and the user's own edit right before a run is not set aside)
# and what stays: git add, commit, branch, checkout, log, worktree add
# inside set nothing aside; `git config` inside is set aside, and the
# warning says how to take it back.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/lib-git.sh"

box() { local ws=$1; shift; cdn run --backend landlock --workspace "$ws" -C "$ws" "$@"; }
GX="--set GIT_AUTHOR_NAME=t --set GIT_AUTHOR_EMAIL=t@t --set GIT_COMMITTER_NAME=t --set GIT_COMMITTER_EMAIL=t@t"
GC='-c user.name=t -c user.email=t@t'
PLANT='plant() { mkdir -p "$(dirname "$1")" && printf "#!/bin/sh\ntouch %s\n" "$2" >"$1" && chmod +x "$1"; }; '
MON='git config core.fsmonitor "touch $1; false"'
# the host's git in $WS: status, diff, log, add, commit (and $HOST_MORE)
HOST_MORE=
host_work() {
    (cd "$WS" && as_user env GIT_CONFIG_NOSYSTEM=1 HOME="$H" timeout 60 sh -c "git status; git diff; git log -1;
        echo x >>hostfile && git add hostfile && git -c user.name=t -c user.email=t@t commit -qm host; $HOST_MORE") \
        >/dev/null 2>&1
}
# l_run box|unbox NAME RUN: the plant (sh -c RUN sh MARKER), then the host's git
l_run() {
    local how=$1 name=$2 run=$3
    $how "$WS" $GX --stats "$U/$name.json" -- sh -c "$PLANT$run" sh "$MK/$name" >"$T/$name.out" 2>&1
    host_work
}
# l_pair NAME DESC RUN [ASIDE...]: the control, then the attack under
# cordon, the warning and the stats naming each of ASIDE (relative to $WS)
l_pair() {
    local name=$1 desc=$2 run=$3 a; shift 3
    fresh_repo "$name-ctl"; l_run unbox "$name-ctl" "$run"
    check "control: unisolated, $desc runs on the host" ran "$name-ctl"
    fresh_repo "$name"; l_run box "$name" "$run"
    check "landlock: $desc: the host's git runs nothing" not_ran "$name"
    for a in "$@"; do
        check_contains "... the warning names $a" "set aside $WS/$a as" cat "$T/$name.out"
        check_contains "... and --stats git_check" "\"$WS/$a\"" cat "$U/$name.json"
    done
    check "... and the repository works on the host" host_git -C "$WS" log -1
}

l_pair l1 "a new .git/hooks/pre-commit (git commit)" 'plant .git/hooks/pre-commit "$1"' .git/hooks
HOST_MORE='git checkout -q -b other'
l_pair l2 "a new .git/hooks/post-checkout (git checkout)" 'plant .git/hooks/post-checkout "$1"' .git/hooks
HOST_MORE=
# L3: the user's own hook, rewritten in place by run 1
existing_hook() { printf '#!/bin/sh\nexit 0\n' >"$WS/.git/hooks/pre-commit" && chmod 755 "$WS/.git/hooks/pre-commit" && own "$WS"; }
REWRITE='printf "#!/bin/sh\ntouch %s\n" "$1" >.git/hooks/pre-commit'
fresh_repo l3-ctl; existing_hook; sleep 0.1
before=$(stat -c %z "$WS/.git/hooks")
l_run unbox l3-ctl "$REWRITE"
check "control: unisolated, an existing hook rewritten in place runs on the host" ran l3-ctl
check_out "... (control: the rewrite leaves the hooks directory's ctime as it was)" "$before" stat -c %z "$WS/.git/hooks"
fresh_repo l3; existing_hook; sleep 0.1
l_run box l3 "$REWRITE"
check "landlock: an existing hook rewritten in place: the host's commit runs nothing" not_ran l3
check_contains "... the warning names .git/hooks" "set aside $WS/.git/hooks as" cat "$T/l3.out"
check_contains "... and --stats git_check" "\"$WS/.git/hooks\"" cat "$U/l3.json"
l_pair l4 "core.fsmonitor in the user's .git/config (git status)" "$MON" .git/config
# L5: core.pager runs when git's output is a terminal
HOST_MORE='script -qec "git log" /dev/null'
l_pair l5 "core.pager in the user's .git/config (git log on a terminal)" 'git config core.pager "touch $1; cat"' .git/config
HOST_MORE=
l_pair l6 "core.hooksPath in the user's .git/config (git commit)" \
    'plant hk/pre-commit "$1" && git config core.hooksPath "$PWD/hk"' .git/config
l_pair l7 "a .git/commondir naming a fake common dir with core.fsmonitor" \
    'mkdir fake && cp -a .git/objects .git/refs .git/HEAD fake/ && git --git-dir=fake config core.fsmonitor "touch $1; false" &&
     echo ../fake >.git/commondir' .git/commondir
NEST="git init -q sub && cd sub && $MON && git $GC commit -q --allow-empty -m s && cd .."
LINK='git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub'
l_pair l8 "a gitlink to a nested repository with core.fsmonitor (git status)" "$NEST && $LINK" sub/.git/config
# L9: a detached process that plants once the command has exited
LATE_RUN='(setsid sh -c "sleep 1; printf \"#!/bin/sh\\ntouch %s\\n\" \"\$1\" >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit" x "$1" </dev/null >/dev/null 2>&1 &)'
fresh_repo l9-ctl
unbox "$WS" -- sh -c "$LATE_RUN" sh "$MK/l9-ctl" >/dev/null 2>&1; sleep 2; host_work
check "control: unisolated, a detached process's late hook runs on the host" ran l9-ctl
fresh_repo l9
box "$WS" -- sh -c "$LATE_RUN" sh "$MK/l9" >/dev/null 2>&1; sleep 2; host_work
check "landlock: a detached process planting after the command: the host's git runs nothing" not_ran l9
check "... (it died with the run: no hook was written)" test ! -e "$WS/.git/hooks/pre-commit"
# L10: the launcher killed mid-run checks nothing; the next run does
fresh_repo l10
bg_as_user env HOME="$H" "$CORDON" run --backend landlock --workspace "$WS" -C "$WS" -- \
    sh -c "$MON && touch planted; sleep 30" \
    sh "$MK/l10" >/dev/null 2>&1
for _ in $(seq 100); do [ -e "$WS/planted" ] && break; sleep 0.1; done
kill -STOP "$BG_PID"; pkill -9 -P "$BG_PID" 2>/dev/null; kill -9 "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null; sleep 0.5
check "killed launcher: its plant is left unchecked (control)" grep -q fsmonitor "$WS/.git/config"
box "$WS" -- true >"$T/l10.out" 2>&1
check_contains "... the next run sets it aside" "set aside $WS/.git/config" cat "$T/l10.out"
host_work
check "... and the host's git runs nothing" not_ran l10
check "... and the killed run's journal is gone" sh -c "! ls '$H/.cordon/logs/' | grep -q '^gitcheck\.'"
check "... and the hooks, unchanged, stay" test -d "$WS/.git/hooks"

# What stays: the git workflow inside sets nothing aside
fresh_repo ok
printf '#!/bin/sh\nexit 0\n' >"$WS/.git/hooks/pre-commit" && chmod 755 "$WS/.git/hooks/pre-commit" && own "$WS"
box "$WS" $GX --stats "$U/ok.json" -- sh -c 'echo a >a && git add a && git commit -qm a && git branch b1 &&
    git checkout -q b1 && echo b >b && git add b && git commit -qm b && git checkout -q main && git log --oneline >/dev/null &&
    git status >/dev/null && git diff HEAD~1 >/dev/null && git worktree add -q wt -b wtb && cd wt && echo w >w && git add w &&
    git commit -qm w' >"$T/ok.out" 2>&1
RC=$?
if [ "$RC" -eq 0 ] && ! grep -q "git: set aside" "$T/ok.out"; then ok "landlock: git add, commit, branch, checkout, log, worktree add inside set nothing aside"
else not_ok "landlock: git add, commit, branch, checkout, log, worktree add inside set nothing aside (status $RC)"; diag <"$T/ok.out"; fi
check_contains "... --stats: set_aside is empty" '"set_aside": []' cat "$U/ok.json"
check "... the config, hooks and the user's hook are there" test -f "$WS/.git/config" -a -x "$WS/.git/hooks/pre-commit"
check_out "... and the host sees the work" "w" host_git -C "$WS" log -1 --format=%s wtb
# (as root the command is the sandbox user, whose worktree the host's git
# refuses as another user's until told it is safe: its own protection)
if is_root_run; then
    check_contains "... and the host's git refuses the worktree the sandbox user made (dubious ownership)" \
        "dubious ownership" host_git -C "$WS/wt" status
    check "... until told it is safe" host_git -c safe.directory="$WS/wt" -C "$WS/wt" status
else
    check "... and the worktree made inside works on the host" host_git -C "$WS/wt" status
fi
# The user's own edit just before a run (the same tick of the file clock
# as the run's start) is not the command's: nothing set aside, 20 times
EDITS=0
for i in $(seq 20); do
    (cd "$WS" && as_user sh -c 'touch .git/hooks/pre-commit .git/config && exec "$0" run --backend landlock --workspace "$PWD" -- true' \
        "$CORDON") >"$T/edit.out" 2>&1 && ! grep -q "git: set aside" "$T/edit.out" && EDITS=$((EDITS + 1))
done
check_out "landlock: the user's edit of a hook and the config right before each of 20 runs: nothing set aside" 20 echo "$EDITS"
# git config of a key that runs nothing inside (user.name): kept
box "$WS" -- git config user.name inside >"$T/cfg.out" 2>&1
if ! grep -q "git: set aside" "$T/cfg.out" && grep -q inside "$WS/.git/config"; then ok "landlock: git config user.name inside: kept (it runs nothing)"
else not_ok "landlock: git config user.name inside: kept (it runs nothing)"; diag <"$T/cfg.out"; fi
# git config of a key that runs a program inside: set aside after the run, the warning says how to take it back
box "$WS" -- git config core.pager "touch $U/pager-ran" >"$T/cfg.out" 2>&1
check_contains "landlock: git config core.pager inside: set aside after the run" "set aside $WS/.git/config as config.cordon-quarantine" cat "$T/cfg.out"
check_contains "... the warning says how to take it back" "mv $WS/.git/config.cordon-quarantine $WS/.git/config" cat "$T/cfg.out"
check "... taking it back works" as_user mv "$WS/.git/config.cordon-quarantine" "$WS/.git/config"
check "... and the host's git reads it" sh -c "grep -q pager-ran '$WS/.git/config'"
host_git -C "$WS" config --unset core.pager
check "... and works" host_git -C "$WS" status
# cordon check says it
check_contains "cordon check: the landlock backend sets aside git's control files" \
    "git control files the command made or changed are set aside after the run" cordon check --backend landlock
done_testing
