#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The initramfs of a make check-kernels guest (scripts/check-kernels.sh):

    kernel-initramfs.py MODULES_DIR INIT GUEST_SH OUT.cpio

MODULES_DIR is lib/modules/VERSION of a Debian kernel package, extracted
(no modules.dep: dpkg's postinst makes it). The modules for virtio-pci,
9p over virtio and AF_VSOCK and every module they depend on (read from each
module's .modinfo "depends=") go to /m, numbered in load order and
decompressed (.ko.xz); INIT is /init, GUEST_SH /guest.sh. Written as a
newc cpio archive (what the kernel unpacks), without compression."""
import lzma
import os
import sys

# and AF_VSOCK and a block device (a scratch disk), whose refusals the
# suites check against a control
WANTED = ["virtio_pci", "9pnet_virtio", "9p", "vsock", "virtio_blk"]


def index(root):
    mods = {}
    for d, _, files in os.walk(root):
        for f in files:
            for ext in (".ko", ".ko.xz"):
                if f.endswith(ext):
                    mods[f[: -len(ext)].replace("-", "_")] = os.path.join(d, f)
    return mods


def content(path):
    with open(path, "rb") as f:
        data = f.read()
    return lzma.decompress(data) if path.endswith(".xz") else data


def depends(data):
    i = data.find(b"\0depends=")
    if i < 0:
        return []
    end = data.index(b"\0", i + 1)
    value = data[i + len(b"\0depends=") : end].decode()
    return [d.replace("-", "_") for d in value.split(",") if d]


def order(mods):
    done, out = set(), []

    def visit(name):
        if name in done:
            return
        done.add(name)
        if name not in mods:  # built in
            return
        data = content(mods[name])
        for d in depends(data):
            visit(d)
        out.append((name, data))

    for w in WANTED:
        visit(w)
    return out


def cpio(entries, out):
    ino = 1
    for name, mode, data in entries + [("TRAILER!!!", 0, b"")]:
        n = name.encode() + b"\0"
        head = "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X" % (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(n), 0)
        out.write(head.encode() + n)
        out.write(b"\0" * ((4 - (110 + len(n)) % 4) % 4))
        out.write(data)
        out.write(b"\0" * ((4 - len(data) % 4) % 4))
        ino += 1


def main():
    mods_dir, init, guest, dest = sys.argv[1:5]
    mods = order(index(mods_dir))
    with open(init, "rb") as f:
        init_data = f.read()
    with open(guest, "rb") as f:
        guest_data = f.read()
    entries = [("m", 0o40755, b""), ("dev", 0o40755, b""), ("proc", 0o40755, b""), ("r", 0o40755, b"")]
    entries += [("m/%02d-%s.ko" % (i, n), 0o100644, d) for i, (n, d) in enumerate(mods)]
    entries += [("init", 0o100755, init_data), ("guest.sh", 0o100755, guest_data)]
    with open(dest, "wb") as out:
        cpio(entries, out)
    print(" ".join(n for n, _ in mods))


if __name__ == "__main__":
    main()
