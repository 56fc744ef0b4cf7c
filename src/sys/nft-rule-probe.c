/* Kernel feature probes for rules: each builds what it asks about in an owner
 * table of a throwaway netns, in a forked child (ns_run()), and remembers the
 * answer. */
#include "nft-rule.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "sys/ns.h"

#define PROBE_TABLE   "mayhem_rule_probe"
#define PROBE_TIMEOUT 10000

enum probe {
        PROBE_EGRESS,
        PROBE_QUEUE,
        PROBE_XT_NFQUEUE,
        _PROBE_MAX,
};

static const char *const probe_what[_PROBE_MAX] = {
        [PROBE_EGRESS] = "netdev egress chains",
        [PROBE_QUEUE] = "the nft queue expression",
        [PROBE_XT_NFQUEUE] = "the xtables NFQUEUE target",
};

/* What the kernel answers when it lacks the feature. */
static const int probe_missing[_PROBE_MAX] = {
        [PROBE_EGRESS] = -EOPNOTSUPP,
        [PROBE_QUEUE] = -ENOENT,
        [PROBE_XT_NFQUEUE] = -ENOENT,
};

static int probe_build(enum probe p, struct mh_error *e) {
        _cleanup_(nft_owner_table_freep) struct nft_owner_table *t = NULL;
        struct nft_chain_spec c = { .name = "probe", .hook = NFT_HOOK_OUTPUT };
        struct nft_rule_spec s = { .action = NFT_ACTION_QUEUE, .queue.bypass = true };
        const char *family = p == PROBE_EGRESS ? "netdev" : p == PROBE_QUEUE ? "inet" : "ip";
        int r;

        r = nft_owner_table_create(family, PROBE_TABLE, &t, e);
        if (r < 0)
                return r;
        if (p == PROBE_EGRESS) {
                c.hook = NFT_HOOK_EGRESS;
                c.device = "lo";
        }
        r = nft_chain_add(t, &c, e);
        if (r < 0 || p == PROBE_EGRESS)
                return r;
        s.queue.via = p == PROBE_QUEUE ? NFT_QUEUE_NATIVE : NFT_QUEUE_XT;
        return nft_rule_add(t, c.name, &s, NULL, e);
}

static int probe_fn(void *arg, char *out, size_t *out_len) {
        struct mh_error e = { 0 };
        int r;

        if (unshare(CLONE_NEWNET) < 0) {
                r = negative_errno();
                *out_len =
                        (size_t)MAX(0, snprintf(out, *out_len, "unshare(CLONE_NEWNET): %s", strerror(-r)));
                return r;
        }
        r = probe_build(*(const enum probe *)arg, &e);
        *out_len = r < 0 ? (size_t)MAX(0, snprintf(out, *out_len, "%s", e.msg)) : 0;
        return r;
}

static int probe_run(enum probe p, struct mh_error *reterr) {
        static int cached[_PROBE_MAX] = { -1, -1, -1 };
        char out[NS_RESULT_MAX + 1];
        size_t len = 0;
        int fn_result, r;

        r = __atomic_load_n(&cached[p], __ATOMIC_ACQUIRE);
        if (r >= 0)
                return r;
        r = ns_run(NULL, 0, probe_fn, &p, PROBE_TIMEOUT, out, &len, &fn_result, reterr);
        if (r < 0) {
                mh_error_prefix(reterr, "probing for %s: ", probe_what[p]);
                return r;
        }
        out[MIN(len, (size_t)NS_RESULT_MAX)] = '\0';
        if (fn_result == 0 || fn_result == probe_missing[p]) {
                r = fn_result == 0;
                __atomic_store_n(&cached[p], r, __ATOMIC_RELEASE);
                return r;
        }
        return mh_error_fail(reterr, fn_result, "kernel_feature", "probing for %s: %s", probe_what[p], out);
}

int nft_netdev_egress_supported(struct mh_error *reterr) {
        return probe_run(PROBE_EGRESS, reterr);
}

int nft_queue_supported(struct mh_error *reterr) {
        return probe_run(PROBE_QUEUE, reterr);
}

int nft_xt_nfqueue_supported(struct mh_error *reterr) {
        return probe_run(PROBE_XT_NFQUEUE, reterr);
}
