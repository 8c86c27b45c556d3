#!/bin/sh
# Make sure the packages a make target needs are installed (Debian).
# As root: apt-get installs what is missing. Otherwise: prints the exact
# command and exits 125.
#   scripts/deps.sh build   compiler, meson, ninja, jansson, libseccomp, scdoc (man pages), musl and dpkg-dev (the static CLI: jansson from its source package)
#   scripts/deps.sh test    + what the test suites drive (setpriv, runc, node/npm, go, apparmor_parser, zsh and fish for the completions, debhelper and lintian for the package, the toolchains of the matrix and proxy-clients.sh: JDK, Maven, cargo, Perl, Ruby, ssh, gpg, ...);
#                           as root also the engines' seccomp profiles (scripts/container-profiles.sh, for container.sh)
#   scripts/deps.sh bench   + bubblewrap, hyperfine, GNU time, python3, git, curl
#   scripts/deps.sh deb     + debhelper, lintian (make deb)
#   scripts/deps.sh windows mingw-w64 (make windows)
#   scripts/deps.sh wine    + wine64 (make check-windows)
#   scripts/deps.sh lint    + clang, clang-tidy, cppcheck, valgrind, libFuzzer runtime, apparmor_parser
#   scripts/deps.sh kernels + qemu-system-x86 (make check-kernels: Debian's kernels under qemu, TCG)
set -eu

BUILD="gcc make meson ninja-build pkg-config libjansson-dev libseccomp-dev scdoc musl-tools dpkg-dev"
TEST="util-linux procps strace runc acl nodejs npm golang-go mypy python3-setuptools iproute2 keyutils psmisc git python3 python3-pip python3-jsonschema man-db apparmor zsh fish debhelper lintian fakeroot dpkg-dev"
# the toolchain matrix (toolchains.sh, readme.sh, etc-view.sh) and the ssh
# and gpg profiles (profiles-agents.sh): Debian's own
TEST="$TEST default-jdk-headless maven cargo rustc perl ruby openssh-client gnupg openssl"
BENCH="bubblewrap hyperfine time python3 git curl"
DEB="debhelper lintian fakeroot dpkg-dev"
# Debian's mingw-w64 for x86_64 (the posix threads flavour), dpkg-dev for
# apt-get source (jansson), and wine64 to run the result.
WINDOWS="gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev dpkg-dev"
WINE="wine64"
LINT="clang clang-tidy cppcheck valgrind libclang-rt-14-dev apparmor"
# make check-kernels: qemu without KVM, the initramfs packed with cpio, its
# init built with musl (scripts/check-kernels.sh, the archive by scripts/kernel-initramfs.py; the kernels themselves
# are downloaded with apt-get download, not installed)
KERNELS="qemu-system-x86 musl-tools"

case "${1:-build}" in
build) want="$BUILD" ;;
test) want="$BUILD $TEST" ;;
bench) want="$BUILD $BENCH" ;;
deb) want="$BUILD $DEB" ;;
lint) want="$BUILD $LINT" ;;
windows) want="$WINDOWS" ;;
kernels) want="$BUILD $TEST $KERNELS" ;;
wine) want="$WINDOWS $WINE" ;;
all) want="$BUILD $TEST $BENCH $DEB $LINT $WINDOWS $WINE $KERNELS" ;;
*) echo "usage: $0 build|test|bench|deb|lint|windows|wine|kernels|all" >&2; exit 125 ;;
esac

missing=""
for p in $want; do
    # node/npm from another source (nodesource, nvm) count as present
    case $p in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case $status in *"ok installed"*) ;; *) missing="$missing $p" ;; esac
done
# the test suites' data out of Debian's packages (container.sh): once
fetch_data() {
    [ "${1:-build}" = test ] && [ "$(id -u)" -eq 0 ] || return 0
    "$(dirname "$0")/container-profiles.sh" /var/cache/cordon/container-profiles ||
        { echo "cordon: the engines' seccomp profiles could not be fetched (scripts/container-profiles.sh)" >&2; exit 125; }
}
[ -z "$missing" ] && { fetch_data "${1:-build}"; exit 0; }

if [ "$(id -u)" -eq 0 ]; then
    echo "cordon: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $missing >/dev/null; } ||
        { echo "cordon: apt-get install$missing failed" >&2; exit 125; }
    fetch_data "${1:-build}"
    exit 0
fi
echo "cordon: missing packages:$missing" >&2
echo "cordon: install them with: sudo apt-get install$missing" >&2
exit 125
