#!/bin/bash
# Escape probes: the sandbox attacked the way real escapes have worked.
# Each probe runs unsandboxed first where that is safe (it must succeed
# there), then sandboxed on each backend.
. "$(dirname "$0")/../integration/lib.sh"
me=$( [ "$TEST_AS" = user ] && echo $TEST_UID || echo 0)
mkdir -p "$T/ro" "$T/rw" "$T/outside"
echo "host secret" >"$T/outside/secret"; echo "ro file" >"$T/ro/file"
ln -s "$T/outside/secret" "$T/ro/abs-link"
ln -s ../outside/secret "$T/ro/rel-link"
ln -s "../../../../../../../../..$T/outside/secret" "$T/ro/up-link"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/ro" "$T/rw" "$T/outside"
X="--expose $T/ro --expose $T/rw:rw --expose $T/bin"

# CVE-2017-5226: TIOCSTI pushes keystrokes into the caller's terminal (on
# the linux backend through the command's own terminal; script's EOF for its
# stdin may arrive there as a NUL, echoed "^@": removed). The control: the
# same ioctl on the same kind of terminal, unsandboxed, succeeds (Linux's own
# refusal, dev.tty.legacy_tiocsti=0, would be EIO, not EPERM).
on_pty() {
    local g=$( [ "$TEST_AS" = user ] && echo $TEST_GID || echo 0)
    (cd "$W" && script -qec "$(printf '%q ' setpriv --reuid=$me --regid=$g --clear-groups env HOME="$H" "$@")" /dev/null </dev/null) | tr -d '\r#' | sed 's/\^@//g' | grep . | tail -1
}
got=$(on_pty "$PROBE" tiocsti)
[ "$got" = OK ] && ok "control: TIOCSTI works on a pty unsandboxed" || not_ok "control: TIOCSTI works on a pty unsandboxed ($got)"
for b in linux landlock; do
    got=$(on_pty "$CORDON" run --backend $b -- "$PROBE" tiocsti)
    [ "$got" = EPERM ] && ok "$b: CVE-2017-5226 TIOCSTI on the caller's terminal is refused" || not_ok "$b: CVE-2017-5226 TIOCSTI ($got)"
done

# CVE-2019-5736: reaching the runtime's binary through /proc/PID/exe
check_out "control: /proc/PPID/exe is readable unsandboxed" "OK" as_user sh -c "\"$PROBE\" read /proc/\$\$/exe >/dev/null && echo OK"
out=$(cordon run -- "$PROBE" read /proc/1/exe 2>&1)
case "$out" in ENOENT|EACCES) ok "linux: CVE-2019-5736 /proc/1/exe (the init) cannot be opened ($out)";; *) not_ok "linux: CVE-2019-5736 /proc/1/exe (the init) cannot be opened ($out)";; esac
check_out "landlock: CVE-2019-5736 /proc/PPID/exe (the launcher) cannot be opened" "EACCES" cordon run --backend landlock $X -- sh -c "\"$PROBE\" read /proc/\$PPID/exe"
# The command's own executable, exposed read-only by auto_expose: the kernel
# refuses a write-open of a running binary (ETXTBSY) whatever the sandbox
# does, so the file probed is one that is not running: a script whose "#!"
# line runs "probe openw" on the script itself (only its interpreter runs).
# It belongs to the test user: unsandboxed it opens for writing.
mkdir -p "$T/own"; printf '#!%s openw\n' "$PROBE" >"$T/own/cmd"; chmod 755 "$T/own/cmd"
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/own/cmd"
check_out "control: the command's own file opens for writing unsandboxed" "OK" as_user "$T/own/cmd"
check_out "linux: the command's own file is not writable" "EROFS" cordon run -- "$T/own/cmd"
check_out "landlock: the command's own file is not writable" "EACCES" cordon run --backend landlock -- "$T/own/cmd"
# the running binary itself: only the linux backend's read-only bind comes
# before ETXTBSY (a write with O_TRUNC checks the mount first)
check_out "linux: /proc/self/exe (the running binary) is on a read-only mount" "EROFS" cordon run -- "$T/bin/probe" write /proc/self/exe

# CVE-2024-21626: a leaked host directory fd or working directory
exec 9<"$T/outside"
check_out "control: a leaked dir fd reaches host files" "host secret" as_user "$PROBE" read /proc/self/fd/9/secret
for b in linux landlock; do
    # ENOENT only: a leaked fd meets Landlock too (EACCES), and it is
    # the fd's absence that is the property
    check_out "$b: CVE-2024-21626 no leaked host fd" "ENOENT" cordon run --backend $b -- "$PROBE" read /proc/self/fd/9/secret
done
exec 9<&-
out=$(cordon run -- "$PROBE" stat /proc/1/cwd/. 2>&1)
case "$out" in ENOENT|EACCES) ok "linux: /proc/1/cwd of the init cannot be followed ($out)";; *) not_ok "linux: /proc/1/cwd of the init cannot be followed ($out)";; esac
check_out "control: .. from the working directory reaches the secret unsandboxed" "host secret" \
    sh -c "cd '$W' && $(declare -f as_user); TEST_AS=$TEST_AS TEST_UID=$TEST_UID TEST_GID=$TEST_GID H='$H' as_user '$PROBE' read '../../../../../../..$T/outside/secret'"
check_out "linux: .. from the working directory stays inside" "ENOENT" cordon run -- "$PROBE" read "../../../../../../..$T/outside/secret"

# symlinks and .. in exposed paths
check_out "control: the absolute symlink reaches the secret unsandboxed" "host secret" as_user "$PROBE" read "$T/ro/abs-link"
check_out "control: the relative symlink reaches the secret unsandboxed" "host secret" as_user "$PROBE" read "$T/ro/rel-link"
check_out "control: the symlink with too many .. reaches the secret unsandboxed" "host secret" as_user "$PROBE" read "$T/ro/up-link"
for b in linux landlock; do
    want=$( [ $b = linux ] && echo ENOENT || echo EACCES)
    check_out "$b: an absolute symlink in an exposed dir resolves inside the sandbox" "$want" cordon run --backend $b $X -- "$PROBE" read "$T/ro/abs-link"
    check_out "$b: a relative symlink out of an exposed dir resolves inside the sandbox" "$want" cordon run --backend $b $X -- "$PROBE" read "$T/ro/rel-link"
    check_out "$b: a symlink with more .. than the path has levels stays inside" "$want" cordon run --backend $b $X -- "$PROBE" read "$T/ro/up-link"
done
echo '{"isolation": {"expose_paths": [{"source": "'"$T/ro"'", "target": "/opt/../etc"}]}}' >"$T/dotdot.json"
chmod 644 "$T/dotdot.json"
check_contains ".. in a target is refused" 'must not contain ".."' cordon plan --config "$T/dotdot.json" -- true
check_status "--expose with .. in the target is refused" 125 cordon run --expose "$T/ro:/opt/../etc" -- true

# hard links from a writable dir to a read-only file
check_out "control: a hard link to the file works unsandboxed" "OK" as_user "$PROBE" link "$T/ro/file" "$T/rw/control-link"
for b in linux landlock; do
    # EXDEV: another mount (linux), Landlock's refer right (landlock); as
    # root the landlock backend's sandbox user is refused by the kernel
    # first (protected_hardlinks: the file is not its own)
    want=EXDEV; [ $b = landlock ] && is_root_run && want=EPERM
    check_out "$b: a hard link from the rw dir to a ro file is refused" "$want" cordon run --backend $b $X -- "$PROBE" link "$T/ro/file" "$T/rw/hl-$b"
done

# /proc/1/root, the launcher's environment, ptrace
out=$(cordon run -- "$PROBE" stat /proc/1/root/. 2>&1)
case "$out" in ENOENT|EACCES) ok "linux: /proc/1/root cannot be followed ($out)";; *) not_ok "linux: /proc/1/root cannot be followed ($out)";; esac
out=$(cd "$W" && as_user env CORDON_ESCAPE_MARKER=sk-escape-marker "$CORDON" run -- sh -c 'cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"' 2>&1)
case "$out" in *sk-escape-marker*|"") not_ok "linux: no visible process holds the launcher's environment";;
    *CORDON_SANDBOX=linux*) ok "linux: no visible process holds the launcher's environment (the command's own was read)";;
    *) not_ok "linux: no visible process holds the launcher's environment (the command's own was not read)";; esac
check_contains "control: the launcher's environment is readable unsandboxed" "sk-escape-marker" \
    as_user env CORDON_ESCAPE_MARKER=sk-escape-marker sh -c 'cat /proc/$$/environ | tr "\0" "\n"'
bg_as_user sleep 300 >/dev/null 2>&1
check_out "control: ptrace of a host process works unsandboxed" "OK" as_user "$PROBE" ptrace "$BG_PID"
kill "$BG_PID" 2>/dev/null
bg_as_user sleep 300 >/dev/null 2>&1
check_out "linux: ptrace of the init is refused" "EPERM" cordon run -- "$PROBE" ptrace 1
check_out "landlock: ptrace of a host process is refused" "EPERM" cordon run --backend landlock $X -- "$PROBE" ptrace "$BG_PID"
check_out "landlock: ptrace of the launcher is refused" "EPERM" cordon run --backend landlock $X -- sh -c "\"$PROBE\" ptrace \$PPID"

# mounting, unsharing, devices, /sys
# the probes reach the kernel's own checks unsandboxed (a bad path, a bad
# flag): EPERM inside is the sandbox's
for c in mount unshare; do
    ctl=$(as_user "$PROBE" syscall $c 2>&1)
    case $ctl in EPERM|E\?|"") ctl_ok=refused;; *) ctl_ok=no;; esac
    holds "control: $c is not refused unsandboxed ($ctl)" no echo $ctl_ok || continue
    for b in linux landlock; do
        check_out "$b: $c is refused" "EPERM" cordon run --backend $b -- "$PROBE" syscall $c
    done
done
# unshare(1) -r: the unshare call itself must be refused; a later failure
# (writing uid_map, which the sandbox's /proc also stops) would mean a new
# user namespace was made
userns_made() { as_user unshare -r true >/dev/null 2>&1 && echo made; }
if holds "control: unshare(1) -r creates a user namespace unsandboxed" made userns_made; then
    for b in linux landlock; do
        check_contains "$b: unshare(1) -r: the unshare call itself is refused" "unshare failed: Operation not permitted" \
            cordon run --backend $b -- env LC_ALL=C unshare -r true
    done
fi
# Devices: only the listed pseudo-devices are reachable. The host's disk
# cannot be the target of a read: the user cannot open it unsandboxed, nor
# can root on some hosts (a devices cgroup). The target is a node the test
# user can open, placed in the host's /dev for this test (the numbers of
# /dev/zero: harmless if left behind).
devnode=/dev/cordon-test-zero-$$
mknod -m 600 "$devnode" c 1 5 && chown $me "$devnode"
trap 'rm -f "$devnode"; cleanup_test' EXIT
disk=$(ls /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda 2>/dev/null | head -1)
[ -n "$disk" ] || disk=$(find /dev -maxdepth 1 -type b | head -1)
dev=$devnode
if holds "control: a device node in the host's /dev opens for reading unsandboxed" "OK" as_user "$PROBE" dev-read "$dev"; then
    check_out "linux: a device node of the host's /dev is not in /dev" "ENOENT" cordon run -- "$PROBE" dev-read "$dev"
    check_out "landlock: a device node of the host's /dev cannot be opened" "EACCES" cordon run --backend landlock -- "$PROBE" dev-read "$dev"
fi
if holds "control: the host has a block device to probe" yes sh -c "[ -n '$disk' ] && echo yes"; then
    check_out "control: the host disk node $disk exists" "OK" as_user "$PROBE" stat "$disk"
    check_out "linux: the host disk is not in /dev" "ENOENT" cordon run -- "$PROBE" stat "$disk"
fi
# mknod of a device works as root unsandboxed; in the sandbox no capability
# is left for it. (A user never has it: there the control is EPERM too.)
ctl=EPERM; is_root_run && ctl=OK
if holds "control: mknod of a device node unsandboxed ($ctl)" "$ctl" as_user "$PROBE" dev-mknod "$T/rw/null-control"; then
    for b in linux landlock; do
        check_out "$b: a device node cannot be created" "EPERM" cordon run --backend $b $X -- "$PROBE" dev-mknod "$T/rw/null-$b"
    done
fi
check_out "control: /sys/kernel exists unsandboxed" "OK" as_user "$PROBE" stat /sys/kernel
check_out "linux: /sys is absent" "ENOENT" cordon run -- "$PROBE" stat /sys/kernel
# a file under /sys that opens for writing unsandboxed: a kernel knob as
# root; as the user, the cgroup.procs of a cgroup given to the user
knob=/sys/kernel/mm/transparent_hugepage/enabled
if ! is_root_run || [ ! -e "$knob" ]; then
    cgfs=$(awk '$3 ~ /^cgroup2?$/ && $2 ~ /^\/sys\// {print $2; exit}' /proc/self/mounts)
    cg=$cgfs/cordon-test-$$
    mkdir "$cg" && chown -R $me "$cg"
    trap 'rm -f "$devnode"; rmdir "$cg" 2>/dev/null; cleanup_test' EXIT
    knob=$cg/cgroup.procs
fi
holds "control: ${knob%-$$*} opens for writing unsandboxed" "OK" as_user "$PROBE" openw "$knob" &&
    check_out "landlock: ${knob%-$$*} under /sys cannot be opened for writing" "EACCES" cordon run --backend landlock -- "$PROBE" openw "$knob"

# setuid binaries
cp "$PROBE" "$T/rw/suid"
if is_root_run; then chown $TEST_UID "$T/rw/suid"; else chown 0 "$T/rw/suid"; fi
chmod 4755 "$T/rw/suid"
owner=$(is_root_run && echo $TEST_UID || echo 0)
check_out "control: the setuid bit works on the host" "$me $owner $owner" as_user "$T/rw/suid" setuid-check
for b in linux landlock; do
    self=$(cordon run --backend $b $X -- id -u) # as root on landlock: the sandbox user
    check_out "$b: a setuid binary gains nothing" "$self $self $self" cordon run --backend $b $X -- "$T/rw/suid" setuid-check
done
done_testing
