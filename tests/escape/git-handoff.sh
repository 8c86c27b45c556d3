#!/bin/bash
# Where cordon hands over to the host's git (issue 32): what the command
# leaves in a writable mount must not make the host's git run anything.
# Each attack below has a control (the same plant with isolation disabled
# makes the host's git run it), then runs on both Linux backends:
#   H1 a directory with only HEAD and commondir is a repository (git's
#      is_git_directory): commondir names a fake common dir with
#      core.fsmonitor and an alias (git status, git st); the same at the
#      workspace root when the workspace is a subdirectory of the user's
#      repository
#   H2 a submodule git directory deeper than any nesting cap
#      (.git/modules/a/b/c/d/e/f) with a post-checkout hook and
#      core.fsmonitor, adopted by the host's `git submodule update --init`
#   H3 what the user's config names inside the workspace: a husky-style
#      core.hooksPath (.husky/_, git-ignored) whose hook is rewritten, an
#      included config (include.path and includeIf) that gains an alias
#   H4 the set-aside failing open: every quarantine name taken in advance;
#      the planted git directory made read-only (a-w); on the landlock
#      backend the user's own repository: core.fsmonitor, then chmod a-w .git
#   H5 sequencer state: rebase-merge/ with an exec line, `git rebase
#      --continue` on the host
#   H6 a SIGKILL of cordon mid-run: its clean-up helper checks at once,
#      before the caller reading cordon's stderr sees its end
# and what stays (item 7): git init and clone inside set nothing aside.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/lib-git.sh"

box() { local ws=$1; shift; cdn run $BK --workspace "$ws" -C "$ws" "$@"; }
GC='-c user.name=t -c user.email=t@t -c init.defaultBranch=main'
PLANT='plant() { mkdir -p "$(dirname "$1")" && printf "#!/bin/sh\ntouch %s\n" "$2" >"$1" && chmod +x "$1"; }; '
# the host's git in $1: status, st (an alias), log, diff, add, commit, checkout
host_work() {
    (cd "$1" && as_user env GIT_CONFIG_NOSYSTEM=1 HOME="$H" timeout 60 sh -c "git status; git st; git log -1;
        git diff; echo x >>hostfile && git add hostfile && git -c user.name=t -c user.email=t@t commit -qm host;
        git checkout -q -b host-\$\$; $HOST_MORE") >/dev/null 2>&1
}
HOST_MORE=
# pair NAME DESC SETUP RUN [WHERE]: SETUP (a shell function) makes $WS, then
# RUN plants (sh -c RUN sh MARKER) unisolated, the host's git works in
# $WS/WHERE and the marker must appear; then the same under cordon on the
# backend $BK, and it must not.
pair() {
    local name=$1 desc=$2 setup=$3 run=$4 where=${5:-}
    $setup "$name-ctl"
    unbox "$WS" -- sh -c "$PLANT$run" sh "$MK/$name-ctl" >"$T/$name-ctl.out" 2>&1
    host_work "$WS/$where"
    check "control: unisolated, $desc runs on the host" ran "$name-ctl"
    $setup "$name-$B"
    box "$WS" --stats "$U/$name-$B.json" -- sh -c "$PLANT$run" sh "$MK/$name-$B" >"$T/$name-$B.out" 2>&1
    host_work "$WS/$where"
    check "$B: $desc: the host's git runs nothing" not_ran "$name-$B"
    check_contains "... and --stats git_check has nothing left live" '"not_set_aside": []' cat "$U/$name-$B.json"
    check "... and the user's repository works on the host" host_git -C "$WS" log -1
}

# H1: HEAD and commondir make src/ a repository; its common dir .cache/E
# has objects/ (alternates to the user's), refs/ and a config that runs
FAKE='mkdir -p src .cache/E/objects/info .cache/E/refs/heads && echo "$PWD/.git/objects" >.cache/E/objects/info/alternates &&
    git rev-parse HEAD >.cache/E/refs/heads/main && echo "ref: refs/heads/main" >src/HEAD && echo ../.cache/E >src/commondir &&
    printf "[core]\n\tfsmonitor = touch %s; false\n[alias]\n\tst = !touch %s\n" "$1" "$1" >.cache/E/config'
# ... and at the workspace root, the workspace a subdirectory of the user's repo
ROOTFAKE='mkdir -p .cache/E/objects .cache/E/refs/heads && git rev-parse HEAD >.cache/E/refs/heads/main &&
    echo "ref: refs/heads/main" >HEAD && echo .cache/E >commondir &&
    printf "[core]\n\tfsmonitor = touch %s; false\n[alias]\n\tst = !touch %s\n" "$1" "$1" >.cache/E/config'
in_repo() { fresh_repo "$1-outer"; WS=$WS/sub; mkdir -p "$WS"; own "$WS"; }
# H2: a submodule whose git directory is .git/modules/a/b/c/d/e/f
deep_sub() {
    fresh_repo "$1"
    host_git init -q "$WS/srcrepo" && host_git -C "$WS/srcrepo" commit -q --allow-empty -m s
    echo srcrepo >>"$WS/.git/info/exclude"; own "$WS"
}
DEEPSUB='N=a/b/c/d/e/f && mkdir s && git clone -q --bare "$PWD/srcrepo" .git/modules/$N && git --git-dir=.git/modules/$N config core.bare false &&
    git --git-dir=.git/modules/$N config core.worktree ../../../../../../../../s && plant .git/modules/$N/hooks/post-checkout "$1" &&
    git --git-dir=.git/modules/$N config core.fsmonitor "touch $1; false" &&
    printf "[submodule \"%s\"]\n\tpath = s\n\turl = %s\n" "$N" "$PWD/srcrepo" >.gitmodules && git add .gitmodules &&
    git update-index --add --cacheinfo 160000,$(git --git-dir=.git/modules/$N rev-parse HEAD),s'
# H3: husky-style hooks (core.hooksPath = .husky/_, ignored), an include
husky() {
    fresh_repo "$1"
    mkdir -p "$WS/.husky/_" && printf '#!/bin/sh\nexit 0\n' >"$WS/.husky/_/pre-commit" && chmod +x "$WS/.husky/_/pre-commit"
    echo _ >"$WS/.husky/.gitignore"; own "$WS"
    host_git -C "$WS" config core.hooksPath .husky/_
}
HUSKY='printf "#!/bin/sh\ntouch %s\n" "$1" >.husky/_/pre-commit'
include() {
    fresh_repo "$1"
    printf '[user]\n\tname = t\n' >"$WS/.gitconfig.project"; own "$WS"
    host_git -C "$WS" config include.path ../.gitconfig.project
    host_git -C "$WS" config "includeIf.gitdir:$WS/.git.path" ../.gitconfig.cond
}
INCLUDE='printf "[alias]\n\tst = !touch %s\n" "$1" >>.gitconfig.project'
INCLUDEIF='printf "[alias]\n\tst = !touch %s\n" "$1" >.gitconfig.cond'
# H4: the quarantine names taken; the planted git directory read-only
NEWREPO="git init -q nr && git -C nr config core.fsmonitor \"touch \$1; false\" && git -C nr $GC commit -q --allow-empty -m n"
TAKEN="$NEWREPO"' && for i in "" .1 .2 .3 .4 .5 .6 .7 .8 .9; do : >nr/.git/config.cordon-quarantine$i; done'
READONLY="$NEWREPO && chmod a-w nr/.git"
OWNRO='git config core.fsmonitor "touch $1; false" && chmod a-w .git'
# H5: an interactive rebase in progress whose todo runs a program
REBASE='git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two && git checkout -q --detach HEAD~1 && mkdir -p .git/rebase-merge &&
    echo refs/heads/main >.git/rebase-merge/head-name && git rev-parse main >.git/rebase-merge/orig-head &&
    git rev-parse HEAD >.git/rebase-merge/onto && : >.git/rebase-merge/interactive && : >.git/rebase-merge/done &&
    echo 0 >.git/rebase-merge/msgnum && echo 1 >.git/rebase-merge/end &&
    printf "exec touch %s\n" "$1" >.git/rebase-merge/git-rebase-todo'

for B in linux landlock; do
    BK="--backend $B"
    pair h1a "a directory with HEAD and commondir naming a fake common dir (git status, st in it)" fresh_repo "$FAKE" src
    pair h1b "HEAD and commondir at the workspace root in the user's repository (git status, st there)" in_repo "$ROOTFAKE"
    HOST_MORE='git submodule update --init -q; git -C s status'
    pair h2 "a submodule git directory at .git/modules/a/b/c/d/e/f (submodule update --init, status)" deep_sub \
        "$DEEPSUB"
    HOST_MORE=
    pair h3a "a husky-style core.hooksPath hook rewritten (git commit)" husky "$HUSKY"
    pair h3b "an included config (include.path) that gains an alias (git st)" include "$INCLUDE"
    pair h3c "a config includeIf includes, made by the command (git st)" include "$INCLUDEIF"
    pair h4a "a new repository with every quarantine name taken (git status in it)" fresh_repo "$TAKEN" nr
    pair h4b "a new repository made read-only (git status in it)" fresh_repo "$READONLY" nr
    pair h4c "core.fsmonitor in the user's own config, then .git made read-only (git status)" fresh_repo "$OWNRO"
    HOST_MORE='git rebase --continue'
    pair h5 "a rebase todo with an exec line (git rebase --continue)" fresh_repo "$REBASE"
    HOST_MORE=
done


# H6: cordon SIGKILLed mid-run; a caller that reads its stderr to the end
# (as subprocess.communicate, Go's Wait and Node's 'close' do) finds the
# check done: the helper holds stderr until it is
KILLPLANT='git init -q nr && git -C nr config core.fsmonitor "touch $1; false" && touch planted && sleep 30'
# killed NAME [helper [nogit]]: run it, SIGKILL cordon (and with "helper", its
# clean-up helper first), then the host's git in it (not with "nogit")
killed() {
    local name=$1 also=${2:-} nogit=${3:-}
    fresh_repo "$name"
    rm -f "$T/fifo"; mkfifo "$T/fifo"; chmod 666 "$T/fifo"
    cat "$T/fifo" >"$T/$name.out" & local reader=$!
    bg_as_user env HOME="$H" "$CORDON" run $BK --workspace "$WS" -C "$WS" -- sh -c "$KILLPLANT" sh "$MK/$name" \
        2>"$T/fifo" >/dev/null </dev/null
    for _ in $(seq 150); do [ -e "$WS/planted" ] && break; sleep 0.1; done
    # (stopped first: it must not see its sandbox end and check itself)
    [ -n "$also" ] && kill -STOP "$BG_PID" && pkill -9 -P "$BG_PID" 2>/dev/null
    kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
    wait "$reader"
    [ -z "$nogit" ] && host_work "$WS/nr"
}
for B in linux landlock; do
    BK="--backend $B"
    killed "h6-ctl-$B" helper
    check "control: $B, cordon and its helper SIGKILLed: the plant is left unchecked" grep -q fsmonitor "$WS/nr/.git/config"
    killed "h6-$B"
    check "$B: cordon SIGKILLed mid-run: once its stderr ends, the host's git runs nothing" not_ran "h6-$B"
    check_contains "... its helper set the config aside" "set aside $WS/nr/.git/config" cat "$T/h6-$B.out"
    check "... and left no journal" sh -c "! ls '$H/.cordon/logs' | grep -q 'gitcheck\.$BG_PID\.'"
done

# H6b: cordon and its helper both SIGKILLed (a kill of their cgroup): the
# next run of the instance, in another workspace, checks the killed one's
# workspace at once and leaves its own alone
for B in linux landlock; do
    BK="--backend $B"
    killed "h6b-$B" helper nogit
    A=$WS
    check "control: $B, cordon and its helper SIGKILLed: the plant is left unchecked" grep -q fsmonitor "$A/nr/.git/config"
    fresh_repo "h6b-other-$B"
    host_git -C "$WS" config core.pager less
    box "$WS" -- true >"$T/h6b-$B.out" 2>&1
    check_contains "$B: ... the next run, elsewhere, sets the killed run's plant aside" "set aside $A/nr/.git/config" cat "$T/h6b-$B.out"
    check "... and not its own workspace's config" grep -q pager "$WS/.git/config"
    host_work "$A/nr"
    check "... and the host's git in the killed run's workspace runs nothing" not_ran "h6b-$B"
done
# H6c: the killed run (helper too) left a .git symlink into a repository it
# made: the next run there does not refuse to start with the link in place
# and leave it for the host: the killed run is checked first
BK="--backend linux"
fresh_ws() { WS=$T/ws/$1; rm -rf "$WS"; mkdir -p "$WS"; own "$WS"; }
fresh_ws h6c
rm -f "$T/fifo"; mkfifo "$T/fifo"; chmod 666 "$T/fifo"
cat "$T/fifo" >/dev/null &
bg_as_user env HOME="$H" "$CORDON" run $BK --workspace "$WS" -C "$WS" -- sh -c \
    'git init -q --bare real && git --git-dir=real config core.fsmonitor "touch $1; false" && ln -s real .git && touch planted && sleep 30' \
    sh "$MK/h6c" 2>"$T/fifo" >/dev/null </dev/null
for _ in $(seq 150); do [ -e "$WS/planted" ] && break; sleep 0.1; done
kill -STOP "$BG_PID"; pkill -9 -P "$BG_PID"; kill -9 "$BG_PID"; wait "$BG_PID" 2>/dev/null
check "control: the killed run left its .git link" test -L "$WS/.git"
box "$WS" -- true >"$T/h6c.out" 2>&1; rc=$?
check_out "linux: the next run there starts (the link was set aside before it planned)" 0 echo "$rc"
check_contains "... and says so" "set aside $WS/.git" cat "$T/h6c.out"
(cd "$WS" && as_user env GIT_CONFIG_NOSYSTEM=1 HOME="$H" git status >/dev/null 2>&1)
check "... and the host's git there runs nothing" not_ran h6c

# What stays: git init and git clone inside set nothing aside (git's own
# template: sample hooks, default keys, remote.origin)
for B in linux landlock; do
    BK="--backend $B"
    fresh_repo "stay-$B"
    # root's landlock command is the sandbox user: git's local transport
    # drops the environment's safe.directory, so it clones its own
    # repository, not root's (docs/containers.md)
    src='"$PWD"'; [ "$B" = landlock ] && [ "$(id -u)" = 0 ] && src='fresh'
    box "$WS" -- sh -c "git init -q fresh && git -C fresh -c user.name=a -c user.email=a@b commit -q --allow-empty -m one &&
        git clone -q $src clone && git -C fresh remote add origin https://example.org/r.git &&
        git -C fresh config user.name someone" >"$T/stay-$B.out" 2>&1
    if ! grep -q "git: set aside" "$T/stay-$B.out"; then ok "$B: git init, clone, remote add, config user.name inside: nothing set aside"
    else not_ok "$B: git init, clone, remote add, config user.name inside: nothing set aside"; diag <"$T/stay-$B.out"; fi
    # (the sandbox user's clone is another user's to the host's git: its file is read)
    check "... the clone keeps remote.origin" host_git config -f "$WS/clone/.git/config" remote.origin.url
    check "... and its sample hooks" test -e "$WS/clone/.git/hooks/pre-commit.sample"
done
# git config inside fails on the protected .git/config: the note says why and what works
BK="--backend linux"
fresh_repo note
box "$WS" -- git config user.name x >"$T/note.out" 2>&1
check_contains "linux: git config inside fails (status 4): the note says the config is read-only" \
    "$WS/.git/config is read-only inside" cat "$T/note.out"
check_contains "... and what works" "git -c KEY=VALUE" cat "$T/note.out"
box "$WS" -- git -c user.name=x config --get user.name >/dev/null 2>"$T/note2.err"
check_out "... quiet when git succeeds (nothing on stderr)" "" cat "$T/note2.err"
done_testing
