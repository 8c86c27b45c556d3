/* SPDX-License-Identifier: MIT */
/* The caller's terminals that the command gets as they are (no terminal of
 * its own: --no-pty, or stdin not a terminal): their settings and window
 * size, saved at start and put back when the sandbox ends, so that a
 * command cannot change them for good (stty -echo cols 7). */
#pragma once

#include <stdbool.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "util.h"

typedef struct saved_terminal {
        int fd; /* our duplicate of the caller's descriptor, or -1 */
        struct termios attr;
        struct winsize size;
        bool have_size;
} saved_terminal;

/* Save the terminals among |stdio| (-1: none) into |saved| (three, each
 * set to -1 when not a terminal). Failures only leave one unsaved. */
void terminals_save(const int stdio[3], saved_terminal saved[3]) HIDDEN;
/* Put back what changed, then let go of the duplicates. Safe to call
 * twice, and from a background process group (SIGTTOU is blocked
 * meanwhile). */
void terminals_restore(saved_terminal saved[3]) HIDDEN;
