/* The network test image's one program (static, FROM scratch): the servers
 * that let a test measure network faults on a container from the outside,
 * and a client to measure from inside it. No shell, no iproute2: mayhem needs
 * nothing inside its targets, and this image proves it.
 *
 *   nettool serve                 UDP echo on 7001, TCP echo on 7020 and 7021,
 *                                 a TCP source on 7030, forever
 *   nettool connect ADDR PORT     prints the outcome of a TCP connection:
 *                                 ok, ECONNREFUSED, ECONNRESET, ETIMEDOUT */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/netprobe.h"

#define FOREVER_MS (3600 * 1000)

static void *udp_echo(void *arg) {
        for (;;)
                udp_reflector(7001, FOREVER_MS, FOREVER_MS);
        return arg;
}

static void *tcp_echo(void *arg) {
        for (;;)
                tcp_server((int)(long)arg, true, FOREVER_MS);
        return NULL;
}

static void *source(void *arg) {
        for (;;)
                tcp_source(7030, FOREVER_MS);
        return arg;
}

static int serve(void) {
        pthread_t t;
        if (pthread_create(&t, NULL, udp_echo, NULL) || pthread_create(&t, NULL, tcp_echo, (void *)7020L) ||
            pthread_create(&t, NULL, tcp_echo, (void *)7021L) || pthread_create(&t, NULL, source, NULL))
                return 1;
        for (;;)
                pthread_join(t, NULL);
}

static int connect_outcome(const char *addr, const char *port) {
        char *end;
        long p = strtol(port, &end, 10);
        if (*end || p <= 0 || p > 65535)
                return 2;
        int r = tcp_connect_outcome(addr, (int)p, 2000);
        printf("%s\n", r == 0               ? "ok"
                       : r == -ECONNREFUSED ? "ECONNREFUSED"
                       : r == -ECONNRESET   ? "ECONNRESET"
                       : r == -ETIMEDOUT    ? "ETIMEDOUT"
                                            : strerror(-r));
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 2 && strcmp(argv[1], "serve") == 0)
                return serve();
        if (argc == 4 && strcmp(argv[1], "connect") == 0)
                return connect_outcome(argv[2], argv[3]);
        fprintf(stderr, "usage: nettool serve | nettool connect ADDR PORT\n");
        return 2;
}
