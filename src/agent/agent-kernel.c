#include "agent-kernel.h"

#include "basic/macro.h"

/* One list, so the two directions cannot drift apart. */
#define KERNEL_FEATURES(X) X(nft_owner) X(netem) X(tbf) X(ifb) X(xt_nfqueue) X(nft_queue) X(netdev_egress)

json_t *agent_kernel_features_json(const struct kernel_features *k) {
        json_t *j = json_pack("{s:b}", "known", k->known);
#define AS_SET(f) json_object_set_new(j, #f, json_boolean(k->f));
        if (j && k->known) {
                KERNEL_FEATURES(AS_SET)
        }
#undef AS_SET
        return j;
}

void agent_kernel_features_from_json(const json_t *j, struct kernel_features *ret) {
        *ret = (struct kernel_features){ .known = json_is_true(json_object_get(j, "known")) };
#define AS_GET(f) ret->f = json_is_true(json_object_get(j, #f));
        if (ret->known) {
                KERNEL_FEATURES(AS_GET)
        }
#undef AS_GET
}
