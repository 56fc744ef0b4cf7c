#pragma once

/* Shared by the topology's builders (the compose loader today, the engine
 * later) and topology.c. */

#include "topology.h"

/* The arena that will own everything; NULL when out of memory. */
struct topology *topology_new(const char *source_path);

/* Builds the name indexes and the dependency order once services and
 * containers are filled in (depends_on_index included). On -EEXIST (two
 * containers with one name) or -ELOOP (a depends_on cycle) *ret_service
 * names the service to blame and reterr says why, without a location. */
int topology_index(struct topology *t, size_t *ret_service, struct mh_error *reterr);
