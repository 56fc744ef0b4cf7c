/* A network fault's lease, as the agent receives it from a controller,
 * through param binding and the recipe: byte 0 picks the fault, the rest is
 * one JSON object whose "delivery", "peers" and "self" are the lease's net
 * context and whose other keys go over the catalog's defaults as its params.
 * Checks: binding refuses what does not fit the schema; a recipe that builds
 * has rules within bounds, probabilities within the scale, and every rule
 * passes the nftables spec check for an inet table (or the ip family of its
 * peers), so nothing malformed reaches the kernel. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fault-params.h"
#include "fault/net-recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct fault_def *nth_network_fault(uint8_t k) {
        size_t n = 0, i;
        for (i = 0; i < catalog_size(); i++)
                n += catalog_at(i)->net.action != NET_ACTION_NONE;
        if (n == 0)
                abort();
        for (i = 0, n = k % n; i < catalog_size(); i++)
                if (catalog_at(i)->net.action != NET_ACTION_NONE && n-- == 0)
                        return catalog_at(i);
        abort();
}

/* Moves the net context's keys out of all into a new object. */
static json_t *split_net(json_t *all) {
        static const char *const keys[] = { "delivery", "peers", "self" };
        json_t *net = json_object();
        for (size_t i = 0; net && i < 3; i++)
                if (json_object_get(all, keys[i])) {
                        json_object_set(net, keys[i], json_object_get(all, keys[i]));
                        json_object_del(all, keys[i]);
                }
        return net;
}

static void check(const struct net_recipe *rc) {
        if (rc->n_rules > NET_RULES_MAX || rc->dirs == 0 || rc->dirs > 3)
                abort();
        for (size_t i = 0; i < rc->n_rules; i++) {
                const struct nft_rule_spec *s = &rc->rules[i].spec;
                if (s->probability > NFT_PROBABILITY_SCALE)
                        abort();
                if (s->action == NFT_ACTION_DUP_ADDR)
                        continue; /* its address is filled in by the agent */
                struct mh_error e = { 0 };
                if (nft_rule_spec_check("inet", s, &e) < 0 && !(s->peers[0] && strstr(e.msg, "famil")))
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        json_t *all = json_loadb((const char *)data + 1, size - 1, 0, NULL);
        if (!json_is_object(all)) {
                json_decref(all);
                return 0;
        }
        const struct fault_def *def = nth_network_fault(data[0]);
        json_t *net = split_net(all);
        char *rest = json_dumps(all, JSON_COMPACT);
        json_t *params = rest ? fault_params_defaults(def, rest) : NULL;
        struct fault_exec fx = { .lease_id = "l-0123456789abcdef" };
        struct net_recipe rc;
        if (params && fault_exec_bind(&fx, def, params, net, NULL) >= 0 &&
            net_recipe_build(&fx, &fx.net, &rc, NULL) >= 0)
                check(&rc);
        free(rest);
        json_decref(params);
        json_decref(net);
        json_decref(all);
        return 0;
}
