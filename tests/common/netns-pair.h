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

/* prefix: a few letters unique to the test; the names are PREFIX-PID-a and
 * PREFIX-PID-b, this process's pid in them, so two runs of the same test at
 * once (two checkouts, two builds) each have their own. subnet: S in
 * 10.S.0.0/24, unique to the test too (it lives inside the pair only). Pairs
 * left over from crashed runs of the same test (names with the pid of a
 * process that no longer runs) are removed first. 0, or -1 with a message on
 * stderr. */
int netns_pair_create(struct netns_pair *p, const char *prefix, int subnet);
/* Deletes both namespaces (and with them the veth pair). */
void netns_pair_destroy(struct netns_pair *p);

/* Forks a child that enters netns name and exits with fn(arg, out_fd); what fn
 * writes to out_fd is for netns_collect(). Returns the child's pid once it
 * is in the namespace (its /proc/PID/ns/net is name's), -1 on failure (the
 * child killed and reaped). */
pid_t netns_fork(const char *name, int (*fn)(void *arg, int out_fd), void *arg, int *ret_read_fd);
/* Reads everything the child wrote (up to size - 1 bytes, NUL-terminated) and
 * reaps it: its exit code, or -1. A child that has not ended within
 * NETNS_COLLECT_MS is killed (said on stderr) and -1 returned. */
int netns_collect(pid_t pid, int read_fd, char *buf, size_t size);

/* How long a child may take to write "ready\n", and to end once collected:
 * far above what a loaded machine under a sanitizer needs (a bind, a few ms;
 * the longest server lives 30 s), so that only a hung child reaches them. */
#define NETNS_READY_MS   10000
#define NETNS_COLLECT_MS 90000

/* Waits up to timeout_ms for the line "ready\n" on read_fd, reading nothing
 * beyond it (what comes after is netns_collect()'s). 0, or -ETIMEDOUT, or
 * -EPIPE when the child wrote something else or closed its end first; a
 * failure is said on stderr with what (who waited for what) and what came. */
int netns_wait_ready(int read_fd, int timeout_ms, const char *what);
/* netns_fork() of a server that writes "ready\n" to out_fd once its socket
 * is bound (and listening), then netns_wait_ready() for it: a client forked
 * after this returns is never refused, and no datagram of its is lost to a
 * port nobody holds yet. The pid, or -1 (the child killed and reaped, the
 * reason on stderr). */
pid_t netns_fork_server(const char *name, int (*fn)(void *arg, int out_fd), void *arg, int *ret_read_fd);

/* Enters netns name in the calling thread (for a forked child). */
int netns_enter(const char *name);
