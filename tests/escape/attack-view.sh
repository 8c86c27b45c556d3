#!/bin/bash
# Attacks on the prepared /etc (fix-startup's src/linux/view.c: the view's
# /etc files copied into <instance>/logs/view/etc-<hash>, bound in one
# mount). Each case has its control; on a build without the prepared /etc
# (main) the cases hold trivially and say so.
#
#   P  a generation directory left without its manifest (a launcher killed
#      while removing it: view.c unlinks etc-X.m first, then the files one
#      by one; or a concurrent run removing it while another builds the
#      same manifest) is adopted as whole by the next run: files missing
#      in /etc, or every run failing on a missing mount point
#   M  a host /etc file's mode: a copy is made 0644, so a 0600 file that
#      the command's uid may not read (as root: owned by another uid, the
#      command has no capability) becomes readable inside
#   A  a host file readable by its mode (0644) but not by the command's uid
#      through a POSIX ACL (user:UID:---): a copy has no ACL
#   S  staleness: a host file rewritten with the same size and its mtime
#      set back exactly (only ctime differs) shows in the next run
#   W  the copies are the caller's own files (a host file is root's):
#      inside they stay read-only whatever the command tries (write,
#      chmod, utimes, a user namespace of its own to remount /etc)
#   R  CORDON_DEBUG=rw-binds with Landlock off (system binds writable): a
#      write to /etc inside must not reach the prepared copies, which every
#      later run would then show
#   L  landlock backend (no mount hides logs/): write, rename or hard-link
#      a copy in logs/view; reach logs/ through /proc/<launcher>/fd (the
#      launcher, same uid, keeps descriptors of logs/ open while it runs)
# The host's /etc is not touched: a mount namespace of its own, a copy of
# /etc bound over it (as tests/escape/view-cache.sh does).
if [ -z "${ATTACK_VIEW_NS:-}" ]; then
    exec env ATTACK_VIEW_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/../integration/lib.sh"

cp -a /etc "$T/etc" && mount --bind "$T/etc" /etc || { not_ok "a private copy of /etc"; done_testing; exit 0; }
sleep 2.2 # the copies' ctime is now: view.c copies nothing changed in the last 2 s
F=/etc/gentoo-release # a file of the view, absent on this host
rm -rf "$F"
V=$H/.cordon/logs/view
old() { touch -h -d '-1 hour' "$@"; sleep 2.2; } # older than view.c's 2 s
newest_gen() { local m; m=$(ls -t "$V"/etc-*.m 2>/dev/null | head -1); [ -n "$m" ] && echo "${m%.m}"; }
# the other uid: one the command does not run as
if is_root_run; then OTHER=65534; else OTHER=0; fi

cordon run -- true
gen=$(newest_gen)
[ -n "$gen" ] && prepared=1 || prepared=0
[ $prepared = 1 ] || echo "# no prepared /etc (a build without view.c): P and L hold trivially"

# ---- P. a half-removed generation -----------------------------------------------------------
check_out "control: /etc/hosts is there inside" "OK" cordon run -- "$PROBE" stat /etc/hosts
check_out "control: so is /etc/ssl (a directory bound on top)" "OK" cordon run -- "$PROBE" stat /etc/ssl
if [ $prepared = 1 ]; then
    # what remove_generation leaves when killed after unlinking the manifest
    rm -f "$gen.m" "$gen/hosts"
    check_out "a generation left without its manifest and without hosts is not adopted: /etc/hosts shows" \
        "OK" cordon run -- "$PROBE" stat /etc/hosts
    check_out "... in the run after that too" "OK" cordon run -- "$PROBE" stat /etc/hosts
    gen=$(newest_gen)
    rm -f "$gen.m"; rmdir "$gen/ssl" 2>/dev/null
    check_status "a generation left without its manifest and without ssl/ does not fail the runs" 0 \
        cordon run -- "$PROBE" stat /etc/ssl
    check_status "... nor the one after" 0 cordon run -- "$PROBE" stat /etc/ssl
    # the same, long ago (replaced once stale), found by 6 concurrent runs at once
    bad=0
    rm -rf "$V" # the half-removed ones above are too recent to be replaced
    cp "$PROBE" "$W/probe" # in the working directory, exposed read-only
    for it in 1 2 3 4 5; do
        cordon run -- true
        gen=$(newest_gen)
        [ -n "$gen" ] || { bad=$((bad + 1)); echo "# no generation made" ; continue; }
        rm -f "$gen.m" "$gen/hosts"; touch -d '-1 hour' "$gen"
        for i in 1 2 3 4 5 6; do
            (cordon run -- sh -c "./probe stat /etc/hosts; ./probe stat /etc/ssl" >"$T/orph.$i" 2>&1
             echo "rc=$?" >>"$T/orph.$i") &
        done
        wait
        for i in 1 2 3 4 5 6; do
            [ "$(tr '\n' ' ' <"$T/orph.$i")" = "OK OK rc=0 " ] || { bad=$((bad + 1)); diag <"$T/orph.$i"; }
        done
    done
    [ $bad -eq 0 ] && ok "30 runs, 6 at a time, each finding a stale half-removed generation: all see hosts and ssl/" ||
        not_ok "30 runs, 6 at a time, each finding a stale half-removed generation: all see hosts and ssl/ ($bad did not)"
else
    ok "no prepared /etc: nothing to adopt (hosts)"; ok "... (again)"
    ok "no prepared /etc: nothing to adopt (ssl)"; ok "... (again)"
    ok "no prepared /etc: nothing to adopt (concurrent)"
fi

rm -rf "$V" # the cases below on a cache of their own

# ---- M. modes of the host's files -----------------------------------------------------------
echo secret >"$F"; chown $OTHER:$OTHER "$F"; chmod 600 "$F"; old "$F"
if is_root_run; then
    check_out "control: the 0600 file of uid $OTHER is readable unsandboxed (root, with capabilities)" "secret" \
        cat "$F"
fi
check_out "control: CORDON_DEBUG=etc-binds (each file bound): the command may not read it" "EACCES" \
    as_user env CORDON_DEBUG=etc-binds sh -c "cd '$W' && '$CORDON' run -- '$PROBE' read '$F'"
check_out "a 0600 host file of another uid is not readable inside" "EACCES" cordon run -- "$PROBE" read "$F"
check_out "... and shows its host mode" "600" cordon run -- stat -c %a "$F"
echo target >"$T/etc/cordon-target"; chown $OTHER:$OTHER "$T/etc/cordon-target"; chmod 600 "$T/etc/cordon-target"
rm "$F"; ln -s /etc/cordon-target "$F"; old "$T/etc/cordon-target"
check_out "a host file that is a symlink to such a file: not readable inside either" "EACCES" \
    cordon run -- "$PROBE" read "$F"
rm -f "$F" "$T/etc/cordon-target"

# ---- A. a POSIX ACL the copy would drop -----------------------------------------------------
me=$(is_root_run && echo 0 || echo $TEST_UID)
echo acl-secret >"$F"; chown $OTHER:$OTHER "$F"; chmod 644 "$F"
if python3 - "$F" "$me" <<'EOS'
import os, struct, sys
# user::rw- user:UID:--- group::r-- mask::r-- other::r--
U = 0xffffffff
e = [(0x01, 6, U), (0x02, 0, int(sys.argv[2])), (0x04, 4, U), (0x10, 4, U), (0x20, 4, U)]
os.setxattr(sys.argv[1], "system.posix_acl_access", struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in e))
EOS
then
    old "$F"
    check_out "control: mode 644, with an ACL entry denying uid $me" "644" stat -c %a "$F"
    check_out "control: CORDON_DEBUG=etc-binds: the command (uid $me) may not read it" "EACCES" \
        as_user env CORDON_DEBUG=etc-binds sh -c "cd '$W' && '$CORDON' run -- '$PROBE' read '$F'"
    check_out "a 0644 host file whose ACL denies the command's uid is not readable inside" "EACCES" \
        cordon run -- "$PROBE" read "$F"
else
    skip "a host file whose ACL denies the command's uid" "no POSIX ACLs where $T lies"
fi
rm -f "$F"

# ---- S. staleness with only ctime changed ---------------------------------------------------
echo aaaa >"$F"; chmod 644 "$F"; old "$F"
check_out "control: the file shows" "aaaa" cordon run -- cat "$F"
touch -r "$F" "$T/ref"; echo bbbb >"$F"; touch -r "$T/ref" "$F"; sleep 2.2
check_out "control: same size, same mtime as before (only ctime differs)" \
    "5 $(stat -c %Y "$T/ref")" stat -c '%s %Y' "$F"
check_out "... and the next run shows the new content" "bbbb" cordon run -- cat "$F"
rm -f "$F"

# ---- W. the copies, the caller's files, stay read-only inside --------------------------------
cordon run -- true
gen=$(newest_gen)
if [ -n "$gen" ]; then
    check_out "control: the copy of hosts is the caller's, writable unsandboxed" "OK" as_user "$PROBE" openw "$gen/hosts"
else
    ok "no prepared /etc: /etc/hosts is the host's file"
fi
denied() { local r; r=$("$@" 2>&1); [ "$r" = EROFS ] || [ "$r" = EACCES ] || { echo "$r"; false; }; }
check "inside, /etc/hosts cannot be opened for writing (EROFS, or EACCES for a host file of root's)" \
    denied cordon run -- "$PROBE" openw /etc/hosts
check "... nor with mount(2) (CORDON_DEBUG=classic-mounts), Landlock off" \
    denied as_user env CORDON_DEBUG=classic-mounts sh -c "cd '$W' && '$CORDON' run --landlock off -- '$PROBE' openw /etc/hosts"
check_out "no file can be created in /etc (classic-mounts and rw-binds, Landlock off)" "EROFS" \
    as_user env CORDON_DEBUG=classic-mounts,rw-binds sh -c "cd '$W' && '$CORDON' run --landlock off -- '$PROBE' create /etc/planted"
check_fails "... nor chmod-ed" cordon run -- chmod 666 /etc/hosts
check_fails "... nor touched" cordon run -- touch /etc/hosts
check_fails "... nor written after remounting /etc in a user namespace of its own" cordon run -- \
    sh -c 'unshare -Urm sh -c "mount -o remount,bind,rw /etc && echo x >>/etc/hosts"'
check_out "... the host's hosts file is intact" "$(md5sum </etc/hosts)" md5sum </etc/hosts
[ -n "$gen" ] && check_out "... and so is the copy" "$(md5sum </etc/hosts)" md5sum <"$gen/hosts" ||
    ok "no prepared /etc: no copy to check"

# ---- R. the debug knob that makes system binds writable ----------------------------------------
cp -p /etc/hosts "$T/hosts.orig"
CORDON_DEBUG=rw-binds cordon run --landlock off -- sh -c 'echo POISON >>/etc/hosts; echo POISON >>/etc/passwd' \
    >/dev/null 2>&1
# (on a build with per-file binds the knob writes the host's file itself, as designed)
check_out "rw-binds, Landlock off: a later run's /etc/hosts is the host's" "$(md5sum </etc/hosts)" \
    cordon run -- sh -c 'md5sum </etc/hosts'
check_fails "... and its /etc/passwd has no line the earlier run wrote" cordon run -- grep -q POISON /etc/passwd
gen=$(newest_gen)
[ -n "$gen" ] && check_fails "... nor has the copy" grep -q POISON "$gen/hosts" "$gen/passwd" ||
    ok "no prepared /etc: no copy to poison"
cp -p "$T/hosts.orig" /etc/hosts

# ---- L. landlock backend ------------------------------------------------------------------------
if [ -n "$gen" ]; then
    check_out "landlock backend: a copy in logs/view cannot be opened for writing" "EACCES" \
        cordon run --backend landlock -- "$PROBE" openw "$gen/hosts"
    check_fails "landlock backend: logs/view cannot be renamed into cache/" \
        cordon run --backend landlock -- mv "$V" "$H/.cordon/cache/view"
    check_fails "landlock backend: a copy cannot be hard-linked into cache/" \
        cordon run --backend landlock -- ln "$gen/hosts" "$H/.cordon/cache/hosts"
    check "... logs/view is still there" test -d "$V" -a -f "$gen/hosts"
else
    for i in 1 2 3 4; do ok "no prepared /etc: nothing in logs/view ($i)"; done
fi
# the launcher's descriptors: the nearest ancestor named cordon
cat >"$W/fds.sh" <<'EOS'
p=$PPID
while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != cordon ]; do p=$(awk '/^PPid/{print $2}' /proc/$p/status); done
[ "$p" -gt 1 ] || { echo "no launcher"; exit 0; }
n=0
for f in /proc/$p/fd/*; do
    if readlink "$f" >/dev/null 2>&1 || ls "$f/" >/dev/null 2>&1 || ( : >>"$f" ) 2>/dev/null; then echo "reached $f"; fi
    n=$((n + 1))
done
echo "tried $n"
EOS
chmod 755 "$W/fds.sh"
bg_as_user env HOME="$H" "$CORDON" run --backend landlock -- sleep 30
sleep 1
check "control: unsandboxed, the caller's process reads the launcher's descriptors" \
    as_user sh -c "readlink /proc/$BG_PID/fd/* | grep -q ."
kill "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null
out=$(cordon run --backend landlock -- sh "$W/fds.sh" 2>&1)
case $out in "tried "[1-9]*) ok "landlock backend: no descriptor of the launcher is reachable through /proc ($out)" ;;
    *) not_ok "landlock backend: no descriptor of the launcher is reachable through /proc"; echo "$out" | diag ;; esac
done_testing
