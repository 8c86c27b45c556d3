#!/bin/bash
# Attacks on fix-gitfast's git protection (placeholders made in the
# directory their undo note opened, the clean-up helper sharing the
# launcher's memory, the post-run walk reading directories with
# getdents64, the repository search taking types from readdir).
#
#   K  SIGKILL of the launcher at many points while it makes a placeholder:
#      its helper (or the next run) removes it, and nothing else
#   H  between runs (launcher and helper both killed, the placeholder
#      left) the placeholder is replaced by a hard link to a workspace
#      file, a symlink to a host file, a directory, a fifo: the next run
#      removes none of those, follows no link, does not hang
#   D  a symlink in the workspace to a host repository (readdir says
#      DT_LNK): not searched, not protected through, nothing set aside in
#      the host repository; a .git symlink to it is refused before the run
#      and set aside (not followed) when the command makes it
#   W  the post-run walk: a repository made after thousands of entries
#      (many getdents64 buffers), a bare repository whose HEAD, objects
#      and refs lie in different buffers, 255-byte names, and a
#      concurrent run renaming directories and swapping symlinks in while
#      the walk runs: the host repository is never touched
#   T  a landlock-backend run of the same workspace (no mount stops it)
#      swapping .git for a symlink to the host repository while
#      linux-backend runs plan, make placeholders and mount: each runs or
#      is refused (125), the host repository is intact, and once the racer
#      stops a run works
#   U  .git moved away (by a landlock-backend run) while a run that made
#      placeholders in it lives, moved back after: no placeholder is left
. "$(dirname "$0")/../integration/lib.sh"

WS=$W/ws
mkdir -p "$WS" "$T/host"
git init -q "$T/host/repo"
HOSTCFG=$(md5sum <"$T/host/repo/.git/config")
git init -q "$WS" # the next run protects its .git: it repairs what a killed one left
echo important >"$WS/important"
echo host-secret >"$T/host/secret"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$WS" "$T/host"
box() { cordon run --workspace "$WS" -C "$WS" "$@"; }
host_intact() { [ "$(md5sum <"$T/host/repo/.git/config")" = "$HOSTCFG" ] && [ -d "$T/host/repo/.git/hooks" ] &&
    [ ! -e "$T/host/repo/.git/config.cordon-quarantine" ]; }
PH=$WS/ph

# ---- K. kills while a placeholder exists -----------------------------------------------------
check_out "control: the placeholder exists inside a run" "OK" box --protect "$PH" -- "$PROBE" stat "$PH"
check "control: and is gone after it" test ! -e "$PH"
gone_soon() { local i; for i in $(seq 100); do [ -e "$PH" ] || return 0; sleep 0.05; done; return 1; }
left=0 repaired=1 made=0
for d in 0 0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.5; do
    bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" --protect "$PH" -- sleep 30
    sleep $d
    [ -e "$PH" ] && made=$((made + 1))
    kill -KILL "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null
    if ! gone_soon; then
        left=$((left + 1))
        box -- true >/dev/null 2>&1
        [ -e "$PH" ] && repaired=0
    fi
done
[ $made -gt 0 ] && ok "control: $made of 10 runs were killed with their placeholder made" ||
    not_ok "control: no run was killed with its placeholder made"
[ $left -eq 0 ] && ok "SIGKILL of the launcher after 0-500 ms: its helper removed the placeholder (10 of 10)" ||
    not_ok "SIGKILL of the launcher after 0-500 ms: its helper removed the placeholder ($left of 10 left)"
[ $repaired -eq 1 ] && ok "... and what was left, the next run removed" || not_ok "... and what was left, the next run removed"
check "... the workspace file next to it is intact" grep -qx important "$WS/important"

# ---- H. the left placeholder replaced between runs ----------------------------------------------
# Kill the launcher and its helper (by pid) while the placeholder exists.
leave_placeholder() {
    bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" --protect "$PH" -- sleep 30
    local i helper=
    for i in $(seq 200); do [ -e "$PH" ] && break; sleep 0.02; done
    for i in $(seq 200); do
        for c in $(pgrep -P "$BG_PID"); do [ "$(cat /proc/$c/comm 2>/dev/null)" = cordon-undo ] && helper=$c; done
        [ -n "$helper" ] && break; sleep 0.02
    done
    [ -n "$helper" ] && kill -KILL "$helper"
    kill -KILL "$BG_PID"; wait "$BG_PID" 2>/dev/null
    [ -e "$PH" ] || { echo "# helper=$helper launcher=$BG_PID"; ls -la "$WS" | diag; false; }
}
swap_test() { # DESC SWAP-COMMAND CHECK-COMMAND
    if ! leave_placeholder; then not_ok "$1 (no placeholder was left)"; return; fi
    as_user sh -c "$2"
    as_user timeout 60 sh -c "cd '$WS' && '$CORDON' run --workspace '$WS' -C '$WS' -- true" >"$T/.out" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && sh -c "$3"; then ok "$1"; else not_ok "$1 (status $rc)"; diag <"$T/.out"; fi
    rm -rf "$PH"
}
swap_test "control: a placeholder left by a killed launcher and helper is removed by the next run" \
    ":" "test ! -e '$PH'"
swap_test "the placeholder replaced by a hard link to a workspace file: the file is kept, whole" \
    "rm -f '$PH' && ln '$WS/important' '$PH'" "grep -qx important '$WS/important' && test -e '$PH'"
swap_test "the placeholder replaced by a symlink to a host file: not followed, the file kept" \
    "rm -f '$PH' && ln -s '$T/host/secret' '$PH'" "grep -qx host-secret '$T/host/secret' && test -L '$PH'"
swap_test "the placeholder replaced by a directory with a file: kept" \
    "rm -f '$PH' && mkdir '$PH' && echo x >'$PH/f'" "test -f '$PH/f'"
swap_test "the placeholder replaced by a fifo: the next run does not hang, the fifo is kept" \
    "rm -f '$PH' && mkfifo '$PH'" "test -p '$PH'"
swap_test "the placeholder written to (same inode, other size): kept" \
    "chmod u+w '$PH' && echo mine >'$PH'" "grep -qx mine '$PH'"

# ---- D. symlinks to a host repository ------------------------------------------------------------
as_user ln -s "$T/host/repo" "$WS/link"
check_out "control: git on the host follows the link into the host repository" "$T/host/repo/.git" \
    as_user sh -c "cd '$WS/link' && git rev-parse --absolute-git-dir"
check_status "a workspace with a symlink to a host repository runs" 0 box -- true
check "... the plan mounts nothing of the host repository" sh -c "! { cd '$WS' && as_user '$CORDON' plan \
    --workspace '$WS' -C '$WS' -- true; } 2>&1 | grep -F '$T/host'"
check "... nothing set aside in it" host_intact
rm -f "$WS/link"
as_user mkdir -p "$WS/sub"; as_user ln -s "$T/host/repo/.git" "$WS/sub/.git"
check_status "a .git symlink to a host repository is refused before the run (125)" 125 box -- true
check "... the host repository is intact" host_intact
rm -rf "$WS/sub"
check_status "the command makes a .git symlink to the host repository" 0 \
    box -- sh -c "mkdir -p sub && ln -s '$T/host/repo/.git' sub/.git"
check "... it is set aside after the run" test -L "$WS/sub/.git.cordon-quarantine" -a ! -e "$WS/sub/.git"
check "... and the host repository is intact (not followed)" host_intact
rm -rf "$WS/sub"

# ---- W. the post-run walk ------------------------------------------------------------------------
long=$(printf 'n%.0s' $(seq 200))
check_status "the command makes 4000 entries, then a repository after them" 0 box -- sh -c \
    "mkdir big && cd big && for i in \$(seq 4000); do : >f\$i-$long; done && git init -q zz-repo && git -C zz-repo config core.fsmonitor x"
check "... its config is set aside (found past many getdents64 buffers)" \
    test -e "$WS/big/zz-repo/.git/config.cordon-quarantine"
check_status "the command makes a bare repository among 4000 entries" 0 box -- sh -c \
    "mkdir bare && cd bare && for i in \$(seq 2000); do : >a\$i-$long; done && git init -q --bare . &&
     git config core.fsmonitor x && for i in \$(seq 2000); do : >b\$i-$long; done"
check "... its config is set aside" test -e "$WS/bare/config.cordon-quarantine"
n255=$(printf 'x%.0s' $(seq 255))
check_status "the command makes a repository in a directory with a 255-byte name" 0 \
    box -- sh -c "mkdir -p deep/$n255 && git init -q deep/$n255 && git -C deep/$n255 config core.fsmonitor x"
check "... its config is set aside" test -e "$WS/deep/$n255/.git/config.cordon-quarantine"
rm -rf "$WS/big" "$WS/bare" "$WS/deep"

# A concurrent run of the same workspace renames directories and swaps a
# symlink to the host repository in while other runs' walks read them.
as_user mkdir -p "$WS/race/d/x" "$WS/race/e"
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sh -c \
    "cd race; while [ ! -e stop ]; do mv d e/d 2>/dev/null; ln -sfn '$T/host/repo' d; rm -f d; mv e/d d 2>/dev/null;
     ln -sfn '$T/host/repo/.git' x.git; mv -T x.git d/x/.git 2>/dev/null; rm -f d/x/.git d/x/.git.cordon-quarantine; done"
RACER=$BG_PID
bad=0
for i in $(seq 8); do
    box -- sh -c "git init -q race/r$i 2>/dev/null; true" >/dev/null 2>&1 || bad=$((bad + 1))
    host_intact || bad=$((bad + 100))
done
: >"$WS/race/stop"; wait $RACER 2>/dev/null
[ $bad -eq 0 ] && ok "8 runs' walks racing renames and swapped symlinks: each ran, the host repository intact" ||
    not_ok "8 runs' walks racing renames and swapped symlinks: each ran, the host repository intact ($bad)"
check "... still intact after the racer's own walk" host_intact

# ---- T. .git swapped between plan and mount -------------------------------------------------------
rm -rf "$WS/race" "$WS/.git"/*.cordon-quarantine* "$WS"/.git.cordon-quarantine*
bg_as_user env HOME="$H" "$CORDON" run --backend landlock --workspace "$WS" -C "$WS" -- sh -c \
    "while [ ! -e stop ]; do mv .git .git.real; ln -s '$T/host/repo/.git' .git; rm -f .git; mv .git.real .git; done" \
    2>/dev/null
RACER=$BG_PID
sleep 0.5
codes=
for i in $(seq 20); do box -- true >/dev/null 2>&1; codes="$codes $?"; done
: >"$WS/stop"; wait $RACER 2>/dev/null; rm -f "$WS/stop"
bad=$(tr ' ' '\n' <<<"$codes" | grep -cvxE '0|125|')
[ "$bad" -eq 0 ] && ok "20 runs while .git is swapped for a symlink: each ran or was refused ($codes)" ||
    not_ok "20 runs while .git is swapped for a symlink: each ran or was refused ($codes)"
check "... the host repository is intact" host_intact
check "... .git is the workspace's own directory again" test -d "$WS/.git" -a ! -L "$WS/.git"
check_status "a run after the racer stopped" 0 box -- true

# ---- U. .git moved away while a run that made placeholders in it lives ------------------------------
# (what the racer above hits now and then, made deterministic): the
# launcher removes its placeholders by path at the end, finds none there,
# and drops its journal; the git directory moved back holds them for good.
rm -rf "$WS/.git"; as_user git init -q "$WS"
leftovers() { find "$WS/.git" -maxdepth 2 -perm 444 -size -3c ! -name '*.cordon-quarantine*' | grep -v '/objects/'; }
box -- true >/dev/null 2>&1
check_out "control: no placeholder in .git after a run" "" leftovers
bg_as_user env HOME="$H" "$CORDON" run --workspace "$WS" -C "$WS" -- sleep 3
for i in $(seq 100); do [ -e "$WS/.git/commondir" ] && break; sleep 0.05; done
check "control: the run made its placeholder .git/commondir" test -f "$WS/.git/commondir"
check "a landlock-backend run of the workspace moves .git away meanwhile" \
    box --backend landlock -- mv .git .git.away
wait "$BG_PID"
check "... and back once the first run ended" box --backend landlock -- mv .git.away .git
box -- true >/dev/null 2>&1; box -- true >/dev/null 2>&1
check_out "two runs later no placeholder of the first is left in .git" "" leftovers
done_testing
