/* nft_hooks_hold(): the hooks' static keys held on by a table nobody sees
 * (nft-rule.h says why). */
#include "nft-rule.h"

#include <pthread.h>
#include <stdio.h>

#include "sys/ns.h"

#define HOLD_TABLE "mayhem-hooks"

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static bool hold_tried;
static int hold_result;
static char hold_msg[MH_ERROR_MSG_MAX];
/* Never freed: the socket closes with the process, and the table and its
 * namespace with it. */
static struct nft_owner_table *hold_table;

static int fn_hold(void *arg, struct mh_error *e) {
        static const struct nft_chain_spec chains[] = {
                { .name = "pre", .hook = NFT_HOOK_PREROUTING },
                { .name = "in", .hook = NFT_HOOK_INPUT },
                { .name = "out", .hook = NFT_HOOK_OUTPUT },
        };
        struct nft_owner_table **ret = arg;
        _cleanup_(nft_owner_table_freep) struct nft_owner_table *t = NULL;
        int r = nft_owner_table_create("inet", HOLD_TABLE, &t, e);
        for (size_t i = 0; i < ELEMENTSOF(chains) && r >= 0; i++)
                r = nft_chain_add(t, &chains[i], e);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

int nft_hooks_hold(struct mh_error *reterr) {
        struct mh_error e = { 0 };
        pthread_mutex_lock(&hold_lock);
        if (!hold_tried) {
                hold_tried = true;
                hold_result = ns_net_run_new(fn_hold, &hold_table, &e);
                if (hold_result < 0)
                        snprintf(hold_msg, sizeof(hold_msg), "%s", e.msg);
        }
        int r = hold_result;
        pthread_mutex_unlock(&hold_lock);
        if (r < 0)
                return mh_error_fail(reterr, r, "nftables", "holding the netfilter hooks: %s", hold_msg);
        return 0;
}
