#include "kernel-features.h"

#include "sys/nft-rule.h"
#include "sys/nft.h"
#include "sys/rtnl.h"

/* Every probe runs once per process and remembers its answer; "could not
 * tell" (< 0) counts as "no" for the gate, and the first such error is kept
 * in reterr. */
int kernel_features_detect(struct kernel_features *ret, struct mh_error *reterr) {
        struct mh_error first = { 0 };
        int owner = nft_owner_supported(&first);
        if (owner < 0) {
                *ret = (struct kernel_features){ .known = false };
                if (reterr)
                        *reterr = first;
                return owner;
        }
        *ret = (struct kernel_features){
                .known = true,
                .nft_owner = owner == 1,
                .netem = rtnl_qdisc_kind_supported("netem", NULL) == 1,
                .tbf = rtnl_qdisc_kind_supported("tbf", NULL) == 1,
                .ifb = rtnl_ingress_redirect_supported(NULL) == 1,
                .xt_nfqueue = owner == 1 && nft_xt_nfqueue_supported(NULL) == 1,
                .nft_queue = owner == 1 && nft_queue_supported(NULL) == 1,
                .netdev_egress = owner == 1 && nft_netdev_egress_supported(NULL) == 1,
        };
        return 0;
}
