/* SPDX-License-Identifier: MIT */
/* The relay between the caller's terminal and the command's own (--pty). */
#pragma once

#include <stdbool.h>

/* Start relaying the caller's stdin to |master_fd|, and |master_fd| to the
 * caller's terminal (stdout, else stderr, else stdin), in a thread. Stdin,
 * if a terminal, is put in raw mode; the window size is copied. 0 or
 * -errno (then nothing was changed). */
int relay_start(int master_fd);
/* Wait until the command's terminal is closed (after the command ended),
 * then restore the caller's terminal. Idempotent; also run at exit. */
void relay_finish(void);
/* SIGWINCH: copy the caller's window size to the command's terminal
 * (async-signal-safe). False when no relay runs. */
bool relay_resize(void);
