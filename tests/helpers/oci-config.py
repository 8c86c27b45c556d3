#!/usr/bin/env python3
"""The OCI runtime configuration (config.json) of a container as Docker or
Podman starts one by default, for runc (tests/integration/container.sh;
the data and where it comes from: tests/data/containers/README.md).

  oci-config.py ENGINE PROFILE_DIR ROOTFS [--variant V] [--bind SRC[:rw]]... -- ARGV...

ENGINE is docker or podman; PROFILE_DIR holds the engines' seccomp
profiles (scripts/container-profiles.sh). Variants, each as the engine's
own flag would make it:
  default        the engine's defaults
  unconfined     --security-opt seccomp=unconfined and the /proc paths
                 unmasked (Docker: systempaths=unconfined, Podman:
                 unmask=ALL)
  unmasked       only the /proc paths unmasked (the seccomp profile kept)
  cap-ptrace     --cap-add SYS_PTRACE
Writes config.json to stdout.
"""
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINES = os.path.join(HERE, "..", "data", "containers", "engines.json")
ARCH = {"x86_64": ("SCMP_ARCH_X86_64", "amd64"), "aarch64": ("SCMP_ARCH_AARCH64", "arm64")}


def kernel():
    return tuple(int(x) for x in platform.release().split("-")[0].split(".")[:2])


def wanted(rule, caps, arch):
    """Whether the engine keeps |rule| for a container with |caps| here: its
    includes all hold (every capability, this architecture, the kernel at
    least minKernel) and none of its excludes does."""
    inc, exc = rule.get("includes") or {}, rule.get("excludes") or {}
    if inc.get("arches") and arch not in inc["arches"]:
        return False
    if arch in (exc.get("arches") or []):
        return False
    if any(c not in caps for c in inc.get("caps") or []):
        return False
    if any(c in caps for c in exc.get("caps") or []):
        return False
    mk = inc.get("minKernel")
    return not (mk and kernel() < tuple(int(x) for x in mk.split(".")[:2]))


def seccomp(profile, caps):
    scmp, arch = ARCH[platform.machine()]
    out = {"defaultAction": profile["defaultAction"], "architectures": [], "syscalls": []}
    if "defaultErrnoRet" in profile:
        out["defaultErrnoRet"] = profile["defaultErrnoRet"]
    for a in profile.get("archMap", []):
        if a["architecture"] == scmp:
            out["architectures"] = [scmp] + a.get("subArchitectures", [])
    for rule in profile["syscalls"]:
        if not wanted(rule, caps, arch):
            continue
        r = {"names": rule.get("names") or [rule["name"]], "action": rule["action"]}
        for k in ("errnoRet", "args"):
            if rule.get(k):
                r[k] = rule[k]
        out["syscalls"].append(r)
    return out


def main(argv):
    sep = argv.index("--")
    opts, command = argv[1:sep], argv[sep + 1:]
    engine, profiles, rootfs = opts[:3]
    variant, binds, i = "default", [], 3
    while i < len(opts):
        if opts[i] == "--variant":
            variant = opts[i + 1]
        elif opts[i] == "--bind":
            binds.append(opts[i + 1])
        else:
            sys.exit("oci-config.py: unknown option " + opts[i])
        i += 2
    e = json.load(open(ENGINES))[engine]
    caps = list(e["capabilities"]) + (["CAP_SYS_PTRACE"] if variant == "cap-ptrace" else [])
    unmasked = variant in ("unconfined", "unmasked")
    mounts = [
        {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
         "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
         "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
        {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
        # part of an engine's writable root there: neither nosuid nor nodev
        {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["mode=1777"]},
    ]
    for b in binds:
        src, _, mode = b.partition(":")
        mounts.append({"destination": src, "type": "bind", "source": src,
                       "options": ["rbind", "rw" if mode == "rw" else "ro", "nosuid", "nodev"]})
    linux = {
        "namespaces": [{"type": t} for t in ("pid", "ipc", "uts", "mount")],
        "maskedPaths": [] if unmasked else e["masked_paths"],
        "readonlyPaths": [] if unmasked else e["readonly_paths"],
    }
    if variant != "unconfined":
        linux["seccomp"] = seccomp(json.load(open(os.path.join(profiles, e["profile"]))), caps)
    cfg = {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False,
            "user": {"uid": 0, "gid": 0},
            "args": command,
            "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                    "CI=" + os.environ.get("CI", "")],
            "cwd": "/",
            "capabilities": {"bounding": caps, "effective": caps, "permitted": caps},
            "noNewPrivileges": False,
        },
        "root": {"path": rootfs, "readonly": False},
        "hostname": "ctr-" + engine,
        "mounts": mounts,
        "linux": linux,
    }
    json.dump(cfg, sys.stdout, indent=1)


if __name__ == "__main__":
    main(sys.argv)
