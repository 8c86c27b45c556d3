/* SPDX-License-Identifier: MIT */
/* container-exec WRITABLE CMD...: run CMD as Docker and Kubernetes run a
 * container by default, for tests/integration/container.sh:
 * - a read-only root, WRITABLE (a directory) bind-mounted read-write;
 * - only Docker's default capabilities (no CAP_SYS_ADMIN);
 * - no_new_privs;
 * - a seccomp filter like Docker's default profile: EPERM for keyctl,
 *   add_key, request_key, the mount calls, unshare, setns and clone with a
 *   namespace flag; ENOSYS for clone3 (so that glibc falls back to clone);
 *   native system call numbers only (a model, not Docker's whole profile).
 * With CONTAINER_ONLY_KEYCTL=1 only keyctl of the three keyring calls is
 * refused (a profile cordon must not take for "no keyring reachable").
 * As a user (no CAP_SYS_ADMIN for the read-only root) it takes a user
 * namespace of its own first, as a rootless runtime does. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int DOCKER_CAPS[] = {CAP_CHOWN,      CAP_DAC_OVERRIDE, CAP_FOWNER,      CAP_FSETID,           CAP_KILL,
                                  CAP_SETGID,     CAP_SETUID,       CAP_SETPCAP,     CAP_NET_BIND_SERVICE, CAP_NET_RAW,
                                  CAP_SYS_CHROOT, CAP_MKNOD,        CAP_AUDIT_WRITE, CAP_SETFCAP};

static int die(const char *what)
{
        fprintf(stderr, "container-exec: %s: %s\n", what, strerror(errno));
        return 125;
}

static int map_self(void)
{
        char line[64];
        unsigned uid = getuid(), gid = getgid();
        if (unshare(CLONE_NEWUSER) < 0)
                return -1;
        FILE *f = fopen("/proc/self/setgroups", "w");
        if (f)
                fputs("deny", f), fclose(f);
        snprintf(line, sizeof(line), "0 %u 1", uid);
        if (!(f = fopen("/proc/self/uid_map", "w")) || fputs(line, f) < 0 || fclose(f) != 0)
                return -1;
        snprintf(line, sizeof(line), "0 %u 1", gid);
        if (!(f = fopen("/proc/self/gid_map", "w")) || fputs(line, f) < 0 || fclose(f) != 0)
                return -1;
        return 0;
}

static int read_only_root(const char *writable)
{
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount(writable, writable, NULL, MS_BIND | MS_REC, NULL) < 0)
                return -1;
        return mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
}

static int docker_caps(void)
{
        unsigned long long keep = 0;
        for (size_t i = 0; i < sizeof(DOCKER_CAPS) / sizeof(DOCKER_CAPS[0]); i++)
                keep |= 1ULL << DOCKER_CAPS[i];
        for (int c = 0; c < 64; c++)
                if (!(keep & (1ULL << c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
                        return -1;
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct d[2];
        if (syscall(SYS_capget, &h, d) < 0)
                return -1;
        for (int i = 0; i < 2; i++) {
                unsigned k = (unsigned)(keep >> (32 * i));
                d[i].effective &= k, d[i].permitted &= k, d[i].inheritable &= k;
        }
        return (int)syscall(SYS_capset, &h, d);
}

#define DENY(nr, e) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define NS_FLAGS                                                                                                       \
        (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

static int docker_seccomp(void)
{
        const char *only = getenv("CONTAINER_ONLY_KEYCTL");
        long add_key = only && only[0] == '1' ? -1 : SYS_add_key;
        long request_key = only && only[0] == '1' ? -1 : SYS_request_key;
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                DENY(SYS_keyctl, EPERM),
                DENY(add_key, EPERM),
                DENY(request_key, EPERM),
                DENY(SYS_mount, EPERM),
                DENY(SYS_umount2, EPERM),
                DENY(SYS_fsopen, EPERM),
                DENY(SYS_fsmount, EPERM),
                DENY(SYS_open_tree, EPERM),
                DENY(SYS_move_mount, EPERM),
                DENY(SYS_pivot_root, EPERM),
                DENY(SYS_unshare, EPERM),
                DENY(SYS_setns, EPERM),
                DENY(SYS_clone3, ENOSYS),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -1;
        return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
        if (argc < 3) {
                fprintf(stderr, "usage: container-exec WRITABLE CMD...\n");
                return 2;
        }
        if (getuid() != 0 && map_self() < 0)
                return die("user namespace");
        if (read_only_root(argv[1]) < 0)
                return die("read-only root");
        if (docker_caps() < 0)
                return die("capabilities");
        if (docker_seccomp() < 0)
                return die("seccomp");
        execvp(argv[2], argv + 2);
        return die(argv[2]);
}
