/* SPDX-License-Identifier: MIT */
/* The caller's terminals, restored after a run (terminal.h). */
#include "terminal.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"

void terminals_save(const int stdio[3], saved_terminal saved[3])
{
        for (int i = 0; i < 3; i++) {
                saved_terminal *t = &saved[i];
                memset(t, 0, sizeof(*t));
                t->fd = -1;
                if (stdio[i] < 0 || !isatty(stdio[i]) || tcgetattr(stdio[i], &t->attr) < 0)
                        continue;
                t->have_size = ioctl(stdio[i], TIOCGWINSZ, &t->size) == 0;
                t->fd = sys_dup_cloexec(stdio[i], 3);
        }
}

static bool termios_same(const struct termios *a, const struct termios *b)
{
        return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
               a->c_lflag == b->c_lflag && memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0 &&
               cfgetispeed(a) == cfgetispeed(b) && cfgetospeed(a) == cfgetospeed(b);
}

/* The settings and the size back, each only when it differs from what was
 * saved (an unchanged terminal is not touched). */
static void restore_one(saved_terminal *t)
{
        struct termios now;
        struct winsize size;
        memset(&now, 0, sizeof(now));
        if (tcgetattr(t->fd, &now) == 0 && !termios_same(&now, &t->attr))
                tcsetattr(t->fd, TCSANOW, &t->attr);
        if (t->have_size && ioctl(t->fd, TIOCGWINSZ, &size) == 0 &&
            (size.ws_row != t->size.ws_row || size.ws_col != t->size.ws_col || size.ws_xpixel != t->size.ws_xpixel ||
             size.ws_ypixel != t->size.ws_ypixel))
                ioctl(t->fd, TIOCSWINSZ, &t->size);
}

/* A process outside the terminal's foreground group that changes its
 * settings gets SIGTTOU (and stops: a cordon in the background) unless the
 * signal is blocked. */
void terminals_restore(saved_terminal saved[3])
{
        sigset_t ttou, old;
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        pthread_sigmask(SIG_BLOCK, &ttou, &old);
        for (int i = 0; i < 3; i++) {
                if (saved[i].fd < 0)
                        continue;
                restore_one(&saved[i]);
                close(saved[i].fd);
                saved[i].fd = -1;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
}
