#!/bin/sh
# Build jansson from Debian's own source package into PREFIX (static
# library, headers, pkg-config file) for a C library Debian ships no jansson
# for: Windows (x86_64-w64-mingw32, make windows) or musl (the static CLI).
# As root it adds a deb-src entry for the system's Debian mirror when there
# is none (/etc/apt/sources.list.d/cordon-deb-src.sources).
#   scripts/jansson-source.sh mingw|musl PREFIX
set -eu

usage="usage: $0 mingw|musl PREFIX"
flags=""
target=${1:?$usage}
prefix=${2:?$usage}
case $target in
mingw) host=x86_64-w64-mingw32 cc=$host-gcc ar=$host-ar seed=USE_WINDOWS_CRYPTOAPI deps=windows ;;
musl) host=musl cc=musl-gcc ar=ar seed=USE_URANDOM deps=build
    # copies inline, as the CLI's own sources (meson.build says why)
    [ "$(uname -m)" = x86_64 ] && flags="-minline-all-stringops -mmemcpy-strategy=rep_byte:-1:noalign" ;;
*) echo "$usage" >&2; exit 125 ;;
esac
[ -f "$prefix/lib/libjansson.a" ] && [ -f "$prefix/lib/pkgconfig/jansson.pc" ] && exit 0
command -v $cc >/dev/null || { echo "cordon: $cc missing: run scripts/deps.sh $deps" >&2; exit 125; }

work=$(mktemp -d /tmp/cordon-jansson.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

have_src() { apt-get source --print-uris jansson >/dev/null 2>&1; }
if ! have_src; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "cordon: no deb-src entry for apt: add one (Types: deb-src) or run this as root" >&2
        exit 125
    fi
    # The same mirror and suites as the binary packages, for sources.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && grep -q '^Types: deb$' "$f" && sed 's/^Types: deb$/Types: deb-src/' "$f"
    done >/etc/apt/sources.list.d/cordon-deb-src.sources
    if [ -f /etc/apt/sources.list ]; then
        sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >/etc/apt/sources.list.d/cordon-deb-src.list
    fi
    apt-get update -q >/dev/null 2>&1 || true
    have_src || { echo "cordon: apt-get source jansson: no source package found" >&2; exit 125; }
fi
# apt's download sandbox user cannot write here as root: not an error.
apt-get source -q jansson >apt-source.log 2>&1 || { cat apt-source.log >&2; exit 125; }
src=$(find . -maxdepth 1 -type d -name 'jansson-*' | head -n 1)
[ -n "$src" ] || { echo "cordon: apt-get source jansson made no source tree" >&2; exit 125; }
cd "$src/src"
# Debian builds it with autotools; the sources are plain C11, so compile
# them directly with the answers configure would find for the target
# (nothing more to install: no autoconf, libtool or cmake).
cat >jansson_config.h <<'H'
#ifndef JANSSON_CONFIG_H
#define JANSSON_CONFIG_H
#define JSON_INLINE inline
#define JSON_INTEGER_IS_LONG_LONG 1
#define JSON_HAVE_LOCALECONV 1
#define JSON_HAVE_ATOMIC_BUILTINS 1
#define JSON_HAVE_SYNC_BUILTINS 1
#define JSON_PARSER_MAX_DEPTH 2048
#endif
H
cat >jansson_private_config.h <<H
#define HAVE_FCNTL_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_CLOSE 1
#define HAVE_GETPID 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_OPEN 1
#define HAVE_READ 1
#define HAVE_SYNC_BUILTINS 1
#define HAVE_ATOMIC_BUILTINS 1
#define HAVE_LOCALE_H 1
#define HAVE_SETLOCALE 1
#define HAVE_INT32_T 1
#define HAVE_UINT32_T 1
#define HAVE_UINT16_T 1
#define HAVE_UINT8_T 1
#define HAVE_SSIZE_T 1
#define $seed 1
#define INITIAL_HASHTABLE_ORDER 3
H
objs=""
for c in dump error hashtable hashtable_seed load memory pack_unpack strbuffer strconv utf value version; do
    $cc -O2 $flags -std=gnu99 -DHAVE_CONFIG_H -I. -c $c.c -o $c.o || exit 125
    objs="$objs $c.o"
done
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
rm -f "$prefix/lib/libjansson.a"
$ar rcs "$prefix/lib/libjansson.a" $objs
cp jansson.h jansson_config.h "$prefix/include/"
version=$(sed -n 's/^AC_INIT(\[jansson\], \[\([^]]*\)\].*/\1/p' ../configure.ac)
cat >"$prefix/lib/pkgconfig/jansson.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: Jansson
Description: Library for encoding, decoding and manipulating JSON data
Version: $version
Libs: -L\${libdir} -ljansson
Cflags: -I\${includedir}
PC
echo "cordon: jansson $version (Debian source package) built for $host in $prefix" >&2
