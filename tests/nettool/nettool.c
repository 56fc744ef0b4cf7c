/* The network test image's one program (static, FROM scratch): the servers
 * that let a test measure network faults on a container from the outside,
 * and a client to measure from inside it. No shell, no iproute2: mayhem needs
 * nothing inside its targets, and this image proves it.
 *
 *   nettool serve                 UDP echo on 7001, TCP echo on 7020 and 7021,
 *                                 a TCP source on 7030, forever
 *   nettool connect ADDR PORT     prints the outcome of a TCP connection:
 *                                 ok, ECONNREFUSED, ECONNRESET, ETIMEDOUT
 *   nettool resolve NAME          getaddrinfo(NAME) (IPv4) as the container's
 *                                 libc does it: "ok ADDR MS" or "EAI_... MS"
 *   nettool dns NAME ADDR         a DNS server on UDP 53 answering A NAME with
 *                                 ADDR and NXDOMAIN for other names, forever */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
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

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int resolve(const char *name) {
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res = NULL;
        double start = now_ms();
        int r = getaddrinfo(name, NULL, &hints, &res);
        double ms = now_ms() - start;
        char addr[INET_ADDRSTRLEN] = "";
        if (r == 0) {
                inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, addr, sizeof(addr));
                freeaddrinfo(res);
                printf("ok %s %.0f\n", addr, ms);
        } else
                printf("%s %.0f\n",
                       r == EAI_AGAIN    ? "EAI_AGAIN"
                       : r == EAI_NONAME ? "EAI_NONAME"
                       : r == EAI_FAIL   ? "EAI_FAIL"
                                         : gai_strerror(r),
                       ms);
        return 0;
}

/* The question's name as dotted text; its length in the packet, or -1. */
static int question_name(const unsigned char *q, size_t len, char *out, size_t size) {
        size_t at = 0, o = 0;
        while (at < len && q[at]) {
                size_t l = q[at++];
                if (l > 63 || at + l > len || o + l + 2 > size)
                        return -1;
                if (o)
                        out[o++] = '.';
                memcpy(out + o, q + at, l);
                o += l, at += l;
        }
        out[o] = '\0';
        return at < len ? (int)at + 1 : -1;
}

/* One reply: the query's header and question, then an A record for name. */
static size_t dns_answer(unsigned char *b, size_t n, const char *name, struct in_addr addr) {
        char q[256];
        int ql = n > 12 ? question_name(b + 12, n - 12, q, sizeof(q)) : -1;
        if (ql < 0 || 12 + (size_t)ql + 4 > n)
                return 0;
        size_t end = 12 + (size_t)ql + 4;
        bool match = strcasecmp(q, name) == 0, type_a = b[12 + ql] == 0 && b[12 + ql + 1] == 1;
        b[2] = 0x84 | (b[2] & 0x01); /* QR, AA, RD as asked */
        b[3] = match ? 0x00 : 0x03;  /* NOERROR / NXDOMAIN */
        b[6] = 0, b[7] = match && type_a, b[8] = b[9] = b[10] = b[11] = 0;
        if (!(match && type_a))
                return end;
        static const unsigned char rr[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 5, 0, 4 };
        memcpy(b + end, rr, sizeof(rr));
        memcpy(b + end + sizeof(rr), &addr, 4);
        return end + sizeof(rr) + 4;
}

static int dns_serve(const char *name, const char *addr) {
        struct in_addr a;
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(53) };
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (inet_pton(AF_INET, addr, &a) != 1 || fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return 1;
        for (;;) {
                unsigned char b[512 + 32];
                struct sockaddr_in from;
                socklen_t fl = sizeof(from);
                ssize_t n = recvfrom(fd, b, 512, 0, (struct sockaddr *)&from, &fl);
                size_t out = n > 0 ? dns_answer(b, (size_t)n, name, a) : 0;
                if (out)
                        sendto(fd, b, out, 0, (struct sockaddr *)&from, fl);
        }
}

int main(int argc, char **argv) {
        if (argc == 2 && strcmp(argv[1], "serve") == 0)
                return serve();
        if (argc == 4 && strcmp(argv[1], "connect") == 0)
                return connect_outcome(argv[2], argv[3]);
        if (argc == 3 && strcmp(argv[1], "resolve") == 0)
                return resolve(argv[2]);
        if (argc == 4 && strcmp(argv[1], "dns") == 0)
                return dns_serve(argv[2], argv[3]);
        fprintf(stderr,
                "usage: nettool serve | nettool connect ADDR PORT | nettool resolve NAME | nettool dns NAME "
                "ADDR\n");
        return 2;
}
