#pragma once

/* What the agent holds for each lease in force, by lease id: a network
 * fault's nftables sockets, shaper and flap thread, a crash loop's thread, a
 * guardian's pipe. One registry per agent (its state owns it); a mechanism
 * puts its record in when it applies a fault, takes it out when it undoes it,
 * and its release() frees it. Nothing here outlives the agent, and nothing
 * needs to: what the kernel does not drop with the agent's sockets, a
 * guardian removes. Thread-safe. */

#include <stdbool.h>

#include "fault/fault.h"

#define FAULT_LIVES_MAX 256

struct fault_lives *fault_lives_new(void);
/* Releases every record left (mechanism release()). NULL-safe. */
struct fault_lives *fault_lives_free(struct fault_lives *l);

/* Holds live, released by m->release, for lease_id. -EEXIST when the lease
 * holds a record already, -ENOSPC when FAULT_LIVES_MAX are held. */
int fault_live_put(struct fault_lives *l, const char *lease_id, const struct fault_mechanism *m, void *live);
/* Takes the record of lease_id out: the caller releases it. NULL when none. */
void *fault_live_take(struct fault_lives *l, const char *lease_id);
/* Calls fn(live, arg) with the registry locked, so the record cannot be
 * released meanwhile; false when lease_id holds nothing. */
bool fault_live_with(
        struct fault_lives *l, const char *lease_id, void (*fn)(void *live, void *arg), void *arg);
size_t fault_lives_count(struct fault_lives *l);
