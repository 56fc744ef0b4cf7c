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
#include "fault/guard.h"
#include "fault/live.h"
#include "sys/nft-rule.h"

struct net_live *net_live_new(const char *lease_id, struct fault_lives *lives) {
        struct net_live *l = calloc(1, sizeof(*l));
        if (!l)
                return NULL;
        snprintf(l->lease_id, sizeof(l->lease_id), "%s", lease_id);
        l->lives = lives;
        return l;
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
        l->guard = fault_guard_release(l->guard);
        free(l);
}
