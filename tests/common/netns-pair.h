#pragma once

/* Two network namespaces joined by a veth pair, for tests that need real
 * traffic (root only): side a is 10.S.0.1/24 and fd00:S::1/64 on dev_a, side b
 * 10.S.0.2 and fd00:S::2 on dev_b; loopback is up in both. Built with iproute2
 * (an argv, no shell) so the code under test does not set up its own test bed. */

#include <stdbool.h>
#include <sys/types.h>

struct netns_pair {
        char a[32], b[32];         /* names under /run/netns */
        char dev_a[16], dev_b[16]; /* veth ends */
        char addr_a[16], addr_b[16];
        char addr6_a[40], addr6_b[40];
};

/* prefix: a few letters unique to the test (names are PREFIX-a, PREFIX-b);
 * subnet: S in 10.S.0.0/24, unique to the test too. A pair left over from a
 * crashed run of the same test is removed first. 0, or -1 with a message on
 * stderr. */
int netns_pair_create(struct netns_pair *p, const char *prefix, int subnet);
/* Deletes both namespaces (and with them the veth pair). */
void netns_pair_destroy(struct netns_pair *p);

/* Forks a child that enters netns name and exits with fn(arg, out_fd); what fn
 * writes to out_fd is for netns_collect(). Returns the child's pid, -1 on
 * failure. */
pid_t netns_fork(const char *name, int (*fn)(void *arg, int out_fd), void *arg, int *ret_read_fd);
/* Reads everything the child wrote (up to size - 1 bytes, NUL-terminated) and
 * reaps it: its exit code, or -1. */
int netns_collect(pid_t pid, int read_fd, char *buf, size_t size);

/* Enters netns name in the calling thread (for a forked child). */
int netns_enter(const char *name);
