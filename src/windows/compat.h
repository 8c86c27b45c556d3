/* SPDX-License-Identifier: MIT */
/* What the core and the CLI use of POSIX and glibc that mingw-w64 lacks,
 * for the Windows build only: force-included there (-include
 * windows/compat.h, with windows/compat/ for whole headers), so the core
 * needs no #ifdef. Each behaves as its POSIX namesake, or, where Windows
 * has no such thing (openat, process groups), fails as POSIX lets it. */
#pragma once
#ifdef _WIN32

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef int uid_t;
typedef int gid_t;
#define sigset_t _sigset_t

char *strchrnul(const char *s, int c);
char *strndup(const char *s, size_t n);

/* mingw's environ is a macro that breaks struct members of that name:
 * a variable instead (compat.c sets it at start-up). */
#undef environ
extern char **environ;

/* "re" (close-on-exec) is glibc's: Windows' is "N". */
FILE *compat_fopen(const char *path, const char *mode);
#define fopen compat_fopen

/* Open flags Windows has no such thing for: no symlinks to refuse in the
 * places the core uses it (plan*.c, which this build leaves out), no
 * descriptors below a directory. */
#define O_DIRECTORY 0
#define O_NOFOLLOW  0
#define O_NOCTTY    0
#define O_NONBLOCK  0
#define O_CLOEXEC   _O_NOINHERIT
#ifndef NAME_MAX
#define NAME_MAX 255
#endif
int openat(int dirfd, const char *path, int flags, ...);
/* O_NONBLOCK is 0 here: reading or clearing it has nothing to do */
#define F_GETFL 3
#define F_SETFL 4
static inline int fcntl(int fd, int cmd, ...)
{
        (void)fd;
        (void)cmd;
        return 0;
}
/* the absolute path, allocated (Windows resolves no symlinks in it) */
#define realpath(path, resolved) _fullpath((resolved), (path), 0)

#define lstat(path, st) stat(path, st)
#define S_ISLNK(m)      0
/* no symlink to read (config-profiles.c asks for /proc/self/exe: a build
 * tree's cordon is not recognised as such on Windows) */
// NOLINTNEXTLINE(readability-non-const-parameter): readlink(2)'s own type
static inline ssize_t readlink(const char *path, char *buf, size_t size)
{
        (void)path;
        (void)buf;
        (void)size;
        errno = ENOSYS;
        return -1;
}

/* Signals: Windows delivers SIGINT, SIGTERM, SIGBREAK (console events); the
 * others keep their Linux numbers so that 128+N statuses read the same. */
#define SIGHUP   1
#define SIGQUIT  3
#define SIGKILL  9
#define SIGUSR1  10
#define SIGUSR2  12
#define SIGPIPE  13
#define SIGXCPU  24
#define SIGXFSZ  25
#define SIGWINCH 28
#define SA_RESTART 0
struct sigaction {
        void (*sa_handler)(int);
        sigset_t sa_mask;
        int sa_flags;
};
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int sigemptyset(sigset_t *set);

/* The CLI's main, renamed in this build: wmain.c calls it with UTF-8. */
int cordon_main(int argc, char **argv);

/* No process groups nor controlling terminals. */
int getpgrp(void);
int tcgetpgrp(int fd);

#endif
