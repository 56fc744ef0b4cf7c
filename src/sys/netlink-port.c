#include "netlink-port.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"

static atomic_uint next_port;
static atomic_bool seeded;

uint32_t nl_port_next(void) {
        if (!atomic_load(&seeded)) {
                /* A starting point of this process's own, so two agents seldom
                 * try the same ids; a race here only repeats the seeding. */
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                unsigned seed = (unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec;
                unsigned zero = 0;
                atomic_compare_exchange_strong(&next_port, &zero, seed);
                atomic_store(&seeded, true);
        }
        return NL_PORT_FIRST + atomic_fetch_add(&next_port, 1u) % NL_PORT_SPAN;
}

int nl_port_bind(int fd) {
        for (int i = 0; i < NL_PORT_TRIES; i++) {
                struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = nl_port_next() };
                if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
                        return 0;
                if (errno != EADDRINUSE)
                        return negative_errno();
        }
        return -EADDRINUSE;
}
