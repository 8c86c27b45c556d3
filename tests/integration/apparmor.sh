#!/bin/bash
# Ubuntu 23.10+ restricts unprivileged user namespaces with AppArmor: what
# `cordon check` and `cordon run` say there, and what `make install` puts in
# place. This kernel has no AppArmor: the restriction is reproduced with what
# it looks like to cordon, in a user and mount namespace of the test's own
# (creating user namespaces is refused there: max_user_namespaces = 0; and
# /proc/sys/kernel holds apparmor_restrict_unprivileged_userns = 1).
. "$(dirname "$0")/lib.sh"

# restricted SYSCTL_VALUE CMD...: CMD where creating user namespaces fails and
# the AppArmor sysctl reads SYSCTL_VALUE (none: the file is absent); the
# stand-in sysctl directories are made in $T (removed with it)
cat >"$T/restricted.sh" <<'SH'
set -e
d=$1; v=$2; shift 2
echo 0 >/proc/sys/user/max_user_namespaces
mkdir "$d/kernel" "$d/user"
[ "$v" = none ] || echo "$v" >"$d/kernel/apparmor_restrict_unprivileged_userns"
mount --bind "$d/kernel" /proc/sys/kernel
mount --bind "$d/user" /proc/sys/user
exec "$@"
SH
restricted() {
    local d
    d=$(mktemp -d "$T/restricted.XXXXXX") && chmod 755 "$d" || return 125
    [ "$TEST_AS" = user ] && chown "$TEST_UID:$TEST_GID" "$d"
    (cd "$W" && as_user unshare -U -r -m sh "$T/restricted.sh" "$d" "$@")
}

# -- cordon check
# (check_* write $T/.out: what is looked at later is copied first)
check_status "control: cordon check passes on this host" 0 cordon check
cp "$T/.out" "$T/host.out"
check "control: ... says user namespaces: yes" grep -qx "user namespaces: yes" "$T/host.out"
check_fails "control: ... and nothing of AppArmor" grep -q AppArmor "$T/host.out"
check_status "control: without the AppArmor sysctl, check fails on the refused namespaces" 1 \
    restricted none "$CORDON" check
cp "$T/.out" "$T/none.out"
check "control: ... says user namespaces: no" grep -qx "user namespaces: no" "$T/none.out"
check_fails "control: ... without naming AppArmor" grep -q AppArmor "$T/none.out"
check_status "restricted: cordon check exits 1" 1 restricted 1 "$CORDON" check
cp "$T/.out" "$T/check.out"
check "... says what is restricted" grep -qF "AppArmor restricts unprivileged user namespaces \
(kernel.apparmor_restrict_unprivileged_userns = 1, Ubuntu 23.10+): a program may create them only if its \
AppArmor profile grants \`userns\`, and $CORDON has no such profile loaded" "$T/check.out"
check "... gives the command that writes the profile" grep -qx "    sudo tee /etc/apparmor.d/cordon >/dev/null <<'EOF'" "$T/check.out"
check "... and the one that loads it" grep -qx "    sudo apparmor_parser -r /etc/apparmor.d/cordon" "$T/check.out"
check "... and the sysctl that lifts the restriction" grep -qx \
    "    sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" "$T/check.out"
sed -n "/<<'EOF'\$/,/^EOF\$/p" "$T/check.out" | sed '1d;$d' >"$T/printed.profile"
sed "s|@BINARY@|$CORDON|g" "$TOP/apparmor/cordon.in" >"$T/want.profile"
check "... the profile printed is apparmor/cordon.in for this binary" cmp "$T/printed.profile" "$T/want.profile"
mkdir -p "$T/aa"; cp "$T/printed.profile" "$T/aa/cordon.apparmor"
check "... and apparmor_parser accepts it" "$TOP/scripts/check-apparmor.sh" "$T/aa"
check_status "restricted, --json: exit 1" 1 restricted 1 "$CORDON" check --json
cp "$T/.out" "$T/json.out"
check "... the fix is in \"fix\"" grep -qF '"fix": "AppArmor restricts unprivileged user namespaces' "$T/json.out"

# -- cordon run: fails, says why, never runs the command
check_contains "control: cordon run runs the command" RAN-UNISOLATED cordon run -- sh -c 'echo RAN-UNISOLATED'
check_status "restricted: cordon run exits 125" 125 restricted 1 "$CORDON" run -- sh -c 'echo RAN-UNISOLATED'
cp "$T/.out" "$T/run.out"
check_fails "... without running the command" grep -q RAN-UNISOLATED "$T/run.out"
check "... and points to cordon check" grep -qF "and this cordon has no AppArmor profile granting them: \
\`cordon check\` prints the commands that install one" "$T/run.out"

# -- the install step (meson install runs it; with DESTDIR it never loads)
install_aa() { # MODE
    rm -rf "$T/dest"; mkdir "$T/dest"
    [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/dest"
    as_user env DESTDIR="$T/dest" "$TOP/scripts/install-apparmor.sh" "$CORDON_BUILD/cordon.apparmor" "$1"
}
check_contains "install (enabled): installs the profile under DESTDIR" "installed $T/dest/etc/apparmor.d/cordon" \
    install_aa enabled
cp "$T/.out" "$T/install.out"
check "... as built" cmp "$CORDON_BUILD/cordon.apparmor" "$T/dest/etc/apparmor.d/cordon"
check_out "... mode 644" 644 stat -c %a "$T/dest/etc/apparmor.d/cordon"
check "... and says how to load it" grep -qF "with: sudo apparmor_parser -r /etc/apparmor.d/cordon" "$T/install.out"
check_out "install (disabled): does nothing, silently" "" install_aa disabled
check_fails "... no file" test -e "$T/dest/etc/apparmor.d/cordon"
if apparmor_parser -Q -K "$CORDON_BUILD/cordon.apparmor" >/dev/null 2>&1; then
    check_contains "install (auto), AppArmor 4: installs" "installed" install_aa auto
else
    check_contains "install (auto), AppArmor < 4 here: not installed, saying why" "does not parse it" install_aa auto
    check_fails "... no file" test -e "$T/dest/etc/apparmor.d/cordon"
fi
done_testing
