/* SPDX-License-Identifier: MIT */
/* What a run makes on the host, outside the sandbox's own namespaces (its
 * cgroup directories, the placeholders of protected paths), undone even
 * when the launcher dies first.
 *
 * The launcher undoes it itself when the run ends. For the case where it
 * cannot (a SIGKILL at any instant, or the death of the thread that started
 * the sandbox: the sandbox dies with it), a run that makes anything starts
 * a small helper process first, and notes each thing in an undo log in
 * memory shared with it, *before* making it. The helper sleeps until the
 * launcher is gone (its parent death signal, the EOF of a pipe only the
 * launcher holds, and a look at the launcher's thread for a death before
 * the signal was armed, as the sandbox's init does), then, unless the
 * launcher marked the log done, undoes what the log holds and exits, within
 * about two seconds:
 *   - a cgroup directory: emptied (cgroup.kill, or SIGKILL to each process
 *     of cgroup.procs) and removed, once the launcher confirmed it made it;
 *     one it had not confirmed is only removed when empty;
 *   - a file or directory (a placeholder): removed when it is still the very
 *     one noted (device and inode, its parent's too, the parent reached
 *     without following any symlink) and still empty.
 *   - the post-run git check (gitcheck.h): once the sandbox is gone and the
 *     rest is undone, it executes cordon's helper program (|exe|, e.g. the
 *     CLI's own binary) to check from the run's journal, with logs/ and
 *     the launcher's stdout and stderr, which it keeps: a caller that reads
 *     them to their end waits for the check.
 * The helper shares the launcher's memory (CLONE_VM on a stack of its own,
 * where raw system calls exist; else, under a sanitizer, and with
 * CORDON_DEBUG=fork-init, a fork), started with every signal blocked, in a
 * process group of its own, holding no descriptor of the caller's; it only
 * makes raw system calls on the log (no malloc, no stdio, no errno), so it
 * may be started from a multi-threaded program and write nothing of it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"

typedef struct undo_log undo_log;

/* Start the helper with room for |n| notes. |lock| (or -1), protect.c's
 * lock, shared with the helper: it undoes files only when it can take it
 * exclusively (no other run alive that may have bound them). |share_memory|:
 * the helper shares the launcher's memory where it can (false: a fork, as
 * for the init with CORDON_DEBUG=fork-init, which valgrind needs). Returns 0
 * or -errno (with an error). */
int undo_start(size_t n, int lock, bool share_memory, undo_log **ret, cordon_error **ret_error) HIDDEN;
/* Before undo_start: the helper program |exe| (an O_PATH descriptor, or
 * -1) and the instance's logs/ (|logs|, or -1) for the git check; both
 * stay the caller's. */
typedef struct undo_checker {
        int exe, logs;
} undo_checker;
int undo_start_checked(size_t n, int lock, bool share_memory, const undo_checker *checker, undo_log **ret,
                       cordon_error **ret_error) HIDDEN;
/* The git check's journal |name| in logs/ (""/NULL: none): should the
 * launcher die, the helper runs the check from it. */
void undo_set_git_check(undo_log *u, const char *name) HIDDEN;
/* Note the cgroup directory |path| (cgroup |version| 1 or 2) before it is
 * made. Returns the note's number, or -1 (no log, or it is full: then
 * nothing is undone for it but by the next run's sweep). */
int undo_note_cgroup(undo_log *u, const char *path, int version) HIDDEN;
/* Note the file or directory |name| in the directory |dirfd| before it is
 * made (its parent's path is read from /proc/self/fd). Returns the note's
 * number or -1. */
int undo_note_file_at(undo_log *u, int dirfd, const char *name) HIDDEN;
/* The same for the absolute |path|, by its parent directory opened without
 * following any symlink on the way: *ret_dirfd (the caller's to close,
 * after undo_made), or -1 with the result -1. */
int undo_note_path(undo_log *u, const char *path, int *ret_dirfd) HIDDEN;
/* The thing of note |i| was made (then the helper may undo it) or not (then
 * the note is dropped). A file's identity is read now, relative to the
 * directory the note was made with (|dirfd| again, -1 for a cgroup). */
void undo_made(undo_log *u, int i, bool made, int dirfd) HIDDEN;
/* The file of note |i| is made with |size| bytes (default 0): a pending
 * note's file is removed only when it has that size. */
void undo_expect_size(undo_log *u, int i, off_t size) HIDDEN;
/* The file of note |i| (made) is removed whatever its size (a journal that
 * grows), as long as it is still the inode noted. */
void undo_any_size(undo_log *u, int i) HIDDEN;
/* The sandbox's init: the helper waits for its end before it removes
 * files (a placeholder is a mount point while the sandbox lives). */
void undo_set_init(undo_log *u, pid_t pid) HIDDEN;
/* The launcher undid everything itself: the helper exits without touching
 * anything. Does not wait for it. Accepts NULL. */
void undo_done(undo_log *u) HIDDEN;
/* undo_done, then reap the helper and free. Accepts NULL; returns NULL. */
undo_log *undo_free(undo_log *u) HIDDEN;
