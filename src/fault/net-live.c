#include "net-live.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/live.h"
#include "sys/nft-rule.h"

struct net_live *net_live_new(const char *lease_id, struct fault_lives *lives) {
        struct net_live *l = calloc(1, sizeof(*l));
        if (!l)
                return NULL;
        snprintf(l->lease_id, sizeof(l->lease_id), "%s", lease_id);
        l->guard_fd = -EBADF;
        l->lives = lives;
        return l;
}

/* The guardian exits at once on "release"; it is reaped here, and killed if
 * it does not go within a second. */
static void guard_release(struct net_live *l) {
        if (l->guard_fd >= 0) {
                static const char msg[] = "release\n";
                ssize_t n = write(l->guard_fd, msg, sizeof(msg) - 1);
                (void)n;
                close(l->guard_fd);
                l->guard_fd = -EBADF;
        }
        for (double until = monotonic_ms() + 1000; l->guard_pid > 0;) {
                pid_t r = waitpid(l->guard_pid, NULL, WNOHANG);
                if (r == l->guard_pid || (r < 0 && errno != EINTR))
                        l->guard_pid = 0;
                else if (monotonic_ms() > until) {
                        kill(l->guard_pid, SIGKILL);
                        waitpid(l->guard_pid, NULL, 0);
                        l->guard_pid = 0;
                } else
                        sleep_ms(2);
        }
}

struct closing {
        struct nft_owner_table *tables[NET_TABLES_MAX];
        size_t n;
};

static void close_tables(void *arg) {
        struct closing *c = arg;
        for (size_t i = 0; i < c->n; i++)
                nft_owner_table_free(c->tables[i]);
        free(c);
}

/* The tables are deleted by the time this returns; their sockets are closed
 * by background work of the registry, since the kernel's release of an
 * nftables socket waits for the deletion's RCU grace period (Linux 6.x:
 * several ms). */
static void tables_delete(struct net_live *l) {
        if (l->n_tables == 0)
                return;
        struct closing *c = calloc(1, sizeof(*c));
        for (size_t i = 0; i < l->n_tables; i++)
                nft_owner_table_delete(l->tables[i], NULL);
        if (!c) {
                for (size_t i = 0; i < l->n_tables; i++)
                        nft_owner_table_free(l->tables[i]);
                l->n_tables = 0;
                return;
        }
        memcpy(c->tables, l->tables, l->n_tables * sizeof(l->tables[0]));
        c->n = l->n_tables;
        l->n_tables = 0;
        if (l->lives)
                fault_lives_spawn(l->lives, close_tables, c);
        else
                close_tables(c);
}

void net_live_free(struct net_live *l) {
        if (!l)
                return;
        if (l->flap_started) {
                atomic_store(&l->flap_stop, true);
                pthread_join(l->flap_thread, NULL);
        }
        l->shaper = shaper_free(l->shaper);
        tables_delete(l);
        guard_release(l);
        free(l);
}
