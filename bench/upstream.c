/* SPDX-License-Identifier: MIT */
/* bench/proxy's upstream: a small HTTP/1.1 server of the files in one
 * directory, cheap per byte (sendfile(2), a process per connection), so
 * that a download measures the proxy and the client rather than the
 * server. Usage: upstream ADDRESS PORT DIR. Not part of cordon. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* GET /NAME: NAME a file of |dir| (no slash); anything else 404. */
static void serve(int dir, int fd)
{
        char req[4096];
        size_t len = 0;
        while (len < sizeof(req) - 1 && !memmem(req, len, "\r\n\r\n", 4)) {
                ssize_t n = read(fd, req + len, sizeof(req) - 1 - len);
                if (n <= 0)
                        return;
                len += (size_t)n;
        }
        req[len] = '\0';
        char name[256] = "";
        int file = -1;
        struct stat st;
        if (sscanf(req, "GET /%255[^ /] HTTP/1.", name) == 1 && name[0] != '.')
                file = openat(dir, name, O_RDONLY | O_NOFOLLOW);
        if (file < 0 || fstat(file, &st) < 0) {
                static const char NF[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                (void)!write(fd, NF, sizeof(NF) - 1);
                return;
        }
        char head[160];
        int h = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
                         (long long)st.st_size);
        if (write(fd, head, (size_t)h) != h)
                return;
        for (off_t off = 0; off < st.st_size;)
                if (sendfile(fd, file, &off, (size_t)(st.st_size - off)) <= 0)
                        return;
}

int main(int argc, char **argv)
{
        if (argc != 4)
                return 2;
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
        int s = socket(AF_INET, SOCK_STREAM, 0), one = 1, dir = open(argv[3], O_RDONLY | O_DIRECTORY);
        if (s < 0 || dir < 0 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1)
                return 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1024) < 0)
                return 1;
        signal(SIGCHLD, SIG_IGN);
        for (;;) {
                int fd = accept(s, NULL, NULL);
                if (fd < 0)
                        continue;
                if (fork() == 0) {
                        close(s);
                        serve(dir, fd);
                        shutdown(fd, SHUT_WR);
                        char drain[512];
                        while (read(fd, drain, sizeof(drain)) > 0) {
                        }
                        _exit(0);
                }
                close(fd);
        }
}
