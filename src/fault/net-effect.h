#pragma once

/* Effect checks of network faults: each looks at the effect itself from
 * inside the target's network namespace, once fault-net.c has seen the
 * lease's tables or qdiscs there. Same contract as fault_look_fn
 * (fault.h): *ret true and 0 when the effect was seen, *ret true and
 * FAULT_EFFECT_UNOBSERVED when it cannot be seen on this target (detail
 * says why), *ret false when the target plainly does not suffer it. */

#include <stdbool.h>
#include <stddef.h>

#include "fault/fault.h"

/* dns.unanswered: a query to the target's own resolver times out. */
int net_effect_dns(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
/* net.unreachable: a TCP connect to a peer times out. */
int net_effect_unreachable(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
/* net.shaped: the shaper's or our qdiscs' counters show packets held or dropped. */
int net_effect_shaped(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
/* nft.rules_present, and net.shaped delivered by rules: the counters of the
 * lease's rules show packets they acted on (dropped, refused, reset,
 * corrupted, copied: each rule counts after its last match). */
int net_effect_counted(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
