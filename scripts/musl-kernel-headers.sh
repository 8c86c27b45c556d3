#!/bin/sh
# The Linux headers (linux/, asm/, asm-generic/ of linux-libc-dev) in DIR,
# by symbolic links, for musl-gcc: it searches musl's headers only, and
# glibc's must stay out of a musl build.
#   scripts/musl-kernel-headers.sh DIR
set -eu
dir=${1:?usage: $0 DIR}
multiarch=$(gcc -print-multiarch)
mkdir -p "$dir"
for h in /usr/include/linux /usr/include/asm-generic "/usr/include/$multiarch/asm"; do
    [ -d "$h" ] || { echo "cordon: $h missing (linux-libc-dev)" >&2; exit 1; }
    ln -sfn "$h" "$dir/$(basename "$h")"
done
