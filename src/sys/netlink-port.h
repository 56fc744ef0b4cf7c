#pragma once

/* Port ids for the netlink sockets we bind ourselves, instead of autobind's.
 *
 * Why: autobind gives the first netlink socket of a process in a network
 * namespace the process's tgid, and when that socket closes, the next one
 * gets the tgid again. The kernel frees a port id before it tells nftables
 * and nfnetlink_queue that it is released (NETLINK_URELEASE), and they then
 * delete the owner tables and the queues bound to that id. While every socket
 * was opened in a forked child, each had a port id of its own (the child's
 * tgid); with all of them opened by the agent's threads, a socket closed on
 * one thread could take with it the table another thread had just created
 * through a new socket that was handed the same id (seen on Linux 6.18:
 * dns.timeout's table gone right after it was applied, in a full run of
 * tests/priv/test-priv-netfault.c, and another lease's table gone with the
 * last one's socket in tests/priv/test-priv-netns.c).
 *
 * The ids come from 0x40000000..0x7fffffff, above every pid and below the
 * negative ids autobind hands out after the tgid, starting at a point of
 * this process's own; they come back only after 2^30 sockets. */

#include <stdint.h>

#define NL_PORT_FIRST 0x40000000u
#define NL_PORT_SPAN  0x40000000u
/* Binds that find their id taken (another process chose it) are retried with the next. */
#define NL_PORT_TRIES 16

/* The next port id; thread-safe. */
uint32_t nl_port_next(void);

/* Binds the AF_NETLINK socket fd (no multicast groups) to nl_port_next(),
 * retried on EADDRINUSE: 0, or -errno. */
int nl_port_bind(int fd);
