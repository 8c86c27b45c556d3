/* SPDX-License-Identifier: MIT */
/* seccomp: default allow, with the dangerous or boundary-reshaping calls
 * denied. The namespaces and dropped capabilities already stop most of these;
 * the filter keeps the kernel attack surface small when one of those layers
 * has a bug, and is the main defence on the landlock backend. */
#include "seccomp-filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#ifndef CORDON_NO_LIBSECCOMP
#include <seccomp.h>
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "error.h"

/* Denied without looking at arguments. */
const seccomp_rule_info SECCOMP_DENIED[] = {
        /* kernel keyrings are not namespaced: keys of the launcher's user */
        {"keyctl", EPERM, "keyrings are shared with the host user"},
        {"add_key", EPERM, "keyrings are shared with the host user"},
        {"request_key", EPERM, "keyrings are shared with the host user"},
        {"bpf", EPERM, "eBPF is a large kernel attack surface"},
        {"perf_event_open", EPERM, "perf events leak host information, kernel attack surface"},
        {"userfaultfd", EPERM, "used to win races in kernel exploits"},
        {"io_uring_setup", EPERM, "io_uring runs operations seccomp cannot see"},
        {"io_uring_enter", EPERM, "io_uring runs operations seccomp cannot see"},
        {"io_uring_register", EPERM, "io_uring runs operations seccomp cannot see"},
        {"kexec_load", EPERM, "replaces the running kernel"},
        {"kexec_file_load", EPERM, "replaces the running kernel"},
        {"init_module", EPERM, "loads kernel code"},
        {"finit_module", EPERM, "loads kernel code"},
        {"delete_module", EPERM, "unloads kernel code"},
        {"acct", EPERM, "host-wide process accounting"},
        {"swapon", EPERM, "host-wide swap"},
        {"swapoff", EPERM, "host-wide swap"},
        {"reboot", EPERM, "host-wide"},
        /* the mount tree is the sandbox's boundary */
        {"mount", EPERM, "reshapes the filesystem view"},
        {"umount2", EPERM, "could reveal what a mount hides"},
        /* i386 only (nr 22; x86_64 and arm64 have no such call): the same,
         * reachable from a 64-bit process through int $0x80 */
        {"umount", EPERM, "could reveal what a mount hides (i386's oldumount)"},
        {"pivot_root", EPERM, "reshapes the filesystem view"},
        {"move_mount", EPERM, "reshapes the filesystem view"},
        {"open_tree", EPERM, "reshapes the filesystem view"},
        /* Linux 6.15; denied by number where libseccomp does not know it
         * (NUMBERED below) */
        {"open_tree_attr", EPERM, "reshapes the filesystem view, and sets mount attributes"},
        {"fsopen", EPERM, "reshapes the filesystem view"},
        {"fsmount", EPERM, "reshapes the filesystem view"},
        {"fsconfig", EPERM, "reshapes the filesystem view"},
        {"fspick", EPERM, "reshapes the filesystem view"},
        {"mount_setattr", EPERM, "could make a read-only mount writable"},
        /* new namespaces hand out capabilities over fresh kernel objects */
        {"setns", EPERM, "joins other namespaces"},
        {"unshare", EPERM, "new namespaces are a kernel attack surface"},
        {"open_by_handle_at", EPERM, "opens files outside the view (the \"shocker\" escape)"},
        {"syslog", EPERM, "the kernel log is host-wide"},
        {"settimeofday", EPERM, "the clock is host-wide"},
        {"clock_settime", EPERM, "the clock is host-wide"},
        {"adjtimex", EPERM, "the clock is host-wide"},
        {"clock_adjtime", EPERM, "the clock is host-wide"},
        /* x86 only (i386, x86_64, x32) */
        {"modify_ldt", EPERM, "x86 segment descriptors: a history of kernel bugs (CVE-2015-3290, "
                              "CVE-2017-17053), needed only by 16-bit code and Wine"},
        /* arguments in memory cannot be inspected: ENOSYS makes libc fall back */
        {"clone3", ENOSYS, "flags in memory; glibc falls back to clone"},
        {"openat2", ENOSYS, "mode in memory; callers fall back to openat"},
        {NULL, 0, NULL},
};

/* The landlock backend has no IPC namespace: System V IPC objects are the
 * host's, keyed by numbers anyone can guess, and guarded only by their
 * mode bits against the sandbox's own uid. POSIX shared memory and message
 * queues are files (/dev/shm, mqueue), which Landlock covers. */
const seccomp_rule_info SECCOMP_HOST_IPC[] = {
        {"shmget", EPERM, "System V shared memory is the host's (no IPC namespace)"},
        {"shmat", EPERM, "System V shared memory is the host's (no IPC namespace)"},
        {"shmdt", EPERM, "System V shared memory is the host's (no IPC namespace)"},
        {"shmctl", EPERM, "System V shared memory is the host's (no IPC namespace)"},
        {"msgget", EPERM, "System V message queues are the host's (no IPC namespace)"},
        {"msgsnd", EPERM, "System V message queues are the host's (no IPC namespace)"},
        {"msgrcv", EPERM, "System V message queues are the host's (no IPC namespace)"},
        {"msgctl", EPERM, "System V message queues are the host's (no IPC namespace)"},
        {"semget", EPERM, "System V semaphores are the host's (no IPC namespace)"},
        {"semop", EPERM, "System V semaphores are the host's (no IPC namespace)"},
        {"semtimedop", EPERM, "System V semaphores are the host's (no IPC namespace)"},
        {"semtimedop_time64", EPERM, "System V semaphores are the host's (no IPC namespace)"},
        {"semctl", EPERM, "System V semaphores are the host's (no IPC namespace)"},
        /* i386's multiplexer for all of the above */
        {"ipc", EPERM, "System V IPC is the host's (no IPC namespace)"},
        {NULL, 0, NULL},
};

void seccomp_prog_free(seccomp_prog *p)
{
        free(p->filter);
        *p = (seccomp_prog){0};
}

int seccomp_install(const seccomp_prog *p)
{
        struct sock_fprog prog = {.len = p->len, .filter = p->filter};
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
                return 0;
        /* seccomp(2) is Linux 3.17; the prctl form works from 3.5 */
        if (errno == ENOSYS && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0)
                return 0;
        return -errno;
}

#ifndef CORDON_SECCOMP_GENERATOR
/* Every filter the options can ask for, compiled at build time by
 * tools/seccomp-gen.c (seccomp-compile.c, run by meson): compiling with
 * libseccomp costs about a millisecond per start, most of the launcher's
 * CPU time. A CLI built without libseccomp (the musl one) has only these. */
int seccomp_build(const seccomp_options *opt, seccomp_prog *ret, cordon_error **ret_error)
{
        const seccomp_filter_entry *f = NULL;
        for (size_t i = 0; i < seccomp_precompiled_count; i++)
                if (seccomp_precompiled[i].host_ipc == opt->host_ipc && seccomp_precompiled[i].sockets == opt->sockets)
                        f = &seccomp_precompiled[i];
#ifdef CORDON_NO_LIBSECCOMP
        if (!f)
                return error_set(ret_error, EINVAL, "seccomp: no filter was compiled for these options");
#else
        if (!f || seccomp_precompiled_arch != seccomp_arch_native())
                return seccomp_compile(opt, ret, ret_error);
#endif
        ret->filter = malloc(f->len * sizeof(*f->filter));
        if (!ret->filter)
                return error_set(ret_error, ENOMEM, "out of memory");
        memcpy(ret->filter, f->filter, f->len * sizeof(*f->filter));
        ret->len = f->len;
        return 0;
}
#endif
