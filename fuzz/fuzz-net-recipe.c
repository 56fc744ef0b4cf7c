/* Lease params, as the agent receives them from a controller, through the
 * network fault recipe: byte 0 picks the fault, the rest is the params JSON.
 * Checks: a recipe that builds has rules within bounds, probabilities within
 * the scale, and every rule passes the nftables spec check for an inet table
 * (or the ip family of its peers), so nothing malformed reaches the kernel. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fault/net-recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *nth_network_fault(uint8_t k) {
        size_t n = 0, i;
        for (i = 0; i < fault_mechanism_count(); i++)
                n += net_fault_is_network(fault_mechanism_at(i)->fault_id);
        if (n == 0)
                abort();
        for (i = 0, n = k % n; i < fault_mechanism_count(); i++)
                if (net_fault_is_network(fault_mechanism_at(i)->fault_id) && n-- == 0)
                        return fault_mechanism_at(i)->fault_id;
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        json_t *params = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
        if (!params)
                return 0;
        struct fault_exec fx = { .fault_id = nth_network_fault(data[0]),
                                 .lease_id = "l-0123456789abcdef",
                                 .params = params };
        struct net_recipe rc;
        if (net_recipe_build(&fx, &rc, NULL) >= 0) {
                if (rc.n_rules > NET_RULES_MAX || rc.dirs == 0 || rc.dirs > 3)
                        abort();
                for (size_t i = 0; i < rc.n_rules; i++) {
                        const struct nft_rule_spec *s = &rc.rules[i].spec;
                        if (s->probability > NFT_PROBABILITY_SCALE)
                                abort();
                        if (s->action == NFT_ACTION_DUP_ADDR)
                                continue; /* its address is filled in by the agent */
                        struct mh_error e = { 0 };
                        if (nft_rule_spec_check("inet", s, &e) < 0 &&
                            !(s->peers[0] && strstr(e.msg, "famil")))
                                abort();
                }
        }
        json_decref(params);
        return 0;
}
