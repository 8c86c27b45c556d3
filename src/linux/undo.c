/* SPDX-License-Identifier: MIT */
/* The undo log of what a run makes on the host, and the helper that acts on
 * it when the launcher dies first. See undo.h. */
#include "undo.h"

#include <errno.h>
#include <sys/file.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

enum { NOTE_FREE, NOTE_PENDING, NOTE_MADE };
enum { KIND_CGROUP = 1, KIND_FILE };

/* One note, plain memory: the helper reads it after the launcher died. */
typedef struct note {
        int state; /* NOTE_*, written last (release) */
        int kind;
        int version; /* cgroup */
        bool is_dir; /* file: known once made */
        off_t size;  /* a file's size when made (a placeholder's content) */
        dev_t dev, parent_dev;
        ino_t ino, parent_ino;
        char path[PATH_MAX]; /* the cgroup directory; a file's parent directory */
        char name[NAME_MAX + 1];
} note;

/* Shared with the helper (MAP_SHARED): it sees every note made after the
 * fork. */
typedef struct undo_area {
        int done;     /* the launcher undid everything itself */
        pid_t init;   /* the sandbox's init, once it exists */
        int lock;     /* files are undone only with an exclusive flock on it (-1: always) */
        int exe, logs; /* the git check's helper program and logs/ (-1: none) */
        int git;       /* set (release) once |journal| holds a name */
        char journal[64];
        size_t n, cap;
        note notes[];
} undo_area;

struct undo_log {
        undo_area *a;
        size_t size;
        pid_t pid;    /* the helper */
        int lifeline; /* our end; the helper sees EOF when we are gone */
        void *stack;  /* a shared-memory helper's (HELPER_STACK), or MAP_FAILED */
        bool reaped;
};

/* ---- the helper ------------------------------------------------------------------------ */

/* The helper shares the launcher's memory where raw system calls exist
 * (CLONE_VM on a stack of its own, as the sandbox's init does): no page
 * tables copied at its start, no copy-on-write fault in the launcher
 * afterwards, and its exit tears down no address space. So it makes only
 * system calls that leave errno (the launcher thread's TLS) alone, and
 * calls nothing of libc that keeps state. Elsewhere (AddressSanitizer,
 * another architecture) it is a fork and the same calls go through
 * syscall(2). Each returns the kernel's result, -errno on failure. */
#if SYS_RAW_AVAILABLE && !defined(__SANITIZE_ADDRESS__)
#define HELPER_SHARES_MEMORY 1
#define HCALL(nr, a, b, c, d) sys_raw((nr), (long)(a), (long)(b), (long)(c), (long)(d))
#define HCALL5(nr, a, b, c, d, e) sys_raw5((nr), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))
#else
#define HELPER_SHARES_MEMORY 0
static long helper_call(long nr, long a, long b, long c, long d)
{
        long r = syscall(nr, a, b, c, d);
        return r < 0 ? -errno : r;
}
#define HCALL(nr, a, b, c, d) helper_call((nr), (long)(a), (long)(b), (long)(c), (long)(d))
static long helper_call5(long nr, long a, long b, long c, long d, long e)
{
        long r = syscall(nr, a, b, c, d, e);
        return r < 0 ? -errno : r;
}
#define HCALL5(nr, a, b, c, d, e) helper_call5((nr), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))
#endif

#define HELPER_STACK ((size_t)64 * 1024)

static void hclose(int fd)
{
        if (fd >= 0)
                HCALL(SYS_close, fd, 0, 0, 0);
}

/* The whole helper has about two seconds from the launcher's death, and
 * then up to half a minute more for the sandbox's end before the git check. */
#define HELPER_BUDGET_NS (1800LL * 1000000)
#define GIT_CHECK_WAIT_NS (30000LL * 1000000)

static long long now_ns(void)
{
        struct timespec ts = {0, 0};
        HCALL(SYS_clock_gettime, CLOCK_MONOTONIC, &ts, 0, 0);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void nap_ms(long ms)
{
        struct timespec ts = {0, ms * 1000000L};
        HCALL(SYS_nanosleep, &ts, NULL, 0, 0);
}

/* |a| + "/" + |b| into |out| (PATH_MAX); false when too long. */
static bool join(char *out, const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        if (la + 1 + lb + 1 > PATH_MAX)
                return false;
        sys_strlcpy(out, a, PATH_MAX);
        out[la] = '/';
        sys_strlcpy(out + la + 1, b, PATH_MAX - la - 1);
        return true;
}

static int hopen(const char *path, int flags) { return (int)HCALL(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, 0); }

static void write_small(const char *dir, const char *file, const char *text)
{
        char path[PATH_MAX];
        if (!join(path, dir, file))
                return;
        int fd = hopen(path, O_WRONLY | O_NOFOLLOW);
        if (fd >= 0)
                HCALL(SYS_write, fd, text, strlen(text), 0);
        hclose(fd);
}

/* SIGKILL to every process listed in |dir|/cgroup.procs (a cgroup v1
 * hierarchy has no cgroup.kill), parsed without allocating. */
static void kill_procs(const char *dir)
{
        char path[PATH_MAX], chunk[4096] = {0}; /* zeroed: the analyzer cannot see a raw read fill it */
        if (!join(path, dir, "cgroup.procs"))
                return;
        int fd = hopen(path, O_RDONLY | O_NOFOLLOW);
        if (fd < 0)
                return;
        long pid = 0, n;
        while ((n = HCALL(SYS_read, fd, chunk, sizeof(chunk), 0)) > 0)
                for (long i = 0; i < n; i++) {
                        if (chunk[i] >= '0' && chunk[i] <= '9')
                                pid = pid * 10 + (chunk[i] - '0');
                        else {
                                if (pid > 0)
                                        HCALL(SYS_kill, pid, SIGKILL, 0, 0);
                                pid = 0;
                        }
                }
        if (pid > 0)
                HCALL(SYS_kill, pid, SIGKILL, 0, 0);
        hclose(fd);
}

/* A cgroup the launcher made is emptied and removed (its tasks take a
 * moment to leave after SIGKILL); one it had not confirmed was never
 * joined by the sandbox: removed only when it is empty. */
static void undo_cgroup(const note *n, long long deadline)
{
        bool made = n->state == NOTE_MADE;
        if (made && n->version == 2)
                write_small(n->path, "cgroup.kill", "1");
        for (;;) {
                long r = HCALL(SYS_unlinkat, AT_FDCWD, n->path, AT_REMOVEDIR, 0);
                if (r == 0 || r != -EBUSY || !made || now_ns() >= deadline)
                        return;
                kill_procs(n->path);
                nap_ms(10);
        }
}

/* Open the directory |path| without following any symlink on the way
 * (-errno on failure). */
static int open_dir_nofollow(const char *path)
{
        struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        int fd = (int)HCALL(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        if (fd != -ENOSYS)
                return fd;
        /* before Linux 5.6: one component at a time */
        int dfd = hopen("/", O_PATH | O_DIRECTORY);
        for (const char *p = path; dfd >= 0 && *p;) {
                while (*p == '/')
                        p++;
                size_t len = strcspn(p, "/");
                if (len == 0)
                        break;
                char comp[NAME_MAX + 1];
                int nfd = -ENAMETOOLONG;
                if (len <= NAME_MAX) {
                        memcpy(comp, p, len);
                        comp[len] = '\0';
                        nfd = (int)HCALL(SYS_openat, dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
                }
                hclose(dfd);
                dfd = nfd;
                p += len;
        }
        return dfd;
}

static int hstat(int dfd, const char *name, struct stat *st)
{
        return (int)HCALL(SYS_newfstatat, dfd, name, st, name[0] ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH);
}

/* A file or directory, removed only when it is still the one noted (for a
 * pending note, one in the noted parent) and unchanged: an empty directory,
 * a file of the size it had when made (for a pending note, the size it was
 * to be made with). */
static void undo_file(const note *n)
{
        int dfd = open_dir_nofollow(n->path);
        if (dfd < 0)
                return;
        struct stat ps, st;
        if (hstat(dfd, "", &ps) == 0 && ps.st_dev == n->parent_dev && ps.st_ino == n->parent_ino &&
            hstat(dfd, n->name, &st) == 0) {
                bool same = n->state != NOTE_MADE || (st.st_dev == n->dev && st.st_ino == n->ino &&
                                                      S_ISDIR(st.st_mode) == n->is_dir);
                if (same && S_ISDIR(st.st_mode))
                        HCALL(SYS_unlinkat, dfd, n->name, AT_REMOVEDIR, 0); /* refused unless empty */
                else if (same && S_ISREG(st.st_mode) && (n->size < 0 || st.st_size == n->size))
                        HCALL(SYS_unlinkat, dfd, n->name, 0, 0);
        }
        hclose(dfd);
}

/* Wait (until |deadline|) for the sandbox's init to end: its mounts sit on
 * the placeholders, and removing a mount point detaches the mount in every
 * namespace. It dies with the launcher by itself, and once it is a zombie
 * (not reaped: the launcher's gone) nothing of its pid namespace is left.
 * A pidfd tells an exit from a zombie; kill(0) cannot. */
static void wait_init(pid_t pid, long long deadline)
{
        if (pid <= 0)
                return;
        int fd = (int)HCALL(SYS_pidfd_open, pid, 0, 0, 0);
        if (fd >= 0) {
                long long left = deadline - now_ns();
                struct pollfd p = {.fd = fd, .events = POLLIN};
                struct timespec ts = {left / 1000000000LL, left % 1000000000LL};
                if (left > 0)
                        HCALL(SYS_ppoll, &p, 1, &ts, NULL);
                hclose(fd);
                return;
        }
        long r;
        while (fd != -ESRCH && ((r = HCALL(SYS_kill, pid, 0, 0, 0)) == 0 || r == -EPERM) && now_ns() < deadline)
                nap_ms(5);
}

static void undo_all(const undo_area *a, long long start)
{
        long long deadline = start + HELPER_BUDGET_NS;
        size_t n = __atomic_load_n(&a->n, __ATOMIC_ACQUIRE);
        for (size_t i = 0; i < n && i < a->cap; i++)
                if (a->notes[i].kind == KIND_CGROUP && __atomic_load_n(&a->notes[i].state, __ATOMIC_ACQUIRE))
                        undo_cgroup(&a->notes[i], deadline);
        bool files = false;
        for (size_t i = 0; i < n && i < a->cap; i++)
                files |= a->notes[i].kind == KIND_FILE && __atomic_load_n(&a->notes[i].state, __ATOMIC_ACQUIRE);
        if (!files)
                return;
        wait_init(__atomic_load_n(&a->init, __ATOMIC_ACQUIRE), deadline);
        /* Another live run may have bound a placeholder too (protect.c):
         * then it stays, and the journal with it, for a later repair. The
         * lock is shared with the launcher (one open file), so only other
         * runs' locks count; released afterwards, for a launcher process
         * whose thread died but lives on. */
        if (a->lock >= 0 && HCALL(SYS_flock, a->lock, LOCK_EX | LOCK_NB, 0, 0) < 0)
                return;
        /* in the order noted: the placeholders (noted by backend.c before
         * protect.c makes them) before their journal */
        for (size_t i = 0; i < n && i < a->cap; i++)
                if (a->notes[i].kind == KIND_FILE && __atomic_load_n(&a->notes[i].state, __ATOMIC_ACQUIRE))
                        undo_file(&a->notes[i]);
        if (a->lock >= 0)
                HCALL(SYS_flock, a->lock, LOCK_UN, 0, 0);
}

static bool is_done(const undo_area *a) { return __atomic_load_n(&a->done, __ATOMIC_ACQUIRE) != 0; }

/* The git check of the run, in cordon's helper program: `cordon
 * --cordon-helper git-check 3 NAME` with logs/ as descriptor 3, once the
 * sandbox is gone (nothing may plant behind it), with the launcher's
 * stdout and stderr; every signal stays blocked until the program's
 * start unblocks them. Returns only when it could not be executed. */
static void run_git_check(const undo_area *a, long long start)
{
        if (a->exe < 0 || a->logs < 0 || !__atomic_load_n(&a->git, __ATOMIC_ACQUIRE))
                return;
        /* longer than the rest: a loaded machine takes its time to end a
         * tree, and the check must not run before */
        (void)start;
        wait_init(__atomic_load_n(&a->init, __ATOMIC_ACQUIRE), now_ns() + GIT_CHECK_WAIT_NS);
        int exe = (int)HCALL(SYS_fcntl, a->exe, F_DUPFD_CLOEXEC, 4, 0); /* out of 3's way */
        if (exe < 0 ||
            (a->logs != 3 ? HCALL(SYS_dup3, a->logs, 3, 0, 0) < 0 : HCALL(SYS_fcntl, 3, F_SETFD, 0, 0) < 0))
                return;
        int null = hopen("/dev/null", O_RDONLY);
        if (null > 0) {
                HCALL(SYS_dup3, null, 0, 0, 0);
                hclose(null);
        } else if (null == 0) {
                HCALL(SYS_fcntl, 0, F_SETFD, 0, 0);
        }
        char *const argv[] = {(char *)"cordon", (char *)"--cordon-helper", (char *)"git-check", (char *)"3",
                              (char *)a->journal, NULL};
        char *const envp[] = {(char *)"PATH=/usr/bin:/bin", NULL};
        HCALL5(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
}

/* Close every descriptor but the |n| ones of |keep| (-1 for none). */
static void close_all_but(int *keep, int n)
{
        for (int i = 0; i < n; i++) /* sort */
                for (int j = i + 1; j < n; j++)
                        if (keep[j] < keep[i]) {
                                int t = keep[i];
                                keep[i] = keep[j];
                                keep[j] = t;
                        }
        unsigned from = 0;
        for (int i = 0; i < n; i++) {
                if (keep[i] < 0)
                        continue;
                if ((unsigned)keep[i] > from)
                        HCALL(SYS_close_range, from, (unsigned)keep[i] - 1, 0, 0);
                from = (unsigned)keep[i] + 1;
        }
        HCALL(SYS_close_range, from, ~0U, 0, 0);
}

/* What the helper starts with (on its own stack, for a shared-memory one). */
typedef struct helper_args {
        undo_area *a;
        int lifeline; /* its end of the pipe: EOF once the launcher is gone or done */
        int launcher; /* the launcher thread's /proc directory */
} helper_args;

/* The helper's whole life. |lifeline| and |launcher| are the only
 * descriptors it keeps. */
_Noreturn static void helper_main(const helper_args *args)
{
        undo_area *a = args->a;
        int lifeline = args->lifeline, launcher = args->launcher;
        /* From here on the death of the launcher's thread is a SIGTERM,
         * read from a signalfd (every signal stays blocked). The kernel's
         * signal set is 8 bytes, the first of libc's sigset_t. */
        HCALL(SYS_prctl, PR_SET_PDEATHSIG, SIGTERM, 0, 0);
        unsigned long long term = 1ULL << (SIGTERM - 1);
        int sfd = (int)HCALL(SYS_signalfd4, -1, &term, sizeof(term), SFD_CLOEXEC | SFD_NONBLOCK);
        /* Out of the caller's process group: a terminal's ^C or a
         * killpg() of the launcher's group does not stop the clean-up. */
        HCALL(SYS_setpgid, 0, 0, 0, 0);
        HCALL(SYS_prctl, PR_SET_NAME, "cordon-undo", 0, 0);
        HCALL(SYS_chdir, "/", 0, 0, 0); /* every path it uses is absolute; pin no mount */
        int keep[8] = {lifeline, launcher, sfd, a->lock, a->exe, a->logs, a->exe >= 0 ? 1 : -1, a->exe >= 0 ? 2 : -1};
        close_all_but(keep, 8);
        bool gone = launcher >= 0 && sys_task_gone(launcher);
        while (!gone && !is_done(a)) {
                struct pollfd p[2] = {{.fd = lifeline, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
                long r = HCALL(SYS_ppoll, p, sfd >= 0 ? 2 : 1, NULL, NULL);
                if (r < 0 && r != -EINTR)
                        break;
                if (p[0].revents)
                        break; /* EOF: the launcher process is gone, or done */
                if (p[1].revents) {
                        struct signalfd_siginfo si;
                        while (HCALL(SYS_read, sfd, &si, sizeof(si), 0) > 0)
                                ;
                        /* a SIGTERM from anyone else does not count */
                        gone = launcher < 0 || sys_task_gone(launcher);
                }
        }
        if (!is_done(a)) {
                long long start = now_ns();
                undo_all(a, start);
                run_git_check(a, start);
        }
        for (;;)
                HCALL(SYS_exit_group, 0, 0, 0, 0);
}

#if HELPER_SHARES_MEMORY
static int helper_entry(void *args) { helper_main(args); }

/* On x86-64 the helper gets a thread control block of its own, just above
 * its stack's guard page, so that it reads nothing of the launcher
 * thread's, which may be gone (a library caller's thread that ended) while
 * it cleans up: the block's self pointers and a copy of the stack
 * protector's canary (%fs:0x28) and pointer guard (%fs:0x30), glibc's
 * tcbhead_t. glibc's own TLS variables (errno) would lie just below it, in
 * the guard page: a fault, not a write into the launcher's memory (the
 * helper makes no call that writes them). On aarch64 the
 * canary is a global, and the helper reads no TLS. */
#if defined(__x86_64__)
static int helper_tls_flag(void) { return CLONE_SETTLS; }
static void *helper_tls(char *block)
{
        uintptr_t *tcb = (uintptr_t *)block, guard, pointer_guard;
        __asm__("mov %%fs:0x28, %0" : "=r"(guard));
        __asm__("mov %%fs:0x30, %0" : "=r"(pointer_guard));
        tcb[0] = tcb[2] = (uintptr_t)tcb;
        tcb[5] = guard;
        tcb[6] = pointer_guard;
        return tcb;
}
#else
static int helper_tls_flag(void) { return 0; }
static void *helper_tls(char *block)
{
        (void)block;
        return NULL;
}
#endif
#endif

/* ---- the launcher's side ------------------------------------------------------------- */

/* Start the helper: on its own stack |stack| (HELPER_STACK bytes, its
 * lowest page a guard) sharing our memory, or a fork (|stack| MAP_FAILED).
 * The caller has every signal blocked. */
static pid_t helper_clone(void *stack, const helper_args *args)
{
#if HELPER_SHARES_MEMORY
        if (stack == MAP_FAILED) {
                pid_t pid = sys_clone(SIGCHLD, NULL);
                if (pid == 0)
                        helper_main(args);
                return pid;
        }
        helper_args *copy = (helper_args *)((char *)stack + HELPER_STACK) - 1;
        *copy = *args;
        /* 16-byte aligned, below the arguments */
        char *top = (char *)((uintptr_t)copy & ~(uintptr_t)15);
        return clone(helper_entry, top, CLONE_VM | SIGCHLD | helper_tls_flag(),
                     copy, NULL, helper_tls((char *)stack + 4096));
#else
        (void)stack;
        pid_t pid = sys_clone(SIGCHLD, NULL);
        if (pid == 0)
                helper_main(args);
        return pid;
#endif
}

int undo_start(size_t n, int lock, bool share_memory, undo_log **ret, cordon_error **ret_error)
{
        return undo_start_checked(n, lock, share_memory, NULL, ret, ret_error);
}

int undo_start_checked(size_t n, int lock, bool share_memory, const undo_checker *checker, undo_log **ret,
                       cordon_error **ret_error)
{
        *ret = NULL;
        undo_log *u = calloc(1, sizeof(*u));
        if (!u)
                return error_set(ret_error, ENOMEM, "out of memory");
        u->lifeline = -1;
        u->pid = -1;
        u->stack = MAP_FAILED;
        u->size = sizeof(undo_area) + n * sizeof(note);
        void *m = mmap(NULL, u->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
                int e = errno;
                free(u);
                return error_set(ret_error, e, "cannot map the undo log: %s", strerror(e));
        }
        u->a = m;
        u->a->cap = n;
        u->a->lock = lock;
        u->a->exe = checker ? checker->exe : -1;
        u->a->logs = checker && checker->exe >= 0 ? checker->logs : -1;
        if (HELPER_SHARES_MEMORY && share_memory) {
                u->stack = mmap(NULL, HELPER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                                -1, 0);
                if (u->stack == MAP_FAILED || mprotect(u->stack, 4096, PROT_NONE) < 0) {
                        int e = errno;
                        undo_free(u);
                        return error_set(ret_error, e, "cannot map a stack: %s", strerror(e));
                }
        }
        int life[2];
        if (pipe2(life, O_CLOEXEC) < 0) {
                int e = errno;
                undo_free(u);
                return error_set(ret_error, e, "cannot create a pipe: %s", strerror(e));
        }
        /* names this thread: the helper's check that it did not die before
         * the parent death signal was armed */
        helper_args args = {.a = u->a, .lifeline = life[0],
                            .launcher = openat(AT_FDCWD, "/proc/thread-self", O_PATH | O_DIRECTORY | O_CLOEXEC)};
        /* No signal handler of the caller may run in the helper, and none
         * may stop it before it blocks them itself. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pid_t pid = helper_clone(u->stack, &args);
        int e = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        close(life[0]);
        if (args.launcher >= 0)
                close(args.launcher);
        u->lifeline = life[1];
        if (pid < 0) {
                undo_free(u);
                return error_set(ret_error, e, "cannot start the clean-up helper: %s", strerror(e));
        }
        u->pid = pid;
        *ret = u;
        return 0;
}

/* A free note (a dropped one is reused: a cgroup name may be tried many
 * times), or NULL. The helper ignores free notes, so filling one is safe. */
static note *next_note(undo_log *u)
{
        if (!u)
                return NULL;
        size_t i = 0;
        while (i < u->a->n && u->a->notes[i].state != NOTE_FREE)
                i++;
        if (i >= u->a->cap)
                return NULL;
        note *n = &u->a->notes[i];
        memset(n, 0, sizeof(*n));
        return n;
}

/* Publish the note filled in by next_note's caller. */
static int publish(undo_log *u, note *n)
{
        size_t i = (size_t)(n - u->a->notes);
        __atomic_store_n(&n->state, NOTE_PENDING, __ATOMIC_RELEASE);
        if (i == u->a->n)
                __atomic_store_n(&u->a->n, i + 1, __ATOMIC_RELEASE);
        return (int)i;
}

int undo_note_cgroup(undo_log *u, const char *path, int version)
{
        note *n = next_note(u);
        if (!n || sys_strlcpy(n->path, path, sizeof(n->path)) >= sizeof(n->path))
                return -1;
        n->kind = KIND_CGROUP;
        n->version = version;
        return publish(u, n);
}

/* Note |name| in |dirfd|, the directory |parent| (a path that reaches it
 * without a link: the helper opens it again so), or when NULL the path
 * /proc/self/fd gives. */
static int note_file(undo_log *u, int dirfd, const char *parent, const char *name)
{
        note *n = next_note(u);
        char link[64];
        struct stat ps;
        if (!n || sys_strlcpy(n->name, name, sizeof(n->name)) >= sizeof(n->name) || strchr(name, '/') ||
            fstat(dirfd, &ps) < 0)
                return -1;
        if (parent && sys_strlcpy(n->path, parent, sizeof(n->path)) >= sizeof(n->path))
                return -1;
        if (!parent) {
                snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
                ssize_t len = readlink(link, n->path, sizeof(n->path) - 1);
                if (len <= 0)
                        return -1;
                n->path[len] = '\0';
        }
        if (n->path[0] != '/')
                return -1;
        n->kind = KIND_FILE;
        n->parent_dev = ps.st_dev;
        n->parent_ino = ps.st_ino;
        return publish(u, n);
}

int undo_note_file_at(undo_log *u, int dirfd, const char *name) { return note_file(u, dirfd, NULL, name); }

int undo_note_path(undo_log *u, const char *path, int *ret_dirfd)
{
        *ret_dirfd = -1;
        const char *slash = strrchr(path, '/');
        char parent[PATH_MAX];
        if (!u || !slash || slash[1] == '\0' || (size_t)(slash - path) >= sizeof(parent))
                return -1;
        memcpy(parent, path, (size_t)(slash - path));
        parent[slash == path ? 1 : slash - path] = '\0';
        /* opened through no link: |parent| itself is the path to note */
        int dfd = open_dir_nofollow(parent);
        if (dfd < 0)
                return -1;
        int i = note_file(u, dfd, parent, slash + 1);
        if (i < 0) {
                close(dfd);
                return -1;
        }
        *ret_dirfd = dfd;
        return i;
}

void undo_made(undo_log *u, int i, bool made, int dirfd)
{
        if (!u || i < 0 || (size_t)i >= u->a->n)
                return;
        note *n = &u->a->notes[i];
        struct stat st;
        if (made && n->kind == KIND_FILE) {
                made = fstatat(dirfd, n->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
                if (made) {
                        n->dev = st.st_dev;
                        n->ino = st.st_ino;
                        n->is_dir = S_ISDIR(st.st_mode);
                        n->size = st.st_size;
                }
        }
        __atomic_store_n(&n->state, made ? NOTE_MADE : NOTE_FREE, __ATOMIC_RELEASE);
}

void undo_expect_size(undo_log *u, int i, off_t size)
{
        if (u && i >= 0 && (size_t)i < u->a->n)
                u->a->notes[i].size = size;
}

void undo_any_size(undo_log *u, int i)
{
        if (u && i >= 0 && (size_t)i < u->a->n)
                u->a->notes[i].size = -1;
}

void undo_set_init(undo_log *u, pid_t pid)
{
        if (u)
                __atomic_store_n(&u->a->init, pid, __ATOMIC_RELEASE);
}

void undo_set_git_check(undo_log *u, const char *name)
{
        if (!u || !name || !name[0] || sys_strlcpy(u->a->journal, name, sizeof(u->a->journal)) >= sizeof(u->a->journal))
                return;
        __atomic_store_n(&u->a->git, 1, __ATOMIC_RELEASE);
}

void undo_done(undo_log *u)
{
        if (!u || !u->a)
                return;
        __atomic_store_n(&u->a->done, 1, __ATOMIC_RELEASE);
        if (u->lifeline >= 0) {
                close(u->lifeline);
                u->lifeline = -1;
        }
}

undo_log *undo_free(undo_log *u)
{
        if (!u)
                return NULL;
        undo_done(u);
        if (u->pid > 0 && !u->reaped)
                while (waitpid(u->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        if (u->a)
                munmap(u->a, u->size);
        if (u->stack != MAP_FAILED) /* the helper is gone: it ran on it */
                munmap(u->stack, HELPER_STACK);
        free(u);
        return NULL;
}
