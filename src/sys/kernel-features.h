#pragma once

/* What the running kernel offers network faults, probed once (each probe
 * works in a throwaway network namespace of a forked child, so it needs
 * CAP_SYS_ADMIN and CAP_NET_ADMIN). The impact gate (src/plan/impact.c)
 * decides from it how each network fault is delivered. */

#include <stdbool.h>

#include "basic/error.h"

struct kernel_features {
        bool known;         /* false: not probed (no privilege, or another host's agent will tell) */
        bool nft_owner;     /* nftables owner tables (Linux >= 5.12): rules die with our socket */
        bool netem;         /* sch_netem */
        bool tbf;           /* sch_tbf */
        bool ifb;           /* IFB devices, the ingress qdisc and u32 + mirred to redirect into them */
        bool xt_nfqueue;    /* the xt NFQUEUE target through nft_compat */
        bool nft_queue;     /* nft's own queue expression */
        bool netdev_egress; /* netdev egress hook (Linux >= 5.16) */
};

/* Probes this kernel; ret->known is false (and reterr says why) when the
 * probes could not run. */
int kernel_features_detect(struct kernel_features *ret, struct mh_error *reterr);
