#!/bin/bash
# The sandbox user (src/core/plan-user.c, src/linux/sandbox-user.c): as
# root on the landlock backend (a container's root) the command runs as a
# uid of the instance's own, not root: root's 0600 files are not its own,
# root's processes not its peers, RLIMIT_NPROC binds it (--pids without a
# pids cgroup: container.sh runs this inside one), and what it may write is
# granted by ACLs. Each with its control (--user caller: root's command).
# How an attacker would use the grants, each tried: a hard link in the
# workspace to a root-only file outside (made by an earlier root run), a
# symlink there to a root-only directory, a mount inside the workspace;
# none gets an ACL. As a user: no sandbox user (only root can switch),
# "sandbox" is an error.
. "$(dirname "$0")/../integration/lib.sh"
LL="run --backend landlock --expose $T/bin"
ws=$H/.cordon/workspace
acl_of() { python3 -c 'import os, sys
try: print(len(os.getxattr(sys.argv[1], "system.posix_acl_access", follow_symlinks=False)) > 0)
except OSError: print(False)' "$1"; }

if ! is_root_run; then
    check_out "as a user: the command runs as you" "$TEST_UID" cordon $LL -- id -u
    check_contains "as a user: --user sandbox is an error" "only root can run the command as another user" \
        cordon $LL --user sandbox -- true
    check_status "... 125" 125 cordon $LL --user sandbox -- true
    check_contains "cordon plan --json: no sandbox user" '"sandbox": false' cordon plan --backend landlock --json -- true
    done_testing
    exit 0
fi

uid=$(cordon plan --backend landlock --json -- true | python3 -c 'import json, sys; print(json.load(sys.stdin)["user"]["uid"])')
check_out "control: --user caller runs the command as root (the old behaviour)" "0" cordon $LL --user caller -- id -u
check_out "as root: the command runs as the sandbox user of the plan" "$uid" cordon $LL -- id -u
check_out "... with its gid alone, no supplementary group" "$uid" cordon $LL -- id -G
check_fails "... an id in no /etc/passwd entry" getent passwd "$uid"
check_out "... the same for every run of the instance" "$uid" cordon $LL -- id -u
other=$(cordon plan --backend landlock --home "$T/other-home" --json -- true | python3 -c 'import json, sys; print(json.load(sys.stdin)["user"]["uid"])')
check "... another instance's is another" test "$other" != "$uid"
check_contains "cordon plan says so" "user: the sandbox user, uid $uid" cordon plan --backend landlock -- true
check_contains "cordon check: the step is tried" "sandbox user: ok" cordon check --backend landlock
check_contains "--user sandbox on the linux backend is an error" "the linux backend runs the command as you" \
    cordon run --user sandbox -- true
# root of a user namespace that maps no other id (a rootless container's):
# not the host's root, no other id to become (unshare -r maps 0 alone)
if unshare -U -r true 2>/dev/null; then
    check_out "root of a user namespace mapping no other id: the command stays that root" "0" \
        sh -c "cd '$W' && HOME='$H' unshare -U -r '$CORDON' $LL -- id -u"
    check_contains "... and --user sandbox says why it cannot be" "maps no other id" \
        sh -c "cd '$W' && HOME='$H' unshare -U -r '$CORDON' $LL --user sandbox -- true"
fi

# -- root's files
echo root-secret >"$T/secret" && chmod 600 "$T/secret"
check_out "control: root's command reads root's 0600 file (exposed)" "root-secret" \
    cordon $LL --user caller --expose-ro "$T/secret" -- cat "$T/secret"
check_contains "sandbox user: root's 0600 file is not readable, even exposed" "Permission denied" \
    cordon $LL --expose-ro "$T/secret" -- cat "$T/secret"

# -- root's processes
sleep 60 &
root_pid=$!
CLEANUP_PIDS="${CLEANUP_PIDS:-} $root_pid"
check_out "control: root's process can be signalled (kill 0) unsandboxed" "OK" "$PROBE" kill "$root_pid" 0
check_out "sandbox user: root's process cannot be signalled" "EPERM" cordon $LL -- "$PROBE" kill "$root_pid" 0
check_out "sandbox user: nor traced" "EPERM" cordon $LL -- "$PROBE" ptrace "$root_pid"

# -- the process limit
forks='import os, sys, time
n = 0
for i in range(60):
    try:
        if os.fork() == 0:
            time.sleep(3); os._exit(0)
        n += 1
    except OSError:
        break
print(n)'
check_out "control: without --pids the command starts 60 processes" "60" cordon $LL -- python3 -c "$forks"
got=$(cordon $LL --pids 10 -- python3 -c "$forks" 2>/dev/null)
check "sandbox user: --pids 10 bounds a fork loop (started: $got)" test -n "$got" -a "${got:-99}" -lt 10
check_contains "... by the pids cgroup or RLIMIT_NPROC of the sandbox user" "pids=10 (by " \
    cordon plan --backend landlock --pids 10 -- true

# -- the workspace, granted by ACLs, the user's files keep their owner
cordon $LL -- true
echo root-file >"$ws/mine" && chmod 644 "$ws/mine"
mkdir -p "$ws/repo" && git -C "$ws/repo" init -q && git -C "$ws/repo" -c user.name=r -c user.email=r@r commit -q --allow-empty -m root
check_out "sandbox user: the user's file in the workspace is writable, and chmod +x works" "root-file more 755" \
    cordon $LL -- sh -c "echo more >>'$ws/mine' && chmod 755 '$ws/mine' && echo \$(cat '$ws/mine') \$(stat -c %a '$ws/mine')"
check_out "... it keeps its owner (root)" "0" stat -c %u "$ws/mine"
cordon $LL -- touch "$ws/new"
check_out "... what the command makes is the sandbox user's" "$uid" stat -c %u "$ws/new"
check "... its git commits in the user's repository (told it is safe)" \
    cordon $LL -- git -C "$ws/repo" -c user.name=s -c user.email=s@s commit -q --allow-empty -m sandbox
check_out "... and root's git still trusts it (owner unchanged)" "sandbox" git -C "$ws/repo" log -1 --format=%s

# -- attacks on the grants: none reaches outside the writable paths
mkdir -p "$T/outside-dir" && echo s >"$T/outside-dir/f" && chmod 700 "$T/outside-dir" && chmod 600 "$T/outside-dir/f"
echo s >"$T/outside-file" && chmod 600 "$T/outside-file"
ln "$T/outside-file" "$ws/hardlink" # an earlier root run could make it
ln -s "$T/outside-dir" "$ws/symlink"
mkdir -p "$ws/mnt" && own_fs "$ws/mnt" && echo s >"$ws/mnt/f" && chmod 600 "$ws/mnt/f"
check_out "control: the hard link is a second name of the outside file" "2" stat -c %h "$T/outside-file"
cordon $LL -- true
check_contains "a hard link in the workspace to a root-only file outside: not readable" "Permission denied" \
    cordon $LL -- cat "$ws/hardlink"
check_out "... and the outside file got no ACL" "False" acl_of "$T/outside-file"
check_out "a symlink in the workspace to a root-only directory: it got no ACL" "False" acl_of "$T/outside-dir"
check_out "... nor its file" "False" acl_of "$T/outside-dir/f"
if mountpoint -q "$ws/mnt"; then
    check_out "a mount inside the workspace is not crossed: its file got no ACL" "False" acl_of "$ws/mnt/f"
fi
check_out "control: the workspace's own file did get one" "True" acl_of "$ws/mine"

# -- the directories above: search, and no more
mkdir -p "$T/private" && chmod 700 "$T/private" && echo p >"$T/private/other" && chmod 644 "$T/private/other"
check_out "an instance below a directory others cannot search (a container's /root): runs" "ok" \
    cordon $LL --home "$T/private/inst" -- sh -c 'echo x >"$HOME/f" && echo ok'
check_contains "... that directory got search for the sandbox user, not read" "user:$(cordon plan --backend landlock --home "$T/private/inst" --json -- true | python3 -c 'import json, sys; print(json.load(sys.stdin)["user"]["uid"])'):--x" \
    getfacl -cn "$T/private"
done_testing
