#!/bin/sh
# meson install step: installs the AppArmor profile PROFILE (the generated
# apparmor/cordon.in) as /etc/apparmor.d/cordon and loads it.
#   scripts/install-apparmor.sh PROFILE auto|enabled|disabled
# auto: only where /etc/apparmor.d exists and, if apparmor_parser is there,
# it accepts the profile (AppArmor < 4.0 has no `userns` rule, and its kernel
# no such restriction: a profile it cannot parse would break its boot-time
# load). enabled: install the file regardless. Loads it (apparmor_parser -r)
# only as root, without DESTDIR, where the kernel runs AppArmor; otherwise
# prints the command. Never fails the install.
set -u
profile=$1 mode=${2:-auto}
dest=${DESTDIR:-}/etc/apparmor.d
target=/etc/apparmor.d/cordon
# meson keeps an install script's output to itself: what this says also
# goes to BUILD/apparmor-install.log, which `make install` prints.
log=${MESON_BUILD_ROOT:+$MESON_BUILD_ROOT/apparmor-install.log}
{ [ -n "$log" ] && true >"$log"; } 2>/dev/null || log=/dev/null
say() { echo "cordon: AppArmor: $*" | tee -a "$log"; }

[ "$mode" = disabled ] && exit 0
if [ "$mode" = auto ]; then
    [ -d /etc/apparmor.d ] || exit 0
    if command -v apparmor_parser >/dev/null 2>&1 &&
        ! apparmor_parser -Q -K "$profile" >/dev/null 2>&1; then
        say "not installing $target: $(apparmor_parser --version | head -1) does not parse it (no \`userns\` rule before AppArmor 4.0, nor the restriction it lifts)"
        exit 0
    fi
fi
if ! { mkdir -p "$dest" && install -m 644 "$profile" "$dest/cordon"; } 2>/dev/null; then
    say "cannot write $dest/cordon; as root: install -m 644 $profile $target && apparmor_parser -r $target"
    exit 0
fi
say "installed $dest/cordon"
load="apparmor_parser -r $target"
if [ -n "${DESTDIR:-}" ] || [ "$(id -u)" -ne 0 ] || ! command -v apparmor_parser >/dev/null 2>&1 ||
    [ ! -d /sys/kernel/security/apparmor ]; then
    say "load it (where the kernel runs AppArmor) with: sudo $load"
elif $load; then
    say "loaded $target"
else
    say "loading failed; run: sudo $load"
fi
exit 0
