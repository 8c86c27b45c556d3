/* SPDX-License-Identifier: MIT */
/* --explain: the seccomp filter's refusals seen. A filter's
 * SECCOMP_RET_ERRNO wins over any filter's user notification, so in an
 * explained run the main filter lets the native architecture's calls pass
 * (a prefix of a few instructions), and the filter that holds the
 * observer's listener runs the same program with each ERRNO made
 * USER_NOTIF (supervise_filter); the observer runs that program itself on
 * the call's seccomp_data for the errno to answer with (seccomp_eval).
 * One program decides both, so the two cannot drift. i386 and x32 calls
 * meet the main filter as in every run. Called by launch-explain.c,
 * supervise-filter.c and supervise-refused.c. */
#include "seccomp-filter.h"

#include <errno.h>
#ifndef CORDON_NO_LIBSECCOMP
#include <seccomp.h>
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define KILL SECCOMP_RET_KILL_PROCESS
#define LD_ARCH BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch))
#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define RET_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* The program loads the arch first (libseccomp's and numbered_prefix's
 * do): what runs before it leaves nothing it reads (A is overwritten, X
 * and the scratch memory untouched). */
static bool loads_arch_first(const seccomp_prog *p)
{
        const struct sock_filter ld = LD_ARCH;
        return p->len > 0 && p->filter[0].code == ld.code && p->filter[0].k == ld.k;
}

/* The main filter's prefix: the native calls (not x32's) allowed, the
 * others on to the filter. */
static size_t allow_native(struct sock_filter *out)
{
        size_t n = 0;
        out[n++] = (struct sock_filter)LD_ARCH;
#ifdef SECCOMP_X32_BIT
        out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_NATIVE_ARCH, 0, 3);
        out[n++] = (struct sock_filter)LD_NR;
        out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SECCOMP_X32_BIT, 1, 0);
#else
        out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_NATIVE_ARCH, 0, 1);
#endif
        out[n++] = (struct sock_filter)RET_ALLOW;
        return n;
}

/* The notifying copy's prefix: the others allowed (the main filter has
 * them), the native calls on. */
static size_t only_native(struct sock_filter *out)
{
        size_t n = 0;
        out[n++] = (struct sock_filter)LD_ARCH;
        out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_NATIVE_ARCH, 1, 0);
        out[n++] = (struct sock_filter)RET_ALLOW;
#ifdef SECCOMP_X32_BIT
        out[n++] = (struct sock_filter)LD_NR;
        out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SECCOMP_X32_BIT, 0, 1);
        out[n++] = (struct sock_filter)RET_ALLOW;
#endif
        return n;
}

#define PREFIX_MAX SECCOMP_NOTIFIED_EXTRA

int seccomp_split_refusals(seccomp_prog *main, seccomp_prog *ret_refusals)
{
        if (SECCOMP_NATIVE_ARCH == 0 || !loads_arch_first(main))
                return -EINVAL;
        struct sock_filter prefix[PREFIX_MAX];
        size_t n = allow_native(prefix);
        if (main->len + n > BPF_MAXINSNS)
                return -E2BIG;
        struct sock_filter *f = malloc((main->len + n) * sizeof(*f));
        if (!f)
                return -ENOMEM;
        memcpy(f, prefix, n * sizeof(*f));
        memcpy(f + n, main->filter, main->len * sizeof(*f));
        *ret_refusals = *main; /* the program as every run has it */
        main->filter = f;
        main->len = (unsigned short)(main->len + n);
        return 0;
}

int seccomp_refusals_notified(const seccomp_prog *refusals, struct sock_filter *out, size_t cap)
{
        if (!loads_arch_first(refusals))
                return -EINVAL;
        if (cap < PREFIX_MAX + (size_t)refusals->len)
                return -E2BIG;
        size_t n = only_native(out);
        for (size_t i = 0; i < refusals->len; i++) {
                struct sock_filter f = refusals->filter[i];
                if (f.code == (BPF_RET | BPF_A))
                        return -EINVAL; /* not what it returns: not known here */
                if (f.code == (BPF_RET | BPF_K) && (f.k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
                        f.k = SECCOMP_RET_USER_NOTIF;
                out[n++] = f;
        }
        return (int)n;
}

/* An ALU instruction on |a|; false where the kernel's would not give a
 * value (a division by zero, a shift past 31). */
static bool alu(const struct sock_filter *f, uint32_t *a, uint32_t x)
{
        uint32_t v = BPF_SRC(f->code) == BPF_X ? x : f->k;
        switch (BPF_OP(f->code)) {
        case BPF_ADD: *a += v; return true;
        case BPF_SUB: *a -= v; return true;
        case BPF_MUL: *a *= v; return true;
        case BPF_DIV: return v && (*a /= v, true);
        case BPF_MOD: return v && (*a %= v, true);
        case BPF_OR: *a |= v; return true;
        case BPF_AND: *a &= v; return true;
        case BPF_XOR: *a ^= v; return true;
        case BPF_LSH: return v < 32 && (*a <<= v, true);
        case BPF_RSH: return v < 32 && (*a >>= v, true);
        case BPF_NEG: *a = 0 - *a; return true;
        default: return false;
        }
}

/* A jump's distance from the next instruction; false for no jump. */
static bool jump(const struct sock_filter *f, uint32_t a, uint32_t x, uint32_t *ret_off)
{
        uint32_t v = BPF_SRC(f->code) == BPF_X ? x : f->k;
        bool taken;
        switch (BPF_OP(f->code)) {
        case BPF_JA: *ret_off = f->k; return true;
        case BPF_JEQ: taken = a == v; break;
        case BPF_JGT: taken = a > v; break;
        case BPF_JGE: taken = a >= v; break;
        case BPF_JSET: taken = (a & v) != 0; break;
        default: return false;
        }
        *ret_off = taken ? f->jt : f->jf;
        return true;
}

/* A load or store (the classes seccomp allows); false for another. */
static bool load_store(const struct sock_filter *f, const struct seccomp_data *d, uint32_t *a, uint32_t *x,
                       uint32_t mem[BPF_MEMWORDS])
{
        uint32_t k = f->k;
        bool in_mem = k < BPF_MEMWORDS;
        switch (f->code) {
        case BPF_LD | BPF_W | BPF_ABS:
                if (k % 4 || k > sizeof(*d) - 4)
                        return false;
                memcpy(a, (const char *)d + k, sizeof(*a));
                return true;
        case BPF_LD | BPF_W | BPF_LEN: *a = sizeof(*d); return true;
        case BPF_LDX | BPF_W | BPF_LEN: *x = sizeof(*d); return true;
        case BPF_LD | BPF_IMM: *a = k; return true;
        case BPF_LDX | BPF_IMM: *x = k; return true;
        case BPF_LD | BPF_MEM: return in_mem && (*a = mem[k], true);
        case BPF_LDX | BPF_MEM: return in_mem && (*x = mem[k], true);
        case BPF_ST: return in_mem && (mem[k] = *a, true);
        case BPF_STX: return in_mem && (mem[k] = *x, true);
        case BPF_MISC | BPF_TAX: *x = *a; return true;
        case BPF_MISC | BPF_TXA: *a = *x; return true;
        default: return false;
        }
}

uint32_t seccomp_eval(const seccomp_prog *p, const struct seccomp_data *d)
{
        uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
        for (size_t pc = 0; pc < p->len; pc++) {
                const struct sock_filter *f = &p->filter[pc];
                uint32_t off = 0;
                if (f->code == (BPF_RET | BPF_K))
                        return f->k;
                if (f->code == (BPF_RET | BPF_A))
                        return a;
                if (BPF_CLASS(f->code) == BPF_ALU) {
                        if (!alu(f, &a, x))
                                return KILL;
                } else if (BPF_CLASS(f->code) == BPF_JMP) {
                        if (!jump(f, a, x, &off) || off >= p->len - pc)
                                return KILL;
                        pc += off;
                } else if (!load_store(f, d, &a, &x, mem)) {
                        return KILL;
                }
        }
        return KILL; /* past the end */
}

char *seccomp_call_name(long nr)
{
#ifndef CORDON_NO_LIBSECCOMP
        char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr);
        if (name)
                return name;
#endif
        if (nr >= 0 && (size_t)nr < seccomp_precompiled_names_count && seccomp_precompiled_names[nr])
                return strdup(seccomp_precompiled_names[nr]);
        return xasprintf("syscall %ld", nr);
}
