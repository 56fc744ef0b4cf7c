#pragma once

/* The environment fingerprint of a run (reference §5.1): sha256 of
 * "|".join(sorted host names, compose digest, profile or "default",
 * policy id, target profile). A plan saved with it (`prepare plan`, the
 * run row) is refused by `run --from-plan` / `--plan-id` when the
 * environment it was made for is no longer the one it would run in. */

#include <jansson.h>
#include <stddef.h>

#include "basic/error.h"
#include "basic/sha256.h"

#define ENV_HOSTS_MAX 8

struct env_facts {
        const char *hosts[ENV_HOSTS_MAX]; /* where the faults land: the agents' hosts */
        size_t n_hosts;
        char compose_digest[SHA256_HEX_SIZE]; /* sha256 of the compose file's bytes; "" without one */
        const char *profile;                  /* --profile; NULL: "default" */
        const char *policy;                   /* --policy; NULL: "default" */
        const char *target;                   /* --target; NULL: "" */
};

/* Pure: the same facts in any host order give the same 64 hex digits. */
void env_fingerprint(const struct env_facts *f, char ret[SHA256_HEX_SIZE]);

/* The facts of this command line: the agent's host (its ssh host, else this
 * machine's name, written into hostbuf) and the compose file's digest
 * (compose_path may be NULL). Exit 4 when the compose file cannot be read. */
int env_facts_collect(
        const char *agent_ssh, const char *compose_path, const char *profile, const char *policy,
        const char *target, char *hostbuf, size_t hostbuf_size, struct env_facts *ret,
        struct mh_error *reterr);

/* {hosts[], compose_digest, profile, policy, target, fingerprint} as
 * fingerprinted (defaults filled in); a new reference. */
json_t *env_facts_json(const struct env_facts *f);

/* Which facts differ between a saved environment (env_facts_json()) and
 * now, as "compose digest 1a2b3c4d5e6f -> 0f9e8d7c6b5a, policy default ->
 * strict" into buf; 0 when none does, else how many. */
int env_facts_changes(const json_t *saved, const json_t *now, char *buf, size_t size);
