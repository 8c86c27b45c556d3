#!/bin/bash
# The Debian packages (`make deb`): built with debhelper from the source
# (cached in the build directory while the source is unchanged), lintian
# without errors, and what they hold working when extracted into a fresh
# root: the binary runs a sandboxed command, the man pages render, the
# completions, profiles, schemas and AppArmor profile are where their
# consumers look, the AppArmor profile goes to /etc/apparmor.d only where
# the target's apparmor_parser accepts it (as `make install`), and a program
# builds against the -dev package.
. "$(dirname "$0")/lib.sh"

# The package build reads the source only: key it by the source's content.
key=$(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 sh -c 'for f; do [ -f "$f" ] && [ ! -L "$f" ] && printf "%s\0" "$f"; done' sh |
    xargs -0 sha256sum | sha256sum | cut -c1-16)
DEB=$CORDON_BUILD/deb-test
if [ "$(cat "$DEB/key" 2>/dev/null)" != "$key" ]; then
    rm -rf "$DEB"
    make -C "$TOP" --no-print-directory deb DEB="$DEB" >"$T/make-deb.log" 2>&1 && echo "$key" >"$DEB/key"
fi
version=$(sed -n '1s/^cordon (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
arch=$(dpkg --print-architecture)
pkg=$DEB/cordon_${version}_${arch}.deb
if [ -s "$pkg" ]; then ok "make deb builds cordon_${version}_${arch}.deb"; else
    not_ok "make deb builds cordon_${version}_${arch}.deb"; diag <"$T/make-deb.log"; fi
check "lintian reports no errors" lintian --fail-on error "$DEB"/*.changes
check_out "cordon depends on its shared libraries only" "libc6 libjansson4 libseccomp2" \
    sh -c "dpkg-deb -f '$pkg' Depends | tr -d ' ' | tr ',' '\n' | sed 's/(.*//' | sort | tr '\n' ' ' | sed 's/ \$//'"

R=$T/root
mkdir -p "$R"
for p in "$pkg" "$DEB"/libcordon0_${version}_${arch}.deb "$DEB"/libcordon-dev_${version}_${arch}.deb; do
    dpkg-deb -x "$p" "$R"
done
missing=
for f in usr/bin/cordon usr/share/man/man1/cordon.1.gz usr/share/man/man1/cordon-run.1.gz \
    usr/share/man/man5/cordon.json.5.gz usr/share/bash-completion/completions/cordon \
    usr/share/zsh/site-functions/_cordon usr/share/fish/vendor_completions.d/cordon.fish \
    usr/share/cordon/profiles/git.json usr/share/cordon/schema/config.schema.json \
    usr/share/cordon/schema/stats.schema.json usr/share/cordon/apparmor/cordon usr/include/cordon.h \
    usr/lib/*/pkgconfig/cordon.pc usr/share/doc/cordon/copyright; do
    ls "$R"/$f >/dev/null 2>&1 || missing="$missing $f"
done
check_out "the packages hold the binary, man pages, completions, profiles, schemas, AppArmor profile, header" "" echo $missing
check_contains "the AppArmor profile is for /usr/bin/cordon" "profile cordon /usr/bin/cordon" cat "$R/usr/share/cordon/apparmor/cordon"
check_fails "... and the package does not ship it in /etc/apparmor.d (postinst decides)" test -e "$R/etc/apparmor.d/cordon"

# postinst and prerm, run on the extracted root (DPKG_ROOT): with this
# system's apparmor_parser, and with stand-ins that accept and refuse it
dpkg-deb -e "$pkg" "$T/ctl"
mkdir -p "$R/etc/apparmor.d" "$T/aa-yes" "$T/aa-no"
printf '#!/bin/sh\nexit 0\n' >"$T/aa-yes/apparmor_parser"
printf '#!/bin/sh\nexit 1\n' >"$T/aa-no/apparmor_parser"
chmod 755 "$T/aa-yes/apparmor_parser" "$T/aa-no/apparmor_parser"
maint() { # DIR-FIRST-ON-PATH SCRIPT ARG
    env PATH="$1:$PATH" DPKG_ROOT="$R" sh "$T/ctl/$2" "$3"
}
if apparmor_parser -Q -K "$R/usr/share/cordon/apparmor/cordon" >/dev/null 2>&1; then
    check "postinst: this system's apparmor_parser accepts it: installed" \
        sh -c "DPKG_ROOT='$R' sh '$T/ctl/postinst' configure && test -f '$R/etc/apparmor.d/cordon'"
    rm -f "$R/etc/apparmor.d/cordon"
else
    check "postinst: this system's apparmor_parser ($(apparmor_parser --version | head -1)) refuses it: not installed" \
        sh -c "DPKG_ROOT='$R' sh '$T/ctl/postinst' configure && ! test -e '$R/etc/apparmor.d/cordon'"
fi
check "postinst: a parser that accepts it: installed" maint "$T/aa-yes" postinst configure
check "... the packaged profile, mode 644" sh -c "cmp '$R/usr/share/cordon/apparmor/cordon' '$R/etc/apparmor.d/cordon' &&
    test \"\$(stat -c %a '$R/etc/apparmor.d/cordon')\" = 644"
check "postinst: a parser that now refuses it: the profile it installed is removed" maint "$T/aa-no" postinst configure
check_fails "... gone" test -e "$R/etc/apparmor.d/cordon"
echo "# my own profile" >"$R/etc/apparmor.d/cordon"
check "postinst: ... but a file of the user's at that path is left alone" \
    sh -c "env PATH='$T/aa-no:$PATH' DPKG_ROOT='$R' sh '$T/ctl/postinst' configure && grep -q 'my own' '$R/etc/apparmor.d/cordon'"
check "... and prerm remove leaves it too" \
    sh -c "DPKG_ROOT='$R' sh '$T/ctl/prerm' remove && grep -q 'my own' '$R/etc/apparmor.d/cordon'"
rm -f "$R/etc/apparmor.d/cordon"
maint "$T/aa-yes" postinst configure
check "prerm remove: removes the profile postinst installed" maint "$T/aa-no" prerm remove
check_fails "... gone" test -e "$R/etc/apparmor.d/cordon"
check_contains "the packaged cordon looks for profiles in /usr/share/cordon" "/usr/share/cordon/profiles" \
    as_user env XDG_CONFIG_HOME=/nonexistent "$R/usr/bin/cordon" profiles

cp "$R/usr/bin/cordon" "$T/bin/cordon-deb"
cordon_deb() { (cd "$W" && as_user "$T/bin/cordon-deb" "$@"); }
check_out "the packaged cordon prints its version" "cordon $version" cordon_deb --version
check_out "the packaged cordon runs a command sandboxed" "sandboxed linux" \
    cordon_deb run -- sh -c 'echo sandboxed $CORDON_SANDBOX'
check_status "... and refuses bad input with 125" 125 cordon_deb run --network wifi -- true
check_out "the packaged cordon-run(1) renders without a warning" "" \
    sh -c 'MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null' sh "$R/usr/share/man/man1/cordon-run.1.gz"

# libcordon-dev: a program builds against the header and links libcordon.so.0
printf '#include <cordon.h>\n#include <stdio.h>\nint main(void) { puts(cordon_version()); return 0; }\n' >"$T/v.c"
lib=$(dirname "$(ls "$R"/usr/lib/*/libcordon.so)")
check "a program compiles against the packaged header and library" \
    cc -std=c11 -Wall -Werror -I"$R/usr/include" -o "$T/v" "$T/v.c" -L"$lib" -lcordon
check_out "... and runs with the packaged libcordon.so.0" "$version" env LD_LIBRARY_PATH="$lib" "$T/v"

echo "1..$_n"
