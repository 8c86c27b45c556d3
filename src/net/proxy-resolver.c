/* SPDX-License-Identifier: MIT */
/* The host's lookup of a name: getaddrinfo blocks, so a short-lived thread
 * makes it and sends its answer (resolve_result) as one datagram on a
 * socket the loop watches; the caller joins the thread once it answered.
 * Used for a request's own lookup (proxy-upstream.c) and for a name the
 * sandbox's resolver just gave an address (proxy-prefetch.c). */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/proxy-internal.h"

typedef struct resolve_job {
        int fd;
        char host[NET_HOST_MAX + 3];
} resolve_job;

static void *resolver_main(void *arg)
{
        resolve_job *j = arg;
        resolve_result res = {0};
        /* no AI_ADDRCONFIG: on a host with only loopback it hides every
         * IPv4 address; an address without a route fails to connect, and
         * the next one is tried */
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        struct addrinfo *ai = NULL;
        res.err = getaddrinfo(j->host, NULL, &hints, &ai);
        for (struct addrinfo *a = res.err ? NULL : ai; a && res.n < ADDRS_MAX; a = a->ai_next)
                if (a->ai_family == AF_INET || a->ai_family == AF_INET6)
                        net_addr_from_sockaddr(a->ai_addr, &res.a[res.n++]);
        if (ai)
                freeaddrinfo(ai);
        (void)!send(j->fd, &res, sizeof(res), MSG_NOSIGNAL);
        close(j->fd);
        free(j);
        return NULL;
}

int resolver_spawn(const char *host, pthread_t *ret_thread)
{
        int sv[2];
        if (resolver_pair(sv) < 0)
                return -errno;
        resolve_job *j = malloc(sizeof(*j));
        if (!j) {
                close(sv[0]);
                close(sv[1]);
                return -ENOMEM;
        }
        j->fd = sv[1];
        snprintf(j->host, sizeof(j->host), "%s", host);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (size_t)256 * 1024);
        int e = pthread_create(ret_thread, &attr, resolver_main, j);
        pthread_attr_destroy(&attr);
        if (e) {
                free(j);
                close(sv[0]);
                close(sv[1]);
                return -e;
        }
        return sv[0];
}

bool resolver_take(int fd, pthread_t thread, resolve_result *res)
{
        ssize_t n = recv(fd, res, sizeof(*res), 0);
        pthread_join(thread, NULL); /* it answered (or failed to): it is ending */
        if (n == (ssize_t)sizeof(*res))
                return true;
        *res = (resolve_result){0}; /* no address */
        return false;
}
