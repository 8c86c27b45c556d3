/* SPDX-License-Identifier: MIT */
/* An i386 system call from a 64-bit x86 process, for tests: int $0x80
 * goes through the i386 table and seccomp sees AUDIT_ARCH_I386 (pointers
 * must fit 32 bits). Shared by the probe and test-seccomp. */
#pragma once

#include <errno.h>

#if defined(__x86_64__)
static inline long i386_syscall(long nr, long a, long b, long c, long d, long e)
{
        long r;
        __asm__ volatile("int $0x80"
                         : "=a"(r)
                         : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                         : "memory", "r8", "r9", "r10", "r11");
        if (r < 0 && r > -4096) {
                errno = (int)-r;
                return -1;
        }
        return r;
}
#endif
