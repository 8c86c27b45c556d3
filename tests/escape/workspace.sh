#!/bin/bash
# Workspace attacks: what a hostile command leaves in a writable mount for
# the host (git) or for the next run's launcher to trip over. Every attack
# takes two runs: run 1 plants inside `cordon run`, then the host or run 2
# acts, and the check is that nothing leaked or ran. Each attack has its
# negative control first: the same steps with isolation disabled (a config
# layer {"isolation": {"enabled": false}}) show the effect.
#
# The workspace is used the way the README's shell tool uses it:
#   cordon run --workspace "$PROJECT" -C "$PROJECT" -- sh -c "$CMD"
# The secrets live in $T/outside: readable by the test user, never exposed.
#
#   A  git control files in every writable mount (pinned .git, read-only
#      hooks/config/commondir/info, submodules, worktrees)   linux only
#   B  .git replaced by a symlink between runs                linux, landlock
#   C  a symlink planted as a protected path                  linux, landlock
#   D  --expose of a path that run 1 made a symlink           linux, landlock
#   E  the working directory through a planted link           linux, landlock
#   F  the executable through a planted link                  linux, landlock
#   G  the launcher never writes through links (placeholders, --stats)
#   H  skills/ read-only, logs/ hidden
#   I  race: the executable swapped while another sandbox plans
#   J  the git workflow still works inside on a protected repo
#   M  repositories the command makes, which the host's git reaches     linux only
#
# The landlock backend has no mounts, so it cannot pin .git nor keep the
# protected paths read-only (it says so with a warning, checked below and
# in defence.sh): A and G(a) run on the linux backend only.
. "$(dirname "$0")/../integration/lib.sh"

OUT=$T/outside   # the host's secrets: never visible inside
MK=$T/marks      # markers: a hook that ran on the host touches $MK/NAME
U=$T/u           # host-side scratch of the test user (repos, worktrees)
mkdir -p "$OUT/d" "$OUT/repo" "$MK" "$U" "$T/ws"
echo "host secret" >"$OUT/secret"
echo "host secret conf" >"$OUT/conf.json"
echo "second secret" >"$OUT/d/secret2"
printf '#!/bin/sh\ncat %s\n' "$OUT/d/secret2" >"$OUT/d/tool"
chmod 755 "$OUT/d/tool"
OFF=$T/unisolated.json
echo '{"isolation": {"enabled": false}}' >"$OFF"
chmod 644 "$OFF"
own() { if [ "$TEST_AS" = user ]; then chown -R $TEST_UID:$TEST_GID "$@"; fi; }
own "$OUT" "$MK" "$U"

# ---- helpers --------------------------------------------------------------------------------

# cordon, as the test user from $W, never hanging
cdn() { (cd "$W" && as_user timeout -k 5 60 "$CORDON" "$@"); }
# box WS [FLAGS] -- CMD...: sandboxed in the workspace WS, cwd WS (the shell tool)
box() { local ws=$1; shift; cdn run --workspace "$ws" -C "$ws" "$@"; }
# unbox WS [FLAGS] -- CMD...: the same, isolation disabled (negative controls)
unbox() { local ws=$1; shift; cdn run --config "$OFF" --workspace "$ws" -C "$ws" "$@"; }
# fresh_ws NAME: $WS is a new empty workspace owned by the test user
fresh_ws() { WS=$T/ws/$1; rm -rf "$WS"; mkdir -p "$WS"; own "$WS"; }
# host git, as the test user, with no system or global config
host_git() {
    as_user env GIT_CONFIG_NOSYSTEM=1 timeout 60 git -c user.name=t -c user.email=t@t \
        -c init.defaultBranch=main -c protocol.file.allow=always "$@"
}
# fresh_repo NAME: $WS is a new workspace holding a repository with one commit
fresh_repo() { fresh_ws "$1"; host_git init -q "$WS" && host_git -C "$WS" commit -q --allow-empty -m init; }
# a new repository with one commit at DIR (host side)
host_repo() { host_git init -q "$@" && host_git -C "${@: -1}" commit -q --allow-empty -m init; }
# the host commits in DIR (its pre-commit hook, if any, runs)
host_commit() { host_git -C "$1" commit -q --allow-empty -m x >/dev/null 2>&1; }
ran() { test -e "$MK/$1"; }
not_ran() { test ! -e "$MK/$1"; }
# Shell text for run 1: plant FILE MARKER writes an executable hook that
# touches MARKER (a host path: the hook is meant to run on the host).
PLANT='plant() { mkdir -p "$(dirname "$1")" && printf "#!/bin/sh\ntouch %s\n" "$2" >"$1" && chmod +x "$1"; }; '

# capture CMD...: run it, keep stdout+stderr in $T/.out and the status in $RC
capture() { "$@" >"$T/.out" 2>&1; RC=$?; }
# the last capture was refused by cordon: status 125 and a message naming the symlink
refused() {
    if [ "$RC" -eq 125 ] && grep -qi symlink "$T/.out"; then ok "$1"; else
        not_ok "$1 (status $RC)"; diag <"$T/.out"; fi
}
# the last capture did not / did print NEEDLE
hides() { if grep -qF -- "$2" "$T/.out"; then not_ok "$1"; diag <"$T/.out"; else ok "$1"; fi; }
shows() { if grep -qF -- "$2" "$T/.out"; then ok "$1"; else not_ok "$1 (no \"$2\")"; diag <"$T/.out"; fi; }
# the last capture exited with status N
status_is() { if [ "$RC" -eq "$2" ]; then ok "$1"; else not_ok "$1 (status $RC)"; diag <"$T/.out"; fi; }
# the last capture failed (any non-zero status)
failed() { if [ "$RC" -ne 0 ]; then ok "$1"; else not_ok "$1 (status 0)"; diag <"$T/.out"; fi; }
# check_denied DESC CMD...: the probe printed an errno name (anything but OK)
check_denied() {
    local d=$1; shift
    local got; got=$("$@" 2>"$T/.err")
    case "$got" in E[A-Z]*) ok "$d ($got)";; *) not_ok "$d ($got)"; diag <"$T/.err";; esac
}
# (a missing protected file may have a read-only placeholder: creating it
# fails with EEXIST, writing it with EROFS; either is a denial)
# check_ro DESC CMD...: the probe printed EROFS
check_ro() { local d=$1; shift; check_out "$d" EROFS "$@"; }
# the sources of the mounts (or Landlock rules) of the last captured plan
plan_sources() { awk '($1 == "ro" || $1 == "rw") && $3 == "->" {print $2}' "$T/.out"; }
# the last captured plan exposes nothing under $OUT
exposes_nothing_outside() {
    if plan_sources | grep -q "^$OUT"; then not_ok "$1"; plan_sources | grep "^$OUT" | diag; else ok "$1"; fi
}

# ---- A. git control files in every writable mount (linux) -----------------------------------

# A0. the pin and the read-only files, probe by probe
fresh_repo a0-ctl
check_out "control: unisolated, .git can be renamed" OK unbox "$WS" -- "$PROBE" rename "$WS/.git" "$WS/.g"
check_out "control: unisolated, .git/hooks is writable" OK unbox "$WS" -- "$PROBE" create "$WS/.g/hooks/x"
check_out "control: unisolated, .git/commondir can be created" OK unbox "$WS" -- "$PROBE" create "$WS/.g/commondir"
fresh_repo a0-ctl2
check_out "control: unisolated, rm -rf .git removes it" GONE \
    unbox "$WS" -- sh -c 'rm -rf .git; test -e .git && echo KEPT || echo GONE'

fresh_repo a0
check_denied "workspace: mv .git .g fails (.git is pinned)" box "$WS" -- "$PROBE" rename "$WS/.git" "$WS/.g"
check "... and .git is still the repository on the host" test -d "$WS/.git" -a ! -L "$WS/.git" -a ! -e "$WS/.g"
fresh_repo a0-rm
check_out "workspace: rm -rf .git cannot remove .git" KEPT \
    box "$WS" -- sh -c 'rm -rf .git 2>/dev/null; test -d .git && echo KEPT || echo GONE'
fresh_repo a0
check_ro "workspace: .git/hooks/x cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/hooks/x"
[ -e "$WS/.git/hooks/pre-commit.sample" ] || as_user touch "$WS/.git/hooks/pre-commit.sample"
check_ro "workspace: a hook cannot be renamed into place in .git/hooks" \
    box "$WS" -- "$PROBE" rename "$WS/.git/hooks/pre-commit.sample" "$WS/.git/hooks/pre-commit"
check_ro "workspace: .git/config cannot be changed" box "$WS" -- "$PROBE" append "$WS/.git/config" "[core] hooksPath = /tmp"
check_ro "workspace: .git/info/x cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/info/x"
check_ro "workspace: .git/info/exclude cannot be changed" box "$WS" -- "$PROBE" append "$WS/.git/info/exclude"
check_denied "workspace: a missing .git/commondir cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/commondir"
check_out "workspace: a missing .git/commondir cannot be written by the shell" FAIL \
    box "$WS" -- sh -c 'echo ../fake 2>/dev/null >.git/commondir && echo OK || echo FAIL'
check "... and no .git/commondir is left on the host" test ! -e "$WS/.git/commondir" -a ! -L "$WS/.git/commondir"
check_denied "workspace: a missing .git/config.worktree cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/config.worktree"
check "... and no .git/config.worktree is left on the host" test ! -e "$WS/.git/config.worktree" -a ! -L "$WS/.git/config.worktree"
rm -rf "$WS/.git/info"
check_denied "workspace: a missing .git/info cannot be created" box "$WS" -- "$PROBE" mkdir "$WS/.git/info"
check_ro "workspace: a missing .git/info/attributes cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/info/attributes"
check "... and no .git/info is left on the host" test ! -e "$WS/.git/info"
check "... and git status works on the host afterwards" host_git -C "$WS" status
check "... and the host can commit" host_git -C "$WS" commit -q --allow-empty -m after

# A1. mv .git away and build a new one with a hook
a1() { # box|unbox MARKER
    fresh_repo "a1-$2"
    $1 "$WS" -- sh -c "$PLANT"'mv .git .g && mkdir .git && cp -a .g/HEAD .g/objects .g/refs .g/config .git/ &&
        plant .git/hooks/pre-commit "$1"' sh "$MK/$2" >/dev/null 2>&1
    host_commit "$WS"
}
a1 unbox a1-ctl; check "control: unisolated, a rebuilt .git's hook runs on the host's commit" ran a1-ctl
a1 box a1; check "workspace: mv .git + a rebuilt .git: the host's commit runs no hook" not_ran a1
check "... and the host's .git is the original one" test ! -e "$WS/.g"

# A2. .git/commondir pointing to a fake common dir in the workspace
a2() {
    fresh_repo "a2-$2"
    $1 "$WS" -- sh -c "$PLANT"'mkdir fake && cp -a .git/objects .git/refs .git/config .git/HEAD fake/ &&
        plant fake/hooks/pre-commit "$1" && echo ../fake >.git/commondir' sh "$MK/$2" >/dev/null 2>&1
    host_commit "$WS"
}
a2 unbox a2-ctl; check "control: unisolated, .git/commondir -> a fake dir runs its hook on the host" ran a2-ctl
a2 box a2; check "workspace: .git/commondir -> a fake dir: the host's commit runs no hook" not_ran a2

# A3. core.hooksPath set with git config inside
a3() {
    fresh_repo "a3-$2"
    $1 "$WS" -- sh -c "$PLANT"'plant hk/pre-commit "$1" && git config core.hooksPath "$PWD/hk"' sh "$MK/$2" >"$T/a3.out" 2>&1
    A3_RC=$?
    host_commit "$WS"
}
a3 unbox a3-ctl; check "control: unisolated, core.hooksPath set inside runs a hook on the host" ran a3-ctl
a3 box a3
[ "$A3_RC" -ne 0 ] && ok "workspace: git config core.hooksPath fails inside" || not_ok "workspace: git config core.hooksPath fails inside"
check "workspace: core.hooksPath: the host's commit runs no hook" not_ran a3

# A4. a bare repository exposed rw
host_git init -q --bare "$U/bare-ctl.git"
check_out "control: unisolated, an exposed bare repo's hooks/ is writable" OK \
    unbox "$T/ws" --expose "$U/bare-ctl.git:rw" -- "$PROBE" create "$U/bare-ctl.git/hooks/x"
fresh_ws a4
host_git init -q --bare "$U/bare.git"
check_ro "expose rw: a bare repo's hooks/x cannot be created" box "$WS" --expose "$U/bare.git:rw" -- "$PROBE" create "$U/bare.git/hooks/x"
check_ro "expose rw: a bare repo's config cannot be changed" box "$WS" --expose "$U/bare.git:rw" -- "$PROBE" append "$U/bare.git/config"
a4() { # a pre-receive hook planted in the bare repo runs on the host's push
    fresh_ws "a4-$2"
    host_git init -q --bare "$U/bare-$2.git"
    host_repo "$U/clone-$2"
    $1 "$WS" --expose "$U/bare-$2.git:rw" -- sh -c "$PLANT"'plant "$1/hooks/pre-receive" "$2"' sh "$U/bare-$2.git" "$MK/$2" >/dev/null 2>&1
    host_git -C "$U/clone-$2" push -q "$U/bare-$2.git" HEAD:main >/dev/null 2>&1
}
a4 unbox a4-ctl; check "control: unisolated, a hook planted in an exposed bare repo runs on the host's push" ran a4-ctl
a4 box a4; check "expose rw: a bare repo: the host's push runs no hook" not_ran a4

# A4b. a repository exposed rw (not the workspace)
fresh_ws a4b
host_repo "$U/exp"
check_denied "expose rw: mv DIR/.git fails (pinned)" box "$WS" --expose "$U/exp:rw" -- "$PROBE" rename "$U/exp/.git" "$U/exp/.g"
[ -e "$U/exp/.g" ] && mv "$U/exp/.g" "$U/exp/.git"   # undo today's rename for the next probes
check_ro "expose rw: DIR/.git/hooks/x cannot be created" box "$WS" --expose "$U/exp:rw" -- "$PROBE" create "$U/exp/.git/hooks/x"
check_ro "expose rw: DIR/.git/config cannot be changed" box "$WS" --expose "$U/exp:rw" -- "$PROBE" append "$U/exp/.git/config"

# A5. a nested repository the user made before the run
a5() { fresh_ws "a5-$2"; host_repo "$WS/sub"; }
a5 unbox a5-ctl
check_out "control: unisolated, a nested repo's hooks/ is writable" OK unbox "$WS" -- "$PROBE" create "$WS/sub/.git/hooks/x"
a5 box a5
check_ro "nested repo: sub/.git/hooks/x cannot be created" box "$WS" -- "$PROBE" create "$WS/sub/.git/hooks/x"
check_ro "nested repo: sub/.git/config cannot be changed" box "$WS" -- "$PROBE" append "$WS/sub/.git/config"
check_denied "nested repo: mv sub/.git fails (pinned)" box "$WS" -- "$PROBE" rename "$WS/sub/.git" "$WS/sub/.g"
a5h() { # plant sub/.git/hooks/pre-commit, the host commits in sub
    a5 "" "$2"
    $1 "$WS" -- sh -c "$PLANT"'plant sub/.git/hooks/pre-commit "$1"' sh "$MK/$2" >/dev/null 2>&1
    host_commit "$WS/sub"
}
a5h unbox a5h-ctl; check "control: unisolated, a nested repo's planted hook runs on the host" ran a5h-ctl
a5h box a5h; check "nested repo: a planted hook does not run on the host" not_ran a5h
a5m() { # the A1 attack on the nested repo
    a5 "" "$2"
    $1 "$WS" -- sh -c "$PLANT"'cd sub && mv .git .g && mkdir .git && cp -a .g/HEAD .g/objects .g/refs .g/config .git/ &&
        plant .git/hooks/pre-commit "$1"' sh "$MK/$2" >/dev/null 2>&1
    host_commit "$WS/sub"
}
a5m unbox a5m-ctl; check "control: unisolated, a nested repo's rebuilt .git runs its hook on the host" ran a5m-ctl
a5m box a5m; check "nested repo: mv sub/.git + a rebuilt one: the host runs no hook" not_ran a5m

# A6. a submodule (.git/modules/m) and a worktree outside the workspace (.git/worktrees/w)
host_repo "$U/subrepo"
a6s() { # a repo with submodule m
    fresh_repo "a6s-$2"
    host_git -C "$WS" submodule add -q "$U/subrepo" m >/dev/null 2>&1 && host_git -C "$WS" commit -q -m sub
}
a6s "" ctl
check_out "control: unisolated, .git/modules/m/hooks is writable" OK unbox "$WS" -- "$PROBE" create "$WS/.git/modules/m/hooks/x"
a6s "" box
check "submodule: the host made .git/modules/m" test -d "$WS/.git/modules/m/hooks"
check_ro "submodule: .git/modules/m/hooks/x cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/modules/m/hooks/x"
check_ro "submodule: .git/modules/m/config cannot be changed" box "$WS" -- "$PROBE" append "$WS/.git/modules/m/config"
check_ro "submodule: .git/modules/m/info/x cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/modules/m/info/x"
check_denied "submodule: a missing .git/modules/m/commondir cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/modules/m/commondir"
check "... and no .git/modules/m/commondir is left on the host" test ! -e "$WS/.git/modules/m/commondir"
check_denied "submodule: a missing .git/modules/m/config.worktree cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/modules/m/config.worktree"
check "... and git status works in the submodule on the host" host_git -C "$WS/m" status
a6sh() {
    a6s "" "$2"
    $1 "$WS" -- sh -c "$PLANT"'plant .git/modules/m/hooks/pre-commit "$1"' sh "$MK/$2" >/dev/null 2>&1
    host_commit "$WS/m"
}
a6sh unbox a6sh-ctl; check "control: unisolated, a hook planted in .git/modules/m runs on the host's commit in m" ran a6sh-ctl
a6sh box a6sh; check "submodule: a hook planted in .git/modules/m does not run on the host" not_ran a6sh

a6w() { # a repo with a worktree $U/wt-MARK outside the workspace: .git/worktrees/wt-MARK
    fresh_repo "a6w-$2"
    host_git -C "$WS" worktree add -q "$U/wt-$2" -b "b-$2" >/dev/null 2>&1
}
a6w "" ctl
check_out "control: unisolated, .git/worktrees/w/commondir is writable" OK unbox "$WS" -- "$PROBE" append "$WS/.git/worktrees/wt-ctl/commondir"
a6w "" box
check "worktree: the host made .git/worktrees/wt-box" test -f "$WS/.git/worktrees/wt-box/commondir"
check_ro "worktree: .git/worktrees/w/commondir cannot be changed" box "$WS" -- "$PROBE" append "$WS/.git/worktrees/wt-box/commondir"
check_denied "worktree: a missing .git/worktrees/w/config.worktree cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/worktrees/wt-box/config.worktree"
check "... and no config.worktree is left on the host" test ! -e "$WS/.git/worktrees/wt-box/config.worktree"
check_ro "worktree: .git/worktrees/w/hooks/x cannot be created" box "$WS" -- "$PROBE" create "$WS/.git/worktrees/wt-box/hooks/x"
check "... and git status works in the worktree on the host" host_git -C "$U/wt-box" status
a6wh() { # repoint the worktree's commondir to a fake common dir with a hook
    a6w "" "$2"
    $1 "$WS" -- sh -c "$PLANT"'mkdir fake && cp -a .git/objects .git/refs .git/config .git/HEAD fake/ &&
        plant fake/hooks/pre-commit "$1" && echo "$PWD/fake" >".git/worktrees/$2/commondir"' sh "$MK/$2" "wt-$2" >/dev/null 2>&1
    host_commit "$U/wt-$2"
}
a6wh unbox a6wh-ctl; check "control: unisolated, a worktree's commondir -> a fake dir runs its hook on the host" ran a6wh-ctl
a6wh box a6wh; check "worktree: commondir -> a fake dir: the host's commit in the worktree runs no hook" not_ran a6wh

# A7. the instance root is a writable mount too
cdn run -- true >/dev/null 2>&1   # creates $H/.cordon
host_repo "$H/.cordon"
fresh_ws a7
check_ro "instance root: \$HOME/.cordon/.git/hooks/x cannot be created" box "$WS" -- "$PROBE" create "$H/.cordon/.git/hooks/x"
check_denied "instance root: mv \$HOME/.cordon/.git fails (pinned)" box "$WS" -- "$PROBE" rename "$H/.cordon/.git" "$H/.cordon/.g"
rm -rf "$H/.cordon/.git" "$H/.cordon/.g"

# A8. the landlock backend cannot pin: it says so
fresh_repo a8
check_contains "landlock: a repo workspace gets the warning that protected paths cannot be kept" "cannot keep" \
    box "$WS" --backend landlock -- true

# ---- B-F: planting links for the next run's launcher (linux and landlock) --------------------

host_repo "$OUT/repo"
echo "# outside-repo-config" >>"$OUT/repo/.git/config"
for b in linux landlock; do
    BK="--backend $b"

    # B. .git replaced by a symlink between runs (the workspace had no .git)
    if [ $b = linux ]; then
        fresh_ws b-ctl
        unbox "$WS" -- ln -s "$OUT/repo/.git" .git >/dev/null 2>&1
        capture unbox "$WS" -- cat .git/config
        shows "control: unisolated, a .git symlink is followed out of the workspace" outside-repo-config
    fi
    # The post-run git check (linux and landlock) sets run 1's planted .git
    # (and .git/config, .git/hooks) aside (M below); planted again as a run
    # whose launcher was killed would leave it, run 2's launcher refuses it.
    # aside_replant NAME CMD...: the check set NAME aside; replant with CMD on the host
    aside_replant() {
        local n=$1; shift
        check "$b: ... run 1's $n is set aside after it" test -L "$WS/$n.cordon-quarantine" -a ! -e "$WS/$n"
        (cd "$WS" && as_user "$@")
    }
    fresh_ws "b-$b"
    box "$WS" $BK -- ln -s "$OUT/repo/.git" .git >/dev/null 2>&1
    aside_replant .git ln -s "$OUT/repo/.git" .git
    capture box "$WS" $BK -- cat .git/config
    refused "$b: .git -> a dir outside, planted by run 1: run 2 is refused (125, symlink)"
    hides "$b: ... and the outside repo's config is not shown" outside-repo-config
    fresh_ws "b2-$b"
    box "$WS" $BK -- sh -c 'git init -q --bare gitreal && ln -s gitreal .git' >/dev/null 2>&1
    aside_replant .git ln -s gitreal .git
    capture box "$WS" $BK -- true
    refused "$b: .git -> a dir in the workspace, planted by run 1: run 2 is refused (125, symlink)"

    # C. a symlink planted as a protected path
    if [ $b = linux ]; then
        fresh_ws c-ctl
        unbox "$WS" -- sh -c 'mkdir .git && ln -s "$1" .git/config' sh "$OUT/secret" >/dev/null 2>&1
        capture unbox "$WS" -- cat .git/config
        shows "control: unisolated, a .git/config symlink shows the secret" "host secret"
    fi
    fresh_ws "c-$b"
    box "$WS" $BK -- sh -c 'mkdir .git && ln -s "$1" .git/config' sh "$OUT/secret" >/dev/null 2>&1
    aside_replant .git/config ln -s "$OUT/secret" .git/config
    capture box "$WS" $BK -- cat .git/config
    hides "$b: .git/config -> the secret, planted by run 1: run 2 does not show it" "host secret"
    failed "$b: ... and run 2 fails (refused or the read fails)"
    fresh_ws "c2-$b"
    box "$WS" $BK -- sh -c 'mkdir .git && ln -s "$1" .git/hooks' sh "$OUT" >/dev/null 2>&1
    aside_replant .git/hooks ln -s "$OUT" .git/hooks
    capture box "$WS" $BK -- cat .git/hooks/secret
    hides "$b: .git/hooks -> the outside dir, planted by run 1: run 2 does not show the secret" "host secret"
    failed "$b: ... and run 2 fails (refused or the read fails)"

    # D. --expose of a workspace path that run 1 made a symlink
    if [ $b = linux ]; then
        fresh_ws d-ctl
        unbox "$WS" -- ln -s "$OUT/secret" conf.json >/dev/null 2>&1
        capture unbox "$WS" --expose "$WS/conf.json" -- cat "$WS/conf.json"
        shows "control: unisolated, the exposed conf.json link shows the secret" "host secret"
    fi
    fresh_ws "d-$b"
    box "$WS" $BK -- ln -s "$OUT/secret" conf.json >/dev/null 2>&1
    capture box "$WS" $BK --expose "$WS/conf.json" -- cat "$WS/conf.json"
    refused "$b: --expose W/conf.json, a symlink planted by run 1: refused (125, symlink)"
    hides "$b: ... and the secret is not shown" "host secret"
    fresh_ws "d2-$b"
    box "$WS" $BK -- ln -s "$OUT" d >/dev/null 2>&1
    capture box "$WS" $BK --expose "$WS/d/conf.json" -- cat "$WS/d/conf.json"
    refused "$b: --expose W/d/conf.json, d a symlinked dir planted by run 1: refused (125, symlink)"
    hides "$b: ... and the secret is not shown" "host secret conf"

    # E. the working directory through a planted link
    if [ $b = linux ]; then
        fresh_ws e-ctl
        unbox "$WS" -- ln -s "$OUT" sub >/dev/null 2>&1
        capture cdn run --config "$OFF" --workspace "$WS" -C "$WS/sub" -- cat secret
        shows "control: unisolated, a cwd through the planted link shows the secret" "host secret"
    fi
    fresh_ws "e-$b"
    box "$WS" $BK -- ln -s "$OUT" sub >/dev/null 2>&1
    capture cdn run $BK --workspace "$WS" -C "$WS/sub" -- cat secret
    refused "$b: -C W/sub, sub a link planted by run 1: refused (125, symlink)"
    hides "$b: ... and the secret is not shown" "host secret"
    capture cdn plan $BK --workspace "$WS" -C "$WS/sub" -- true
    exposes_nothing_outside "$b: ... and its plan exposes nothing of the link's target"

    # F. the executable through a planted link
    if [ $b = linux ]; then
        fresh_ws f-ctl
        unbox "$WS" -- ln -s "$OUT/d/tool" tool >/dev/null 2>&1
        capture unbox "$WS" -- ./tool
        shows "control: unisolated, ./tool through the planted link shows the secret" "second secret"
    fi
    fresh_ws "f-$b"
    box "$WS" $BK -- ln -s "$OUT/d/tool" tool >/dev/null 2>&1
    capture box "$WS" $BK -- ./tool
    hides "$b: ./tool, a link planted by run 1 to an outside script: its secret is not shown" "second secret"
    if [ $b = linux ]; then
        status_is "$b: ... and it is not found inside (127)" 127
    else
        case $RC in 125|126|127) ok "$b: ... and it does not run ($RC)";; *) not_ok "$b: ... and it does not run (status $RC)"; diag <"$T/.out";; esac
    fi
    capture cdn plan $BK --workspace "$WS" -C "$WS" -- ./tool
    exposes_nothing_outside "$b: ... and its plan exposes nothing of the link's target"
done

# ---- G. the launcher never writes through links ---------------------------------------------

# G(a). placeholders: .git without hooks/ (and without commondir, config.worktree):
# the command swaps .git for a link to a host dir; cordon's clean-up must not
# remove the host dir's entries through the link.
g_victim() { # DIR: a host dir holding what cordon's placeholders are named like
    mkdir -p "$1/hooks" "$1/info"; : >"$1/commondir"; : >"$1/config.worktree"; own "$1"
}
g_victim "$OUT/victim-ctl"; g_victim "$OUT/victim"
fresh_repo ga-ctl; rm -rf "$WS/.git/hooks"
unbox "$WS" -- sh -c 'mv .git .g; ln -s "$1" .git' sh "$OUT/victim-ctl" >/dev/null 2>&1
check "control: unisolated, .git can be swapped for a link to a host dir" test -L "$WS/.git"
fresh_repo ga; rm -rf "$WS/.git/hooks"
box "$WS" -- sh -c 'mv .git .g; ln -s "$1" .git' sh "$OUT/victim" >/dev/null 2>&1
check "linux: after a .git swap attempt, the host dir's hooks/ still exists" test -d "$OUT/victim/hooks"
check "... and its commondir, config.worktree and info/ too" test -e "$OUT/victim/commondir" -a -e "$OUT/victim/config.worktree" -a -d "$OUT/victim/info"
check "... and the workspace's .git is still the repository" test -d "$WS/.git" -a ! -L "$WS/.git"
check "... and the hooks placeholder is gone" test ! -e "$WS/.git/hooks"

# G(b). --stats FILE, FILE a link (planted by run 1) to a host file
fresh_ws gb-ctl
check_status "control: a plain --stats path" 0 cdn run --stats "$WS/stats.json" --workspace "$WS" -C "$WS" -- true
check_contains "... gets the JSON report" '"exit_code"' cat "$WS/stats.json"
echo original >"$OUT/target"; own "$OUT/target"
fresh_ws gb
box "$WS" -- ln -s "$OUT/target" stats.json >/dev/null 2>&1
capture cdn run --stats "$WS/stats.json" --workspace "$WS" -C "$WS" -- touch ran-gb
status_is "linux: --stats through a planted link is refused (125)" 125
check_out "... and the link's target is unchanged" original cat "$OUT/target"
check "... and the command did not run" test ! -e "$WS/ran-gb"

# ---- H. skills/ read-only, logs/ hidden -----------------------------------------------------

fresh_ws h
cdn run --log-plan -- true >/dev/null 2>&1
check_out "control: unisolated, skills/ is writable" OK unbox "$WS" -- "$PROBE" create "$H/.cordon/skills/ctl"
check "control: the host's logs/ holds the log" test -s "$H/.cordon/logs/cordon.log"
out=$(box "$WS" -- "$PROBE" create "$H/.cordon/skills/x" 2>&1)
case "$out" in EROFS|EACCES) ok "linux: skills/ is read-only inside ($out)";; *) not_ok "linux: skills/ is read-only inside ($out)";; esac
check "... and nothing was created" test ! -e "$H/.cordon/skills/x"
capture box "$WS" -- ls -A "$H/.cordon/logs"
hides "linux: logs/ stays hidden (its log is not listed)" cordon.log

# ---- I. race: the executable swapped while another sandbox plans ----------------------------

fresh_ws i
printf '#!/bin/sh\necho planned\n' >"$WS/tool.plain"; chmod 755 "$WS/tool.plain"
cp "$WS/tool.plain" "$WS/tool"; own "$WS"
# sandbox B swaps W/tool between the script and a link to $OUT/d/tool until W/stop exists
bg_as_user env HOME="$H" timeout -k 5 45 "$CORDON" run --workspace "$WS" -C "$WS" -- sh -c '
    while [ ! -e stop ]; do
        cp tool.plain .t1 && mv -fT .t1 tool
        ln -sfn "$1" .t2 && mv -fT .t2 tool
    done' sh "$OUT/d/tool" >/dev/null 2>&1
swapper=$BG_PID
leaked=0 planned=0 failed_n=0 odd=0 n=0 end=$((SECONDS + 30))
while [ $n -lt 100 ] && [ $SECONDS -lt $end ]; do
    n=$((n + 1))
    out=$(box "$WS" -- ./tool 2>&1); rc=$?
    # a failure may also be the shell's own (2: it reopened a swapped ./tool)
    case "$out" in *"second secret"*) leaked=$((leaked + 1)); continue ;; esac
    if [ $rc -eq 0 ] && [ "$out" = planned ]; then planned=$((planned + 1))
    elif [ $rc -ne 0 ]; then failed_n=$((failed_n + 1))
    else odd=$((odd + 1)); fi
done
as_user touch "$WS/stop"
for i in $(seq 50); do kill -0 $swapper 2>/dev/null || break; sleep 0.1; done
kill $swapper 2>/dev/null; wait $swapper 2>/dev/null
echo "# race: $n rounds, $planned planned, $failed_n failed, $leaked leaked, $odd other"
[ $leaked -eq 0 ] && ok "race: ./tool swapped with a link by another sandbox never shows the secret ($n rounds)" ||
    not_ok "race: ./tool swapped with a link by another sandbox never shows the secret ($leaked of $n leaked)"
[ $((failed_n + leaked)) -gt 0 ] && ok "race: the swapper ran (some rounds met the link)" ||
    not_ok "race: the swapper ran (every round met the script)"
[ $odd -eq 0 ] && ok "race: every round printed \"planned\" or failed" || not_ok "race: $odd rounds succeeded without \"planned\""

# ---- M. repositories the command makes, which the host's git reaches (linux) ----------------
# What the plan protects is the repositories it found; the command can make
# new ones. How the host's git would then run something the command wrote,
# each checked below against the post-run check (which sets aside config,
# config.worktree, commondir and hooks/ of every git directory the run made
# or changed, and a .git symlink or gitfile it cannot check):
#   M1  a nested repository with core.fsmonitor and a gitlink to it in the
#       outer index (stays writable): the host's `git status` recurses
#   M2  a nested repository anywhere, no gitlink: the host's `git add .`
#       adds it, its next status recurses (and `git diff HEAD~`)
#   M3  a `.git` in a directory of the user's: git run there uses it
#   M4  a gitfile naming a git directory staged in an earlier run (no HEAD
#       then, so no repository yet) + a gitlink: run 1 plants, run 2 finishes
#   M5  the same staged directory renamed into place as sub/.git in run 2
#   M6  a directory made to look like a bare repository (HEAD, objects/,
#       refs/, config with diff.external): git run there takes it
#   M7  a `.git` symlink to a staged git directory, deeper than the plan searches
#   M8  a worktree gitdir in .git/worktrees whose commondir names a fake
#       common dir with core.fsmonitor; its gitfile in the workspace
#   M9  run 2 renames a set-aside config back: set aside again
#   M10 more entries than the search reads: the index's gitlinks are followed
#   M13 the launcher of run 1 killed: the next run checks for it
#   M14 a .git/modules/NAME made for a new .gitmodules entry and gitlink:
#       the host's `git submodule update` would take it as is (post-checkout)
#   M15 nested repositories among 3 000 directories (a directory read in
#       several buffers)
# and what stays: the user's own nested repository and submodule, and the
# in-sandbox workflow (worktree add, submodule checkout), set nothing aside.
MON='git config core.fsmonitor "touch $1; false"'
GX="--set GIT_AUTHOR_NAME=t --set GIT_AUTHOR_EMAIL=t@t --set GIT_COMMITTER_NAME=t --set GIT_COMMITTER_EMAIL=t@t"
GC='-c user.name=t -c user.email=t@t'
m_run() { # box|unbox MARK RUN1 [RUN2]: the plants, then the host's git (HOST, in $WS)
    local how=$1 mk=$MK/$2 r1=$3 r2=${4:-}
    $how "$WS" -- sh -c "$r1" sh "$mk" >"$T/m.out" 2>&1
    [ -z "$r2" ] || $how "$WS" -- sh -c "$r2" sh "$mk" >>"$T/m.out" 2>&1
    (cd "$WS" && as_user env GIT_CONFIG_NOSYSTEM=1 HOME="$H" timeout 60 sh -c "$HOST") >/dev/null 2>&1
}
m_pair() { # NAME DESC RUN1 [RUN2]: the control, then the attack under cordon
    local name=$1 desc=$2; shift 2
    fresh_repo "$name-ctl"; m_run unbox "$name-ctl" "$@"
    check "control: unisolated, $desc runs on the host" ran "$name-ctl"
    fresh_repo "$name"; m_run box "$name" "$@"
    check "new repos: $desc: the host's git runs nothing" not_ran "$name"
}
NEST="git init -q sub && cd sub && $MON && git $GC commit -q --allow-empty -m s && cd .."
LINK='git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub'
HOST='git status'
m_pair m1 "a gitlink to a nested repository with core.fsmonitor (git status)" "$NEST && $LINK"
check_contains "... cordon said what it set aside" "set aside $WS/sub/.git/config" cat "$T/m.out"
check "... the nested repository still works on the host" host_git -C "$WS/sub" log -1
HOST='git add -A && git status && git diff HEAD'
m_pair m2 "a nested repository deep down, no gitlink (git add, status, diff)" \
    "mkdir -p a/b/c && cd a/b/c && $NEST"
HOST='mkdir -p src && cd src && git status && git log && git diff'
m_pair m3 "a .git planted in a directory of the user's (git run there)" \
    "mkdir -p src && cd src && git init -q . && $MON"
STAGE="git init -q st0 && git -C st0 $GC commit -q --allow-empty -m s && mv st0/.git stage && rmdir st0 &&
    git --git-dir=stage config core.fsmonitor \"touch \$1; false\" && mv stage/HEAD stage/H"
HOST='git status'
m_pair m4 "a gitfile to a directory staged in run 1 (run 2 finishes it)" "$STAGE" \
    'mv stage/H stage/HEAD && mkdir sub && echo "gitdir: ../stage" >sub/.git &&
     git update-index --add --cacheinfo 160000,$(git --git-dir=stage rev-parse HEAD),sub'
m_pair m5 "a directory staged in run 1 renamed to sub/.git in run 2" "$STAGE" \
    'mv stage/H stage/HEAD && mkdir sub && mv stage sub/.git &&
     git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub'
BARE="git init -q w && cd w && echo a >f && git add f && git $GC commit -qm 1 && echo b >f && git $GC commit -qam 2 &&
    cd .. && mkdir -p src && mv w/.git/HEAD w/.git/objects w/.git/refs src/ && rm -rf w &&
    printf '#!/bin/sh\ntouch %s\n' \"\$1\" >ext && chmod +x ext &&
    printf '[core]\n\tbare = true\n[diff]\n\texternal = %s/ext\n' \"\$PWD\" >src/config"
HOST='mkdir -p src && cd src && git diff HEAD~1 HEAD'
m_pair m6 "a directory made a bare repository with diff.external (git diff there)" "$BARE"
HOST='cd d1/d2/d3 && git status'
m_pair m7 "a .git symlink three directories down" \
    "git init -q st && cd st && $MON && cd .. && mkdir -p d1/d2/d3 && ln -s ../../../st/.git d1/d2/d3/.git"
WT="git worktree add -q wt -b wtb 2>/dev/null && git init -q --bare fake && cp -a .git/objects .git/refs .git/HEAD fake/ &&
    git --git-dir=fake config core.fsmonitor \"touch \$1; false\" && git --git-dir=fake config core.bare false &&
    echo \$PWD/fake >.git/worktrees/wt/commondir"
HOST='cd wt && git status'
m_pair m8 "a worktree whose commondir names a fake common dir" "$WT"
MODS="git init -q e0 && git -C e0 $GC commit -q --allow-empty -m s && mkdir -p .git/modules && mv e0/.git .git/modules/evil &&
    rmdir e0 && printf '#!/bin/sh\ntouch %s\n' \"\$1\" >.git/modules/evil/hooks/post-checkout &&
    chmod +x .git/modules/evil/hooks/post-checkout && printf '[submodule \"evil\"]\n\tpath = e\n\turl = ./nowhere\n' >.gitmodules &&
    git add .gitmodules && git update-index --add --cacheinfo 160000,\$(git --git-dir=.git/modules/evil rev-parse HEAD),e"
HOST='git status; git -c protocol.file.allow=always submodule update --init'
m_pair m14 "a .git/modules/NAME planted for a new .gitmodules entry (submodule update)" "$MODS"
# M15. nested repositories among 3 000 directories: the walk reads a
# directory in several getdents64 buffers (32 KiB, some 1 300 entries
# each), and finds each repository wherever it lies in the listing
WIDE="mkdir wide && cd wide && seq 1 3000 | xargs mkdir && for i in 500 1000 1500 2000 2500 3000; do (cd \$i && $NEST); done"
HOST='git add -A && git status && git diff HEAD'
m_pair m15 "six nested repositories among 3 000 directories (git add, status, diff)" "$WIDE"
# M9. a set-aside config renamed back in the next run
HOST='git status'
fresh_repo m9
m_run box m9 "$NEST && $LINK" 'mv sub/.git/config.cordon-quarantine sub/.git/config'
check "new repos: a set-aside config renamed back in run 2: the host's git runs nothing" not_ran m9
check "... it is set aside again" test -e "$WS/sub/.git/config.cordon-quarantine" -a ! -e "$WS/sub/.git/config"
# M10. more entries than the search reads: the gitlinks of the index still lead there
MANY="mkdir many && cd many && seq 1 12000 | xargs mkdir && cd .. && $NEST && $LINK"
m_pair m10 "a gitlink after more directories than the search reads" "$MANY"
fresh_repo m10s
box "$WS" --stats "$U/m10.json" -- sh -c "$MANY" sh "$MK/m10s" >/dev/null 2>&1
check_contains "... (the search stopped early: the gitlinks found it)" '"searched_all": false' cat "$U/m10.json"
# M13. a run whose launcher is killed checks nothing: the next run on the
# workspace checks for it (from the killed run's start, in its journal)
fresh_repo m13
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sh -c "$NEST && $LINK && touch planted; sleep 30" \
    sh "$MK/m13" >/dev/null 2>&1
for _ in $(seq 100); do [ -e "$WS/planted" ] && break; sleep 0.1; done
kill -STOP "$BG_PID"; pkill -9 -P "$BG_PID" 2>/dev/null; kill -9 "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null; sleep 0.5
check "killed launcher: its plant is left unchecked (control)" test -f "$WS/sub/.git/config"
box "$WS" -- true >"$T/m13.out" 2>&1
check_contains "... the next run sets it aside" "set aside $WS/sub/.git/config" cat "$T/m13.out"
(cd "$WS" && as_user env GIT_CONFIG_NOSYSTEM=1 HOME="$H" timeout 60 git status) >/dev/null 2>&1
check "... and the host's git status runs nothing" not_ran m13
check "... and the user's own repository keeps its config" test -f "$WS/.git/config"
check "... and the killed run's journal is gone" sh -c "! ls '$H/.cordon/logs/' | grep -q '^gitcheck\.'"
# The stats record lists what was set aside
fresh_repo m11
box "$WS" --stats "$U/m11.json" -- sh -c "$NEST" sh "$MK/m11" >/dev/null 2>&1
check_contains "stats: git_check.set_aside lists the planted config" "\"set_aside\": [\"$WS/sub/.git/config\"" cat "$U/m11.json"
# What stays: the user's own nested repository and submodule, untouched by the run
fresh_repo m12
host_repo "$WS/own"
host_git -C "$WS" submodule add -q "$U/subrepo" m >/dev/null 2>&1 && host_git -C "$WS" commit -q -m sub
deep() { mkdir -p "$WS/x/y/z" && own "$WS/x" && host_repo "$WS/x/y/z/deep"; }
deep
DEEP=$WS/x/y/z/deep
capture box "$WS" $GX --protect "$DEEP/.git/config" --protect "$DEEP/.git/hooks" -- sh -c "git status >/dev/null &&
    git -C m checkout -q --detach && git -C m status >/dev/null && git -C x/y/z/deep commit -q --allow-empty -m d &&
    git worktree add -q wt2 -b wt2b && cd wt2 && echo w >w && git add w && git commit -qm w"
if [ "$RC" -eq 0 ] && ! grep -q "set aside" "$T/.out"; then ok "user's repos: a run using them sets nothing aside"
else not_ok "user's repos: a run using them sets nothing aside (status $RC)"; diag <"$T/.out"; fi
check "... the user's nested repo keeps its config" test -f "$WS/own/.git/config"
check "... and the deep one, used inside, its config protected (--protect)" test -f "$DEEP/.git/config"
check_out "... and the deep one's commit is there" d host_git -C "$DEEP" log -1 --format=%s
box "$WS" $GX -- sh -c "git -C x/y/z/deep commit -q --allow-empty -m d2" >"$T/m12.out" 2>&1
if ! grep -q "git: set aside" "$T/m12.out"; then ok "... without --protect, a commit in the deep one inside sets nothing aside (its config runs nothing)"
else not_ok "... without --protect, a commit in the deep one inside sets nothing aside"; diag <"$T/m12.out"; fi
box "$WS" $GX -- sh -c "git -C x/y/z/deep config core.pager 'touch $U/pwned'" >"$T/m12.out" 2>&1
check_contains "... without --protect, a key that runs a program written in the deep one inside: its config is set aside" \
    "set aside $DEEP/.git/config" cat "$T/m12.out"
as_user mv "$DEEP/.git/config.cordon-quarantine" "$DEEP/.git/config" && host_git -C "$DEEP" config --unset core.pager
check "... and the submodule's" test -f "$WS/.git/modules/m/config"
check "... and the worktree made inside works on the host" host_git -C "$WS/wt2" log -1 --format=%s
check "... and the host's status in the submodule too" host_git -C "$WS/m" status

# ---- J. the git workflow inside the sandbox on a protected repo -----------------------------

fresh_repo j
gx() { box "$WS" $GX -- sh -c "$1"; }
check "git inside: add + commit" gx 'echo a >a && git add a && git commit -qm a'
check "git inside: branch" gx 'git branch b1 && git branch | grep -q b1'
check "git inside: checkout + commit on the branch" gx 'git checkout -q b1 && echo b >b && git add b && git commit -qm b'
check "git inside: rebase" gx 'git checkout -q main && echo c >c && git add c && git commit -qm c &&
    git checkout -q b1 && git rebase -q main && test -f c && test -f b'
check "git inside: stash + pop" gx 'echo more >>a && git stash -q && git diff --quiet && git stash pop -q && ! git diff --quiet'
check "git inside: tag" gx 'git tag v1 && test "$(git tag)" = v1'
check "git inside: gc" gx 'git gc -q && git fsck --no-dangling >/dev/null'
check "git inside: worktree add (inside the workspace) + commit there" gx 'git worktree add -q wt -b wtb &&
    cd wt && echo w >w && git add w && git commit -qm w'
check "git inside: log" gx 'test "$(git log --format=%s main..b1 | tr "\n" " ")" = "b "'
capture gx 'git config user.name x'
if [ "$RC" -ne 0 ] && grep -qi config "$T/.out"; then ok "git inside: git config fails with a message (config is read-only)"
else not_ok "git inside: git config fails with a message (status $RC)"; diag <"$T/.out"; fi
check_out "... and the host's git log shows the work" w host_git -C "$WS" log -1 --format=%s wtb
check "... and git status works on the host" host_git -C "$WS" status
check "... and no placeholder is left in .git" test ! -e "$WS/.git/commondir" -a ! -e "$WS/.git/config.worktree"
# K. a launcher killed mid-run: its helper removes the placeholders; when the
# helper dies too (say, the whole session is killed), the next run repairs them
fresh_repo k
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sleep 30 >/dev/null 2>&1
for _ in $(seq 50); do [ -e "$WS/.git/commondir" ] && break; sleep 0.1; done
check "killed launcher: its placeholder is there while it runs" test -e "$WS/.git/commondir"
kill -9 "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null
for _ in $(seq 100); do [ -e "$WS/.git/commondir" ] || break; sleep 0.1; done
check "... and gone after a SIGKILL (the launcher's helper; lifecycle.sh times it)" test ! -e "$WS/.git/commondir"
for _ in $(seq 50); do ls "$H/.cordon/logs/" | grep -q 'placeholders\.' || break; sleep 0.1; done
check "... with its journal" sh -c "! ls '$H/.cordon/logs/' | grep -q 'placeholders\.'"
fresh_repo k2
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sleep 30 >/dev/null 2>&1
for _ in $(seq 50); do [ -e "$WS/.git/commondir" ] && break; sleep 0.1; done
# stopped first: a launcher that saw its sandbox end would clean up itself
kill -STOP "$BG_PID"; pkill -9 -P "$BG_PID" 2>/dev/null; kill -9 "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null; sleep 0.5
check "launcher and helper killed: the placeholder stays (control for the repair)" test -e "$WS/.git/commondir"
check "the next run succeeds" box "$WS" -- true
check "... and removed the killed run's placeholders" test ! -e "$WS/.git/commondir" -a ! -e "$WS/.git/config.worktree"
check "... and its journal" sh -c "! ls '$H/.cordon/logs/' | grep -q 'placeholders\.'"
check "... and git status works on the host" host_git -C "$WS" status
# L. two runs on one workspace: the placeholder the first made and the
# second bound stays protected in the second after the first ends
fresh_repo l
check_out "control: unisolated, .git/commondir can be created" OK unbox "$WS" -- sh -c "'$PROBE' create .git/commondir && rm .git/commondir"
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sleep 2 >/dev/null 2>&1
A=$BG_PID
for _ in $(seq 50); do [ -e "$WS/.git/commondir" ] && break; sleep 0.1; done
out=$(box "$WS" --expose "$T/bin" -- sh -c "sleep 4; '$PROBE' create .git/commondir" 2>&1)
case "$out" in EROFS|EEXIST) ok "a placeholder another run made stays protected after that run ended ($out)";;
    *) not_ok "a placeholder another run made stays protected after that run ended ($out)";; esac
wait "$A" 2>/dev/null
check "... and the last run removed it" test ! -e "$WS/.git/commondir"
check "... with every journal" sh -c "! ls '$H/.cordon/logs/' | grep -q 'placeholders\.'"
# L2. a run killed while another lives: its helper leaves its placeholder
# (the other run may have bound it) and its journal; the last run alive
# repairs that journal when it ends, though it listed logs/ once already
# when it started (alone, it repaired then)
fresh_repo l2
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sh -c 'while [ ! -e stop ]; do sleep 0.05; done'
A=$BG_PID
for _ in $(seq 50); do [ -e "$WS/.git/commondir" ] && break; sleep 0.1; done
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" --protect "$WS/l2-extra" -- sleep 30
B=$BG_PID
for _ in $(seq 50); do [ -e "$WS/l2-extra" ] && break; sleep 0.1; done
kill -KILL "$B"; wait "$B" 2>/dev/null; sleep 1
check "control: a run killed while another lives leaves its placeholder" test -e "$WS/l2-extra"
touch "$WS/stop"; wait "$A" 2>/dev/null
check "... and the last run alive removes it when it ends" test ! -e "$WS/l2-extra"
check "... with every journal" sh -c "! ls '$H/.cordon/logs/' | grep -q 'placeholders\.'"
rm -f "$WS/stop"
# L3. a placeholder that cannot be made (a read-only .git, bound so by the
# host): the launcher makes them on a thread of its own while the sandbox
# is set up, and the sandbox waits for them; its failure is the run's
# error, the command does not run, nothing is left behind
fresh_repo l3
check "control: a writable .git: the run goes on" box "$WS" -- true
mount --bind "$WS/.git" "$WS/.git" && mount -o remount,bind,ro "$WS/.git"
capture box "$WS" -- touch "$WS/l3-ran"
if [ "$RC" -eq 125 ] && grep -q "cannot create a placeholder for the protected path $WS/.git/" "$T/.out"; then
    ok "a read-only .git: the run fails (125) naming the placeholder"
else not_ok "a read-only .git: the run fails (125) naming the placeholder (status $RC)"; diag <"$T/.out"; fi
umount "$WS/.git"
check "... and the command did not run" test ! -e "$WS/l3-ran"
check "... no placeholder is left" test ! -e "$WS/.git/commondir" -a ! -e "$WS/.git/config.worktree"
check "... nor a journal (killed runs of other workspaces leave theirs)" sh -c "! ls '$H/.cordon/logs/' | grep -q 'placeholders\.' &&
    ! grep -qsx '$WS' '$H/.cordon/logs/'*gitcheck.*"
check "... and the next run works" box "$WS" -- true
# ... and with the placeholders' pipe and the launcher's journals open
# meanwhile, the command gets none of the launcher's descriptors
exec 7</dev/null
check_contains "control: the probe sees an inherited descriptor" "7" as_user "$PROBE" fds
check_out "in a repository (placeholders made meanwhile) the command has no descriptor of the launcher's" "end" \
    box "$WS" --expose "$T/bin" -- sh -c '"$1" fds; echo end' sh "$PROBE"
exec 7<&-
done_testing
