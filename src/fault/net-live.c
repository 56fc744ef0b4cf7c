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

struct net_live *net_live_new(const char *lease_id) {
        struct net_live *l = calloc(1, sizeof(*l));
        if (!l)
                return NULL;
        snprintf(l->lease_id, sizeof(l->lease_id), "%s", lease_id);
        return l;
}

/* The tables are deleted by the time this returns; their sockets are closed
 * off this path (nft_owner_table_free_later()), since the kernel's release of
 * an nftables socket waits for the deletion's RCU grace period. */
static void tables_delete(struct net_live *l) {
        for (size_t i = 0; i < l->n_tables; i++) {
                nft_owner_table_delete(l->tables[i], NULL);
                nft_owner_table_free_later(l->tables[i]);
        }
        l->n_tables = 0;
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
