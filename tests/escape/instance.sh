#!/bin/bash
# The instance root against the command: cordon's own state (logs/ with the
# placeholder journals it acts on, skills/ that the host agent trusts)
# never lies where the command can write, and what cordon reads there is
# checked before it acts on it.
#
# How an attacker would use this surface, each tested below:
#   A  an instance root the command can write: equal to the workspace, one
#      or two levels inside it (the command renames the parent and builds a
#      fake instance), inside an rw exposure or an rw-exposed cwd; given by
#      --home, $CORDON_HOME, isolation.home or the default $HOME/.cordon;
#      reached through a symlink or a bind mount of the user's (aliases)
#   B  a writable path inside the instance beyond its workspace/: the root
#      itself, logs/, skills/, cache/ as the workspace or an rw exposure
#      (<home>/workspace and below stay allowed: the default layout)
#   C  a planted placeholder journal (logs/placeholders.*): a line without
#      an inode (0) or with a wrong device, a hostile number ("-1"), a path
#      outside this run's writable mounts, a line split by its length: none
#      removes a host file (control: the same journal with the right inode
#      is acted on, so the journal sits where cordon reads it)
#   D  logs/ or skills/ swapped: a symlink, a renamed directory replaced by
#      a fresh one, one open to other users; the record of them read-only
#      inside, on both backends
# Each layout is refused on the linux and the landlock backend, with exit
# status 125 and a message naming the flag or key, and nothing is created.
. "$(dirname "$0")/../integration/lib.sh"

OUT=$T/outside
U=$T/u  # the test user's own scratch (instance roots)
mkdir -p "$OUT" "$T/ws" "$U"
own() { if [ "$TEST_AS" = user ]; then chown -R $TEST_UID:$TEST_GID "$@"; fi; }
own "$OUT" "$T/ws" "$U"
cdn() { (cd "$W" && as_user timeout -k 5 60 "$CORDON" "$@"); }
capture() { "$@" >"$T/.out" 2>&1; RC=$?; }
# refused DESC NEEDLE [OR]: the last capture exited 125 naming NEEDLE (or
# OR: the writable-path check of the flags and keys, which comes first,
# refuses the same layouts naming the flag as typed)
ROOT_ABOVE="is the instance root or above it"
refused() {
    if [ "$RC" -eq 125 ] && { grep -qF -- "$2" "$T/.out" || { [ -n "${3:-}" ] && grep -qF -- "$3" "$T/.out"; }; }; then ok "$1"; else
        not_ok "$1 (status $RC, want 125 and \"$2\")"; diag <"$T/.out"; fi
}
fresh() { rm -rf "$1"; mkdir -p "$1"; own "$1"; }

for be in linux landlock; do
    # ---- A. an instance root the command can write ----------------------------------------
    fresh "$T/ws/a"
    WS=$T/ws/a
    capture cdn run --backend $be --workspace "$WS" --home "$U/inst-a" -C "$WS" -- true
    if [ "$RC" -eq 0 ]; then ok "$be: control: an instance root outside the workspace runs"; else
        not_ok "$be: control: an instance root outside the workspace runs (status $RC)"; diag <"$T/.out"; fi
    capture cdn run --backend $be --workspace "$WS" --home "$WS" -C "$WS" -- true
    refused "$be: --home equal to the workspace is refused" "--home or isolation.home" "$ROOT_ABOVE"
    capture cdn run --backend $be --workspace "$WS" --home "$WS/inst" -C "$WS" -- true
    refused "$be: --home one level inside the workspace is refused" "lies inside the writable path $WS" "$ROOT_ABOVE"
    capture cdn run --backend $be --workspace "$WS" --home "$WS/x/y/inst" -C "$WS" -- true
    refused "$be: --home two levels inside the workspace is refused" "--workspace or isolation.workspace" "--workspace $WS: $WS $ROOT_ABOVE"
    check "... and nothing was created" test ! -e "$WS/inst" -a ! -e "$WS/x"
    echo "{\"isolation\": {\"home\": \"$WS/c/inst\"}}" >"$T/home.json"; chmod 644 "$T/home.json"
    capture cdn run --backend $be --config "$T/home.json" --workspace "$WS" -C "$WS" -- true
    refused "$be: isolation.home inside the workspace is refused" "isolation.home" "$ROOT_ABOVE"
    capture as_user env CORDON_HOME="$WS/e/inst" timeout 60 "$CORDON" run --backend $be --workspace "$WS" -C "$WS" -- true
    refused "$be: \$CORDON_HOME inside the workspace is refused" "\$CORDON_HOME" "$ROOT_ABOVE"
    capture as_user env HOME="$WS/home" timeout 60 "$CORDON" run --backend $be --workspace "$WS" -C "$WS" -- true
    refused "$be: the default \$HOME/.cordon inside the workspace is refused" "\$HOME/.cordon" "is your home directory or above it"
    fresh "$T/ws/rw"
    capture cdn run --backend $be --workspace "$WS" --home "$T/ws/rw/inst" --expose "$T/ws/rw:rw" -C "$WS" -- true
    refused "$be: --home inside an rw exposure is refused" "--expose, isolation.expose_paths" "$ROOT_ABOVE"
    echo '{"isolation": {"auto_expose": {"cwd": "rw"}}}' >"$T/cwd.json"; chmod 644 "$T/cwd.json"
    capture cdn run --backend $be --config "$T/cwd.json" --workspace "$WS" --home "$T/ws/rw/inst" -C "$T/ws/rw" -- true
    refused "$be: --home inside a cwd exposed read-write is refused" "auto_expose.cwd"
    ln -sfn "$WS" "$T/ws-link"
    capture cdn run --backend $be --workspace "$WS" --home "$T/ws-link/l/inst" -C "$WS" -- true
    refused "$be: --home through a symlink to the workspace is refused" "(that is, $WS/l/inst)"
    mkdir -p "$T/alias"
    if mount --bind "$WS" "$T/alias"; then
        capture cdn run --backend $be --workspace "$WS" --home "$T/alias/b/inst" -C "$WS" -- true
        refused "$be: --home through a bind mount of the workspace is refused" "lies inside the writable path $WS" "$ROOT_ABOVE"
        capture cdn run --backend $be --workspace "$T/alias" --home "$WS/b/inst" -C "$WS" -- true
        refused "$be: a workspace that is a bind mount above --home is refused" "$T/alias"
        umount "$T/alias"
    else
        not_ok "$be: mount --bind for the alias tests"
    fi

    # ---- B. a writable path inside the instance beyond its workspace/ ----------------------
    I=$U/inst-b
    cdn run --backend $be --home "$I" -C / -- true >/dev/null 2>&1
    for sub in "" /logs /skills /cache; do
        why="outside its workspace/"; [ -z "$sub" ] && why="is or lies inside the writable path $I "
        capture cdn run --backend $be --home "$I" --workspace "$I$sub" -C / -- true
        refused "$be: the workspace $I$sub inside the instance root is refused" "$why" "$ROOT_ABOVE"
        capture cdn run --backend $be --home "$I" --expose "$I$sub:rw" -C / -- true
        refused "$be: an rw exposure of $I$sub is refused" "--expose, isolation.expose_paths" "$ROOT_ABOVE"
    done
    mkdir -p "$I/workspace/sub"; own "$I"
    capture cdn run --backend $be --home "$I" -C "$I/workspace" -- "$PROBE" create "$I/workspace/ok-$be"
    if [ "$RC" -eq 0 ] && grep -qx OK "$T/.out"; then ok "$be: the default <home>/workspace still works"; else
        not_ok "$be: the default <home>/workspace still works (status $RC)"; diag <"$T/.out"; fi
    capture cdn run --backend $be --home "$I" --workspace "$I/workspace/sub" --expose "$I/workspace:rw" -C / -- true
    if [ "$RC" -eq 0 ]; then ok "$be: a workspace and an rw exposure in <home>/workspace are allowed"; else
        not_ok "$be: a workspace and an rw exposure in <home>/workspace are allowed (status $RC)"; diag <"$T/.out"; fi

    # ---- D. the record of logs/ and skills/ cannot be changed inside -----------------------
    as_user "$PROBE" create "$I/workspace/fake" >/dev/null
    capture cdn run --backend $be --home "$I" -C "$I/workspace" -- "$PROBE" rename "$I/workspace/fake" "$I/instance-id"
    case $(head -1 "$T/.out") in E*) ok "$be: the record cannot be replaced inside ($(head -1 "$T/.out"))";;
        *) not_ok "$be: the record cannot be replaced inside"; diag <"$T/.out";; esac
    capture cdn run --backend $be --home "$I" -C "$I/workspace" -- "$PROBE" unlink "$I/instance-id"
    case $(head -1 "$T/.out") in E*) ok "$be: the record cannot be removed inside ($(head -1 "$T/.out"))";;
        *) not_ok "$be: the record cannot be removed inside"; diag <"$T/.out";; esac
    capture cdn run --backend $be --home "$I" -C "$I/workspace" -- "$PROBE" rename "$I/logs" "$I/workspace/l"
    case $(head -1 "$T/.out") in E*) ok "$be: logs/ cannot be renamed inside ($(head -1 "$T/.out"))";;
        *) not_ok "$be: logs/ cannot be renamed inside"; diag <"$T/.out";; esac
    check "... and the record and logs/ are still there" test -f "$I/instance-id" -a -d "$I/logs"
done

I=$U/inst-ctl
cdn run --home "$I" -C / -- true >/dev/null 2>&1
as_user "$PROBE" create "$I/workspace/fake" >/dev/null
check_out "control: unisolated, the record can be replaced" OK as_user "$PROBE" rename "$I/workspace/fake" "$I/instance-id"
check_out "control: unisolated, the record can be removed" OK as_user "$PROBE" unlink "$I/instance-id"
check_out "control: unisolated, logs/ can be renamed" OK as_user "$PROBE" rename "$I/logs" "$I/workspace/l"

# ---- C. a planted placeholder journal -------------------------------------------------------
# The journal of a killed run is repaired by the next run that protects
# paths (a repository in its workspace). Planted here from the host: in the
# layouts cordon allows, the command cannot write logs/.
I=$U/inst-c
WS=$T/ws/c
fresh "$WS"
as_user env GIT_CONFIG_NOSYSTEM=1 git init -q "$WS"
cdn run --home "$I" --workspace "$WS" -C "$WS" -- true >/dev/null 2>&1
check "control: the instance's logs/ exists" test -d "$I/logs"
# victim NAME [DIR]: a 5-byte file of the test user's; its "dev ino"
victim() { local f=${2:-$WS}/$1; echo data >"$f"; own "$f"; stat -c '%d %i' "$f"; }
# plant LINE...: a dead run's journal in logs/ (no lock held on it)
plant() { printf '%s\n' "$@" >"$I/logs/placeholders.999.1.0"; own "$I/logs/placeholders.999.1.0"; }
run_repair() { cdn run --home "$I" --workspace "$WS" -C "$WS" -- true >/dev/null 2>&1; }
read -r dev ino < <(victim good)
plant "$dev $ino f 5 $WS/good"
run_repair
check "control: a journal line with the file's own inode removes it (repair acts)" test ! -e "$WS/good"
check "... and the journal is gone" test ! -e "$I/logs/placeholders.999.1.0"
read -r dev ino < <(victim zero)
plant "$dev 0 f 5 $WS/zero" "0 $ino f 5 $WS/zero" "0 0 f 5 $WS/zero"
run_repair
check "a journal line without an inode or a device (0) removes nothing" test -f "$WS/zero"
read -r dev ino < <(victim dev)
plant "$((dev + 1)) $ino f 5 $WS/dev"
run_repair
check "a journal line with another device removes nothing" test -f "$WS/dev"
read -r dev ino < <(victim neg)
plant "-$dev $ino f 5 $WS/neg" " $dev $ino f 5 $WS/neg" "$dev $ino f 5 $WS/./neg" "$dev $ino f 5 $WS//neg" \
    "$dev $ino d 5 $WS/neg" "$dev $ino f 18446744073709551621 $WS/neg"
run_repair
check "hostile numbers and unnormalised paths remove nothing" test -f "$WS/neg"
read -r dev ino < <(victim far "$OUT")
plant "$dev $ino f 5 $OUT/far"
run_repair
check "a journal line outside this run's writable mounts removes nothing" test -f "$OUT/far"
check "... and that journal is kept for a run there" test -e "$I/logs/placeholders.999.1.0"
rm -f "$I/logs/placeholders.999.1.0"
read -r dev ino < <(victim split)
# fgets reads 4191 bytes at a time: the entry starts the line's second piece
printf '%s%s\n' "$(printf '%*s' 4191 '' | tr ' ' y)" "$dev $ino f 5 $WS/split" >"$I/logs/placeholders.999.1.0"
own "$I/logs/placeholders.999.1.0"
run_repair
check "a line longer than a path, ending in a valid entry, removes nothing" test -f "$WS/split"

# ---- D. logs/ and skills/ swapped ------------------------------------------------------------
I=$U/inst-d
cdn run --home "$I" -C / -- true >/dev/null 2>&1
check "control: cordon recorded logs/ and skills/" grep -q "^logs $(stat -c %i "$I/logs")\$" "$I/instance-id"
mv "$I/logs" "$I/logs.old"; mkdir -m 700 "$I/logs"; own "$I/logs"
for be in linux landlock; do
    capture cdn run --backend $be --home "$I" -C / -- true
    refused "$be: a logs/ renamed and replaced is refused" "is not the directory cordon recorded"
done
rmdir "$I/logs"; ln -s logs.old "$I/logs"
capture cdn run --home "$I" -C / -- true
refused "a logs/ that is a symlink is refused" "symlink"
rm "$I/logs"; mv "$I/logs.old" "$I/logs"
capture cdn run --home "$I" -C / -- true
if [ "$RC" -eq 0 ]; then ok "control: the recorded logs/ back in place runs"; else
    not_ok "control: the recorded logs/ back in place runs (status $RC)"; diag <"$T/.out"; fi
chmod 755 "$I/logs"
capture cdn run --home "$I" -C / -- true
refused "a logs/ open to other users is refused" "open to other users"
chmod 700 "$I/logs"
mv "$I/skills" "$I/skills.old"; mkdir -m 700 "$I/skills"; own "$I/skills"
capture cdn run --home "$I" -C / -- true
refused "a skills/ renamed and replaced is refused" "$I/skills is not the directory"
rm -f "$I/instance-id"
capture cdn run --home "$I" -C / -- true
if [ "$RC" -eq 0 ]; then ok "after removing the record (the hint), the run records again"; else
    not_ok "after removing the record (the hint), the run records again (status $RC)"; diag <"$T/.out"; fi
done_testing
