#pragma once

/* What the agent holds for each network fault in force, by lease id: the nft
 * owner tables (their sockets: the rules die with them), the shaper, the flap
 * thread, the guardian of qdiscs. Nothing here survives the agent, and
 * nothing needs to: tables and the shaper's queue vanish with the process,
 * and the guardian removes the qdiscs (fault-net.c). */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "fault/net-recipe.h"
#include "shaper/shaper.h"
#include "sys/nft.h"
#include "sys/process.h"

#define NET_LIVE_MAX   64
#define NET_TABLES_MAX 3 /* inet, or ip + ip6; and netdev */

struct net_live {
        char lease_id[32];
        struct proc_identity target;
        struct net_recipe rc;
        json_t *params; /* a reference to the lease params rc points into (peer addresses) */
        struct nft_owner_table *tables[NET_TABLES_MAX];
        size_t n_tables;
        struct shaper *shaper;
        uint16_t queue;
        /* dependency.flap */
        pthread_t flap_thread;
        bool flap_started;
        atomic_bool flap_stop;
        /* guardian of qdiscs: the write end of its stdin, and its pid */
        int guard_fd;
        pid_t guard_pid;
};

/* A new entry (zeroed, guard_fd -1) for lease_id, NULL when full or taken. */
struct net_live *net_live_add(const char *lease_id);
/* Takes the entry of lease_id out of the registry: the caller tears it down
 * and frees it with net_live_free(). NULL when there is none. */
struct net_live *net_live_take(const char *lease_id);
/* Whether lease_id has an entry, and its shaper queue (0 without). */
bool net_live_has(const char *lease_id, uint16_t *ret_queue);
/* Stops the flap thread and the shaper, closes the tables, releases the
 * guardian (which then leaves the qdiscs to the caller), frees. */
void net_live_free(struct net_live *l);
