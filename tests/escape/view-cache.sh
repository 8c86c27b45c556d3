#!/bin/bash
# The prepared /etc (src/linux/view.c): the system view's /etc files copied
# once into <instance>/logs/view/etc-<hash> and bound in one mount.
#
# How an attacker would use this surface, each tested below:
#   A  write the copies: through /etc inside (read-only by the mount, with
#      Landlock off too), through logs/view inside (hidden under logs/'s
#      tmpfs; on the landlock backend logs/ gets no right)
#   B  poison it for a later run: a command plants files where the cache
#      lives (it cannot reach logs/); a symlink put in place of logs/view or
#      of a generation directory is not followed (controls: the same fake
#      as a real directory is what cordon would read); a generation left
#      without its manifest (a killed launcher) is not used, and replaced
#      once stale
#   C  staleness: a host file changed in place (same size), replaced by a
#      symlink, a directory or a fifo, removed, or changed within the last
#      seconds: the next run shows the host's file as it is now; one not
#      readable by all is not copied (a copy would show it to the caller's
#      command)
#   D  a hard link instead of a copy (the host's inode writable through it):
#      the copy is a file of its own
#   E  concurrent runs rebuilding it: all see the new file, none fails, no
#      temporary directory is left; a long run keeps its generation while a
#      later run removes the unused ones
# The host's /etc is not touched: the test runs in a mount namespace of its
# own with a copy of /etc bound over it.
if [ -z "${VIEW_CACHE_NS:-}" ]; then
    exec env VIEW_CACHE_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/../integration/lib.sh"

cp -a /etc "$T/etc" && mount --bind "$T/etc" /etc || { not_ok "a private copy of /etc"; done_testing; exit 0; }
F=/etc/gentoo-release # in the view when it exists, absent on this host
rm -rf "$F"
V=$H/.cordon/logs/view
old() { touch -h -d '-1 hour' "$@"; sleep 2.2; } # ctime stays now: older than view.c's 2 s
copied() { grep -qs "^copy gentoo-release $1 " "$V"/etc-*.m; }

# ---- C. staleness ------------------------------------------------------------------------------
check_out "control: an /etc entry of the view absent on the host is absent inside" "ENOENT" \
    cordon run -- "$PROBE" stat "$F"
echo one >"$F"; chmod 644 "$F"; old "$F"
check_out "a new host file shows in the next run" "one" cordon run -- cat "$F"
check "... from the prepared /etc (its manifest copies it)" copied "$F"
echo two >"$F"; old "$F"
check_out "a host file changed in place (same size) shows in the next run" "two" cordon run -- cat "$F"
echo six >"$F"
check_out "a host file changed this very second shows too (bound on its own)" "six" cordon run -- cat "$F"
check_out "control: CORDON_DEBUG=etc-binds shows the same file" "six" \
    as_user env CORDON_DEBUG=etc-binds sh -c "cd '$W' && '$CORDON' run -- cat '$F'"
echo target >"$T/etc/cordon-target"; chmod 644 "$T/etc/cordon-target"; old "$T/etc/cordon-target"
rm "$F"; ln -s /etc/cordon-target "$F"
check_out "a host file replaced by a symlink shows the link's target" "target" cordon run -- cat "$F"
check "... copied from the target" copied /etc/cordon-target
rm "$F"; mkdir "$F"; echo inside >"$F/x"; chmod -R go+rX "$F"
check_out "a host file replaced by a directory shows the directory" "inside" cordon run -- cat "$F/x"
check_out "... read-only" "EROFS" cordon run --landlock off -- "$PROBE" create "$F/y"
rm -r "$F"; mkfifo -m 644 "$F"
check_out "a host file replaced by a fifo shows a fifo, and the run does not hang" "fifo" \
    as_user timeout 30 sh -c "cd '$W' && '$CORDON' run -- sh -c 'test -p $F && echo fifo'"
rm "$F"
echo secret >"$F"; chmod 600 "$F"; old "$F"
want=secret; [ "$TEST_AS" = user ] && want=EACCES
check_out "a host file not readable by all is bound, not copied (read as on the host: $want)" "$want" \
    cordon run -- "$PROBE" read "$F"
check "... its manifest binds it" grep -qs "^point gentoo-release$" "$V"/etc-*.m
rm "$F"
check_out "a removed host file is absent in the next run" "ENOENT" cordon run -- "$PROBE" stat "$F"
echo one >"$F"; chmod 644 "$F"; old "$F"
check_out "with mount(2) (CORDON_DEBUG=classic-mounts) too" "one" \
    as_user env CORDON_DEBUG=classic-mounts sh -c "cd '$W' && '$CORDON' run -- cat '$F'"

check_contains "--log-plan says /etc is a prepared copy, and where" "/etc: the files above are copies in $V/etc-" \
    cordon run --log-plan -- true
as_user env CORDON_DEBUG=etc-binds sh -c "cd '$W' && '$CORDON' run --log-plan -- true" >"$T/lp.out" 2>&1
check_out "control: with CORDON_DEBUG=etc-binds it does not" "0" sh -c "grep -c '^/etc: the files' '$T/lp.out'"

# ---- D. copies, never hard links ---------------------------------------------------------------
cordon run -- true
gen=$(ls -t "$V"/etc-*.m | head -1); gen=${gen%.m} # the newest: made by the run above
if [ -n "$gen" ] && [ -f "$gen/gentoo-release" ]; then
    check "the prepared file is a copy: another inode than the host's" \
        test "$(stat -c %i "$gen/gentoo-release")" != "$(stat -c %i "$F")"
    check_out "... with one link" "1" stat -c %h "$gen/gentoo-release"
else
    not_ok "the prepared file is a copy (no generation holds $F)"
fi

# ---- A. writing the copies ---------------------------------------------------------------------
check_out "control: the host file is writable on the host" "OK" "$PROBE" openw "$F"
check_out "/etc/gentoo-release is read-only inside, Landlock off (EROFS)" "EROFS" \
    cordon run --landlock off -- "$PROBE" openw "$F"
check_out "/etc/passwd (generated, in the copy) is read-only inside (EROFS)" "EROFS" \
    cordon run --landlock off -- "$PROBE" openw /etc/passwd
check_out "control: logs/view exists on the host" "OK" as_user "$PROBE" stat "$V"
check_out "logs/view is not visible inside (logs/ is an empty tmpfs)" "ENOENT" cordon run -- "$PROBE" stat "$V"
check_out "control: logs/view is writable unsandboxed" "OK" as_user "$PROBE" create "$V/planted"
rm -f "$V/planted"
check_out "a command cannot plant a file in logs/view" "ENOENT" cordon run -- "$PROBE" create "$V/planted"
check_out "landlock backend: a command cannot plant a file in logs/view" "EACCES" \
    cordon run --backend landlock -- "$PROBE" create "$V/planted"
check "... nothing was planted" test ! -e "$V/planted"

# ---- B. poisoning by a swapped path ------------------------------------------------------------
if [ -n "$gen" ]; then
    name=$(basename "$gen")
    mkdir -p "$T/evil"; cp -a "$V" "$T/evil/view"; chmod u+w "$T/evil/view/$name/gentoo-release"
    echo EVIL >"$T/evil/view/$name/gentoo-release"
    [ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/evil"
    mv "$V" "$T/real-view"; mv "$T/evil/view" "$V"
    check_out "control: a fake generation as the real directory is what cordon reads" "EVIL" cordon run -- cat "$F"
    mv "$V" "$T/evil/view"; ln -s "$T/evil/view" "$V"
    check_out "logs/view replaced by a symlink to that fake is not followed" "one" cordon run -- cat "$F"
    rm "$V"; mv "$T/real-view" "$V"
    mv "$V/$name" "$V/$name.real"; ln -s "$T/evil/view/$name" "$V/$name"
    check_out "a generation replaced by a symlink to the fake is not followed" "one" cordon run -- cat "$F"
    rm "$V/$name"; mv "$V/$name.real" "$V/$name"
    check_out "... and the real one is used again" "one" cordon run -- cat "$F"
    # a launcher killed between renaming a generation into place and writing its manifest
    rm "$V/$name.m"; chmod u+w "$V/$name/gentoo-release"; echo EVIL >"$V/$name/gentoo-release"
    check_out "a generation without its manifest is not used (each file is bound)" "one" cordon run -- cat "$F"
    check "... nor given a manifest" test ! -e "$V/$name.m"
    touch -d '-1 hour' "$V/$name"
    check_out "once stale it is replaced by a whole one" "one" cordon run -- cat "$F"
    check "... with its manifest" test -e "$V/$name.m"
    check_out "... holding the host's file" "one" cat "$V/$name/gentoo-release"
fi

# ---- E. concurrent runs, long runs ---------------------------------------------------------------
echo ten >"$F"; old "$F"
for i in 1 2 3 4 5 6; do (cordon run -- cat "$F" >"$T/par.$i" 2>&1; echo $? >>"$T/par.$i") & done
wait
bad=0; for i in 1 2 3 4 5 6; do [ "$(tr '\n' ' ' <"$T/par.$i")" = "ten 0 " ] || bad=$((bad + 1)); done
[ $bad -eq 0 ] && ok "6 concurrent runs after a change all show the new file" || {
    not_ok "6 concurrent runs after a change all show the new file ($bad did not)"; cat "$T"/par.* | diag; }
check_out "... and leave no temporary directory" "" sh -c "ls '$V' | grep '^tmp-'"
echo ele >"$F"; old "$F"
(cordon run -- sh -c 'sleep 6; cat /etc/gentoo-release' >"$T/long.out" 2>&1) &
long=$!
sleep 2
echo twe >"$F"; old "$F"; touch -d '-1 hour' "$V"/*.m
check_out "a later run after a change shows the new file" "twe" cordon run -- cat "$F"
wait $long
check_out "... while a long run keeps its generation (not removed under it)" "ele" cat "$T/long.out"
n_before=$(ls "$V" | grep -c '\.m$')
echo thi >"$F"; old "$F"; touch -d '-1 hour' "$V"/*.m
cordon run -- true
n_after=$(ls "$V" | grep -c '\.m$')
[ "$n_after" -lt "$n_before" ] && ok "control: once unused, old generations are removed ($n_before -> $n_after)" ||
    not_ok "control: once unused, old generations are removed ($n_before -> $n_after)"
rm -f "$F" "$T/etc/cordon-target"
done_testing
