#pragma once

/* `mayhem init`: a commented starter drill for a compose stack, written so
 * that `mayhem prepare validate` accepts it as it is. */

#include <stdio.h>

#include "basic/error.h"
#include "topology/topology.h"

/* The hold of the starter fault: short, so a first run is over quickly. */
#define INIT_FAULT_SECONDS 5u

/* Writes the drill for t to out: one fault per service that has a
 * container (the catalog's first runnable low-risk fault of
 * init_safe_faults that acts on a container; a service whose fault would
 * hit more than max_services_pct of the stack with its dependents is left
 * out, with a comment), a tcp check from the host per
 * published tcp port before and after the faults, and a criterion on each
 * check. compose_shown names the compose file in the comments. Every name
 * from the compose file is written as a double-quoted YAML scalar.
 * -ENOENT (exit 4) when no service is left; -EIO on a failed write. */
int init_drill_write(
        FILE *out, const struct topology *t, const char *compose_shown, double max_services_pct,
        struct mh_error *reterr);

/* s as a double-quoted YAML scalar: quotes, backslashes and control bytes
 * escaped. Returns false when it does not fit in size. */
bool init_yaml_quote(const char *s, char *buf, size_t size);
