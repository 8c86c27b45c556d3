/* SPDX-License-Identifier: MIT */
/* The relay between the caller's terminal and the command's own: a thread
 * copies bytes both ways while the main thread waits for the command (and
 * enforces its limits); the caller's terminal is raw meanwhile, so that
 * every key (^C, ^Z, ^D) reaches the command's terminal, whose line
 * discipline acts on it. */
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static int master = -1;
static int out_fd = 1;          /* where the command's terminal output goes */
static bool raw;                /* |saved| is to be restored on fd 0 */
static struct termios saved;
static pthread_t thread;
static bool running;

bool relay_resize(void)
{
        struct winsize ws;
        int tty = isatty(0) ? 0 : out_fd;
        if (master < 0)
                return false;
        if (ioctl(tty, TIOCGWINSZ, &ws) == 0)
                ioctl(master, TIOCSWINSZ, &ws);
        return true;
}

static bool write_all(int fd, const char *p, size_t n)
{
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return false;
                p += w;
                n -= (size_t)w;
        }
        return true;
}

/* Bytes of the caller's stdin not yet taken by the command's terminal
 * (whose master is non-blocking: a command that does not read must not
 * stop its output). */
typedef struct pending {
        char buf[4096];
        size_t off, len;
} pending;

static void flush_pending(pending *in)
{
        ssize_t w = write(master, in->buf + in->off, in->len - in->off);
        if (w > 0)
                in->off += (size_t)w;
        else if (w < 0 && errno != EAGAIN && errno != EINTR)
                in->off = in->len; /* the terminal is going away */
        if (in->off == in->len)
                in->off = in->len = 0;
}

/* The caller's stdin ended: an end-of-file for the command's terminal. */
static void send_eof(pending *in)
{
        struct termios t;
        in->buf[0] = tcgetattr(master, &t) == 0 && t.c_cc[VEOF] ? (char)t.c_cc[VEOF] : 4;
        in->off = 0;
        in->len = 1;
        flush_pending(in);
}

static void read_stdin(pending *in, bool *in_open)
{
        ssize_t n = read(0, in->buf, sizeof(in->buf));
        if (n > 0) {
                in->len = (size_t)n;
                flush_pending(in);
        } else if (n == 0 || errno != EINTR) {
                *in_open = false;
                send_eof(in);
        }
}

/* Ends when the command's terminal is closed on its side (EIO). */
static void *relay_main(void *unused)
{
        (void)unused;
        char out[16384];
        pending in = {.len = 0};
        bool in_open = true;
        for (;;) {
                bool busy = in.len > 0;
                struct pollfd pfd[2] = {{.fd = master, .events = POLLIN | (busy ? POLLOUT : 0)},
                                        {.fd = in_open && !busy ? 0 : -1, .events = POLLIN}};
                if (poll(pfd, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                        ssize_t n = read(master, out, sizeof(out));
                        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                                continue;
                        if (n <= 0)
                                break; /* EIO: nothing in the sandbox has it open any more */
                        write_all(out_fd, out, (size_t)n);
                }
                if (busy && (pfd[0].revents & POLLOUT))
                        flush_pending(&in);
                if (pfd[1].revents)
                        read_stdin(&in, &in_open);
        }
        return NULL;
}

static void restore_terminal(void)
{
        if (raw)
                tcsetattr(0, TCSADRAIN, &saved);
        raw = false;
}

int relay_start(int master_fd)
{
        out_fd = isatty(1) ? 1 : isatty(2) ? 2 : isatty(0) ? 0 : 1;
        if (isatty(0) && tcgetattr(0, &saved) == 0) {
                struct termios t = saved;
                cfmakeraw(&t);
                if (tcsetattr(0, TCSADRAIN, &t) == 0) {
                        raw = true;
                        atexit(restore_terminal);
                }
        }
        master = master_fd;
        fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
        relay_resize();
        int r = pthread_create(&thread, NULL, relay_main, NULL);
        if (r != 0) {
                restore_terminal();
                master = -1;
                return -r;
        }
        running = true;
        return 0;
}

void relay_finish(void)
{
        if (running)
                pthread_join(thread, NULL);
        running = false;
        restore_terminal();
}
