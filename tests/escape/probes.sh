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
ln -s ../../../../../../../../../etc/shadow "$T/ro/up-link"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$T/ro" "$T/rw" "$T/outside"
X="--expose $T/ro --expose $T/rw:rw --expose $T/bin"

# CVE-2017-5226: TIOCSTI pushes keystrokes into the caller's terminal (on
# the linux backend through the command's own terminal; script's EOF for its
# stdin may arrive there as a NUL, echoed "^@": removed)
for b in linux landlock; do
    got=$(cd "$W" && script -qec "$(printf '%q ' setpriv --reuid=$me --regid=$( [ "$TEST_AS" = user ] && echo $TEST_GID || echo 0) --clear-groups env HOME="$H" "$CORDON" run --backend $b -- "$PROBE" tiocsti)" /dev/null </dev/null | tr -d '\r#' | sed 's/\^@//g' | grep . | tail -1)
    [ "$got" = EPERM ] && ok "$b: CVE-2017-5226 TIOCSTI on the caller's terminal is refused" || not_ok "$b: CVE-2017-5226 TIOCSTI ($got)"
done

# CVE-2019-5736: reaching the runtime's binary through /proc/PID/exe
check_out "control: /proc/PPID/exe is readable unsandboxed" "OK" as_user sh -c "\"$PROBE\" read /proc/\$\$/exe >/dev/null && echo OK"
out=$(cordon run -- "$PROBE" read /proc/1/exe 2>&1)
case "$out" in ENOENT|EACCES) ok "linux: CVE-2019-5736 /proc/1/exe (the init) cannot be opened ($out)";; *) not_ok "linux: CVE-2019-5736 /proc/1/exe (the init) cannot be opened ($out)";; esac
check_out "landlock: CVE-2019-5736 /proc/PPID/exe (the launcher) cannot be opened" "EACCES" cordon run --backend landlock $X -- sh -c "\"$PROBE\" read /proc/\$PPID/exe"
for b in linux landlock; do
    out=$(cordon run --backend $b $X -- "$T/bin/probe" write /proc/self/exe 2>&1)
    case "$out" in EROFS|EACCES|ETXTBSY) ok "$b: the command's own binary is not writable ($out)";; *) not_ok "$b: own binary writable ($out)";; esac
done

# CVE-2024-21626: a leaked host directory fd or working directory
exec 9<"$T/outside"
check_out "control: a leaked dir fd reaches host files" "host secret" as_user "$PROBE" read /proc/self/fd/9/secret
for b in linux landlock; do
    out=$(cordon run --backend $b -- "$PROBE" read /proc/self/fd/9/secret 2>&1)
    case "$out" in ENOENT|EACCES|EBADF) ok "$b: CVE-2024-21626 no leaked host fd ($out)";; *) not_ok "$b: CVE-2024-21626 leaked fd ($out)";; esac
done
exec 9<&-
out=$(cordon run -- "$PROBE" stat /proc/1/cwd/. 2>&1)
case "$out" in ENOENT|EACCES) ok "linux: /proc/1/cwd of the init cannot be followed ($out)";; *) not_ok "linux: /proc/1/cwd of the init cannot be followed ($out)";; esac
check_out "linux: .. from the working directory stays inside" "ENOENT" cordon run -- "$PROBE" read "../../../../../../..$T/outside/secret"

# symlinks and .. in exposed paths
check_out "control: the absolute symlink reaches the secret unsandboxed" "host secret" as_user "$PROBE" read "$T/ro/abs-link"
check_out "control: the relative symlink reaches the secret unsandboxed" "host secret" as_user "$PROBE" read "$T/ro/rel-link"
for b in linux landlock; do
    want=$( [ $b = linux ] && echo ENOENT || echo EACCES)
    check_out "$b: an absolute symlink in an exposed dir resolves inside the sandbox" "$want" cordon run --backend $b $X -- "$PROBE" read "$T/ro/abs-link"
    check_out "$b: a relative symlink out of an exposed dir resolves inside the sandbox" "$want" cordon run --backend $b $X -- "$PROBE" read "$T/ro/rel-link"
    out=$(cordon run --backend $b $X -- "$PROBE" read "$T/ro/up-link" 2>&1)
    case "$out" in ENOENT|EACCES) ok "$b: ../../../etc/shadow through a symlink is unreachable ($out)";; *) not_ok "$b: ../../etc/shadow ($out)";; esac
done
echo '{"isolation": {"expose_paths": [{"source": "'"$T/ro"'", "target": "/opt/../etc"}]}}' >"$T/dotdot.json"
chmod 644 "$T/dotdot.json"
check_contains ".. in a target is refused" 'must not contain ".."' cordon plan --config "$T/dotdot.json" -- true
check_status "--expose with .. in the target is refused" 125 cordon run --expose "$T/ro:/opt/../etc" -- true

# hard links from a writable dir to a read-only file
check_out "control: a hard link to the file works unsandboxed" "OK" as_user "$PROBE" link "$T/ro/file" "$T/rw/control-link"
for b in linux landlock; do
    out=$(cordon run --backend $b $X -- "$PROBE" link "$T/ro/file" "$T/rw/hl-$b" 2>&1)
    case "$out" in EXDEV|EACCES|EPERM) ok "$b: a hard link from the rw dir to a ro file is refused ($out)";; *) not_ok "$b: hard link ($out)";; esac
done

# /proc/1/root, the launcher's environment, ptrace
out=$(cordon run -- "$PROBE" stat /proc/1/root/. 2>&1)
case "$out" in ENOENT|EACCES) ok "linux: /proc/1/root cannot be followed ($out)";; *) not_ok "linux: /proc/1/root cannot be followed ($out)";; esac
out=$(cd "$W" && as_user env CORDON_ESCAPE_MARKER=sk-escape-marker "$CORDON" run -- sh -c 'cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"' 2>&1)
case "$out" in *sk-escape-marker*) not_ok "linux: no visible process holds the launcher's environment";; *) ok "linux: no visible process holds the launcher's environment";; esac
bg_as_user sleep 300 >/dev/null 2>&1
check_out "control: ptrace of a host process works unsandboxed" "OK" as_user "$PROBE" ptrace "$BG_PID"
kill "$BG_PID" 2>/dev/null
bg_as_user sleep 300 >/dev/null 2>&1
check_out "linux: ptrace of the init is refused" "EPERM" cordon run -- "$PROBE" ptrace 1
check_out "landlock: ptrace of a host process is refused" "EPERM" cordon run --backend landlock $X -- "$PROBE" ptrace "$BG_PID"
check_out "landlock: ptrace of the launcher is refused" "EPERM" cordon run --backend landlock $X -- sh -c "\"$PROBE\" ptrace \$PPID"

# mounting, unsharing, devices, /sys
for b in linux landlock; do
    check_out "$b: mount is refused" "EPERM" cordon run --backend $b -- "$PROBE" syscall mount
    check_out "$b: unshare is refused" "EPERM" cordon run --backend $b -- "$PROBE" syscall unshare
    check_fails "$b: unshare(1) -r cannot create a user namespace" cordon run --backend $b -- unshare -r true
done
disk=$(ls /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda 2>/dev/null | head -1)
if [ -n "$disk" ]; then
    check_out "control: the host disk node exists" "OK" "$PROBE" stat "$disk"
    check_out "linux: the host disk is not in /dev" "ENOENT" cordon run -- "$PROBE" stat "$disk"
    out=$(cordon run --backend landlock -- "$PROBE" read "$disk" 2>&1 | head -c 20)
    case "$out" in EACCES|EPERM) ok "landlock: the host disk cannot be read ($out)";; *) not_ok "landlock: host disk ($out)";; esac
fi
check_out "linux: a device node cannot be created" "EPERM" cordon run -- sh -c 'mknod /tmp/null c 1 3 2>/dev/null && echo OK || echo EPERM'
check_out "linux: /sys is absent" "ENOENT" cordon run -- "$PROBE" stat /sys/kernel
if is_root_run && [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
    check_out "control: a sysfs knob opens for writing as root" "OK" "$PROBE" openw /sys/kernel/mm/transparent_hugepage/enabled
    check_out "landlock: sysfs cannot be opened for writing" "EACCES" cordon run --backend landlock -- "$PROBE" openw /sys/kernel/mm/transparent_hugepage/enabled
fi

# setuid binaries
cp "$PROBE" "$T/rw/suid"
if is_root_run; then chown $TEST_UID "$T/rw/suid"; else chown 0 "$T/rw/suid"; fi
chmod 4755 "$T/rw/suid"
for b in linux landlock; do
    check_out "$b: a setuid binary gains nothing" "$me $me $me" cordon run --backend $b $X -- "$T/rw/suid" setuid-check
done
done_testing
