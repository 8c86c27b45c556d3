#!/bin/sh
# The AppArmor profile that `make install` installs (BUILD/cordon.apparmor),
# syntax-checked by apparmor_parser without loading anything (-Q: no kernel
# load, -K: no cache; -p: print it with its includes expanded).
#   scripts/check-apparmor.sh [BUILD]
# An apparmor_parser older than 4.0 (Debian 12 has 3.0.8) knows neither
# abi/4.0 nor the `userns` rule: it checks the profile without exactly those
# two lines (and this says so); the rest is checked as installed.
set -eu
profile=${1:-build}/cordon.apparmor
[ -f "$profile" ] || { echo "no $profile: build first" >&2; exit 1; }
command -v apparmor_parser >/dev/null || { echo "apparmor_parser is missing (scripts/deps.sh lint)" >&2; exit 1; }
grep -q '^profile cordon /[^ ]*/cordon flags=(unconfined) {$' "$profile" ||
    { echo "$profile: no \`profile cordon /.../cordon flags=(unconfined)\` line" >&2; exit 1; }
version=$(apparmor_parser --version | sed -n '1s/.*version \([0-9][0-9]*\)\..*/\1/p')
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [ "${version:-0}" -ge 4 ]; then
    cp "$profile" "$tmp"
else
    grep -v -x -e 'abi <abi/4.0>,' -e '  userns,' "$profile" >"$tmp"
    removed=$(($(wc -l <"$profile") - $(wc -l <"$tmp")))
    [ "$removed" -eq 2 ] || { echo "$profile: expected exactly the abi/4.0 and userns lines, removed $removed" >&2; exit 1; }
    echo "apparmor_parser $version < 4.0: checking $profile without its abi/4.0 and userns lines"
fi
apparmor_parser -Q -K -p "$tmp" >/dev/null 2>"$tmp.err" || { grep -v '^Cache read/write disabled' "$tmp.err" >&2; rm -f "$tmp.err"; exit 1; }
rm -f "$tmp.err"
echo "ok: $profile parses"
