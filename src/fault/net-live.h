#pragma once

/* What the agent holds for one network fault in force (its record in
 * fault_lives, live.h): the nft owner tables (their sockets: the rules die
 * with them), the shaper, the flap thread, the guardian of qdiscs. Nothing
 * here survives the agent, and nothing needs to: tables and the shaper's
 * queue vanish with the process, and the guardian removes the qdiscs
 * (fault-net.c). */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "fault/net-recipe.h"
#include "shaper/shaper.h"
#include "sys/nft.h"
#include "sys/process.h"

#define NET_TABLES_MAX 3 /* inet, or ip + ip6; and netdev */

struct net_live {
        char lease_id[32];
        struct proc_identity target;
        struct fault_net net; /* the lease's: rc's peer addresses point into it */
        struct net_recipe rc;
        struct nft_owner_table *tables[NET_TABLES_MAX];
        size_t n_tables;
        struct shaper *shaper;
        uint16_t queue;
        /* dependency.flap */
        pthread_t flap_thread;
        bool flap_started;
        atomic_bool flap_stop;
        struct fault_guard *guard; /* of qdiscs (fault/guard.h); NULL for rules and the shaper */
};

/* A new record (zeroed) for lease_id; NULL when out of memory. */
struct net_live *net_live_new(const char *lease_id);
/* Stops the flap thread and the shaper, deletes the tables, releases the
 * guardian (which then leaves the qdiscs to the caller), frees. NULL-safe. */
void net_live_free(struct net_live *l);
