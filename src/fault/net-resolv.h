#pragma once

/* The resolver a target asks: the nameservers of its own /etc/resolv.conf,
 * read through /proc/PID/root the way the target sees it. The file belongs
 * to the target and is treated as hostile: it is opened inside the target's
 * root (a symlink cannot lead out of it), only a regular file of at most
 * NET_RESOLV_MAX bytes is read, and only address literals are taken from it. */

#include <netinet/in.h>
#include <stddef.h>

#include "sys/process.h"

#define NET_RESOLV_MAX      4096
#define NET_NAMESERVERS_MAX 3 /* glibc's MAXNS: it asks no others */

struct net_nameservers {
        size_t n;
        char addr[NET_NAMESERVERS_MAX][INET6_ADDRSTRLEN];
};

/* The "nameserver ADDR" lines of text (len bytes, NUL or not), in order, up
 * to NET_NAMESERVERS_MAX; lines that are not an IPv4 or IPv6 literal (names,
 * scoped IPv6 addresses, junk) are skipped. No I/O. */
void net_nameservers_parse(const char *text, size_t len, struct net_nameservers *ret);

/* The nameservers of the target's /etc/resolv.conf. -ESRCH when the process
 * is gone or its pid was reused; -ENOENT, -EFBIG (over NET_RESOLV_MAX),
 * -EINVAL (not a regular file) and open's errors otherwise; detail says
 * which, in a sentence. */
int net_nameservers_of(
        const struct proc_identity *id, struct net_nameservers *ret, char *detail, size_t size);
