#!/bin/bash
# make check-kernels: cordon on the kernels users run. For each kernel
# version below, the newest Debian package of it (linux-image-X.Y.*-amd64,
# from the configured apt sources) is downloaded once with apt-get download (not
# installed) into $KERNEL_CACHE and booted under qemu-system-x86_64 without
# KVM (TCG), with an initramfs of its own virtio and 9p modules
# (scripts/kernel-initramfs.py) and tests/helpers/kernel-init.c as init,
# the host's root read-only over 9p. In each guest: cordon check, as root
# and as a user, then ONLY="$KERNEL_SUITES" tests/run-tests BUILD (each
# suite as root and as a user, on the backends it drives). One line per
# kernel at the end; the status is 0 when every kernel passed.
#
#   scripts/check-kernels.sh [BUILD]     (make check-kernels; as root)
#   KERNELS="6.1 6.12 5.10"   versions (bookworm's; its 6.12 from bookworm-security; bullseye's)
#   KERNEL_SUITES="kernel-fallbacks landlock probes linux-backend" suites (run-tests' ONLY)
#   KERNEL_TIMEOUT=3600  seconds per guest;  KERNEL_LOGS=DIR  keep each guest's console log
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd) || exit 2
CACHE=${KERNEL_CACHE:-/var/cache/cordon/kernels}
KERNELS=${KERNELS:-"6.1 6.12 5.10"}
SUITES=${KERNEL_SUITES:-"kernel-fallbacks landlock probes linux-backend"}
TIMEOUT=${KERNEL_TIMEOUT:-3600}
[ "$(id -u)" -eq 0 ] || { echo "check-kernels: run as root (qemu serves the host's root to the guest)" >&2; exit 125; }
command -v qemu-system-x86_64 >/dev/null || { echo "check-kernels: scripts/deps.sh kernels" >&2; exit 125; }
[ -x "$BUILD/cordon" ] || { echo "check-kernels: no $BUILD/cordon (make all)" >&2; exit 125; }
work=$(mktemp -d /tmp/cordon-kernels.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$CACHE"
musl-gcc -static -O2 -o "$work/init" "$TOP/tests/helpers/kernel-init.c" || exit 125
truncate -s 1M "$work/scratch.img" # a block device for the probes' controls

# What each guest runs, in the host's tree (read-only): its console is our log.
cat >"$work/guest.sh" <<EOF
set -u
echo "CORDON-KERNEL \$(uname -r)"
# the tree through the host's whole root (the guest's /tmp and /root are its own)
cd "/run/host$TOP"
echo "== cordon check (root)"; "/run/host$BUILD/cordon" check; echo "CORDON-CHECK-ROOT \$?"
echo "== cordon check (user)"
setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME=/tmp "/run/host$BUILD/cordon" check; echo "CORDON-CHECK-USER \$?"
ONLY="$SUITES" tests/run-tests "/run/host$BUILD"
echo "CORDON-SUITES \$?"
EOF

# the newest linux-image-VERSION.*-amd64 package apt knows (not -cloud, -rt)
package_of() {
    apt-cache search --names-only "^linux-image-${1//./\\.}\\.[0-9][^ ]*-amd64\$" 2>/dev/null |
        awk '{ print $1 }' | grep -Ev -- '-(cloud|rt)-amd64$' | sort -V | tail -1
}

results=()
status=0
for ver in $KERNELS; do
    pkg=$(package_of "$ver")
    if [ -z "$pkg" ]; then
        results+=("Linux $ver: no linux-image-$ver.*-amd64 through the configured apt sources (not tested)")
        continue
    fi
    deb=$(ls "$CACHE/${pkg}_"*.deb 2>/dev/null | tail -1)
    if [ -z "$deb" ]; then
        (cd "$CACHE" && apt-get download -q "$pkg" >/dev/null 2>&1)
        deb=$(ls "$CACHE/${pkg}_"*.deb 2>/dev/null | tail -1)
    fi
    if [ -z "$deb" ]; then
        results+=("$pkg: apt-get download failed"); status=1; continue
    fi
    x="$work/$pkg"
    mkdir -p "$x" && dpkg-deb -x "$deb" "$x" || { results+=("$pkg: cannot extract $deb"); status=1; continue; }
    kernel=$(ls "$x"/boot/vmlinuz-* | head -1)
    mods=$(ls -d "$x"/lib/modules/* | head -1)
    python3 "$TOP/scripts/kernel-initramfs.py" "$mods" "$work/init" "$work/guest.sh" "$work/initrd" >/dev/null ||
        { results+=("$pkg: no initramfs"); status=1; continue; }
    log="$work/$pkg.log"
    echo "== $pkg: booting $(basename "$kernel") (TCG)" >&2
    start=$(date +%s)
    timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -m 2048 -smp 1 -nographic -no-reboot \
        -kernel "$kernel" -initrd "$work/initrd" -append "console=ttyS0 panic=-1 quiet" \
        -fsdev local,id=r,path=/,security_model=none,readonly=on,multidevs=remap \
        -device virtio-9p-pci,fsdev=r,mount_tag=hostroot \
        -drive if=virtio,format=raw,file="$work/scratch.img" </dev/null >"$log" 2>&1
    secs=$(($(date +%s) - start))
    tr -d '\r' <"$log" | grep -a -E '^(build|  |not ok|failed suites|[0-9]+ passed)' | grep -av '^  *#' >&2
    [ -n "${KERNEL_LOGS:-}" ] && mkdir -p "$KERNEL_LOGS" && cp "$log" "$KERNEL_LOGS/"
    summary=$(tr -d '\r' <"$log" | grep -a -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
    checks="check root $(tr -d '\r' <"$log" | sed -n 's/.*CORDON-CHECK-ROOT //p'), user $(tr -d '\r' <"$log" | sed -n 's/.*CORDON-CHECK-USER //p')"
    suites=$(tr -d '\r' <"$log" | sed -n 's/.*CORDON-SUITES //p')
    results+=("$pkg ($(tr -d '\r' <"$log" | sed -n 's/.*CORDON-KERNEL //p')): $checks; suites: ${summary:-none ran} (${secs}s)")
    [ "$suites" = 0 ] || status=1
done
echo
printf '%s\n' "${results[@]}"
exit $status
